//! The refusal of a patch whose result does not decode into its kind's Go type. Upstream's
//! patch handler decodes the patched object itself and refuses it with a 422 `Invalid` of no
//! kind and no name, one `field.Invalid` at `patch` (k8s.io/apiserver
//! pkg/endpoints/handlers/patch.go): for a JSON or merge patch (`jsonPatcher`), the patched
//! object's JSON and the JSON decoder's error; for a strategic merge patch (`applyPatchToObject`),
//! the patch as Go's `%+v` prints its map and the unstructured converter's error
//! (k8s.io/apimachinery pkg/runtime/converter.go, `fromUnstructured`).
//!
//! The patched JSON upstream shows keeps the Go types' field order where the patch did not
//! reach; the fake's shows every object's keys sorted. Of several wrong values, the converter
//! names the first in the Go type's field order, the fake the first in the JSON's.

use serde_json::Value;

use crate::apiserver::go_fmt::{self, Numbers};
use crate::apiserver::go_json;
use crate::apiserver::patch::PatchType;
use crate::apiserver::schema::go_shapes;
use crate::apiserver::status::{ApiError, FieldError};

/// The 422 for `patched`, the result of `patch` of `patch_type`, which Go's JSON decoder
/// refuses with `json_error`; `None` where the converter's words for it are not known here.
pub fn refusal(patch_type: PatchType, patch: &[u8], patched: &Value, json_error: &str) -> Option<ApiError> {
    let (value, why) = match patch_type {
        PatchType::Json | PatchType::Merge => (patched.to_string(), json_error.to_string()),
        PatchType::Strategic => {
            let patch = go_json::parse(patch).ok()?;
            (go_fmt::plain(&patch, Numbers::IntegerWhenIntegral), converter_error(json_error, patched)?)
        }
    };
    Some(ApiError::invalid("", "", "", vec![FieldError::invalid("patch", Value::String(value), why)]))
}

/// What the unstructured converter says where Go's JSON decoder said `json_error`
/// (`json: cannot unmarshal string into Go struct field X.a.b of type bool`), reading the
/// patched object for whether a number there is an integer.
pub fn converter_error(json_error: &str, patched: &Value) -> Option<String> {
    // A time's own UnmarshalJSON refuses a string it cannot parse in `time.Parse`'s words.
    if json_error.starts_with("parsing time ") {
        return Some(json_error.to_string());
    }
    let rest = json_error.strip_prefix("json: cannot unmarshal ")?;
    let (found, rest) = rest.split_once(" into Go struct field ")?;
    let (field, go_type) = rest.rsplit_once(" of type ")?;
    let path: Vec<&str> = field.split('.').skip(1).collect();
    let source = match found.split_once(' ').map_or(found, |(kind, _)| kind) {
        "string" => "string",
        "bool" => "bool",
        "array" => "slice",
        "object" => "map",
        "number" => {
            let literal = found.strip_prefix("number ");
            let integral = literal.map_or_else(|| numbers_at(patched, &path).iter().all(|n| n.is_i64()), |l| l.parse::<i64>().is_ok());
            if integral { "int64" } else { "float64" }
        }
        _ => return None,
    };
    if let Some(item) = go_type.strip_prefix("[]") {
        return (item != "byte" && item != "uint8").then(|| format!("cannot restore slice from {source}"));
    }
    if go_type.starts_with("map[") {
        return Some(format!("cannot restore map from {source}"));
    }
    // A time decodes through its own UnmarshalJSON, which decodes the value alone into a
    // string first (`metav1.Time.UnmarshalJSON`).
    if path.last().is_some_and(|f| f.ends_with("Time") || f.ends_with("Timestamp") || *f == "time") {
        let kind = found.split_once(' ').map_or(found, |(kind, _)| kind);
        return (go_type == "string").then(|| format!("json: cannot unmarshal {kind} into Go value of type string"));
    }
    // The named scalar types of the built-in kinds are strings to the converter, which
    // names their kind, or the type itself where it tried a conversion.
    let kind = if go_shapes::is_named_scalar(go_type) { "string" } else { go_type };
    if kind.starts_with("v1.") && !["v1.Time", "v1.MicroTime", "v1.Duration", "v1.FieldsV1"].contains(&kind) {
        return Some(format!("cannot restore struct from: {source}"));
    }
    let integer = kind.starts_with("int") || kind.starts_with("uint");
    match (source, kind) {
        ("int64", "string") => Some(format!("cannot convert int64 to {go_type}")),
        ("float64", _) if integer => Some(format!("cannot convert float64 to {go_type}")),
        // An integer that overflows its field is converted without a word.
        ("int64" | "float64", _) if integer || kind.starts_with("float") => None,
        (_, "bool" | "string") => Some(format!("unrecognized type: {kind}")),
        _ if integer || kind.starts_with("float") => Some(format!("unrecognized type: {kind}")),
        _ => None,
    }
}

/// The numbers at the path of field names `path` in `value`, through any list on the way.
fn numbers_at<'a>(value: &'a Value, path: &[&str]) -> Vec<&'a serde_json::Number> {
    match (value, path.split_first()) {
        (Value::Array(items), _) => items.iter().flat_map(|item| numbers_at(item, path)).collect(),
        (Value::Number(n), None) => vec![n],
        (Value::Object(map), None) => map.values().flat_map(|v| numbers_at(v, path)).collect(),
        (Value::Object(map), Some((first, rest))) => map.get(*first).map(|v| numbers_at(v, rest)).unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_converter_s_words_follow_the_value_and_the_field_s_type() {
        let at = |found: &str, go_type: &str, patched: Value| {
            converter_error(
                &format!("json: cannot unmarshal {found} into Go struct field ObjectMeta.metadata.labels of type {go_type}"),
                &patched,
            )
        };
        assert_eq!(at("string", "bool", json!({})).as_deref(), Some("unrecognized type: bool"));
        assert_eq!(at("string", "int32", json!({})).as_deref(), Some("unrecognized type: int32"));
        assert_eq!(at("number", "string", json!({"metadata": {"labels": {"x": 1}}})).as_deref(), Some("cannot convert int64 to string"));
        assert_eq!(at("number", "string", json!({"metadata": {"labels": {"x": 1.5}}})).as_deref(), Some("unrecognized type: string"));
        assert_eq!(at("number 2.5", "int32", json!({})).as_deref(), Some("cannot convert float64 to int32"));
        assert_eq!(at("object", "[]v1.Container", json!({})).as_deref(), Some("cannot restore slice from map"));
        assert_eq!(at("array", "map[string]string", json!({})).as_deref(), Some("cannot restore map from slice"));
        assert_eq!(at("string", "v1.ObjectMeta", json!({})).as_deref(), Some("cannot restore struct from: string"));
        assert_eq!(at("number 99999999999", "int32", json!({})), None);
        let time = "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.creationTimestamp of type string";
        assert_eq!(converter_error(time, &json!({})).as_deref(), Some("json: cannot unmarshal array into Go value of type string"));
    }
}
