//! CustomResourceDefinitions as a kind: their status, their validation, the cleanup finalizer
//! a delete adds and the controller that removes it once the defined resource's objects are
//! gone, and serving (or no longer serving) the resource a definition defines. What a
//! definition says is read in [`crate::apiserver::crd`].

use serde_json::{Value, json};

use crate::apiserver::catalogue::Catalogue;
use crate::apiserver::crd::{self, CLEANUP_FINALIZER};
use crate::apiserver::deletion::{DeleteOptions, DeletePlan};
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::delete::DeletePlanner;
use crate::apiserver::storage::hooks::Kind;
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::storage::{Scope, Storage};
use crate::apiserver::validation::string_list;

/// apiextensions.k8s.io/v1 CustomResourceDefinitions.
pub struct Definitions;

impl Kind for Definitions {
    fn default_on_create(&self, definition: &mut Value, now: &str) {
        definition["status"] = crd::established_status(definition, now);
    }

    fn validate(&self, definition: &Value) -> Vec<FieldError> {
        crd::validate(definition)
    }

    /// The first delete adds the cleanup finalizer, so the definition stays until its
    /// resource's objects are gone.
    fn plan_delete(&self, existing: &Value, planner: &DeletePlanner<'_>) -> DeletePlan {
        if !existing["metadata"]["deletionTimestamp"].is_null() {
            return planner.generic(existing);
        }
        let mut with_cleanup = existing.clone();
        let mut finalizers = string_list(&existing["metadata"], "finalizers");
        if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
            finalizers.push(CLEANUP_FINALIZER.into());
        }
        with_cleanup["metadata"]["finalizers"] = json!(finalizers);
        planner.generic(&with_cleanup)
    }

    fn has_controller(&self) -> bool {
        true
    }

    /// The CRD finalizer: delete the definition's objects, then remove the cleanup finalizer.
    fn reconcile(&self, storage: &mut Storage, key: &ObjectKey, definition: &Value, _node_agent: bool) {
        let finalizers = string_list(&definition["metadata"], "finalizers");
        if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
            storage.awaiting_controllers.remove(key);
            return;
        }
        if let Some(info) = crd::resource_info(definition)
            && let Some(resource) = storage.catalogue.lookup(&info.group, &info.versions[0], &info.plural)
        {
            let items: Vec<(String, String, bool)> = storage
                .store
                .list(&info.group, &info.plural, None, None)
                .map(|((ns, name), o)| (ns.to_string(), name.to_string(), o["metadata"]["deletionTimestamp"].is_null()))
                .collect();
            if !items.is_empty() {
                for (ns, name, live) in items {
                    let scope =
                        Scope { resource: resource.clone(), version: info.versions[0].clone(), namespace: (!ns.is_empty()).then_some(ns) };
                    if live && let Err(e) = storage.delete(&scope, &name, &DeleteOptions::default()) {
                        tracing::debug!(name, error = %e, "custom resource cleanup failed");
                    }
                }
                return;
            }
        }
        storage.remove_controller_finalizer(key, definition, CLEANUP_FINALIZER);
    }

    /// A written definition serves the resource it defines.
    fn committed(&self, catalogue: &mut Catalogue, definition: &Value) {
        if let Some(info) = crd::resource_info(definition) {
            catalogue.insert(info);
        }
    }

    /// A removed definition stops serving its resource, and the objects left go with it.
    fn removed(&self, storage: &mut Storage, definition: &Value) {
        if let Some(info) = crd::resource_info(definition) {
            let leftovers: Vec<ObjectKey> = storage
                .store
                .list(&info.group, &info.plural, None, None)
                .map(|((ns, name), _)| ObjectKey::new(&info.group, &info.plural, ns, name))
                .collect();
            for k in leftovers {
                storage.store.remove(&k);
            }
            storage.catalogue.remove(&info.group, &info.plural);
        }
    }
}
