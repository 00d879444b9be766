//! Deliberately broken cleanup controllers, for judging a specification: each mutant breaks one
//! rule of one controller, and a specification worth its name has a scenario that fails against
//! it. Never set one outside such a check.
//!
//! The rules know nothing of mutants: each computes a decision as a value, and the controller
//! passes it through [`crate::cleanup::pass::Context::decided`] before acting on it, the one
//! place a mutant reaches it. This module names the mutants and imports nothing of the
//! controllers; what each mutant makes of each decision is in [`crate::cleanup::mutations`].

crate::mutants::define_mutants! {
    "the cleanup controllers";
    /// The pod garbage collector keeps one terminated pod fewer than its threshold (upstream
    /// `gcTerminated` off by one).
    PodGcThresholdOffByOne = "pod-gc-threshold-off-by-one",
    /// The pod garbage collector deletes the newest terminated pods first (upstream
    /// `byEvictionAndCreationTimestamp` reversed).
    PodGcNewestFirst = "pod-gc-newest-first",
    /// Pods on a missing node are deleted at once, without the quarantine (upstream `gcOrphaned`
    /// broken).
    PodGcNoQuarantine = "pod-gc-no-quarantine",
    /// A volume whose claim is gone is never marked Released (upstream `syncVolume`'s release
    /// dropped).
    PvReleasedNeverSet = "pv-released-never-set",
    /// A released volume with policy Retain is deleted (upstream `reclaimVolume` broken).
    PvRetainDeleted = "pv-retain-deleted",
    /// A claim used only by finished pods loses its protection finalizer (upstream `podUsesPVC`
    /// broken).
    PvcProtectionIgnoresFinishedPods = "pvc-protection-ignores-finished-pods",
    /// Unscheduled pods keep a claim's protection finalizer (upstream `podUsesPVC` broken).
    PvcProtectionCountsUnscheduledPods = "pvc-protection-counts-unscheduled-pods",
    /// A terminating volume loses its protection finalizer while Bound (upstream pv-protection
    /// `isBeingUsed` broken).
    PvProtectionIgnoresBound = "pv-protection-ignores-bound",
    /// A live volume lacking the protection finalizer does not get it (the upstream
    /// pv-protection controller's adding step dropped).
    PvProtectionNeverAdded = "pv-protection-never-added",
    /// An identity lease counts as expired only after twice its duration (upstream
    /// `isLeaseExpired` broken).
    IdentityLeaseDurationDoubled = "identity-lease-duration-doubled",
    /// Every identity lease counts as expired, however fresh (upstream `isLeaseExpired` broken).
    IdentityLeaseRenewTimeIgnored = "identity-lease-renew-time-ignored",
    /// A finished Job's TTL runs from its creation instead of its finish (upstream
    /// `jobFinishTime` broken).
    TtlFromCreation = "ttl-from-creation",
    /// An expired Job is deleted in the background instead of the foreground (upstream
    /// `processJob` broken).
    TtlBackgroundDeletion = "ttl-background-deletion",
    /// A finished Job without a TTL counts as having a TTL of 0 (upstream `needsCleanup`'s TTL
    /// check dropped).
    TtlMissingMeansZero = "ttl-missing-means-zero",
    /// An approved, issued request goes at the first pass an hour after approval, not only once
    /// it is older than an hour (upstream `isOlderThan`'s strict comparison broken).
    CsrApprovedAtTheHour = "csr-approved-at-the-hour",
    /// A request with no conditions counts as stale after one hour instead of 24 (upstream
    /// `isPendingPastDeadline` broken).
    CsrPendingAfterAnHour = "csr-pending-after-an-hour",
    /// An issued certificate past its NotAfter keeps its request until the age rules take it
    /// (upstream `isIssuedExpired` ignored).
    CsrExpiredIgnored = "csr-expired-ignored",
    /// A request approved but never issued counts as issued (upstream `isIssuedPastDeadline`'s
    /// certificate check dropped).
    CsrApprovedUnissued = "csr-approved-unissued",
    /// A silent Node is marked Unknown only after twice the grace period (upstream
    /// `tryUpdateNodeHealth`'s grace broken).
    NodeHealthGraceDoubled = "node-health-grace-doubled",
    /// A Ready Node is asked about too, and deleted when its instance is gone (upstream
    /// `MonitorNodes`' Ready check dropped).
    CloudAsksAboutReadyNodes = "cloud-asks-about-ready-nodes",
    /// A Node whose instance is shut down is deleted as if it were gone (upstream
    /// `MonitorNodes`' existence check and shutdown check confused).
    CloudDeletesShutdownNodes = "cloud-deletes-shutdown-nodes",
}

/// A decision of a cleanup controller that a mutant may change.
pub use crate::mutants::Mutable;
