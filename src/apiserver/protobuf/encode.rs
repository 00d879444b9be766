//! Kubernetes JSON objects written as Kubernetes protobuf, for a client that asks for
//! `application/vnd.kubernetes.protobuf`: the magic `k8s\0`, then a `runtime.Unknown` envelope
//! naming the kind and holding the object's protobuf encoding.
//!
//! The encoding is generic: `proto_shapes.json` (printed by `upstream/cmd/proto-shapes` from the
//! pinned release's Go types) gives each struct's protobuf fields, and the object is written as
//! their generated code (`generated.pb.go`) writes it: fields in number order; every field that is
//! not a pointer, a slice or a map written even when zero; one field per item of a slice; a
//! map's entries in key order. The apimachinery types with a protobuf form of their own (times,
//! quantities, int-or-strings, raw JSON, the apiextensions schema unions) are written here as
//! their `Marshal` methods write them.

use std::collections::HashMap;
use std::sync::LazyLock;

use base64::Engine;
use chrono::DateTime;
use serde_json::{Map, Value};

use super::MAGIC;

/// How a Go type is written as protobuf (see `upstream/cmd/proto-shapes`).
#[derive(Debug)]
enum Shape {
    /// A signed or unsigned integer.
    Int,
    /// A bool.
    Bool,
    /// A float64.
    Float,
    /// A string.
    Str,
    /// A `[]byte` (base64 in JSON).
    Bytes,
    /// A type with its own JSON and protobuf forms, by its Go name.
    Named(String),
    /// A pointer: written only when set.
    Pointer(Box<Shape>),
    /// A slice: one field per item.
    List(Box<Shape>),
    /// A named slice (`metav1.Verbs`): a message, written even when empty, whose field 1 is
    /// the list it wraps.
    Wrapped(Box<Shape>),
    /// A map with string keys: one entry message per key, in key order.
    Map(Box<Shape>),
    /// A struct, by its name in [`Shapes::types`].
    Message(String),
}

/// One protobuf field of a struct.
#[derive(Debug)]
struct Field {
    number: u32,
    /// Its JSON name; empty for a struct embedded without one (its fields are the parent's in
    /// JSON, a message of its own in protobuf).
    json: String,
    shape: Shape,
}

/// The kinds and struct types of the pinned release, as protobuf knows them.
struct Shapes {
    /// `"{apiVersion} {kind}"` to the kind's struct.
    kinds: HashMap<String, String>,
    types: HashMap<String, Vec<Field>>,
}

static SHAPES: LazyLock<Shapes> = LazyLock::new(|| {
    let file: Value = serde_json::from_str(include_str!("proto_shapes.json")).expect("proto_shapes.json is JSON");
    let text = |v: &Value| v.as_str().expect("proto_shapes.json names are strings").to_string();
    let kinds = file["kinds"].as_object().expect("kinds").iter().map(|(k, v)| (k.clone(), text(v))).collect();
    let types = file["types"]
        .as_object()
        .expect("types")
        .iter()
        .map(|(name, fields)| {
            let fields = fields
                .as_array()
                .expect("a type's fields")
                .iter()
                .map(|f| Field {
                    number: f["n"].as_u64().expect("a field number") as u32,
                    json: text(&f["j"]),
                    shape: parse(f["s"].as_str().expect("a shape")),
                })
                .collect();
            (name.clone(), fields)
        })
        .collect();
    Shapes { kinds, types }
});

/// Reads a shape as `upstream/cmd/proto-shapes` writes it.
fn parse(text: &str) -> Shape {
    match text.split_once(':') {
        None => match text {
            "i" => Shape::Int,
            "B" => Shape::Bool,
            "f" => Shape::Float,
            "b" => Shape::Bytes,
            _ => Shape::Str,
        },
        Some(("p", inner)) => Shape::Pointer(Box::new(parse(inner))),
        Some(("l", inner)) => Shape::List(Box::new(parse(inner))),
        Some(("w", inner)) => Shape::Wrapped(Box::new(Shape::List(Box::new(parse(inner))))),
        Some(("m", inner)) => Shape::Map(Box::new(parse(inner))),
        Some(("n", name)) => Shape::Named(name.to_string()),
        Some((_, name)) => Shape::Message(name.to_string()),
    }
}

/// Whether objects of `(api_version, kind)` have a protobuf encoding.
pub fn encodes(api_version: &str, kind: &str) -> bool {
    SHAPES.kinds.contains_key(&format!("{api_version} {kind}"))
}

/// `object` (with its `apiVersion` and `kind`) as a Kubernetes protobuf body. An error names
/// what has no protobuf form: a kind, or a value that is not of its field's type.
pub fn encode(object: &Value) -> Result<Vec<u8>, String> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    enveloped(object, api_version)
}

/// A discovery document (meta/v1 `APIVersions`, `APIGroupList`, `APIGroup`, `APIResourceList`)
/// as a Kubernetes protobuf body. Its envelope names the `apiVersion` the document's JSON shows,
/// none for the two that show none, as upstream's discovery handlers write them through an
/// encoder of no version (k8s.io/apiserver pkg/endpoints/discovery).
pub fn encode_discovery(document: &Value) -> Result<Vec<u8>, String> {
    enveloped(document, "v1")
}

/// One event of a watch streamed as protobuf (`;stream=watch`): a 4-byte big-endian length,
/// then a `metav1.WatchEvent` written bare (no magic, no envelope) whose object, a
/// `runtime.RawExtension`, holds the object's own protobuf body (k8s.io/apiserver
/// pkg/endpoints/handlers/watch.go; k8s.io/apimachinery pkg/util/framer).
pub fn watch_frame(event_type: &str, object: &Value) -> Result<Vec<u8>, String> {
    let mut raw_extension = Vec::new();
    bytes_field(&mut raw_extension, 1, &encode(object)?);
    let mut event = Vec::new();
    string_field(&mut event, 1, event_type);
    bytes_field(&mut event, 2, &raw_extension);
    let length = u32::try_from(event.len()).map_err(|_| "the event is too large for a frame")?;
    Ok([length.to_be_bytes().as_slice(), &event].concat())
}

/// `object` in a `runtime.Unknown` envelope, written as the struct of its kind in `version`.
fn enveloped(object: &Value, version: &str) -> Result<Vec<u8>, String> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    let Some(name) = SHAPES.kinds.get(&format!("{version} {kind}")) else {
        return Err(format!("{kind} of {version} has no protobuf encoding"));
    };
    let mut raw = Vec::new();
    message(&mut raw, name, object.as_object().ok_or("the object is not a JSON object")?)?;
    // runtime.Unknown: typeMeta (1), raw (2), contentEncoding (3), contentType (4); the two
    // strings are written empty.
    let mut type_meta = Vec::new();
    string_field(&mut type_meta, 1, api_version);
    string_field(&mut type_meta, 2, kind);
    let mut out = MAGIC.to_vec();
    bytes_field(&mut out, 1, &type_meta);
    bytes_field(&mut out, 2, &raw);
    string_field(&mut out, 3, "");
    string_field(&mut out, 4, "");
    Ok(out)
}

/// Writes the fields of struct `name` from the JSON object `fields`.
fn message(out: &mut Vec<u8>, name: &str, fields: &Map<String, Value>) -> Result<(), String> {
    let Some(layout) = SHAPES.types.get(name) else { return Err(format!("{name} has no protobuf encoding")) };
    for field in layout {
        let value = if field.json.is_empty() {
            // An embedded struct reads its fields from the parent's.
            Some(Value::Object(fields.clone()))
        } else {
            fields.get(&field.json).filter(|v| !v.is_null()).cloned()
        };
        write(out, field.number, &field.shape, value.as_ref()).map_err(|e| format!("{}: {e}", field.json))?;
    }
    Ok(())
}

/// Writes field `number` of `shape` holding `value` (`None` when absent or null: the Go zero
/// value).
fn write(out: &mut Vec<u8>, number: u32, shape: &Shape, value: Option<&Value>) -> Result<(), String> {
    match (shape, value) {
        (Shape::Pointer(_), None) | (Shape::List(_) | Shape::Map(_) | Shape::Bytes, None) => Ok(()),
        (Shape::Pointer(inner), Some(v)) => write(out, number, inner, Some(v)),
        (Shape::Wrapped(list), v) => {
            let mut items = Vec::new();
            write(&mut items, 1, list, v)?;
            bytes_field(out, number, &items);
            Ok(())
        }
        (Shape::List(inner), Some(Value::Array(items))) => {
            items.iter().try_for_each(|item| write(out, number, inner, Some(item).filter(|v| !v.is_null())))
        }
        (Shape::Map(inner), Some(Value::Object(entries))) => {
            let mut keys: Vec<&String> = entries.keys().collect();
            keys.sort();
            for key in keys {
                let mut entry = Vec::new();
                string_field(&mut entry, 1, key);
                write(&mut entry, 2, inner, Some(&entries[key]).filter(|v| !v.is_null()))?;
                bytes_field(out, number, &entry);
            }
            Ok(())
        }
        (Shape::Int, v) => {
            varint_field(out, number, integer(v)?);
            Ok(())
        }
        (Shape::Bool, v) => {
            varint_field(out, number, u64::from(v.and_then(Value::as_bool).unwrap_or(false)));
            Ok(())
        }
        (Shape::Float, v) => {
            key(out, number, 1);
            out.extend_from_slice(&v.and_then(Value::as_f64).unwrap_or(0.0).to_le_bytes());
            Ok(())
        }
        (Shape::Str, v) => match v {
            None => {
                string_field(out, number, "");
                Ok(())
            }
            Some(Value::String(s)) => {
                string_field(out, number, s);
                Ok(())
            }
            Some(other) => Err(format!("{other} is not a string")),
        },
        (Shape::Bytes, Some(Value::String(text))) => {
            let decoded = base64::engine::general_purpose::STANDARD.decode(text).map_err(|e| format!("not base64: {e}"))?;
            bytes_field(out, number, &decoded);
            Ok(())
        }
        (Shape::Named(name), v) => {
            let mut inner = Vec::new();
            named(&mut inner, name, v)?;
            bytes_field(out, number, &inner);
            Ok(())
        }
        (Shape::Message(name), v) => {
            let mut inner = Vec::new();
            match v {
                None => message(&mut inner, name, &Map::new())?,
                Some(Value::Object(fields)) => message(&mut inner, name, fields)?,
                Some(other) => return Err(format!("{other} is not an object")),
            }
            bytes_field(out, number, &inner);
            Ok(())
        }
        (_, Some(other)) => Err(format!("{other} does not fit its field")),
    }
}

/// An integer field's value as its varint (a negative one sign-extended to 64 bits).
fn integer(value: Option<&Value>) -> Result<u64, String> {
    match value {
        None => Ok(0),
        Some(v) => v.as_i64().map(|n| n as u64).or_else(|| v.as_u64()).ok_or_else(|| format!("{v} is not an integer")),
    }
}

/// Writes the message of a type with its own protobuf form (`value` in its JSON form).
fn named(out: &mut Vec<u8>, name: &str, value: Option<&Value>) -> Result<(), String> {
    let type_name = name.rsplit('.').next().unwrap_or(name);
    match (type_name, value) {
        // A zero time is written as nothing (`Time.Marshal`); a time as its seconds, a
        // MicroTime with its microseconds too (apimachinery pkg/apis/meta/v1/time_proto.go,
        // micro_time_proto.go).
        ("Time" | "MicroTime", None) => Ok(()),
        ("Time" | "MicroTime", Some(Value::String(text))) => {
            let time = DateTime::parse_from_rfc3339(text).map_err(|e| format!("{text:?} is not a time: {e}"))?;
            varint_field(out, 1, time.timestamp() as u64);
            let nanos = if type_name == "MicroTime" { time.timestamp_subsec_micros() * 1000 } else { 0 };
            varint_field(out, 2, u64::from(nanos));
            Ok(())
        }
        // A quantity is its canonical string (`Quantity.Marshal`); the zero quantity is "0".
        ("Quantity", v) => match v.map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())) {
            None => {
                string_field(out, 1, "0");
                Ok(())
            }
            Some(text) => {
                string_field(out, 1, &text);
                Ok(())
            }
        },
        // type (0 int, 1 string), intVal, strVal.
        ("IntOrString", v) => {
            let (kind, int, text) = match v {
                None => (0, 0, ""),
                Some(Value::String(s)) => (1, 0, s.as_str()),
                Some(n) => (0, integer(Some(n))?, ""),
            };
            varint_field(out, 1, kind);
            varint_field(out, 2, int);
            string_field(out, 3, text);
            Ok(())
        }
        // The raw JSON, when there is any.
        ("RawExtension" | "FieldsV1" | "JSON", None) => Ok(()),
        ("RawExtension" | "FieldsV1" | "JSON", Some(v)) => {
            bytes_field(out, 1, v.to_string().as_bytes());
            Ok(())
        }
        // allows (1), schema (2): `true`/`false`, or a schema (which allows).
        ("JSONSchemaPropsOrBool", v) => {
            varint_field(out, 1, u64::from(v.is_some_and(|v| v.as_bool() != Some(false))));
            match v {
                Some(schema @ Value::Object(_)) => write(out, 2, &Shape::Message(schema_props(name)), Some(schema)),
                _ => Ok(()),
            }
        }
        // schema (1), or schemas (2) when it is a list.
        ("JSONSchemaPropsOrArray", Some(Value::Array(items))) => {
            write(out, 2, &Shape::List(Box::new(Shape::Message(schema_props(name)))), Some(&Value::Array(items.clone())))
        }
        // schema (1), or property (2) when it is a list of strings.
        ("JSONSchemaPropsOrStringArray", Some(Value::Array(items))) => {
            write(out, 2, &Shape::List(Box::new(Shape::Str)), Some(&Value::Array(items.clone())))
        }
        ("JSONSchemaPropsOrArray" | "JSONSchemaPropsOrStringArray", v) => match v {
            Some(schema) => write(out, 1, &Shape::Message(schema_props(name)), Some(schema)),
            None => Ok(()),
        },
        _ => Err(format!("{name} has no protobuf encoding here")),
    }
}

/// The JSONSchemaProps struct of the package of union type `name`.
fn schema_props(name: &str) -> String {
    format!("{}.JSONSchemaProps", name.rsplit_once('.').map_or("", |(package, _)| package))
}

/// Writes a field's key: its number and wire type.
fn key(out: &mut Vec<u8>, number: u32, wire_type: u32) {
    varint(out, u64::from(number << 3 | wire_type));
}

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn varint_field(out: &mut Vec<u8>, number: u32, value: u64) {
    key(out, number, 0);
    varint(out, value);
}

fn bytes_field(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    key(out, number, 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn string_field(out: &mut Vec<u8>, number: u32, text: &str) {
    bytes_field(out, number, text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_read_back_as_they_were_written() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "s", "namespace": "n", "labels": {"b": "2", "a": "1"},
                "creationTimestamp": "2026-11-29T13:01:30Z",
                "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u", "blockOwnerDeletion": false}]},
            "data": {"k": "dmFsdWU="}, "type": "Opaque"});
        assert_eq!(super::super::decode(&encode(&secret).unwrap()).unwrap(), secret);
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "x"}},
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
                "template": {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "i",
                    "resources": {"limits": {"cpu": "100m"}}}], "volumes": [{"name": "v", "emptyDir": {}}]}}},
            "status": {}});
        let decoded = super::super::decode(&encode(&deployment).unwrap()).unwrap();
        assert_eq!(decoded["spec"], deployment["spec"]);
    }

    #[test]
    fn fields_are_written_as_the_generated_code_writes_them() {
        // A Status: ListMeta (1) written though empty, its three strings, then the code (6).
        let status = json!({"apiVersion": "v1", "kind": "Status", "status": "Failure", "message": "m", "reason": "NotFound", "code": 404});
        let body = encode(&status).unwrap();
        let raw = b"\x0a\x06\x0a\x00\x12\x00\x1a\x00\x12\x07Failure\x1a\x01m\x22\x08NotFound\x30\x94\x03";
        let mut expected = b"k8s\0\x0a\x0c\x0a\x02v1\x12\x06Status\x12".to_vec();
        expected.push(raw.len() as u8);
        expected.extend_from_slice(raw);
        expected.extend_from_slice(b"\x1a\x00\x22\x00");
        assert_eq!(body, expected);
        assert!(encode(&json!({"apiVersion": "example.com/v1", "kind": "Widget"})).is_err(), "a custom resource has none");
    }
}
