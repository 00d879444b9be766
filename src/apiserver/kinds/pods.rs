//! Pods: their defaults, the container fields every pod needs, and the node agent that stands
//! in for kubelets, finishing graceful deletions.

use serde_json::{Value, json};

use crate::apiserver::admission::Admission;
use crate::apiserver::deletion::DeleteOptions;
use crate::apiserver::go_quote::quote;
use crate::apiserver::status::{ApiError, FieldError};
use crate::apiserver::storage::hooks::{Kind, changed_fields, keep_stored, objects_along};
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::storage::write::Target;
use crate::apiserver::storage::{Scope, Storage};
use crate::clock::parse_time;

/// core/v1 Pods.
pub struct Pods;

/// The annotation of a static pod's mirror in the API (`core.MirrorPodAnnotationKey`).
const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// The container whose log a read of `pods/NAME/log` names (`validateContainer`, kubernetes
/// pkg/registry/core/pod/strategy.go): the one asked for, which the pod must have; else the
/// pod's only container. Naming none of several lists them, init containers first.
pub fn log_container(pod: &Value, asked: Option<&str>) -> Result<String, ApiError> {
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let names: Vec<&str> = ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .flat_map(|list| pod["spec"][list].as_array().into_iter().flatten())
        .filter_map(|c| c["name"].as_str())
        .collect();
    let containers = pod["spec"]["containers"].as_array().map_or(&[][..], Vec::as_slice);
    match asked.filter(|a| !a.is_empty()) {
        Some(asked) if names.contains(&asked) => Ok(asked.to_string()),
        Some(asked) => Err(ApiError::bad_request(format!("container {asked} is not valid for pod {name}"))),
        None => match containers {
            [only] => Ok(only["name"].as_str().unwrap_or_default().to_string()),
            [] => Err(ApiError::bad_request(format!("a container name must be specified for pod {name}"))),
            _ => Err(ApiError::bad_request(format!(
                "a container name must be specified for pod {name}, choose one of: [{}]",
                names.join(" ")
            ))),
        },
    }
}

/// What an update may change of a pod's spec, as upstream's refusal lists it.
const UPDATABLE: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// What `ValidatePodEphemeralContainersUpdate` (kubernetes pkg/apis/core/validation/
/// validation.go) refuses of a write through `ephemeralcontainers`: any ephemeral container of
/// a static pod, and an existing one removed or changed (found by name: a patch may reorder
/// them). A change's message ends in go-cmp's diff upstream, whose format is unstable; here
/// it ends at the line break before it.
fn ephemeral_change_refused(new: &Value, existing: &Value) -> Vec<FieldError> {
    if !existing["metadata"]["annotations"][MIRROR_ANNOTATION].is_null() {
        return vec![FieldError::forbidden("", "static pods do not support ephemeral containers")];
    }
    let path = "spec.ephemeralContainers";
    let news = new["ephemeralContainers"].as_array().map(Vec::as_slice).unwrap_or_default();
    let olds = existing["spec"]["ephemeralContainers"].as_array().map(Vec::as_slice).unwrap_or_default();
    olds.iter()
        .filter_map(|old| {
            let name = old["name"].as_str().unwrap_or("");
            match news.iter().find(|c| c["name"].as_str() == Some(name)) {
                None => Some(FieldError::forbidden(path, format!("existing ephemeral containers {} may not be removed\n", quote(name)))),
                Some(c) if c != old => {
                    Some(FieldError::forbidden(path, format!("existing ephemeral containers {} may not be changed\n", quote(name))))
                }
                Some(_) => None,
            }
        })
        .collect()
}

/// The refusal of an update that changes `old` pod spec into `new` beyond what may change:
/// container images, the active deadline, tolerations (whose own rule is not modelled here),
/// scheduling gates, and a negative grace period set to 1. Upstream follows the message with
/// go-cmp's diff of the two specs, whose format go-cmp keeps deliberately unstable; the fake
/// names the fields that differ instead.
fn spec_change_refused(new: &Value, old: &Value) -> Option<FieldError> {
    let mut munged = new.clone();
    for list in ["containers", "initContainers"] {
        let (Some(items), Some(olds)) = (munged.get_mut(list).and_then(Value::as_array_mut), old[list].as_array()) else { continue };
        if items.len() == olds.len() {
            for (item, was) in items.iter_mut().zip(olds) {
                if item.is_object() {
                    item["image"] = was["image"].clone();
                }
            }
        }
    }
    for kept in ["activeDeadlineSeconds", "tolerations", "schedulingGates"] {
        if let Some(spec) = munged.as_object_mut() {
            match old.get(kept) {
                Some(value) => spec.insert(kept.into(), value.clone()),
                None => spec.remove(kept),
            };
        }
    }
    if old["terminationGracePeriodSeconds"].as_i64().is_some_and(|g| g < 0) && munged["terminationGracePeriodSeconds"] == 1 {
        munged["terminationGracePeriodSeconds"] = old["terminationGracePeriodSeconds"].clone();
    }
    if munged == *old {
        return None;
    }
    let changed = changed_fields(&munged, old, "spec");
    Some(FieldError::forbidden("spec", format!("pod updates may not change fields other than {UPDATABLE}\nchanged: {changed}")))
}

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
    /// An update of the pod itself may change only what `ValidatePodUpdate` lets change
    /// (pkg/apis/core/validation/validation.go).
    fn prepare_update(&self, target: Target, new: &mut Value, existing: &Value, _now: &str) -> Vec<FieldError> {
        match target {
            Target::Status => keep_stored(new, existing, "metadata", "ownerReferences"),
            Target::Main => return spec_change_refused(&new["spec"], &existing["spec"]).into_iter().collect(),
            Target::EphemeralContainers => return ephemeral_change_refused(&new["spec"], existing),
            _ => {}
        }
        Vec::new()
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
    fn an_update_may_change_a_pod_s_images_but_not_its_other_fields() {
        let old = json!({"containers": [{"name": "c", "image": "a"}], "serviceAccountName": "default"});
        let mut new = old.clone();
        new["containers"][0]["image"] = json!("b");
        new["activeDeadlineSeconds"] = json!(30);
        assert!(spec_change_refused(&new, &old).is_none());
        new.as_object_mut().unwrap().remove("serviceAccountName");
        let refused = spec_change_refused(&new, &old).expect("refused");
        let message = crate::apiserver::status::ApiError::invalid("", "Pod", "p", vec![refused]).message;
        assert!(
            message.starts_with(
                "Pod \"p\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"
            ),
            "{message}"
        );
        assert!(message.ends_with("changed: spec.serviceAccountName"), "{message}");
    }

    #[test]
    fn a_pod_s_quality_of_service_follows_its_containers_resources() {
        let spec = |resources: Value| json!({"containers": [{"name": "c", "image": "i", "resources": resources}]});
        assert_eq!(qos_class(&spec(json!({}))), "BestEffort");
        assert_eq!(qos_class(&spec(json!({"limits": {"cpu": "1", "memory": "1Gi"}}))), "Guaranteed");
        assert_eq!(qos_class(&spec(json!({"requests": {"cpu": "1"}}))), "Burstable");
    }
}
