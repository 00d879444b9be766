//! Custom resources pruned against their version's structural schema, as the apiextensions
//! apiserver's decoder does it (`unstructuredSchemaCoercer.apply` in
//! `pkg/apiserver/customresource_handler.go`): the root's metadata is read as `ObjectMeta`,
//! fields the schema does not declare are dropped (`pkg/apiserver/schema/pruning`), and the
//! metadata of embedded resources (`x-kubernetes-embedded-resource`) is read as `ObjectMeta`
//! too (`pkg/apiserver/schema/objectmeta`). Each step names what it dropped. Between pruning
//! and coercion, nulls the schema neither allows nor defaults are dropped
//! (`pkg/apiserver/schema/defaulting/prunenulls.go`).

use serde_json::Value;

use crate::apiserver::schema::typed::{remove_path, unknown_metadata_fields};

/// The fields of an embedded resource (and of the root) that pruning leaves to metadata rules.
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

fn preserves(schema: &Value) -> bool {
    schema["x-kubernetes-preserve-unknown-fields"] == true
}

fn embedded(schema: &Value) -> bool {
    schema["x-kubernetes-embedded-resource"] == true
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

/// Prunes custom resource `object` against `schema` (its version's `openAPIV3Schema`; `None`:
/// nothing is pruned but unknown metadata). Returns the unknown fields dropped, in upstream's
/// order: the root's metadata, then pruned fields (sorted), then embedded metadata (sorted).
pub fn prune(object: &mut Value, schema: Option<&Value>) -> Vec<String> {
    let mut unknown = drop_unknown_metadata(object, "");
    let Some(schema) = schema else { return unknown };
    let mut pruned = Vec::new();
    // The root is an embedded resource: its apiVersion, kind and metadata are not pruned.
    if preserves(schema) {
        skip_prune(object, Some(schema), true, "", &mut pruned);
    } else {
        prune_value(object, Some(schema), true, "", &mut pruned);
    }
    pruned.sort();
    drop_nulls(object, Some(schema));
    let mut embedded_meta = Vec::new();
    coerce(object, schema, "", &mut embedded_meta);
    embedded_meta.sort();
    unknown.extend(pruned);
    unknown.extend(embedded_meta);
    unknown
}

/// Drops the fields `ObjectMeta` does not know from the `metadata` of the object at `path`.
fn drop_unknown_metadata(object: &mut Value, path: &str) -> Vec<String> {
    let Some(meta) = object.get_mut("metadata") else { return vec![] };
    let unknown = unknown_metadata_fields(meta);
    for field in &unknown {
        remove_path(meta, field);
    }
    let prefix = child(path, "metadata");
    unknown.into_iter().map(|field| format!("{prefix}.{field}")).collect()
}

/// The schema of a key no property declares: `additionalProperties` if the schema has them
/// (`Some(None)` for a boolean: nothing below is declared), else `None`.
fn additional(schema: &Value) -> Option<Option<&Value>> {
    schema.get("additionalProperties").map(|a| a.is_object().then_some(a))
}

/// Upstream's `prune`: drops (and records) what `schema` does not declare below `value`.
fn prune_value(value: &mut Value, schema: Option<&Value>, root: bool, path: &str, out: &mut Vec<String>) {
    if let Some(s) = schema.filter(|s| preserves(s)) {
        return skip_prune(value, Some(s), root, path, out);
    }
    match value {
        Value::Object(map) => {
            let Some(schema) = schema else {
                out.extend(map.keys().map(|k| child(path, k)));
                map.clear();
                return;
            };
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                if (root || embedded(schema)) && META_FIELDS.contains(&key.as_str()) {
                    continue;
                }
                let below = map.get_mut(&key).expect("listed");
                if let Some(property) = schema["properties"].get(&key) {
                    prune_value(below, Some(property), false, &child(path, &key), out);
                } else if let Some(additional) = additional(schema) {
                    prune_value(below, additional, false, &child(path, &key), out);
                } else {
                    out.push(child(path, &key));
                    map.remove(&key);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                prune_value(item, schema.map(|s| &s["items"]).filter(|s| !s.is_null()), false, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Upstream's `skipPrune`, below `x-kubernetes-preserve-unknown-fields`: undeclared fields are
/// kept as they are, declared ones pruned by their own schema.
fn skip_prune(value: &mut Value, schema: Option<&Value>, root: bool, path: &str, out: &mut Vec<String>) {
    let Some(schema) = schema else { return };
    match value {
        Value::Object(map) => {
            for (key, below) in map.iter_mut() {
                if (root || embedded(schema)) && META_FIELDS.contains(&key.as_str()) {
                    continue;
                }
                if let Some(property) = schema["properties"].get(key) {
                    prune_value(below, Some(property), false, &child(path, key), out);
                } else if let Some(additional) = additional(schema) {
                    prune_value(below, additional, false, &child(path, key), out);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                skip_prune(item, Some(&schema["items"]).filter(|s| !s.is_null()), false, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Upstream's `PruneNonNullableNullsWithoutDefaults`: a null whose schema is neither `nullable`
/// nor has a default is dropped (one with a default is defaulted later); a null no schema
/// describes stays.
fn drop_nulls(value: &mut Value, schema: Option<&Value>) {
    match value {
        Value::Object(map) => map.retain(|key, below| {
            let below_schema = schema.and_then(|s| s["properties"].get(key).or_else(|| additional(s).flatten()));
            let droppable = below_schema.is_some_and(|s| s["nullable"] != true && s.get("default").is_none_or(Value::is_null));
            if below.is_null() && droppable {
                return false;
            }
            drop_nulls(below, below_schema);
            true
        }),
        Value::Array(items) => {
            let item_schema = schema.map(|s| &s["items"]).filter(|s| s.is_object());
            items.iter_mut().for_each(|item| drop_nulls(item, item_schema));
        }
        _ => {}
    }
}

/// Upstream's metadata coercion: the metadata of each embedded resource the schema reaches is
/// read as `ObjectMeta`.
fn coerce(value: &mut Value, schema: &Value, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(_) => {
            if embedded(schema) {
                out.extend(drop_unknown_metadata(value, path));
            }
            let Value::Object(map) = value else { return };
            for (key, below) in map.iter_mut() {
                if let Some(property) = schema["properties"].get(key) {
                    coerce(below, property, &child(path, key), out);
                } else if let Some(Some(additional)) = additional(schema) {
                    coerce(below, additional, &format!("{path}[{key}]"), out);
                }
            }
        }
        Value::Array(items) => {
            if schema["items"].is_object() {
                for (i, item) in items.iter_mut().enumerate() {
                    coerce(item, &schema["items"], &format!("{path}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "foo": {"type": "string"},
            "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
                "typed": {"type": "object", "properties": {"a": {"type": "string"}}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                         "properties": {"spec": {"type": "object"}}}}}}})
    }

    #[test]
    fn undeclared_fields_are_dropped_and_named() {
        let mut cr = json!({"apiVersion": "example.com/v1", "kind": "Thing",
            "metadata": {"name": "t", "unknownMeta": 1},
            "unknownField": "x",
            "spec": {"foo": "f", "bar": 1, "ports": [{"port": 80, "name": "p"}],
                     "free": {"anything": {"deep": 1}, "typed": {"a": "a", "b": "b"}},
                     "labels": {"any": "v"},
                     "template": {"apiVersion": "v1", "kind": "Sub", "metadata": {"name": "s", "unknownSubMeta": 1},
                                  "spec": {"kept": 1}, "other": 1}}});
        let unknown = prune(&mut cr, Some(&schema()));
        assert_eq!(
            unknown,
            [
                "metadata.unknownMeta",
                "spec.bar",
                "spec.free.typed.b",
                "spec.ports[0].name",
                "spec.template.other",
                "spec.template.spec.kept",
                "unknownField",
                "spec.template.metadata.unknownSubMeta",
            ]
        );
        assert_eq!(
            cr,
            json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"},
            "spec": {"foo": "f", "ports": [{"port": 80}], "free": {"anything": {"deep": 1}, "typed": {"a": "a"}},
                     "labels": {"any": "v"},
                     "template": {"apiVersion": "v1", "kind": "Sub", "metadata": {"name": "s"}, "spec": {}}}})
        );
    }

    #[test]
    fn a_preserving_root_or_no_schema_keeps_undeclared_fields() {
        let mut cr = json!({"metadata": {"name": "t", "x": 1}, "spec": {"any": 1}});
        assert_eq!(prune(&mut cr, Some(&json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}))), ["metadata.x"]);
        assert_eq!(cr, json!({"metadata": {"name": "t"}, "spec": {"any": 1}}));
        assert!(prune(&mut cr, None).is_empty());
    }

    #[test]
    fn nulls_the_schema_neither_allows_nor_defaults_are_dropped() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "plain": {"type": "string"},
            "nullable": {"type": "string", "nullable": true},
            "defaulted": {"type": "string", "default": "d"},
            "items": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}});
        let mut cr = json!({"metadata": {"name": "t"}, "spec": {"plain": null, "nullable": null, "defaulted": null,
            "items": [{"a": null}], "free": {"undeclared": null}}});
        prune(&mut cr, Some(&schema));
        assert_eq!(cr["spec"], json!({"nullable": null, "defaulted": null, "items": [{}], "free": {"undeclared": null}}));
    }
}
