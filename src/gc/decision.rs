//! The collector's rules as pure functions (upstream `attemptToDeleteItem`,
//! `isDangling`, `processDeletingDependentsItem` and `orphanDependents` in
//! `garbagecollector.go`): from the facts the collector gathered (what the server answered, its
//! absent-owner cache, its graph) to a decision, a value the collector then acts on. Between the
//! two is where a mutant may change the decision ([`crate::gc::mutant`]); nothing here knows of
//! mutants.

use kube::api::PropagationPolicy;

use crate::gc::events::ObjectMeta;
use crate::gc::graph::{Graph, Identity, Node, NodeRef, OwnerRef, Uid, WorkItem, sorted};
use crate::gc::rest_mapper::{Mapping, MappingError};
use crate::metadata::{FINALIZER_FOREGROUND, FINALIZER_ORPHAN};

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

/// What a live GET by name found, judged against the UID meant (upstream `attemptToDeleteItem`
/// and `isDangling`): a name may have passed to a new object with another UID, which is then not
/// the object meant.
#[derive(Clone, Debug, PartialEq)]
pub struct Identified {
    /// What the GET found.
    pub found: Option<ObjectMeta>,
    /// Whether it is the object meant.
    pub is_it: bool,
}

impl Identified {
    /// Judges `found` against `uid`: the object meant is the one with that UID.
    pub fn new(found: Option<ObjectMeta>, uid: &Uid) -> Self {
        let is_it = found.as_ref().is_some_and(|f| f.uid == *uid);
        Self { found, is_it }
    }

    /// The object meant, if the GET found it.
    pub fn object(self) -> Option<ObjectMeta> {
        if self.is_it { self.found } else { None }
    }
}

/// How far an owner reference is classified before the server is asked (upstream `isDangling`).
#[derive(Clone, Debug)]
pub enum Known {
    /// Classified: the owner was verified absent before (the absent-owner cache).
    State(OwnerState),
    /// No served resource has the reference's kind: the item is retried, never deleted (upstream
    /// `restMappingError`).
    Unserved(MappingError),
    /// A cluster-scoped dependent refers to a namespaced kind: never collected, never retried.
    NamespacedOwnerOfClusterScoped,
    /// To be looked up on the server, through this mapping.
    Ask(Mapping),
}

/// Upstream `isDangling` up to its GET: an owner in the absent-owner cache is dangling;
/// otherwise its kind must be served, and not namespaced when the dependent is cluster-scoped.
pub fn known_before_lookup(cached_absent: bool, mapping: Result<Mapping, MappingError>, dependent_cluster_scoped: bool) -> Known {
    if cached_absent {
        return Known::State(OwnerState::Dangling);
    }
    match mapping {
        Err(e) => Known::Unserved(e),
        Ok(m) if m.namespaced && dependent_cluster_scoped => Known::NamespacedOwnerOfClusterScoped,
        Ok(m) => Known::Ask(m),
    }
}

/// [`Known`] with what it was decided from: the reference, its dependent, and the graph as it
/// stood, which the rule does not read (a namespaced owner is looked up in its dependent's
/// namespace only, as upstream `isDangling` does) but a rule broken at this point may.
pub struct KnownOwner<'a> {
    /// The reference.
    pub owner: &'a OwnerRef,
    /// The dependent holding it.
    pub dependent: &'a Identity,
    /// The collector's graph.
    pub graph: &'a Graph,
    /// The classification so far.
    pub known: Known,
}

/// The state of an owner the server has (as upstream `attemptToDeleteItem` classifies it):
/// waiting for its dependents while it is being deleted in the foreground, solid otherwise.
pub fn live_owner_state(owner: &ObjectMeta) -> OwnerState {
    if owner.being_deleted && owner.has_finalizer(FINALIZER_FOREGROUND) {
        OwnerState::WaitingForDependentsDeletion
    } else {
        OwnerState::Solid
    }
}

/// What to do with an item whose owners have been classified (upstream `attemptToDeleteItem`).
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Leave it alone.
    Nothing,
    /// Some owner is solid: keep the item and remove its references to the other owners.
    RemoveOwnerRefs {
        /// UIDs of the dangling owners.
        dangling: Vec<Uid>,
        /// UIDs of the owners waiting for their dependents' deletion.
        waiting: Vec<Uid>,
    },
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
    let dangling: Vec<Uid> = with(OwnerState::Dangling).collect();
    let waiting: Vec<Uid> = with(OwnerState::WaitingForDependentsDeletion).collect();
    if solid > 0 {
        if dangling.is_empty() && waiting.is_empty() {
            return Decision::Nothing;
        }
        return Decision::RemoveOwnerRefs { dangling, waiting };
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

/// What an owner being deleted in the foreground does next (upstream
/// `processDeletingDependentsItem`).
#[derive(Clone, Debug, PartialEq)]
pub enum ForegroundStep {
    /// No blocking dependent is left: remove the `foregroundDeletion` finalizer.
    Finish,
    /// Blocking dependents are left: wait, queueing these (the blocking dependents that are not
    /// themselves deleting their dependents) for attemptToDelete.
    Wait(Vec<WorkItem>),
}

/// The next step of a foreground deletion whose owner has the `blocking` dependents in the
/// graph (upstream `processDeletingDependentsItem`).
pub fn foreground_step(blocking: &[NodeRef<'_>]) -> ForegroundStep {
    if blocking.is_empty() {
        return ForegroundStep::Finish;
    }
    ForegroundStep::Wait(blocking.iter().filter(|d| !d.deleting_dependents()).map(NodeRef::item).collect())
}

/// The dependents that lose their references to an owner being orphaned (upstream
/// `orphanDependents`).
#[derive(Clone, Debug, PartialEq)]
pub struct Orphaning {
    /// Their identities, in a stable order.
    pub dependents: Vec<Identity>,
}

impl Orphaning {
    /// Every dependent of `owner` that is in `graph` (upstream `orphanDependents` of the owner's
    /// dependents).
    pub fn of(owner: &Node, graph: &Graph) -> Self {
        Self { dependents: sorted(&owner.dependents).iter().filter_map(|d| graph.get(d)).map(|d| d.identity()).collect() }
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
        assert_eq!(decide(&owners, false, false, &[]), Decision::RemoveOwnerRefs { dangling: vec!["b".into()], waiting: vec!["c".into()] });
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
    fn an_owner_verified_absent_needs_no_served_kind() {
        let unserved = || Err(MappingError { api_version: "example.com/v1".into(), kind: "Widget".into() });
        assert!(matches!(known_before_lookup(true, unserved(), false), Known::State(OwnerState::Dangling)));
        assert!(matches!(known_before_lookup(false, unserved(), false), Known::Unserved(_)));
    }

    #[test]
    fn an_object_under_the_name_with_another_uid_is_not_the_one_meant() {
        let meta = |uid: &str| ObjectMeta {
            uid: uid.into(),
            name: "x".into(),
            namespace: "".into(),
            owners: vec![],
            being_deleted: false,
            finalizers: vec![],
            resource_version: String::new(),
        };
        let uid = "1".into();
        assert_eq!(Identified::new(Some(meta("1")), &uid).object(), Some(meta("1")));
        assert_eq!(Identified::new(Some(meta("2")), &uid).object(), None);
        assert_eq!(Identified::new(None, &uid).object(), None);
    }

    #[test]
    fn all_dangling_deletes_with_the_policy_of_the_items_own_finalizers() {
        let owners = [(r("a"), OwnerState::Dangling)];
        assert_eq!(decide(&owners, false, false, &["orphan".into()]), Decision::Delete(PropagationPolicy::Orphan));
        assert_eq!(decide(&owners, false, false, &["foregroundDeletion".into()]), Decision::Delete(PropagationPolicy::Foreground));
        assert_eq!(decide(&owners, false, false, &["x/y".into()]), Decision::Delete(PropagationPolicy::Background));
    }
}
