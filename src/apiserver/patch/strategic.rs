//! Kubernetes strategic merge patch for JSON objects.
//!
//! Maps merge recursively (`null` deletes a key). Lists merge according to the field's patch
//! strategy, which upstream reads from Go struct tags; here a table of the fields that carry one
//! stands in for them: element lists merged by a key (`ownerReferences` by `uid`, `containers` by
//! `name`, ...), primitive lists merged as sets (`finalizers`), all other lists replaced. The
//! directives `$patch` (`replace`, `delete`, `merge`), `$deleteFromPrimitiveList/<field>`,
//! `$setElementOrder/<field>` and `$retainKeys` are honoured.

use serde_json::{Map, Value, json};

use crate::apiserver::go_fmt::{self, Numbers};
use crate::apiserver::status::ApiError;

/// How a list field is patched.
enum ListStrategy {
    /// Merge elements by this key.
    MergeByKey(&'static str),
    /// Merge as a set of primitives.
    MergePrimitives,
    /// Replace the whole list.
    Replace,
}

fn list_strategy(field: &str, sample: Option<&Value>) -> ListStrategy {
    match field {
        "ownerReferences" => ListStrategy::MergeByKey("uid"),
        "finalizers" => ListStrategy::MergePrimitives,
        "containers" | "initContainers" | "ephemeralContainers" | "env" | "volumes" | "imagePullSecrets" => {
            ListStrategy::MergeByKey("name")
        }
        "volumeMounts" => ListStrategy::MergeByKey("mountPath"),
        "volumeDevices" => ListStrategy::MergeByKey("devicePath"),
        "conditions" => ListStrategy::MergeByKey("type"),
        "hostAliases" => ListStrategy::MergeByKey("ip"),
        "topologySpreadConstraints" => ListStrategy::MergeByKey("topologyKey"),
        "ports" if sample.is_some_and(|s| s.get("containerPort").is_some()) => ListStrategy::MergeByKey("containerPort"),
        "ports" => ListStrategy::MergeByKey("port"),
        _ => ListStrategy::Replace,
    }
}

/// Applies a strategic merge `patch` to `target`.
pub fn strategic_merge(target: &mut Value, patch: &Value) -> Result<(), ApiError> {
    let Value::Object(p) = patch else { return Err(ApiError::bad_request("a strategic merge patch must be a JSON object")) };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let t = target.as_object_mut().expect("just made an object");
    merge_map(t, p)
}

fn merge_map(target: &mut Map<String, Value>, patch: &Map<String, Value>) -> Result<(), ApiError> {
    match patch.get("$patch").and_then(Value::as_str) {
        Some("replace") => {
            *target = patch.iter().filter(|(k, _)| !k.starts_with('$')).map(|(k, v)| (k.clone(), v.clone())).collect();
            return Ok(());
        }
        Some("delete") => {
            target.clear();
            return Ok(());
        }
        Some("merge") | None => {}
        Some(other) => return Err(ApiError::bad_request(format!("unknown patch type: {other}"))),
    }
    for (key, value) in patch {
        if let Some(field) = key.strip_prefix("$deleteFromPrimitiveList/") {
            let remove = value.as_array().cloned().unwrap_or_default();
            if let Some(Value::Array(list)) = target.get_mut(field) {
                list.retain(|v| !remove.contains(v));
            }
            continue;
        }
        if key.starts_with('$') {
            continue;
        }
        match value {
            Value::Null => {
                target.remove(key);
            }
            Value::Object(pm) => match target.get_mut(key) {
                Some(Value::Object(tm)) => merge_map(tm, pm)?,
                _ => {
                    let mut fresh = Map::new();
                    merge_map(&mut fresh, pm)?;
                    target.insert(key.clone(), Value::Object(fresh));
                }
            },
            Value::Array(pl) => {
                let current = match target.remove(key) {
                    Some(Value::Array(l)) => l,
                    _ => Vec::new(),
                };
                let merged = merge_list(key, current, pl)?;
                target.insert(key.clone(), Value::Array(merged));
            }
            other => {
                target.insert(key.clone(), other.clone());
            }
        }
    }
    for (key, order) in patch {
        if let (Some(field), Some(order)) = (key.strip_prefix("$setElementOrder/"), order.as_array())
            && let Some(Value::Array(list)) = target.get_mut(field)
        {
            let strategy = list_strategy(field, list.first());
            reorder(list, order, &strategy);
        }
    }
    if let Some(retain) = patch.get("$retainKeys").and_then(Value::as_array) {
        let keep: Vec<&str> = retain.iter().filter_map(Value::as_str).collect();
        target.retain(|k, _| keep.contains(&k.as_str()));
    }
    Ok(())
}

/// A merged list in upstream's order (strategicpatch `normalizeElementOrder`): the patch's
/// items (`patched`, already merged) in the patch's order, each item only the live list has
/// placed before the first remaining patch item that the live list has after it; items are
/// told apart by `key`. Finalizers `[a, b, c]` patched with `[d, b]` become `[d, a, b, c]`;
/// with `[c, x, a, y]`, `[b, c, x, a, y]`.
fn upstream_order(live: &[Value], patched: Vec<Value>, key: impl Fn(&Value) -> Value) -> Vec<Value> {
    let patched_keys: Vec<Value> = patched.iter().map(&key).collect();
    let live_only: Vec<&Value> = live.iter().filter(|v| !patched_keys.contains(&key(v))).collect();
    let live_position = |v: &Value| live.iter().position(|l| key(l) == key(v));
    let (mut left, mut right) = (live_only.into_iter().cloned().peekable(), patched.into_iter().peekable());
    let mut out = Vec::with_capacity(live.len() + patched_keys.len());
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return out,
            (Some(l), Some(r)) => matches!((live_position(l), live_position(r)), (Some(li), Some(ri)) if li < ri),
        };
        out.extend(if take_left { left.next() } else { right.next() });
    }
}

fn merge_list(field: &str, mut current: Vec<Value>, patch: &[Value]) -> Result<Vec<Value>, ApiError> {
    if patch.iter().any(|e| e.get("$patch").and_then(Value::as_str) == Some("replace")) {
        return Ok(patch.iter().filter(|e| e.get("$patch").is_none()).cloned().collect());
    }
    let strategy = list_strategy(field, patch.first().or(current.first()));
    if !matches!(strategy, ListStrategy::Replace) {
        element_types_agree(&current, patch)?;
    }
    match strategy {
        ListStrategy::Replace => Ok(patch.to_vec()),
        ListStrategy::MergePrimitives => {
            let mut patched: Vec<Value> = Vec::new();
            for v in patch {
                if !patched.contains(v) {
                    patched.push(v.clone());
                }
            }
            Ok(upstream_order(&current, patched, Value::clone))
        }
        ListStrategy::MergeByKey(k) => {
            let key = |v: &Value| v.get(k).cloned().unwrap_or(Value::Null);
            let (mut patched, mut deleted) = (Vec::<Value>::new(), Vec::new());
            for element in patch {
                let Some(em) = element.as_object() else {
                    return Err(ApiError::bad_request(format!("{field}: list elements must be objects")));
                };
                let key_value = key(element);
                if em.get("$patch").and_then(Value::as_str) == Some("delete") {
                    deleted.push(key_value);
                    continue;
                }
                let base = match patched.iter().position(|p| key(p) == key_value) {
                    Some(i) => patched.remove(i),
                    None => current.iter().find(|c| key(c) == key_value).cloned().unwrap_or_else(|| Value::Object(Map::new())),
                };
                let Value::Object(mut merged) = base else {
                    return Err(ApiError::bad_request(format!("{field}: list elements must be objects")));
                };
                merge_map(&mut merged, em)?;
                patched.push(Value::Object(merged));
            }
            current.retain(|c| !deleted.contains(&key(c)));
            Ok(upstream_order(&current, patched, key))
        }
    }
}

/// The Go type strategic merge gives a list element: the live object's integral numbers are
/// `int64` (the unstructured converter's), the patch's numbers `float64` (Go's JSON decoder's).
fn go_type(value: &Value, from_patch: bool) -> &'static str {
    match value {
        Value::Null => "nil",
        Value::Bool(_) => "bool",
        Value::Number(n) if !from_patch && n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
    }
}

/// A merged list's elements, the live ones and the patch's, must all be of one Go type; the
/// refusal is no `Status`, so a 500 with its text (`sliceElementType`, k8s.io/apimachinery
/// pkg/util/strategicpatch/patch.go). Null elements are not compared.
fn element_types_agree(current: &[Value], patch: &[Value]) -> Result<(), ApiError> {
    let typed = current.iter().map(|v| go_type(v, false)).chain(patch.iter().map(|v| go_type(v, true)));
    let mut types = typed.filter(|t| *t != "nil");
    let Some(first) = types.next() else { return Ok(()) };
    if types.all(|t| t == first) {
        return Ok(());
    }
    let lists = go_fmt::plain(&json!([current, patch]), Numbers::IntegerWhenIntegral);
    Err(ApiError::unknown(format!("list element types are not identical: {lists}")))
}

/// Puts the elements named in `order` first, in that order; others keep their relative order.
fn reorder(list: &mut [Value], order: &[Value], strategy: &ListStrategy) {
    let rank = |v: &Value| -> usize {
        order
            .iter()
            .position(|o| match strategy {
                ListStrategy::MergeByKey(k) => o.get(*k).is_some() && o.get(*k) == v.get(*k),
                _ => o == v,
            })
            .unwrap_or(usize::MAX)
    };
    list.sort_by_key(|v| rank(v));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn apply(target: Value, patch: Value) -> Value {
        let mut t = target;
        strategic_merge(&mut t, &patch).unwrap();
        t
    }

    #[test]
    fn owner_references_merge_by_uid() {
        let t = json!({"metadata": {"ownerReferences": [{"uid": "1", "name": "a"}, {"uid": "2", "name": "b"}]}});
        let out = apply(t.clone(), json!({"metadata": {"ownerReferences": [{"uid": "3", "name": "c"}]}}));
        assert_eq!(out["metadata"]["ownerReferences"].as_array().unwrap().len(), 3);
        let out = apply(t, json!({"metadata": {"ownerReferences": [{"$patch": "delete", "uid": "1"}]}}));
        assert_eq!(out["metadata"]["ownerReferences"], json!([{"uid": "2", "name": "b"}]));
    }

    #[test]
    fn merged_primitives_keep_upstreams_order() {
        let live = json!({"metadata": {"finalizers": ["a", "b", "c"]}});
        let out = apply(live.clone(), json!({"metadata": {"finalizers": ["d", "b"]}}));
        assert_eq!(out["metadata"]["finalizers"], json!(["d", "a", "b", "c"]));
        let out = apply(live, json!({"metadata": {"finalizers": ["c", "x", "a", "y"]}}));
        assert_eq!(out["metadata"]["finalizers"], json!(["b", "c", "x", "a", "y"]));
    }

    #[test]
    fn finalizers_merge_as_a_set_and_can_be_deleted() {
        let t = json!({"metadata": {"finalizers": ["a/x", "b/y"]}});
        let out = apply(t.clone(), json!({"metadata": {"finalizers": ["b/y", "c/z"]}}));
        assert_eq!(out["metadata"]["finalizers"], json!(["a/x", "b/y", "c/z"]));
        let out = apply(t.clone(), json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a/x"]}}));
        assert_eq!(out["metadata"]["finalizers"], json!(["b/y"]));
        let out = apply(t, json!({"metadata": {"finalizers": null}}));
        assert!(out["metadata"].get("finalizers").is_none());
    }

    #[test]
    fn replace_directive_and_element_order() {
        let t = json!({"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}});
        let out = apply(
            t.clone(),
            json!({"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}], "containers": [{"name": "a", "image": "z"}]}}),
        );
        assert_eq!(out["spec"]["containers"], json!([{"name": "b", "image": "y"}, {"name": "a", "image": "z"}]));
        let out = apply(t, json!({"spec": {"containers": [{"$patch": "replace"}, {"name": "c", "image": "w"}]}}));
        assert_eq!(out["spec"]["containers"], json!([{"name": "c", "image": "w"}]));
    }
}
