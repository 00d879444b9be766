//! The collector: the attemptToDelete and attemptToOrphan workers (catalogue A.5-A.9). The
//! decision for an item is a pure function of its owners' classification ([`decide`]); the
//! worker gathers the facts (a live GET of the item and of each owner), decides, and acts.
//! A decision that reads an object's dependents from the graph is held until the graph is
//! complete ([`crate::gc::cache_sync`]).

use std::sync::Arc;

use kube::api::PropagationPolicy;

use crate::gc::Shared;
use crate::gc::events::{GraphEvent, ObjectMeta};
use crate::gc::graph::{Identity, Node, OwnerRef, WorkItem, item};
use crate::gc::mutant::Mutant;
use crate::gc::operations::{self, is_status};
use crate::gc::patch;
use crate::gc::rest_mapper::{Mapping, MappingError};
use crate::metadata::{FINALIZER_FOREGROUND, FINALIZER_ORPHAN};

/// Why an attempt did not complete.
#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    /// The item was absent; a virtual delete event was queued (forget the item).
    #[error("item is absent; a virtual delete event was queued")]
    EnqueuedVirtualDelete,
    /// A cluster-scoped item refers to a namespaced owner, or a namespaced virtual owner has
    /// no namespace: never collected, never retried (forget the item).
    #[error("cluster-scoped object refers to a namespaced owner")]
    NamespacedOwnerOfClusterScoped,
    /// The reference's kind is not served (retry with back-off).
    #[error(transparent)]
    Mapping(#[from] MappingError),
    /// An API call failed (retry with back-off).
    #[error("{0}")]
    Api(#[from] kube::Error),
    /// The decision needs the item's dependents and the graph lacks these lists (hold the item
    /// until the graph is complete).
    #[error("the graph is not complete: waiting for {}", .0.join("; "))]
    GraphIncomplete(Vec<String>),
}

/// How an owner reference resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnerState {
    /// The owner exists and is not waiting for its dependents.
    Solid,
    /// The owner does not exist (or exists with another UID).
    Dangling,
    /// The owner is being deleted in the foreground.
    WaitingForDependentsDeletion,
}

/// What to do with an item whose owners have been classified (A.5).
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Leave it alone.
    Nothing,
    /// Remove the references to these owners (dangling or waiting) and keep the item.
    RemoveOwnerRefs(Vec<Arc<str>>),
    /// Delete it in the foreground, first making its blocking references non-blocking when
    /// a dependent of it is itself deleting its dependents (a possible cycle).
    DeleteForeground {
        /// Send the unblock patch first.
        unblock: bool,
    },
    /// Delete it with the policy its own finalizers imply.
    Delete(PropagationPolicy),
}

/// Decides an item's fate from its classified owners (upstream `attemptToDeleteItem`).
pub fn decide(
    owners: &[(OwnerRef, OwnerState)],
    has_dependents: bool,
    a_dependent_deletes_dependents: bool,
    finalizers: &[String],
) -> Decision {
    let with = |s: OwnerState| owners.iter().filter(move |(_, st)| *st == s).map(|(r, _)| r.uid.clone());
    let solid = with(OwnerState::Solid).count();
    let mut remove: Vec<Arc<str>> = with(OwnerState::Dangling).collect();
    let waiting: Vec<Arc<str>> = with(OwnerState::WaitingForDependentsDeletion).collect();
    if solid > 0 {
        if remove.is_empty() && waiting.is_empty() {
            return Decision::Nothing;
        }
        remove.extend(waiting);
        return Decision::RemoveOwnerRefs(remove);
    }
    if !waiting.is_empty() && has_dependents {
        return Decision::DeleteForeground { unblock: a_dependent_deletes_dependents };
    }
    let policy = if finalizers.iter().any(|f| f == FINALIZER_ORPHAN) {
        PropagationPolicy::Orphan
    } else if finalizers.iter().any(|f| f == FINALIZER_FOREGROUND) {
        PropagationPolicy::Foreground
    } else {
        PropagationPolicy::Background
    };
    Decision::Delete(policy)
}

/// What the worker does with a queue item after an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Done with it.
    Forget,
    /// Try again after a back-off.
    Requeue,
    /// Put it aside until the graph is complete.
    Hold,
}

impl Shared {
    fn mapping(&self, api_version: &str, kind: &str) -> Result<Mapping, MappingError> {
        self.mapper.read().unwrap_or_else(|p| p.into_inner()).mapping(api_version, kind)
    }

    /// One attemptToDelete step for a queue item (upstream `attemptToDeleteWorker`, A.5).
    pub async fn process_attempt_to_delete(&self, item: &WorkItem) -> Outcome {
        let node = {
            let builder = self.lock_builder();
            match builder.graph.queued_copy(item) {
                // A virtual copy whose UID has since been observed is stale (A.5 step 1).
                Some(n) if n.virtual_node && builder.graph.get(&item.identity.uid).is_some_and(Node::is_observed) => None,
                other => other,
            }
        };
        let Some(node) = node else { return Outcome::Forget };
        match self.attempt_to_delete_item(&node).await {
            Ok(()) => {
                // A virtual node stays queued until a monitor observes it (#56121).
                let still_virtual = self.lock_builder().graph.queued_copy(item).is_some_and(|n| n.virtual_node);
                if still_virtual { Outcome::Requeue } else { Outcome::Forget }
            }
            Err(AttemptError::EnqueuedVirtualDelete | AttemptError::NamespacedOwnerOfClusterScoped) => Outcome::Forget,
            Err(e @ AttemptError::GraphIncomplete(_)) => {
                tracing::debug!(item = %node.identity, error = %e, "attemptToDelete held");
                Outcome::Hold
            }
            Err(e) => {
                tracing::debug!(item = %node.identity, error = %e, "attemptToDelete failed; retrying");
                self.metrics.retries.inc();
                Outcome::Requeue
            }
        }
    }

    /// `Ok` when the graph is complete; the decision about to read dependents from it waits
    /// otherwise.
    fn require_complete_graph(&self) -> Result<(), AttemptError> {
        let missing = self.graph_incomplete();
        if missing.is_empty() { Ok(()) } else { Err(AttemptError::GraphIncomplete(missing)) }
    }

    fn enqueue_virtual_delete(&self, identity: &Identity) -> AttemptError {
        self.send_graph_event(GraphEvent::virtual_delete(identity));
        AttemptError::EnqueuedVirtualDelete
    }

    async fn get_object(&self, identity: &Identity) -> Result<(Mapping, Option<ObjectMeta>), AttemptError> {
        let mapping = self.mapping(&identity.api_version, &identity.kind)?;
        if mapping.namespaced && identity.namespace.is_empty() {
            return Err(AttemptError::NamespacedOwnerOfClusterScoped);
        }
        let object = operations::get(&self.client, &mapping, &identity.namespace, &identity.name).await?;
        Ok((mapping, object))
    }

    /// Upstream `attemptToDeleteItem` (A.5): decides and acts on one node, which need not be in
    /// the graph (its dependents are read from the graph's node with its UID).
    pub async fn attempt_to_delete_item(&self, node: &Node) -> Result<(), AttemptError> {
        if node.being_deleted && !node.deleting_dependents {
            return Ok(());
        }
        let identity = &node.identity;
        let (mapping, latest) = self.get_object(identity).await?;
        let latest = match latest {
            Some(l) if l.uid == identity.uid || self.config.mutant == Some(Mutant::OwnerByNameOnly) => l,
            _ => return Err(self.enqueue_virtual_delete(identity)),
        };
        if node.deleting_dependents {
            self.require_complete_graph()?;
            return self.process_deleting_dependents(node).await;
        }
        if latest.owners.is_empty() {
            return Ok(());
        }
        let mut classified = Vec::with_capacity(latest.owners.len());
        for r in &latest.owners {
            classified.push((r.clone(), self.classify(r, node).await?));
        }
        let has = |wanted: OwnerState| classified.iter().any(|(_, state)| *state == wanted);
        if has(OwnerState::WaitingForDependentsDeletion) && !has(OwnerState::Solid) {
            // Whether to delete in the foreground depends on the item's dependents.
            self.require_complete_graph()?;
        }
        let (has_dependents, a_dependent_deletes_dependents) = {
            let builder = self.lock_builder();
            let current = builder.graph.get(&identity.uid);
            let deps = current.map(|n| n.dependents.clone()).unwrap_or_default();
            (!deps.is_empty(), deps.iter().any(|d| builder.graph.get(d).is_some_and(|d| d.deleting_dependents)))
        };
        let decision = decide(&classified, has_dependents, a_dependent_deletes_dependents, &latest.finalizers);
        match self.mutate(decision, &classified) {
            Decision::Nothing => Ok(()),
            Decision::RemoveOwnerRefs(uids) => {
                let uids: Vec<&str> = uids.iter().map(|u| &**u).collect();
                let smp = patch::delete_owner_refs_strategic(&identity.uid, &uids);
                let merge = patch::delete_owner_refs_merge(&latest.resource_version, &latest.owners, &uids);
                self.patch_with_fallback(&mapping, identity, smp, merge).await
            }
            Decision::DeleteForeground { unblock } => {
                if unblock {
                    let smp = patch::unblock_owner_refs_strategic(&identity.uid, &node.owners);
                    let merge = patch::unblock_owner_refs_merge(&latest.resource_version, &node.owners);
                    self.patch_with_fallback(&mapping, identity, smp, merge).await?;
                }
                self.delete_object(&mapping, identity, &latest, PropagationPolicy::Foreground).await
            }
            Decision::Delete(policy) => self.delete_object(&mapping, identity, &latest, policy).await,
        }
    }

    /// A decision as the configured mutant (if any) would make it.
    fn mutate(&self, decision: Decision, owners: &[(OwnerRef, OwnerState)]) -> Decision {
        match (self.config.mutant, decision) {
            (Some(Mutant::DeleteDespiteSolidOwner), Decision::RemoveOwnerRefs(_))
                if owners.iter().any(|(_, s)| *s == OwnerState::Dangling) =>
            {
                Decision::Delete(PropagationPolicy::Background)
            }
            (Some(Mutant::NeverBreakCycles), Decision::DeleteForeground { .. }) => Decision::DeleteForeground { unblock: false },
            (Some(Mutant::KeepDanglingDependents), Decision::Delete(_)) => Decision::Nothing,
            (_, decision) => decision,
        }
    }

    /// Upstream `isDangling` plus the solid/waiting split (A.6).
    async fn classify(&self, r: &OwnerRef, item: &Node) -> Result<OwnerState, AttemptError> {
        if self.config.mutant == Some(Mutant::IgnoreCrossNamespaceRule) {
            let elsewhere =
                |o: &Node| o.is_observed() && !o.identity.namespace.is_empty() && o.identity.namespace != item.identity.namespace;
            if self.lock_builder().graph.get(&r.uid).is_some_and(elsewhere) {
                return Ok(OwnerState::Solid);
            }
        }
        let mut key = Identity::from_ref(r, &Arc::from(""));
        {
            let mut builder = self.lock_builder();
            if builder.absent_owners.has(&key) || builder.absent_owners.has(&key.in_namespace(item.identity.namespace.clone())) {
                return Ok(OwnerState::Dangling);
            }
        }
        let mapping = match self.mapping(&r.api_version, &r.kind) {
            Err(_) if self.config.mutant == Some(Mutant::CollectUnresolvableOwners) => return Ok(OwnerState::Dangling),
            mapping => mapping?,
        };
        if mapping.namespaced {
            key.namespace = item.identity.namespace.clone();
        }
        if item.identity.namespace.is_empty() && mapping.namespaced {
            return Err(AttemptError::NamespacedOwnerOfClusterScoped);
        }
        let owner = operations::get(&self.client, &mapping, &item.identity.namespace, &r.name).await?;
        match owner {
            Some(o) if o.uid == r.uid || self.config.mutant == Some(Mutant::OwnerByNameOnly) => {
                let waiting = o.being_deleted && o.finalizers.iter().any(|f| f == FINALIZER_FOREGROUND);
                Ok(if waiting { OwnerState::WaitingForDependentsDeletion } else { OwnerState::Solid })
            }
            _ => {
                self.lock_builder().absent_owners.add(key);
                Ok(OwnerState::Dangling)
            }
        }
    }

    /// A.7: a foreground owner loses its `foregroundDeletion` finalizer once no blocking
    /// dependent is left in the graph; until then its blocking dependents are queued.
    async fn process_deleting_dependents(&self, node: &Node) -> Result<(), AttemptError> {
        let mut blocking: Vec<Node> = self.lock_builder().graph.blocking_dependents(&node.identity.uid).into_iter().cloned().collect();
        if self.config.mutant == Some(Mutant::IgnoreBlockOwnerDeletion) {
            blocking.clear();
        }
        if blocking.is_empty() {
            return self.remove_finalizer(&node.identity, FINALIZER_FOREGROUND).await;
        }
        for dependent in blocking.iter().filter(|d| !d.deleting_dependents) {
            self.attempt_to_delete.add(item(dependent));
        }
        Ok(())
    }

    /// DELETE with the UID and resourceVersion preconditions; on a conflict, retry without
    /// the resourceVersion if only unrelated fields changed (PR #132632, A.9).
    async fn delete_object(
        &self,
        mapping: &Mapping,
        identity: &Identity,
        latest: &ObjectMeta,
        policy: PropagationPolicy,
    ) -> Result<(), AttemptError> {
        let rv = Some(latest.resource_version.as_str()).filter(|rv| !rv.is_empty());
        let mut result = operations::delete(&self.client, mapping, identity, rv, policy.clone()).await;
        if let Err(e) = &result
            && is_status(e, 409)
            && rv.is_some()
        {
            match operations::get(&self.client, mapping, &identity.namespace, &identity.name).await? {
                None => return Err(self.enqueue_virtual_delete(identity)),
                Some(live)
                    if live.uid == identity.uid && live.resource_version != latest.resource_version && live.owners == latest.owners =>
                {
                    result = operations::delete(&self.client, mapping, identity, None, policy).await;
                }
                Some(_) => {}
            }
        }
        match result {
            Ok(()) => {
                self.metrics.deletions.inc();
                Ok(())
            }
            Err(e) if is_status(&e, 404) => Err(self.enqueue_virtual_delete(identity)),
            Err(e) => Err(e.into()),
        }
    }

    /// Strategic merge patch, or the JSON merge patch when the server answers 415.
    async fn patch_with_fallback(
        &self,
        mapping: &Mapping,
        identity: &Identity,
        smp: serde_json::Value,
        merge: serde_json::Value,
    ) -> Result<(), AttemptError> {
        match operations::patch(&self.client, mapping, identity, smp, true).await {
            Err(e) if is_status(&e, 415) => Ok(operations::patch(&self.client, mapping, identity, merge, false).await?),
            other => Ok(other?),
        }
    }

    /// Removes `finalizer` with a resourceVersion-conditional JSON merge patch, retrying
    /// conflicts a few times (A.7). A missing object or finalizer is success.
    pub(crate) async fn remove_finalizer(&self, identity: &Identity, finalizer: &str) -> Result<(), AttemptError> {
        let mapping = self.mapping(&identity.api_version, &identity.kind)?;
        let mut delay = std::time::Duration::from_millis(10);
        for attempt in 0..5 {
            let Some(current) = operations::get(&self.client, &mapping, &identity.namespace, &identity.name).await? else { return Ok(()) };
            if current.uid != identity.uid || !current.finalizers.iter().any(|f| f == finalizer) {
                return Ok(());
            }
            let remaining: Vec<String> = current.finalizers.iter().filter(|f| *f != finalizer).cloned().collect();
            let body = patch::set_finalizers_merge(&current.resource_version, &remaining);
            match operations::patch(&self.client, &mapping, identity, body, false).await {
                Ok(()) => return Ok(()),
                Err(e) if is_status(&e, 404) => return Ok(()),
                Err(e) if is_status(&e, 409) && attempt < 4 => {
                    tokio::time::sleep(delay).await;
                    delay *= 2;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// One attemptToOrphan step (A.8): strip the owner from every dependent in the graph,
    /// then remove the `orphan` finalizer.
    pub async fn process_attempt_to_orphan(&self, item: &WorkItem) -> Outcome {
        let Some(owner) = self.lock_builder().graph.queued_copy(item) else { return Outcome::Forget };
        if let Err(e) = self.require_complete_graph() {
            tracing::debug!(owner = %owner.identity, error = %e, "attemptToOrphan held");
            return Outcome::Hold;
        }
        let dependents: Vec<Identity> = {
            let builder = self.lock_builder();
            crate::gc::graph::sorted(&owner.dependents).iter().filter_map(|d| builder.graph.get(d)).map(|d| d.identity.clone()).collect()
        };
        let dependents = if self.config.mutant == Some(Mutant::NeverOrphan) { vec![] } else { dependents };
        if let Err(e) = self.orphan_dependents(&owner.identity.uid, &dependents).await {
            tracing::debug!(owner = %owner.identity, error = %e, "orphaning dependents failed; retrying");
            self.metrics.retries.inc();
            return Outcome::Requeue;
        }
        match self.remove_finalizer(&owner.identity, FINALIZER_ORPHAN).await {
            Ok(()) => {
                self.metrics.orphanings.inc();
                Outcome::Forget
            }
            Err(e) => {
                tracing::debug!(owner = %owner.identity, error = %e, "removing the orphan finalizer failed; retrying");
                self.metrics.retries.inc();
                Outcome::Requeue
            }
        }
    }

    /// Removes the reference to `owner_uid` from each of `dependents`, all at once (upstream
    /// `orphanDependents`); a dependent that is gone is skipped, any other failure is returned.
    pub async fn orphan_dependents(&self, owner_uid: &str, dependents: &[Identity]) -> Result<(), AttemptError> {
        let results = futures::future::join_all(dependents.iter().map(|d| self.orphan_dependent(d, owner_uid))).await;
        results.into_iter().collect()
    }

    async fn orphan_dependent(&self, dependent: &Identity, owner_uid: &str) -> Result<(), AttemptError> {
        let mapping = self.mapping(&dependent.api_version, &dependent.kind)?;
        let smp = patch::delete_owner_refs_strategic(&dependent.uid, &[owner_uid]);
        match operations::patch(&self.client, &mapping, dependent, smp, true).await {
            Ok(()) => Ok(()),
            Err(e) if is_status(&e, 404) => Ok(()),
            Err(e) if is_status(&e, 415) => {
                let Some(current) = operations::get(&self.client, &mapping, &dependent.namespace, &dependent.name).await? else {
                    return Ok(());
                };
                let merge = patch::delete_owner_refs_merge(&current.resource_version, &current.owners, &[owner_uid]);
                match operations::patch(&self.client, &mapping, dependent, merge, false).await {
                    Err(e) if is_status(&e, 404) => Ok(()),
                    other => Ok(other?),
                }
            }
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(uid: &str) -> OwnerRef {
        OwnerRef {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: uid.into(),
            uid: uid.into(),
            controller: None,
            block_owner_deletion: None,
        }
    }

    #[test]
    fn a_solid_owner_keeps_the_item_and_sheds_dangling_and_waiting_refs() {
        let owners = [(r("a"), OwnerState::Solid), (r("b"), OwnerState::Dangling), (r("c"), OwnerState::WaitingForDependentsDeletion)];
        assert_eq!(decide(&owners, false, false, &[]), Decision::RemoveOwnerRefs(vec!["b".into(), "c".into()]));
        assert_eq!(decide(&owners[..1], true, true, &[]), Decision::Nothing);
    }

    #[test]
    fn waiting_owner_and_dependents_means_foreground_deletion() {
        let owners = [(r("a"), OwnerState::WaitingForDependentsDeletion), (r("b"), OwnerState::Dangling)];
        assert_eq!(decide(&owners, true, false, &[]), Decision::DeleteForeground { unblock: false });
        assert_eq!(decide(&owners, true, true, &[]), Decision::DeleteForeground { unblock: true });
        assert_eq!(decide(&owners, false, false, &[]), Decision::Delete(PropagationPolicy::Background));
    }

    #[test]
    fn all_dangling_deletes_with_the_policy_of_the_items_own_finalizers() {
        let owners = [(r("a"), OwnerState::Dangling)];
        assert_eq!(decide(&owners, false, false, &["orphan".into()]), Decision::Delete(PropagationPolicy::Orphan));
        assert_eq!(decide(&owners, false, false, &["foregroundDeletion".into()]), Decision::Delete(PropagationPolicy::Foreground));
        assert_eq!(decide(&owners, false, false, &["x/y".into()]), Decision::Delete(PropagationPolicy::Background));
    }
}
