//! Simulated cluster components whose work a client of the apiserver observes during deletion,
//! run inside the fake apiserver: the namespace controller (empties a terminating namespace,
//! then finalizes it), the CRD finalizer (deletes a terminating CRD's objects, then lets it go),
//! the pvc-protection and pv-protection controllers (release a terminating claim no pod uses, a
//! terminating volume no claim is bound to) and a node agent standing in for kubelets (finishes
//! a scheduled pod's graceful deletion once its grace period has passed). The garbage collector is deliberately *not* here: it is an
//! ordinary API client.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::apiserver::crd::{self, CLEANUP_FINALIZER};
use crate::apiserver::deletion::{DeleteOptions, Propagation};
use crate::apiserver::kinds::{PV_PROTECTION, PVC_PROTECTION};
use crate::apiserver::mutant::Mutable;
use crate::apiserver::registry::ResourceInfo;
use crate::apiserver::state::{Scope, State};
use crate::apiserver::store::ObjectKey;
use crate::apiserver::validation::string_list;
use crate::clock::parse_time;

/// The resources whose objects the namespace controller deletes from a terminating namespace
/// (upstream's controller discovers them: the namespaced resources of every served group).
#[derive(Clone, Debug, Default)]
pub struct NamespacedResources(pub Vec<Arc<ResourceInfo>>);

/// The namespace finalizer the namespace controller removes once the namespace is empty.
const NAMESPACE_FINALIZER: &str = "kubernetes";

impl State {
    /// One pass of every simulated controller over the objects awaiting them.
    pub fn run_controllers(&mut self, node_agent: bool) {
        let before = self.store.revision();
        self.controller_pass(node_agent);
        if self.store.revision() == before {
            self.controllers_quiescent_at = before;
        }
    }

    /// Whether the simulated controllers have nothing to do until time passes.
    pub fn controllers_idle(&self) -> bool {
        self.awaiting_controllers.is_empty() || self.controllers_quiescent_at == self.store.revision()
    }

    fn controller_pass(&mut self, node_agent: bool) {
        let keys: Vec<ObjectKey> = self.awaiting_controllers.iter().cloned().collect();
        for key in keys {
            let Some(object) = self.store.get(&key).cloned() else {
                self.awaiting_controllers.remove(&key);
                continue;
            };
            if object["metadata"]["deletionTimestamp"].is_null() {
                self.awaiting_controllers.remove(&key);
                continue;
            }
            match (key.group.as_str(), key.resource.as_str()) {
                ("", "namespaces") => self.finish_namespace(&key.name, &object),
                ("apiextensions.k8s.io", "customresourcedefinitions") => self.finish_crd(&key, &object),
                ("", "pods") if node_agent => self.finish_pod(&key, &object),
                ("", "persistentvolumeclaims") => {
                    let in_use = self.claim_in_use(&key.namespace, &key.name);
                    self.release_protected(&key, &object, PVC_PROTECTION, in_use);
                }
                ("", "persistentvolumes") => {
                    let bound = object["status"]["phase"] == "Bound";
                    self.release_protected(&key, &object, PV_PROTECTION, bound);
                }
                _ => {}
            }
        }
    }

    /// The namespace controller: delete everything in the namespace (background propagation),
    /// and once nothing is left remove the `kubernetes` finalizer and delete the namespace.
    fn finish_namespace(&mut self, name: &str, namespace: &Value) {
        let ns_scope = Scope::namespaces(&self.registry);
        let spec_finalizers = string_list(&namespace["spec"], "finalizers");
        if spec_finalizers.iter().any(|f| f == NAMESPACE_FINALIZER) {
            let resources = self.namespaced_resources().mutated_by(self.mutant);
            if self.delete_namespace_contents(name, resources) > 0 {
                return;
            }
            let mut finalized = (**self.store.get(&ns_scope.key(name)).expect("checked by caller")).clone();
            let rest: Vec<String> = spec_finalizers.into_iter().filter(|f| f != NAMESPACE_FINALIZER).collect();
            finalized["spec"]["finalizers"] = json!(rest);
            self.commit(ns_scope.key(name), finalized);
        }
        if let Err(e) = self.delete(&ns_scope, name, &DeleteOptions::default()) {
            tracing::debug!(namespace = name, error = %e, "namespace delete deferred");
        }
        let still_there = self.store.get(&ns_scope.key(name)).is_some();
        if !still_there || !string_list(&self.store.get(&ns_scope.key(name)).expect("present")["metadata"], "finalizers").is_empty() {
            // Gone, or waiting for the garbage collector to act on a GC finalizer.
            self.awaiting_controllers.remove(&ns_scope.key(name));
        }
    }

    /// Every namespaced resource, once where several share a storage.
    fn namespaced_resources(&self) -> NamespacedResources {
        NamespacedResources(
            self.registry.all().filter(|r| r.namespaced && r.storage == (r.group.clone(), r.plural.clone())).cloned().collect(),
        )
    }

    /// Deletes the namespace's objects of `resources` that are not yet being deleted; returns
    /// how many remain.
    fn delete_namespace_contents(&mut self, namespace: &str, resources: NamespacedResources) -> usize {
        let background = DeleteOptions { propagation: Some(Propagation::Background), ..Default::default() };
        let mut remaining = 0;
        for resource in resources.0 {
            let scope = Scope { version: resource.versions[0].clone(), namespace: Some(namespace.into()), resource: resource.clone() };
            let items: Vec<(String, bool)> = self
                .store
                .list(&resource.group, &resource.plural, Some(namespace), None)
                .map(|(k, o)| (k.name.clone(), o["metadata"]["deletionTimestamp"].is_null()))
                .collect();
            for (name, live) in items {
                if live && let Err(e) = self.delete(&scope, &name, &background) {
                    tracing::debug!(namespace, name, error = %e, "namespace content delete failed");
                }
                if self.store.get(&scope.key(&name)).is_some() {
                    remaining += 1;
                }
            }
        }
        remaining
    }

    /// The CRD finalizer: delete the CRD's objects, then remove the cleanup finalizer.
    fn finish_crd(&mut self, key: &ObjectKey, definition: &Value) {
        let finalizers = string_list(&definition["metadata"], "finalizers");
        if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
            self.awaiting_controllers.remove(key);
            return;
        }
        if let Some(info) = crd::resource_info(definition)
            && let Some(resource) = self.registry.lookup(&info.group, &info.versions[0], &info.plural)
        {
            let items: Vec<(String, String, bool)> = self
                .store
                .list(&info.group, &info.plural, None, None)
                .map(|(k, o)| (k.namespace.clone(), k.name.clone(), o["metadata"]["deletionTimestamp"].is_null()))
                .collect();
            if !items.is_empty() {
                for (ns, name, live) in items {
                    let scope =
                        Scope { resource: resource.clone(), version: info.versions[0].clone(), namespace: (!ns.is_empty()).then_some(ns) };
                    if live && let Err(e) = self.delete(&scope, &name, &DeleteOptions::default()) {
                        tracing::debug!(name, error = %e, "custom resource cleanup failed");
                    }
                }
                return;
            }
        }
        self.remove_finalizer(key, definition, CLEANUP_FINALIZER);
    }

    /// Removes a controller's `finalizer` from a terminating object, which goes if it was the
    /// last one, and stops awaiting the object.
    fn remove_finalizer(&mut self, key: &ObjectKey, object: &Value, finalizer: &str) {
        let rest: Vec<String> = string_list(&object["metadata"], "finalizers").into_iter().filter(|f| f != finalizer).collect();
        if rest.is_empty() {
            self.remove(key);
        } else {
            let mut updated = object.clone();
            updated["metadata"]["finalizers"] = json!(rest);
            self.commit(key.clone(), updated);
            self.awaiting_controllers.remove(key);
        }
    }

    /// The pvc-protection and pv-protection controllers: a terminating claim or volume keeps its
    /// protection `finalizer` while `in_use` (a pod uses the claim; the volume is bound).
    fn release_protected(&mut self, key: &ObjectKey, object: &Value, finalizer: &str, in_use: bool) {
        if !string_list(&object["metadata"], "finalizers").iter().any(|f| f == finalizer) {
            self.awaiting_controllers.remove(key);
        } else if !in_use {
            self.remove_finalizer(key, object, finalizer);
        }
    }

    /// Whether a pod in `namespace` that has not finished mounts the claim `name`.
    fn claim_in_use(&self, namespace: &str, name: &str) -> bool {
        self.store.list("", "pods", Some(namespace), None).any(|(_, pod)| {
            let finished = matches!(pod["status"]["phase"].as_str(), Some("Succeeded" | "Failed"));
            let volumes = pod["spec"]["volumes"].as_array().map(Vec::as_slice).unwrap_or_default();
            !finished && volumes.iter().any(|v| v["persistentVolumeClaim"]["claimName"] == name)
        })
    }

    /// The node agent: a scheduled pod whose grace period has run out is deleted with grace 0,
    /// as the kubelet does once its containers have stopped.
    fn finish_pod(&mut self, key: &ObjectKey, pod: &Value) {
        let meta = &pod["metadata"];
        if meta["deletionGracePeriodSeconds"].as_i64().unwrap_or(0) == 0 {
            self.awaiting_controllers.remove(key);
            return;
        }
        let due = meta["deletionTimestamp"].as_str().and_then(parse_time).is_some_and(|t| t <= self.clock.now());
        if !due {
            return;
        }
        let Some(resource) = self.registry.lookup("", "v1", "pods") else { return };
        let scope = Scope { resource, version: "v1".into(), namespace: Some(key.namespace.clone()) };
        let opts =
            DeleteOptions { grace_period_seconds: Some(0), precondition_uid: meta["uid"].as_str().map(String::from), ..Default::default() };
        if let Err(e) = self.delete(&scope, &key.name, &opts) {
            tracing::debug!(pod = key.name, error = %e, "node agent delete failed");
        }
    }
}
