//! Defaults of the smaller groups: discovery.k8s.io/v1 (`pkg/apis/discovery/v1/defaults.go`:
//! an EndpointSlice port is unnamed TCP; each endpoint's conditions are always written) and rbac.authorization.k8s.io/v1
//! (`pkg/apis/rbac/v1/defaults.go`: role references and user or group subjects name the RBAC
//! group).

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
        _ => {}
    }
}
