//! Defaulting of built-in kinds, as kube-apiserver's decoder does it: every object of a built-in
//! kind that a write sends (create, update, patch, apply; dry run or not) gets the fields
//! upstream's defaulting functions fill (the hand-written `SetDefaults_*` of each group's
//! `defaults.go` and the generated `SetObjectDefaults_*` of its `zz_generated.defaults.go`),
//! and the empty structs Go's JSON encoder always writes (`resources: {}`, `status: {}`).
//!
//! - [`core`]: pods and the one pod-spec defaulter every pod template uses, services, claims,
//!   volumes, secrets, endpoints, replication controllers, namespaces, limit ranges.
//! - [`apps`]: deployments, replica sets, stateful sets, daemon sets.
//! - [`batch`]: jobs and cron jobs.
//! - [`others`]: the smaller groups (discovery, rbac).

pub mod apps;
pub mod batch;
pub mod core;
pub mod others;

use serde_json::{Value, json};

/// Fills the defaults of an object of the built-in `kind` in `group`; a field of the wrong type
/// is left alone (decoding refuses it first).
pub fn apply(group: &str, kind: &str, object: &mut Value) {
    match (group, kind) {
        ("", _) => core::apply(kind, object),
        ("apps", _) => apps::apply(kind, object),
        ("batch", _) => batch::apply(kind, object),
        _ => others::apply(group, kind, object),
    }
}

/// The object at `field` of `object`, made `{}` when absent or null; `None` when either is not
/// an object (as Go writes a struct field that is not a pointer: always).
pub(crate) fn object_at<'a>(object: &'a mut Value, field: &str) -> Option<&'a mut Value> {
    let child = object.as_object_mut()?.entry(field).or_insert(Value::Null);
    if child.is_null() {
        *child = json!({});
    }
    child.is_object().then_some(child)
}

/// The object at `field` of `object`, if it is one (a pointer to a struct: left out when nil).
pub(crate) fn present<'a>(object: &'a mut Value, field: &str) -> Option<&'a mut Value> {
    object.get_mut(field).filter(|child| child.is_object())
}

/// The objects in the list at `field` of `object`.
pub(crate) fn items<'a>(object: &'a mut Value, field: &str) -> impl Iterator<Item = &'a mut Value> {
    object.get_mut(field).and_then(Value::as_array_mut).into_iter().flatten().filter(|item| item.is_object())
}

/// Sets `field` to `value` when absent or null (a pointer field left nil).
pub(crate) fn or_nil(object: &mut Value, field: &str, value: Value) {
    if let Some(map) = object.as_object_mut()
        && map.get(field).is_none_or(Value::is_null)
    {
        map.insert(field.into(), value);
    }
}

/// Sets `field` to `value` when absent, null or Go's zero value of the default's type (`""`,
/// `0`): a field that is not a pointer, whose zero value means unset.
pub(crate) fn or_zero(object: &mut Value, field: &str, value: Value) {
    let zero = match object.get(field) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(_) => false,
    };
    if zero && let Some(map) = object.as_object_mut() {
        map.insert(field.into(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_fills_only_what_is_unset_and_never_a_field_of_the_wrong_type() {
        let mut o = json!({"a": "", "b": 0, "c": null, "d": "x", "e": "s"});
        for field in ["a", "b", "c", "d", "f"] {
            or_zero(&mut o, field, json!(7));
        }
        assert_eq!(o, json!({"a": 7, "b": 7, "c": 7, "d": "x", "e": "s", "f": 7}));
        or_nil(&mut o, "a", json!(8));
        assert_eq!(o["a"], 7);
        assert!(object_at(&mut o, "e").is_none(), "a string is not made an object");
        let mut not_an_object = json!("x");
        or_nil(&mut not_an_object, "a", json!(1));
        assert_eq!(not_an_object, json!("x"));
    }
}
