//! Kinds that only validate fields of their own: core/v1 Events and ControllerRevisions.

use serde_json::{Value, json};

use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::Kind;

/// core/v1 Events.
pub struct CoreEvents;

impl Kind for CoreEvents {
    /// An Event without `eventTime` (the old form every scenario uses) must name its involved
    /// object's namespace as its own; with none, only a cluster-wide or `default` Event passes
    /// (upstream `legacyValidateEvent`).
    fn validate(&self, event: &Value) -> Vec<FieldError> {
        if !event["eventTime"].is_null() {
            return vec![];
        }
        let own = event["metadata"]["namespace"].as_str().unwrap_or("");
        let involved = event["involvedObject"]["namespace"].as_str().unwrap_or("");
        let agrees = if involved.is_empty() { own.is_empty() || own == "default" } else { own == involved };
        if agrees {
            vec![]
        } else {
            vec![FieldError::invalid("involvedObject.namespace", json!(involved), "does not match event.namespace")]
        }
    }
}

/// apps/v1 ControllerRevisions.
pub struct ControllerRevisions;

impl Kind for ControllerRevisions {
    /// `data` is a JSON object (upstream `ValidateControllerRevisionCreate`).
    fn validate(&self, revision: &Value) -> Vec<FieldError> {
        match &revision["data"] {
            Value::Object(_) => vec![],
            Value::Null => vec![FieldError::required("data", "data is mandatory")],
            _ => vec![FieldError::required("data", "data must be a valid JSON object")],
        }
    }
}
