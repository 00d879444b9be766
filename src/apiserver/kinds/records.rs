//! Kinds that only validate fields of their own: Events (core/v1 and events.k8s.io/v1) and
//! ControllerRevisions.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::apiserver::go_time::Layout;
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::Kind;
use crate::apiserver::validation::qualified_name_problems;

/// Events, as one API version names their fields: the validation is upstream's
/// `legacyValidateEvent` (pkg/apis/core/validation/events.go), which every Event passes on
/// create and update, whichever version it is written at.
pub struct Events {
    /// The field of the object the Event is about (`involvedObject`, `regarding`).
    regarding: &'static str,
    /// The field of its reporting controller (`reportingComponent`, `reportingController`),
    /// as validation names it.
    controller: &'static str,
    /// The field of its message (`message`, `note`).
    message: &'static str,
    /// Whether a create is validated strictly, as through events.k8s.io/v1.
    strict: bool,
}

/// core/v1 Events.
pub const CORE_EVENTS: Events = Events { regarding: "involvedObject", controller: "reportingComponent", message: "message", strict: false };
/// events.k8s.io/v1 Events.
pub const EVENTS_V1: Events = Events { regarding: "regarding", controller: "reportingController", message: "note", strict: true };

/// The longest reporting instance, action and reason (`ReportingInstanceLengthLimit`, ...).
const SHORT_LIMIT: usize = 128;
/// The longest message (`NoteLengthLimit`).
const NOTE_LIMIT: usize = 1024;

impl Kind for Events {
    /// An Event without `eventTime` (the old form) must name its involved object's namespace as
    /// its own, or with none be cluster-wide or in `default`. One with `eventTime` (the new form)
    /// may name none only in `default` or `kube-system`, and must say which controller and
    /// instance reported what action for what reason. Errors name the internal type's fields.
    fn validate(&self, event: &Value) -> Vec<FieldError> {
        let text = |field: &str| event[field].as_str().unwrap_or("");
        let own = event["metadata"]["namespace"].as_str().unwrap_or("");
        let involved = event[self.regarding]["namespace"].as_str().unwrap_or("");
        let mismatch = || FieldError::invalid("involvedObject.namespace", json!(involved), "does not match event.namespace");
        let mut errors = Vec::new();
        if event["eventTime"].is_null() {
            let agrees = if involved.is_empty() { own.is_empty() || own == "default" } else { own == involved };
            if !agrees {
                errors.push(mismatch());
            }
            return errors;
        }
        if involved.is_empty() && own != "default" && own != "kube-system" {
            errors.push(mismatch());
        }
        let controller = text(self.controller);
        if controller.is_empty() {
            errors.push(FieldError::required(self.controller, ""));
        }
        errors.extend(qualified_name_problems(controller).into_iter().map(|p| FieldError::invalid(self.controller, json!(controller), p)));
        for field in ["reportingInstance", "action", "reason"] {
            if text(field).is_empty() {
                errors.push(FieldError::required(field, ""));
            }
            if text(field).len() > SHORT_LIMIT {
                errors.push(FieldError::invalid(field, json!(""), format!("can have at most {SHORT_LIMIT} characters")));
            }
        }
        if text(self.message).len() > NOTE_LIMIT {
            errors.push(FieldError::invalid("message", json!(""), format!("can have at most {NOTE_LIMIT} characters")));
        }
        errors
    }

    /// `ValidateEventCreate` (pkg/apis/core/validation/events.go): the legacy rules, then, only
    /// through events.k8s.io/v1, the metadata's and the new form's own. A core/v1 Event's
    /// strategy validates no metadata: the common check of `BeforeCreate` runs once it passed.
    fn validate_create(&self, event: &Value, meta: Vec<FieldError>) -> Vec<FieldError> {
        let legacy = self.validate(event);
        if !self.strict {
            return if legacy.is_empty() { meta } else { legacy };
        }
        [legacy, meta, new_form_errors(event)].concat()
    }

    /// `ValidateEventUpdate`: the legacy rules, then, only through events.k8s.io/v1, a changed
    /// series checked as on create and every field but the series immutable, each refusal
    /// showing the new value as Go writes the internal type's (upstream checks `reason` twice,
    /// and refuses it once). The metadata's errors come first here, after the legacy ones
    /// upstream.
    fn validate_update(&self, new: &Value, existing: &Value) -> Vec<FieldError> {
        let mut errors = self.validate(new);
        if !self.strict {
            return errors;
        }
        if new["series"] != existing["series"] {
            errors.extend(series_errors(&new["series"]));
        }
        for (path, field, shape) in IMMUTABLE {
            let value = shape.internal(&new[*field]);
            if value != shape.internal(&existing[*field]) {
                errors.push(FieldError::invalid(*path, value, "field is immutable"));
            }
        }
        errors
    }
}

/// How an events.k8s.io/v1 field is held in the internal type, whose value a refusal shows.
#[derive(Clone, Copy)]
enum Shape {
    /// A string, empty when absent.
    Text,
    /// A number, zero when absent.
    Count,
    /// A time to the second (`metav1.Time`), null when absent.
    Time,
    /// A time to the microsecond (`metav1.MicroTime`), null when absent.
    MicroTime,
    /// An `ObjectReference` struct: every field, named as in Go.
    Reference,
    /// A pointer to an `ObjectReference`: null when absent.
    OptionalReference,
    /// An `EventSource` struct.
    Source,
}

impl Shape {
    /// How a time of this shape is written: to the second or to the microsecond.
    fn layout(self) -> Layout {
        if matches!(self, Shape::MicroTime) { Layout::Rfc3339Micro } else { Layout::Rfc3339 }
    }

    /// `value` as the internal type holds it.
    fn internal(self, value: &Value) -> Value {
        let text = |field: &str| json!(value[field].as_str().unwrap_or(""));
        let reference = || {
            json!({"Kind": text("kind"), "Namespace": text("namespace"), "Name": text("name"), "UID": text("uid"),
                "APIVersion": text("apiVersion"), "ResourceVersion": text("resourceVersion"), "FieldPath": text("fieldPath")})
        };
        match self {
            Shape::Text => json!(value.as_str().unwrap_or("")),
            Shape::Count => json!(value.as_i64().unwrap_or(0)),
            Shape::Time | Shape::MicroTime => match value.as_str().and_then(|t| DateTime::parse_from_rfc3339(t).ok()) {
                Some(time) => json!(self.layout().format(time.with_timezone(&Utc))),
                None => Value::Null,
            },
            Shape::Reference => reference(),
            Shape::OptionalReference if value.is_null() => Value::Null,
            Shape::OptionalReference => reference(),
            Shape::Source => json!({"Component": text("component"), "Host": text("host")}),
        }
    }
}

/// The fields `ValidateEventUpdate` keeps, in its order (its second check of `reason` left
/// out): the internal type's path and the events.k8s.io/v1 field.
const IMMUTABLE: &[(&str, &str, Shape)] = &[
    ("involvedObject", "regarding", Shape::Reference),
    ("reason", "reason", Shape::Text),
    ("message", "note", Shape::Text),
    ("source", "deprecatedSource", Shape::Source),
    ("firstTimestamp", "deprecatedFirstTimestamp", Shape::Time),
    ("lastTimestamp", "deprecatedLastTimestamp", Shape::Time),
    ("count", "deprecatedCount", Shape::Count),
    ("type", "type", Shape::Text),
    ("eventTime", "eventTime", Shape::MicroTime),
    ("action", "action", Shape::Text),
    ("related", "related", Shape::OptionalReference),
    ("reportingController", "reportingController", Shape::Text),
    ("reportingInstance", "reportingInstance", Shape::Text),
];

/// What is wrong with a series (`validateV1EventSeries`).
fn series_errors(series: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if series.is_object() {
        if series["count"].as_i64().unwrap_or(0) < 2 {
            errors.push(FieldError::invalid("series.count", json!(""), "should be at least 2"));
        }
        if series["lastObservedTime"].is_null() {
            errors.push(FieldError::required("series.lastObservedTime", ""));
        }
    }
    errors
}

/// What a create through events.k8s.io/v1 may not leave out or set (its `series`, `eventTime`
/// and `type`, and the old form's fields), named by the internal type's fields.
fn new_form_errors(event: &Value) -> Vec<FieldError> {
    let mut errors = series_errors(&event["series"]);
    if event["eventTime"].is_null() {
        errors.push(FieldError::required("eventTime", ""));
    }
    let kind = event["type"].as_str().unwrap_or("");
    if kind != "Normal" && kind != "Warning" {
        errors.push(FieldError::invalid("type", json!(""), format!("has invalid value: {kind}")));
    }
    let source = &event["deprecatedSource"];
    let set = [
        ("firstTimestamp", !event["deprecatedFirstTimestamp"].is_null()),
        ("lastTimestamp", !event["deprecatedLastTimestamp"].is_null()),
        ("count", event["deprecatedCount"].as_i64().unwrap_or(0) != 0),
        ("source", ["component", "host"].iter().any(|f| !source[f].as_str().unwrap_or("").is_empty())),
    ];
    errors.extend(set.into_iter().filter(|(_, set)| *set).map(|(field, _)| FieldError::invalid(field, json!(""), "needs to be unset")));
    errors
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_of_the_new_form_says_who_reported_what() {
        let event = json!({"metadata": {"name": "e", "namespace": "ns"}, "eventTime": "2024-01-01T00:00:00.000000Z",
            "regarding": {"kind": "Pod", "name": "p"}, "reportingController": "fuzz", "reportingInstance": "i", "action": "A", "reason": "R"});
        let errors = EVENTS_V1.validate(&event);
        assert_eq!(errors, vec![FieldError::invalid("involvedObject.namespace", json!(""), "does not match event.namespace")]);
        let mut core = event.clone();
        core["involvedObject"] = json!({"namespace": "ns"});
        core["reportingController"] = Value::Null;
        let errors = CORE_EVENTS.validate(&core);
        assert_eq!(errors[0], FieldError::required("reportingComponent", ""), "{errors:?}");
        assert_eq!(errors.len(), 3, "an empty name is also not a qualified name, twice: {errors:?}");
        let old_form = json!({"metadata": {"namespace": "ns"}, "involvedObject": {"namespace": "ns"}});
        assert!(CORE_EVENTS.validate(&old_form).is_empty());
    }
}
