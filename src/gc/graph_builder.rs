//! The graph builder: turns monitor events (and the collector's virtual delete events) into
//! graph changes and work for the collector, exactly as upstream `processGraphChanges` does
//! (in `graph_builder.go`). It is the only writer of the graph; it makes no API calls, and
//! returns what should happen next as [`Effect`]s.

use crate::gc::absent_cache::AbsentOwnerCache;
use crate::gc::events::{EventType, GraphEvent, ObjectMeta};
use crate::gc::graph::{Graph, Identity, Node, NodeRef, OwnerRef, Uid, WorkItem, alternate_owner_identity, sorted};
use crate::metadata::{FINALIZER_FOREGROUND, FINALIZER_ORPHAN};

/// What the graph builder asks for after an event.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Put the node on attemptToDelete.
    AttemptToDelete(WorkItem),
    /// Put the node on attemptToDelete after its rate-limit delay.
    AttemptToDeleteRateLimited(WorkItem),
    /// Put the node on attemptToOrphan.
    AttemptToOrphan(WorkItem),
    /// Record a `Warning OwnerRefInvalidNamespace` event on `dependent` for its reference `owner`.
    InvalidNamespaceOwnerRef {
        /// The dependent (the event's involvedObject).
        dependent: Identity,
        /// Its reference to an owner in another namespace or scope.
        owner: OwnerRef,
    },
}

/// The graph and the absent-owner cache, and the rules that change them.
#[derive(Debug)]
pub struct GraphBuilder {
    /// The graph.
    pub graph: Graph,
    /// Owners verified absent (shared with the collector).
    pub absent_owners: AbsentOwnerCache,
    effects: Vec<Effect>,
}

/// Upstream `referencesDiffs`: references added, removed, and changed (by UID).
fn references_diffs(old: &[OwnerRef], new: &[OwnerRef]) -> (Vec<OwnerRef>, Vec<OwnerRef>, Vec<(OwnerRef, OwnerRef)>) {
    let added = new.iter().filter(|n| !old.iter().any(|o| o.uid == n.uid)).cloned().collect();
    let removed = old.iter().filter(|o| !new.iter().any(|n| n.uid == o.uid)).cloned().collect();
    let changed = old.iter().filter_map(|o| new.iter().find(|n| n.uid == o.uid && *n != o).map(|n| (o.clone(), n.clone()))).collect();
    (added, removed, changed)
}

/// Whether the object starts being deleted with `finalizer` (upstream `deletionStartsWithFinalizer`).
fn deletion_starts_with(old: Option<&ObjectMeta>, new: &ObjectMeta, finalizer: &str) -> bool {
    if !new.being_deleted || !new.has_finalizer(finalizer) {
        return false;
    }
    old.is_none_or(|o| !o.being_deleted || !o.has_finalizer(finalizer))
}

/// Upstream `reportInvalidNamespaceOwnerRef`: an event on the dependent naming its reference to
/// `owner_uid`.
fn invalid_namespace(dependent: NodeRef<'_>, owner_uid: &Uid) -> Option<Effect> {
    let owner = dependent.owners().find(|r| r.uid == *owner_uid)?;
    Some(Effect::InvalidNamespaceOwnerRef { dependent: dependent.identity(), owner })
}

impl GraphBuilder {
    /// An empty graph with an absent-owner cache of `absent_cache_capacity` entries.
    pub fn new(absent_cache_capacity: usize) -> Self {
        Self { graph: Graph::default(), absent_owners: AbsentOwnerCache::new(absent_cache_capacity), effects: Vec::new() }
    }

    fn attempt_to_delete(&mut self, uid: &Uid) {
        if let Some(n) = self.graph.get(uid) {
            self.effects.push(Effect::AttemptToDelete(n.item()));
        }
    }

    /// Applies one event; returns the work it creates.
    pub fn process(&mut self, event: &GraphEvent) -> Vec<Effect> {
        let uid = &event.object.uid;
        // A real event for a node known so far only as virtual (the first case of upstream
        // `processGraphChanges`).
        if !event.virtual_event && self.graph.get(uid).is_some_and(|n| !n.is_observed()) {
            let observed = event.identity();
            let node = self.graph.get(uid).expect("checked").to_node();
            if observed != node.identity {
                let (_, mismatching) = self.graph.partition_dependents(&observed);
                for dep_uid in mismatching {
                    let dep = self.graph.get(&dep_uid).expect("partitioned from the graph");
                    if !observed.namespace.is_empty() && *dep.namespace() != observed.namespace {
                        self.effects.extend(invalid_namespace(dep, &observed.uid));
                    }
                    self.effects.push(Effect::AttemptToDelete(dep.item()));
                }
                // A copy with the observed coordinates replaces the virtual node; work queued for
                // the virtual copy stays about the virtual coordinates.
                self.graph.insert(Node { identity: observed, ..node });
            }
            self.graph.get_mut(uid).expect("checked").set_observed();
        }

        let found = self.graph.contains(uid);
        match event.event_type {
            EventType::Add | EventType::Update if !found => {
                let node = Node {
                    identity: event.identity(),
                    dependents: Vec::new(),
                    owners: event.object.owners.clone(),
                    being_deleted: event.object.being_deleted,
                    deleting_dependents: event.object.being_deleted && event.object.has_finalizer(FINALIZER_FOREGROUND),
                    virtual_node: false,
                    incarnation: 0,
                };
                self.graph.insert(node);
                self.add_dependent_to_owners(uid, &event.object.owners);
                self.process_transitions(event.old.as_ref(), &event.object, uid);
            }
            EventType::Add | EventType::Update => {
                let node = self.graph.get(uid).expect("found");
                if *node.api_version() != event.api_version || *node.kind() != event.kind {
                    // The same UID served under another group or version.
                    self.graph.get_mut(uid).expect("found").set_kind(&event.api_version, &event.kind);
                }
                let owners: Vec<OwnerRef> = self.graph.get(uid).expect("found").owners().collect();
                let (added, removed, changed) = references_diffs(&owners, &event.object.owners);
                if !added.is_empty() || !removed.is_empty() || !changed.is_empty() {
                    self.add_unblocked_owners_to_delete_queue(&removed, &changed);
                    self.graph.get_mut(uid).expect("found").set_owners(event.object.owners.clone());
                    self.add_dependent_to_owners(uid, &added);
                    for r in &removed {
                        if let Some(mut owner) = self.graph.get_mut(&r.uid) {
                            owner.remove_dependent(uid);
                        }
                    }
                }
                if event.object.being_deleted {
                    self.graph.get_mut(uid).expect("found").set_being_deleted();
                }
                self.process_transitions(event.old.as_ref(), &event.object, uid);
            }
            EventType::Delete if !found => {
                tracing::debug!(uid = %uid, "delete event for an item not in the graph");
            }
            EventType::Delete => self.process_delete(event),
        }
        std::mem::take(&mut self.effects)
    }

    fn process_delete(&mut self, event: &GraphEvent) {
        let uid = &event.object.uid;
        let existing = self.graph.get(uid).expect("found");
        let (existing_virtual, existing_identity) = (existing.virtual_node(), existing.identity());
        let deleted = event.identity();
        let mut remove = true;
        if event.virtual_event {
            if existing_virtual {
                let (matching, mismatching) = self.graph.partition_dependents(&deleted);
                if !mismatching.is_empty() {
                    // Some dependents disagree on the owner's coordinates: keep the node.
                    remove = false;
                    if !matching.is_empty() {
                        self.absent_owners.add(deleted.clone());
                        for d in &matching {
                            self.attempt_to_delete(d);
                        }
                    }
                    if existing_identity == deleted
                        && let Some(alternate) = self.alternate_identity(&mismatching, &deleted)
                    {
                        // A copy with another identity the dependents use replaces the node.
                        let existing = self.graph.get(uid).expect("found").to_node();
                        let w = self.graph.insert(Node { identity: alternate, ..existing }).item();
                        self.effects.push(Effect::AttemptToDeleteRateLimited(w));
                    }
                }
            } else if existing_identity != deleted {
                // An observed node disagrees with the virtual delete's coordinates: keep it, but
                // the dependents that used those coordinates have an absent owner.
                remove = false;
                let (matching, _) = self.graph.partition_dependents(&deleted);
                if !matching.is_empty() {
                    self.absent_owners.add(deleted.clone());
                    for d in &matching {
                        self.attempt_to_delete(d);
                    }
                }
            }
        }
        if !remove {
            return;
        }
        let node = self.graph.remove(uid).expect("found");
        if !node.dependents.is_empty() {
            self.absent_owners.add(deleted);
        }
        for d in sorted(&node.dependents) {
            self.attempt_to_delete(&d);
        }
        for owner in &node.owners {
            if self.graph.get(&owner.uid).is_some_and(|o| o.deleting_dependents()) {
                self.attempt_to_delete(&owner.uid);
            }
        }
    }

    /// [`alternate_owner_identity`] among the dependents `uids`.
    fn alternate_identity(&self, uids: &[Uid], absent: &Identity) -> Option<Identity> {
        let dependents: Vec<Node> = uids.iter().filter_map(|d| self.graph.get(d)).map(|d| d.to_node()).collect();
        alternate_owner_identity(&dependents, absent)
    }

    /// Owners whose blocking reference was removed or made non-blocking re-check whether their
    /// foreground deletion can finish (upstream `processGraphChanges`, on an update).
    fn add_unblocked_owners_to_delete_queue(&mut self, removed: &[OwnerRef], changed: &[(OwnerRef, OwnerRef)]) {
        for r in removed.iter().filter(|r| r.blocks()) {
            self.attempt_to_delete(&r.uid);
        }
        for (old, new) in changed {
            if old.blocks() && !new.blocks() {
                self.attempt_to_delete(&new.uid);
            }
        }
    }

    /// Upstream `addDependentToOwners`: link the dependent `uid` to each owner in `owners`,
    /// creating virtual owners, and queue the dependent for verification if a reference looks
    /// wrong.
    fn add_dependent_to_owners(&mut self, uid: &Uid, owners: &[OwnerRef]) {
        let namespace = self.graph.get(uid).expect("inserted").namespace().clone();
        let mut potentially_invalid = false;
        for owner in owners {
            match self.graph.get_mut(&owner.uid) {
                None => {
                    let virtual_owner =
                        Node { dependents: vec![uid.clone()], ..Node::virtual_owner(Identity::from_ref(owner, &namespace)) };
                    let w = self.graph.insert(virtual_owner).item();
                    self.effects.push(Effect::AttemptToDelete(w));
                }
                Some(mut owner_node) => {
                    owner_node.add_dependent(uid);
                    if potentially_invalid {
                        continue;
                    }
                    let owner_node = self.graph.get(&owner.uid).expect("found");
                    let observed = owner_node.is_observed();
                    let owner_namespaced = !owner_node.namespace().is_empty();
                    if owner_namespaced && *owner_node.namespace() != namespace {
                        if observed {
                            self.effects.extend(invalid_namespace(self.graph.get(uid).expect("inserted"), &owner.uid));
                        }
                        potentially_invalid = true;
                    } else if !owner_node.matches_ref(owner) {
                        potentially_invalid = true;
                    } else if !owner_namespaced && *owner_node.namespace() != namespace && !observed {
                        // A virtual, cluster-looking owner of a dependent in another namespace: it
                        // may be a namespaced kind referenced by a cluster-scoped child (#98040).
                        potentially_invalid = true;
                    }
                }
            }
        }
        if potentially_invalid {
            self.attempt_to_delete(uid);
        }
    }

    /// Upstream `processTransitions`: an object starting deletion with `orphan` goes to
    /// attemptToOrphan; one starting with `foregroundDeletion` is marked and queued with all its
    /// dependents.
    fn process_transitions(&mut self, old: Option<&ObjectMeta>, new: &ObjectMeta, uid: &Uid) {
        if deletion_starts_with(old, new, FINALIZER_ORPHAN) {
            let w = self.graph.get(uid).expect("in graph").item();
            self.effects.push(Effect::AttemptToOrphan(w));
            return;
        }
        if deletion_starts_with(old, new, FINALIZER_FOREGROUND) {
            self.graph.get_mut(uid).expect("in graph").set_deleting_dependents();
            let dependents = sorted(self.graph.get(uid).expect("in graph").dependents().map(|d| d.uid()));
            for d in dependents {
                self.attempt_to_delete(&d);
            }
            self.attempt_to_delete(uid);
        }
    }
}

/// Upstream `TestProcessEvent` and `BenchmarkReferencesDiffs` (kept as a check of the diff it
/// times).
#[cfg(test)]
mod tests {
    use super::*;

    /// Upstream `createEvent`: an event for an object known only by UID, referencing `owners`
    /// by UID.
    fn event(event_type: EventType, uid: &str, owners: &[&str]) -> GraphEvent {
        let owners = owners
            .iter()
            .map(|o| OwnerRef {
                api_version: "".into(),
                kind: "".into(),
                name: "".into(),
                uid: (*o).into(),
                controller: None,
                block_owner_deletion: None,
            })
            .collect();
        let object = ObjectMeta {
            uid: uid.into(),
            name: "".into(),
            namespace: "".into(),
            owners,
            being_deleted: false,
            finalizers: vec![],
            resource_version: String::new(),
        };
        GraphEvent { event_type, virtual_event: false, object, old: None, api_version: "".into(), kind: "".into() }
    }

    fn add(uid: &str, owners: &[&str]) -> GraphEvent {
        event(EventType::Add, uid, owners)
    }

    /// Applies `events` one by one, checking the graph invariants after each.
    fn check(events: &[GraphEvent]) {
        let mut builder = GraphBuilder::new(2);
        for (i, e) in events.iter().enumerate() {
            builder.process(e);
            if let Err(violation) = builder.graph.check_invariants() {
                panic!("after event {i}: {violation}");
            }
        }
    }

    #[test]
    fn test_process_event_test1() {
        check(&[add("1", &[]), add("2", &["1"]), add("3", &["1", "2"])]);
    }

    #[test]
    fn test_process_event_test2() {
        check(&[
            add("1", &[]),
            add("2", &["1"]),
            add("3", &["1", "2"]),
            add("4", &["2"]),
            event(EventType::Delete, "2", &["doesn't matter"]),
        ]);
    }

    #[test]
    fn test_process_event_test3() {
        check(&[add("1", &[]), add("2", &["1"]), add("3", &["1", "2"]), add("4", &["3"]), event(EventType::Update, "2", &["4"])]);
    }

    #[test]
    fn test_process_event_reverse_test2() {
        check(&[
            add("4", &["2"]),
            add("3", &["1", "2"]),
            add("2", &["1"]),
            add("1", &[]),
            event(EventType::Delete, "2", &["doesn't matter"]),
        ]);
    }

    #[test]
    fn references_diffs_splits_added_removed_and_changed_by_uid() {
        let refs = |uids: &[&str]| add("x", uids).object.owners;
        let (added, removed, changed) = references_diffs(&refs(&["1", "2"]), &refs(&["2", "3"]));
        assert_eq!((added, removed, changed), (refs(&["3"]), refs(&["1"]), vec![]));
    }
}
