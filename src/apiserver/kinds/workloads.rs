//! The workloads that select their pods: a selector that is given, not empty (an empty one
//! selects every pod of a Job), and matches the pod template's labels
//! (pkg/apis/apps/validation/validation.go, `ValidateDeploymentSpec`, `ValidateReplicaSetSpec`,
//! `ValidateStatefulSetSpec`, `ValidateDaemonSetSpec`; pkg/apis/batch/validation/validation.go,
//! `ValidateJobSpec`), and ReplicationControllers, whose selector is a map of labels and whose
//! template may be absent (pkg/apis/core/validation/validation.go,
//! `ValidateReplicationControllerSpec`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::core::{Selector, SelectorExt};
use serde_json::Value;

use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::Kind;

/// How a workload's validation words and orders what it refuses of its selector.
#[derive(Clone, Copy, Debug)]
pub struct SelectorRule {
    /// The workload as the "empty selector is invalid for …" message names it.
    pub noun: &'static str,
    /// Whether a missing selector is refused as such (not by DaemonSets, which refuse it only
    /// as a selector that matches nothing).
    pub required: bool,
    /// Whether an empty selector is refused (the apps workloads) or selects every pod (Jobs).
    pub empty_refused: bool,
}

/// Deployments and ReplicaSets (whose message names deployments too).
pub const DEPLOYMENT_SELECTOR: SelectorRule = SelectorRule { noun: "deployment", required: true, empty_refused: true };
/// StatefulSets.
pub const STATEFUL_SET_SELECTOR: SelectorRule = SelectorRule { noun: "statefulset", required: true, empty_refused: true };
/// DaemonSets.
pub const DAEMON_SET_SELECTOR: SelectorRule = SelectorRule { noun: "daemonset", required: false, empty_refused: true };
/// Jobs (`ValidateJobSpec` in pkg/apis/batch/validation/validation.go).
pub const JOB_SELECTOR: SelectorRule = SelectorRule { noun: "job", required: true, empty_refused: false };

impl SelectorRule {
    /// What the workload's validation refuses of its selector.
    pub fn errors(self, workload: &Value) -> Vec<FieldError> {
        let spec = &workload["spec"];
        let given = &spec["selector"];
        let labels = &spec["template"]["metadata"]["labels"];
        let mut errs = Vec::new();
        let empty = given.is_object() && count(&given["matchLabels"]) + count(&given["matchExpressions"]) == 0;
        if given.is_null() && self.required {
            errs.push(FieldError::required("spec.selector", ""));
        }
        let empty_error = || FieldError::invalid("spec.selector", given.clone(), format!("empty selector is invalid for {}", self.noun));
        if empty && self.required && self.empty_refused {
            errs.push(empty_error());
        }
        // A missing selector matches nothing; an empty one everything.
        let selector = if given.is_null() { Ok(None) } else { label_selector(given).map(Some).ok_or(()) };
        match selector {
            Err(()) if self.required => errs.push(FieldError::invalid("spec.selector", given.clone(), "invalid label selector")),
            Err(()) => {}
            Ok(selector) if !empty => {
                let template_labels = labels
                    .as_object()
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string())).collect())
                    .unwrap_or_default();
                if !selector.is_some_and(|s| s.matches(&template_labels)) {
                    errs.push(FieldError::invalid(
                        "spec.template.metadata.labels",
                        labels.clone(),
                        "`selector` does not match template `labels`",
                    ));
                }
            }
            Ok(_) => {}
        }
        if empty && !self.required && self.empty_refused {
            errs.push(empty_error());
        }
        errs
    }
}

/// The label selector `value` holds (`metav1.LabelSelectorAsSelector`), if it is one.
pub fn label_selector(value: &Value) -> Option<Selector> {
    serde_json::from_value::<LabelSelector>(value.clone()).ok().and_then(|s| Selector::try_from(s).ok())
}

fn count(value: &Value) -> usize {
    value.as_array().map(Vec::len).or_else(|| value.as_object().map(|m| m.len())).unwrap_or(0)
}

/// ReplicaSets and StatefulSets, which have no other hooks.
pub struct Selecting(pub SelectorRule);

impl Kind for Selecting {
    fn validate(&self, workload: &Value) -> Vec<FieldError> {
        self.0.errors(workload)
    }
}

/// ReplicationControllers: a selector of at least one label, and a template (a pointer in Go,
/// so it may be absent) whose labels the selector matches (`ValidateNonEmptySelector`,
/// `ValidatePodTemplateSpecForRC`).
pub struct ReplicationControllers;

impl Kind for ReplicationControllers {
    fn validate(&self, rc: &Value) -> Vec<FieldError> {
        let spec = &rc["spec"];
        let selector = spec["selector"].as_object().filter(|s| !s.is_empty());
        let mut errs = Vec::new();
        if selector.is_none() {
            errs.push(FieldError::required("spec.selector", ""));
        }
        let labels = &spec["template"]["metadata"]["labels"];
        if spec["template"].is_null() {
            errs.push(FieldError::required("spec.template", ""));
        } else if selector.is_some_and(|s| s.iter().any(|(key, value)| labels[key] != *value)) {
            errs.push(FieldError::invalid("spec.template.metadata.labels", labels.clone(), "`selector` does not match template `labels`"));
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::apiserver::status::ApiError;

    fn message(rule: SelectorRule, spec: Value) -> String {
        ApiError::invalid("apps", "Deployment", "d", rule.errors(&json!({"spec": spec}))).message
    }

    #[test]
    fn a_selector_is_given_not_empty_and_matches_the_template() {
        let template = json!({"metadata": {"labels": {"name": "nginx"}}});
        assert_eq!(
            message(DEPLOYMENT_SELECTOR, json!({"template": template})),
            "Deployment.apps \"d\" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"name\":\"nginx\"}: `selector` does not match template `labels`]"
        );
        assert_eq!(
            message(DAEMON_SET_SELECTOR, json!({"template": template})),
            "Deployment.apps \"d\" is invalid: spec.template.metadata.labels: Invalid value: {\"name\":\"nginx\"}: `selector` does not match template `labels`"
        );
        assert!(
            message(STATEFUL_SET_SELECTOR, json!({"selector": {}, "template": template}))
                .ends_with("empty selector is invalid for statefulset")
        );
        let matching =
            json!({"selector": {"matchExpressions": [{"key": "name", "operator": "In", "values": ["nginx"]}]}, "template": template});
        assert!(DEPLOYMENT_SELECTOR.errors(&json!({"spec": matching})).is_empty());
    }
}
