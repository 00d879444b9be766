//! Per-kind defaulting and validation beyond object metadata: what the real registry
//! strategies do that clients of a garbage collector notice (pod containers and grace period,
//! namespace finalizers and phase, CustomResourceDefinition specs).

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

/// Validates the kind-specific parts of an object about to be written.
pub fn validate(scope: &Scope, obj: &Value) -> Vec<FieldError> {
    let r = &scope.resource;
    match (r.group.as_str(), r.plural.as_str()) {
        ("", "pods") => validate_pod(obj),
        ("apiextensions.k8s.io", "customresourcedefinitions") => crd::validate(obj),
        _ => vec![],
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
