//! Namespaces: their defaults (the `kubernetes.io/metadata.name` label), the namespaces admission
//! never lets be deleted, the namespace registry's own delete (termination first), removal
//! only once `spec.finalizers` (written through the `finalize` subresource) is empty, and the
//! namespace controller that empties a terminating namespace and then finalizes it.

use serde_json::{Value, json};

use crate::apiserver::catalogue::{DefaultGcPolicy, NamespacedResources};
use crate::apiserver::deletion::{DeleteOptions, DeletePlan, Propagation};
use crate::apiserver::mutant::Mutable;
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::delete::DeletePlanner;
use crate::apiserver::storage::hooks::{Kind, keep_stored, objects_along};
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::storage::write::Target;
use crate::apiserver::storage::{Scope, Storage};
use crate::apiserver::validation::string_list;
use crate::clock::format_time;

/// The namespace finalizer the namespace controller removes once the namespace is empty.
const NAMESPACE_FINALIZER: &str = "kubernetes";

/// The label every namespace carries with its own name as the value.
pub const NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// The namespaces the NamespaceLifecycle admission plugin never lets go
/// (`k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle`, its `Register`).
pub const IMMORTAL: [&str; 3] = ["default", "kube-system", "kube-public"];

/// core/v1 Namespaces.
pub struct Namespaces;

/// Sets [`NAME_LABEL`] to the namespace's name, as upstream's defaulting does on create and its
/// strategy's `Canonicalize` on every write (`pkg/apis/core/v1/defaults.go`
/// `SetDefaults_Namespace`, `pkg/registry/core/namespace/strategy.go`). Labels of the wrong
/// type are left for validation to refuse.
fn label_with_name(namespace: &mut Value) {
    let Some(name) = namespace["metadata"]["name"].as_str().filter(|n| !n.is_empty()).map(str::to_string) else { return };
    if objects_along(namespace, &["metadata", "labels"]) {
        namespace["metadata"]["labels"][NAME_LABEL] = json!(name);
    }
}

impl Kind for Namespaces {
    fn default_on_create(&self, namespace: &mut Value, _now: &str) {
        if objects_along(namespace, &["spec"]) {
            namespace["spec"]["finalizers"] = json!([NAMESPACE_FINALIZER]);
        }
        namespace["status"] = json!({"phase": "Active"});
        label_with_name(namespace);
    }

    /// An update keeps `spec.finalizers` as they are: only the `finalize` subresource writes
    /// them (`namespaceStrategy.PrepareForUpdate`, pkg/registry/core/namespace/strategy.go).
    /// A status write keeps the phase to the deletion: `Active` until the namespace is deleted,
    /// `Terminating` after (`ValidateNamespaceStatusUpdate`, pkg/apis/core/validation).
    fn prepare_update(&self, target: Target, new: &mut Value, existing: &Value, _now: &str) -> Vec<FieldError> {
        if target == Target::Main {
            keep_stored(new, existing, "spec", "finalizers");
        }
        label_with_name(new);
        if target != Target::Status {
            return Vec::new();
        }
        // An update never removes a deletion timestamp (`rest.BeforeUpdate`).
        let deleting = !new["metadata"]["deletionTimestamp"].is_null() || !existing["metadata"]["deletionTimestamp"].is_null();
        let (phase, rule) = if deleting {
            ("Terminating", "may only be 'Terminating' if `deletionTimestamp` is not empty")
        } else {
            ("Active", "may only be 'Active' if `deletionTimestamp` is empty")
        };
        let written = &new["status"]["phase"];
        if written.as_str() == Some(phase) {
            return Vec::new();
        }
        vec![FieldError::invalid("status.Phase", written.clone(), rule)]
    }

    /// The NamespaceLifecycle admission plugin refuses to delete [`IMMORTAL`] namespaces.
    fn forbid_delete(&self, name: &str) -> Option<&'static str> {
        IMMORTAL.contains(&name).then_some("this namespace may not be deleted")
    }

    /// The namespace registry's own Delete: the first request only starts termination (phase
    /// `Terminating`, deletionTimestamp, GC finalizers from the options); once the namespace
    /// controller has emptied `spec.finalizers`, a delete goes the generic way.
    fn plan_delete(&self, existing: &Value, planner: &DeletePlanner<'_>) -> DeletePlan {
        if existing["metadata"]["deletionTimestamp"].is_null() {
            let finalizers = planner.finalizer_change(existing, DefaultGcPolicy::DeleteDependents);
            let mut obj = existing.clone();
            obj["metadata"]["deletionTimestamp"] = json!(format_time(planner.ctx.now));
            obj["status"]["phase"] = json!("Terminating");
            if finalizers.changed() {
                obj["metadata"]["finalizers"] = json!(finalizers.new);
            }
            return DeletePlan::Keep(obj);
        }
        if !string_list(&existing["spec"], "finalizers").is_empty() {
            return DeletePlan::Unchanged;
        }
        // Finalized: the generic store's delete, which marks a namespace that still has
        // finalizers as deleting with no grace (`markAsDeleting`).
        planner.generic(existing)
    }

    /// A namespace being deleted waits for the namespace controller.
    fn awaits_controller(&self, object: &Value) -> bool {
        !object["metadata"]["deletionTimestamp"].is_null()
    }

    /// The namespace controller: delete everything in the namespace (background propagation),
    /// and once nothing is left remove the `kubernetes` finalizer and delete the namespace; if
    /// it does not run, nothing.
    fn reconcile(&self, storage: &mut Storage, key: &ObjectKey, namespace: &Value, _node_agent: bool) {
        if !storage.namespace_controller {
            return;
        }
        let name = key.name.as_str();
        let ns_scope = Scope::namespaces(&storage.catalogue);
        let spec_finalizers = string_list(&namespace["spec"], "finalizers");
        if spec_finalizers.iter().any(|f| f == NAMESPACE_FINALIZER) {
            let resources = storage.catalogue.namespaced().mutated_by(storage.mutant);
            if delete_contents(storage, name, resources) > 0 {
                return;
            }
            let mut finalized = (**storage.store.get(key).expect("awaited objects are stored")).clone();
            let rest: Vec<String> = spec_finalizers.into_iter().filter(|f| f != NAMESPACE_FINALIZER).collect();
            finalized["spec"]["finalizers"] = json!(rest);
            storage.commit(ns_scope.key(name), finalized);
        }
        if let Err(e) = storage.delete(&ns_scope, name, &DeleteOptions::default()) {
            tracing::debug!(namespace = name, error = %e, "namespace delete deferred");
        }
        let waits_for_gc = storage.store.get(key).is_some_and(|ns| !string_list(&ns["metadata"], "finalizers").is_empty());
        if storage.store.get(key).is_none() || waits_for_gc {
            // Gone, or waiting for the garbage collector to act on a GC finalizer.
            storage.awaiting_controllers.remove(key);
        }
    }
}

/// Deletes the namespace's objects of `resources` that are not yet being deleted; returns how
/// many remain.
fn delete_contents(storage: &mut Storage, namespace: &str, resources: NamespacedResources) -> usize {
    let background = DeleteOptions { propagation: Some(Propagation::Background), ..Default::default() };
    let mut remaining = 0;
    for resource in resources.0 {
        let scope = Scope { version: resource.versions[0].clone(), namespace: Some(namespace.into()), resource: resource.clone() };
        let items: Vec<(String, bool)> = storage
            .store
            .list(&resource.group, &resource.plural, Some(namespace), None)
            .map(|((_, name), o)| (name.to_string(), o["metadata"]["deletionTimestamp"].is_null()))
            .collect();
        for (name, live) in items {
            if live && let Err(e) = storage.delete(&scope, &name, &background) {
                tracing::debug!(namespace, name, error = %e, "namespace content delete failed");
            }
            if storage.store.get(&scope.key(&name)).is_some() {
                remaining += 1;
            }
        }
    }
    remaining
}
