//! What is special about one kind, behind one hook trait: what the real registry strategies,
//! default admission plugins and controllers of that kind do that a client of a garbage
//! collector notices. [`Kind`] has a hook for every point where the generic store lets a kind
//! differ, each defaulting to "nothing special"; [`of`] is the one place that says which kinds
//! have hooks of their own. The storage verbs ask `scope.kind()` and never compare names.
//!
//! - [`pods`]: defaults, container validation, the node agent finishing graceful deletions.
//! - [`namespaces`]: defaults, the namespace registry's own delete and `finalize`
//!   subresource, the namespace controller.
//! - [`definitions`]: CustomResourceDefinitions — status, validation, the cleanup finalizer
//!   and its controller, serving the resources they define.
//! - [`volumes`]: claims and volumes — the StorageObjectInUseProtection admission plugin and the
//!   pvc-protection and pv-protection controllers.
//! - [`records`]: core Events and ControllerRevisions, which only validate fields of their own.

pub mod definitions;
pub mod namespaces;
pub mod pods;
pub mod records;
pub mod volumes;

use serde_json::{Value, json};

use crate::apiserver::catalogue::Catalogue;
use crate::apiserver::deletion::{self, DeleteContext, DeleteOptions, DeletePlan};
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::Storage;
use crate::apiserver::storage::store::ObjectKey;

/// The hooks of one kind. Every method defaults to the generic store's behaviour.
pub trait Kind: Sync {
    /// Fills defaults on create, as the kind's defaulting functions do.
    fn default_on_create(&self, _object: &mut Value, _now: &str) {}

    /// What the default admission plugins add to a new object.
    fn admit_on_create(&self, _object: &mut Value) {}

    /// Validates the kind's own fields of an object about to be written.
    fn validate(&self, _object: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    /// Whether the kind has the `finalize` subresource (namespaces).
    fn has_finalize_subresource(&self) -> bool {
        false
    }

    /// What a DELETE of `existing` does.
    fn plan_delete(&self, existing: &Value, opts: &DeleteOptions, ctx: DeleteContext<'_>) -> DeletePlan {
        deletion::plan_delete(existing, opts, ctx)
    }

    /// Whether DELETE on the whole collection is served.
    fn deletes_collections(&self) -> bool {
        true
    }

    /// Whether an update that leaves the object deleted, with no grace and no finalizers, may
    /// remove it at once.
    fn removable_after_update(&self, _updated: &Value) -> bool {
        true
    }

    /// Whether an object being deleted waits for a simulated controller ([`Kind::reconcile`]).
    fn has_controller(&self) -> bool {
        false
    }

    /// One step of the kind's simulated controller for an object being deleted; `node_agent`
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

/// The hooks of the resource `plural` in `group`.
pub fn of(group: &str, plural: &str) -> &'static dyn Kind {
    match (group, plural) {
        ("", "pods") => &pods::Pods,
        ("", "namespaces") => &namespaces::Namespaces,
        ("", "persistentvolumeclaims") => &volumes::Claims,
        ("", "persistentvolumes") => &volumes::Volumes,
        ("", "events") => &records::CoreEvents,
        ("apps", "controllerrevisions") => &records::ControllerRevisions,
        ("apiextensions.k8s.io", "customresourcedefinitions") => &definitions::Definitions,
        _ => &Generic,
    }
}

/// Adds `finalizer` to an object's finalizers unless it is there.
fn add_finalizer(object: &mut Value, finalizer: &str) {
    let meta = &mut object["metadata"];
    match meta["finalizers"].as_array_mut() {
        Some(list) if list.iter().any(|f| f == finalizer) => {}
        Some(list) => list.push(json!(finalizer)),
        None => meta["finalizers"] = json!([finalizer]),
    }
}
