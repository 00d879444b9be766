//! Field validation for built-in kinds, the way the real apiserver gets it for free from
//! decoding into Go structs: the object goes through the matching `k8s-openapi` type, fields
//! the type does not know are pruned (`fieldValidation=Ignore` or `Warn`, the default) or
//! refused with `400 strict decoding error` (`fieldValidation=Strict`, which kubectl sends).
//!
//! An object that does not decode into its type at all (a missing required field, a wrong
//! type) is passed through unchanged, so that validation reports it as a 422 with field paths.
//! Custom resources are not checked: the fake apiserver does not apply CRD schemas.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::apiserver::catalogue::ResourceInfo;
use crate::apiserver::status::{ApiError, ApiResult};

/// The `fieldValidation` query parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValidation {
    /// Drop unknown fields silently.
    Ignore,
    /// Drop unknown fields (the default; the real server also sends a warning header).
    Warn,
    /// Refuse objects with unknown fields.
    Strict,
}

/// Options common to every write: `dryRun`, `fieldValidation` and the field manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// `dryRun=All`: validate and answer, persist nothing.
    pub dry_run: bool,
    /// How unknown fields are treated.
    pub field_validation: FieldValidation,
    /// The manager recorded in `metadata.managedFields`: the `fieldManager` parameter, else
    /// the client's User-Agent up to its first `/` (empty: upstream's `unknown`).
    pub field_manager: String,
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self { dry_run: false, field_validation: FieldValidation::Warn, field_manager: String::new() }
    }
}

fn round_trip<T: DeserializeOwned + Serialize>(object: &Value) -> Option<Value> {
    let typed: T = serde_json::from_value(object.clone()).ok()?;
    serde_json::to_value(typed).ok()
}

/// The typed round trip for a built-in kind, if kubegc knows its type.
fn typed_round_trip(group: &str, kind: &str, object: &Value) -> Option<Value> {
    use k8s_openapi::api::{apps::v1 as apps, batch::v1 as batch, coordination::v1 as coordination, core::v1 as core, rbac::v1 as rbac};
    use k8s_openapi::api::{node::v1 as node, policy::v1 as policy};
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
    match (group, kind) {
        ("", "Namespace") => round_trip::<core::Namespace>(object),
        ("", "Node") => round_trip::<core::Node>(object),
        ("", "Pod") => round_trip::<core::Pod>(object),
        ("", "ConfigMap") => round_trip::<core::ConfigMap>(object),
        ("", "Secret") => round_trip::<core::Secret>(object),
        ("", "Service") => round_trip::<core::Service>(object),
        ("", "ServiceAccount") => round_trip::<core::ServiceAccount>(object),
        ("", "Endpoints") => round_trip::<core::Endpoints>(object),
        ("", "ReplicationController") => round_trip::<core::ReplicationController>(object),
        ("", "PersistentVolume") => round_trip::<core::PersistentVolume>(object),
        ("", "PersistentVolumeClaim") => round_trip::<core::PersistentVolumeClaim>(object),
        ("", "Event") => round_trip::<core::Event>(object),
        ("", "PodTemplate") => round_trip::<core::PodTemplate>(object),
        ("", "ResourceQuota") => round_trip::<core::ResourceQuota>(object),
        ("", "LimitRange") => round_trip::<core::LimitRange>(object),
        ("policy", "PodDisruptionBudget") => round_trip::<policy::PodDisruptionBudget>(object),
        ("node.k8s.io", "RuntimeClass") => round_trip::<node::RuntimeClass>(object),
        ("events.k8s.io", "Event") => round_trip::<k8s_openapi::api::events::v1::Event>(object),
        ("apps", "Deployment") => round_trip::<apps::Deployment>(object),
        ("apps", "ReplicaSet") => round_trip::<apps::ReplicaSet>(object),
        ("apps", "StatefulSet") => round_trip::<apps::StatefulSet>(object),
        ("apps", "DaemonSet") => round_trip::<apps::DaemonSet>(object),
        ("apps", "ControllerRevision") => round_trip::<apps::ControllerRevision>(object),
        ("batch", "Job") => round_trip::<batch::Job>(object),
        ("batch", "CronJob") => round_trip::<batch::CronJob>(object),
        ("coordination.k8s.io", "Lease") => round_trip::<coordination::Lease>(object),
        ("discovery.k8s.io", "EndpointSlice") => round_trip::<k8s_openapi::api::discovery::v1::EndpointSlice>(object),
        ("rbac.authorization.k8s.io", "Role") => round_trip::<rbac::Role>(object),
        ("rbac.authorization.k8s.io", "RoleBinding") => round_trip::<rbac::RoleBinding>(object),
        ("rbac.authorization.k8s.io", "ClusterRole") => round_trip::<rbac::ClusterRole>(object),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding") => round_trip::<rbac::ClusterRoleBinding>(object),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => round_trip::<apiextensions::CustomResourceDefinition>(object),
        _ => None,
    }
}

/// Paths of fields present in `input` but not in its typed round trip.
fn unknown_fields(input: &Value, typed: &Value, path: &str, out: &mut Vec<String>) {
    match (input, typed) {
        (Value::Object(i), Value::Object(t)) => {
            for (k, v) in i {
                let child = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match t.get(k) {
                    Some(tv) => unknown_fields(v, tv, &child, out),
                    None if v.is_null() => {}
                    None => out.push(child),
                }
            }
        }
        (Value::Array(i), Value::Array(t)) => {
            for (n, (iv, tv)) in i.iter().zip(t).enumerate() {
                unknown_fields(iv, tv, &format!("{path}[{n}]"), out);
            }
        }
        _ => {}
    }
}

/// Checks `object` (as served at `resource`) against its type: returns it with unknown fields
/// pruned, or 400 under `Strict`.
pub fn check_fields(resource: &ResourceInfo, object: Value, mode: FieldValidation) -> ApiResult<Value> {
    if resource.custom {
        return Ok(object);
    }
    let Some(typed) = typed_round_trip(&resource.group, &resource.kind, &object) else { return Ok(object) };
    let mut unknown = Vec::new();
    unknown_fields(&object, &typed, "", &mut unknown);
    if unknown.is_empty() {
        return Ok(object);
    }
    if mode == FieldValidation::Strict {
        let list: Vec<String> = unknown.iter().map(|f| format!("unknown field \"{f}\"")).collect();
        let version = object["apiVersion"].as_str().unwrap_or("");
        let kind = &resource.kind;
        return Err(ApiError::bad_request(format!(
            "{kind} in version \"{}\" cannot be handled as a {kind}: strict decoding error: {}",
            version.rsplit('/').next().unwrap_or(version),
            list.join(", ")
        )));
    }
    let mut pruned = object;
    for path in &unknown {
        remove_path(&mut pruned, path);
    }
    Ok(pruned)
}

/// Removes the field at a dotted path with `[n]` indexes.
fn remove_path(value: &mut Value, path: &str) {
    let mut cur = value;
    let segments: Vec<&str> = path.split('.').collect();
    for (i, seg) in segments.iter().enumerate() {
        let (name, indexes) = match seg.find('[') {
            Some(p) => (&seg[..p], &seg[p..]),
            None => (*seg, ""),
        };
        let last = i + 1 == segments.len() && indexes.is_empty();
        if last {
            if let Some(m) = cur.as_object_mut() {
                m.remove(name);
            }
            return;
        }
        cur = &mut cur[name];
        for idx in indexes.trim_matches(|c| c == '[' || c == ']').split("][").filter(|s| !s.is_empty()) {
            let Ok(n) = idx.parse::<usize>() else { return };
            cur = &mut cur[n];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::catalogue::Catalogue;
    use serde_json::json;

    #[test]
    fn unknown_fields_are_pruned_or_refused() {
        let reg = Catalogue::new();
        let pods = reg.lookup("", "v1", "pods").unwrap();
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "bogus": 1},
            "spec": {"containers": [{"name": "c", "image": "i", "imagePolicy": "x"}]}});
        let err = check_fields(&pods, pod.clone(), FieldValidation::Strict).unwrap_err();
        assert_eq!(err.code, 400);
        assert!(err.message.contains("unknown field \"metadata.bogus\""), "{}", err.message);
        assert!(err.message.contains("unknown field \"spec.containers[0].imagePolicy\""));
        let pruned = check_fields(&pods, pod, FieldValidation::Warn).unwrap();
        assert!(pruned["metadata"].get("bogus").is_none());
        assert!(pruned["spec"]["containers"][0].get("imagePolicy").is_none());
        assert_eq!(pruned["spec"]["containers"][0]["image"], "i");
    }

    #[test]
    fn the_served_policy_quota_and_node_kinds_are_typed() {
        let reg = Catalogue::new();
        for (group, plural, object) in [
            ("policy", "poddisruptionbudgets", json!({"metadata": {"name": "p"}, "spec": {"minAvailable": "1%", "bogus": 1}})),
            ("node.k8s.io", "runtimeclasses", json!({"metadata": {"name": "r"}, "handler": "runc", "bogus": 1})),
            ("", "resourcequotas", json!({"metadata": {"name": "q"}, "spec": {"hard": {"cpu": "1"}}, "bogus": 1})),
            ("", "limitranges", json!({"metadata": {"name": "l"}, "spec": {"limits": [{"type": "Container", "bogus": 1}]}})),
            ("", "podtemplates", json!({"metadata": {"name": "t"}, "template": {"spec": {"containers": [], "bogus": 1}}})),
        ] {
            let resource = reg.lookup(group, "v1", plural).unwrap();
            let err = check_fields(&resource, object, FieldValidation::Strict).unwrap_err();
            assert!(err.message.contains("unknown field"), "{plural}: {}", err.message);
        }
    }
}
