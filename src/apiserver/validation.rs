//! Validation of object metadata as apimachinery does it (`ValidateObjectMeta`): names, labels,
//! annotations, finalizers and ownerReferences (`ValidateOwnerReferences`), plus the update rules
//! for metadata that an update may not change (`ValidateObjectMetaUpdate`).

use serde_json::{Value, json};

use crate::apiserver::catalogue::{NameRule, ResourceInfo};
use crate::apiserver::status::FieldError;
use crate::metadata::{FINALIZER_FOREGROUND, FINALIZER_ORPHAN};

const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const QUALIFIED_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_KEY_MSG: &str = "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const DNS1035_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, of any length.
fn is_label_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-') && b[0] != b'-' && b[b.len() - 1] != b'-'
}

fn is_dns_label(s: &str) -> bool {
    s.len() <= 63 && is_label_part(s)
}

/// Whether `s` is an RFC 1123 subdomain: at most 253 characters, its dot-separated parts of any
/// length (upstream's `IsDNS1123Subdomain` checks the whole name's length alone).
pub fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_label_part)
}

/// What is wrong with `s` as a DNS label, in upstream `IsDNS1123Label`'s order and words.
pub fn dns_label_problems(s: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if s.len() > 63 {
        problems.push("must be no more than 63 characters".to_string());
    }
    if !is_label_part(s) {
        problems.push(if s.split('.').all(is_label_part) { "must not contain dots".to_string() } else { LABEL_MSG.to_string() });
    }
    problems
}

/// What is wrong with `s` as a DNS-1035 label, in upstream `IsDNS1035Label`'s order and words.
pub fn dns1035_label_problems(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let matches = is_label_part(s) && b[0].is_ascii_lowercase();
    let mut problems = Vec::new();
    if s.len() > 63 {
        problems.push("must be no more than 63 characters".to_string());
    }
    if !matches {
        problems.push(DNS1035_MSG.to_string());
    }
    problems
}

/// What is wrong with `s` as an RFC 1123 subdomain, in upstream `IsDNS1123Subdomain`'s order
/// and words.
pub fn subdomain_problems(s: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if s.len() > 253 {
        problems.push("must be no more than 253 characters".to_string());
    }
    if !s.split('.').all(is_label_part) {
        problems.push(SUBDOMAIN_MSG.to_string());
    }
    problems
}

/// What is wrong with `s` as a label value, in upstream `IsValidLabelValue`'s order and words.
pub fn label_value_problems(s: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if s.len() > 63 {
        problems.push("must be no more than 63 characters".to_string());
    }
    if !s.is_empty() && !is_qualified_name_part(s) {
        problems.push(LABEL_VALUE_MSG.to_string());
    }
    problems
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

/// Problems with a qualified name (`[prefix/]name`), in upstream `IsLabelKey`'s order and words.
pub fn qualified_name_problems(s: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let name = match s.split('/').collect::<Vec<_>>()[..] {
        [name] => name,
        [prefix, name] => {
            if prefix.is_empty() {
                problems.push("prefix part must be non-empty".to_string());
            } else if !is_dns_subdomain(prefix) {
                problems.push(format!("prefix part {SUBDOMAIN_MSG}"));
            }
            name
        }
        _ => return vec![LABEL_KEY_MSG.to_string()],
    };
    if name.is_empty() {
        problems.push("name part must be non-empty".into());
    } else if name.len() > 63 {
        problems.push("name part must be no more than 63 characters".into());
    }
    if !is_qualified_name_part(name) {
        problems.push(QUALIFIED_MSG.into());
    }
    problems
}

/// Validates an object name against its resource's rule.
pub fn validate_name(name: &str, rule: NameRule, field: &str) -> Vec<FieldError> {
    name_problems(name, rule, false).into_iter().map(|m| FieldError::invalid(field, json!(name), m)).collect()
}

/// Validates `metadata.generateName` as a prefix of names of `rule` (apimachinery's name
/// functions called with `prefix`, k8s.io/apimachinery pkg/api/validation/objectmeta.go).
pub fn validate_generate_name(prefix: &str, rule: NameRule) -> Vec<FieldError> {
    name_problems(prefix, rule, true).into_iter().map(|m| FieldError::invalid("metadata.generateName", json!(prefix), m)).collect()
}

/// The errors of `metadata.generateName` that a kind's own update validation finds when it
/// validates the whole new object again, reading the prefix as its names' (the generic update
/// rules read it as a path segment's only, `validateCommonFields`, k8s.io/apiserver
/// pkg/registry/rest/update.go). The kinds whose `Validate*Update` calls their create
/// validation (kubernetes pkg/apis/*/validation/validation.go): `status_only` is an update of a
/// subresource whose strategy validates less, which only nodes' and certificate signing
/// requests' do not.
pub fn generate_name_revalidated(resource: &ResourceInfo, new: &Value, status_only: bool) -> Vec<FieldError> {
    let whole = match (resource.group.as_str(), resource.plural.as_str()) {
        ("", "nodes") | ("certificates.k8s.io", _) => true,
        _ if status_only => false,
        ("", "pods" | "configmaps" | "secrets" | "serviceaccounts" | "endpoints" | "persistentvolumes" | "persistentvolumeclaims")
        | ("apps", "statefulsets" | "controllerrevisions")
        | ("discovery.k8s.io", "endpointslices")
        | ("rbac.authorization.k8s.io", _) => true,
        _ => false,
    };
    match new["metadata"]["generateName"].as_str() {
        Some(prefix) if whole && !prefix.is_empty() => validate_generate_name(prefix, resource.name_rule),
        _ => Vec::new(),
    }
}

/// What `rule` says of `name`, or of a name's prefix: a DNS name's prefix may end in a dash,
/// masked as apimachinery's `maskTrailingDash` masks it (its last two bytes become `a`), and a
/// path segment's may be `.` or `..` (k8s.io/apimachinery pkg/api/validate/content/path.go).
fn name_problems(name: &str, rule: NameRule, prefix: bool) -> Vec<String> {
    let masked = match name.as_bytes() {
        [kept @ .., _, b'-'] if prefix => format!("{}a", String::from_utf8_lossy(kept)),
        _ => name.to_string(),
    };
    match rule {
        NameRule::Subdomain if !is_dns_subdomain(&masked) => vec![SUBDOMAIN_MSG.to_string()],
        NameRule::Label if !is_dns_label(&masked) => vec![LABEL_MSG.to_string()],
        NameRule::PathSegment if !prefix && (name == "." || name == "..") => vec![format!("may not be '{name}'")],
        NameRule::PathSegment => ["/", "%"].iter().filter(|c| name.contains(**c)).map(|c| format!("may not contain '{c}'")).collect(),
        _ => Vec::new(),
    }
}

/// Validates labels and annotations.
fn validate_labels_and_annotations(meta: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(labels) = meta["labels"].as_object() {
        for (k, v) in labels {
            for p in qualified_name_problems(k) {
                errs.push(FieldError::invalid("metadata.labels", json!(k), p));
            }
            match v.as_str() {
                Some(v) => errs.extend(label_value_problems(v).into_iter().map(|p| FieldError::invalid("metadata.labels", json!(v), p))),
                None => errs.push(FieldError::invalid("metadata.labels", v.clone(), LABEL_VALUE_MSG)),
            }
        }
    }
    if let Some(annotations) = meta["annotations"].as_object() {
        let mut total = 0;
        for (k, v) in annotations {
            for p in qualified_name_problems(&k.to_lowercase()) {
                errs.push(FieldError::invalid("metadata.annotations", json!(k), p));
            }
            total += k.len() + v.as_str().map_or(0, str::len);
        }
        if total > 256 * 1024 {
            errs.push(FieldError::new(
                crate::apiserver::status::FieldErrorKind::TooLong,
                "metadata.annotations",
                None,
                "must have at most 262144 bytes",
            ));
        }
    }
    errs
}

/// Validates `metadata.finalizers`: qualified names, and not both GC finalizers (apimachinery
/// `ValidateObjectMeta`).
pub fn validate_finalizers(finalizers: &[String]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for f in finalizers {
        for p in qualified_name_problems(f) {
            errs.push(FieldError::invalid("metadata.finalizers", json!(f), p));
        }
    }
    if finalizers.iter().any(|f| f == FINALIZER_ORPHAN) && finalizers.iter().any(|f| f == FINALIZER_FOREGROUND) {
        errs.push(FieldError::invalid(
            "metadata.finalizers",
            json!(finalizers),
            format!("finalizer {FINALIZER_ORPHAN} and {FINALIZER_FOREGROUND} cannot be both set"),
        ));
    }
    errs
}

/// The finalizers the API server's own kinds may carry without a `/` (upstream
/// `IsStandardFinalizerName`).
const STANDARD_FINALIZERS: [&str; 3] = ["kubernetes", FINALIZER_ORPHAN, FINALIZER_FOREGROUND];

/// The rule kube-apiserver's own kinds add to [`validate_finalizers`] (upstream core
/// `validateKubeFinalizerName`): a name without a `/` must be a standard one.
fn kube_finalizer_name_problems(meta: &Value) -> Vec<FieldError> {
    string_list(meta, "finalizers")
        .into_iter()
        .enumerate()
        .filter(|(_, f)| !f.contains('/') && !STANDARD_FINALIZERS.contains(&f.as_str()))
        .map(|(i, f)| {
            FieldError::invalid(
                format!("metadata.finalizers[{i}]"),
                json!(f),
                "name is neither a standard finalizer name nor is it fully qualified",
            )
        })
        .collect()
}

/// Splits an apiVersion into group and version; `None` when it is not of the form `v` or `g/v`.
pub fn split_api_version(api_version: &str) -> Option<(&str, &str)> {
    match api_version.split_once('/') {
        None => Some(("", api_version)),
        Some((g, v)) if !v.contains('/') => Some((g, v)),
        _ => None,
    }
}

/// Validates `metadata.ownerReferences` as apimachinery `ValidateOwnerReferences` does.
pub fn validate_owner_references(refs: &Value) -> Vec<FieldError> {
    let field = "metadata.ownerReferences";
    let mut errs = Vec::new();
    let Some(list) = refs.as_array() else {
        if !refs.is_null() {
            errs.push(FieldError::invalid(field, refs.clone(), "must be a list"));
        }
        return errs;
    };
    let mut first_controller: Option<String> = None;
    for (i, r) in list.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
        let (api_version, kind, name, uid) = (s("apiVersion"), s("kind"), s("name"), s("uid"));
        let parsed = split_api_version(&api_version);
        let (group, version) = parsed.unwrap_or(("", ""));
        if api_version.is_empty() {
            errs.push(FieldError::required(format!("{at}.apiVersion"), "must not be empty"));
        } else if parsed.is_none() || version.is_empty() {
            errs.push(FieldError::invalid(format!("{at}.apiVersion"), json!(api_version), "must be <group>/<version> or <version>"));
        }
        for (key, value) in [("kind", &kind), ("name", &name), ("uid", &uid)] {
            if value.is_empty() {
                errs.push(FieldError::required(format!("{at}.{key}"), "must not be empty"));
            }
        }
        if group.is_empty() && version == "v1" && kind == "Event" {
            errs.push(FieldError::invalid(at, r.clone(), "/v1, Kind=Event is disallowed from being an owner"));
        }
        if r["controller"].as_bool() == Some(true) {
            let current = format!("{kind}/{name}");
            match &first_controller {
                Some(first) => errs.push(FieldError::invalid(
                    field,
                    refs.clone(),
                    format!("Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"),
                )),
                None => first_controller = Some(current),
            }
        }
    }
    errs
}

/// Drops what Go's `omitempty` would not store: null fields and empty finalizer, ownerReference,
/// label and annotation collections.
pub fn normalize_metadata(meta: &mut Value) {
    if let Some(m) = meta.as_object_mut() {
        m.retain(|_, v| !v.is_null());
        for key in ["finalizers", "ownerReferences", "labels", "annotations"] {
            let empty = match m.get(key) {
                Some(Value::Array(a)) => a.is_empty(),
                Some(Value::Object(o)) => o.is_empty(),
                _ => false,
            };
            if empty {
                m.remove(key);
            }
        }
    }
}

/// The string list at `meta[key]`.
pub fn string_list(meta: &Value, key: &str) -> Vec<String> {
    meta[key].as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect()).unwrap_or_default()
}

/// A rule of metadata validation, so that an error says which rule found it. A write's rules
/// run in the order listed up to core's finalizer names; an update's own rules follow in the
/// order of apimachinery's `ValidateObjectMetaAccessorUpdate` (see [`MetaValidation::of`]),
/// and core's finalizer names then come last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MetaRule {
    /// The name's format.
    Name,
    /// A namespaced object names its namespace (none when created under an empty namespace
    /// in the path).
    Namespace,
    /// Label and annotation keys and values.
    LabelsAndAnnotations,
    /// Owner references (apimachinery `ValidateOwnerReferences`).
    OwnerReferences,
    /// Finalizer names, and not both GC finalizers (apimachinery `ValidateObjectMeta`).
    Finalizers,
    /// Core's rule for the finalizer names of kube-apiserver's own kinds.
    KubeFinalizerNames,
    /// An update may not change the uid.
    ImmutableUid,
    /// An update may not set or change deletionTimestamp and deletionGracePeriodSeconds
    /// (apimachinery `ValidateObjectMetaUpdate`).
    ImmutableDeletion,
    /// An update may not add finalizers to an object being deleted (apimachinery
    /// `ValidateObjectMetaUpdate`).
    NoNewFinalizersWhileDeleting,
}

/// Metadata validation of a write: the field errors each rule found, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct MetaValidation<'a> {
    /// The metadata written.
    pub new: &'a Value,
    /// The stored metadata, when an update replaces it.
    pub old: Option<&'a Value>,
    /// The errors, each with the rule that found it.
    pub errors: Vec<(MetaRule, FieldError)>,
}

impl<'a> MetaValidation<'a> {
    /// Validates the metadata `new` of an object about to be written, and for an update of the
    /// stored `old` (after `rest.BeforeUpdate` has carried over its deletion timestamp and grace
    /// period) the rules of apimachinery's `ValidateObjectMetaUpdate`.
    pub fn of(new: &'a Value, old: Option<&'a Value>, resource: &ResourceInfo) -> Self {
        // An update's generic rules read names as path segments (`validateCommonFields`,
        // k8s.io/apiserver pkg/registry/rest/update.go); a kind may read them again as its own.
        let generate_name_rule = if old.is_some() { NameRule::PathSegment } else { resource.name_rule };
        let mut errors = validate_object_meta(new, resource, generate_name_rule);
        if let Some(old) = old {
            // `rest.BeforeUpdate` checks the generic rules first, the new metadata's and then the
            // update's (`validateCommonFields`, k8s.io/apiserver pkg/registry/rest/update.go); the
            // kind's strategy comes after, and with it core's rule for finalizer names.
            let (kube, generic): (Vec<_>, Vec<_>) = errors.into_iter().partition(|(rule, _)| *rule == MetaRule::KubeFinalizerNames);
            errors = generic;
            if served_by_apiextensions(resource) {
                // apiextensions-apiserver keeps every error of the update rules, which run
                // twice, each time with the labels, annotations and owner references again:
                // in `validateCommonFields` and in the strategy's `ValidateObjectMetaUpdate`
                // (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go
                // `validateCustomResourceDefinitionUpdate`, pkg/registry/customresource/
                // validator.go `ValidateUpdate`). kube-apiserver answers each error once.
                let update = validate_object_meta_update(new, old, true);
                errors.extend(update.clone());
                errors.extend(update);
            } else {
                errors.extend(validate_object_meta_update(new, old, false));
            }
            errors.extend(kube);
        }
        Self { new, old, errors }
    }

    /// The errors found.
    pub fn into_errors(self) -> Vec<FieldError> {
        self.errors.into_iter().map(|(_, e)| e).collect()
    }
}

/// Each rule's errors, tagged with the rule.
fn tagged<const N: usize>(found: [(MetaRule, Vec<FieldError>); N]) -> Vec<(MetaRule, FieldError)> {
    found.into_iter().flat_map(|(rule, errs)| errs.into_iter().map(move |e| (rule, e))).collect()
}

/// apimachinery `ValidateObjectMetaAccessor` with core's rules where they apply; the
/// `generateName` prefix is read by `generate_name_rule`.
fn validate_object_meta(meta: &Value, resource: &ResourceInfo, generate_name_rule: NameRule) -> Vec<(MetaRule, FieldError)> {
    let mut name = match meta["generateName"].as_str().filter(|g| !g.is_empty()) {
        Some(prefix) => validate_generate_name(prefix, generate_name_rule),
        None => Vec::new(),
    };
    name.extend(match meta["name"].as_str() {
        Some(name) if !name.is_empty() => validate_name(name, resource.name_rule, "metadata.name"),
        _ => vec![FieldError::required("metadata.name", "name or generateName is required")],
    });
    let unnamed = resource.namespaced && meta["namespace"].as_str().unwrap_or("").is_empty();
    let namespace = if unnamed { vec![FieldError::required("metadata.namespace", "")] } else { vec![] };
    // Only kube-apiserver's own kinds validate with core's ObjectMeta rules, and not all of
    // them: Leases, RuntimeClasses and admission registration call apimachinery's alone
    // (kubernetes pkg/apis/{coordination,node,admissionregistration}/validation), as
    // CustomResourceDefinitions (apiextensions-apiserver) and custom resources do. Events of
    // the core group are validated as they always were, without core's rules for their
    // metadata (`ValidateEventCreate`, `ValidateEventUpdate`, kubernetes
    // pkg/apis/core/validation/events.go); events.k8s.io's are not.
    let apimachinery_rules = ["coordination.k8s.io", "node.k8s.io", "admissionregistration.k8s.io"];
    let legacy_event = resource.group.is_empty() && resource.kind == "Event";
    let core_rules = !served_by_apiextensions(resource) && !apimachinery_rules.contains(&resource.group.as_str()) && !legacy_event;
    // apimachinery `ValidateObjectMetaAccessor`'s order: owner references before finalizers.
    tagged([
        (MetaRule::Name, name),
        (MetaRule::Namespace, namespace),
        (MetaRule::LabelsAndAnnotations, validate_labels_and_annotations(meta)),
        (MetaRule::OwnerReferences, validate_owner_references(&meta["ownerReferences"])),
        (MetaRule::Finalizers, validate_finalizers(&string_list(meta, "finalizers"))),
        (MetaRule::KubeFinalizerNames, if core_rules { kube_finalizer_name_problems(meta) } else { vec![] }),
    ])
}

/// Custom resources and their definitions, which apiextensions-apiserver serves.
fn served_by_apiextensions(resource: &ResourceInfo) -> bool {
    resource.custom || resource.group == "apiextensions.k8s.io"
}

/// apimachinery `ValidateObjectMetaAccessorUpdate`, in its order; `whole` adds the rules it
/// shares with the create rules (labels, annotations, owner references), which
/// kube-apiserver's answers do not repeat.
fn validate_object_meta_update(new: &Value, old: &Value, whole: bool) -> Vec<(MetaRule, FieldError)> {
    let immutable = |keys: &[&str]| -> Vec<FieldError> {
        keys.iter()
            .filter(|key| new[**key] != old[**key])
            .map(|key| FieldError::invalid(format!("metadata.{key}"), new[*key].clone(), "field is immutable"))
            .collect()
    };
    let deleting = !old["deletionTimestamp"].is_null();
    let shared = |found: Vec<FieldError>| if whole { found } else { vec![] };
    tagged([
        (MetaRule::NoNewFinalizersWhileDeleting, if deleting { new_finalizers_refused(new, old) } else { vec![] }),
        (MetaRule::ImmutableUid, immutable(&["uid"])),
        (MetaRule::ImmutableDeletion, immutable(&["deletionTimestamp", "deletionGracePeriodSeconds"])),
        (MetaRule::LabelsAndAnnotations, shared(validate_labels_and_annotations(new))),
        (MetaRule::OwnerReferences, shared(validate_owner_references(&new["ownerReferences"]))),
    ])
}

/// The error for the finalizers `new` adds to `old`, if it adds any, in the words upstream uses
/// when `old` is being deleted.
pub fn new_finalizers_refused(new: &Value, old: &Value) -> Vec<FieldError> {
    let old_f = string_list(old, "finalizers");
    let mut added: Vec<String> = string_list(new, "finalizers").into_iter().filter(|f| !old_f.contains(f)).collect();
    if added.is_empty() {
        return vec![];
    }
    // Upstream prints the sorted set with Go's `%#v`: []string{"a", "b"}.
    added.sort();
    let listed = added.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>().join(", ");
    vec![FieldError::forbidden(
        "metadata.finalizers",
        format!("no new finalizers can be added if the object is being deleted, found new finalizers []string{{{listed}}}"),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(validate_name("web-1.example", NameRule::Subdomain, "n").is_empty());
        assert_eq!(validate_name("Web", NameRule::Subdomain, "n").len(), 1);
        assert_eq!(validate_name("a.b", NameRule::Label, "n").len(), 1);
        assert!(validate_name("system:admin", NameRule::PathSegment, "n").is_empty());
    }

    #[test]
    fn finalizer_names_are_qualified_names() {
        assert!(validate_finalizers(&["orphan".into(), "example.com/x".into(), "x/y".into()]).is_empty());
        assert_eq!(validate_finalizers(&["bad name".into()]).len(), 1);
        assert_eq!(validate_finalizers(&["-x".into()]).len(), 1);
    }
}
