//! Objects of built-in kinds as kube-apiserver holds them: decoded into their Go type and
//! encoded again. A field its Go type marks `omitempty` is dropped when null, empty or zero
//! (`omitzero`: when its zero value); a field without it is written even when absent (a scalar
//! as its zero value, a nil list or map as null); a struct is written even when absent, with its own fields by the same rules; a
//! null in a list becomes its element's zero value. An empty list or map is kept as none, as
//! the object is stored as protobuf, which cannot tell them apart (and a create's or update's
//! answer is the stored object read back, a dry run's too: k8s.io/apiserver
//! pkg/registry/generic/registry/dryrun.go `copyInto`). `go_shapes.json` is what
//! `upstream/cmd/go-shapes` prints for the pinned release.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde_json::{Map, Value};

/// How values of a Go type decode and encode (see `upstream/cmd/go-shapes`).
#[derive(Debug)]
enum Shape {
    /// A string, number or bool, with its zero value.
    Scalar(Value),
    /// A type with its own JSON encoding, kept as sent, with the encoding of its zero value.
    Opaque(Value),
    /// A `[]byte`, written as a base64 string.
    Bytes,
    /// A pointer.
    Pointer(Box<Shape>),
    /// A slice.
    List(Box<Shape>),
    /// A map with string keys.
    Map(Box<Shape>),
    /// A struct, by its name in [`Shapes::types`].
    Struct(String),
}

/// One JSON field of a struct.
#[derive(Debug)]
struct Field {
    name: String,
    /// Tagged `omitempty`.
    omitempty: bool,
    /// Tagged `omitzero`.
    omitzero: bool,
    shape: Shape,
}

/// The Go types of the pinned release's built-in kinds.
struct Shapes {
    /// The struct of each kind, by `apiVersion kind`.
    kinds: HashMap<String, String>,
    /// The fields of each struct.
    types: HashMap<String, Vec<Field>>,
}

static SHAPES: LazyLock<Shapes> = LazyLock::new(|| {
    let file: Value = serde_json::from_str(include_str!("go_shapes.json")).expect("go_shapes.json is JSON");
    let text = |v: &Value| v.as_str().expect("go_shapes.json names are strings").to_string();
    let kinds = file["kinds"].as_object().into_iter().flatten().map(|(k, v)| (k.clone(), text(v))).collect();
    let types = file["types"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, fields)| {
            let fields = fields.as_object().into_iter().flatten();
            let fields = fields.map(|(field, tag)| {
                let options = text(&tag[0]);
                let has = |option: &str| options.split(',').any(|o| o == option);
                Field { name: field.clone(), omitempty: has("omitempty"), omitzero: has("omitzero"), shape: parse(&text(&tag[1])) }
            });
            (name.clone(), fields.collect())
        })
        .collect();
    Shapes { kinds, types }
});

/// Reads a shape as `upstream/cmd/go-shapes` writes it.
fn parse(text: &str) -> Shape {
    let zero = |json: &str| serde_json::from_str(json).expect("a shape's zero value is JSON");
    match text.split_once(':') {
        None => Shape::Bytes,
        Some(("s", json)) => Shape::Scalar(zero(json)),
        Some(("o", json)) => Shape::Opaque(zero(json)),
        Some(("p", inner)) => Shape::Pointer(Box::new(parse(inner))),
        Some(("l", inner)) => Shape::List(Box::new(parse(inner))),
        Some(("m", inner)) => Shape::Map(Box::new(parse(inner))),
        Some((_, name)) => Shape::Struct(name.to_string()),
    }
}

/// `object` (of `kind` at `api_version`) as kube-apiserver encodes it once decoded into its Go
/// type; unchanged for a kind with no Go type here.
pub fn round_trip(api_version: &str, kind: &str, object: &Value) -> Value {
    match SHAPES.kinds.get(&format!("{api_version} {kind}")) {
        Some(name) => encode(Some(object), &Shape::Struct(name.clone())),
        None => object.clone(),
    }
}

/// How a value sent as `value` (`None` when absent) of `shape` is encoded. A value of the
/// wrong JSON type is left as sent: decoding refuses it before this is asked.
fn encode(value: Option<&Value>, shape: &Shape) -> Value {
    let value = value.filter(|v| !v.is_null());
    match (shape, value) {
        (Shape::Scalar(zero) | Shape::Opaque(zero), None) => zero.clone(),
        (Shape::Bytes | Shape::Pointer(_) | Shape::List(_) | Shape::Map(_), None) => Value::Null,
        (Shape::Pointer(inner), Some(v)) => encode(Some(v), inner),
        // Stored as protobuf, an empty list or map reads back as none.
        (Shape::List(_), Some(Value::Array(items))) if items.is_empty() => Value::Null,
        (Shape::Map(_), Some(Value::Object(entries))) if entries.is_empty() => Value::Null,
        (Shape::List(element), Some(Value::Array(items))) => items.iter().map(|item| encode(Some(item), element)).collect(),
        (Shape::Map(element), Some(Value::Object(entries))) => {
            Value::Object(entries.iter().map(|(k, v)| (k.clone(), encode(Some(v), element))).collect())
        }
        (Shape::Struct(name), Some(Value::Object(fields))) => encode_struct(name, fields),
        (Shape::Struct(name), None) => encode_struct(name, &Map::new()),
        (_, Some(v)) => v.clone(),
    }
}

/// Struct `name` decoded from `sent` and encoded: its fields by their tags, others dropped.
fn encode_struct(name: &str, sent: &Map<String, Value>) -> Value {
    let Some(fields) = SHAPES.types.get(name) else { return Value::Object(sent.clone()) };
    let mut out = Map::new();
    for field in fields {
        let value = encode(sent.get(&field.name), &field.shape);
        let left_out = (field.omitempty && is_empty(&value, &field.shape)) || (field.omitzero && value == encode(None, &field.shape));
        if !left_out {
            out.insert(field.name.clone(), value);
        }
    }
    Value::Object(out)
}

/// Whether `omitempty` drops `value` of `shape` (encoding/json's `isEmptyValue`: never a struct).
fn is_empty(value: &Value, shape: &Shape) -> bool {
    match shape {
        Shape::Scalar(zero) => value == zero || value.as_f64().is_some_and(|n| n == 0.0),
        Shape::Pointer(_) => value.is_null(),
        Shape::Bytes => value.is_null() || value == "",
        Shape::List(_) => value.is_null() || value.as_array().is_some_and(Vec::is_empty),
        Shape::Map(_) => value.is_null() || value.as_object().is_some_and(Map::is_empty),
        Shape::Opaque(_) | Shape::Struct(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nulls_and_empties_are_kept_or_dropped_as_the_go_type_encodes_them() {
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r", "labels": {}, "annotations": null}});
        let encoded = round_trip("rbac.authorization.k8s.io/v1", "Role", &role);
        assert_eq!(encoded["metadata"], json!({"name": "r"}), "creationTimestamp is omitzero");
        assert_eq!(encoded["rules"], Value::Null, "a nil slice without omitempty is written as null");
        let empty_rules = json!({"metadata": {"name": "r"}, "rules": []});
        assert_eq!(round_trip("rbac.authorization.k8s.io/v1", "Role", &empty_rules)["rules"], Value::Null, "an empty one too");
        let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"}});
        assert_eq!(round_trip("coordination.k8s.io/v1", "Lease", &lease)["spec"], json!({}), "a struct is always written");
        let deployment = json!({"spec": {"strategy": {"type": "Recreate", "rollingUpdate": null}, "replicas": 0,
            "template": {"metadata": {"annotations": null}, "spec": {"containers": [{"name": "c", "args": [null]}]}}}});
        let encoded = round_trip("apps/v1", "Deployment", &deployment);
        assert_eq!(encoded["spec"]["strategy"], json!({"type": "Recreate"}));
        assert_eq!(encoded["spec"]["replicas"], 0, "a pointer to zero is kept");
        assert_eq!(encoded["spec"]["template"]["metadata"], json!({}));
        let condition = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        let conditions = &round_trip("v1", "Pod", &condition)["status"]["conditions"];
        assert_eq!(conditions[0]["lastProbeTime"], Value::Null, "a time is a struct: omitempty keeps it");
        assert_eq!(encoded["spec"]["template"]["spec"]["containers"][0]["args"], json!([""]), "a null element is its zero value");
        assert_eq!(encoded["spec"]["template"]["spec"]["containers"][0]["resources"], json!({}));
        assert_eq!(round_trip("example.com/v1", "Widget", &deployment), deployment);
    }
}
