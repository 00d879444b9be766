//! Validation of a CustomResourceDefinition as apiextensions-apiserver validates one
//! (`ValidateCustomResourceDefinition`, pkg/apis/apiextensions/validation/validation.go), in its
//! order and words: its name against its names and group, then the spec (group, scope, a schema
//! for every version, the versions' names, uniqueness and single storage version, the names),
//! the conversion, the accepted names and the stored versions. The schemas' own rules
//! (structural schemas, CEL, defaults), subresource paths and printer columns are not checked.
//!
//! Upstream validates the internal object the v1 one converts to, and its errors show values of
//! that type: `spec.versions` is written with the Go field names of
//! `apiextensions.CustomResourceDefinitionVersion` (no JSON names), and a schema, subresources,
//! printer columns or selectable fields every version shares identically are moved to the spec
//! by the conversion (`Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...`,
//! pkg/apis/apiextensions/v1/conversion.go), so the versions show none.

use serde_json::{Map, Value, json};

use crate::apiserver::status::{FieldError, FieldErrorKind};
use crate::apiserver::validation::{dns1035_label_problems, subdomain_problems};

/// Validates a definition (defaulted, with the status a create gives it).
pub fn validate(crd: &Value) -> Vec<FieldError> {
    let spec = &crd["spec"];
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    let (group, names) = (text(&spec["group"]), &spec["names"]);
    let versions = spec["versions"].as_array().cloned().unwrap_or_default();
    let mut errs = Vec::new();
    let name = text(&crd["metadata"]["name"]);
    if !name.is_empty() && name != format!("{}.{group}", text(&names["plural"])) {
        errs.push(FieldError::invalid("metadata.name", json!(name), r#"must be spec.names.plural+"."+spec.group"#));
    }
    if group.is_empty() {
        errs.push(FieldError::required("spec.group", ""));
    } else if let Some(problems) = joined(subdomain_problems(&group)) {
        errs.push(FieldError::invalid("spec.group", json!(group), problems));
    } else if !group.contains('.') {
        errs.push(FieldError::invalid("spec.group", json!(group), "should be a domain with at least one dot"));
    }
    match text(&spec["scope"]).as_str() {
        "" => errs.push(FieldError::required("spec.scope", "")),
        "Cluster" | "Namespaced" => {}
        other => errs.push(FieldError::not_supported("spec.scope", json!(other), &["Cluster", "Namespaced"])),
    }
    for (i, version) in versions.iter().enumerate() {
        if version["schema"]["openAPIV3Schema"].is_null() {
            errs.push(FieldError::required(format!("spec.versions[{i}].schema.openAPIV3Schema"), ""));
        }
    }
    let mut seen = Vec::new();
    for (i, version) in versions.iter().enumerate() {
        let version_name = text(&version["name"]);
        if let Some(problems) = dns1035_problems(&version_name) {
            errs.push(FieldError::invalid(format!("spec.versions[{i}].name"), json!(version_name), problems));
        }
        seen.push(version_name);
    }
    let unique = seen.iter().enumerate().all(|(i, n)| !seen[..i].contains(n));
    if !unique {
        errs.push(FieldError::invalid("spec.versions", internal_versions(&spec["versions"]), "must contain unique version names"));
    }
    if versions.iter().filter(|v| v["storage"] == true).count() != 1 {
        let why = "must have exactly one version marked as storage version";
        errs.push(FieldError::invalid("spec.versions", internal_versions(&spec["versions"]), why));
    }
    // The conversion copies the first version's name to the internal `spec.version`.
    if let Some(first) = seen.first().filter(|n| !n.is_empty())
        && let Some(problems) = dns1035_problems(first)
    {
        errs.push(FieldError::invalid("spec.version", json!(first), problems));
    }
    for field in ["plural", "singular", "kind", "listKind"] {
        if text(&names[field]).is_empty() {
            errs.push(FieldError::required(format!("spec.names.{field}"), ""));
        }
    }
    errs.extend(names_errors(names, "spec.names"));
    errs.extend(validate_conversion(&spec["conversion"]));
    errs.extend(names_errors(&crd["status"]["acceptedNames"], "status.acceptedNames"));
    errs.extend(stored_versions_errors(&crd["status"]["storedVersions"], &versions));
    errs
}

/// `IsDNS1035Label`'s problems with `s`, joined as the definition's validation joins them.
fn dns1035_problems(s: &str) -> Option<String> {
    joined(dns1035_label_problems(s))
}

fn joined(problems: Vec<String>) -> Option<String> {
    (!problems.is_empty()).then(|| problems.join(","))
}

/// `ValidateCustomResourceDefinitionNames` of `names` at `path`.
fn names_errors(names: &Value, path: &str) -> Vec<FieldError> {
    let text = |field: &str| names[field].as_str().unwrap_or("").to_string();
    let mut errs = Vec::new();
    for (field, lowered, prefix) in [
        ("plural", false, ""),
        ("singular", false, ""),
        ("kind", true, "may have mixed case, but should otherwise match: "),
        ("listKind", true, "may have mixed case, but should otherwise match: "),
    ] {
        let value = text(field);
        let checked = if lowered { value.to_lowercase() } else { value.clone() };
        if let Some(problems) = dns1035_problems(&checked).filter(|_| !value.is_empty()) {
            errs.push(FieldError::invalid(format!("{path}.{field}"), json!(value), format!("{prefix}{problems}")));
        }
    }
    for (i, short) in names["shortNames"].as_array().into_iter().flatten().enumerate() {
        let short = short.as_str().unwrap_or("");
        if let Some(problems) = dns1035_problems(short) {
            errs.push(FieldError::invalid(format!("{path}.shortNames[{i}]"), json!(short), problems));
        }
    }
    if !text("kind").is_empty() && text("kind") == text("listKind") {
        errs.push(FieldError::invalid(format!("{path}.listKind"), json!(text("listKind")), "kind and listKind may not be the same"));
    }
    for (i, category) in names["categories"].as_array().into_iter().flatten().enumerate() {
        let category = category.as_str().unwrap_or("");
        if let Some(problems) = dns1035_problems(category) {
            errs.push(FieldError::invalid(format!("{path}.categories[{i}]"), json!(category), problems));
        }
    }
    errs
}

/// `ValidateCustomResourceDefinitionStoredVersions`: at least one stored version, the storage
/// version among them, and none that the spec no longer lists.
fn stored_versions_errors(stored: &Value, versions: &[Value]) -> Vec<FieldError> {
    let path = "status.storedVersions";
    let stored: Vec<&str> = stored.as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let shown = if stored.is_empty() { Value::Null } else { json!(stored) };
    if stored.is_empty() {
        return vec![FieldError::invalid(path, shown, "must have at least one stored version")];
    }
    let mut errs = Vec::new();
    let mut left: Vec<(usize, &str)> = stored.iter().copied().enumerate().collect();
    for version in versions {
        let name = version["name"].as_str().unwrap_or("");
        let listed = left.iter().any(|(_, s)| *s == name);
        if version["storage"] == true && !stored.contains(&name) {
            errs.push(FieldError::invalid(path, shown.clone(), format!("must have the storage version {name}")));
        }
        if listed {
            left.retain(|(_, s)| *s != name);
        }
    }
    for (i, v) in left {
        let why = format!(
            "missing from spec.versions; {v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in {v} and removes {v} from status.storedVersions"
        );
        errs.push(FieldError::invalid(format!("{path}[{i}]"), json!(v), why));
    }
    errs
}

/// `spec.versions` as the internal type holds them, with Go's field names; what every version
/// shares identically is left out (moved to the spec).
fn internal_versions(versions: &Value) -> Value {
    let Some(list) = versions.as_array() else { return Value::Null };
    let shared = |field: &str| list.iter().all(|v| v[field] == list[0][field]);
    let hoisted: Vec<&str> =
        ["schema", "subresources", "additionalPrinterColumns", "selectableFields"].into_iter().filter(|f| shared(f)).collect();
    let items = list
        .iter()
        .map(|v| {
            let kept = |field: &str| if hoisted.contains(&field) { &Value::Null } else { &v[field] };
            let schema = kept("schema");
            let subresources = kept("subresources");
            json!({
                "Name": v["name"].as_str().unwrap_or(""),
                "Served": v["served"].as_bool().unwrap_or(false),
                "Storage": v["storage"].as_bool().unwrap_or(false),
                "Deprecated": v["deprecated"].as_bool().unwrap_or(false),
                "DeprecationWarning": v["deprecationWarning"],
                "Schema": if schema.is_object() { json!({"OpenAPIV3Schema": props(&schema["openAPIV3Schema"])}) } else { Value::Null },
                "Subresources": if subresources.is_object() { internal_subresources(subresources) } else { Value::Null },
                "AdditionalPrinterColumns": each(kept("additionalPrinterColumns"), |c| json!({
                    "Name": text(c, "name"), "Type": text(c, "type"), "Format": text(c, "format"),
                    "Description": text(c, "description"), "Priority": c["priority"].as_i64().unwrap_or(0), "JSONPath": text(c, "jsonPath")})),
                "SelectableFields": each(kept("selectableFields"), |f| json!({"JSONPath": text(f, "jsonPath")})),
            })
        })
        .collect();
    Value::Array(items)
}

fn text(v: &Value, field: &str) -> Value {
    json!(v[field].as_str().unwrap_or(""))
}

/// `list` with `f` applied to each item, null when it is no list (a nil slice).
fn each(list: &Value, f: impl Fn(&Value) -> Value) -> Value {
    list.as_array().map_or(Value::Null, |items| Value::Array(items.iter().map(f).collect()))
}

fn internal_subresources(subresources: &Value) -> Value {
    let scale = &subresources["scale"];
    json!({
        "Status": if subresources["status"].is_object() { json!({}) } else { Value::Null },
        "Scale": if scale.is_object() {
            json!({"SpecReplicasPath": text(scale, "specReplicasPath"), "StatusReplicasPath": text(scale, "statusReplicasPath"), "LabelSelectorPath": scale["labelSelectorPath"]})
        } else { Value::Null },
    })
}

/// A v1 `JSONSchemaProps` as the internal `JSONSchemaProps` (every field, Go's names).
fn props(s: &Value) -> Value {
    if !s.is_object() {
        return Value::Null;
    }
    let flag = |k: &str| json!(s[k].as_bool().unwrap_or(false));
    let schemas = |k: &str| each(&s[k], props);
    let schema_map =
        |k: &str| s[k].as_object().map_or(Value::Null, |m| Value::Object(m.iter().map(|(n, v)| (n.clone(), props(v))).collect()));
    let or_bool = |k: &str| match &s[k] {
        Value::Bool(allows) => json!({"Allows": allows, "Schema": null}),
        v if v.is_object() => json!({"Allows": true, "Schema": props(v)}),
        _ => Value::Null,
    };
    let items = match &s["items"] {
        Value::Array(list) => json!({"Schema": null, "JSONSchemas": list.iter().map(props).collect::<Vec<_>>()}),
        v if v.is_object() => json!({"Schema": props(v), "JSONSchemas": null}),
        _ => Value::Null,
    };
    let dependencies = s["dependencies"].as_object().map_or(Value::Null, |m| {
        let entry =
            |v: &Value| if v.is_array() { json!({"Schema": null, "Property": v}) } else { json!({"Schema": props(v), "Property": null}) };
        Value::Object(m.iter().map(|(n, v)| (n.clone(), entry(v))).collect::<Map<_, _>>())
    });
    let docs = &s["externalDocs"];
    let rules = each(&s["x-kubernetes-validations"], |r| {
        json!({"Rule": text(r, "rule"), "Message": text(r, "message"), "MessageExpression": text(r, "messageExpression"),
            "Reason": r["reason"], "FieldPath": text(r, "fieldPath"), "OptionalOldSelf": r["optionalOldSelf"]})
    });
    let mut out = Map::new();
    for (go, value) in [
        ("ID", text(s, "id")),
        ("Schema", text(s, "$schema")),
        ("Ref", s["$ref"].clone()),
        ("Description", text(s, "description")),
        ("Type", text(s, "type")),
        ("Nullable", flag("nullable")),
        ("Format", text(s, "format")),
        ("Title", text(s, "title")),
        ("Default", s["default"].clone()),
        ("Maximum", s["maximum"].clone()),
        ("ExclusiveMaximum", flag("exclusiveMaximum")),
        ("Minimum", s["minimum"].clone()),
        ("ExclusiveMinimum", flag("exclusiveMinimum")),
        ("MaxLength", s["maxLength"].clone()),
        ("MinLength", s["minLength"].clone()),
        ("Pattern", text(s, "pattern")),
        ("MaxItems", s["maxItems"].clone()),
        ("MinItems", s["minItems"].clone()),
        ("UniqueItems", flag("uniqueItems")),
        ("MultipleOf", s["multipleOf"].clone()),
        ("Enum", s["enum"].clone()),
        ("MaxProperties", s["maxProperties"].clone()),
        ("MinProperties", s["minProperties"].clone()),
        ("Required", s["required"].clone()),
        ("Items", items),
        ("AllOf", schemas("allOf")),
        ("OneOf", schemas("oneOf")),
        ("AnyOf", schemas("anyOf")),
        ("Not", props(&s["not"])),
        ("Properties", schema_map("properties")),
        ("AdditionalProperties", or_bool("additionalProperties")),
        ("PatternProperties", schema_map("patternProperties")),
        ("Dependencies", dependencies),
        ("AdditionalItems", or_bool("additionalItems")),
        ("Definitions", schema_map("definitions")),
        (
            "ExternalDocs",
            if docs.is_object() { json!({"Description": text(docs, "description"), "URL": text(docs, "url")}) } else { Value::Null },
        ),
        ("Example", s["example"].clone()),
        ("XPreserveUnknownFields", s["x-kubernetes-preserve-unknown-fields"].clone()),
        ("XEmbeddedResource", flag("x-kubernetes-embedded-resource")),
        ("XIntOrString", flag("x-kubernetes-int-or-string")),
        ("XListMapKeys", s["x-kubernetes-list-map-keys"].clone()),
        ("XListType", s["x-kubernetes-list-type"].clone()),
        ("XMapType", s["x-kubernetes-map-type"].clone()),
        ("XValidations", rules),
    ] {
        out.insert(go.into(), value);
    }
    Value::Object(out)
}

/// `spec.conversion`: `None` or `Webhook`; a webhook needs review versions and a client
/// configuration (a `url` or a `service`).
fn validate_conversion(conversion: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match conversion["strategy"].as_str() {
        None | Some("None") => {}
        Some("Webhook") => {
            let webhook = &conversion["webhook"];
            if webhook["conversionReviewVersions"].as_array().is_none_or(Vec::is_empty) {
                errs.push(FieldError::required("spec.conversion.webhook.conversionReviewVersions", "must contain at least one version"));
            }
            let config = &webhook["clientConfig"];
            if config["url"].is_null() == config["service"].is_null() {
                errs.push(FieldError::required("spec.conversion.webhook.clientConfig", "exactly one of url or service is required"));
            }
        }
        Some(other) => errs.push(FieldError::new(
            FieldErrorKind::NotSupported,
            "spec.conversion.strategy",
            Some(json!(other)),
            "supported values: \"None\", \"Webhook\"",
        )),
    }
    errs
}
