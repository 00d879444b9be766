//! What server-side apply needs to know of a type: which lists are sets or maps keyed by some
//! of their items' fields, and which structs, maps and lists are atomic. Everything else is
//! granular: objects merge field by field, lists not listed are atomic (as a custom resource's
//! list without `x-kubernetes-list-type`).
//!
//! A built-in kind follows the markers of its Go type in the pinned release (`+listType`,
//! `+listMapKey`, `+structType=atomic`, `+mapType=atomic`, `+default`: [`GoNode`]).
//! A custom resource follows its CRD's `openAPIV3Schema` (`x-kubernetes-list-type`,
//! `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`).

use serde_json::Value;

use crate::apiserver::schema::go_shapes::{GoNode, Merge, Shape};

/// How a list merges.
#[derive(Clone, Debug, PartialEq)]
pub enum ListType {
    /// Replaced whole.
    Atomic,
    /// A set of scalars.
    Set,
    /// Items told apart by these key fields (sorted by name), each with its default.
    Map(Vec<(String, Option<Value>)>),
}

/// The JSON value the schema takes at a node (structured-merge-diff's atoms: a map, a list, or
/// a scalar of one type), or any where kubegc does not check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expected {
    /// An object.
    Map,
    /// An array.
    List,
    /// A number.
    Numeric,
    /// A string.
    String,
    /// A boolean.
    Boolean,
    /// A string, number or bool: a time or an int-or-string (structured-merge-diff's untyped
    /// scalar).
    AnyScalar,
    /// Anything: a type with its own JSON encoding (a quantity, raw JSON), or no schema.
    Any,
}

/// The schema of one node of an object.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    /// The root of a custom resource, with its version's `openAPIV3Schema` if it has one.
    CustomRoot(Option<&'a Value>),
    /// A node of a built-in kind's Go type.
    Go(GoNode),
    /// A node of a CRD's schema, and whether it or an ancestor preserves unknown fields
    /// (structured-merge-diff's conversion of the schema passes
    /// `x-kubernetes-preserve-unknown-fields` down to every descendant).
    Json(&'a Value, bool),
    /// An object no schema describes (a custom resource's preserved unknown fields): granular,
    /// its keys undeclared; its lists atomic.
    Deduced,
}

/// The fields of every kind's root that its schema need not declare.
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

impl<'a> Node<'a> {
    /// The root node of an object of `kind` at `api_version`; `crd_schema` for a custom
    /// resource. A kind with no Go type is granular throughout.
    pub fn root(api_version: &str, kind: &str, custom: bool, crd_schema: Option<&'a Value>) -> Self {
        if custom {
            return Self::CustomRoot(crd_schema);
        }
        GoNode::root(api_version, kind).map_or(Self::Deduced, Self::Go)
    }

    /// The node of field `name` of this (object) node.
    pub fn field(self, name: &str) -> Node<'a> {
        match self {
            Self::CustomRoot(_) if name == "metadata" => Self::Go(GoNode::object_meta()),
            Self::CustomRoot(None) => Self::Deduced,
            Self::CustomRoot(Some(schema)) => json_field(schema, false, name),
            Self::Json(schema, preserving) => json_field(schema, preserving, name),
            Self::Go(node) => node.field(name).map_or(Self::Deduced, Self::Go),
            Self::Deduced => Self::Deduced,
        }
    }

    /// What value this node takes.
    pub fn expects(self) -> Expected {
        match self {
            Self::CustomRoot(_) => Expected::Map,
            Self::Go(node) => match node.value() {
                Shape::Scalar(Value::String(_)) | Shape::Bytes => Expected::String,
                Shape::Scalar(Value::Number(_)) => Expected::Numeric,
                Shape::Scalar(Value::Bool(_)) => Expected::Boolean,
                Shape::List(_) => Expected::List,
                Shape::Map(_) | Shape::Struct(_) => Expected::Map,
                Shape::AnyScalar(_) => Expected::AnyScalar,
                _ => Expected::Any,
            },
            Self::Json(schema, _) if schema["x-kubernetes-int-or-string"] == true => Expected::Any,
            Self::Json(schema, _) => match schema["type"].as_str() {
                Some("object") => Expected::Map,
                Some("array") => Expected::List,
                Some("integer" | "number") => Expected::Numeric,
                Some("string") => Expected::String,
                Some("boolean") => Expected::Boolean,
                _ => Expected::Any,
            },
            Self::Deduced => Expected::Any,
        }
    }

    /// Whether an object at this node is atomic.
    pub fn atomic(self) -> bool {
        match self {
            Self::Go(node) => node.atomic(),
            Self::Json(schema, _) => schema["x-kubernetes-map-type"] == "atomic",
            _ => false,
        }
    }

    /// Whether `name` is a declared field of this (object) node rather than a key of a map: a
    /// declared field with a non-empty object value is not itself a member of a field set.
    pub fn declares(self, name: &str) -> bool {
        match self {
            Self::Go(node) => node.declares(name),
            Self::CustomRoot(schema) => META_FIELDS.contains(&name) || schema.is_some_and(|s| declared(s, name)),
            Self::Json(schema, _) => (embedded(schema) && META_FIELDS.contains(&name)) || declared(schema, name),
            Self::Deduced => false,
        }
    }

    /// Whether an object at this node may hold field `name` (structured-merge-diff refuses an
    /// applied `field not declared in schema`): any key of a map or of an object no schema
    /// describes; of a built-in struct, its fields; of a CRD's schema node, a declared property or
    /// an additional one, or any where unknown fields are preserved or no property is declared.
    pub fn allows(self, name: &str) -> bool {
        match self {
            Self::Go(node) => node.allows(name),
            Self::CustomRoot(Some(schema)) => {
                META_FIELDS.contains(&name)
                    || declared(schema, name)
                    || schema.get("additionalProperties").is_some_and(|a| a != false)
                    || preserves(schema)
            }
            Self::Json(schema, preserving) => {
                if self.declares(name) {
                    return true;
                }
                match schema.get("additionalProperties") {
                    Some(additional) => additional != false,
                    None => preserving || preserves(schema) || schema["properties"].as_object().is_none_or(|p| p.is_empty()),
                }
            }
            _ => true,
        }
    }

    /// How a list at this node merges, and the node of its items.
    pub fn list(self) -> (ListType, Node<'a>) {
        match self {
            Self::Go(node) => match node.list() {
                Some((Merge::Set, item)) => (ListType::Set, Self::Go(item)),
                Some((Merge::Map(keys), item)) => (ListType::Map(sorted(keys.clone())), Self::Go(item)),
                Some((_, item)) => (ListType::Atomic, Self::Go(item)),
                None => (ListType::Atomic, Self::Deduced),
            },
            Self::Json(schema, preserving) => {
                let items = Self::Json(&schema["items"], preserving || preserves(schema));
                match schema["x-kubernetes-list-type"].as_str() {
                    Some("set") => (ListType::Set, items),
                    Some("map") => {
                        let keys = schema["x-kubernetes-list-map-keys"]
                            .as_array()
                            .map(|keys| keys.iter().filter_map(Value::as_str).collect::<Vec<_>>())
                            .unwrap_or_default()
                            .into_iter()
                            .map(|k| (k.to_string(), schema["items"]["properties"][k].get("default").cloned()))
                            .collect();
                        (ListType::Map(sorted(keys)), items)
                    }
                    _ => (ListType::Atomic, items),
                }
            }
            _ => (ListType::Atomic, Self::Deduced),
        }
    }
}

fn sorted(mut keys: Vec<(String, Option<Value>)>) -> Vec<(String, Option<Value>)> {
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    keys
}

fn declared(schema: &Value, name: &str) -> bool {
    schema["properties"].get(name).is_some()
}

fn preserves(schema: &Value) -> bool {
    schema["x-kubernetes-preserve-unknown-fields"] == true
}

fn embedded(schema: &Value) -> bool {
    schema["x-kubernetes-embedded-resource"] == true
}

/// The node of field `name` of CRD schema node `schema` (`preserving`: an ancestor preserves
/// unknown fields). An embedded resource's metadata is `ObjectMeta`, as its schema is published.
fn json_field<'a>(schema: &'a Value, preserving: bool, name: &str) -> Node<'a> {
    let preserving = preserving || preserves(schema);
    if name == "metadata" && embedded(schema) {
        return Node::Go(GoNode::object_meta());
    }
    if let Some(property) = schema["properties"].get(name) {
        return Node::Json(property, preserving);
    }
    match schema.get("additionalProperties") {
        Some(additional) if additional.is_object() => Node::Json(additional, preserving),
        _ => Node::Deduced,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_binding_s_role_ref_is_atomic() {
        for kind in ["RoleBinding", "ClusterRoleBinding"] {
            assert!(Node::root("rbac.authorization.k8s.io/v1", kind, false, None).field("roleRef").atomic(), "{kind}");
        }
    }

    #[test]
    fn selectors_and_env_references_are_atomic() {
        let budget = Node::root("policy/v1", "PodDisruptionBudget", false, None);
        assert!(budget.field("spec").field("selector").atomic());
        let pod_spec = Node::root("v1", "Pod", false, None).field("spec");
        let (_, container) = pod_spec.field("containers").list();
        let (_, env) = container.field("env").list();
        assert!(env.field("valueFrom").field("fieldRef").atomic());
        assert!(!env.field("valueFrom").atomic());
    }

    #[test]
    fn a_definition_s_conditions_are_keyed_by_type() {
        let definition = Node::root("apiextensions.k8s.io/v1", "CustomResourceDefinition", false, None);
        assert_eq!(definition.field("status").field("conditions").list().0, ListType::Map(vec![("type".into(), Some(json!("")))]));
    }

    #[test]
    fn pod_templates_reach_the_container_keys() {
        let deployment = Node::root("apps/v1", "Deployment", false, None);
        let pod_spec = deployment.field("spec").field("template").field("spec");
        let (list, container) = pod_spec.field("containers").list();
        // A required string's OpenAPI default is "", a required number's 0.
        assert_eq!(list, ListType::Map(vec![("name".into(), Some(json!("")))]));
        let (ports, _) = container.field("ports").list();
        assert_eq!(ports, ListType::Map(vec![("containerPort".into(), Some(json!(0))), ("protocol".into(), Some(json!("TCP")))]));
        assert!(deployment.field("spec").field("selector").atomic());
        assert_eq!(pod_spec.field("tolerations").list().0, ListType::Atomic);
    }

    #[test]
    fn metadata_lists_are_the_same_for_every_kind() {
        for root in [Node::root("v1", "ConfigMap", false, None), Node::root("example.com/v1", "Thing", true, None)] {
            let meta = root.field("metadata");
            assert_eq!(meta.field("finalizers").list().0, ListType::Set);
            let (refs, item) = meta.field("ownerReferences").list();
            assert_eq!(refs, ListType::Map(vec![("uid".into(), Some(json!("")))]));
            assert!(item.atomic());
        }
    }

    #[test]
    fn custom_resources_follow_their_schema() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port"],
                      "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "args": {"type": "array", "items": {"type": "string"}},
            "selector": {"type": "object", "x-kubernetes-map-type": "atomic"}}}}});
        let spec = Node::root("example.com/v1", "Thing", true, Some(&schema)).field("spec");
        assert_eq!(spec.field("ports").list().0, ListType::Map(vec![("port".into(), None)]));
        assert_eq!(spec.field("tags").list().0, ListType::Set);
        assert_eq!(spec.field("args").list().0, ListType::Atomic);
        assert!(spec.field("selector").atomic());
        assert!(!Node::root("example.com/v1", "Thing", true, None).declares("spec"));
    }
}
