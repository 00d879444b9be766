//! Objects of built-in kinds as kube-apiserver holds them: decoded into their Go type and
//! encoded again. A field its Go type marks `omitempty` is dropped when null, empty or zero
//! (`omitzero`: when its zero value); a field without it is written even when absent (a scalar
//! as its zero value, a nil list or map as null); a struct is written even when absent, with its own fields by the same rules; a
//! null in a list becomes its element's zero value. An empty list or map is kept as none, as
//! the object is stored as protobuf, which cannot tell them apart (and a create's or update's
//! answer is the stored object read back, a dry run's too: k8s.io/apiserver
//! pkg/registry/generic/registry/dryrun.go `copyInto`). `go_shapes.json` is what
//! `upstream/cmd/go-shapes` prints for the pinned release.
//!
//! The same types, with their `+listType`, `+listMapKey`, `+mapType` and `+structType` markers,
//! tell server-side apply how each field merges ([`GoNode`]), as the OpenAPI definitions
//! kube-apiserver builds its field management from.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use serde_json::{Map, Value};

use crate::apiserver::go_time::Layout;

/// How values of a Go type decode and encode (see `upstream/cmd/go-shapes`).
#[derive(Debug)]
pub enum Shape {
    /// A string, number or bool, with its zero value.
    Scalar(Value),
    /// A type with its own JSON encoding, kept as sent, with the encoding of its zero value.
    Opaque(Value),
    /// The same, of a type server-side apply takes as any scalar and nothing else (times,
    /// int-or-strings).
    AnyScalar(Value),
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

/// How server-side apply merges a field (its markers in the Go type).
#[derive(Debug, PartialEq)]
pub enum Merge {
    /// Field by field (a struct or map), or whole (a list with no `+listType`).
    Granular,
    /// Replaced whole (`+mapType=atomic`).
    Atomic,
    /// A list of scalars merged as a set (`+listType=set`).
    Set,
    /// A list of items told apart by these key fields, each with its default (`+listType=map`,
    /// `+listMapKey`).
    Map(Vec<(String, Option<Value>)>),
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
    merge: Merge,
}

/// The Go types of the pinned release's built-in kinds.
struct Shapes {
    /// The struct of each kind, by `apiVersion kind`.
    kinds: HashMap<String, Shape>,
    /// The fields of each struct.
    types: HashMap<String, Vec<Field>>,
    /// The structs replaced whole (`+structType=atomic`).
    atomic: HashSet<String>,
    /// The Go names of the named scalar types the fields of each struct hold, by field.
    named: HashMap<String, HashMap<String, String>>,
    /// The fields of each struct that hold a `metav1.MicroTime`.
    micro: HashMap<String, HashSet<String>>,
}

/// The struct of object metadata.
const OBJECT_META: &str = "apimachinery/pkg/apis/meta/v1.ObjectMeta";

static SHAPES: LazyLock<Shapes> = LazyLock::new(|| {
    let file: Value = serde_json::from_str(include_str!("go_shapes.json")).expect("go_shapes.json is JSON");
    let text = |v: &Value| v.as_str().expect("go_shapes.json names are strings").to_string();
    let kinds = file["kinds"].as_object().into_iter().flatten().map(|(k, v)| (k.clone(), Shape::Struct(text(v)))).collect();
    let types = file["types"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, fields)| {
            let fields = fields.as_object().into_iter().flatten();
            let fields = fields.map(|(field, tag)| {
                let options = text(&tag[0]);
                let has = |option: &str| options.split(',').any(|o| o == option);
                let (omitempty, omitzero) = (has("omitempty"), has("omitzero"));
                Field { name: field.clone(), omitempty, omitzero, shape: parse(&text(&tag[1])), merge: parse_merge(&text(&tag[2])) }
            });
            (name.clone(), fields.collect())
        })
        .collect();
    let atomic = file["atomic"].as_array().into_iter().flatten().map(text).collect();
    let named = file["named"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, fields)| (name.clone(), fields.as_object().into_iter().flatten().map(|(f, t)| (f.clone(), text(t))).collect()))
        .collect();
    let micro = file["micro"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, fields)| (name.clone(), fields.as_array().into_iter().flatten().map(text).collect()))
        .collect();
    Shapes { kinds, types, atomic, named, micro }
});

/// Whether `go_type` (`types.UID`, `v1.PullPolicy`) is a named scalar type some field of a
/// built-in kind holds.
pub fn is_named_scalar(go_type: &str) -> bool {
    SHAPES.named.values().any(|fields| fields.values().any(|name| name == go_type))
}

/// Reads how a field merges as `upstream/cmd/go-shapes` writes it.
fn parse_merge(text: &str) -> Merge {
    match text {
        "atomic" => Merge::Atomic,
        "set" => Merge::Set,
        _ => match text.strip_prefix("map:") {
            Some(keys) => Merge::Map(
                keys.split(',')
                    .map(|key| match key.split_once('=') {
                        Some((key, default)) => (key.to_string(), Some(serde_json::from_str(default).expect("a key's default is JSON"))),
                        None => (key.to_string(), None),
                    })
                    .collect(),
            ),
            None => Merge::Granular,
        },
    }
}

/// Reads a shape as `upstream/cmd/go-shapes` writes it.
fn parse(text: &str) -> Shape {
    let zero = |json: &str| serde_json::from_str(json).expect("a shape's zero value is JSON");
    match text.split_once(':') {
        None => Shape::Bytes,
        Some(("s", json)) => Shape::Scalar(zero(json)),
        Some(("o", json)) => Shape::Opaque(zero(json)),
        Some(("u", json)) => Shape::AnyScalar(zero(json)),
        Some(("p", inner)) => Shape::Pointer(Box::new(parse(inner))),
        Some(("l", inner)) => Shape::List(Box::new(parse(inner))),
        Some(("m", inner)) => Shape::Map(Box::new(parse(inner))),
        Some((_, name)) => Shape::Struct(name.to_string()),
    }
}

/// `object` (of `kind` at `api_version`) as kube-apiserver encodes it once decoded into its Go
/// type and stored; unchanged for a kind with no Go type here.
pub fn round_trip(api_version: &str, kind: &str, object: &Value) -> Value {
    with_shape(api_version, kind, object, Stage::Stored)
}

/// `object` as kube-apiserver encodes it once decoded into its Go type, before it is stored:
/// an empty list or map sent for a field without `omitempty` is still there (field management
/// records it: a Role sent with `rules: []` has `f:rules`), and is gone once stored.
pub fn decoded(api_version: &str, kind: &str, object: &Value) -> Value {
    with_shape(api_version, kind, object, Stage::Decoded)
}

/// Where an object is on its way into the store.
#[derive(Clone, Copy, PartialEq)]
enum Stage {
    /// Decoded from a request into its Go type.
    Decoded,
    /// Stored as protobuf and read back.
    Stored,
}

fn with_shape(api_version: &str, kind: &str, object: &Value, stage: Stage) -> Value {
    match SHAPES.kinds.get(&format!("{api_version} {kind}")) {
        Some(shape) => encode(Some(object), shape, stage),
        None => object.clone(),
    }
}

/// A node of a built-in object's Go type, for server-side apply: the shape of the value there
/// and how the field holding it merges.
#[derive(Clone, Copy, Debug)]
pub struct GoNode {
    shape: &'static Shape,
    merge: &'static Merge,
}

impl GoNode {
    /// The root of an object of `kind` at `api_version`, if it is a built-in kind.
    pub fn root(api_version: &str, kind: &str) -> Option<Self> {
        SHAPES.kinds.get(&format!("{api_version} {kind}")).map(|shape| Self { shape, merge: &Merge::Granular })
    }

    /// Object metadata (`metav1.ObjectMeta`), as every kind holds it.
    pub fn object_meta() -> Self {
        static META: LazyLock<Shape> = LazyLock::new(|| Shape::Struct(OBJECT_META.to_string()));
        Self { shape: &META, merge: &Merge::Granular }
    }

    /// The value's shape, pointers followed.
    pub fn value(self) -> &'static Shape {
        let mut shape = self.shape;
        while let Shape::Pointer(inner) = shape {
            shape = inner;
        }
        shape
    }

    /// The fields of the struct here (none for any other shape or an unknown struct).
    fn fields(self) -> &'static [Field] {
        match self.value() {
            Shape::Struct(name) => SHAPES.types.get(name).map_or(&[], Vec::as_slice),
            _ => &[],
        }
    }

    /// The node of field or map key `name` here, if the type has one.
    pub fn field(self, name: &str) -> Option<Self> {
        match self.value() {
            Shape::Map(element) => Some(Self { shape: element, merge: &Merge::Granular }),
            _ => self.fields().iter().find(|f| f.name == name).map(|f| Self { shape: &f.shape, merge: &f.merge }),
        }
    }

    /// Whether `name` is a field of the struct here (not a key of a map).
    pub fn declares(self, name: &str) -> bool {
        self.fields().iter().any(|f| f.name == name)
    }

    /// The Go name of the named scalar type field `name` of the struct here holds (`types.UID`
    /// for `uid`), if it holds one.
    pub fn named_scalar(self, name: &str) -> Option<&'static str> {
        match self.value() {
            Shape::Struct(owner) => SHAPES.named.get(owner)?.get(name).map(String::as_str),
            _ => None,
        }
    }

    /// Whether field `name` of the struct here holds a `metav1.MicroTime`.
    pub fn micro_time(self, name: &str) -> bool {
        match self.value() {
            Shape::Struct(owner) => SHAPES.micro.get(owner).is_some_and(|fields| fields.contains(name)),
            _ => false,
        }
    }

    /// Whether an object here may hold `name`: any key of a map, a field of a struct.
    pub fn allows(self, name: &str) -> bool {
        match self.value() {
            Shape::Struct(_) => self.declares(name),
            _ => true,
        }
    }

    /// Whether the value here is replaced whole: its field is `+mapType=atomic` or its struct
    /// `+structType=atomic`.
    pub fn atomic(self) -> bool {
        *self.merge == Merge::Atomic || matches!(self.value(), Shape::Struct(name) if SHAPES.atomic.contains(name))
    }

    /// If the value here is a list: how it merges and the node of its items.
    pub fn list(self) -> Option<(&'static Merge, Self)> {
        match self.value() {
            Shape::List(element) => Some((self.merge, Self { shape: element, merge: &Merge::Granular })),
            _ => None,
        }
    }
}

/// How a value sent as `value` (`None` when absent) of `shape` is encoded at `stage`. A value of
/// the wrong JSON type is left as sent: decoding refuses it before this is asked.
fn encode(value: Option<&Value>, shape: &Shape, stage: Stage) -> Value {
    let value = value.filter(|v| !v.is_null());
    match (shape, value) {
        (Shape::Scalar(zero) | Shape::Opaque(zero) | Shape::AnyScalar(zero), None) => zero.clone(),
        (Shape::Bytes | Shape::Pointer(_) | Shape::List(_) | Shape::Map(_), None) => Value::Null,
        (Shape::Pointer(inner), Some(v)) => encode(Some(v), inner, stage),
        // Stored as protobuf, an empty list or map reads back as none.
        (Shape::List(_), Some(Value::Array(items))) if items.is_empty() && stage == Stage::Stored => Value::Null,
        (Shape::Map(_), Some(Value::Object(entries))) if entries.is_empty() && stage == Stage::Stored => Value::Null,
        (Shape::List(element), Some(Value::Array(items))) => items.iter().map(|item| encode(Some(item), element, stage)).collect(),
        (Shape::Map(element), Some(Value::Object(entries))) => {
            Value::Object(entries.iter().map(|(k, v)| (k.clone(), encode(Some(v), element, stage))).collect())
        }
        (Shape::Struct(name), Some(Value::Object(fields))) => encode_struct(name, fields, stage),
        (Shape::Struct(name), None) => encode_struct(name, &Map::new(), stage),
        (_, Some(v)) => v.clone(),
    }
}

/// A time as Go writes it once decoded (`text` a field of `shape`, `micro` when a
/// `metav1.MicroTime`): in UTC, to the second, or to the microsecond for a MicroTime
/// (`metav1.Time.MarshalJSON`, `metav1.MicroTime.MarshalJSON`). `None` for any other field, or
/// a time this reader does not take, which is left as sent.
fn as_time(text: &str, shape: &Shape, micro: bool) -> Option<String> {
    let mut shape = shape;
    while let Shape::Pointer(inner) = shape {
        shape = inner;
    }
    // Of the types with their own encoding that apply takes as any scalar, times alone have a
    // null zero value (an int-or-string's is 0).
    if !matches!(shape, Shape::AnyScalar(Value::Null)) {
        return None;
    }
    let time = chrono::DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&chrono::Utc);
    Some(if micro { Layout::Rfc3339Micro } else { Layout::Rfc3339 }.format(time))
}

/// Struct `name` decoded from `sent` and encoded: its fields by their tags, others dropped.
fn encode_struct(name: &str, sent: &Map<String, Value>, stage: Stage) -> Value {
    let Some(fields) = SHAPES.types.get(name) else { return Value::Object(sent.clone()) };
    let mut out = Map::new();
    for field in fields {
        let mut value = encode(sent.get(&field.name), &field.shape, stage);
        if let Some(time) =
            value.as_str().and_then(|text| as_time(text, &field.shape, SHAPES.micro.get(name).is_some_and(|m| m.contains(&field.name))))
        {
            value = Value::String(time);
        }
        let left_out =
            (field.omitempty && is_empty(&value, &field.shape)) || (field.omitzero && value == encode(None, &field.shape, stage));
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
        Shape::Opaque(_) | Shape::AnyScalar(_) | Shape::Struct(_) => false,
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
        let before_storage = decoded("rbac.authorization.k8s.io/v1", "Role", &empty_rules);
        assert_eq!(before_storage["rules"], json!([]), "decoded, before it is stored, the empty list is there");
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

    #[test]
    fn apply_merges_by_the_markers_of_the_go_types() {
        let spec = GoNode::root("apps/v1", "DaemonSet").unwrap().field("spec").unwrap().field("template").unwrap().field("spec").unwrap();
        assert!(spec.field("nodeSelector").unwrap().atomic(), "+mapType=atomic");
        let affinity = spec.field("affinity").unwrap().field("nodeAffinity").unwrap();
        assert!(affinity.field("requiredDuringSchedulingIgnoredDuringExecution").unwrap().atomic(), "+structType=atomic");
        let (merge, container) = spec.field("containers").unwrap().list().unwrap();
        assert_eq!(*merge, Merge::Map(vec![("name".into(), Some(json!("")))]), "a required string defaults to \"\"");
        let (ports, _) = container.field("ports").unwrap().list().unwrap();
        assert_eq!(*ports, Merge::Map(vec![("containerPort".into(), Some(json!(0))), ("protocol".into(), Some(json!("TCP")))]));
        assert!(spec.field("labels").is_none() && !spec.declares("labels"));
        assert!(GoNode::object_meta().field("labels").unwrap().field("any-key").is_some());
        assert!(GoNode::object_meta().field("labels").unwrap().allows("any-key"));
        assert!(!spec.allows("Containers") && spec.allows("containers"));
    }
}
