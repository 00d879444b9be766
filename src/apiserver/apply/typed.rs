//! Objects read through their schema ([`Node`]), as structured-merge-diff reads typed values:
//! the set of fields a value sets, the comparison of two values (fields added, modified,
//! removed), the merge of an applied configuration into a live object, and the removal of a set
//! of fields from an object.

use serde_json::{Map, Value};

use crate::apiserver::apply::fieldset::{Atom, Element, FieldSet, Path, path_string};
use crate::apiserver::apply::schema::{Expected, ListType, Node};
use crate::apiserver::go_fmt::{self, Numbers};

/// The path element of a list item, or why it has none (structured-merge-diff's
/// `keyedAssociativeListItemToPathElement`: a key field the item omits takes its default, or is
/// left out of the key; an item with no key field at all is an error).
fn item_element(item: &Value, list: &ListType, index: usize) -> Result<Element, String> {
    match list {
        ListType::Atomic => Ok(Element::Index(index)),
        // A set's items are scalars (structured-merge-diff typed/helpers.go `setItemToPathElement`).
        ListType::Set if item.is_object() => {
            Err(format!("element {index}: associative list without keys has an element that's a map type"))
        }
        ListType::Set if item.is_array() => Err(format!("element {index}: not supported: associative list with lists as elements")),
        ListType::Set if item.is_null() => {
            Err(format!("element {index}: associative list without keys has an element that's an explicit null"))
        }
        ListType::Set => Ok(Element::Value(Atom(item.clone()))),
        ListType::Map(_) if item.is_null() => Err(format!("element {index}: associative list with keys may not have a null element")),
        ListType::Map(_) if !item.is_object() => Err(format!("element {index}: associative list with keys may not have non-map elements")),
        ListType::Map(keys) => {
            let key: Vec<(String, Atom)> = keys
                .iter()
                .filter_map(|(name, default)| item.get(name).or(default.as_ref()).map(|v| (name.clone(), Atom(v.clone()))))
                .collect();
            if key.is_empty() && !keys.is_empty() {
                let names: Vec<String> = keys.iter().map(|(name, _)| format!("{name:?}")).collect();
                return Err(format!(
                    "element {index}: associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
                    names.join(" ")
                ));
            }
            Ok(Element::Key(key))
        }
    }
}

/// The items of a granular list by path element, first occurrence only, in order.
fn items<'v>(list: &'v [Value], list_type: &ListType, path: &[Element]) -> Result<Vec<(Element, &'v Value)>, String> {
    let mut out: Vec<(Element, &Value)> = Vec::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let element = item_element(item, list_type, index).map_err(|e| format!("{}: {e}", path_string(path)))?;
        if !out.iter().any(|(e, _)| *e == element) {
            out.push((element, item));
        }
    }
    Ok(out)
}

/// The item of `list` at `element`.
fn lookup<'v>(list: &[(Element, &'v Value)], element: &Element) -> Option<&'v Value> {
    list.iter().find(|(e, _)| e == element).map(|(_, v)| *v)
}

fn is_empty_collection(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        _ => false,
    }
}

/// The fields `value` sets (structured-merge-diff's `ToFieldSet`): every scalar, every atomic
/// node, every list item, and map keys that are not declared fields. Fails as
/// structured-merge-diff's validation of a typed value does (typed/validate.go), on a list item
/// without its keys, or on fields the schema does not declare (`.spec.x: field not declared in
/// schema`) and items of a keyed list or set that repeat a key (`.metadata.ownerReferences:
/// duplicate entries for key [uid="x"]`), several listed under `errors:`.
pub fn field_set(value: &Value, node: Node<'_>) -> Result<FieldSet, String> {
    let mut set = FieldSet::default();
    let mut errors = Vec::new();
    walk_set(value, node, &mut Vec::new(), &mut set, &mut errors)?;
    match errors.as_slice() {
        [] => Ok(set),
        [one] => Err(one.clone()),
        many => Err(format!("errors:\n  {}", many.join("\n  "))),
    }
}

fn walk_set(value: &Value, node: Node<'_>, path: &mut Path, set: &mut FieldSet, errors: &mut Vec<String>) -> Result<(), String> {
    if let Some(error) = type_error(value, node.expects()) {
        errors.push(format!("{}: {error}", path_string(path)));
        return Ok(());
    }
    match value {
        Value::Object(_) if node.atomic() => set.insert(path),
        Value::Object(map) => {
            for (key, child) in map {
                path.push(Element::Field(key.clone()));
                if !node.allows(key) {
                    errors.push(format!("{}: field not declared in schema", path_string(path)));
                    path.pop();
                    continue;
                }
                walk_set(child, node.field(key), path, set, errors)?;
                if child.is_null() || child.as_object().is_some_and(Map::is_empty) || !node.declares(key) {
                    set.insert(path);
                }
                path.pop();
            }
        }
        Value::Array(list) => {
            let (list_type, item_node) = node.list();
            if list_type == ListType::Atomic {
                // An atomic list is one field, whose items are still validated by position
                // (structured-merge-diff typed/validate.go `visitListItems`).
                for (index, item) in list.iter().enumerate() {
                    path.push(Element::Index(index));
                    walk_set(item, item_node, path, &mut FieldSet::default(), errors)?;
                    path.pop();
                }
                set.insert(path);
                return Ok(());
            }
            let unique = items(list, &list_type, path)?;
            if unique.len() < list.len() {
                let mut seen = std::collections::BTreeSet::new();
                for (index, item) in list.iter().enumerate() {
                    let element = item_element(item, &list_type, index)?;
                    if !seen.insert(element.clone()) {
                        errors.push(format!("{}: duplicate entries for key {}", path_string(path), path_string(&[element])));
                    }
                }
            }
            for (element, item) in unique {
                path.push(element);
                walk_set(item, item_node, path, set, errors)?;
                set.insert(path);
                path.pop();
            }
        }
        _ => set.insert(path),
    }
    Ok(())
}

/// Why `value` is not what its node takes, in structured-merge-diff's words, which print the
/// value as Go's `fmt` prints its wrapper of it (typed/validate.go `validateScalar`, typed/
/// helpers.go `mapValue` and `listValue`); null is any.
fn type_error(value: &Value, expected: Expected) -> Option<String> {
    // The configuration was read by apimachinery's `yaml.Unmarshal` (k8s.io/apimachinery
    // pkg/util/yaml, the apply patcher's), which keeps an integral number an int64.
    let wrapper = || format!("&{{{}}}", go_fmt::plain(value, Numbers::IntegerWhenIntegral));
    match (expected, value) {
        (_, Value::Null)
        | (Expected::Any, _)
        | (Expected::Map, Value::Object(_))
        | (Expected::List, Value::Array(_))
        | (Expected::Numeric, Value::Number(_))
        | (Expected::String, Value::String(_))
        | (Expected::Boolean, Value::Bool(_))
        | (Expected::AnyScalar, Value::String(_) | Value::Number(_) | Value::Bool(_)) => None,
        (Expected::AnyScalar, _) => Some(format!("expected any scalar, got {}", wrapper())),
        (Expected::Numeric, _) => {
            Some(format!("expected numeric (int or float), got {}", go_fmt::type_name(value, Numbers::IntegerWhenIntegral)))
        }
        (Expected::String, _) => {
            Some(format!("expected string, got &value.valueUnstructured{{Value:{}}}", go_fmt::syntax(value, Numbers::IntegerWhenIntegral)))
        }
        (Expected::Boolean, _) => Some(format!("expected boolean, got {}", wrapper())),
        (Expected::Map, _) => Some(format!("expected map, got {}", wrapper())),
        (Expected::List, _) => Some(format!("expected list, got {}", wrapper())),
    }
}

/// What changed from one value to another.
#[derive(Debug, Default)]
pub struct Comparison {
    /// Fields present only in the new value.
    pub added: FieldSet,
    /// Fields present in both with different values.
    pub modified: FieldSet,
    /// Fields present only in the old value.
    pub removed: FieldSet,
}

impl Comparison {
    /// Added and modified fields: what the writer of the new value changed.
    pub fn changed(&self) -> FieldSet {
        self.added.union(&self.modified)
    }
}

/// Compares `old` with `new` (structured-merge-diff's `Compare`).
pub fn compare(old: &Value, new: &Value, node: Node<'_>) -> Result<Comparison, String> {
    let mut out = Comparison::default();
    walk_compare(Some(old), Some(new), node, &mut Vec::new(), &mut out)?;
    Ok(out)
}

fn walk_compare(old: Option<&Value>, new: Option<&Value>, node: Node<'_>, path: &mut Path, out: &mut Comparison) -> Result<(), String> {
    // A null is a value that is there: it is compared as an empty map or list is, but the node
    // holding it is never "added" or "removed" (the zero object a create is compared from holds
    // nulls for its nil slices and maps).
    let (was, is) = (old.filter(|v| !v.is_null()), new.filter(|v| !v.is_null()));
    let granular = match (was.or(is), is.or(was)) {
        (Some(Value::Object(_)), Some(Value::Object(_))) => !node.atomic(),
        (Some(Value::Array(_)), Some(Value::Array(_))) => node.list().0 != ListType::Atomic,
        _ => false,
    } && !(is_empty_collection(old) && is_empty_collection(new));
    if !granular {
        match (old, new) {
            (None, _) => out.added.insert(path),
            (_, None) => out.removed.insert(path),
            (Some(a), Some(b)) if a != b => out.modified.insert(path),
            _ => {}
        }
        return Ok(());
    }
    match (was.or(is), is.or(was)) {
        (Some(Value::Object(_)), _) => {
            let empty = Map::new();
            let (a, b) = (was.and_then(Value::as_object).unwrap_or(&empty), is.and_then(Value::as_object).unwrap_or(&empty));
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                path.push(Element::Field(key.clone()));
                walk_compare(a.get(key), b.get(key), node.field(key), path, out)?;
                path.pop();
            }
        }
        _ => {
            let (list_type, item_node) = node.list();
            let a = items(was.and_then(Value::as_array).map_or(&[][..], Vec::as_slice), &list_type, path)?;
            let b = items(is.and_then(Value::as_array).map_or(&[][..], Vec::as_slice), &list_type, path)?;
            for element in a.iter().map(|(e, _)| e).chain(b.iter().map(|(e, _)| e).filter(|e| lookup(&a, e).is_none())) {
                let (x, y) = (lookup(&a, element), lookup(&b, element));
                path.push(element.clone());
                walk_compare(x, y, item_node, path, out)?;
                path.pop();
            }
        }
    }
    if old.is_none() {
        out.added.insert(path);
    } else if new.is_none() {
        out.removed.insert(path);
    }
    Ok(())
}

/// Merges an applied configuration into the live object (structured-merge-diff's `Merge`):
/// the configuration's scalars and atomic nodes win, objects merge by field and granular lists
/// by item, keeping the live order with the configuration's new items placed as upstream
/// places them.
pub fn merge(live: &Value, config: &Value, node: Node<'_>) -> Result<Value, String> {
    walk_merge(live, config, node, &mut Vec::new())
}

fn walk_merge(live: &Value, config: &Value, node: Node<'_>, path: &mut Path) -> Result<Value, String> {
    if is_empty_collection(Some(live)) && is_empty_collection(Some(config)) {
        return Ok(config.clone());
    }
    // A null configuration merges as an empty map or list would: what the live one holds
    // stays (structured-merge-diff reads null as an empty map or list, typed/helpers.go).
    let (empty_map, empty_list) = (Value::Object(Map::new()), Value::Array(Vec::new()));
    let config = match (live, config) {
        (Value::Object(_), Value::Null) if !node.atomic() => &empty_map,
        (Value::Array(_), Value::Null) if node.list().0 != ListType::Atomic => &empty_list,
        _ => config,
    };
    match (live, config) {
        (Value::Object(a), Value::Object(b)) if !node.atomic() => {
            let mut out = a.clone();
            for (key, value) in b {
                let merged = match a.get(key) {
                    Some(old) => {
                        path.push(Element::Field(key.clone()));
                        let merged = walk_merge(old, value, node.field(key), path)?;
                        path.pop();
                        merged
                    }
                    None => value.clone(),
                };
                out.insert(key.clone(), merged);
            }
            Ok(Value::Object(out))
        }
        (Value::Array(a), Value::Array(b)) => {
            let (list_type, item_node) = node.list();
            if list_type == ListType::Atomic {
                return Ok(config.clone());
            }
            let lhs = items(a, &list_type, path)?;
            let rhs = items(b, &list_type, path)?;
            let mut out = Vec::with_capacity(lhs.len().max(rhs.len()));
            for (element, live_item, config_item) in merged_order(&lhs, &rhs) {
                let item = match (live_item, config_item) {
                    (Some(l), Some(c)) => {
                        path.push(element.clone());
                        let item = walk_merge(l, c, item_node, path)?;
                        path.pop();
                        item
                    }
                    (l, c) => c.or(l).cloned().unwrap_or(Value::Null),
                };
                out.push(item);
            }
            Ok(Value::Array(out))
        }
        _ => Ok(config.clone()),
    }
}

/// The order of a merged granular list: items only the live list has stay where they are,
/// items both have follow the configuration's order, new items come where the configuration
/// puts them relative to those (structured-merge-diff's list merge).
fn merged_order<'v>(lhs: &[(Element, &'v Value)], rhs: &[(Element, &'v Value)]) -> Vec<(Element, Option<&'v Value>, Option<&'v Value>)> {
    let mut shared = rhs.iter().map(|(e, _)| e).filter(|e| lookup(lhs, e).is_some()).peekable();
    let mut emitted: Vec<&Element> = Vec::new();
    let mut out = Vec::new();
    let (mut l, mut r) = (0, 0);
    while l < lhs.len() || r < rhs.len() {
        if l < lhs.len() && r < rhs.len() {
            let (le, lv) = &lhs[l];
            if *le == rhs[r].0 {
                out.push((le.clone(), Some(*lv), Some(rhs[r].1)));
                emitted.push(le);
                l += 1;
                r += 1;
                shared.next_if(|e| *e == le);
                continue;
            }
            if lookup(rhs, le).is_some() && shared.peek().is_some_and(|next| *next != le) {
                l += 1;
                continue;
            }
        }
        if l < lhs.len() {
            let (le, lv) = &lhs[l];
            if lookup(rhs, le).is_none() {
                out.push((le.clone(), Some(*lv), None));
                l += 1;
                continue;
            }
            if emitted.contains(&le) {
                l += 1;
            }
        }
        if r < rhs.len() {
            let (re, rv) = &rhs[r];
            out.push((re.clone(), lookup(lhs, re), Some(*rv)));
            emitted.push(re);
            r += 1;
            shared.next_if(|e| *e == re);
        }
    }
    out
}

/// Removes from `value` every member of `set` (a field, a list item with all below it). An
/// object or list the removal leaves empty stays as null, as structured-merge-diff's removal
/// leaves it (typed/remove.go): its own field is no member of the removed set, so a manager
/// that owns it keeps it, and the encoding of a built-in kind drops it where Go's `omitempty`
/// does (a custom resource keeps the null, which its schema may then refuse).
pub fn remove(value: &mut Value, set: &FieldSet, node: Node<'_>) -> Result<(), String> {
    walk_remove(value, set, node, &mut Vec::new())
}

fn walk_remove(value: &mut Value, set: &FieldSet, node: Node<'_>, path: &mut Path) -> Result<(), String> {
    match value {
        Value::Object(map) if !node.atomic() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                let element = Element::Field(key.clone());
                if set.has_member(&element) {
                    map.remove(&key);
                } else if let Some(below) = set.child(&element) {
                    let child = map.get_mut(&key).expect("listed key");
                    path.push(element);
                    walk_remove(child, below, node.field(&key), path)?;
                    path.pop();
                    if is_empty_collection(Some(child)) {
                        *child = Value::Null;
                    }
                }
            }
        }
        Value::Array(list) => {
            let (list_type, item_node) = node.list();
            if list_type == ListType::Atomic {
                return Ok(());
            }
            let mut kept = Vec::with_capacity(list.len());
            for (index, mut item) in std::mem::take(list).into_iter().enumerate() {
                let element = item_element(&item, &list_type, index)?;
                if set.has_member(&element) {
                    continue;
                }
                if let Some(below) = set.child(&element) {
                    path.push(element);
                    walk_remove(&mut item, below, item_node, path)?;
                    path.pop();
                    if is_empty_collection(Some(&item)) {
                        item = Value::Null;
                    }
                }
                kept.push(item);
            }
            *list = kept;
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn configmaps() -> Node<'static> {
        Node::root("v1", "ConfigMap", false, None)
    }

    #[test]
    fn a_configuration_owns_its_leaves_and_list_items() {
        let config = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "labels": {"x": "1"}, "finalizers": ["f"], "ownerReferences": [{"uid": "u", "name": "o"}]},
            "data": {"k": "v"}});
        let set = field_set(&config, configmaps()).unwrap();
        assert_eq!(
            set.to_fields_v1(),
            json!({"f:apiVersion": {}, "f:kind": {}, "f:data": {"f:k": {}}, "f:metadata": {
                "f:name": {}, "f:labels": {"f:x": {}}, "f:finalizers": {"v:\"f\"": {}},
                "f:ownerReferences": {"k:{\"uid\":\"u\"}": {}}}})
        );
    }

    #[test]
    fn values_of_the_wrong_type_are_refused_in_structured_merge_diff_s_words() {
        let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "generation": "2"}, "data": {"a": 1}});
        assert_eq!(
            field_set(&config, configmaps()).unwrap_err(),
            "errors:\n  .data.a: expected string, got &value.valueUnstructured{Value:1}\n  .metadata.generation: expected numeric (int or float), got string"
        );
        let labels = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"labels": [true]}});
        assert_eq!(field_set(&labels, configmaps()).unwrap_err(), ".metadata.labels: expected map, got &{[true]}");
    }

    #[test]
    fn a_comparison_marks_new_objects_themselves() {
        let old = json!({"metadata": {"name": "a"}});
        let new = json!({"metadata": {"name": "a", "finalizers": ["f"]}, "data": {"k": "v"}});
        let c = compare(&old, &new, configmaps()).unwrap();
        assert_eq!(
            c.added.to_fields_v1(),
            json!({"f:data": {".": {}, "f:k": {}}, "f:metadata": {"f:finalizers": {".": {}, "v:\"f\"": {}}}})
        );
        assert!(c.modified.is_empty() && c.removed.is_empty());
        let back = compare(&new, &old, configmaps()).unwrap();
        assert_eq!(back.removed, c.added);
    }

    #[test]
    fn keyed_lists_merge_by_key_and_sets_by_value() {
        let live = json!({"metadata": {"finalizers": ["a"], "ownerReferences": [{"uid": "1", "name": "x"}]}});
        let config = json!({"metadata": {"finalizers": ["b", "a"], "ownerReferences": [{"uid": "2", "name": "y"}]}});
        let merged = merge(&live, &config, configmaps()).unwrap();
        assert_eq!(merged["metadata"]["finalizers"], json!(["b", "a"]));
        assert_eq!(merged["metadata"]["ownerReferences"], json!([{"uid": "1", "name": "x"}, {"uid": "2", "name": "y"}]));
        let pod = Node::root("v1", "Pod", false, None);
        let live = json!({"spec": {"containers": [{"name": "a", "image": "1", "args": ["x"]}, {"name": "b", "image": "2"}]}});
        let config = json!({"spec": {"containers": [{"name": "b", "image": "3"}, {"name": "c", "image": "4"}]}});
        let merged = merge(&live, &config, pod).unwrap();
        assert_eq!(
            merged["spec"]["containers"],
            json!([{"name": "a", "image": "1", "args": ["x"]}, {"name": "b", "image": "3"}, {"name": "c", "image": "4"}])
        );
    }

    #[test]
    fn a_null_merges_as_an_empty_map_or_granular_list_and_replaces_an_atomic_one() {
        let live =
            json!({"metadata": {"labels": {"a": "1"}, "finalizers": ["f"]}, "spec": {"selector": {"a": "1"}, "ports": [{"port": 80}]}});
        let config = json!({"metadata": {"labels": null, "finalizers": null}, "spec": {"selector": null, "ports": null}});
        let merged = merge(&live, &config, Node::root("v1", "Service", false, None)).unwrap();
        assert_eq!(merged["metadata"], live["metadata"]);
        assert_eq!(merged["spec"], json!({"selector": null, "ports": [{"port": 80}]}), "a Service's selector is atomic");
    }

    #[test]
    fn removal_takes_items_and_leaves_emptied_parents_null() {
        let mut object = json!({"metadata": {"finalizers": ["a", "b"]}, "data": {"k": "v"}});
        let mut set = FieldSet::default();
        set.insert(&[Element::Field("metadata".into()), Element::Field("finalizers".into()), Element::Value(Atom(json!("a")))]);
        set.insert(&[Element::Field("data".into()), Element::Field("k".into())]);
        remove(&mut object, &set, configmaps()).unwrap();
        assert_eq!(object, json!({"metadata": {"finalizers": ["b"]}, "data": null}));
    }

    #[test]
    fn a_keyed_item_without_any_key_is_an_error_unless_the_key_has_a_default() {
        let account = json!({"secrets": [{"namespace": "x"}]});
        let err = field_set(&account, Node::root("v1", "ServiceAccount", false, None)).unwrap_err();
        assert!(
            err.contains(".secrets: element 0: associative list with keys has an element that omits all key fields [\"name\"] (and doesn't have default values for any key fields)"),
            "{err}"
        );
        // A container's name is a required string: its OpenAPI default is "".
        let pod = json!({"spec": {"containers": [{"image": "i"}]}});
        assert!(field_set(&pod, Node::root("v1", "Pod", false, None)).is_ok());
    }

    #[test]
    fn fields_a_custom_resource_schema_does_not_declare_are_errors() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"template": {"type": "object", "x-kubernetes-embedded-resource": true,
                "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string"}}}}}}}}});
        let root = Node::root("example.com/v1", "Thing", true, Some(&schema));
        let cr = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t", "unknownMeta": 1},
            "spec": {"free": 1, "template": {"apiversion": "x", "metadata": {"name": "s", "unknownSubMeta": 1}}}});
        assert_eq!(
            field_set(&cr, root).unwrap_err(),
            "errors:\n  .metadata.unknownMeta: field not declared in schema\n  .spec.template.metadata.unknownSubMeta: field not declared in schema"
        );
        let strict = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"foo": {"type": "string"}}}}});
        let extra =
            json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "unknownField": 1, "spec": {"foo": "f"}});
        let root = Node::root("example.com/v1", "Thing", true, Some(&strict));
        assert_eq!(field_set(&extra, root).unwrap_err(), ".unknownField: field not declared in schema");
        let free = json!({"type": "object", "properties": {"spec": {"type": "object"}}});
        let any = json!({"metadata": {"name": "t"}, "spec": {"anything": {"deep": 1}}});
        assert!(
            field_set(&any, Node::root("example.com/v1", "Thing", true, Some(&free))).is_ok(),
            "an object without properties is free-form"
        );
    }
}
