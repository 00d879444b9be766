//! PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and Kubernetes strategic
//! merge patch, chosen by the request's `Content-Type` as the apiserver does.

mod strategic;

use serde_json::Value;

use crate::apiserver::status::{ApiError, ApiResult};

pub use strategic::strategic_merge;

/// A PATCH body's type, from the request's `Content-Type` as the apiserver chooses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchType {
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/json-patch+json` (RFC 6902).
    Json,
    /// `application/strategic-merge-patch+json`.
    Strategic,
}

impl PatchType {
    /// The type of `content_type`: 415 for a type no route accepts (server-side apply is served
    /// apart, CBOR apply is behind a disabled feature gate), and for strategic merge patch of a
    /// custom resource, as upstream refuses it.
    pub fn of(content_type: &str, custom_resource: bool) -> ApiResult<Self> {
        match content_type.split(';').next().unwrap_or("").trim() {
            "application/merge-patch+json" => Ok(Self::Merge),
            "application/json-patch+json" => Ok(Self::Json),
            "application/strategic-merge-patch+json" if custom_resource => Err(ApiError::unsupported_media_type(&[
                "application/json-patch+json",
                "application/merge-patch+json",
                "application/apply-patch+yaml",
            ])),
            "application/strategic-merge-patch+json" => Ok(Self::Strategic),
            _ => Err(ApiError::unsupported_patch_type()),
        }
    }

    /// Applies a patch body of this type to `current`.
    pub fn apply(self, current: &Value, body: &[u8]) -> ApiResult<Value> {
        let parse = || serde_json::from_slice::<Value>(body).map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")));
        let mut out = current.clone();
        match self {
            Self::Merge => {
                let patch = parse()?;
                if !patch.is_object() {
                    return Err(ApiError::bad_request("error decoding patch: a merge patch must be a JSON object"));
                }
                json_patch::merge(&mut out, &patch);
            }
            Self::Json => {
                let patch: json_patch::Patch =
                    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
                json_patch::patch(&mut out, &patch).map_err(|e| {
                    tracing::debug!(error = %e, "JSON patch not applied");
                    ApiError::invalid_patch()
                })?;
            }
            Self::Strategic => strategic_merge(&mut out, &parse()?).map_err(ApiError::bad_request)?,
        }
        Ok(out)
    }
}
