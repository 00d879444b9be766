//! The dependency graph: one node per object UID (observed through a monitor, or *virtual*:
//! known only from someone's ownerReference), with its owners as last observed and the set of
//! its dependents. Mirrors upstream `graph.go`.
//!
//! Laid out for a million objects in about 140 bytes each: nodes are fixed-size records in a
//! slab (`slab`, `record`) found through a hash table of slot numbers; a UID in UUID form
//! takes 16 bytes ([`Uid`]); apiVersion, kind and namespace are interned (`interner`); and
//! dependents are kept in a side table only for the nodes that have any (`links`). Readers
//! get a [`NodeRef`] into the slab, writers a [`NodeMut`]; [`Node`] is the standalone copy.

mod interner;
mod links;
mod record;
mod slab;
mod view;

use std::collections::BTreeSet;
use std::fmt;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::sync::Arc;

use hashbrown::HashTable;

pub use crate::gc::uid::Uid;
use links::Links;
use record::{Record, Tables};
use slab::Slab;
pub use view::{NodeMut, NodeRef};

/// An owner reference as the graph keeps it (upstream `metav1.OwnerReference`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OwnerRef {
    /// `apiVersion`.
    pub api_version: Arc<str>,
    /// `kind`.
    pub kind: Arc<str>,
    /// `name`.
    pub name: Box<str>,
    /// `uid`.
    pub uid: Uid,
    /// `controller`.
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`.
    pub block_owner_deletion: Option<bool>,
}

impl OwnerRef {
    /// Whether this reference blocks its owner's foreground deletion.
    pub fn blocks(&self) -> bool {
        self.block_owner_deletion == Some(true)
    }
}

/// Whether `r` names exactly the coordinates `uid`, `name`, `kind` and `api_version`.
fn names(r: &OwnerRef, uid: &Uid, name: &str, kind: &str, api_version: &str) -> bool {
    r.uid == *uid && *r.name == *name && *r.kind == *kind && *r.api_version == *api_version
}

/// An object's coordinates: the ownerReference fields plus a namespace (upstream
/// `objectReference`). Two identities are equal when all five fields are.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Identity {
    /// `apiVersion`.
    pub api_version: Arc<str>,
    /// `kind`.
    pub kind: Arc<str>,
    /// Namespace, empty for cluster-scoped objects (and virtual owners of cluster-scoped dependents).
    pub namespace: Arc<str>,
    /// Name.
    pub name: Box<str>,
    /// UID.
    pub uid: Uid,
}

impl Identity {
    /// The identity a reference implies for an owner in `namespace`.
    pub fn from_ref(r: &OwnerRef, namespace: &Arc<str>) -> Self {
        Self {
            api_version: r.api_version.clone(),
            kind: r.kind.clone(),
            namespace: namespace.clone(),
            name: r.name.clone(),
            uid: r.uid.clone(),
        }
    }

    /// Whether `r` names exactly these coordinates (uid, name, kind, apiVersion; upstream
    /// `ownerReferenceMatchesCoordinates`).
    pub fn matches_ref(&self, r: &OwnerRef) -> bool {
        names(r, &self.uid, &self.name, &self.kind, &self.api_version)
    }

    /// The same coordinates in another namespace.
    pub fn in_namespace(&self, namespace: Arc<str>) -> Self {
        Self { namespace, ..self.clone() }
    }
}

impl fmt::Display for Identity {
    /// Upstream's `objectReference.String()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}/{}, namespace: {}, name: {}, uid: {}]", self.api_version, self.kind, self.namespace, self.name, self.uid)
    }
}

/// One object in the graph, as a value of its own (see [`NodeRef`] for a node read in place).
#[derive(Clone, Debug)]
pub struct Node {
    /// Coordinates (for virtual nodes, as some dependent referenced them).
    pub identity: Identity,
    /// UIDs of the objects that reference this one, in no particular order.
    pub dependents: Vec<Uid>,
    /// The ownerReferences last observed on the object.
    pub owners: Vec<OwnerRef>,
    /// The object has a deletionTimestamp (a one-way trip).
    pub being_deleted: bool,
    /// Being deleted with the `foregroundDeletion` finalizer (a one-way trip).
    pub deleting_dependents: bool,
    /// Known only from references, not (yet) observed through a monitor.
    pub virtual_node: bool,
    /// Which copy of the node this is, assigned by [`Graph::insert`]. Upstream queues node
    /// pointers and, when a virtual node turns out to have other coordinates, replaces it with a
    /// modified copy: work queued for the old copy then refers to the old coordinates. The
    /// incarnation is that pointer identity: in-place changes (observation, deletion flags,
    /// owners) keep it, a replacement gets a new one.
    pub incarnation: u64,
}

impl Node {
    /// A virtual node for an owner known from a reference.
    pub fn virtual_owner(identity: Identity) -> Self {
        Self {
            identity,
            dependents: Vec::new(),
            owners: Vec::new(),
            being_deleted: false,
            deleting_dependents: false,
            virtual_node: true,
            incarnation: 0,
        }
    }

    /// Whether the node was observed through a monitor.
    pub fn is_observed(&self) -> bool {
        !self.virtual_node
    }
}

/// A queue item for the collector: one incarnation of a graph node, as upstream queues node
/// pointers (see [`Node::incarnation`]). Two items are the same work when they name the same
/// incarnation. The coordinates and virtual flag are the node's when it was queued: once the graph
/// has replaced that incarnation they still say what the stale copy was.
#[derive(Clone, Debug)]
pub struct WorkItem {
    /// The node's coordinates when queued.
    pub identity: Identity,
    /// Whether the node was virtual when queued.
    pub virtual_node: bool,
    /// The incarnation queued.
    pub incarnation: u64,
}

impl PartialEq for WorkItem {
    fn eq(&self, other: &Self) -> bool {
        self.incarnation == other.incarnation && self.identity.uid == other.identity.uid
    }
}

impl Eq for WorkItem {}

impl std::hash::Hash for WorkItem {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.identity.uid.hash(state);
        self.incarnation.hash(state);
    }
}

/// Hashing with fixed keys: a map's order of iteration then depends only on what was put in it,
/// so the same uids give the same order of work every time (a seeded chaos run replays exactly).
pub type FixedState = BuildHasherDefault<DefaultHasher>;

/// All nodes, keyed by UID only (upstream `uidToNode`). Nodes are stored compactly (module
/// `record`) in a slab, found through a table of their slots by UID, and dependents are kept by
/// slot (module `links`); the `memory` section of the `gc` bench measures the bytes a node takes.
/// Read a node in place through [`NodeRef`], change it through [`NodeMut`].
#[derive(Debug, Default)]
pub struct Graph {
    records: Slab<Record>,
    /// Slots by the hash of their UID.
    slots: HashTable<u32>,
    tables: Tables,
    dependents: Links,
    /// The last incarnation handed out.
    incarnations: u64,
}

fn hash(uid: &Uid) -> u64 {
    FixedState::default().hash_one(uid)
}

impl Graph {
    fn slot(&self, uid: &Uid) -> Option<u32> {
        self.slots.find(hash(uid), |&s| self.record(s).uid == *uid).copied()
    }

    fn record(&self, slot: u32) -> &Record {
        self.records.get(slot).expect("a node's slot is occupied")
    }

    fn view(&self, slot: u32) -> NodeRef<'_> {
        NodeRef { graph: self, slot, record: self.record(slot) }
    }

    /// The node for `uid`.
    pub fn get(&self, uid: &Uid) -> Option<NodeRef<'_>> {
        self.slot(uid).map(|slot| self.view(slot))
    }

    /// The node for `uid`, to change.
    pub fn get_mut(&mut self, uid: &Uid) -> Option<NodeMut<'_>> {
        let slot = self.slot(uid)?;
        Some(NodeMut { graph: self, slot })
    }

    /// Inserts a node, or replaces the node with its UID, as a new incarnation; returns it.
    /// Its dependents must be nodes of the graph.
    pub fn insert(&mut self, mut node: Node) -> NodeRef<'_> {
        self.incarnations += 1;
        node.incarnation = self.incarnations;
        let dependents = std::mem::take(&mut node.dependents);
        let record = self.tables.record(node);
        let slot = match self.slot(&record.uid) {
            Some(slot) => {
                let replaced = std::mem::replace(self.records.get_mut(slot).expect("found"), record);
                self.tables.release(&replaced);
                self.dependents.clear(slot);
                slot
            }
            None => {
                let h = hash(&record.uid);
                let slot = self.records.insert(record);
                let records = &self.records;
                self.slots.insert_unique(h, slot, |&s| hash(&records.get(s).expect("stored").uid));
                slot
            }
        };
        for d in &dependents {
            let d = self.slot(d).expect("a dependent is a node of the graph");
            self.dependents.insert(slot, d);
        }
        self.view(slot)
    }

    /// Removes a node, and it from its owners' dependents (upstream `removeNode`).
    pub fn remove(&mut self, uid: &Uid) -> Option<Node> {
        let slot = self.slot(uid)?;
        let node = self.view(slot).to_node();
        self.dependents.clear(slot);
        self.slots.find_entry(hash(uid), |&s| s == slot).expect("indexed").remove();
        let record = self.records.remove(slot);
        self.tables.release(&record);
        for owner in &record.owners {
            if let Some(o) = self.slot(&owner.uid) {
                self.dependents.remove(o, slot);
            }
        }
        Some(node)
    }

    /// The node as a queued copy of it now is (upstream dereferences the queued node pointer):
    /// the graph's node when `item` names its current incarnation; for a replaced copy, the
    /// graph's node under the coordinates and virtual flag the copy was queued with. `None` when
    /// the UID has left the graph.
    pub fn queued_copy(&self, item: &WorkItem) -> Option<Node> {
        let n = self.get(&item.identity.uid)?;
        let node = n.to_node();
        if n.incarnation() == item.incarnation {
            return Some(node);
        }
        Some(Node { identity: item.identity.clone(), virtual_node: item.virtual_node, ..node })
    }

    /// Checks that owners and dependents agree (upstream's test helper
    /// `verifyGraphInvariants`): every dependent of a node references it, and every node that
    /// a node references, if in the graph, lists it as a dependent. Returns the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        for n in self.nodes() {
            for d in self.dependents.of(n.slot) {
                let dep = self.records.get(d);
                if !dep.is_some_and(|dep| dep.owners.iter().any(|r| r.uid == *n.uid())) {
                    let named = dep.map_or_else(|| format!("in vacant slot {d}"), |dep| dep.uid.to_string());
                    return Err(format!("{} has dependent {named}, which does not reference it", n.identity()));
                }
            }
            for owner in n.record.owners.iter().filter_map(|r| self.get(&r.uid)) {
                if !self.dependents.contains(owner.slot, n.slot) {
                    return Err(format!("{} references {}, which does not list it as a dependent", n.identity(), owner.identity()));
                }
            }
        }
        Ok(())
    }

    /// Whether `uid` is in the graph (upstream `GraphHasUID`).
    pub fn contains(&self, uid: &Uid) -> bool {
        self.slot(uid).is_some()
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the graph is empty.
    pub fn is_empty(&self) -> bool {
        self.records.len() == 0
    }

    /// Every node, in no particular order.
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_>> {
        self.records.iter().map(|(slot, record)| NodeRef { graph: self, slot, record })
    }

    /// The dependents of `uid` whose reference to it has `blockOwnerDeletion: true`, in UID
    /// order.
    pub fn blocking_dependents(&self, uid: &Uid) -> Vec<NodeRef<'_>> {
        let Some(node) = self.get(uid) else { return vec![] };
        let mut blocking: Vec<NodeRef<'_>> =
            node.dependents().filter(|d| d.record.owners.iter().any(|r| r.uid == *uid && r.blocks())).collect();
        blocking.sort_by(|a, b| a.uid().cmp(b.uid()));
        blocking
    }

    /// Splits the dependents of `owner`'s UID into those whose reference matches `owner` and
    /// those whose does not (upstream `partitionDependents`), each in UID order. A dependent
    /// outside a namespaced owner's namespace never matches.
    pub fn partition_dependents(&self, owner: &Identity) -> (Vec<Uid>, Vec<Uid>) {
        let (mut matching, mut mismatching) = (Vec::new(), Vec::new());
        let Some(node) = self.get(&owner.uid) else { return (matching, mismatching) };
        let owner_namespaced = !owner.namespace.is_empty();
        let mut dependents: Vec<NodeRef<'_>> = node.dependents().collect();
        dependents.sort_by(|a, b| a.uid().cmp(b.uid()));
        for dep in dependents {
            let (mut found_match, mut found_mismatch) = (false, false);
            if owner_namespaced && owner.namespace != *dep.namespace() {
                found_mismatch = true;
            } else {
                for r in dep.record.owners.iter().filter(|r| r.uid == owner.uid) {
                    if owner.matches_ref(&self.tables.owner_ref(r)) {
                        found_match = true;
                    } else {
                        found_mismatch = true;
                    }
                }
            }
            if found_match {
                matching.push(dep.uid().clone());
            }
            if found_mismatch {
                mismatching.push(dep.uid().clone());
            }
        }
        (matching, mismatching)
    }
}

/// Another identity the `dependents` refer to the absent owner by (upstream
/// `getAlternateOwnerIdentity`): the first candidate sorting after `absent`, else
/// the first; `None` without candidates. A candidate takes its dependent's namespace unless it has
/// the apiVersion and kind of a cluster-scoped `absent`, whose scope is then known.
pub fn alternate_owner_identity(dependents: &[Node], absent: &Identity) -> Option<Identity> {
    let absent_namespaced = !absent.namespace.is_empty();
    let mut candidates = BTreeSet::new();
    for dep in dependents {
        for r in dep.owners.iter().filter(|r| r.uid == absent.uid) {
            let mut candidate = Identity::from_ref(r, &dep.identity.namespace);
            if !absent_namespaced && candidate.api_version == absent.api_version && candidate.kind == absent.kind {
                candidate.namespace = absent.namespace.clone();
            }
            if candidate != *absent {
                candidates.insert(SortKey(candidate));
            }
        }
    }
    let absent_key = SortKey(absent.clone());
    candidates.iter().find(|c| **c > absent_key).or_else(|| candidates.iter().next()).map(|c| c.0.clone())
}

/// Orders identities by kind, apiVersion, namespace, name, uid, as upstream sorts candidates.
#[derive(PartialEq, Eq)]
struct SortKey(Identity);

impl PartialOrd for SortKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SortKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let key = |i: &Identity| (i.kind.clone(), i.api_version.clone(), i.namespace.clone(), i.name.clone(), i.uid.clone());
        key(&self.0).cmp(&key(&other.0))
    }
}

/// UIDs in a stable order (so that work is enqueued deterministically).
pub fn sorted<'a>(uids: impl IntoIterator<Item = &'a Uid>) -> Vec<Uid> {
    let mut v: Vec<Uid> = uids.into_iter().cloned().collect();
    v.sort();
    v
}

/// Upstream `TestGetAlternateOwnerIdentity`, one test per sub-case.
#[cfg(test)]
mod tests {
    use super::*;

    fn id(api_version: &str, kind: &str, namespace: &str, name: &str, uid: &str) -> Identity {
        Identity { api_version: api_version.into(), kind: kind.into(), namespace: namespace.into(), name: name.into(), uid: uid.into() }
    }

    /// A dependent `child` with references to `owners` (their coordinates; namespaces ignored).
    fn node(child: &Identity, owners: &[&Identity]) -> Node {
        let refs = owners
            .iter()
            .map(|o| OwnerRef {
                api_version: o.api_version.clone(),
                kind: o.kind.clone(),
                name: o.name.clone(),
                uid: o.uid.clone(),
                controller: None,
                block_owner_deletion: None,
            })
            .collect();
        Node { owners: refs, virtual_node: false, ..Node::virtual_owner(child.clone()) }
    }

    fn ns1_child1() -> Identity {
        id("v1", "Child", "ns1", "child1", "childuid11")
    }

    fn ns1_child2() -> Identity {
        id("v1", "Child", "ns1", "child2", "childuid12")
    }

    fn ns_parent(namespace: &str) -> Identity {
        id("v1", "NSParent", namespace, "parentname", "parentuid")
    }

    fn cluster_parent() -> Identity {
        id("v1", "ClusterParent", "", "parentname", "parentuid")
    }

    /// `v1`..`v5` references to one kind/name/uid, in `namespace`.
    fn ordered(namespace: &str) -> Vec<Identity> {
        (1..=5).map(|v| id(&format!("v{v}"), "kind", namespace, "name", "uid")).collect()
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_alternate_version() {
        let version = id("xx", "NSParent", "ns1", "parentname", "parentuid");
        let deps = [node(&ns1_child1(), &[&ns_parent("ns1")]), node(&ns1_child2(), &[&version])];
        assert_eq!(alternate_owner_identity(&deps, &ns_parent("ns1")), Some(version));
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_alternate_kind() {
        let kind = id("v1", "xxxxxxxx", "ns1", "parentname", "parentuid");
        let deps = [node(&ns1_child1(), &[&ns_parent("ns1")]), node(&ns1_child2(), &[&kind])];
        assert_eq!(alternate_owner_identity(&deps, &ns_parent("ns1")), Some(kind));
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_alternate_namespace() {
        let ns2_child1 = id("v1", "Child", "ns2", "child1", "childuid21");
        let deps = [node(&ns1_child1(), &[&ns_parent("ns1")]), node(&ns2_child1, &[&ns_parent("ns2")])];
        assert_eq!(alternate_owner_identity(&deps, &ns_parent("ns1")), Some(ns_parent("ns2")));
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_alternate_name() {
        let name = id("v1", "NSParent", "ns1", "xxxxxxxxxx", "parentuid");
        let deps = [node(&ns1_child1(), &[&ns_parent("ns1")]), node(&ns1_child1(), &[&name])];
        assert_eq!(alternate_owner_identity(&deps, &ns_parent("ns1")), Some(name));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_alternate_version() {
        let version = id("xx", "ClusterParent", "", "parentname", "parentuid");
        let deps = [node(&ns1_child1(), &[&cluster_parent()]), node(&ns1_child2(), &[&version])];
        // The scope of another version is unknown: the candidate keeps its dependent's namespace.
        assert_eq!(alternate_owner_identity(&deps, &cluster_parent()), Some(version.in_namespace("ns1".into())));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_alternate_kind() {
        let kind = id("v1", "xxxxxxxxxxxxx", "", "parentname", "parentuid");
        let deps = [node(&ns1_child1(), &[&cluster_parent()]), node(&ns1_child2(), &[&kind])];
        assert_eq!(alternate_owner_identity(&deps, &cluster_parent()), Some(kind.in_namespace("ns1".into())));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_alternate_namespace() {
        let ns2_child1 = id("v1", "Child", "ns2", "child1", "childuid21");
        let deps = [node(&ns1_child1(), &[&cluster_parent()]), node(&ns2_child1, &[&cluster_parent()])];
        assert_eq!(alternate_owner_identity(&deps, &cluster_parent()), None, "a known cluster-scoped kind ignores dependents' namespaces");
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_alternate_name() {
        let name = id("v1", "ClusterParent", "", "xxxxxxxxxx", "parentuid");
        let deps = [node(&ns1_child1(), &[&cluster_parent()]), node(&ns1_child1(), &[&name])];
        assert_eq!(alternate_owner_identity(&deps, &cluster_parent()), Some(name), "the namespace is dropped");
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_ref_from_namespaced_child_returns_first_if_absent_is_sorted_last() {
        let refs = ordered("ns1");
        let deps = [node(&ns1_child1(), &refs.iter().collect::<Vec<_>>())];
        assert_eq!(alternate_owner_identity(&deps, &refs[4]), Some(refs[0].clone()));
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_ref_from_namespaced_child_returns_next_after_absent() {
        let refs = ordered("ns1");
        let deps = [node(&ns1_child1(), &refs.iter().collect::<Vec<_>>())];
        assert_eq!(alternate_owner_identity(&deps, &refs[3]), Some(refs[4].clone()));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_ref_from_cluster_child_returns_first_if_absent_is_sorted_last() {
        let refs = ordered("");
        let deps = [node(&id("v1", "Child", "", "child1", "childuidc1"), &refs.iter().collect::<Vec<_>>())];
        assert_eq!(alternate_owner_identity(&deps, &refs[4]), Some(refs[0].clone()));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_ref_from_cluster_child_returns_next_after_absent() {
        let refs = ordered("");
        let deps = [node(&id("v1", "Child", "", "child1", "childuidc1"), &refs.iter().collect::<Vec<_>>())];
        assert_eq!(alternate_owner_identity(&deps, &refs[3]), Some(refs[4].clone()));
    }

    #[test]
    fn test_get_alternate_owner_identity_ignore_unrelated() {
        let unrelated = id("v1", "Parent", "ns1", "name", "anotheruid");
        let deps = [node(&ns1_child1(), &[&cluster_parent(), &unrelated])];
        assert_eq!(alternate_owner_identity(&deps, &cluster_parent()), None);
    }

    #[test]
    fn test_get_alternate_owner_identity_ignore_matches() {
        let deps = [node(&ns1_child1(), &[&cluster_parent(), &cluster_parent()])];
        assert_eq!(alternate_owner_identity(&deps, &cluster_parent()), None);
    }

    #[test]
    fn test_get_alternate_owner_identity_collapse_duplicates() {
        let kind = id("v1", "xxxxxxxxxxxxx", "", "parentname", "parentuid");
        let deps = [node(&id("v1", "Child", "", "child1", "childuidc1"), &[&cluster_parent(), &kind, &kind])];
        assert_eq!(alternate_owner_identity(&deps, &cluster_parent()), Some(kind));
    }
}
