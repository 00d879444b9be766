//! What server-side apply needs to know of a type: which lists are sets or maps keyed by some
//! of their items' fields, and which structs, maps and lists are atomic. Everything else is
//! granular: objects merge field by field, lists not listed are atomic (as a custom resource's
//! list without `x-kubernetes-list-type`).
//!
//! For built-in kinds the knowledge is the small table [`FIELDS`], taken from the markers of
//! the Go types in `k8s.io/api` and `k8s.io/apimachinery` (`+listType`, `+listMapKey`,
//! `+structType=atomic`, `+mapType=atomic`, `+default`), for the kinds the garbage-collection
//! specification writes: object metadata, pods and the pod templates of workloads, services.
//! A custom resource follows its CRD's `openAPIV3Schema` (`x-kubernetes-list-type`,
//! `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`).

use serde_json::Value;

/// What a field of a built-in type holds.
#[derive(Clone, Copy, Debug)]
pub enum Holds {
    /// A struct of the table, by name (a name with no rows is a struct of granular fields).
    Type(&'static str),
    /// An atomic struct, map or list: owned and replaced whole.
    Atomic,
    /// A list of scalars merged as a set (`+listType=set`).
    Set,
    /// A list merged by the key fields of its items (`+listType=map`, `+listMapKey`), each key
    /// with its schema default; the items hold `&Holds`.
    Map(&'static [(&'static str, Option<&'static str>)], &'static Holds),
}

const OBJECT_META: Holds = Holds::Type("ObjectMeta");
const POD_SPEC: Holds = Holds::Type("PodSpec");
const POD_TEMPLATE: Holds = Holds::Type("PodTemplateSpec");
const CONTAINERS: Holds = Holds::Map(&[("name", None)], &Holds::Type("Container"));
const BY_NAME: Holds = Holds::Map(&[("name", None)], &Holds::Type(""));

/// The table: (type, field, what the field holds). Rows name only what is not the default.
const FIELDS: &[(&str, &str, Holds)] = &[
    // metav1.ObjectMeta; OwnerReference is `+structType=atomic`.
    ("ObjectMeta", "ownerReferences", Holds::Map(&[("uid", None)], &Holds::Atomic)),
    ("ObjectMeta", "finalizers", Holds::Set),
    // core/v1 PodTemplateSpec, PodSpec, Container (EphemeralContainer has the same fields).
    ("PodTemplateSpec", "metadata", OBJECT_META),
    ("PodTemplateSpec", "spec", POD_SPEC),
    ("PodSpec", "containers", CONTAINERS),
    ("PodSpec", "initContainers", CONTAINERS),
    ("PodSpec", "ephemeralContainers", CONTAINERS),
    ("PodSpec", "volumes", BY_NAME),
    ("PodSpec", "imagePullSecrets", Holds::Map(&[("name", None)], &Holds::Atomic)),
    ("PodSpec", "hostAliases", Holds::Map(&[("ip", None)], &Holds::Type(""))),
    ("PodSpec", "schedulingGates", BY_NAME),
    ("PodSpec", "resourceClaims", BY_NAME),
    ("PodSpec", "topologySpreadConstraints", Holds::Map(&[("topologyKey", None), ("whenUnsatisfiable", None)], &Holds::Type(""))),
    ("Container", "ports", Holds::Map(&[("containerPort", None), ("protocol", Some("TCP"))], &Holds::Type(""))),
    ("Container", "env", Holds::Map(&[("name", None)], &Holds::Type("EnvVar"))),
    // core/v1 EnvVarSource: each reference is `+structType=atomic`.
    ("EnvVar", "valueFrom", Holds::Type("EnvVarSource")),
    ("EnvVarSource", "fieldRef", Holds::Atomic),
    ("EnvVarSource", "resourceFieldRef", Holds::Atomic),
    ("EnvVarSource", "configMapKeyRef", Holds::Atomic),
    ("EnvVarSource", "secretKeyRef", Holds::Atomic),
    ("Container", "volumeMounts", Holds::Map(&[("mountPath", None)], &Holds::Type(""))),
    ("Container", "volumeDevices", Holds::Map(&[("devicePath", None)], &Holds::Type(""))),
    // The kinds whose objects hold a pod spec or template, and services.
    ("Pod", "spec", POD_SPEC),
    ("PodTemplate", "template", POD_TEMPLATE),
    ("ReplicationController", "spec", Holds::Type("ReplicationControllerSpec")),
    ("ReplicationControllerSpec", "selector", Holds::Atomic),
    ("ReplicationControllerSpec", "template", POD_TEMPLATE),
    ("Service", "spec", Holds::Type("ServiceSpec")),
    ("ServiceSpec", "ports", Holds::Map(&[("port", None), ("protocol", Some("TCP"))], &Holds::Type(""))),
    ("ServiceSpec", "selector", Holds::Atomic),
    ("Deployment", "spec", Holds::Type("WorkloadSpec")),
    ("ReplicaSet", "spec", Holds::Type("WorkloadSpec")),
    ("StatefulSet", "spec", Holds::Type("WorkloadSpec")),
    ("DaemonSet", "spec", Holds::Type("WorkloadSpec")),
    ("Job", "spec", Holds::Type("WorkloadSpec")),
    // apps/v1 and batch/v1 specs: a LabelSelector (`+structType=atomic`) and a pod template.
    ("WorkloadSpec", "selector", Holds::Atomic),
    ("WorkloadSpec", "template", POD_TEMPLATE),
    ("CronJob", "spec", Holds::Type("CronJobSpec")),
    ("CronJobSpec", "jobTemplate", Holds::Type("JobTemplateSpec")),
    ("JobTemplateSpec", "metadata", OBJECT_META),
    ("JobTemplateSpec", "spec", Holds::Type("WorkloadSpec")),
    // policy/v1: a LabelSelector is `+structType=atomic`.
    ("PodDisruptionBudget", "spec", Holds::Type("PodDisruptionBudgetSpec")),
    ("PodDisruptionBudgetSpec", "selector", Holds::Atomic),
    // rbac/v1 RoleRef is `+structType=atomic`.
    ("RoleBinding", "roleRef", Holds::Atomic),
    ("ClusterRoleBinding", "roleRef", Holds::Atomic),
    // apiextensions/v1 CustomResourceDefinitionStatus: conditions `+listType=map`, keyed by type.
    ("CustomResourceDefinition", "status", Holds::Type("CustomResourceDefinitionStatus")),
    ("CustomResourceDefinitionStatus", "conditions", Holds::Map(&[("type", None)], &PLAIN)),
];

/// The built-in kinds whose rows are in [`FIELDS`], by group.
const KINDS: &[(&str, &str)] = &[
    ("", "Pod"),
    ("", "PodTemplate"),
    ("", "ReplicationController"),
    ("", "Service"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("policy", "PodDisruptionBudget"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
];

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

/// The schema of one node of an object.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    /// The root of an object of a built-in kind (`kind` names its rows, if any).
    Root(&'static str),
    /// The root of a custom resource, with its version's `openAPIV3Schema` if it has one.
    CustomRoot(Option<&'a Value>),
    /// What a field of a built-in type holds.
    Builtin(&'static Holds),
    /// A node of a CRD's schema, and whether it or an ancestor preserves unknown fields
    /// (structured-merge-diff's conversion of the schema passes
    /// `x-kubernetes-preserve-unknown-fields` down to every descendant).
    Json(&'a Value, bool),
    /// An object no schema describes (a custom resource's preserved unknown fields): granular,
    /// its keys undeclared; its lists atomic.
    Deduced,
}

/// A struct of the table with nothing special: granular, its lists atomic.
const PLAIN: Holds = Holds::Type("");

/// The fields of every kind's root that its schema need not declare.
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// The fields of `metav1.ObjectMeta`.
const OBJECT_META_FIELDS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

impl<'a> Node<'a> {
    /// The root node of an object of `kind` in `group`; `crd_schema` for a custom resource.
    pub fn root(group: &str, kind: &str, custom: bool, crd_schema: Option<&'a Value>) -> Self {
        if custom {
            return Self::CustomRoot(crd_schema);
        }
        match KINDS.iter().find(|(g, k)| *g == group && *k == kind) {
            Some((_, kind)) => Self::Root(kind),
            None => Self::Root(""),
        }
    }

    /// The node of field `name` of this (object) node.
    pub fn field(self, name: &str) -> Node<'a> {
        match self {
            Self::Root(_) | Self::CustomRoot(_) if name == "metadata" => Self::Builtin(&OBJECT_META),
            Self::Root(kind) => row(kind, name),
            Self::CustomRoot(None) => Self::Deduced,
            Self::CustomRoot(Some(schema)) => json_field(schema, false, name),
            Self::Json(schema, preserving) => json_field(schema, preserving, name),
            Self::Builtin(Holds::Type(owner)) => row(owner, name),
            Self::Builtin(_) => Self::Builtin(&PLAIN),
            Self::Deduced => Self::Deduced,
        }
    }

    /// Whether an object at this node is atomic.
    pub fn atomic(self) -> bool {
        match self {
            Self::Builtin(Holds::Atomic) => true,
            Self::Json(schema, _) => schema["x-kubernetes-map-type"] == "atomic",
            _ => false,
        }
    }

    /// Whether `name` is a declared field of this (object) node rather than a key of a map: a
    /// declared field with a non-empty object value is not itself a member of a field set.
    pub fn declares(self, name: &str) -> bool {
        match self {
            Self::Root(_) | Self::Builtin(_) => true,
            Self::CustomRoot(schema) => META_FIELDS.contains(&name) || schema.is_some_and(|s| declared(s, name)),
            Self::Json(schema, _) => (embedded(schema) && META_FIELDS.contains(&name)) || declared(schema, name),
            Self::Deduced => false,
        }
    }

    /// Whether an object at this node may hold field `name` (structured-merge-diff refuses an
    /// applied `field not declared in schema`): any key of a map or of an object no schema
    /// describes; of `ObjectMeta`, its fields; of a CRD's schema node, a declared property or
    /// an additional one, or any where unknown fields are preserved or no property is declared.
    pub fn allows(self, name: &str) -> bool {
        match self {
            Self::Builtin(Holds::Type("ObjectMeta")) => OBJECT_META_FIELDS.contains(&name),
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
            Self::Builtin(Holds::Set) => (ListType::Set, Self::Builtin(&PLAIN)),
            Self::Builtin(Holds::Map(keys, item)) => {
                let keys = keys.iter().map(|(k, default)| (k.to_string(), default.map(Value::from))).collect();
                (ListType::Map(sorted(keys)), Self::Builtin(item))
            }
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

fn row(owner: &str, name: &str) -> Node<'static> {
    FIELDS.iter().find(|(o, f, _)| *o == owner && *f == name).map_or(Node::Builtin(&PLAIN), |(_, _, holds)| Node::Builtin(holds))
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
        return Node::Builtin(&OBJECT_META);
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
            assert!(Node::root("rbac.authorization.k8s.io", kind, false, None).field("roleRef").atomic(), "{kind}");
        }
    }

    #[test]
    fn selectors_and_env_references_are_atomic() {
        let budget = Node::root("policy", "PodDisruptionBudget", false, None);
        assert!(budget.field("spec").field("selector").atomic());
        let pod_spec = Node::root("", "Pod", false, None).field("spec");
        let (_, container) = pod_spec.field("containers").list();
        let (_, env) = container.field("env").list();
        assert!(env.field("valueFrom").field("fieldRef").atomic());
        assert!(!env.field("valueFrom").atomic());
    }

    #[test]
    fn a_definition_s_conditions_are_keyed_by_type() {
        let definition = Node::root("apiextensions.k8s.io", "CustomResourceDefinition", false, None);
        assert_eq!(definition.field("status").field("conditions").list().0, ListType::Map(vec![("type".into(), None)]));
    }

    #[test]
    fn pod_templates_reach_the_container_keys() {
        let deployment = Node::root("apps", "Deployment", false, None);
        let pod_spec = deployment.field("spec").field("template").field("spec");
        let (list, container) = pod_spec.field("containers").list();
        assert_eq!(list, ListType::Map(vec![("name".into(), None)]));
        let (ports, _) = container.field("ports").list();
        assert_eq!(ports, ListType::Map(vec![("containerPort".into(), None), ("protocol".into(), Some(json!("TCP")))]));
        assert!(deployment.field("spec").field("selector").atomic());
        assert_eq!(pod_spec.field("tolerations").list().0, ListType::Atomic);
    }

    #[test]
    fn metadata_lists_are_the_same_for_every_kind() {
        for root in [Node::root("", "ConfigMap", false, None), Node::root("example.com", "Thing", true, None)] {
            let meta = root.field("metadata");
            assert_eq!(meta.field("finalizers").list().0, ListType::Set);
            let (refs, item) = meta.field("ownerReferences").list();
            assert_eq!(refs, ListType::Map(vec![("uid".into(), None)]));
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
        let spec = Node::root("example.com", "Thing", true, Some(&schema)).field("spec");
        assert_eq!(spec.field("ports").list().0, ListType::Map(vec![("port".into(), None)]));
        assert_eq!(spec.field("tags").list().0, ListType::Set);
        assert_eq!(spec.field("args").list().0, ListType::Atomic);
        assert!(spec.field("selector").atomic());
        assert!(!Node::root("example.com", "Thing", true, None).declares("spec"));
    }
}
