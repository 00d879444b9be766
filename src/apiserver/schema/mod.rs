//! Field validation, the way the real apiserver's strict decoding gives it: fields an object's
//! type does not know, and keys its body repeats, are refused with `400 strict decoding error`
//! under `fieldValidation=Strict` (which kubectl sends), given as `Warning` headers under `Warn`
//! (the default), ignored under `Ignore`; unknown fields are dropped in every case.
//!
//! Built-in kinds are read through their Go types ([`typed`]): a value of the wrong JSON type is
//! a 400 with the decoder's words, as upstream; an object missing a field its type requires is
//! passed through unchanged, so that validation reports it as a 422 with field paths; nulls,
//! empty values and absent fields then become what the Go type encodes ([`go_shapes`]).
//! Custom resources are pruned against their CRD's structural schema ([`pruning`]).

pub mod go_shapes;
pub mod pruning;
pub mod typed;

use serde_json::Value;

use crate::apiserver::catalogue::ResourceInfo;
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::strict::{Keys, warnings_of};
use crate::apiserver::warning;

/// The `fieldValidation` query parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValidation {
    /// Drop unknown fields silently.
    Ignore,
    /// Drop unknown fields and warn of them and of repeated keys (the default).
    Warn,
    /// Refuse objects with unknown fields or repeated keys.
    Strict,
}

/// Options common to every write: `dryRun`, `fieldValidation`, the field manager, and the keys
/// of the body the object was decoded from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// `dryRun=All`: validate and answer, persist nothing.
    pub dry_run: bool,
    /// How unknown fields are treated.
    pub field_validation: FieldValidation,
    /// The manager recorded in `metadata.managedFields`: the `fieldManager` parameter, else
    /// the client's User-Agent up to its first `/` (empty: upstream's `unknown`).
    pub field_manager: String,
    /// The keys of the request body the written object was decoded from (empty when it was
    /// not: a patch, a protobuf body, a write of the server's own).
    pub body_keys: Keys,
    /// The write is a PATCH (an apply too): its owner references are deduplicated only after
    /// admission, and the warning says so.
    pub patch: bool,
    /// The name a create's URL gave (`POST .../widgets/NAME`, served for custom resources),
    /// which admission names in its refusals before the body's.
    pub url_name: Option<String>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self {
            dry_run: false,
            field_validation: FieldValidation::Warn,
            field_manager: String::new(),
            body_keys: Keys::default(),
            patch: false,
            url_name: None,
        }
    }
}

/// Gives strict decoding errors as `mode` asks: nothing under `Ignore`, one warning each under
/// `Warn` (a YAML error one a line), and under `Strict` the error `strict` makes of them all.
pub fn report_strict_errors(errors: &[String], mode: FieldValidation, strict: impl FnOnce(&str) -> ApiError) -> ApiResult<()> {
    match mode {
        _ if errors.is_empty() => Ok(()),
        FieldValidation::Ignore => Ok(()),
        FieldValidation::Warn => {
            errors.iter().flat_map(|e| warnings_of(e)).for_each(|w| warning::add(&w));
            Ok(())
        }
        FieldValidation::Strict => Err(strict(&errors.join(", "))),
    }
}

/// Checks `object` (as served at `resource`, decoded from a body with `opts.body_keys`) for
/// unknown fields and repeated keys: returns it with unknown fields dropped, or 400 under
/// `Strict`. `crd_schema` is a custom resource's `openAPIV3Schema` at the written version.
pub fn check_fields(resource: &ResourceInfo, object: Value, opts: &WriteOptions, crd_schema: Option<&Value>) -> ApiResult<Value> {
    let mut object = object;
    let errors = if resource.custom {
        if let Some(wrong_type) = object.get("metadata").and_then(typed::metadata_type_error) {
            return Err(undecodable(resource, &object, &wrong_type));
        }
        let unknown = pruning::prune(&mut object, crd_schema);
        let mut errors = opts.body_keys.duplicates();
        errors.extend(unknown.iter().map(|f| format!("unknown field {f:?}")));
        errors
    } else {
        typed::canonical_quantities(&resource.kind, &mut object);
        let errors = match typed::unknown_fields_of(&resource.group, &resource.kind, &object) {
            Ok(Some(unknown)) => {
                for path in &unknown {
                    typed::remove_path(&mut object, path);
                }
                opts.body_keys.with_unknown(&unknown)
            }
            Ok(None) => opts.body_keys.duplicates(),
            Err(wrong_type) => return Err(undecodable(resource, &object, &wrong_type)),
        };
        let api_version = object["apiVersion"].as_str().unwrap_or_default().to_string();
        object = go_shapes::decoded(&api_version, &resource.kind, &object);
        errors
    };
    report_strict_errors(&errors, opts.field_validation, |list| undecodable(resource, &object, &format!("strict decoding error: {list}")))?;
    // Its metadata nests little, but for the managed fields that mirror the rest.
    let depth =
        object.as_object().into_iter().flatten().filter(|(key, _)| *key != "metadata").map(|(_, v)| nesting(v) + 1).max().unwrap_or(1);
    if depth > MAX_STORED_NESTING {
        // kube-apiserver stores what its decoder takes (10,000 levels); the fake's walks over a
        // stored object recurse once a level, on whatever stack serves a later request.
        return Err(ApiError::bad_request(format!(
            "this fake API server stores objects nested at most {MAX_STORED_NESTING} levels deep (this one: {depth}); kube-apiserver stores up to 10000"
        )));
    }
    Ok(object)
}

/// The deepest nesting of objects and arrays the fake stores (outside metadata): every walk over
/// an object at twice this depth, with its managed fields, was measured to fit a runtime's
/// usual 2 MiB stack.
pub const MAX_STORED_NESTING: usize = 1000;

/// How deeply `value` nests objects and arrays (a scalar: 0), found without recursion.
fn nesting(value: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 0)];
    while let Some((value, depth)) = pending.pop() {
        match value {
            Value::Object(fields) => pending.extend(fields.values().map(|child| (child, depth + 1))),
            Value::Array(items) => pending.extend(items.iter().map(|child| (child, depth + 1))),
            _ => continue,
        }
        deepest = deepest.max(depth + 1);
    }
    deepest
}

/// The 400 of a body the decoder cannot read into the resource's kind, for `why`.
fn undecodable(resource: &ResourceInfo, object: &Value, why: &str) -> ApiError {
    let version = object["apiVersion"].as_str().unwrap_or("");
    let kind = &resource.kind;
    ApiError::bad_request(format!(
        "{kind} in version \"{}\" cannot be handled as a {kind}: {why}",
        version.rsplit('/').next().unwrap_or(version)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::catalogue::Catalogue;
    use crate::apiserver::strict;
    use serde_json::json;

    fn opts(mode: FieldValidation, body: &[u8]) -> WriteOptions {
        WriteOptions { field_validation: mode, body_keys: strict::json(body).unwrap().keys, ..WriteOptions::default() }
    }

    #[test]
    fn unknown_fields_are_pruned_or_refused() {
        let reg = Catalogue::new();
        let pods = reg.lookup("", "v1", "pods").unwrap();
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "bogus": 1},
            "spec": {"containers": [{"name": "c", "image": "i", "imagePolicy": "x"}]}});
        let strict = WriteOptions { field_validation: FieldValidation::Strict, ..WriteOptions::default() };
        let err = check_fields(&pods, pod.clone(), &strict, None).unwrap_err();
        assert_eq!(err.code, 400);
        assert!(err.message.contains("unknown field \"metadata.bogus\""), "{}", err.message);
        assert!(err.message.contains("unknown field \"spec.containers[0].imagePolicy\""));
        let pruned = check_fields(&pods, pod, &WriteOptions::default(), None).unwrap();
        assert!(pruned["metadata"].get("bogus").is_none());
        assert!(pruned["spec"]["containers"][0].get("imagePolicy").is_none());
        assert_eq!(pruned["spec"]["containers"][0]["image"], "i");
    }

    #[test]
    fn the_served_policy_quota_and_node_kinds_are_typed() {
        let reg = Catalogue::new();
        let strict = WriteOptions { field_validation: FieldValidation::Strict, ..WriteOptions::default() };
        for (group, plural, object) in [
            ("policy", "poddisruptionbudgets", json!({"metadata": {"name": "p"}, "spec": {"minAvailable": "1%", "bogus": 1}})),
            ("node.k8s.io", "runtimeclasses", json!({"metadata": {"name": "r"}, "handler": "runc", "bogus": 1})),
            ("", "resourcequotas", json!({"metadata": {"name": "q"}, "spec": {"hard": {"cpu": "1"}}, "bogus": 1})),
            ("", "limitranges", json!({"metadata": {"name": "l"}, "spec": {"limits": [{"type": "Container", "bogus": 1}]}})),
            ("", "podtemplates", json!({"metadata": {"name": "t"}, "template": {"spec": {"containers": [], "bogus": 1}}})),
        ] {
            let resource = reg.lookup(group, "v1", plural).unwrap();
            let err = check_fields(&resource, object, &strict, None).unwrap_err();
            assert!(err.message.contains("unknown field"), "{plural}: {}", err.message);
        }
    }

    #[test]
    fn repeated_keys_are_refused_with_unknown_fields_in_document_order() {
        let reg = Catalogue::new();
        let deployments = reg.lookup("apps", "v1", "deployments").unwrap();
        let body = br#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"unknownField": "foo", "replicas": 2, "replicas": 3,
                     "selector": {"matchLabels": {"app": "x"}},
                     "template": {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}"#;
        let object = strict::json(body).unwrap().value;
        let err = check_fields(&deployments, object.clone(), &opts(FieldValidation::Strict, body), None).unwrap_err();
        assert_eq!((err.code, err.reason), (400, "BadRequest"));
        assert_eq!(
            err.message,
            r#"Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.unknownField", duplicate field "spec.replicas""#
        );
        let ignored = check_fields(&deployments, object, &opts(FieldValidation::Ignore, body), None).unwrap();
        assert_eq!(ignored["spec"]["replicas"], 3);
        assert!(ignored["spec"].get("unknownField").is_none());
    }

    #[tokio::test]
    async fn custom_resources_are_pruned_by_their_schema_and_warn() {
        let crd = json!({"spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "things", "kind": "Thing"}, "versions": [{"name": "v1", "served": true, "storage": true}]}});
        let things = crate::apiserver::crd::resource_info(&crd).unwrap();
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"foo": {"type": "string"}}}}});
        let body = br#"{"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"},
            "spec": {"foo": "a", "foo": "b", "bar": 1}}"#;
        let object = strict::json(body).unwrap().value;
        let err = check_fields(&things, object.clone(), &opts(FieldValidation::Strict, body), Some(&schema)).unwrap_err();
        assert_eq!(
            err.message,
            r#"Thing in version "v1" cannot be handled as a Thing: strict decoding error: duplicate field "spec.foo", unknown field "spec.bar""#
        );
        let (pruned, warnings) =
            warning::recording(async { check_fields(&things, object, &opts(FieldValidation::Warn, body), Some(&schema)).unwrap() }).await;
        assert_eq!(pruned["spec"], json!({"foo": "b"}));
        assert_eq!(warnings, [r#"299 - "duplicate field \"spec.foo\"""#, r#"299 - "unknown field \"spec.bar\"""#]);
    }
}
