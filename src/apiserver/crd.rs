//! CustomResourceDefinitions: validation of the definition, the resource it serves, and the
//! status the apiserver reports once its names are accepted.

use serde_json::{Value, json};

use crate::apiserver::registry::{Conversion, NameRule, ResourceInfo};
use crate::apiserver::status::FieldError;
use crate::apiserver::validation::is_dns_subdomain;

/// The finalizer the apiserver puts on a CRD being deleted, until its objects are gone.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// Validates the parts of a CRD spec the fake apiserver relies on.
pub fn validate(crd: &Value) -> Vec<FieldError> {
    let spec = &crd["spec"];
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let (group, plural, kind) = (s(&spec["group"]), s(&spec["names"]["plural"]), s(&spec["names"]["kind"]));
    let mut errs = Vec::new();
    if group.is_empty() {
        errs.push(FieldError::required("spec.group", ""));
    } else if !is_dns_subdomain(&group) || !group.contains('.') {
        errs.push(FieldError::invalid("spec.group", json!(group), "should be a domain with at least one dot"));
    }
    if plural.is_empty() {
        errs.push(FieldError::required("spec.names.plural", ""));
    }
    if kind.is_empty() {
        errs.push(FieldError::required("spec.names.kind", ""));
    }
    let name = crd["metadata"]["name"].as_str().unwrap_or("");
    if !plural.is_empty() && !group.is_empty() && name != format!("{plural}.{group}") {
        errs.push(FieldError::invalid("metadata.name", json!(name), "must be spec.names.plural+\".\"+spec.group".to_string()));
    }
    match spec["scope"].as_str() {
        Some("Namespaced" | "Cluster") => {}
        other => errs.push(FieldError::new(
            crate::apiserver::status::FieldErrorKind::NotSupported,
            "spec.scope",
            Some(json!(other.unwrap_or(""))),
            "supported values: \"Cluster\", \"Namespaced\"",
        )),
    }
    let versions = spec["versions"].as_array().cloned().unwrap_or_default();
    if versions.is_empty() {
        errs.push(FieldError::invalid("spec.versions", json!([]), "must have exactly one version marked as storage version"));
    } else {
        let storage = versions.iter().filter(|v| v["storage"].as_bool() == Some(true)).count();
        if storage != 1 {
            errs.push(FieldError::invalid("spec.versions", json!(storage), "must have exactly one version marked as storage version"));
        }
    }
    errs
}

/// The resource a valid CRD serves: storage version first among its served versions.
pub fn resource_info(crd: &Value) -> Option<ResourceInfo> {
    let spec = &crd["spec"];
    let names = &spec["names"];
    let group = spec["group"].as_str()?.to_string();
    let plural = names["plural"].as_str()?.to_string();
    let kind = names["kind"].as_str()?.to_string();
    let list = |v: &Value| -> Vec<String> {
        v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect()).unwrap_or_default()
    };
    let all_versions = spec["versions"].as_array()?;
    let mut versions: Vec<String> = Vec::new();
    for v in all_versions.iter().filter(|v| v["storage"].as_bool() == Some(true)).chain(all_versions.iter()) {
        let name = v["name"].as_str()?.to_string();
        if v["served"].as_bool() != Some(false) && !versions.contains(&name) {
            versions.push(name);
        }
    }
    if versions.is_empty() {
        return None;
    }
    let status_subresource = all_versions.iter().any(|v| v["subresources"]["status"].is_object());
    Some(ResourceInfo {
        storage: (group.clone(), plural.clone()),
        group,
        versions,
        singular: names["singular"].as_str().map(String::from).unwrap_or_else(|| kind.to_lowercase()),
        plural,
        kind,
        namespaced: spec["scope"].as_str() != Some("Cluster"),
        short_names: list(&names["shortNames"]),
        categories: list(&names["categories"]),
        status_subresource,
        orphan_by_default_in: vec![],
        gc_unsupported: false,
        graceful: false,
        returns_deleted_object: true,
        name_rule: NameRule::PathSegment,
        custom: true,
        tracks_generation: true,
        conversion: Conversion::None,
    })
}

/// The status of an accepted and established CRD.
pub fn established_status(crd: &Value, now: &str) -> Value {
    let storage: Vec<Value> = crd["spec"]["versions"]
        .as_array()
        .map(|vs| vs.iter().filter(|v| v["storage"].as_bool() == Some(true)).map(|v| v["name"].clone()).collect())
        .unwrap_or_default();
    let condition = |t: &str, reason: &str, message: &str| json!({"type": t, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message});
    json!({
        "acceptedNames": crd["spec"]["names"],
        "conditions": [
            condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
        ],
        "storedVersions": storage,
    })
}
