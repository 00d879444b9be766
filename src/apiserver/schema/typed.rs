//! Built-in kinds read through their Go types, the way the real apiserver's decoder reads them:
//! the object goes through the matching `k8s-openapi` type, and the fields the round trip loses
//! are the ones the type does not know. A value of the wrong JSON type for its field is refused
//! in the words of upstream's JSON decoder (`sigs.k8s.io/json`, Go's `UnmarshalTypeError`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use serde_path_to_error::Segment;

use crate::apiserver::go_time::{self, Layout};
use crate::apiserver::schema::go_shapes::GoNode;

/// How an object reads through its type.
#[derive(Clone, Debug, PartialEq)]
pub enum Decoded {
    /// It decodes: the typed round trip, with every field the type knows.
    Typed(Value),
    /// A field is missing that the type requires, which validation reports.
    Incomplete,
    /// A field holds a value of the wrong JSON type: what Go's decoder says of the first one
    /// (`json: cannot unmarshal string into Go struct field ...`).
    WrongType(String),
}

fn round_trip<T: DeserializeOwned + Serialize>(object: &Value) -> Option<Value> {
    decode::<T>("", None, object).typed()
}

impl Decoded {
    fn typed(self) -> Option<Value> {
        match self {
            Self::Typed(value) => Some(value),
            _ => None,
        }
    }
}

/// The first error decoding `object` into `T`: where, and what serde says.
fn first_error<T: DeserializeOwned>(object: &Value) -> Option<(Vec<Segment>, String)> {
    serde_path_to_error::deserialize::<_, T>(object).err().map(|e| (e.path().iter().cloned().collect(), e.inner().to_string()))
}

/// Decodes `object` (of `kind`, whose Go type is `root` where the pinned release's shapes know
/// it) into `T`; only a failure is decoded again, to find where.
fn decode<T: DeserializeOwned + Serialize>(kind: &str, root: Option<GoNode>, object: &Value) -> Decoded {
    // serde takes any RFC 3339 time where Go's `metav1.MicroTime` wants six digits of fraction;
    // its error stops Go's decoder, where a type error is kept until the end
    // (encoding/json's `d.saveError`).
    let micro = root.and_then(|root| micro_time_error(object, root));
    if let Ok(typed) = T::deserialize(object) {
        return match micro {
            Some(error) => Decoded::WrongType(error),
            None => serde_json::to_value(typed).map_or(Decoded::Incomplete, Decoded::Typed),
        };
    }
    let Some((path, message)) = first_error::<T>(object) else { return Decoded::Incomplete };
    if let Some((found, expected)) = wrong_type(&message) {
        return Decoded::WrongType(micro.unwrap_or_else(|| unmarshal_error::<T>(kind, root, object, &path, found, expected)));
    }
    // A string that serde did not take where no type error is: a timestamp, which `metav1.Time`
    // decodes with Go's `time.Parse(time.RFC3339, ...)`.
    match value_at(object, &path).and_then(Value::as_str).and_then(|time| go_time::parse_error(time, Layout::Rfc3339)) {
        Some(error) => Decoded::WrongType(error),
        None => Decoded::Incomplete,
    }
}

/// Go's error for the first `metav1.MicroTime` in `value` (at `node` of its Go type) that does
/// not parse with `metav1.RFC3339Micro`.
fn micro_time_error(value: &Value, node: GoNode) -> Option<String> {
    match value {
        Value::Object(fields) => fields.iter().find_map(|(name, field)| match field.as_str() {
            Some(time) if node.micro_time(name) => go_time::parse_error(time, Layout::Rfc3339Micro),
            _ => micro_time_error(field, node.field(name)?),
        }),
        Value::Array(items) => {
            let (_, item) = node.list()?;
            items.iter().find_map(|value| micro_time_error(value, item))
        }
        _ => None,
    }
}

/// What Go's decoder says of a custom resource's `metadata` that does not decode into
/// `metav1.ObjectMeta`: the apiextensions server decodes it alone, so the error's fields start
/// there (`GetObjectMetaWithOptions`, apiextensions-apiserver
/// pkg/apiserver/schema/objectmeta/coerce.go).
pub fn metadata_type_error(meta: &Value) -> Option<String> {
    match decode::<ObjectMeta>("ObjectMeta", Some(GoNode::object_meta()), meta) {
        Decoded::WrongType(error) => Some(error),
        _ => None,
    }
}

/// The value at a path serde names.
fn value_at<'v>(object: &'v Value, path: &[Segment]) -> Option<&'v Value> {
    path.iter().try_fold(object, |value, segment| match segment {
        Segment::Seq { index } => value.get(index),
        Segment::Map { key } => value.get(key),
        _ => None,
    })
}

/// What serde found and expected in an `invalid type` or `invalid value` error.
fn wrong_type(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: "))?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    (!found.starts_with("null")).then_some((found, expected))
}

/// Go's `UnmarshalTypeError` for the value `found` at `path` where serde `expected` another:
/// the Go struct holding the field, the field's path of JSON names (no indexes, no map keys),
/// and the Go type of the field.
fn unmarshal_error<T: DeserializeOwned>(
    kind: &str,
    root: Option<GoNode>,
    object: &Value,
    path: &[Segment],
    found: &str,
    expected: &str,
) -> String {
    let mut owner = kind.to_string();
    let mut fields = Vec::new();
    for (i, segment) in path.iter().enumerate() {
        let Segment::Map { key } = segment else { continue };
        let container = if i == 0 { Some(kind.to_string()) } else { expected_at::<T>(object, &path[..i], Value::Bool(true)) };
        if container.as_deref() != Some("a map") {
            owner = container.unwrap_or_default();
            fields.push(key.as_str());
        }
    }
    let scalar = |expected: &str| match root.and_then(|root| named_scalar(root, path)) {
        Some(named) if SCALARS.contains(&expected) => named.to_string(),
        _ => go_type(expected),
    };
    let go_type = match expected {
        "a sequence" => {
            let item = expected_at::<T>(object, path, Value::Array(vec![Value::Bool(true)])).unwrap_or_default();
            format!("[]{}", scalar(&item))
        }
        // A map of bytes (Secret.data, ConfigMap.binaryData) names its values' Go type.
        "a map" if expected_at::<T>(object, path, json!({"k": true})).as_deref() == Some(BYTES) => {
            format!("map[string]{}", go_type(BYTES))
        }
        other => scalar(other),
    };
    let integer = go_type.starts_with("int") || go_type.starts_with("uint");
    let value = match found.split_once(' ').map_or(found, |(kind, _)| kind) {
        "string" => "string".to_string(),
        "boolean" => "bool".to_string(),
        "sequence" => "array".to_string(),
        "map" => "object".to_string(),
        _ if integer => format!("number {}", found.rsplit(' ').next().unwrap_or("").trim_matches('`')),
        _ => "number".to_string(),
    };
    if fields.is_empty() {
        // The value decoded is itself of the wrong type (a custom resource's metadata, which
        // is decoded alone): Go's error names no field.
        return format!("json: cannot unmarshal {value} into Go value of type {go_type}");
    }
    format!("json: cannot unmarshal {value} into Go struct field {owner}.{} of type {go_type}", fields.join("."))
}

/// How serde names k8s-openapi's `ByteString`, Go's `[]byte`.
const BYTES: &str = "a base64-encoded string";

/// How serde names the scalars a Go type may name: strings, integers, floats and bools.
const SCALARS: &[&str] = &["a string", "string", "i32", "i64", "f64", "a boolean"];

/// The Go name of the named scalar type (`types.UID`, `v1.PullPolicy`) of the field `path`
/// last names from `root`, from the pinned release's types.
fn named_scalar(root: GoNode, path: &[Segment]) -> Option<&'static str> {
    let mut node = root;
    let mut named = None;
    for segment in path {
        match segment {
            Segment::Map { key } => {
                named = node.named_scalar(key);
                node = node.field(key)?;
            }
            Segment::Seq { .. } => node = node.list()?.1,
            _ => return None,
        }
    }
    named
}

/// What `T` expects at `path` when the value there is `probe` instead.
fn expected_at<T: DeserializeOwned>(object: &Value, path: &[Segment], probe: Value) -> Option<String> {
    let mut probed = object.clone();
    let mut at = &mut probed;
    for segment in path {
        at = match segment {
            Segment::Map { key } => at.get_mut(key.as_str())?,
            Segment::Seq { index } => at.get_mut(*index)?,
            _ => return None,
        };
    }
    *at = probe;
    first_error::<T>(&probed).and_then(|(_, message)| wrong_type(&message).map(|(_, expected)| expected.to_string()))
}

/// The Go name of the type serde describes as `expected`: a struct of `k8s.io/api` or
/// `k8s.io/apimachinery` is `v1.Name`.
fn go_type(expected: &str) -> String {
    match expected {
        "i32" => "int32".into(),
        "i64" => "int64".into(),
        "u8" | "u16" | "u32" | "u64" => format!("uint{}", &expected[1..]),
        "f64" => "float64".into(),
        // A metav1.Time decodes its JSON as a string first (its UnmarshalJSON).
        "a string" | "string" | "a timestamp string" => "string".into(),
        "a boolean" => "bool".into(),
        // k8s-openapi's ByteString is Go's []byte (Secret.data, ConfigMap.binaryData).
        BYTES => "[]uint8".into(),
        "a map" => "map[string]string".into(),
        "Quantity" => "resource.Quantity".into(),
        "IntOrString" => "intstr.IntOrString".into(),
        name => format!("v1.{name}"),
    }
}

/// The maps of resource names to quantities (`ResourceList`s) in built-in kinds.
const RESOURCE_LISTS: &[&str] = &[
    "limits",
    "requests",
    "capacity",
    "allocatable",
    "hard",
    "used",
    "overhead",
    "allocatedResources",
    "max",
    "min",
    "default",
    "defaultRequest",
    "maxLimitRequestRatio",
];

/// Writes each quantity as Go's `resource.Quantity` writes it back: a JSON number as a string
/// (its own decoder reads a number, where the generic one refuses a number for a string), and
/// each in its canonical form ([`crate::quantity::canonical`]): the values of
/// resource lists, and `sizeLimit`. Not for CustomResourceDefinitions, whose schemas use
/// `default` for anything.
pub fn canonical_quantities(kind: &str, object: &mut Value) {
    fn walk(value: &mut Value, in_list: bool) {
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    if in_list || key == "sizeLimit" {
                        // A quantity decodes null as zero; a `sizeLimit` (a pointer) as none.
                        if child.is_null() && in_list {
                            *child = Value::String("0".into());
                        }
                        if child.is_number() {
                            *child = Value::String(child.to_string());
                        }
                        if let Some(canonical) = child.as_str().and_then(crate::quantity::canonical) {
                            *child = Value::String(canonical);
                        }
                    } else {
                        walk(child, RESOURCE_LISTS.contains(&key.as_str()));
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| walk(item, false)),
            _ => {}
        }
    }
    if kind != "CustomResourceDefinition" {
        walk(object, false);
    }
}

/// How an object of a built-in kind decodes, if kubegc knows its type.
fn kind_round_trip(group: &str, kind: &str, object: &Value) -> Option<Decoded> {
    use k8s_openapi::api::{apps::v1 as apps, batch::v1 as batch, coordination::v1 as coordination, core::v1 as core, rbac::v1 as rbac};
    use k8s_openapi::api::{node::v1 as node, policy::v1 as policy};
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
    let root = object["apiVersion"].as_str().and_then(|version| GoNode::root(version, kind));
    Some(match (group, kind) {
        ("", "Namespace") => decode::<core::Namespace>(kind, root, object),
        ("", "Node") => decode::<core::Node>(kind, root, object),
        ("", "Pod") => decode::<core::Pod>(kind, root, object),
        ("", "ConfigMap") => decode::<core::ConfigMap>(kind, root, object),
        ("", "Secret") => decode::<core::Secret>(kind, root, object),
        ("", "Service") => decode::<core::Service>(kind, root, object),
        ("", "ServiceAccount") => decode::<core::ServiceAccount>(kind, root, object),
        ("", "Endpoints") => decode::<core::Endpoints>(kind, root, object),
        ("", "ReplicationController") => decode::<core::ReplicationController>(kind, root, object),
        ("", "PersistentVolume") => decode::<core::PersistentVolume>(kind, root, object),
        ("", "PersistentVolumeClaim") => decode::<core::PersistentVolumeClaim>(kind, root, object),
        ("", "Event") => decode::<core::Event>(kind, root, object),
        ("", "PodTemplate") => decode::<core::PodTemplate>(kind, root, object),
        ("", "ResourceQuota") => decode::<core::ResourceQuota>(kind, root, object),
        ("", "LimitRange") => decode::<core::LimitRange>(kind, root, object),
        ("policy", "PodDisruptionBudget") => decode::<policy::PodDisruptionBudget>(kind, root, object),
        ("node.k8s.io", "RuntimeClass") => decode::<node::RuntimeClass>(kind, root, object),
        ("events.k8s.io", "Event") => decode::<k8s_openapi::api::events::v1::Event>(kind, root, object),
        ("apps", "Deployment") => decode::<apps::Deployment>(kind, root, object),
        ("apps", "ReplicaSet") => decode::<apps::ReplicaSet>(kind, root, object),
        ("apps", "StatefulSet") => decode::<apps::StatefulSet>(kind, root, object),
        ("apps", "DaemonSet") => decode::<apps::DaemonSet>(kind, root, object),
        ("apps", "ControllerRevision") => decode::<apps::ControllerRevision>(kind, root, object),
        ("autoscaling", "Scale") => decode::<k8s_openapi::api::autoscaling::v1::Scale>(kind, root, object),
        ("batch", "Job") => decode::<batch::Job>(kind, root, object),
        ("batch", "CronJob") => decode::<batch::CronJob>(kind, root, object),
        ("coordination.k8s.io", "Lease") => decode::<coordination::Lease>(kind, root, object),
        ("discovery.k8s.io", "EndpointSlice") => decode::<k8s_openapi::api::discovery::v1::EndpointSlice>(kind, root, object),
        ("rbac.authorization.k8s.io", "Role") => decode::<rbac::Role>(kind, root, object),
        ("rbac.authorization.k8s.io", "RoleBinding") => decode::<rbac::RoleBinding>(kind, root, object),
        ("rbac.authorization.k8s.io", "ClusterRole") => decode::<rbac::ClusterRole>(kind, root, object),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding") => decode::<rbac::ClusterRoleBinding>(kind, root, object),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => decode::<apiextensions::CustomResourceDefinition>(kind, root, object),
        _ => return None,
    })
}

/// Paths of fields present in `input` but not in its typed round trip.
fn walk_unknown(input: &Value, typed: &Value, node: Option<GoNode>, path: &str, out: &mut Vec<String>) {
    match (input, typed) {
        (Value::Object(i), Value::Object(t)) => {
            for (k, v) in i {
                let child = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match t.get(k) {
                    Some(tv) => walk_unknown(v, tv, node.and_then(|n| n.field(k)), &child, out),
                    // A null leaves no trace in the typed object: its Go type says whether the
                    // field is known.
                    None if v.is_null() && node.is_none_or(|n| n.allows(k)) => {}
                    None => out.push(child),
                }
            }
        }
        (Value::Array(i), Value::Array(t)) => {
            let item = node.and_then(GoNode::list).map(|(_, item)| item);
            for (n, (iv, tv)) in i.iter().zip(t).enumerate() {
                walk_unknown(iv, tv, item, &format!("{path}[{n}]"), out);
            }
        }
        _ => {}
    }
}

/// Removes the field at a dotted path with `[n]` indexes.
pub fn remove_path(value: &mut Value, path: &str) {
    let mut cur = value;
    let segments: Vec<&str> = path.split('.').collect();
    for (i, seg) in segments.iter().enumerate() {
        let (name, indexes) = match seg.find('[') {
            Some(p) => (&seg[..p], &seg[p..]),
            None => (*seg, ""),
        };
        let last = i + 1 == segments.len() && indexes.is_empty();
        if last {
            if let Some(m) = cur.as_object_mut() {
                m.remove(name);
            }
            return;
        }
        cur = &mut cur[name];
        for idx in indexes.trim_matches(|c| c == '[' || c == ']').split("][").filter(|s| !s.is_empty()) {
            let Ok(n) = idx.parse::<usize>() else { return };
            cur = &mut cur[n];
        }
    }
}

/// The fields of `input` its typed round trip `typed` lost, sorted.
fn unknown_fields(input: &Value, typed: &Value, node: Option<GoNode>) -> Vec<String> {
    let mut out = Vec::new();
    walk_unknown(input, typed, node, "", &mut out);
    out.sort();
    out
}

/// How an object of built-in kind `kind` in `group` reads through its type: the fields its type
/// does not know, sorted; `Ok(None)` when kubegc knows no type for the kind or a required field
/// is missing (validation then reports it); the decoder's error for a value of the wrong type.
pub fn unknown_fields_of(group: &str, kind: &str, object: &Value) -> Result<Option<Vec<String>>, String> {
    match kind_round_trip(group, kind, object) {
        Some(Decoded::Typed(typed)) => {
            let root = object["apiVersion"].as_str().and_then(|version| GoNode::root(version, kind));
            Ok(Some(unknown_fields(object, &typed, root)))
        }
        Some(Decoded::WrongType(error)) => Err(error),
        Some(Decoded::Incomplete) | None => Ok(None),
    }
}

/// The fields of object metadata `meta` that `ObjectMeta` does not know, sorted (none when it
/// does not decode).
pub fn unknown_metadata_fields(meta: &Value) -> Vec<String> {
    round_trip::<ObjectMeta>(meta).map(|typed| unknown_fields(meta, &typed, Some(GoNode::object_meta()))).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_value_of_the_wrong_type_is_refused_in_the_go_decoder_s_words() {
        let deployment = |spec: Value| json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": spec});
        let template = json!({"spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": "x"}]}]}});
        let error = |object: &Value| unknown_fields_of("apps", "Deployment", object).unwrap_err();
        assert_eq!(
            error(&deployment(json!({"selector": {}, "template": template}))),
            "json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32"
        );
        assert_eq!(
            error(&deployment(json!({"replicas": "3", "selector": {}, "template": {}}))),
            "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
        );
        assert_eq!(
            error(&deployment(json!({"replicas": 2.5, "selector": {}, "template": {}}))),
            "json: cannot unmarshal number 2.5 into Go struct field DeploymentSpec.spec.replicas of type int32"
        );
        let stamped = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "creationTimestamp": []}});
        assert_eq!(
            unknown_fields_of("", "ConfigMap", &stamped).unwrap_err(),
            "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.creationTimestamp of type string"
        );
        let labels = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"a": 1}}});
        assert_eq!(
            unknown_fields_of("", "ConfigMap", &labels).unwrap_err(),
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"
        );
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": {}}});
        assert_eq!(
            unknown_fields_of("", "Pod", &pod).unwrap_err(),
            "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container"
        );
        let uid = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "uid": []}});
        assert_eq!(
            unknown_fields_of("", "Secret", &uid).unwrap_err(),
            "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.uid of type types.UID"
        );
        let policy = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i", "imagePullPolicy": 1}]}});
        assert_eq!(
            unknown_fields_of("", "Pod", &policy).unwrap_err(),
            "json: cannot unmarshal number into Go struct field Container.spec.containers.imagePullPolicy of type v1.PullPolicy"
        );
        let namespace = |finalizers: Value| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}, "spec": {"finalizers": finalizers}});
        assert_eq!(
            unknown_fields_of("", "Namespace", &namespace(json!([1]))).unwrap_err(),
            "json: cannot unmarshal number into Go struct field NamespaceSpec.spec.finalizers of type v1.FinalizerName"
        );
        assert_eq!(
            unknown_fields_of("", "Namespace", &namespace(json!("x"))).unwrap_err(),
            "json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type []v1.FinalizerName"
        );
        let mut limits = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": 1}}}]}});
        canonical_quantities("Pod", &mut limits);
        assert_eq!(limits["spec"]["containers"][0]["resources"]["limits"]["cpu"], "1", "a quantity may be a number");
        assert!(unknown_fields_of("", "Pod", &limits).is_ok());
        let missing = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"image": "i"}]}});
        assert!(unknown_fields_of("", "Pod", &missing).is_ok(), "a missing field is validation's");
    }
}
