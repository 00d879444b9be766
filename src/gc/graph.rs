//! The dependency graph: one node per object UID (observed through a monitor, or *virtual*:
//! known only from someone's ownerReference), with its owners as last observed and the set of
//! its dependents. Mirrors upstream `graph.go`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
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
    pub dependents: HashSet<Uid>,
    /// The ownerReferences last observed on the object.
    pub owners: Vec<OwnerRef>,
    /// The object has a deletionTimestamp (a one-way trip).
    pub being_deleted: bool,
    /// Being deleted with the `foregroundDeletion` finalizer (a one-way trip).
    pub deleting_dependents: bool,
    /// Known only from references, not (yet) observed through a monitor.
    pub virtual_node: bool,
}

impl Node {
    /// A virtual node for an owner known from a reference.
    pub fn virtual_owner(identity: Identity) -> Self {
        Self {
            identity,
            dependents: HashSet::new(),
            owners: Vec::new(),
            being_deleted: false,
            deleting_dependents: false,
            virtual_node: true,
        }
    }

    /// Whether the node was observed through a monitor.
    pub fn is_observed(&self) -> bool {
        !self.virtual_node
    }
}

/// All nodes, keyed by UID only (upstream `uidToNode`).
#[derive(Debug, Default)]
pub struct Graph {
    nodes: HashMap<Uid, Node>,
}

impl Graph {
    /// The node for `uid`.
    pub fn get(&self, uid: &str) -> Option<&Node> {
        self.nodes.get(uid)
    }

    /// The node for `uid`, mutably.
    pub fn get_mut(&mut self, uid: &str) -> Option<&mut Node> {
        self.nodes.get_mut(uid)
    }

    /// Inserts or replaces a node.
    pub fn insert(&mut self, node: Node) {
        self.nodes.insert(node.identity.uid.clone(), node);
    }

    /// Removes a node, and it from its owners' dependents (upstream `removeNode`).
    pub fn remove(&mut self, uid: &str) -> Option<Node> {
        let node = self.nodes.remove(uid)?;
        for owner in &node.owners {
            if let Some(o) = self.nodes.get_mut(&*owner.uid) {
                o.dependents.remove(uid);
            }
        }
        Some(node)
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
        self.nodes.values()
    }

    /// The dependents of `uid` whose reference to it has `blockOwnerDeletion: true`.
    pub fn blocking_dependents(&self, uid: &str) -> Vec<&Node> {
        let Some(node) = self.nodes.get(uid) else { return vec![] };
        node.dependents.iter().filter_map(|d| self.nodes.get(d)).filter(|d| d.owners.iter().any(|r| &*r.uid == uid && r.blocks())).collect()
    }

    /// Splits `dependents` into those whose reference matches `owner` and those whose does
    /// not (upstream `partitionDependents`). A dependent outside a namespaced owner's
    /// namespace never matches.
    pub fn partition_dependents(&self, dependents: &HashSet<Uid>, owner: &Identity) -> (Vec<Uid>, Vec<Uid>) {
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

    /// Another identity the `dependents` refer to the absent owner by (upstream
    /// `getAlternateOwnerIdentity`): the first candidate sorting after `absent`, else the first.
    pub fn alternate_owner_identity(&self, dependents: &[Uid], absent: &Identity) -> Option<Identity> {
        let absent_namespaced = !absent.namespace.is_empty();
        let mut candidates = BTreeSet::new();
        for dep in dependents.iter().filter_map(|d| self.nodes.get(d)) {
            for r in dep.owners.iter().filter(|r| r.uid == absent.uid) {
                let mut candidate = Identity::from_ref(r, &dep.identity.namespace);
                if !absent_namespaced && candidate.api_version == absent.api_version && candidate.kind == absent.kind {
                    // Same kind as a cluster-scoped absent owner: the dependent's namespace is irrelevant.
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

/// A set's elements in a stable order (so work is enqueued deterministically).
pub fn sorted(set: &HashSet<Uid>) -> Vec<Uid> {
    let mut v: Vec<Uid> = set.iter().cloned().collect();
    v.sort();
    v
}
