//! The workload controllers' writes, and what a pass makes of their answers: a write that
//! lands means another pass; an answer that only a change elsewhere can alter (invalid,
//! forbidden, gone) is logged and left to the next change; any other failure is retried.

use std::fmt::Debug;

use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::core::{ClusterResourceScope, NamespaceResourceScope};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::workloads::mutant::{Mutable, Mutant};

/// A namespaced kind the workload controllers write.
pub trait Workload: Resource<Scope = NamespaceResourceScope, DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned {}

impl<K> Workload for K where K: Resource<Scope = NamespaceResourceScope, DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned {}

/// The name the controllers' writes carry as their field manager.
pub const FIELD_MANAGER: &str = "kube-controller-manager";

/// One pass's writes and their outcome.
pub struct Writes {
    client: kube::Client,
    /// The rule broken in this pass, when judging a specification.
    mutant: Option<Mutant>,
    /// The field manager the writes carry.
    manager: &'static str,
    /// Writes that landed.
    pub landed: usize,
    /// Failures worth retrying (conflicts, server errors), described.
    pub retry: Vec<String>,
}

impl Writes {
    /// No writes yet, through `client`, by controllers broken by `mutant` if any.
    pub fn new(client: kube::Client, mutant: Option<Mutant>) -> Self {
        Self { client, mutant, manager: FIELD_MANAGER, landed: 0, retry: Vec::new() }
    }

    /// `decision` as the controllers' mutant makes it, unchanged without one: the one place a
    /// mutant reaches a controller's rule ([`crate::workloads::mutations`]).
    pub fn decided<D: Mutable<Mutant>>(&self, decision: D) -> D {
        decision.mutated(self.mutant)
    }

    /// Makes the writes that follow carry `manager` as their field manager (the scheduler's
    /// and the node agents' writes are not the controller manager's).
    pub fn acting_as(&mut self, manager: &'static str) {
        self.manager = manager;
    }

    /// The client the writes go through (for the reads a write depends on).
    pub fn client(&self) -> &kube::Client {
        &self.client
    }

    fn api<K: Workload>(&self, namespace: &str) -> Api<K> {
        Api::namespaced(self.client.clone(), namespace)
    }

    fn outcome<T>(&mut self, what: String, result: kube::Result<T>) -> Option<T> {
        match result {
            Ok(t) => {
                self.landed += 1;
                Some(t)
            }
            Err(kube::Error::Api(s)) if matches!(s.code, 400 | 403 | 404 | 422) => {
                tracing::debug!("{what}: {} (left until something changes)", s.message);
                None
            }
            Err(e) => {
                tracing::debug!("{what}: {e} (retrying)");
                self.retry.push(format!("{what}: {e}"));
                None
            }
        }
    }

    /// Creates `object` in `namespace`; the created object if it was.
    pub async fn create<K: Workload>(&mut self, namespace: &str, object: &K) -> Option<K> {
        let what = format!("creating a {} in {namespace}", K::kind(&()));
        let params = PostParams { field_manager: Some(self.manager.into()), ..Default::default() };
        let result = self.api(namespace).create(&params, object).await;
        self.outcome(what, result)
    }

    /// Deletes `object` (in the background, as controllers delete their children).
    pub async fn delete<K: Workload>(&mut self, object: &K) {
        let (namespace, name) = (object.namespace().unwrap_or_default(), object.name_any());
        let what = format!("deleting {} {namespace}/{name}", K::kind(&()));
        let result = self.api::<K>(&namespace).delete(&name, &DeleteParams::background()).await;
        self.outcome(what, result);
    }

    /// Replaces `object` as it is written (an update: its resourceVersion makes a write that
    /// read a stale object conflict).
    pub async fn replace<K: Workload>(&mut self, object: &K) {
        let (namespace, name) = (object.namespace().unwrap_or_default(), object.name_any());
        let what = format!("updating {} {namespace}/{name}", K::kind(&()));
        let params = PostParams { field_manager: Some(self.manager.into()), ..Default::default() };
        let result = self.api::<K>(&namespace).replace(&name, &params, object).await;
        self.outcome(what, result);
    }

    /// Replaces the cluster-scoped `object` as it is written, as [`Writes::replace`].
    pub async fn replace_cluster<K>(&mut self, object: &K)
    where
        K: Resource<Scope = ClusterResourceScope, DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
    {
        let name = object.name_any();
        let what = format!("updating {} {name}", K::kind(&()));
        let params = PostParams { field_manager: Some(self.manager.into()), ..Default::default() };
        let result = Api::<K>::all(self.client.clone()).replace(&name, &params, object).await;
        self.outcome(what, result);
    }

    /// Patches `object` with a strategic merge `patch`.
    pub async fn patch<K: Workload>(&mut self, object: &K, patch: Value) {
        let (namespace, name) = (object.namespace().unwrap_or_default(), object.name_any());
        let what = format!("patching {} {namespace}/{name}", K::kind(&()));
        let params = PatchParams { field_manager: Some(self.manager.into()), ..Default::default() };
        let result = self.api::<K>(&namespace).patch(&name, &params, &Patch::Strategic(patch)).await;
        self.outcome(what, result);
    }

    /// Merges `status` into `object`'s status subresource; whether it landed.
    pub async fn patch_status<K: Workload>(&mut self, object: &K, status: Value) -> bool {
        let (namespace, name) = (object.namespace().unwrap_or_default(), object.name_any());
        let what = format!("updating the status of {} {namespace}/{name}", K::kind(&()));
        let params = PatchParams { field_manager: Some(self.manager.into()), ..Default::default() };
        let patch = Patch::Merge(serde_json::json!({"status": status}));
        let result = self.api::<K>(&namespace).patch_status(&name, &params, &patch).await;
        self.outcome(what, result).is_some()
    }

    /// Replaces `object`'s status subresource with its status, at its resourceVersion (a
    /// conflict is retried); whether it landed.
    pub async fn replace_status<K: Workload>(&mut self, object: &K) -> bool {
        let (namespace, name) = (object.namespace().unwrap_or_default(), object.name_any());
        let what = format!("replacing the status of {} {namespace}/{name}", K::kind(&()));
        let params = PostParams { field_manager: Some(self.manager.into()), ..Default::default() };
        let result = self.api::<K>(&namespace).replace_status(&name, &params, object).await;
        self.outcome(what, result).is_some()
    }

    /// Creates the cluster-scoped `object` (given as JSON), as [`Writes::create`].
    pub async fn create_cluster<K>(&mut self, object: &K) -> Option<K>
    where
        K: Resource<Scope = ClusterResourceScope, DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
    {
        let what = format!("creating {} {}", K::kind(&()), object.name_any());
        let params = PostParams { field_manager: Some(self.manager.into()), ..Default::default() };
        let result = Api::<K>::all(self.client.clone()).create(&params, object).await;
        self.outcome(what, result)
    }

    /// Merges `status` into the cluster-scoped `object`'s status subresource, as
    /// [`Writes::patch_status`].
    pub async fn patch_cluster_status<K>(&mut self, object: &K, status: Value) -> bool
    where
        K: Resource<Scope = ClusterResourceScope, DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
    {
        let what = format!("updating the status of {} {}", K::kind(&()), object.name_any());
        let params = PatchParams { field_manager: Some(self.manager.into()), ..Default::default() };
        let patch = Patch::Merge(serde_json::json!({"status": status}));
        let result = Api::<K>::all(self.client.clone()).patch_status(&object.name_any(), &params, &patch).await;
        self.outcome(what, result).is_some()
    }

    /// Posts `body` to `object`'s `subresource` (a pod's `binding`, say); whether it landed.
    pub async fn post_subresource<K: Workload>(&mut self, object: &K, subresource: &str, body: &Value) -> bool {
        let (namespace, name) = (object.namespace().unwrap_or_default(), object.name_any());
        let what = format!("posting {subresource} of {} {namespace}/{name}", K::kind(&()));
        let params = PostParams { field_manager: Some(self.manager.into()), ..Default::default() };
        let result: kube::Result<Value> = self.api::<K>(&namespace).create_subresource(subresource, &name, &params, body).await;
        self.outcome(what, result).is_some()
    }

    /// Deletes `object` at once (grace period 0) if it is still the one with its uid, as a
    /// kubelet removes a pod whose containers have stopped.
    pub async fn delete_now<K: Workload>(&mut self, object: &K) {
        let (namespace, name) = (object.namespace().unwrap_or_default(), object.name_any());
        let what = format!("deleting {} {namespace}/{name} at once", K::kind(&()));
        let params = DeleteParams {
            grace_period_seconds: Some(0),
            preconditions: object.uid().map(|uid| kube::api::Preconditions { uid: Some(uid), resource_version: None }),
            ..Default::default()
        };
        let result = self.api::<K>(&namespace).delete(&name, &params).await;
        self.outcome(what, result);
    }

    /// Whether the controller `owner` may adopt now: a fresh read finds it with the same uid
    /// and not being deleted (upstream's `RecheckDeletionTimestamp`).
    pub async fn can_adopt<K: Workload>(&self, owner: &K) -> bool {
        let (namespace, name) = (owner.namespace().unwrap_or_default(), owner.name_any());
        match self.api::<K>(&namespace).get(&name).await {
            Ok(fresh) => fresh.uid() == owner.uid() && fresh.meta().deletion_timestamp.is_none(),
            Err(_) => false,
        }
    }
}
