//! The `scale` subresource as pure functions: the autoscaling/v1 `Scale` a scalable object
//! shows (upstream's `ScaleREST` of Deployments, ReplicaSets, StatefulSets and
//! ReplicationControllers, `pkg/registry/apps/deployment/storage/storage.go` and
//! `pkg/registry/core/replicationcontroller/storage/storage.go`, and of custom resources whose
//! definition declares `subresources.scale`, apiextensions-apiserver
//! `pkg/registry/customresource/etcd.go`), and what a written `Scale` asks of its parent. A
//! Scale shows no managed fields (upstream's `scaleFrom...` sets none); a write through it is
//! recorded on the parent as its manager's ownership of the desired replicas, with the
//! subresource `scale`.

use serde_json::{Map, Value, json};

use crate::apiserver::catalogue::{ScalePaths, ScaleSelector};
use crate::apiserver::status::{ApiError, ApiResult, FieldError};

/// The API version of the `Scale` served.
pub const SCALE_API_VERSION: &str = "autoscaling/v1";

/// The segments of a JSON path such as `.spec.replicas`.
fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.trim_start_matches('.').split('.')
}

/// The value at `path` in `object`, if there is one.
pub fn at<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    segments(path).try_fold(object, |v, segment| v.get(segment)).filter(|v| !v.is_null())
}

/// Sets the value at `path` in `object`, making the objects along it; `false` when a field along
/// it is not an object.
pub fn set_at(object: &mut Value, path: &str, value: Value) -> bool {
    let mut current = object;
    let mut parts = segments(path).peekable();
    while let Some(segment) = parts.next() {
        if current.is_null() {
            *current = json!({});
        }
        let Some(map) = current.as_object_mut() else { return false };
        if parts.peek().is_none() {
            map.insert(segment.to_string(), value);
            return true;
        }
        current = map.entry(segment).or_insert(Value::Null);
    }
    false
}

/// A label selector written as a string, as `metav1.LabelSelectorAsSelector(...).String()`
/// writes it: one requirement per label and expression, sorted by key, values of a set sorted;
/// an absent or empty selector is the empty string.
fn label_selector_string(selector: &Value) -> String {
    let mut requirements: Vec<(String, String)> = Vec::new();
    if let Some(labels) = selector["matchLabels"].as_object() {
        for (key, value) in labels {
            requirements.push((key.clone(), format!("{key}={}", value.as_str().unwrap_or_default())));
        }
    }
    for expression in selector["matchExpressions"].as_array().into_iter().flatten() {
        let key = expression["key"].as_str().unwrap_or_default();
        let mut values: Vec<&str> = expression["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        values.sort_unstable();
        let text = match expression["operator"].as_str().unwrap_or_default() {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            _ => format!("!{key}"),
        };
        requirements.push((key.to_string(), text));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    requirements.into_iter().map(|(_, text)| text).collect::<Vec<_>>().join(",")
}

/// A map of labels as `labels.SelectorFromSet(...).String()` writes it: `key=value`, sorted.
fn label_map_string(labels: &Value) -> String {
    let mut pairs: Vec<String> =
        labels.as_object().into_iter().flatten().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect();
    pairs.sort();
    pairs.join(",")
}

/// The `status.selector` of the Scale of `parent`.
fn selector_of(paths: &ScalePaths, parent: &Value) -> String {
    match &paths.selector {
        ScaleSelector::LabelSelector => label_selector_string(&parent["spec"]["selector"]),
        ScaleSelector::LabelMap => label_map_string(&parent["spec"]["selector"]),
        ScaleSelector::Path(Some(path)) => at(parent, path).and_then(Value::as_str).unwrap_or_default().to_string(),
        ScaleSelector::Path(None) => String::new(),
    }
}

/// Whether the parent has its desired replicas at all (a custom resource may not).
pub fn has_replicas(paths: &ScalePaths, parent: &Value) -> bool {
    at(parent, &paths.spec_replicas).is_some()
}

/// The `Scale` of `parent`: its name, namespace, uid, resourceVersion and creation time, its
/// desired replicas (omitted when 0, as Go's encoder omits them), its current replicas and its
/// selector as a string.
pub fn scale_of(paths: &ScalePaths, parent: &Value) -> Value {
    let meta = &parent["metadata"];
    let mut metadata = Map::new();
    for field in ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"] {
        if let Some(value) = meta.get(field).filter(|v| !v.is_null()) {
            metadata.insert(field.into(), value.clone());
        }
    }
    let replicas = |path: &str| at(parent, path).and_then(Value::as_i64).unwrap_or(0);
    let mut spec = Map::new();
    let desired = replicas(&paths.spec_replicas);
    if desired != 0 {
        spec.insert("replicas".into(), json!(desired));
    }
    let mut status = json!({"replicas": replicas(&paths.status_replicas)});
    let selector = selector_of(paths, parent);
    if !selector.is_empty() {
        status["selector"] = json!(selector);
    }
    json!({"kind": "Scale", "apiVersion": SCALE_API_VERSION, "metadata": metadata, "spec": spec, "status": status})
}

/// What a written `Scale` asks: the desired replicas, and the preconditions it carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleWrite {
    /// `spec.replicas` (0 when absent, as Go decodes it).
    pub replicas: i64,
    /// `metadata.resourceVersion`, if set: the parent must be at it.
    pub resource_version: Option<String>,
    /// `metadata.uid`, if set: the parent must have it.
    pub uid: Option<String>,
}

impl ScaleWrite {
    /// Reads a Scale body as Go decodes it into `autoscaling/v1.Scale`: 400 for a type or a
    /// field of the wrong type.
    pub fn read(scale: &Value) -> ApiResult<Self> {
        let undecodable = |why: &str| ApiError::bad_request(format!("Scale in version \"v1\" cannot be handled as a Scale: {why}"));
        if !scale.is_object() {
            return Err(undecodable("the body is not a JSON object"));
        }
        for (field, want) in [("apiVersion", SCALE_API_VERSION), ("kind", "Scale")] {
            match scale.get(field).and_then(Value::as_str) {
                None | Some("") => {}
                Some(v) if v == want => {}
                Some(v) => return Err(ApiError::bad_request(format!("the {field} of the body ({v}) is not {want}"))),
            }
        }
        let replicas = match &scale["spec"]["replicas"] {
            Value::Null => 0,
            value => value.as_i64().filter(|r| i32::try_from(*r).is_ok()).ok_or_else(|| {
                undecodable(&format!(
                    "json: cannot unmarshal {} into Go struct field ScaleSpec.spec.replicas of type int32",
                    go_type(value)
                ))
            })?,
        };
        let text = |field: &str| scale["metadata"][field].as_str().filter(|v| !v.is_empty()).map(str::to_string);
        Ok(Self { replicas, resource_version: text("resourceVersion"), uid: text("uid") })
    }

    /// What `autoscaling` validation says of the Scale (`pkg/apis/autoscaling/validation`
    /// `ValidateScale`): its replicas may not be negative.
    pub fn errors(&self) -> Vec<FieldError> {
        if self.replicas < 0 {
            vec![FieldError::invalid("spec.replicas", json!(self.replicas), "must be greater than or equal to 0")]
        } else {
            Vec::new()
        }
    }
}

/// The JSON type of `value` as Go's decoder names it in an error.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Number(_) => "number",
        Value::Null => "null",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_are_written_as_upstream_writes_them() {
        let selector = json!({"matchLabels": {"tier": "web", "app": "shop"},
            "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]}, {"key": "gone", "operator": "DoesNotExist"}]});
        assert_eq!(label_selector_string(&selector), "app=shop,env in (dev,prod),!gone,tier=web");
        assert_eq!(label_selector_string(&Value::Null), "");
        assert_eq!(label_map_string(&json!({"b": "2", "a": "1"})), "a=1,b=2");
    }

    #[test]
    fn a_deployment_shows_its_scale() {
        let deployment = json!({"metadata": {"name": "web", "namespace": "ns", "uid": "u", "resourceVersion": "7", "labels": {"x": "y"},
            "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:spec": {"f:replicas": {}}}}]},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}}, "status": {"replicas": 2}});
        let scale = scale_of(&ScalePaths::builtin(ScaleSelector::LabelSelector), &deployment);
        assert_eq!(scale["spec"], json!({"replicas": 3}));
        assert_eq!(scale["status"], json!({"replicas": 2, "selector": "app=web"}));
        assert_eq!(scale["metadata"], json!({"name": "web", "namespace": "ns", "uid": "u", "resourceVersion": "7"}));
    }

    #[test]
    fn custom_paths_are_read_and_written() {
        let paths = ScalePaths {
            spec_replicas: ".spec.size".into(),
            status_replicas: ".status.count".into(),
            selector: ScaleSelector::Path(Some(".status.labels".into())),
        };
        let mut cr = json!({"metadata": {"name": "c"}, "spec": {}, "status": {"labels": "a=b"}});
        assert!(!has_replicas(&paths, &cr));
        assert!(set_at(&mut cr, ".spec.size", json!(4)));
        let scale = scale_of(&paths, &cr);
        assert_eq!((scale["spec"]["replicas"].as_i64(), scale["status"]["replicas"].as_i64()), (Some(4), Some(0)));
        assert_eq!(scale["status"]["selector"], "a=b");
        assert!(!set_at(&mut json!({"spec": 1}), ".spec.size", json!(1)));
    }

    #[test]
    fn written_scales_are_read_as_go_decodes_them() {
        let write = ScaleWrite::read(&json!({"metadata": {"resourceVersion": "3"}, "spec": {"replicas": -1}})).unwrap();
        assert_eq!((write.replicas, write.resource_version.as_deref(), write.uid.as_deref()), (-1, Some("3"), None));
        assert_eq!(write.errors()[0].field, "spec.replicas");
        assert_eq!(ScaleWrite::read(&json!({"spec": {}})).unwrap().replicas, 0);
        assert_eq!(ScaleWrite::read(&json!({"spec": {"replicas": "x"}})).unwrap_err().code, 400);
        assert_eq!(ScaleWrite::read(&json!({"kind": "Deployment"})).unwrap_err().code, 400);
    }
}
