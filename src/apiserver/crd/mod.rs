//! CustomResourceDefinitions: the validation of a definition (`validation.rs`), the resource it
//! serves, and the status the apiserver reports once its names are accepted.

mod validation;

use serde_json::{Value, json};

pub use validation::validate;

use crate::apiserver::catalogue::{Conversion, NameRule, ResourceInfo, ScalePaths, ScaleSelector};
use crate::apiserver::storage::store::ObjectKey;

/// The finalizer the apiserver puts on a CRD being deleted, until its objects are gone.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

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
    let storage_version = all_versions.iter().find(|v| v["storage"].as_bool() == Some(true)).and_then(|v| v["name"].as_str());
    let storage_version = storage_version.unwrap_or(&versions[0]).to_string();
    let status_subresource = all_versions.iter().any(|v| v["subresources"]["status"].is_object());
    // Versions declare their subresources apart, but the fake serves one resource for all of
    // them: the first version's scale stands for each.
    let scale = all_versions.iter().find_map(|v| scale_paths(&v["subresources"]["scale"]));
    Some(ResourceInfo {
        storage: (group.clone(), plural.clone()),
        storage_version,
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
        ephemeral_containers_subresource: false,
        binding_subresource: false,
        scale,
        collection_delete: true,
        orphan_by_default_in: vec![],
        gc_unsupported: false,
        graceful: false,
        // apiextensions-apiserver registry/customresource/etcd.go leaves `ReturnDeletedObject`
        // unset: a removed custom resource is answered with a `Status`.
        returns_deleted_object: false,
        name_rule: NameRule::PathSegment,
        custom: true,
        tracks_generation: true,
        conversion: conversion(spec),
        // apiextensions-apiserver registry/customresource/strategy.go.
        unconditional_update: false,
        create_on_update: false,
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

/// The status of a new definition: nothing accepted yet, its storage version stored
/// (apiextensions-apiserver `registry/customresourcedefinition/strategy.go`, `PrepareForCreate`).
pub fn created_status(crd: &Value) -> Value {
    let storage: Vec<Value> = crd["spec"]["versions"]
        .as_array()
        .and_then(|vs| vs.iter().find(|v| v["storage"].as_bool() == Some(true)))
        .map(|v| vec![v["name"].clone()])
        .unwrap_or_default();
    json!({"acceptedNames": {"plural": "", "kind": ""}, "conditions": null, "storedVersions": storage})
}

/// Adds the definition's storage version (the first version marked so) to its stored versions
/// if they do not hold it.
pub fn store_storage_version(crd: &mut Value) {
    let storage = crd["spec"]["versions"].as_array().and_then(|vs| vs.iter().find(|v| v["storage"] == true)).map(|v| v["name"].clone());
    let Some(storage) = storage.filter(Value::is_string) else { return };
    if !crd["status"].is_object() {
        return;
    }
    let stored = &mut crd["status"]["storedVersions"];
    match stored.as_array_mut() {
        Some(list) if !list.contains(&storage) => list.push(storage),
        Some(_) => {}
        None => *stored = json!([storage]),
    }
}

/// The status kube-apiserver's definition controllers write at `now` once they have seen
/// `crd`, if it differs from the one it has: the names accepted (`controller/status`, the
/// naming controller; the fake sees no conflicts), the definition established
/// (`controller/establish`) and, for a group of the Kubernetes project, whether it carries the
/// approval annotation (`controller/apiapproval`).
pub fn settled_status(crd: &Value, now: &str) -> Option<Value> {
    let mut status = crd["status"].clone();
    if !status.is_object() {
        status = created_status(crd);
    }
    let mut changed = status["acceptedNames"] != crd["spec"]["names"];
    status["acceptedNames"] = crd["spec"]["names"].clone();
    changed |= set_condition(&mut status, "NamesAccepted", "True", "NoConflicts", "no conflicts found", now);
    if !is_established(&status) {
        changed |= set_condition(&mut status, "Established", "True", "InitialNamesAccepted", "the initial names have been accepted", now);
    }
    if let Some((state, reason, message)) = approval(crd) {
        changed |= set_condition(&mut status, "KubernetesAPIApprovalPolicyConformant", state, reason, &message, now);
    }
    changed.then_some(status)
}

/// The annotation that records the approval of an API in a protected group.
const APPROVAL_ANNOTATION: &str = "api-approved.kubernetes.io";

/// The approval condition of a definition in a group of the Kubernetes project (`k8s.io`,
/// `kubernetes.io` and their subdomains): status, reason and message
/// (apiextensions-apiserver `apihelpers.GetAPIApprovalState`).
fn approval(crd: &Value) -> Option<(&'static str, &'static str, String)> {
    let group = crd["spec"]["group"].as_str().unwrap_or("");
    let protected = ["k8s.io", "kubernetes.io"].iter().any(|g| group == *g || group.ends_with(&format!(".{g}")));
    if !protected {
        return None;
    }
    let see = "see https://github.com/kubernetes/enhancements/pull/1111";
    let annotation = crd["metadata"]["annotations"][APPROVAL_ANNOTATION].as_str().unwrap_or("");
    let is_url = url::Url::parse(annotation).is_ok_and(|u| !u.scheme().is_empty() && u.host_str().is_some_and(|h| !h.is_empty()));
    Some(if annotation.is_empty() {
        ("False", "MissingAnnotation", format!("protected groups must have approval annotation \"{APPROVAL_ANNOTATION}\", {see}"))
    } else if annotation.starts_with("unapproved") {
        ("False", "UnapprovedAnnotation", format!("not approved: {annotation:?}"))
    } else if is_url {
        ("True", "ApprovedAnnotation", format!("approved in {annotation}"))
    } else {
        (
            "False",
            "InvalidAnnotation",
            format!(
                "protected groups must have approval annotation \"{APPROVAL_ANNOTATION}\" with either a URL or a reason starting with \"unapproved\", {see}"
            ),
        )
    })
}

/// The `Terminating` condition of a definition as its deletion goes on: marked by the
/// definition registry's `Delete` (apiextensions-apiserver
/// `registry/customresourcedefinition/etcd.go`), then written by the CRD finalizer
/// (`controller/finalizer/crd_finalizer.go`, `sync` and `deleteInstances`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terminating {
    /// The first delete marked the definition.
    Pending,
    /// The finalizer began deleting the defined resource's objects.
    InProgress,
    /// The finalizer found no object left.
    Completed,
    /// The definition was never established, so it served no objects to delete.
    NeverEstablished,
}

impl Terminating {
    /// The condition's status, reason and message.
    fn condition(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Self::Pending => {
                ("True", "InstanceDeletionPending", "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon")
            }
            Self::InProgress => ("True", "InstanceDeletionInProgress", "CustomResource deletion is in progress"),
            Self::Completed => ("False", "InstanceDeletionCompleted", "removed all instances"),
            Self::NeverEstablished => ("False", "NeverEstablished", "resource was never established"),
        }
    }

    /// Sets the condition in `status` at `now`; whether anything but a time changed.
    pub fn set(self, status: &mut Value, now: &str) -> bool {
        let (state, reason, message) = self.condition();
        set_condition(status, "Terminating", state, reason, message, now)
    }
}

/// Whether a definition's `status` holds a true `Established` condition.
pub fn is_established(status: &Value) -> bool {
    status["conditions"].as_array().is_some_and(|cs| cs.iter().any(|c| c["type"] == "Established" && c["status"] == "True"))
}

/// Sets condition `kind` of `status` as `apihelpers.SetCRDCondition` does: added at the end,
/// or changed in place with its transition time kept while its status stays; whether anything
/// but a time changed.
fn set_condition(status: &mut Value, kind: &str, state: &str, reason: &str, message: &str, now: &str) -> bool {
    if !status["conditions"].is_array() {
        status["conditions"] = json!([]);
    }
    let conditions = status["conditions"].as_array_mut().expect("made an array");
    let wanted = json!({"type": kind, "status": state, "lastTransitionTime": now, "reason": reason, "message": message});
    let Some(existing) = conditions.iter_mut().find(|c| c["type"] == kind) else {
        conditions.push(wanted);
        return true;
    };
    let changed = existing["status"] != state || existing["reason"] != reason || existing["message"] != message;
    if existing["status"] != state || existing["lastTransitionTime"].as_str().is_none_or(str::is_empty) {
        existing["lastTransitionTime"] = json!(now);
    }
    existing["status"] = json!(state);
    existing["reason"] = json!(reason);
    existing["message"] = json!(message);
    changed
}

/// Whether `key` is the CustomResourceDefinition that defines the custom `resource`.
pub fn is_definition_of(key: &ObjectKey, resource: &ResourceInfo) -> bool {
    resource.custom
        && key.group == "apiextensions.k8s.io"
        && key.resource == "customresourcedefinitions"
        && key.name == format!("{}.{}", resource.plural, resource.group)
}
