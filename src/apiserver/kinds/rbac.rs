//! rbac.authorization.k8s.io/v1: what the validation of roles and bindings refuses
//! (pkg/apis/rbac/validation/validation.go), and a binding's role reference, fixed once written.

use serde_json::{Value, json};

use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::Kind;
use crate::apiserver::storage::write::Target;

/// The RBAC API group.
const RBAC: &str = "rbac.authorization.k8s.io";

/// Roles and ClusterRoles.
pub struct Roles {
    /// Whether the role is namespaced (a Role).
    pub namespaced: bool,
}

/// Roles.
pub const ROLES: Roles = Roles { namespaced: true };
/// ClusterRoles.
pub const CLUSTER_ROLES: Roles = Roles { namespaced: false };

impl Kind for Roles {
    /// Each rule names verbs, and either resources (with their groups) or, in a ClusterRole
    /// alone, non-resource URLs (`ValidatePolicyRule`).
    fn validate(&self, role: &Value) -> Vec<FieldError> {
        let rules = role["rules"].as_array().map(Vec::as_slice).unwrap_or_default();
        rules.iter().enumerate().flat_map(|(i, rule)| policy_rule(rule, self.namespaced, &format!("rules[{i}]"))).collect()
    }
}

fn count(value: &Value) -> usize {
    value.as_array().map_or(0, Vec::len)
}

fn policy_rule(rule: &Value, namespaced: bool, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if count(&rule["verbs"]) == 0 {
        errs.push(FieldError::required(format!("{path}.verbs"), "verbs must contain at least one value"));
    }
    if count(&rule["nonResourceURLs"]) > 0 {
        let urls = rule["nonResourceURLs"].clone();
        if namespaced {
            errs.push(FieldError::invalid(
                format!("{path}.nonResourceURLs"),
                urls.clone(),
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if count(&rule["apiGroups"]) + count(&rule["resources"]) + count(&rule["resourceNames"]) > 0 {
            errs.push(FieldError::invalid(
                format!("{path}.nonResourceURLs"),
                urls,
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return errs;
    }
    if count(&rule["apiGroups"]) == 0 {
        errs.push(FieldError::required(format!("{path}.apiGroups"), "resource rules must supply at least one api group"));
    }
    if count(&rule["resources"]) == 0 {
        errs.push(FieldError::required(format!("{path}.resources"), "resource rules must supply at least one resource"));
    }
    errs
}

/// RoleBindings and ClusterRoleBindings.
pub struct Bindings {
    /// Whether the binding is namespaced (a RoleBinding).
    pub namespaced: bool,
}

/// RoleBindings.
pub const ROLE_BINDINGS: Bindings = Bindings { namespaced: true };
/// ClusterRoleBindings.
pub const CLUSTER_ROLE_BINDINGS: Bindings = Bindings { namespaced: false };

impl Kind for Bindings {
    /// The role reference names a role of the RBAC group (a ClusterRoleBinding's a ClusterRole);
    /// each subject has a name and a kind, the RBAC group for users and groups, none for
    /// service accounts, which a ClusterRoleBinding must place in a namespace
    /// (`ValidateRoleBinding`, `ValidateClusterRoleBinding`, `ValidateRoleBindingSubject`).
    fn validate(&self, binding: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let text = |v: &Value| v.as_str().unwrap_or("").to_string();
        let role = &binding["roleRef"];
        if text(&role["apiGroup"]) != RBAC {
            errs.push(FieldError::not_supported("roleRef.apiGroup", json!(text(&role["apiGroup"])), &[RBAC]));
        }
        let kinds: &[&str] = if self.namespaced { &["Role", "ClusterRole"] } else { &["ClusterRole"] };
        if !kinds.contains(&text(&role["kind"]).as_str()) {
            errs.push(FieldError::not_supported("roleRef.kind", json!(text(&role["kind"])), kinds));
        }
        if text(&role["name"]).is_empty() {
            errs.push(FieldError::required("roleRef.name", ""));
        }
        let subjects = binding["subjects"].as_array().map(Vec::as_slice).unwrap_or_default();
        for (i, subject) in subjects.iter().enumerate() {
            let path = format!("subjects[{i}]");
            if text(&subject["name"]).is_empty() {
                errs.push(FieldError::required(format!("{path}.name"), ""));
            }
            let group = text(&subject["apiGroup"]);
            match text(&subject["kind"]).as_str() {
                "ServiceAccount" => {
                    if !group.is_empty() {
                        errs.push(FieldError::not_supported(format!("{path}.apiGroup"), json!(group), &[""]));
                    }
                    if !self.namespaced && text(&subject["namespace"]).is_empty() {
                        errs.push(FieldError::required(format!("{path}.namespace"), ""));
                    }
                }
                "User" | "Group" if group != RBAC => {
                    errs.push(FieldError::not_supported(format!("{path}.apiGroup"), json!(group), &[RBAC]));
                }
                "User" | "Group" => {}
                other => errs.push(FieldError::not_supported(format!("{path}.kind"), json!(other), &["ServiceAccount", "User", "Group"])),
            }
        }
        errs
    }

    /// A binding's role reference cannot change (`ValidateRoleBindingUpdate`).
    fn prepare_update(&self, _target: Target, new: &mut Value, existing: &Value, _now: &str) -> Vec<FieldError> {
        if new["roleRef"] == existing["roleRef"] {
            return Vec::new();
        }
        vec![FieldError::invalid("roleRef", new["roleRef"].clone(), "field is immutable")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::apiserver::status::ApiError;

    /// The errors as the message of the 422 they make.
    fn message(errs: Vec<FieldError>) -> String {
        ApiError::invalid(RBAC, "Kind", "x", errs).message
    }

    #[test]
    fn a_cluster_role_binding_places_its_service_accounts_in_a_namespace() {
        let binding = json!({"roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "User", "name": "u", "apiGroup": RBAC}]});
        assert_eq!(
            message(CLUSTER_ROLE_BINDINGS.validate(&binding)),
            "Kind.rbac.authorization.k8s.io \"x\" is invalid: subjects[0].namespace: Required value"
        );
        assert!(ROLE_BINDINGS.validate(&binding).is_empty());
        let mut role = binding.clone();
        role["roleRef"]["kind"] = json!("Role");
        assert!(
            message(CLUSTER_ROLE_BINDINGS.validate(&role))
                .contains("roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"")
        );
    }

    #[test]
    fn a_role_s_rules_name_verbs_and_resources() {
        let role = json!({"rules": [{"verbs": ["get"], "apiGroups": [""]}, {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]});
        assert!(message(ROLES.validate(&role)).ends_with(
            "[rules[0].resources: Required value: resource rules must supply at least one resource, \
             rules[1].nonResourceURLs: Invalid value: [\"/healthz\"]: namespaced rules cannot apply to non-resource URLs]"
        ));
        assert_eq!(CLUSTER_ROLES.validate(&role).len(), 1);
    }
}
