//! Deliberately broken collectors, for judging a specification: each mutant breaks one rule of
//! the reference collector, and a specification worth its name has a scenario that fails
//! against it. Never set one outside such a check.
//!
//! The reference rules ([`crate::gc::decision`], and the graph builder's [`Effect`]s) know
//! nothing of mutants. The collector passes each of their decisions through [`Mutable`] on its
//! way to being acted on, the one place where a mutant reaches it; the implementations below say
//! what each mutant makes of the decision of the rule it breaks.

use kube::api::PropagationPolicy;

use crate::gc::decision::{Decision, ForegroundStep, Identified, Known, KnownOwner, Orphaning, OwnerState};
use crate::gc::graph_builder::Effect;

crate::mutants::define_mutants! {
    "the garbage collector";
    /// Foreground owners never wait for blocking dependents (upstream
    /// `processDeletingDependentsItem` broken).
    IgnoreBlockOwnerDeletion = "ignore-block-owner-deletion",
    /// The `orphan` finalizer is removed without stripping the dependents' references (upstream
    /// `orphanDependents` skipped).
    NeverOrphan = "never-orphan",
    /// An item with a dangling owner is deleted even when another owner is solid (upstream
    /// `attemptToDeleteItem` broken).
    DeleteDespiteSolidOwner = "delete-despite-solid-owner",
    /// A namespaced owner the collector has seen in another namespace counts as solid (upstream
    /// `isDangling` broken).
    IgnoreCrossNamespaceRule = "ignore-cross-namespace-rule",
    /// Blocking references are never made non-blocking, so cycles stay stuck (upstream
    /// `attemptToDeleteItem`'s unblocking patch dropped).
    NeverBreakCycles = "never-break-cycles",
    /// An item whose owners are all gone is kept: background collection never happens (upstream
    /// `attemptToDeleteItem` broken).
    KeepDanglingDependents = "keep-dangling-dependents",
    /// Any object with the owner's name counts as the owner, whatever its uid (upstream
    /// `isDangling` broken).
    OwnerByNameOnly = "owner-by-name-only",
    /// An owner whose kind no API serves counts as absent, so its dependents go (upstream
    /// `isDangling` broken).
    CollectUnresolvableOwners = "collect-unresolvable-owners",
    /// `OwnerRefInvalidNamespace` events are never recorded (upstream
    /// `reportInvalidNamespaceOwnerRef` dropped).
    NoInvalidNamespaceEvents = "no-invalid-namespace-events",
}

/// A decision of the reference rules that a mutant may change.
pub trait Mutable {
    /// The decision as `mutant` makes it; a mutant of another rule leaves it as it is.
    fn mutated(self, mutant: Mutant) -> Self;
}

impl Mutable for Decision {
    fn mutated(self, mutant: Mutant) -> Self {
        match (mutant, self) {
            (Mutant::DeleteDespiteSolidOwner, Decision::RemoveOwnerRefs { dangling, .. }) if !dangling.is_empty() => {
                Decision::Delete(PropagationPolicy::Background)
            }
            (Mutant::NeverBreakCycles, Decision::DeleteForeground { .. }) => Decision::DeleteForeground { unblock: false },
            (Mutant::KeepDanglingDependents, Decision::Delete(_)) => Decision::Nothing,
            (_, decision) => decision,
        }
    }
}

impl Mutable for KnownOwner<'_> {
    fn mutated(self, mutant: Mutant) -> Self {
        let seen_elsewhere = || {
            self.graph
                .get(&self.owner.uid)
                .is_some_and(|o| o.is_observed() && !o.namespace().is_empty() && *o.namespace() != self.dependent.namespace)
        };
        let known = match (mutant, self.known) {
            (Mutant::IgnoreCrossNamespaceRule, _) if seen_elsewhere() => Known::State(OwnerState::Solid),
            (Mutant::CollectUnresolvableOwners, Known::Unserved(_)) => Known::State(OwnerState::Dangling),
            (_, known) => known,
        };
        Self { known, ..self }
    }
}

impl Mutable for Identified {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::OwnerByNameOnly => Self { is_it: self.found.is_some(), ..self },
            _ => self,
        }
    }
}

impl Mutable for ForegroundStep {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::IgnoreBlockOwnerDeletion => ForegroundStep::Finish,
            _ => self,
        }
    }
}

impl Mutable for Orphaning {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::NeverOrphan => Orphaning { dependents: Vec::new() },
            _ => self,
        }
    }
}

/// The graph builder's effects of one event (upstream `processGraphChanges`).
impl Mutable for Vec<Effect> {
    fn mutated(mut self, mutant: Mutant) -> Self {
        if mutant == Mutant::NoInvalidNamespaceEvents {
            self.retain(|e| !matches!(e, Effect::InvalidNamespaceOwnerRef { .. }));
        }
        self
    }
}
