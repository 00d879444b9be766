//! Deployments: their selector, and what their status subresource may not change.

use serde_json::Value;

use crate::apiserver::kinds::workloads::DEPLOYMENT_SELECTOR;
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::{Kind, keep_stored};
use crate::apiserver::storage::write::Target;

/// apps/v1 Deployments.
pub struct Deployments;

impl Kind for Deployments {
    fn validate(&self, deployment: &Value) -> Vec<FieldError> {
        DEPLOYMENT_SELECTOR.errors(deployment)
    }

    /// A status write keeps the stored labels, unlike most kinds' (upstream
    /// pkg/registry/apps/deployment/strategy.go, `deploymentStatusStrategy.PrepareForUpdate`).
    fn prepare_update(&self, target: Target, new: &mut Value, existing: &Value, _now: &str) -> Vec<FieldError> {
        if target == Target::Status {
            keep_stored(new, existing, "metadata", "labels");
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_status_write_keeps_the_stored_labels_and_the_main_resource_does_not() {
        let existing = json!({"metadata": {"name": "d", "labels": {"app": "web"}}});
        let mut new = json!({"metadata": {"name": "d", "labels": {"app": "other"}, "annotations": {"a": "b"}}});
        Deployments.prepare_update(Target::Status, &mut new, &existing, "");
        assert_eq!(new["metadata"], json!({"name": "d", "labels": {"app": "web"}, "annotations": {"a": "b"}}));
        let mut new = json!({"metadata": {"name": "d", "labels": {"app": "other"}}});
        Deployments.prepare_update(Target::Main, &mut new, &existing, "");
        assert_eq!(new["metadata"]["labels"]["app"], "other");
    }
}
