//! Per-kind defaulting and validation beyond object metadata: what the real registry
//! strategies and default admission plugins do that clients of a garbage collector notice (pod
//! containers and grace period, namespace finalizers and phase, CustomResourceDefinition specs,
//! storage-protection finalizers, Event namespaces, ControllerRevision data).

use serde_json::{Value, json};

use crate::apiserver::crd;
use crate::apiserver::state::Scope;
use crate::apiserver::status::FieldError;

/// Fills defaults on create, as the real defaulting functions do.
pub fn default_on_create(scope: &Scope, obj: &mut Value, now: &str) {
    let r = &scope.resource;
    match (r.group.as_str(), r.plural.as_str()) {
        ("", "pods") => {
            if obj["spec"]["terminationGracePeriodSeconds"].is_null() {
                obj["spec"]["terminationGracePeriodSeconds"] = json!(30);
            }
            if obj["status"]["phase"].is_null() {
                obj["status"]["phase"] = json!("Pending");
            }
        }
        ("", "namespaces") => {
            obj["spec"]["finalizers"] = json!(["kubernetes"]);
            obj["status"] = json!({"phase": "Active"});
        }
        ("apiextensions.k8s.io", "customresourcedefinitions") => {
            obj["status"] = crd::established_status(obj, now);
        }
        _ => {}
    }
}

/// What the default admission plugins add to a new object: the StorageObjectInUseProtection
/// plugin's finalizer on claims and volumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission {
    /// The storage-protection finalizer.
    pub protection_finalizer: Option<&'static str>,
}

/// What admission adds to a new object of `scope`'s resource.
pub fn admission(scope: &Scope) -> Admission {
    let r = &scope.resource;
    let protection_finalizer = match (r.group.as_str(), r.plural.as_str()) {
        ("", "persistentvolumeclaims") => Some(PVC_PROTECTION),
        ("", "persistentvolumes") => Some(PV_PROTECTION),
        _ => None,
    };
    Admission { protection_finalizer }
}

impl Admission {
    /// Adds what admission adds to `obj`.
    pub fn admit(self, obj: &mut Value) {
        if let Some(finalizer) = self.protection_finalizer {
            add_finalizer(obj, finalizer);
        }
    }
}

/// The finalizer the StorageObjectInUseProtection admission plugin (on by default) gives every
/// new PersistentVolumeClaim; the pvc-protection controller removes it once no pod uses the claim.
pub const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";

/// The same plugin's finalizer for PersistentVolumes, removed once the volume is not bound.
pub const PV_PROTECTION: &str = "kubernetes.io/pv-protection";

fn add_finalizer(obj: &mut Value, finalizer: &str) {
    let meta = &mut obj["metadata"];
    match meta["finalizers"].as_array_mut() {
        Some(list) if list.iter().any(|f| f == finalizer) => {}
        Some(list) => list.push(json!(finalizer)),
        None => meta["finalizers"] = json!([finalizer]),
    }
}

/// Validates the kind-specific parts of an object about to be written.
pub fn validate(scope: &Scope, obj: &Value) -> Vec<FieldError> {
    let r = &scope.resource;
    match (r.group.as_str(), r.plural.as_str()) {
        ("", "pods") => validate_pod(obj),
        ("", "events") => validate_core_event(obj),
        ("apps", "controllerrevisions") => validate_controller_revision(obj),
        ("apiextensions.k8s.io", "customresourcedefinitions") => crd::validate(obj),
        _ => vec![],
    }
}

/// A core/v1 Event without `eventTime` (the old form every scenario uses) must name its
/// involved object's namespace as its own; with none, only a cluster-wide or `default` Event
/// passes (upstream `legacyValidateEvent`).
fn validate_core_event(event: &Value) -> Vec<FieldError> {
    if !event["eventTime"].is_null() {
        return vec![];
    }
    let own = event["metadata"]["namespace"].as_str().unwrap_or("");
    let involved = event["involvedObject"]["namespace"].as_str().unwrap_or("");
    let agrees = if involved.is_empty() { own.is_empty() || own == "default" } else { own == involved };
    if agrees { vec![] } else { vec![FieldError::invalid("involvedObject.namespace", json!(involved), "does not match event.namespace")] }
}

/// A ControllerRevision's `data` is a JSON object (upstream `ValidateControllerRevisionCreate`).
fn validate_controller_revision(revision: &Value) -> Vec<FieldError> {
    match &revision["data"] {
        Value::Object(_) => vec![],
        Value::Null => vec![FieldError::required("data", "data is mandatory")],
        _ => vec![FieldError::required("data", "data must be a valid JSON object")],
    }
}

fn validate_pod(pod: &Value) -> Vec<FieldError> {
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
