//! CustomResourceDefinitions as a kind: their status, established by the apiserver's
//! controllers after the create, their validation, the mark a first delete leaves (cleanup
//! finalizer, `Terminating` condition) and the controller that removes the finalizer once the
//! defined resource's objects are gone, and serving (or no longer serving) the resource a definition defines. What a
//! definition says is read in [`crate::apiserver::crd`].

use serde_json::{Value, json};

use crate::apiserver::catalogue::Catalogue;
use crate::apiserver::crd::{self, CLEANUP_FINALIZER, Terminating};
use crate::apiserver::deletion::{DeleteOptions, DeletePlan};
use crate::apiserver::schema::WriteOptions;
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::delete::DeletePlanner;
use crate::apiserver::storage::hooks::Kind;
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::storage::write::Target;
use crate::apiserver::storage::{CleanupWait, Scope, Storage};
use crate::apiserver::validation::string_list;
use crate::clock::format_time;

/// apiextensions.k8s.io/v1 CustomResourceDefinitions.
pub struct Definitions;

impl Kind for Definitions {
    /// A new definition has accepted no names yet: the apiserver's controllers accept them.
    fn default_on_create(&self, definition: &mut Value, _now: &str) {
        definition["status"] = crd::created_status(definition);
    }

    /// An update of the definition keeps every version stored before and adds its storage
    /// version to them (apiextensions-apiserver `registry/customresourcedefinition/strategy.go`,
    /// `PrepareForUpdate`), before the stored versions are validated.
    fn prepare_update(&self, target: Target, new: &mut Value, _existing: &Value, _now: &str) -> Vec<FieldError> {
        if target == Target::Main {
            crd::store_storage_version(new);
        }
        Vec::new()
    }

    fn validate(&self, definition: &Value) -> Vec<FieldError> {
        crd::validate(definition)
    }

    /// The first delete only marks the definition: deletion time, the cleanup finalizer and a
    /// `Terminating` condition, written as they are (no grace period, no new generation, the
    /// propagation policy unread); a later delete is the generic store's
    /// (apiextensions-apiserver `registry/customresourcedefinition/etcd.go`, `REST.Delete`).
    fn plan_delete(&self, existing: &Value, planner: &DeletePlanner<'_>) -> DeletePlan {
        if !existing["metadata"]["deletionTimestamp"].is_null() {
            return planner.generic(existing);
        }
        let now = format_time(planner.ctx.now);
        let mut marked = existing.clone();
        marked["metadata"]["deletionTimestamp"] = json!(now);
        let mut finalizers = string_list(&existing["metadata"], "finalizers");
        if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
            finalizers.push(CLEANUP_FINALIZER.into());
        }
        marked["metadata"]["finalizers"] = json!(finalizers);
        Terminating::Pending.set(&mut marked["status"], &now);
        DeletePlan::Keep(marked)
    }

    /// A definition waits for the apiserver's controllers until its names are accepted and it
    /// is established, and while it is deleted with the cleanup finalizer.
    fn awaits_controller(&self, definition: &Value) -> bool {
        if definition["metadata"]["deletionTimestamp"].is_null() {
            crd::settled_status(definition, "").is_some()
        } else {
            string_list(&definition["metadata"], "finalizers").iter().any(|f| f == CLEANUP_FINALIZER)
        }
    }

    /// Establishes a new or changed definition; for one being deleted, the CRD finalizer
    /// (apiextensions-apiserver `controller/finalizer/crd_finalizer.go`): the `Terminating`
    /// condition set in progress, the definition's objects deleted, and once none is left the
    /// condition completed and the cleanup finalizer removed, each through the status
    /// subresource. While objects are left (held by finalizers of their own) the finalizer
    /// waits for them, a minute at most, before it starts again; see [`CleanupWait`].
    fn reconcile(&self, storage: &mut Storage, key: &ObjectKey, definition: &Value, _node_agent: bool) {
        if definition["metadata"]["deletionTimestamp"].is_null() {
            establish(storage, key, definition);
            return;
        }
        let now = storage.clock.now();
        let uid = definition["metadata"]["uid"].as_str().unwrap_or_default();
        if let Some(wait) = storage.definition_cleanups.get(&key.name) {
            let left = instances_left(storage, definition);
            let ours = wait.uid == uid;
            if left && !wait.over(now) {
                return;
            }
            storage.definition_cleanups.remove(&key.name);
            if !left && ours {
                finish(storage, key, definition.clone(), Terminating::Completed);
                return;
            }
            // The wait ran out (upstream writes `InstanceDeletionCheck`, which its next sync,
            // at once, turns back into `InstanceDeletionInProgress`), or it was the wait of a
            // definition of the same name deleted before: a fresh sync.
        }
        let mut definition = definition.clone();
        if !crd::is_established(&definition["status"]) {
            finish(storage, key, definition, Terminating::NeverEstablished);
            return;
        }
        if Terminating::InProgress.set(&mut definition["status"], &format_time(now)) {
            let Some(written) = write_status(storage, key, definition) else { return };
            definition = written;
        }
        // A delete that fails is retried at the next sync, without the wait
        // (`InstanceDeletionFailed`).
        if !delete_instances(storage, &definition) {
            return;
        }
        if instances_left(storage, &definition) {
            let wait = CleanupWait { uid: uid.to_string(), began: now, torn_down: None };
            storage.definition_cleanups.insert(key.name.clone(), wait);
            return;
        }
        finish(storage, key, definition, Terminating::Completed);
    }

    /// A written definition serves the resource it defines.
    fn committed(&self, catalogue: &mut Catalogue, definition: &Value) {
        if let Some(info) = crd::resource_info(definition) {
            catalogue.insert(info);
        }
    }

    /// A removed definition stops serving its resource. Objects of it still stored stay, as
    /// they stay in etcd upstream (a definition removed without its cleanup finalizer, by a
    /// collection delete or by a client that removed the finalizer): a definition made again
    /// serves them again.
    fn removed(&self, storage: &mut Storage, definition: &Value) {
        if let Some(info) = crd::resource_info(definition) {
            storage.catalogue.remove(&info.group, &info.plural);
        }
        let (name, uid) = (&definition["metadata"]["name"], &definition["metadata"]["uid"]);
        let now = storage.clock.now();
        if let Some(wait) = name.as_str().and_then(|name| storage.definition_cleanups.get_mut(name)) {
            if uid.as_str() == Some(wait.uid.as_str()) {
                wait.torn_down.get_or_insert(now + TEAR_DOWN_DELAY);
            }
        }
    }
}

/// The field manager of the apiserver's own writes (its loopback client's user agent).
const APISERVER_MANAGER: &str = "kube-apiserver";

/// Writes the status the naming, establishing and approval controllers give `definition`,
/// through the status subresource as they do.
fn establish(storage: &mut Storage, key: &ObjectKey, definition: &Value) {
    let Some(status) = crd::settled_status(definition, &format_time(storage.clock.now())) else { return };
    let mut updated = definition.clone();
    updated["status"] = status;
    write_status(storage, key, updated);
}

/// Writes `definition` through the status subresource as the apiserver's own controllers do;
/// what is stored, or nothing (and no more waiting for them) when the write fails.
fn write_status(storage: &mut Storage, key: &ObjectKey, definition: Value) -> Option<Value> {
    let written = storage.scope("apiextensions.k8s.io", "v1", "customresourcedefinitions", None).and_then(|scope| {
        let opts = WriteOptions { field_manager: APISERVER_MANAGER.into(), ..WriteOptions::default() };
        storage.update(&scope, &key.name, definition, Target::Status, opts)
    });
    match written {
        Ok(stored) => Some(stored),
        Err(e) => {
            tracing::debug!(name = key.name, error = %e, "definition status not written");
            storage.awaiting_controllers.remove(key);
            None
        }
    }
}

/// How long after a definition is gone the handler tears down the storage it served, which
/// the finalizer's poll still lists through (apiextensions-apiserver
/// pkg/apiserver/customresource_handler.go, `tearDown`: a second for requests to register).
const TEAR_DOWN_DELAY: chrono::Duration = chrono::Duration::seconds(1);

/// Sets the `Terminating` condition of `definition` to `outcome` and removes the cleanup
/// finalizer, through the status subresource.
fn finish(storage: &mut Storage, key: &ObjectKey, mut definition: Value, outcome: Terminating) {
    outcome.set(&mut definition["status"], &format_time(storage.clock.now()));
    let finalizers: Vec<String> =
        string_list(&definition["metadata"], "finalizers").into_iter().filter(|f| f != CLEANUP_FINALIZER).collect();
    definition["metadata"]["finalizers"] = json!(finalizers);
    write_status(storage, key, definition);
}

/// Whether any object of the resource `definition` defines is still stored.
fn instances_left(storage: &Storage, definition: &Value) -> bool {
    crd::resource_info(definition).is_some_and(|info| storage.store.list(&info.group, &info.plural, None, None).next().is_some())
}

/// Deletes the live objects of the resource `definition` defines; whether every delete was made.
fn delete_instances(storage: &mut Storage, definition: &Value) -> bool {
    let Some(info) = crd::resource_info(definition) else { return true };
    let Some(resource) = storage.catalogue.lookup(&info.group, &info.versions[0], &info.plural) else { return true };
    let live: Vec<(String, String)> = storage
        .store
        .list(&info.group, &info.plural, None, None)
        .filter(|(_, o)| o["metadata"]["deletionTimestamp"].is_null())
        .map(|((ns, name), _)| (ns.to_string(), name.to_string()))
        .collect();
    for (ns, name) in &live {
        let scope =
            Scope { resource: resource.clone(), version: info.versions[0].clone(), namespace: (!ns.is_empty()).then(|| ns.clone()) };
        if let Err(e) = storage.delete(&scope, name, &DeleteOptions::default()) {
            tracing::debug!(name, error = %e, "custom resource cleanup failed");
            return false;
        }
    }
    true
}
