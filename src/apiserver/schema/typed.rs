//! Built-in kinds read through their Go types, the way the real apiserver's decoder reads them:
//! the object goes through the matching `k8s-openapi` type, and the fields the round trip loses
//! are the ones the type does not know.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn round_trip<T: DeserializeOwned + Serialize>(object: &Value) -> Option<Value> {
    let typed: T = serde_json::from_value(object.clone()).ok()?;
    serde_json::to_value(typed).ok()
}

/// The typed round trip for a built-in kind, if kubegc knows its type.
fn kind_round_trip(group: &str, kind: &str, object: &Value) -> Option<Value> {
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
fn walk_unknown(input: &Value, typed: &Value, path: &str, out: &mut Vec<String>) {
    match (input, typed) {
        (Value::Object(i), Value::Object(t)) => {
            for (k, v) in i {
                let child = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match t.get(k) {
                    Some(tv) => walk_unknown(v, tv, &child, out),
                    None if v.is_null() => {}
                    None => out.push(child),
                }
            }
        }
        (Value::Array(i), Value::Array(t)) => {
            for (n, (iv, tv)) in i.iter().zip(t).enumerate() {
                walk_unknown(iv, tv, &format!("{path}[{n}]"), out);
            }
        }
        _ => {}
    }
}

/// Removes the field at a dotted path with `[n]` indexes.
pub fn remove_path(value: &mut Value, path: &str) {
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

/// The fields of `input` its typed round trip `typed` lost, sorted.
fn unknown_fields(input: &Value, typed: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk_unknown(input, typed, "", &mut out);
    out.sort();
    out
}

/// The fields of an object of built-in kind `kind` in `group` that its type does not know,
/// sorted; `None` when kubegc knows no type for the kind or the object does not decode into it
/// (validation then reports what is wrong).
pub fn unknown_fields_of(group: &str, kind: &str, object: &Value) -> Option<Vec<String>> {
    kind_round_trip(group, kind, object).map(|typed| unknown_fields(object, &typed))
}

/// The fields of object metadata `meta` that `ObjectMeta` does not know, sorted (none when it
/// does not decode).
pub fn unknown_metadata_fields(meta: &Value) -> Vec<String> {
    round_trip::<ObjectMeta>(meta).map(|typed| unknown_fields(meta, &typed)).unwrap_or_default()
}
