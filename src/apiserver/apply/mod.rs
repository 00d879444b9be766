//! Server-side apply and field management, as the real API server does them (upstream's
//! field manager over structured-merge-diff), as pure functions on objects:
//! - [`apply`]: an applied configuration merged into the live object (or an empty one, to
//!   create), the fields it omits that its manager alone applied before removed, ownership
//!   recorded under `metadata.managedFields`, conflicts with other managers answered 409 unless
//!   forced;
//! - [`record_update`]: the `Update` entry every other write (create, update, patch) records.
//!
//! The parts, one file each: [`fieldset`] (field paths and their sets, `FieldsV1`), [`schema`]
//! (list and map types by kind), [`typed`] (field sets, comparison, merge and removal of
//! objects through their schema) and [`managed`] (managedFields entries and conflicts).

pub mod fieldset;
pub mod managed;
pub mod schema;
pub mod typed;

use serde_json::Value;

use crate::apiserver::apply::fieldset::FieldSet;
use crate::apiserver::apply::managed::{Managed, Manager, Operation, conflict_error, is_reset};
use crate::apiserver::apply::schema::Node;
use crate::apiserver::apply::typed::Comparison;
use crate::apiserver::status::{ApiError, ApiResult};

/// Which part of an object a write's manager may own: a subresource's write owns only its
/// part, and the main resource's write owns nothing of `status` where a status subresource
/// writes it (upstream's reset fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owns {
    /// Every field.
    All,
    /// Every field but the top-level one named.
    AllBut(&'static str),
    /// Only the top-level field named.
    Only(&'static str),
}

impl Owns {
    fn filter(self, set: &FieldSet) -> FieldSet {
        match self {
            Self::All => set.clone(),
            Self::AllBut(field) => set.without_field(field),
            Self::Only(field) => set.only_field(field),
        }
    }

    fn comparison(self, c: Comparison) -> Comparison {
        Comparison { added: self.filter(&c.added), modified: self.filter(&c.modified), removed: self.filter(&c.removed) }
    }
}

/// Where a write lands: the object's schema, its kind and the version and subresource the
/// write is made at, what it may own, and the time entries are stamped with.
#[derive(Clone, Copy, Debug)]
pub struct Write<'a> {
    /// The schema of the object's kind.
    pub node: Node<'a>,
    /// The kind written.
    pub kind: &'a str,
    /// The version written (`v1`, `apps/v1`).
    pub api_version: &'a str,
    /// The subresource written, empty for the main resource.
    pub subresource: &'a str,
    /// What the write's manager may own.
    pub owns: Owns,
    /// The time, as RFC 3339.
    pub now: &'a str,
}

/// `group/version, Kind=kind` of an object, as Go prints a GroupVersionKind.
fn gvk(object: &Value) -> String {
    let api_version = object["apiVersion"].as_str().unwrap_or("");
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    format!("{group}/{version}, Kind={}", object["kind"].as_str().unwrap_or(""))
}

fn without_managed_fields(object: &Value) -> Value {
    let mut plain = object.clone();
    if let Some(meta) = plain.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    plain
}

fn store_managed_fields(object: &mut Value, managed: &Managed) {
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    match managed.encode() {
        Some(list) => meta.insert("managedFields".into(), list),
        None => meta.remove("managedFields"),
    };
}

/// Records in `new`'s managedFields the Update by `manager` that turns `live` into `new` (for a
/// create, `live` is an empty object). The managedFields `new` brings are taken as they are
/// when they decode (`[]` or `[{}]` clear them), else the live ones are kept; a subresource
/// write always keeps the live ones. An object that cannot be compared keeps the live ones.
pub fn record_update(live: &Value, new: &mut Value, manager: &str, write: &Write<'_>) {
    let live_fields = &live["metadata"]["managedFields"];
    // Taken out of the new object (which gets the recorded ones back below), so that only the
    // live object is copied to be compared without them.
    let brought = new.get_mut("metadata").and_then(Value::as_object_mut).and_then(|meta| meta.remove("managedFields")).unwrap_or_default();
    let mut managed = if !write.subresource.is_empty() {
        Managed::decode(live_fields).unwrap_or_default()
    } else if is_reset(&brought) {
        Managed::default()
    } else {
        match Managed::decode(&brought) {
            Ok(m) if !m.is_empty() => m,
            _ => Managed::decode(live_fields).unwrap_or_default(),
        }
    };
    match typed::compare(&without_managed_fields(live), new, write.node) {
        Ok(comparison) => {
            let manager = Manager::new(manager, Operation::Update, write.api_version, write.subresource);
            managed.record_update(&write.owns.comparison(comparison), &manager, write.now);
        }
        Err(_) => managed = Managed::decode(live_fields).unwrap_or_default(),
    }
    store_managed_fields(new, &managed);
}

/// Applies `config` for `manager` to `live` (an empty object to create one): returns the merged
/// object with its managedFields. 400 for a configuration of another kind or version, or one
/// that brings managedFields; 409 when it changes fields other managers own, unless `force`.
pub fn apply(live: &Value, config: &Value, manager: &str, force: bool, write: &Write<'_>) -> ApiResult<Value> {
    if config["apiVersion"] != write.api_version || config["kind"] != write.kind {
        return Err(ApiError::bad_request(format!("invalid object type: {}", gvk(config))));
    }
    if !config["metadata"]["managedFields"].is_null() {
        return Err(ApiError::bad_request("metadata.managedFields must be nil"));
    }
    let about = || {
        let meta = &config["metadata"];
        format!("{}/{}; {}", meta["namespace"].as_str().unwrap_or(""), meta["name"].as_str().unwrap_or(""), gvk(config))
    };
    let mut managed = Managed::decode(&live["metadata"]["managedFields"])
        .map_err(|e| ApiError::unknown(format!("failed to decode managed fields: {e}")))?;
    let applied = typed::field_set(config, write.node)
        .map_err(|e| ApiError::unknown(format!("failed to create typed patch object ({}): {e}", about())))?;
    let live = without_managed_fields(live);
    let mut merged = typed::merge(&live, config, write.node).map_err(|e| ApiError::unknown(format!("failed to merge config: {e}")))?;

    let applier = Manager::new(manager, Operation::Apply, write.api_version, write.subresource);
    let last = managed.fields(&applier);
    managed.set(&applier, write.api_version, write.owns.filter(&applied));
    if !last.is_empty() {
        let unowned = last.with_parent_fields().difference(&managed.all_fields().with_parent_fields());
        typed::remove(&mut merged, &unowned, write.node).map_err(|e| ApiError::unknown(format!("failed to prune fields: {e}")))?;
    }
    let comparison =
        typed::compare(&live, &merged, write.node).map_err(|e| ApiError::unknown(format!("failed to compare objects: {e}")))?;
    managed.settle(&write.owns.comparison(comparison), Some(&applier), force).map_err(|conflicts| conflict_error(&conflicts))?;
    managed.strip(&applier);
    if merged != live {
        managed.touch(&applier, write.now);
    }
    store_managed_fields(&mut merged, &managed);
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(now: &'static str) -> Write<'static> {
        Write {
            node: Node::root("", "ConfigMap", false, None),
            kind: "ConfigMap",
            api_version: "v1",
            subresource: "",
            owns: Owns::All,
            now,
        }
    }

    fn cm(data: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": data})
    }

    #[test]
    fn an_applier_owns_what_it_applies_and_loses_what_it_omits() {
        let created = apply(&json!({}), &cm(json!({"x": "1", "y": "2"})), "a", false, &write("t1")).unwrap();
        assert_eq!(
            created["metadata"]["managedFields"],
            json!([{"manager": "a", "operation": "Apply", "apiVersion": "v1", "time": "t1", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:data": {"f:x": {}, "f:y": {}}}}])
        );
        let updated = apply(&created, &cm(json!({"x": "1"})), "a", false, &write("t2")).unwrap();
        assert_eq!(updated["data"], json!({"x": "1"}));
        assert_eq!(updated["metadata"]["managedFields"][0]["fieldsV1"], json!({"f:data": {"f:x": {}}}));
    }

    #[test]
    fn another_manager_conflicts_unless_forced() {
        let created = apply(&json!({}), &cm(json!({"x": "1"})), "a", false, &write("t1")).unwrap();
        let err = apply(&created, &cm(json!({"x": "2"})), "b", false, &write("t2")).unwrap_err();
        assert_eq!(err.message, "Apply failed with 1 conflict: conflict with \"a\": .data.x");
        let same = apply(&created, &cm(json!({"x": "1"})), "b", false, &write("t2")).unwrap();
        assert_eq!(same["metadata"]["managedFields"].as_array().unwrap().len(), 2, "a field applied with the same value is shared");
        let forced = apply(&created, &cm(json!({"x": "2"})), "b", true, &write("t2")).unwrap();
        let managers: Vec<&str> =
            forced["metadata"]["managedFields"].as_array().unwrap().iter().map(|e| e["manager"].as_str().unwrap()).collect();
        assert_eq!(managers, ["b"]);
        assert_eq!(forced["data"]["x"], "2");
    }

    #[test]
    fn an_update_takes_the_fields_it_changes() {
        let created = apply(&json!({}), &cm(json!({"x": "1", "y": "1"})), "a", false, &write("t1")).unwrap();
        let mut patched = created.clone();
        patched["data"]["x"] = json!("2");
        record_update(&created, &mut patched, "kubectl-edit", &write("t2"));
        let entries = patched["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(entries[0]["fieldsV1"], json!({"f:data": {"f:y": {}}}));
        assert_eq!(
            entries[1],
            json!({"manager": "kubectl-edit", "operation": "Update", "apiVersion": "v1", "time": "t2",
            "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:x": {}}}})
        );
        let mut cleared = patched.clone();
        cleared["metadata"]["managedFields"] = json!([{}]);
        record_update(&patched, &mut cleared, "c", &write("t3"));
        assert!(cleared["metadata"].get("managedFields").is_none());
    }

    #[test]
    fn a_configuration_of_another_kind_or_with_managed_fields_is_refused() {
        let mut secret = cm(json!({}));
        secret["kind"] = json!("Secret");
        assert_eq!(apply(&json!({}), &secret, "a", false, &write("t")).unwrap_err().message, "invalid object type: /v1, Kind=Secret");
        let mut with = cm(json!({}));
        with["metadata"]["managedFields"] = json!([]);
        assert_eq!(apply(&json!({}), &with, "a", false, &write("t")).unwrap_err().message, "metadata.managedFields must be nil");
    }
}
