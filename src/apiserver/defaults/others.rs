//! Defaults of the smaller groups: discovery.k8s.io/v1 (`pkg/apis/discovery/v1/defaults.go`:
//! an EndpointSlice port is unnamed TCP; each endpoint's conditions are always written) and rbac.authorization.k8s.io/v1
//! (`pkg/apis/rbac/v1/defaults.go`: role references and user or group subjects name the RBAC
//! group), and apiextensions.k8s.io/v1 (`pkg/apis/apiextensions/v1/defaults.go` of
//! k8s.io/apiextensions-apiserver: a definition's singular and list kind from its kind, no
//! conversion, a conversion webhook's service on port 443, the storage version stored).

use serde_json::{Value, json};

use super::{items, object_at, or_nil, or_zero};

/// The RBAC API group.
const RBAC: &str = "rbac.authorization.k8s.io";

/// Defaults of `kind` in `group`, outside core, apps and batch.
pub fn apply(group: &str, kind: &str, object: &mut Value) {
    match (group, kind) {
        ("discovery.k8s.io", "EndpointSlice") => {
            for endpoint in items(object, "endpoints") {
                object_at(endpoint, "conditions");
            }
            for port in items(object, "ports") {
                or_nil(port, "name", json!(""));
                or_nil(port, "protocol", json!("TCP"));
            }
        }
        (RBAC, "RoleBinding" | "ClusterRoleBinding") => {
            if let Some(role) = object_at(object, "roleRef") {
                or_zero(role, "apiGroup", json!(RBAC));
            }
            for subject in items(object, "subjects") {
                if matches!(subject["kind"].as_str(), Some("User" | "Group")) {
                    or_zero(subject, "apiGroup", json!(RBAC));
                }
            }
        }
        ("apiextensions.k8s.io", "CustomResourceDefinition") => definition(object),
        _ => {}
    }
}

/// `SetObjectDefaults_CustomResourceDefinition`.
fn definition(object: &mut Value) {
    let Some(spec) = object_at(object, "spec") else { return };
    if let Some(names) = object_at(spec, "names") {
        let kind = names["kind"].as_str().unwrap_or("").to_string();
        if !kind.is_empty() {
            or_zero(names, "singular", json!(kind.to_lowercase()));
            or_zero(names, "listKind", json!(format!("{kind}List")));
        }
    }
    or_nil(spec, "conversion", json!({"strategy": "None"}));
    if let Some(service) = spec.pointer_mut("/conversion/webhook/clientConfig/service").filter(|s| s.is_object()) {
        or_nil(service, "port", json!(443));
    }
    let storage = spec["versions"].as_array().and_then(|vs| vs.iter().find(|v| v["storage"] == true)).map(|v| v["name"].clone());
    if let Some(storage) = storage
        && let Some(status) = object_at(object, "status")
        && status["storedVersions"].as_array().is_none_or(Vec::is_empty)
    {
        status["storedVersions"] = json!([storage]);
    }
}
