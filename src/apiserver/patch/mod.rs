//! PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and Kubernetes strategic
//! merge patch, chosen by the request's `Content-Type` as the apiserver does.

mod strategic;
pub mod undecodable;

use serde_json::Value;

use crate::apiserver::go_json;
use crate::apiserver::go_quote::json_type_name as type_name;
use crate::apiserver::schema::FieldValidation;
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
    /// apart, CBOR apply is behind a disabled feature gate). A custom resource's handler, which
    /// no REST router stands before, refuses any other type itself, strategic merge patch among
    /// them, naming those it takes (`PatchResource`, k8s.io/apiserver
    /// pkg/endpoints/handlers/patch.go).
    pub fn of(content_type: &str, custom_resource: bool) -> ApiResult<Self> {
        match content_type.split(';').next().unwrap_or("").trim() {
            "application/merge-patch+json" => Ok(Self::Merge),
            "application/json-patch+json" => Ok(Self::Json),
            _ if custom_resource => Err(ApiError::unsupported_media_type(&[
                "application/json-patch+json",
                "application/merge-patch+json",
                "application/apply-patch+yaml",
            ])),
            "application/strategic-merge-patch+json" => Ok(Self::Strategic),
            _ => Err(ApiError::unsupported_by_route()),
        }
    }

    /// Applies a patch body of this type to `current`, decoded as `validation` asks.
    pub fn apply(self, current: &Value, body: &[u8], validation: FieldValidation) -> ApiResult<Value> {
        let parse = || go_json::parse(body).map_err(|e| decoding_patch(&e.to_string()));
        let mut out = current.clone();
        match self {
            Self::Merge => {
                let patch = parse()?;
                // evanphx/json-patch's MergePatch refuses a null patch, and one that is neither
                // an object nor a list; a list becomes the document, its objects' nulls pruned.
                // Unless told to ignore unknown fields, the handler decodes the patch into a map
                // first (`jsonPatcher.applyJSPatch`, k8s.io/apiserver pkg/endpoints/handlers).
                match (patch, validation) {
                    (Value::Null, _) => return Err(ApiError::bad_request("Invalid JSON Patch")),
                    (patch @ Value::Object(_), _) => json_patch::merge(&mut out, &patch),
                    (Value::Array(mut items), FieldValidation::Ignore) => {
                        items.iter_mut().for_each(prune_nulls);
                        out = Value::Array(items);
                    }
                    (_, FieldValidation::Ignore) => return Err(ApiError::bad_request("Invalid JSON Patch")),
                    (other, _) => return Err(decoding_patch(&go_type_error(&other, "map[string]interface {}"))),
                }
            }
            Self::Json => {
                // Unless told to ignore unknown fields, the handler decodes the operations
                // into `[]jsonPatchOp` first; json-patch's own decoding then refuses in its
                // words alone (`jsonPatcher.applyJSPatch`, k8s.io/apiserver
                // pkg/endpoints/handlers/patch.go).
                let patch = parse()?;
                // The first value that is not what Go decodes it into: the list, else an
                // operation (null decodes into either).
                let misfit = match &patch {
                    Value::Array(ops) => {
                        ops.iter().find(|op| !op.is_object() && !op.is_null()).map(|op| (op, "jsonpatch.Operation", "handlers.jsonPatchOp"))
                    }
                    Value::Null => None,
                    list => Some((list, "jsonpatch.Patch", "[]handlers.jsonPatchOp")),
                };
                if let Some((value, json_patch_type, handler_type)) = misfit {
                    return Err(match validation {
                        FieldValidation::Ignore => ApiError::bad_request(go_type_error(value, json_patch_type)),
                        _ => decoding_patch(&go_type_error(value, handler_type)),
                    });
                }
                if validation != FieldValidation::Ignore
                    && let Some(error) = operation_type_error(&patch)
                {
                    return Err(decoding_patch(&error));
                }
                // Go decodes `null` into an empty list of operations. json-patch decodes any
                // object as an operation and refuses one it cannot apply (an unknown `op`, no
                // `path`) as it applies it: 422.
                let patch = if patch.is_null() { Value::Array(Vec::new()) } else { patch };
                let patch: json_patch::Patch = serde_json::from_value(patch).map_err(|e| {
                    tracing::debug!(error = %e, "JSON patch operation not understood");
                    ApiError::invalid_patch()
                })?;
                json_patch::patch(&mut out, &patch).map_err(|e| {
                    tracing::debug!(error = %e, "JSON patch not applied");
                    ApiError::invalid_patch()
                })?;
            }
            // The strategic patcher's decoding error is the decoder's alone, and `null` decodes
            // into a nil map, which changes nothing (`strategicPatchObject`, k8s.io/apiserver
            // pkg/endpoints/handlers/patch.go).
            Self::Strategic => match object_patch(parse()?).map_err(ApiError::bad_request)? {
                Value::Null => {}
                patch => strategic_merge(&mut out, &patch)?,
            },
        }
        Ok(out)
    }
}

/// `value` with the null members of its objects removed, at any depth (null items of lists
/// stay), as json-patch's merge prunes a list it makes the document.
fn prune_nulls(value: &mut Value) {
    match value {
        Value::Object(members) => {
            members.retain(|_, v| !v.is_null());
            members.values_mut().for_each(prune_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(prune_nulls),
        _ => {}
    }
}

/// A merge or strategic patch, which the handler decodes into a `map[string]interface{}`.
fn object_patch(patch: Value) -> Result<Value, String> {
    match patch {
        Value::Object(_) | Value::Null => Ok(patch),
        other => Err(go_type_error(&other, "map[string]interface {}")),
    }
}

/// What Go's decoder says of the first operation whose `op`, `path` or `from` is no string
/// (the handler's `jsonPatchOp`, k8s.io/apiserver pkg/endpoints/handlers/patch.go).
fn operation_type_error(patch: &Value) -> Option<String> {
    patch.as_array()?.iter().find_map(|op| {
        let (field, value) = ["from", "op", "path"].into_iter().map(|f| (f, &op[f])).find(|(_, v)| !v.is_string() && !v.is_null())?;
        Some(format!("json: cannot unmarshal {} into Go struct field jsonPatchOp.{field} of type string", type_name(value)))
    })
}

/// What Go's decoder says of a patch it cannot read into `go_type`.
fn go_type_error(patch: &Value, go_type: &str) -> String {
    format!("json: cannot unmarshal {} into Go value of type {go_type}", type_name(patch))
}

/// The 400 of a JSON or merge patch that cannot be decoded, for `why`.
fn decoding_patch(why: &str) -> ApiError {
    ApiError::bad_request(format!("error decoding patch: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patches_of_the_wrong_json_type_are_refused_in_go_words() {
        let message =
            |patch_type: PatchType, body: &str| patch_type.apply(&json!({}), body.as_bytes(), FieldValidation::Warn).unwrap_err().message;
        let go = |t: &str, go_type: &str| format!("error decoding patch: json: cannot unmarshal {t} into Go value of type {go_type}");
        assert_eq!(message(PatchType::Json, r#""a string""#), go("string", "[]handlers.jsonPatchOp"));
        assert_eq!(message(PatchType::Json, "{}"), go("object", "[]handlers.jsonPatchOp"));
        assert_eq!(message(PatchType::Merge, "[1]"), go("array", "map[string]interface {}"));
        assert_eq!(message(PatchType::Strategic, "1"), "json: cannot unmarshal number into Go value of type map[string]interface {}");
        assert_eq!(message(PatchType::Merge, "null"), "Invalid JSON Patch");
        let ignoring = |body: &str| PatchType::Merge.apply(&json!({"a": 1}), body.as_bytes(), FieldValidation::Ignore);
        assert_eq!(ignoring(r#"[{"a": null, "b": [null, {"c": null}]}, null]"#).unwrap(), json!([{"b": [null, {}]}, null]));
        assert_eq!(ignoring("1").unwrap_err().message, "Invalid JSON Patch");
        assert_eq!(PatchType::Json.apply(&json!({"a": 1}), b"null", FieldValidation::Warn).unwrap(), json!({"a": 1}));
        let ignoring = PatchType::Json.apply(&json!({}), b"{}", FieldValidation::Ignore).unwrap_err().message;
        assert_eq!(ignoring, "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    }
}
