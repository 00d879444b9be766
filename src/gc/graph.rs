//! The dependency graph: one node per object UID (observed through a monitor, or *virtual*:
//! known only from someone's ownerReference), with its owners as last observed and the set of
//! its dependents. Mirrors upstream `graph.go`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, DefaultHasher};
use std::sync::Arc;

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

/// An object UID.
pub type Uid = Arc<str>;

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
        self.uid == r.uid && *self.name == *r.name && self.kind == r.kind && self.api_version == r.api_version
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

/// One object in the graph.
#[derive(Clone, Debug)]
pub struct Node {
    /// Coordinates (for virtual nodes, as some dependent referenced them).
    pub identity: Identity,
    /// UIDs of the objects that reference this one.
    pub dependents: Dependents,
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
            dependents: Dependents::default(),
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

/// The work item for a node's current incarnation.
pub fn item(node: &Node) -> WorkItem {
    WorkItem { identity: node.identity.clone(), virtual_node: node.virtual_node, incarnation: node.incarnation }
}

/// Hashing with fixed keys: a map's order of iteration then depends only on what was put in it,
/// so the same uids give the same order of work every time (a seeded chaos run replays exactly).
pub type FixedState = BuildHasherDefault<DefaultHasher>;

/// All nodes, keyed by UID only (upstream `uidToNode`).
#[derive(Debug, Default)]
pub struct Graph {
    /// Boxed, so that the map's spare capacity costs a pointer per slot, not a node.
    nodes: HashMap<Uid, Box<Node>, FixedState>,
    /// The last incarnation handed out.
    incarnations: u64,
}

impl Graph {
    /// The node for `uid`.
    pub fn get(&self, uid: &str) -> Option<&Node> {
        self.nodes.get(uid).map(|n| &**n)
    }

    /// The node for `uid`, mutably.
    pub fn get_mut(&mut self, uid: &str) -> Option<&mut Node> {
        self.nodes.get_mut(uid).map(|n| &mut **n)
    }

    /// Inserts a node, or replaces the node with its UID, as a new incarnation; returns it.
    pub fn insert(&mut self, mut node: Node) -> &Node {
        self.incarnations += 1;
        node.incarnation = self.incarnations;
        let uid = node.identity.uid.clone();
        self.nodes.insert(uid.clone(), Box::new(node));
        &self.nodes[&uid]
    }

    /// Removes a node, and it from its owners' dependents (upstream `removeNode`).
    pub fn remove(&mut self, uid: &str) -> Option<Node> {
        let node = *self.nodes.remove(uid)?;
        for owner in &node.owners {
            if let Some(o) = self.nodes.get_mut(&*owner.uid) {
                o.dependents.remove(uid);
            }
        }
        Some(node)
    }

    /// The node as a queued copy of it now is (upstream dereferences the queued node pointer):
    /// the graph's node when `item` names its current incarnation; for a replaced copy, the
    /// graph's node under the coordinates and virtual flag the copy was queued with. `None` when
    /// the UID has left the graph.
    pub fn queued_copy(&self, item: &WorkItem) -> Option<Node> {
        let n = self.nodes.get(&item.identity.uid)?;
        if n.incarnation == item.incarnation {
            return Some((**n).clone());
        }
        Some(Node { identity: item.identity.clone(), virtual_node: item.virtual_node, ..(**n).clone() })
    }

    /// Checks that owners and dependents agree (upstream's test helper
    /// `verifyGraphInvariants`): every dependent of a node references it, and every node that
    /// a node references, if in the graph, lists it as a dependent. Returns the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        for n in self.nodes.values() {
            for d in &n.dependents {
                match self.nodes.get(d) {
                    Some(dep) if dep.owners.iter().any(|r| r.uid == n.identity.uid) => {}
                    _ => return Err(format!("{} has dependent {d}, which does not reference it", n.identity)),
                }
            }
            for owner in n.owners.iter().filter_map(|r| self.nodes.get(&r.uid)) {
                if !owner.dependents.contains(&n.identity.uid) {
                    return Err(format!("{} references {}, which does not list it as a dependent", n.identity, owner.identity));
                }
            }
        }
        Ok(())
    }

    /// Whether `uid` is in the graph (upstream `GraphHasUID`).
    pub fn contains(&self, uid: &str) -> bool {
        self.nodes.contains_key(uid)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the graph is empty.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node.
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.values().map(|n| &**n)
    }

    /// The dependents of `uid` whose reference to it has `blockOwnerDeletion: true`.
    pub fn blocking_dependents(&self, uid: &str) -> Vec<&Node> {
        let Some(node) = self.nodes.get(uid) else { return vec![] };
        node.dependents.iter().filter_map(|d| self.get(d)).filter(|d| d.owners.iter().any(|r| &*r.uid == uid && r.blocks())).collect()
    }

    /// Splits `dependents` into those whose reference matches `owner` and those whose does
    /// not (upstream `partitionDependents`). A dependent outside a namespaced owner's
    /// namespace never matches.
    pub fn partition_dependents(&self, dependents: &Dependents, owner: &Identity) -> (Vec<Uid>, Vec<Uid>) {
        let (mut matching, mut mismatching) = (Vec::new(), Vec::new());
        let owner_namespaced = !owner.namespace.is_empty();
        for uid in sorted(dependents) {
            let Some(dep) = self.nodes.get(&uid) else { continue };
            let (mut found_match, mut found_mismatch) = (false, false);
            if owner_namespaced && owner.namespace != dep.identity.namespace {
                found_mismatch = true;
            } else {
                for r in dep.owners.iter().filter(|r| r.uid == owner.uid) {
                    if owner.matches_ref(r) {
                        found_match = true;
                    } else {
                        found_mismatch = true;
                    }
                }
            }
            if found_match {
                matching.push(uid.clone());
            }
            if found_mismatch {
                mismatching.push(uid);
            }
        }
        (matching, mismatching)
    }
}

/// Another identity the `dependents` refer to the absent owner by (upstream
/// `getAlternateOwnerIdentity`, catalogue A.3): the first candidate sorting after `absent`, else
/// the first; `None` without candidates. A candidate takes its dependent's namespace unless it has
/// the apiVersion and kind of a cluster-scoped `absent`, whose scope is then known.
pub fn alternate_owner_identity(dependents: &[&Node], absent: &Identity) -> Option<Identity> {
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

/// A node's dependents: most nodes have none, so the set is only allocated for owners.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
// The box is the point: one pointer in every node instead of an empty set's 48 bytes.
#[allow(clippy::box_collection)]
pub struct Dependents(Option<Box<HashSet<Uid, FixedState>>>);

impl Dependents {
    /// Adds a dependent.
    pub fn insert(&mut self, uid: Uid) -> bool {
        self.0.get_or_insert_with(Default::default).insert(uid)
    }

    /// Removes a dependent (and the set, when it empties).
    pub fn remove(&mut self, uid: &str) -> bool {
        let Some(set) = &mut self.0 else { return false };
        let removed = set.remove(uid);
        if set.is_empty() {
            self.0 = None;
        }
        removed
    }

    /// Whether `uid` is a dependent.
    pub fn contains(&self, uid: &str) -> bool {
        self.0.as_ref().is_some_and(|s| s.contains(uid))
    }

    /// Every dependent, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Uid> {
        self.0.iter().flat_map(|s| s.iter())
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |s| s.len())
    }
}

impl<'a> IntoIterator for &'a Dependents {
    type Item = &'a Uid;
    type IntoIter = Box<dyn Iterator<Item = &'a Uid> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// Dependents in a stable order (so work is enqueued deterministically).
pub fn sorted(set: &Dependents) -> Vec<Uid> {
    let mut v: Vec<Uid> = set.iter().cloned().collect();
    v.sort();
    v
}

/// Catalogue C.3 rows 34-48: upstream `TestGetAlternateOwnerIdentity`, one test per sub-case.
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

    fn alternate(deps: &[Node], absent: &Identity) -> Option<Identity> {
        alternate_owner_identity(&deps.iter().collect::<Vec<_>>(), absent)
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
        assert_eq!(alternate(&deps, &ns_parent("ns1")), Some(version));
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_alternate_kind() {
        let kind = id("v1", "xxxxxxxx", "ns1", "parentname", "parentuid");
        let deps = [node(&ns1_child1(), &[&ns_parent("ns1")]), node(&ns1_child2(), &[&kind])];
        assert_eq!(alternate(&deps, &ns_parent("ns1")), Some(kind));
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_alternate_namespace() {
        let ns2_child1 = id("v1", "Child", "ns2", "child1", "childuid21");
        let deps = [node(&ns1_child1(), &[&ns_parent("ns1")]), node(&ns2_child1, &[&ns_parent("ns2")])];
        assert_eq!(alternate(&deps, &ns_parent("ns1")), Some(ns_parent("ns2")));
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_alternate_name() {
        let name = id("v1", "NSParent", "ns1", "xxxxxxxxxx", "parentuid");
        let deps = [node(&ns1_child1(), &[&ns_parent("ns1")]), node(&ns1_child1(), &[&name])];
        assert_eq!(alternate(&deps, &ns_parent("ns1")), Some(name));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_alternate_version() {
        let version = id("xx", "ClusterParent", "", "parentname", "parentuid");
        let deps = [node(&ns1_child1(), &[&cluster_parent()]), node(&ns1_child2(), &[&version])];
        // The scope of another version is unknown: the candidate keeps its dependent's namespace.
        assert_eq!(alternate(&deps, &cluster_parent()), Some(version.in_namespace("ns1".into())));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_alternate_kind() {
        let kind = id("v1", "xxxxxxxxxxxxx", "", "parentname", "parentuid");
        let deps = [node(&ns1_child1(), &[&cluster_parent()]), node(&ns1_child2(), &[&kind])];
        assert_eq!(alternate(&deps, &cluster_parent()), Some(kind.in_namespace("ns1".into())));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_alternate_namespace() {
        let ns2_child1 = id("v1", "Child", "ns2", "child1", "childuid21");
        let deps = [node(&ns1_child1(), &[&cluster_parent()]), node(&ns2_child1, &[&cluster_parent()])];
        assert_eq!(alternate(&deps, &cluster_parent()), None, "a known cluster-scoped kind ignores dependents' namespaces");
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_alternate_name() {
        let name = id("v1", "ClusterParent", "", "xxxxxxxxxx", "parentuid");
        let deps = [node(&ns1_child1(), &[&cluster_parent()]), node(&ns1_child1(), &[&name])];
        assert_eq!(alternate(&deps, &cluster_parent()), Some(name), "the namespace is dropped");
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_ref_from_namespaced_child_returns_first_if_absent_is_sorted_last() {
        let refs = ordered("ns1");
        let deps = [node(&ns1_child1(), &refs.iter().collect::<Vec<_>>())];
        assert_eq!(alternate(&deps, &refs[4]), Some(refs[0].clone()));
    }

    #[test]
    fn test_get_alternate_owner_identity_namespaced_ref_from_namespaced_child_returns_next_after_absent() {
        let refs = ordered("ns1");
        let deps = [node(&ns1_child1(), &refs.iter().collect::<Vec<_>>())];
        assert_eq!(alternate(&deps, &refs[3]), Some(refs[4].clone()));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_ref_from_cluster_child_returns_first_if_absent_is_sorted_last() {
        let refs = ordered("");
        let deps = [node(&id("v1", "Child", "", "child1", "childuidc1"), &refs.iter().collect::<Vec<_>>())];
        assert_eq!(alternate(&deps, &refs[4]), Some(refs[0].clone()));
    }

    #[test]
    fn test_get_alternate_owner_identity_cluster_ref_from_cluster_child_returns_next_after_absent() {
        let refs = ordered("");
        let deps = [node(&id("v1", "Child", "", "child1", "childuidc1"), &refs.iter().collect::<Vec<_>>())];
        assert_eq!(alternate(&deps, &refs[3]), Some(refs[4].clone()));
    }

    #[test]
    fn test_get_alternate_owner_identity_ignore_unrelated() {
        let unrelated = id("v1", "Parent", "ns1", "name", "anotheruid");
        let deps = [node(&ns1_child1(), &[&cluster_parent(), &unrelated])];
        assert_eq!(alternate(&deps, &cluster_parent()), None);
    }

    #[test]
    fn test_get_alternate_owner_identity_ignore_matches() {
        let deps = [node(&ns1_child1(), &[&cluster_parent(), &cluster_parent()])];
        assert_eq!(alternate(&deps, &cluster_parent()), None);
    }

    #[test]
    fn test_get_alternate_owner_identity_collapse_duplicates() {
        let kind = id("v1", "xxxxxxxxxxxxx", "", "parentname", "parentuid");
        let deps = [node(&id("v1", "Child", "", "child1", "childuidc1"), &[&cluster_parent(), &kind, &kind])];
        assert_eq!(alternate(&deps, &cluster_parent()), Some(kind));
    }
}
