//! Namespaces: their defaults (the `kubernetes.io/metadata.name` label), the namespaces admission
//! never lets be deleted, the namespace registry's own delete (termination first), removal
//! only once `spec.finalizers` (written through the `finalize` subresource) is empty, and the
//! namespace controller that empties a terminating namespace — its pods first — and then
//! finalizes it, writing its deletion conditions as it goes.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::apiserver::catalogue::{DefaultGcPolicy, ResourceInfo};
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
            let (pods, others): (Vec<_>, Vec<_>) = resources.0.into_iter().partition(|r| r.group.is_empty() && r.plural == "pods");
            // Pods go first; nothing else is deleted while one remains (the conditions then
            // say nothing remains: upstream counts the rest only once the pods are gone).
            if !delete_contents(storage, name, &pods).is_empty() {
                write_conditions(storage, key, &Remaining::default());
                return;
            }
            let remaining = delete_contents(storage, name, &others);
            write_conditions(storage, key, &remaining);
            if !remaining.is_empty() {
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

/// What a pass of the namespace controller left in a namespace: how many objects of each
/// resource (`plural.group`), and how many of them each finalizer holds.
#[derive(Default)]
struct Remaining {
    by_resource: BTreeMap<String, usize>,
    by_finalizer: BTreeMap<String, usize>,
}

impl Remaining {
    fn is_empty(&self) -> bool {
        self.by_resource.is_empty()
    }
}

/// Deletes the namespace's objects of `resources` that are not yet being deleted; returns what
/// remains.
fn delete_contents(storage: &mut Storage, namespace: &str, resources: &[Arc<ResourceInfo>]) -> Remaining {
    let background = DeleteOptions { propagation: Some(Propagation::Background), ..Default::default() };
    let mut remaining = Remaining::default();
    for resource in resources {
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
            if let Some(left) = storage.store.get(&scope.key(&name)) {
                *remaining.by_resource.entry(format!("{}.{}", resource.plural, resource.group)).or_default() += 1;
                for finalizer in string_list(&left["metadata"], "finalizers") {
                    *remaining.by_finalizer.entry(finalizer).or_default() += 1;
                }
            }
        }
    }
    remaining
}

/// The namespace controller's five deletion conditions, as `status.conditions` of the
/// namespace at `key` holds them after a pass that left `remaining`: discovery, group
/// versions and content deletion never fail here, so those are `False`; content and
/// finalizers remaining are `True` while some do (`pkg/controller/namespace/deletion/
/// status_condition_utils.go`). A condition keeps its transition time until its status
/// changes.
fn write_conditions(storage: &mut Storage, key: &ObjectKey, remaining: &Remaining) {
    let Some(namespace) = storage.store.get(key) else { return };
    let mut namespace = (**namespace).clone();
    let listed = |counts: &BTreeMap<String, usize>, form: fn(&str, usize) -> String| {
        counts.iter().map(|(what, n)| form(what, *n)).collect::<Vec<_>>().join(", ")
    };
    let resources = listed(&remaining.by_resource, |r, n| format!("{r} has {n} resource instances"));
    let finalizers = listed(&remaining.by_finalizer, |f, n| format!("{f} in {n} resource instances"));
    let wanted = [
        ("NamespaceDeletionDiscoveryFailure", None, ("ResourcesDiscovered", "All resources successfully discovered".to_string())),
        ("NamespaceDeletionGroupVersionParsingFailure", None, ("ParsedGroupVersions", "All legacy kube types successfully parsed".into())),
        (
            "NamespaceDeletionContentFailure",
            None,
            ("ContentDeleted", "All content successfully deleted, may be waiting on finalization".into()),
        ),
        (
            "NamespaceContentRemaining",
            (!resources.is_empty()).then(|| ("SomeResourcesRemain", format!("Some resources are remaining: {resources}"))),
            ("ContentRemoved", "All content successfully removed".into()),
        ),
        (
            "NamespaceFinalizersRemaining",
            (!finalizers.is_empty())
                .then(|| ("SomeFinalizersRemain", format!("Some content in the namespace has finalizers remaining: {finalizers}"))),
            ("ContentHasNoFinalizers", "All content-preserving finalizers finished".into()),
        ),
    ];
    let now = format_time(storage.clock.now());
    let mut conditions = namespace["status"]["conditions"].as_array().cloned().unwrap_or_default();
    for (kind, failing, ok) in wanted {
        let (status, (reason, message)) = match failing {
            Some(failing) => ("True", failing),
            None => ("False", ok),
        };
        match conditions.iter_mut().find(|c| c["type"] == kind) {
            Some(c) => {
                if c["status"] != status {
                    c["lastTransitionTime"] = json!(now);
                }
                c["status"] = json!(status);
                c["reason"] = json!(reason);
                c["message"] = json!(message);
            }
            None => {
                conditions.push(json!({"type": kind, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}))
            }
        }
    }
    if namespace["status"]["conditions"] != json!(conditions) {
        namespace["status"]["conditions"] = json!(conditions);
        storage.commit(key.clone(), namespace);
    }
}
