//! Label and field selectors, parsed from the query string as upstream `labels.Parse` and
//! `fields.ParseSelector` read them, and matched against stored objects.

use std::collections::BTreeMap;

use serde_json::Value;

mod label_syntax;

use label_syntax::{Operator, Requirement};

use crate::apiserver::catalogue::ResourceInfo;
use crate::apiserver::go_quote;
use crate::apiserver::status::{ApiError, ApiResult};

/// One label requirement.
#[derive(Clone, Debug, PartialEq)]
enum LabelReq {
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Greater(String, i64),
    Less(String, i64),
}

/// A parsed label selector; an empty one matches everything.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelSelector {
    reqs: Vec<LabelReq>,
}

impl LabelSelector {
    /// Whether the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// Parses a selector such as `app=web,tier!=db,env in (a,b),!legacy` as `labels.Parse`
    /// does; what does not parse is a 400 in its words.
    pub fn parse(s: &str) -> ApiResult<Self> {
        let requirements = label_syntax::parse(s).map_err(ApiError::bad_request)?;
        let reqs = requirements
            .into_iter()
            .map(|Requirement { key, operator, values }| {
                // The parser has checked that `>` and `<` have one integer.
                let number = || values.first().and_then(|v| v.parse().ok()).unwrap_or_default();
                match operator {
                    Operator::Exists => LabelReq::Exists(key),
                    Operator::DoesNotExist => LabelReq::NotExists(key),
                    Operator::In => LabelReq::In(key, values),
                    Operator::NotIn => LabelReq::NotIn(key, values),
                    Operator::Greater => LabelReq::Greater(key, number()),
                    Operator::Less => LabelReq::Less(key, number()),
                }
            })
            .collect();
        Ok(Self { reqs })
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.reqs.iter().all(|r| match r {
            LabelReq::Exists(k) => labels.contains_key(k),
            LabelReq::NotExists(k) => !labels.contains_key(k),
            LabelReq::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            LabelReq::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            LabelReq::Greater(k, n) => labels.get(k).and_then(|v| v.parse::<i64>().ok()).is_some_and(|v| v > *n),
            LabelReq::Less(k, n) => labels.get(k).and_then(|v| v.parse::<i64>().ok()).is_some_and(|v| v < *n),
        })
    }

    /// Whether the object's `metadata.labels` match.
    pub fn matches_object(&self, object: &Value) -> bool {
        if self.reqs.is_empty() {
            return true;
        }
        let labels: BTreeMap<String, String> = object["metadata"]["labels"]
            .as_object()
            .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
            .unwrap_or_default();
        self.matches(&labels)
    }
}

/// One field requirement: `field=value` or `field!=value`.
#[derive(Clone, Debug, PartialEq)]
struct FieldReq {
    field: String,
    value: String,
    equal: bool,
}

/// A parsed field selector; an empty one matches everything.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldSelector {
    reqs: Vec<FieldReq>,
}

/// Fields every resource supports.
const COMMON_FIELDS: &[&str] = &["metadata.name", "metadata.namespace"];

/// Extra selectable fields of built-in resources: `(group, plural, fields)`.
const EXTRA_FIELDS: &[(&str, &str, &[&str])] = &[
    (
        "",
        "events",
        &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
    ),
    (
        "",
        "pods",
        &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
    ),
    ("", "namespaces", &["status.phase"]),
    ("", "secrets", &["type"]),
    ("", "nodes", &["spec.unschedulable"]),
    ("", "replicationcontrollers", &["status.replicas"]),
    ("apps", "replicasets", &["status.replicas"]),
    ("batch", "jobs", &["status.successful"]),
];

/// Field labels of a served group that name a field of the stored kind's set: `(group, plural,
/// [(label, stored label)])`. events.k8s.io/v1 selects on its own names, and only on these
/// (`pkg/apis/events/v1/conversion.go`, `AddFieldLabelConversionsForEvent`).
const LABEL_CONVERSIONS: &[(&str, &str, &[(&str, &str)])] = &[(
    "events.k8s.io",
    "events",
    &[
        ("reason", "reason"),
        ("regarding.kind", "involvedObject.kind"),
        ("regarding.namespace", "involvedObject.namespace"),
        ("regarding.name", "involvedObject.name"),
        ("regarding.uid", "involvedObject.uid"),
        ("regarding.apiVersion", "involvedObject.apiVersion"),
        ("regarding.resourceVersion", "involvedObject.resourceVersion"),
        ("regarding.fieldPath", "involvedObject.fieldPath"),
        ("reportingController", "reportingComponent"),
        ("type", "type"),
        ("metadata.namespace", "metadata.namespace"),
        ("metadata.name", "metadata.name"),
    ],
)];

/// The stored field a label of `resource` selects on, or why it cannot be selected on.
fn stored_label<'a>(field: &'a str, resource: &ResourceInfo) -> ApiResult<&'a str> {
    if let Some((_, _, labels)) = LABEL_CONVERSIONS.iter().find(|(g, r, _)| (*g, *r) == (resource.group.as_str(), resource.plural.as_str()))
    {
        return labels
            .iter()
            .find(|(label, _)| *label == field)
            .map(|(_, stored)| *stored)
            .ok_or_else(|| ApiError::bad_request(unknown_field_message(field, resource, false)));
    }
    let extra: &[&str] = EXTRA_FIELDS
        .iter()
        .find(|(g, r, _)| (*g, *r) == (resource.storage.0.as_str(), resource.storage.1.as_str()))
        .map(|(_, _, f)| *f)
        .unwrap_or(&[]);
    if COMMON_FIELDS.contains(&field) || extra.contains(&field) {
        Ok(field)
    } else {
        Err(ApiError::bad_request(unknown_field_message(field, resource, extra.is_empty() && !resource.custom)))
    }
}

/// Unescapes `\,`, `\=` and `\\` in a field selector value.
fn unescape(v: &str) -> String {
    let mut out = String::new();
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits on commas not preceded by a backslash.
fn split_unescaped(s: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut escaped = false;
    for c in s.chars() {
        if escaped {
            parts.last_mut().expect("non-empty").push('\\');
            parts.last_mut().expect("non-empty").push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ',' {
            parts.push(String::new());
        } else {
            parts.last_mut().expect("non-empty").push(c);
        }
    }
    parts
}

/// Why a field cannot be selected on. A built-in kind with no fields of its own has no
/// conversion function for them, and upstream's default one answers differently
/// (apimachinery `DefaultMetaV1FieldSelectorConversion`); a Job's names its kind
/// (kubernetes pkg/apis/batch/v1/conversion.go).
fn unknown_field_message(field: &str, resource: &ResourceInfo, default_conversion: bool) -> String {
    if default_conversion {
        format!("\"{field}\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"")
    } else if (resource.group.as_str(), resource.kind.as_str()) == ("batch", "Job") {
        format!("field label {} not supported for Job", go_quote::quote(field))
    } else {
        format!("field label not supported: {field}")
    }
}

impl FieldSelector {
    /// Whether the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// Parses a selector such as `metadata.name=x,reason!=Killing` and checks that every field is
    /// selectable on `resource` (else 400 `field label not supported`).
    pub fn parse(s: &str, resource: &ResourceInfo) -> ApiResult<Self> {
        let mut reqs = Self::syntax(s)?;
        for req in &mut reqs {
            req.field = stored_label(&req.field, resource)?.to_string();
        }
        Ok(Self { reqs })
    }

    /// Checks `s` as decoding a request's `fieldSelector` parameter does (`fields.ParseSelector`),
    /// before its fields are checked against a resource.
    pub fn check_syntax(s: &str) -> ApiResult<()> {
        Self::syntax(s).map(drop)
    }

    /// The requirements of `s` as written.
    fn syntax(s: &str) -> ApiResult<Vec<FieldReq>> {
        let mut reqs = Vec::new();
        for part in split_unescaped(s) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (field, value, equal) = if let Some((f, v)) = part.split_once("!=") {
                (f, v, false)
            } else if let Some((f, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                (f, v, true)
            } else {
                return Err(ApiError::bad_request(format!("invalid selector: '{s}'; can't understand '{part}'")));
            };
            let (field, value) = (field.trim().to_string(), unescape(value.trim()));
            // A term of no field and no value selects everything (`hasTerm.Transform`,
            // apimachinery pkg/fields/selector.go).
            if !(field.is_empty() && value.is_empty()) {
                reqs.push(FieldReq { field, value, equal });
            }
        }
        Ok(reqs)
    }

    /// Whether the stored object satisfies every requirement.
    pub fn matches(&self, object: &Value) -> bool {
        self.reqs.iter().all(|r| (field_value(object, &r.field) == r.value) == r.equal)
    }
}

/// Selectable fields that are not the JSON value at their own path when it is absent or named
/// otherwise: `(field, path, value when absent)`, as upstream's registries build their field
/// sets (`pkg/registry/core/node/strategy.go` `NodeToSelectableFields`: `fmt.Sprint` of a bool
/// that defaults to false; `pkg/registry/batch/job/strategy.go`: `status.successful` is
/// `status.succeeded`).
const FIELD_SOURCES: &[(&str, &str, &str)] = &[
    ("source", "source.component", ""),
    ("spec.unschedulable", "spec.unschedulable", "false"),
    ("spec.hostNetwork", "spec.hostNetwork", "false"),
    ("status.replicas", "status.replicas", "0"),
    ("status.successful", "status.succeeded", "0"),
];

/// The value a field selector compares, as upstream's field set for the object holds it.
fn field_value(object: &Value, field: &str) -> String {
    let (path, absent) = FIELD_SOURCES.iter().find(|(f, _, _)| *f == field).map_or((field, ""), |(_, p, a)| (*p, *a));
    let value = match json_at(object, path) {
        Value::String(s) => s.clone(),
        Value::Null => absent.to_string(),
        other => other.to_string(),
    };
    // An event's `source` is its reporting controller when it has no source component
    // (`ToSelectableFields` in `pkg/registry/core/event/strategy.go`).
    if field == "source" && value.is_empty() { field_value(object, "reportingComponent") } else { value }
}

/// The JSON value at a dotted path (null when absent).
fn json_at<'a>(object: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(object, |cur, seg| &cur[seg])
}

/// Which objects a list or watch selects.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// `labelSelector`.
    pub labels: LabelSelector,
    /// `fieldSelector`.
    pub fields: FieldSelector,
}

impl Selection {
    /// Whether every object is selected.
    pub fn is_everything(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }

    /// Whether a stored object is selected.
    pub fn matches(&self, stored: &Value) -> bool {
        self.labels.matches_object(stored) && self.fields.matches(stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::catalogue::Catalogue;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn label_selector_operators() {
        let l = labels(&[("app", "web"), ("tier", "front"), ("n", "5")]);
        for (sel, want) in [
            ("", true),
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app in (web,db)", true),
            ("app notin (web)", false),
            ("tier", true),
            ("!tier", false),
            ("missing!=x", true),
            ("n>4", true),
            ("n<5", false),
            ("app=web,tier in (front, back),!legacy", true),
        ] {
            assert_eq!(LabelSelector::parse(sel).unwrap().matches(&l), want, "{sel}");
        }
        assert!(LabelSelector::parse("app in web").is_err());
    }

    #[test]
    fn absent_fields_select_as_upstream_s_field_sets_hold_them() {
        let reg = Catalogue::new();
        let select = |plural: &str, group: &str, version: &str, selector: &str, object: Value| {
            FieldSelector::parse(selector, &reg.lookup(group, version, plural).unwrap()).unwrap().matches(&object)
        };
        // The e2e framework finds schedulable nodes with `spec.unschedulable=false`.
        assert!(select("nodes", "", "v1", "spec.unschedulable=false", json!({"metadata": {"name": "n"}, "spec": {}})));
        assert!(!select(
            "nodes",
            "",
            "v1",
            "spec.unschedulable=false",
            json!({"metadata": {"name": "n"}, "spec": {"unschedulable": true}})
        ));
        assert!(select("replicationcontrollers", "", "v1", "status.replicas=0", json!({"metadata": {"name": "r"}})));
        assert!(select("jobs", "batch", "v1", "status.successful=2", json!({"metadata": {"name": "j"}, "status": {"succeeded": 2}})));
        assert!(select("pods", "", "v1", "spec.hostNetwork=false", json!({"metadata": {"name": "p"}, "spec": {}})));
        let event = json!({"metadata": {"name": "e"}, "reportingComponent": "kubelet"});
        assert!(select("events", "", "v1", "source=kubelet,reportingComponent=kubelet", event));
    }

    #[test]
    fn events_k8s_io_selects_on_its_own_labels_over_the_stored_core_fields() {
        let reg = Catalogue::new();
        let events = reg.lookup("events.k8s.io", "v1", "events").unwrap();
        // An events.k8s.io Event is stored in its core form (`reportingComponent`, no `source`).
        let stored = json!({"metadata": {"name": "e"}, "reportingComponent": "test-controller", "involvedObject": {"kind": "Pod"}});
        let by = |s: &str| FieldSelector::parse(s, &events).map(|sel| sel.matches(&stored));
        assert!(by("reportingController=test-controller,regarding.kind=Pod").unwrap());
        assert!(!by("reportingController=other").unwrap());
        for core_only in ["source", "reportingComponent", "involvedObject.kind"] {
            let err = by(&format!("{core_only}=x")).unwrap_err();
            assert_eq!((err.code, err.message), (400, format!("field label not supported: {core_only}")));
        }
        let core = reg.lookup("", "v1", "events").unwrap();
        assert!(FieldSelector::parse("source=test-controller", &core).unwrap().matches(&stored));
    }

    #[test]
    fn field_selectors_for_events() {
        let reg = Catalogue::new();
        let events = reg.lookup("", "v1", "events").unwrap();
        let ev = json!({"metadata": {"name": "e"}, "reason": "OwnerRefInvalidNamespace", "type": "Warning",
            "involvedObject": {"kind": "Pod", "name": "p"}, "source": {"component": "garbage-collector-controller"}});
        let s = FieldSelector::parse("reason=OwnerRefInvalidNamespace,involvedObject.name=p", &events).unwrap();
        assert!(s.matches(&ev));
        assert!(FieldSelector::parse("source=garbage-collector-controller", &events).unwrap().matches(&ev));
        assert!(!FieldSelector::parse("type!=Warning", &events).unwrap().matches(&ev));
        let pods = reg.lookup("", "v1", "pods").unwrap();
        let err = FieldSelector::parse("reason=x", &pods).unwrap_err();
        assert_eq!((err.code, err.message.as_str()), (400, "field label not supported: reason"));
    }
}
