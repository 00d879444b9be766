//! A node read in place ([`NodeRef`]) and a node changed in place ([`NodeMut`]).

use std::sync::Arc;

use super::record::{Record, Stamp};
use super::{Graph, Identity, Node, OwnerRef, Uid, WorkItem};

/// A node of the graph, read where it is stored.
#[derive(Clone, Copy)]
pub struct NodeRef<'a> {
    pub(super) graph: &'a Graph,
    pub(super) slot: u32,
    pub(super) record: &'a Record,
}

impl<'a> NodeRef<'a> {
    /// UID.
    pub fn uid(&self) -> &'a Uid {
        &self.record.uid
    }

    /// `apiVersion`.
    pub fn api_version(&self) -> &'a Arc<str> {
        &self.graph.tables.kind_of(self.record.kind).0
    }

    /// `kind`.
    pub fn kind(&self) -> &'a Arc<str> {
        &self.graph.tables.kind_of(self.record.kind).1
    }

    /// Namespace (see [`Identity::namespace`]).
    pub fn namespace(&self) -> &'a Arc<str> {
        self.graph.tables.namespace_of(self.record.namespace)
    }

    /// Coordinates (see [`Node::identity`]).
    pub fn identity(&self) -> Identity {
        self.graph.tables.identity(self.record)
    }

    /// The ownerReferences last observed on the object.
    pub fn owners(&self) -> impl Iterator<Item = OwnerRef> + 'a {
        let tables = &self.graph.tables;
        self.record.owners.iter().map(|r| tables.owner_ref(r))
    }

    /// Whether `r` names exactly this node's coordinates (see [`Identity::matches_ref`]).
    pub fn matches_ref(&self, r: &OwnerRef) -> bool {
        self.graph.tables.matches(self.record, r)
    }

    /// The nodes that reference this one, in no particular order.
    pub fn dependents(&self) -> impl Iterator<Item = NodeRef<'a>> + 'a {
        let graph = self.graph;
        graph.dependents.of(self.slot).map(|slot| graph.view(slot))
    }

    /// Whether any node references this one.
    pub fn has_dependents(&self) -> bool {
        self.dependents().next().is_some()
    }

    /// See [`Node::being_deleted`].
    pub fn being_deleted(&self) -> bool {
        self.record.stamp.has(Stamp::BEING_DELETED)
    }

    /// See [`Node::deleting_dependents`].
    pub fn deleting_dependents(&self) -> bool {
        self.record.stamp.has(Stamp::DELETING_DEPENDENTS)
    }

    /// See [`Node::virtual_node`].
    pub fn virtual_node(&self) -> bool {
        self.record.stamp.has(Stamp::VIRTUAL)
    }

    /// Whether the node was observed through a monitor.
    pub fn is_observed(&self) -> bool {
        !self.virtual_node()
    }

    /// See [`Node::incarnation`].
    pub fn incarnation(&self) -> u64 {
        self.record.stamp.incarnation()
    }

    /// The work item for the node's current incarnation.
    pub fn item(&self) -> WorkItem {
        WorkItem { identity: self.identity(), virtual_node: self.virtual_node(), incarnation: self.incarnation() }
    }

    /// The node as a value of its own.
    pub fn to_node(&self) -> Node {
        Node {
            identity: self.identity(),
            dependents: self.dependents().map(|d| d.uid().clone()).collect(),
            owners: self.owners().collect(),
            being_deleted: self.being_deleted(),
            deleting_dependents: self.deleting_dependents(),
            virtual_node: self.virtual_node(),
            incarnation: self.incarnation(),
        }
    }
}

/// A node of the graph, to change where it is stored. Changes keep its incarnation.
pub struct NodeMut<'a> {
    pub(super) graph: &'a mut Graph,
    pub(super) slot: u32,
}

impl NodeMut<'_> {
    fn record(&mut self) -> &mut Record {
        self.graph.records.get_mut(self.slot).expect("a node's slot is occupied")
    }

    fn set(&mut self, flag: u64) {
        self.record().stamp.set(flag, true);
    }

    /// The node has been observed through a monitor.
    pub fn set_observed(&mut self) {
        self.record().stamp.set(Stamp::VIRTUAL, false);
    }

    /// The object has a deletionTimestamp.
    pub fn set_being_deleted(&mut self) {
        self.set(Stamp::BEING_DELETED);
    }

    /// The object is being deleted with the `foregroundDeletion` finalizer.
    pub fn set_deleting_dependents(&mut self) {
        self.set(Stamp::DELETING_DEPENDENTS);
    }

    /// The object is served under another apiVersion or kind.
    pub fn set_kind(&mut self, api_version: &Arc<str>, kind: &Arc<str>) {
        let id = self.graph.tables.kind(api_version, kind);
        let replaced = std::mem::replace(&mut self.record().kind, id);
        self.graph.tables.release_kind(replaced);
    }

    /// The object's ownerReferences are now `owners` (its owners' dependents are the caller's
    /// to change).
    pub fn set_owners(&mut self, owners: Vec<OwnerRef>) {
        let references = self.graph.tables.references(owners);
        let replaced = std::mem::replace(&mut self.record().owners, references);
        self.graph.tables.release_references(&replaced);
    }

    /// Adds `dependent`, a node of the graph, to the node's dependents.
    pub fn add_dependent(&mut self, dependent: &Uid) {
        let dependent = self.graph.slot(dependent).expect("a dependent is a node of the graph");
        self.graph.dependents.insert(self.slot, dependent);
    }

    /// Removes `dependent` from the node's dependents.
    pub fn remove_dependent(&mut self, dependent: &Uid) {
        if let Some(dependent) = self.graph.slot(dependent) {
            self.graph.dependents.remove(self.slot, dependent);
        }
    }
}
