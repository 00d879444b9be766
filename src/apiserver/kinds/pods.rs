//! Pods: their defaults, the container fields every pod needs, and the node agent that stands
//! in for kubelets, finishing graceful deletions.

use serde_json::{Value, json};

use crate::apiserver::admission::Admission;
use crate::apiserver::deletion::DeleteOptions;
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::{Kind, keep_stored, objects_along};
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::storage::write::Target;
use crate::apiserver::storage::{Scope, Storage};
use crate::clock::parse_time;

/// core/v1 Pods.
pub struct Pods;

impl Kind for Pods {
    fn admission(&self) -> Admission {
        Admission { service_account: true, runtime_class: true, pod_defaults: true, ..Admission::default() }
    }

    /// A new pod is pending, in the quality-of-service class its containers' resources give
    /// (upstream pkg/registry/core/pod/strategy.go, `PrepareForCreate`).
    fn default_on_create(&self, pod: &mut Value, _now: &str) {
        if objects_along(pod, &["status"]) {
            if pod["status"]["phase"].is_null() {
                pod["status"]["phase"] = json!("Pending");
            }
            if pod["status"]["qosClass"].is_null() {
                pod["status"]["qosClass"] = json!(qos_class(&pod["spec"]));
            }
        }
    }

    /// A status write keeps the stored owner references, "since old kubelets corrupt them in
    /// a way that breaks garbage collection" (upstream pkg/registry/core/pod/strategy.go,
    /// `podStatusStrategy.PrepareForUpdate`).
    fn prepare_update(&self, target: Target, new: &mut Value, existing: &Value, _now: &str) -> Vec<FieldError> {
        if target == Target::Status {
            keep_stored(new, existing, "ownerReferences");
        }
        Vec::new()
    }

    fn validate(&self, pod: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        match pod["spec"]["containers"].as_array() {
            Some(cs) if !cs.is_empty() => {
                for (i, c) in cs.iter().enumerate() {
                    if c["name"].as_str().unwrap_or("").is_empty() {
                        errs.push(FieldError::required(format!("spec.containers[{i}].name"), ""));
                    }
                    if c["image"].as_str().unwrap_or("").is_empty() {
                        errs.push(FieldError::required(format!("spec.containers[{i}].image"), ""));
                    }
                }
            }
            _ => errs.push(FieldError::required("spec.containers", "")),
        }
        errs
    }

    /// A pod being deleted waits for the node agent.
    fn awaits_controller(&self, object: &Value) -> bool {
        !object["metadata"]["deletionTimestamp"].is_null()
    }

    /// The node agent: a scheduled pod whose grace period has run out is deleted with grace 0,
    /// as the kubelet does once its containers have stopped.
    fn reconcile(&self, storage: &mut Storage, key: &ObjectKey, pod: &Value, node_agent: bool) {
        if !node_agent {
            return;
        }
        let meta = &pod["metadata"];
        if meta["deletionGracePeriodSeconds"].as_i64().unwrap_or(0) == 0 {
            storage.awaiting_controllers.remove(key);
            return;
        }
        let due = meta["deletionTimestamp"].as_str().and_then(parse_time).is_some_and(|t| t <= storage.clock.now());
        if !due {
            return;
        }
        let Some(resource) = storage.catalogue.lookup("", "v1", "pods") else { return };
        let scope = Scope { resource, version: "v1".into(), namespace: Some(key.namespace.clone()) };
        let opts =
            DeleteOptions { grace_period_seconds: Some(0), precondition_uid: meta["uid"].as_str().map(String::from), ..Default::default() };
        if let Err(e) = storage.delete(&scope, &key.name, &opts) {
            tracing::debug!(pod = key.name, error = %e, "node agent delete failed");
        }
    }
}

/// The quality-of-service class of a pod spec (upstream pkg/apis/core/helper/qos): best effort
/// when no container requests or limits CPU or memory, guaranteed when every container limits
/// both and requests what it limits, burstable otherwise.
fn qos_class(spec: &Value) -> &'static str {
    let containers: Vec<&Value> =
        ["initContainers", "containers"].iter().flat_map(|list| spec[*list].as_array().into_iter().flatten()).collect();
    let compute = ["cpu", "memory"];
    let named = |c: &Value, kind: &str| compute.iter().filter(|r| !c["resources"][kind][**r].is_null()).count();
    if containers.iter().all(|c| named(c, "requests") == 0 && named(c, "limits") == 0) {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        compute.iter().all(|r| {
            let limit = &c["resources"]["limits"][*r];
            let request = &c["resources"]["requests"][*r];
            !limit.is_null() && (request.is_null() || request == limit)
        })
    });
    if guaranteed { "Guaranteed" } else { "Burstable" }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_pod_s_quality_of_service_follows_its_containers_resources() {
        let spec = |resources: Value| json!({"containers": [{"name": "c", "image": "i", "resources": resources}]});
        assert_eq!(qos_class(&spec(json!({}))), "BestEffort");
        assert_eq!(qos_class(&spec(json!({"limits": {"cpu": "1", "memory": "1Gi"}}))), "Guaranteed");
        assert_eq!(qos_class(&spec(json!({"requests": {"cpu": "1"}}))), "Burstable");
    }
}
