//! Deliberately broken collectors, for judging a specification: each mutant breaks one rule of
//! the reference collector, and a specification worth its name has a scenario that fails
//! against it. Never set one outside such a check.

crate::mutants::define_mutants! {
    "the garbage collector";
    /// Foreground owners never wait for blocking dependents (A.7 broken).
    IgnoreBlockOwnerDeletion = "ignore-block-owner-deletion",
    /// The `orphan` finalizer is removed without stripping the dependents' references (A.8 broken).
    NeverOrphan = "never-orphan",
    /// An item with a dangling owner is deleted even when another owner is solid (A.5 broken).
    DeleteDespiteSolidOwner = "delete-despite-solid-owner",
    /// A namespaced owner the collector has seen in another namespace counts as solid (A.10 broken).
    IgnoreCrossNamespaceRule = "ignore-cross-namespace-rule",
    /// Blocking references are never made non-blocking, so cycles stay stuck (A.5 cycle rule broken).
    NeverBreakCycles = "never-break-cycles",
    /// An item whose owners are all gone is kept: background collection never happens (A.5/A.6 broken).
    KeepDanglingDependents = "keep-dangling-dependents",
    /// Any object with the owner's name counts as the owner, whatever its uid (A.6 broken).
    OwnerByNameOnly = "owner-by-name-only",
    /// An owner whose kind no API serves counts as absent, so its dependents go (A.6 broken).
    CollectUnresolvableOwners = "collect-unresolvable-owners",
    /// `OwnerRefInvalidNamespace` events are never recorded (A.11 broken).
    NoInvalidNamespaceEvents = "no-invalid-namespace-events",
}
