//! The generic store's extension point: the hooks through which a kind's own behaviour
//! (defaults, admission, validation, its own delete, its controller, bookkeeping) enters the
//! verbs, as upstream's registry strategies do. The store knows no kind by name: the server
//! gives it a [`KindOf`] that finds each resource's hooks (the API server's own kinds live in
//! [`crate::apiserver::kinds`]).

use serde_json::Value;

use crate::apiserver::admission::Admission;
use crate::apiserver::catalogue::{Catalogue, DefaultGcPolicy};
use crate::apiserver::deletion::{DeleteOptions, DeletePlan};
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::Storage;
use crate::apiserver::storage::delete::DeletePlanner;
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::storage::write::Target;

/// The hooks of one kind. Every method defaults to the generic store's behaviour.
pub trait Kind: Sync {
    /// Fills defaults on create, as the kind's defaulting functions do.
    fn default_on_create(&self, _object: &mut Value, _now: &str) {}

    /// Gives a new object what the kind's registry allocates from a shared range (a Service's
    /// cluster IP and node ports), seeing the stored objects so that it picks what is free; or
    /// why what the object asks for cannot be had (a dry run checks less).
    fn allocate(&self, _storage: &Storage, _object: &mut Value, _dry_run: bool) -> Vec<FieldError> {
        Vec::new()
    }

    /// What the default admission plugins add to a new object.
    fn admission(&self) -> Admission {
        Admission::default()
    }

    /// Adjusts an update of `target` from `existing` to `new` at `now` as the kind's update
    /// strategy does (`PrepareForUpdate`), and returns what the update may not do.
    fn prepare_update(&self, _target: Target, _new: &mut Value, _existing: &Value, _now: &str) -> Vec<FieldError> {
        Vec::new()
    }

    /// Validates the kind's own fields of an object about to be written.
    fn validate(&self, _object: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    /// Validates a new object whose metadata has the errors `meta`. Upstream's `BeforeCreate`
    /// (k8s.io/apiserver pkg/registry/rest/create.go) runs the strategy's validation, which
    /// most kinds begin with `ValidateObjectMeta`: by default the metadata's errors come first.
    fn validate_create(&self, object: &Value, meta: Vec<FieldError>) -> Vec<FieldError> {
        [meta, self.validate(object)].concat()
    }

    /// Validates an update of `_existing` to `new`: by default as [`Kind::validate`] does a
    /// new object.
    fn validate_update(&self, new: &Value, _existing: &Value) -> Vec<FieldError> {
        self.validate(new)
    }

    /// The warning a DELETE or DELETECOLLECTION with `opts`, made at a version whose default
    /// policy is `default`, carries, whether or not anything is deleted (the registry adds it
    /// before its store acts), if any.
    fn delete_warning(&self, _opts: &DeleteOptions, _default: DefaultGcPolicy) -> Option<&'static str> {
        None
    }

    /// Why admission refuses any DELETE of object `name` (403 Forbidden), if it does.
    fn forbid_delete(&self, _name: &str) -> Option<&'static str> {
        None
    }

    /// What a DELETE of `existing` does, planned from the generic store's steps.
    fn plan_delete(&self, existing: &Value, planner: &DeletePlanner<'_>) -> DeletePlan {
        planner.generic(existing)
    }

    /// Whether `object` waits for a simulated controller ([`Kind::reconcile`]).
    fn awaits_controller(&self, _object: &Value) -> bool {
        false
    }

    /// One step of the kind's simulated controller for an object that awaits it; `node_agent`
    /// says whether the server stands in for kubelets.
    fn reconcile(&self, _storage: &mut Storage, _key: &ObjectKey, _object: &Value, _node_agent: bool) {}

    /// Bookkeeping after an object is written.
    fn committed(&self, _catalogue: &mut Catalogue, _object: &Value) {}

    /// Bookkeeping after an object is removed.
    fn removed(&self, _storage: &mut Storage, _object: &Value) {}
}

/// A kind with nothing special: the generic store's behaviour throughout.
pub struct Generic;

impl Kind for Generic {}

/// Finds the hooks of the resource `plural` in `group`.
pub type KindOf = fn(group: &str, plural: &str) -> &'static dyn Kind;

/// Whether every field along `path` is an object or absent, so that indexing into it to set a
/// default cannot panic: a field of the wrong type is left for validation to refuse.
pub fn objects_along(value: &Value, path: &[&str]) -> bool {
    let mut current = value;
    for field in path {
        current = &current[*field];
        if !(current.is_null() || current.is_object()) {
            return false;
        }
    }
    true
}

/// Puts the stored `<parent>.<field>` back into `new`, or removes it where none is stored (a
/// `parent` that is neither an object nor absent is left for validation to refuse).
pub fn keep_stored(new: &mut Value, existing: &Value, parent: &str, field: &str) {
    if !objects_along(new, &[parent]) {
        return;
    }
    match existing[parent].get(field) {
        Some(value) => new[parent][field] = value.clone(),
        None => {
            if let Some(map) = new[parent].as_object_mut() {
                map.remove(field);
            }
        }
    }
}

/// The fields of `new` and `old` (two objects at `path`) that differ, named by their paths and
/// sorted: what the fake writes where upstream follows a refusal with go-cmp's diff, whose
/// format go-cmp keeps deliberately unstable.
pub fn changed_fields(new: &Value, old: &Value, path: &str) -> String {
    let mut fields: Vec<&String> = new.as_object().into_iter().chain(old.as_object()).flat_map(|m| m.keys()).collect();
    fields.sort();
    fields.dedup();
    fields.retain(|f| new.get(f.as_str()) != old.get(f.as_str()));
    fields.iter().map(|f| format!("{path}.{f}")).collect::<Vec<_>>().join(", ")
}
