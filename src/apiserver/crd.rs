//! CustomResourceDefinitions: validation of the definition, the resource it serves, and the
//! status the apiserver reports once its names are accepted.

use serde_json::{Value, json};

use crate::apiserver::catalogue::{Conversion, NameRule, ResourceInfo, ScalePaths, ScaleSelector};
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::store::ObjectKey;
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
    errs.extend(validate_conversion(&spec["conversion"]));
    errs
}

/// `spec.conversion`: `None` or `Webhook`; a webhook needs review versions and a client
/// configuration (a `url` or a `service`).
fn validate_conversion(conversion: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match conversion["strategy"].as_str() {
        None | Some("None") => {}
        Some("Webhook") => {
            let webhook = &conversion["webhook"];
            if webhook["conversionReviewVersions"].as_array().is_none_or(Vec::is_empty) {
                errs.push(FieldError::required("spec.conversion.webhook.conversionReviewVersions", "must contain at least one version"));
            }
            let config = &webhook["clientConfig"];
            if config["url"].is_null() == config["service"].is_null() {
                errs.push(FieldError::required("spec.conversion.webhook.clientConfig", "exactly one of url or service is required"));
            }
        }
        Some(other) => errs.push(FieldError::new(
            crate::apiserver::status::FieldErrorKind::NotSupported,
            "spec.conversion.strategy",
            Some(json!(other)),
            "supported values: \"None\", \"Webhook\"",
        )),
    }
    errs
}

/// The conversion a CRD asks for: with a webhook, what its unreachability says.
fn conversion(spec: &Value) -> Conversion {
    if spec["conversion"]["strategy"].as_str() != Some("Webhook") {
        return Conversion::None;
    }
    let config = &spec["conversion"]["webhook"]["clientConfig"];
    let why = match config["url"].as_str() {
        Some(url) => format!("Post \"{url}?timeout=30s\": dial tcp: connect: connection refused"),
        None => {
            let service = &config["service"];
            let name = service["name"].as_str().unwrap_or("");
            let namespace = service["namespace"].as_str().unwrap_or("");
            let port = service["port"].as_i64().unwrap_or(443);
            let path = service["path"].as_str().unwrap_or("");
            format!("Post \"https://{name}.{namespace}.svc:{port}{path}?timeout=30s\": service \"{name}\" not found")
        }
    };
    Conversion::Webhook(why.into())
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
    // Versions declare their subresources apart, but the fake serves one resource for all of
    // them: the first version's scale stands for each.
    let scale = all_versions.iter().find_map(|v| scale_paths(&v["subresources"]["scale"]));
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
        finalize_subresource: false,
        approval_subresource: false,
        scale,
        collection_delete: true,
        orphan_by_default_in: vec![],
        gc_unsupported: false,
        graceful: false,
        returns_deleted_object: true,
        name_rule: NameRule::PathSegment,
        custom: true,
        tracks_generation: true,
        conversion: conversion(spec),
    })
}

/// The scale subresource a version declares (`subresources.scale`), if it declares one
/// (apiextensions-apiserver `CustomResourceSubresourceScale`).
fn scale_paths(scale: &Value) -> Option<ScalePaths> {
    let path = |field: &str| scale[field].as_str().map(str::to_string);
    Some(ScalePaths {
        spec_replicas: path("specReplicasPath")?,
        status_replicas: path("statusReplicasPath")?,
        selector: ScaleSelector::Path(path("labelSelectorPath")),
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

/// Whether `key` is the CustomResourceDefinition that defines the custom `resource`.
pub fn is_definition_of(key: &ObjectKey, resource: &ResourceInfo) -> bool {
    resource.custom
        && key.group == "apiextensions.k8s.io"
        && key.resource == "customresourcedefinitions"
        && key.name == format!("{}.{}", resource.plural, resource.group)
}
