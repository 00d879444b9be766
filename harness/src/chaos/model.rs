//! The independent model a chaos run is judged by: what Kubernetes' documented deletion
//! semantics allow the end state to be, worked out from the plan alone (not from any collector's
//! code).
//!
//! Some outcomes are decided by races even in a correct collector (upstream's too): a dependent
//! of an owner deleted with Orphan and of one that is gone may lose the orphaned reference
//! first, and then be collected, or lose the dangling one first, and then stay. So the model
//! says of each object whether it must survive, must be gone, or may go either way, and the
//! judge checks, beside those:
//!
//! - **safety**: an object with a resolving reference to an owner that still exists at the end
//!   was never the run's to delete, so it exists and still has that reference (a live owner is
//!   solid all along: it never had a deletionTimestamp);
//! - **liveness**: nothing left has a deletionTimestamp or a `foregroundDeletion` or `orphan`
//!   finalizer, and every reference left resolves to an object that exists (dangling
//!   references are removed from dependents that stay).
//!
//! References resolve as the collector looks owners up ([`Plan::resolve`]): a namespaced owner
//! in the dependent's namespace, a cluster-scoped owner anywhere, never a namespaced owner of a
//! cluster-scoped dependent, and only with the owner's own uid.

use std::collections::BTreeMap;

use crate::chaos::plan::{Plan, Policy, Target};

/// Three-valued knowledge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// Certainly.
    Yes,
    /// Certainly not.
    No,
    /// Depends on a race a correct collector may lose or win.
    Maybe,
}

/// What the model says of one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fate {
    /// Whether it exists at the end.
    pub survives: Known,
    /// Whether its dependents lose their references to it instead of following it (it is
    /// deleted with Orphan, and nothing deletes it otherwise first).
    pub orphans: Known,
    /// Whether it may be deleted in the foreground, by the run or by a collector following an
    /// owner deleted in the foreground.
    pub foreground: bool,
    /// Whether it may stay forever with its deletionTimestamp and `foregroundDeletion`
    /// finalizer: deleted in the foreground, it waits for a blocking dependent (any object whose
    /// reference names its uid, resolving or not: upstream `blockingDependents`) that the
    /// collector never processes ([`Plan::unprocessable`]), or for one that waits forever
    /// itself.
    pub hangs: bool,
    /// Whether it may be left unprocessed for ever, as it is, behind an owner that hangs: a
    /// collector started cold adds the waiting owner before its non-blocking dependents, and
    /// only the owner's final deletion would queue them again (upstream processTransitions on
    /// the owner's add, processDeletingDependentsItem queueing blocking dependents only).
    pub stalls: bool,
}

/// The model's verdict on every object of `plan`, in plan order.
pub fn fates(plan: &Plan) -> Vec<Fate> {
    let mut fates: Vec<Fate> = Vec::with_capacity(plan.objects.len());
    for (index, object) in plan.objects.iter().enumerate() {
        let owners: Vec<Option<Fate>> = object.references.iter().map(|r| plan.resolve(index, r).map(|o| fates[o])).collect();
        // The collector's graph links a dependent to whatever object has the uid its reference
        // names, resolving or not, and orphaning an owner strips every reference to its uid
        // (upstream addDependentToOwners, orphanDependents).
        let stripped_by_orphaning =
            |r: &crate::chaos::plan::Reference| matches!(r.target, Target::Object(t) if fates[t].orphans != Known::No);
        // An owner that survives keeps its dependents: nothing else can make a collector delete
        // them, or remove the reference.
        let held = owners.iter().any(|o| o.is_some_and(|f| f.survives == Known::Yes));
        // Nor is an object the collector never processes ever collected, while it keeps a
        // reference to a namespaced kind that no orphaning strips.
        let unprocessable =
            plan.unprocessable(index) && object.references.iter().any(|r| plan.target_kind(r).namespaced() && !stripped_by_orphaning(r));
        // Unless a namespaced object names its uid: then upstream may process it as though it
        // lived in that dependent's namespace. The dependent's reference makes a virtual node
        // for the uid in the dependent's namespace (addDependentToOwners); a worker that takes
        // it before the object is observed finds the object (attemptToDeleteItem: getObject
        // ignores the namespace of a cluster-scoped kind) and classifies its references with
        // that namespace, so isDangling looks its namespaced owners up there instead of
        // answering namespacedOwnerOfClusterScopedObjectErr, and may delete it (kubegc chaos
        // --target upstream, seed 9: a ClusterRole whose one owner is a Lease that never
        // existed, collected when a ConfigMap's reference to it was seen first).
        let named_by_a_namespaced_object = || {
            plan.objects[index + 1..]
                .iter()
                .any(|d| d.namespace.is_some() && d.references.iter().any(|r| r.target == Target::Object(index)))
        };
        let never_processed = unprocessable && !named_by_a_namespaced_object();
        let never_collected = object.references.is_empty() || held || never_processed;
        let deletion = plan.deletion(index);
        let (survives, orphans) = match deletion {
            // An object the collector may delete first need not get the orphan finalizer from
            // the run's deletion.
            Some(Policy::Orphan) if never_collected => (Known::No, Known::Yes),
            Some(Policy::Orphan) => (Known::No, Known::Maybe),
            Some(_) => (Known::No, Known::No),
            None if never_collected => (Known::Yes, Known::No),
            None => {
                // Kept when every owner resolves and either survives or orphans for certain: one
                // of them is always there, solid, until the last reference is removed.
                let kept = owners.iter().all(|o| o.is_some_and(|f| f.survives == Known::Yes || f.orphans == Known::Yes));
                // Collected when every owner is certainly gone, none of them orphaning, and no
                // reference that does not resolve may be stripped by an orphaning.
                let collected = owners
                    .iter()
                    .zip(&object.references)
                    .all(|(o, r)| o.map_or(!stripped_by_orphaning(r), |f| f.survives == Known::No && f.orphans == Known::No));
                let survives = if kept {
                    Known::Yes
                } else if collected && !unprocessable {
                    Known::No
                } else {
                    Known::Maybe
                };
                (survives, Known::No)
            }
        };
        // A collector deletes in the foreground an object with dependents one of whose owners
        // waits for its dependents (upstream attemptToDeleteItem).
        let has_dependents = plan.objects[index + 1..].iter().any(|o| o.references.iter().any(|r| r.target == Target::Object(index)));
        let cascaded = survives != Known::Yes && has_dependents && owners.iter().any(|o| o.is_some_and(|f| f.foreground));
        let foreground = deletion == Some(Policy::Foreground) || cascaded;
        fates.push(Fate { survives, orphans, foreground, hangs: false, stalls: false });
    }
    for index in (0..plan.objects.len()).rev() {
        let waits_forever = |(d, dependent): (usize, &crate::chaos::plan::Object)| {
            dependent.references.iter().any(|r| r.blocking && r.target == Target::Object(index))
                && ((plan.unprocessable(d) && plan.deletion(d).is_none()) || fates[d].hangs)
        };
        let hangs = fates[index].foreground && plan.objects.iter().enumerate().skip(index + 1).any(waits_forever);
        fates[index].hangs = hangs;
    }
    for index in 0..plan.objects.len() {
        let behind = |r: &crate::chaos::plan::Reference| matches!(r.target, Target::Object(t) if fates[t].hangs || fates[t].stalls);
        fates[index].stalls = plan.objects[index].references.iter().any(behind);
    }
    fates
}

/// An object as found at the end of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The uids its owner references name.
    pub owner_uids: Vec<String>,
    /// Its finalizers.
    pub finalizers: Vec<String>,
    /// Whether it has a deletionTimestamp.
    pub deleting: bool,
}

/// What broke the model, in two kinds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Things a correct collector never does: deleting what it must keep, removing a reference
    /// to a live owner.
    pub safety: Vec<String>,
    /// Things a correct collector does in the end and this one did not.
    pub liveness: Vec<String>,
}

impl Verdict {
    /// Whether nothing broke the model.
    pub fn passed(&self) -> bool {
        self.safety.is_empty() && self.liveness.is_empty()
    }
}

/// Judges the end state: `uids` are the uids the objects were created with, `found` what exists
/// of them now (by index).
pub fn judge(plan: &Plan, uids: &[String], found: &BTreeMap<usize, Found>) -> Verdict {
    let fates = fates(plan);
    let mut verdict = Verdict::default();
    let label = |i: usize| format!("#{i} {} {}", plan.objects[i].kind.resource().kind, plan.objects[i].name);
    let owner_of: BTreeMap<&str, usize> = uids.iter().enumerate().map(|(i, u)| (u.as_str(), i)).collect();
    for (index, fate) in fates.iter().enumerate() {
        let here = found.get(&index);
        // Upstream leaves such an object waiting for ever, or unprocessed.
        let hanging = (fate.hangs && here.is_some_and(|f| f.deleting && f.finalizers.iter().any(|f| f == FOREGROUND)))
            || (fate.stalls && here.is_some_and(|f| !f.deleting));
        match (fate.survives, here) {
            (Known::Yes, None) => verdict.safety.push(format!("{} was deleted; it must stay", label(index))),
            (Known::No, Some(_)) if !hanging => verdict.liveness.push(format!("{} is still there; it should be gone", label(index))),
            _ => {}
        }
        let object = &plan.objects[index];
        // An owner found without a deletionTimestamp was never deleted: solid all along.
        let live = |o: &usize| found.get(o).is_some_and(|f| !f.deleting);
        for r in &object.references {
            let Some(owner) = plan.resolve(index, r).filter(live) else { continue };
            if plan.deletion(index).is_some() {
                continue;
            }
            match here {
                None => verdict.safety.push(format!("{} was deleted although its owner {} exists", label(index), label(owner))),
                Some(f) if !f.owner_uids.contains(&uids[owner]) => {
                    verdict.safety.push(format!("{} lost its reference to its live owner {}", label(index), label(owner)))
                }
                Some(_) => {}
            }
        }
        let Some(f) = here else { continue };
        if hanging {
            continue;
        }
        if f.deleting {
            verdict.liveness.push(format!("{} is still being deleted (finalizers {:?})", label(index), f.finalizers));
        }
        // The collector never removes a dangling reference from an object it never processes.
        if plan.unprocessable(index) {
            continue;
        }
        for uid in &f.owner_uids {
            let resolves = owner_of
                .get(uid.as_str())
                .is_some_and(|o| found.contains_key(o) && object.references.iter().any(|r| plan.resolve(index, r) == Some(*o)));
            if !resolves {
                verdict.liveness.push(format!("{} still references {uid}, which is not a live owner it can have", label(index)));
            }
        }
    }
    verdict
}

/// The finalizer of an object deleted in the foreground.
const FOREGROUND: &str = "foregroundDeletion";

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::chaos::faults::Rates;
    use crate::chaos::plan::{Action, Kind, Object, Reference, Step, Target};

    /// A plan of ConfigMaps in one namespace, each with the given owners (by index, all
    /// resolving), and the given deletions.
    fn plan(owners: &[&[usize]], deletions: &[(usize, Policy)]) -> Plan {
        let objects = owners
            .iter()
            .enumerate()
            .map(|(i, os)| Object {
                kind: Kind::ConfigMap,
                namespace: Some("n".into()),
                name: format!("o{i}"),
                references: os.iter().map(|&o| Reference { target: Target::Object(o), blocking: false }).collect(),
                finalizer: false,
            })
            .collect();
        let steps = deletions.iter().map(|&(i, p)| Step { at: Duration::ZERO, action: Action::Delete(i, p) }).collect();
        Plan { seed: 0, namespaces: vec!["n".into()], objects, collector_first: false, steps, kills: vec![], rates: Rates::NONE }
    }

    fn survives(plan: &Plan) -> Vec<Known> {
        fates(plan).iter().map(|f| f.survives).collect()
    }

    #[test]
    fn a_dependent_of_an_orphaned_root_stays_and_of_a_background_one_goes() {
        use Known::*;
        assert_eq!(survives(&plan(&[&[], &[0], &[1]], &[(0, Policy::Orphan)])), [No, Yes, Yes]);
        assert_eq!(survives(&plan(&[&[], &[0], &[1]], &[(0, Policy::Background)])), [No, No, No]);
        assert_eq!(survives(&plan(&[&[], &[0], &[1]], &[(0, Policy::Foreground)])), [No, No, No]);
    }

    #[test]
    fn a_live_owner_holds_its_dependent_whatever_the_other_owners_do() {
        use Known::*;
        assert_eq!(survives(&plan(&[&[], &[], &[0, 1]], &[(0, Policy::Background)])), [No, Yes, Yes]);
    }

    #[test]
    fn an_orphaned_owner_beside_a_collected_one_is_a_race() {
        use Known::*;
        assert_eq!(survives(&plan(&[&[], &[], &[0, 1]], &[(0, Policy::Orphan), (1, Policy::Background)])), [No, No, Maybe]);
        assert_eq!(survives(&plan(&[&[], &[], &[0, 1]], &[(0, Policy::Orphan), (1, Policy::Orphan)])), [No, No, Yes]);
    }

    #[test]
    fn an_orphan_deletion_of_an_object_that_may_be_collected_first_may_not_orphan() {
        use Known::*;
        let p = plan(&[&[], &[0], &[1]], &[(0, Policy::Background), (1, Policy::Orphan)]);
        assert_eq!(fates(&p)[1].orphans, Maybe);
        assert_eq!(survives(&p), [No, No, Maybe]);
    }

    #[test]
    fn a_dangling_reference_alone_is_collected_and_beside_a_live_owner_is_removed() {
        let mut p = plan(&[&[], &[0]], &[]);
        p.objects[1].references.push(Reference { target: Target::StaleUid(0, "x".into()), blocking: true });
        assert_eq!(survives(&p), [Known::Yes, Known::Yes]);
        p.objects[1].references.remove(0);
        assert_eq!(survives(&p), [Known::Yes, Known::No]);
        let uids = vec!["u0".to_string(), "u1".to_string()];
        let found = |refs: &[&str]| Found { owner_uids: refs.iter().map(|s| s.to_string()).collect(), finalizers: vec![], deleting: false };
        let v = judge(&p, &uids, &BTreeMap::from([(0, found(&[])), (1, found(&["x"]))]));
        assert_eq!(v.liveness.len(), 2, "{v:?}");
        assert!(v.safety.is_empty());
    }

    /// An object given as its kind, namespace, and owners with whether each blocks.
    type Given<'a> = (Kind, Option<&'a str>, &'a [(usize, bool)]);

    /// A plan of the given objects and deletions.
    fn mixed(objects: &[Given], deletions: &[(usize, Policy)]) -> Plan {
        let mut p = plan(&[], deletions);
        p.objects = objects
            .iter()
            .enumerate()
            .map(|(i, (kind, ns, owners))| Object {
                kind: *kind,
                namespace: ns.map(str::to_string),
                name: format!("o{i}"),
                references: owners.iter().map(|&(o, blocking)| Reference { target: Target::Object(o), blocking }).collect(),
                finalizer: false,
            })
            .collect();
        p
    }

    #[test]
    fn orphaning_strips_a_reference_by_uid_even_one_that_does_not_resolve() {
        // Seed 55: the Widget's reference names the Secret's uid from another namespace.
        let p = mixed(&[(Kind::Secret, Some("a"), &[]), (Kind::Widget, Some("b"), &[(0, true)])], &[(0, Policy::Orphan)]);
        assert_eq!(survives(&p), [Known::No, Known::Maybe]);
        let p = mixed(&[(Kind::Secret, Some("a"), &[]), (Kind::Widget, Some("b"), &[(0, true)])], &[(0, Policy::Background)]);
        assert_eq!(survives(&p), [Known::No, Known::No]);
    }

    #[test]
    fn a_cluster_scoped_object_is_left_alone_while_it_names_a_namespaced_kind() {
        let objects: &[Given] =
            &[(Kind::Gadget, None, &[]), (Kind::Widget, Some("a"), &[]), (Kind::ClusterRole, None, &[(0, false), (1, true)])];
        assert_eq!(survives(&mixed(objects, &[(0, Policy::Background)])), [Known::No, Known::Yes, Known::Yes]);
        // Seed 980: once orphaning may strip the namespaced reference, it may be collected.
        assert_eq!(survives(&mixed(objects, &[(1, Policy::Orphan), (0, Policy::Background)])), [Known::No, Known::No, Known::Maybe]);
    }

    #[test]
    fn a_foreground_owner_waiting_for_a_dependent_never_processed_hangs_and_stalls_the_others() {
        // Seed 1549: the ClusterRole is never processed, so the Widget (deleted in the foreground
        // by the collector) and the Gadget wait for ever; the other Gadget may never be queued.
        let p = mixed(
            &[
                (Kind::Gadget, None, &[]),
                (Kind::Gadget, None, &[(0, false)]),
                (Kind::Widget, Some("a"), &[(0, true)]),
                (Kind::ClusterRole, None, &[(2, true)]),
            ],
            &[(0, Policy::Foreground)],
        );
        let f = fates(&p);
        assert_eq!(f.iter().map(|f| (f.hangs, f.stalls)).collect::<Vec<_>>(), [(true, false), (false, true), (true, true), (false, true)]);
        assert_eq!(survives(&p), [Known::No, Known::No, Known::No, Known::Yes]);
    }

    /// Seed 9 on upstream: a ClusterRole whose one owner is a Lease that never existed stays,
    /// unless a namespaced object names it: then upstream may look the Lease up in that
    /// object's namespace, and collect the ClusterRole.
    #[test]
    fn a_cluster_scoped_object_with_a_namespaced_owner_named_by_a_namespaced_dependent_is_a_race() {
        use Known::*;
        let mut p = plan(&[&[], &[], &[1]], &[]);
        (p.objects[1].kind, p.objects[1].namespace) = (Kind::ClusterRole, None);
        p.objects[1].references =
            vec![Reference { target: Target::Ghost { kind: Kind::Lease, name: "g".into(), uid: "x".into() }, blocking: true }];
        assert_eq!(survives(&p), [Yes, Maybe, Maybe]);
        p.objects[2].references.clear();
        assert_eq!(survives(&p), [Yes, Yes, Yes]);
    }

    #[test]
    fn deleting_a_dependent_of_a_live_owner_is_a_safety_violation() {
        let p = plan(&[&[], &[0]], &[]);
        let uids = vec!["u0".to_string(), "u1".to_string()];
        let v = judge(&p, &uids, &BTreeMap::from([(0, Found { owner_uids: vec![], finalizers: vec![], deleting: false })]));
        assert_eq!(v.safety.len(), 2, "{v:?}");
    }
}
