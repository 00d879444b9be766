//! PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and Kubernetes strategic
//! merge patch, chosen by the request's `Content-Type` as the apiserver does.

mod strategic;

use serde_json::Value;

use crate::apiserver::status::{ApiError, ApiResult};

pub use strategic::strategic_merge;

/// Applies a patch body of `content_type` to `current`. Strategic merge patch is refused for
/// custom resources (415), as upstream refuses it.
pub fn apply(content_type: &str, current: &Value, body: &[u8], custom_resource: bool) -> ApiResult<Value> {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    let parse = || serde_json::from_slice::<Value>(body).map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")));
    match essence {
        "application/merge-patch+json" => {
            let patch = parse()?;
            if !patch.is_object() {
                return Err(ApiError::bad_request("error decoding patch: a merge patch must be a JSON object"));
            }
            let mut out = current.clone();
            json_patch::merge(&mut out, &patch);
            Ok(out)
        }
        "application/json-patch+json" => {
            let patch: json_patch::Patch =
                serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
            let mut out = current.clone();
            json_patch::patch(&mut out, &patch).map_err(|e| ApiError::invalid_patch(&e.to_string()))?;
            Ok(out)
        }
        "application/strategic-merge-patch+json" if custom_resource => Err(ApiError::unsupported_media_type(&[
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/apply-patch+yaml",
        ])),
        "application/strategic-merge-patch+json" => {
            let patch = parse()?;
            let mut out = current.clone();
            strategic_merge(&mut out, &patch).map_err(ApiError::bad_request)?;
            Ok(out)
        }
        _ => Err(ApiError::unsupported_patch_type()),
    }
}
