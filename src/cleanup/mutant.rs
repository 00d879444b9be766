//! Deliberately broken cleanup controllers, for judging a specification: each mutant breaks one
//! rule of one controller, and a specification worth its name has a scenario that fails against
//! it. Never set one outside such a check. A controller asks [`crate::cleanup::pass::Context::mutated`]
//! at the one place its rule is decided.

crate::mutants::define_mutants! {
    "the cleanup controllers";
    /// The pod garbage collector keeps one terminated pod fewer than its threshold (P rule 4 off by one).
    PodGcThresholdOffByOne = "pod-gc-threshold-off-by-one",
    /// The pod garbage collector deletes the newest terminated pods first (P rule 4's order reversed).
    PodGcNewestFirst = "pod-gc-newest-first",
    /// Pods on a missing node are deleted at once, without the quarantine (P rule 6 broken).
    PodGcNoQuarantine = "pod-gc-no-quarantine",
    /// A volume whose claim is gone is never marked Released (V rule 2 off).
    PvReleasedNeverSet = "pv-released-never-set",
    /// A released volume with policy Retain is deleted (V rule 4 broken).
    PvRetainDeleted = "pv-retain-deleted",
    /// A claim used only by finished pods loses its protection finalizer (V rule 10 broken).
    PvcProtectionIgnoresFinishedPods = "pvc-protection-ignores-finished-pods",
    /// Unscheduled pods keep a claim's protection finalizer (V rule 10 broken).
    PvcProtectionCountsUnscheduledPods = "pvc-protection-counts-unscheduled-pods",
    /// A terminating volume loses its protection finalizer while Bound (V rule 12 broken).
    PvProtectionIgnoresBound = "pv-protection-ignores-bound",
    /// A live volume lacking the protection finalizer does not get it (V rule 12 off).
    PvProtectionNeverAdded = "pv-protection-never-added",
    /// An identity lease counts as expired only after twice its duration (L rule 6 broken).
    IdentityLeaseDurationDoubled = "identity-lease-duration-doubled",
    /// Every identity lease counts as expired, however fresh (L rule 6 broken).
    IdentityLeaseRenewTimeIgnored = "identity-lease-renew-time-ignored",
    /// A finished Job's TTL runs from its creation instead of its finish (T rule 4 broken).
    TtlFromCreation = "ttl-from-creation",
    /// An expired Job is deleted in the background instead of the foreground (T rule 8 broken).
    TtlBackgroundDeletion = "ttl-background-deletion",
    /// A finished Job without a TTL counts as having a TTL of 0 (T rule 2's TTL check dropped).
    TtlMissingMeansZero = "ttl-missing-means-zero",
    /// An approved, issued request goes at the first pass an hour after approval, not only once
    /// it is older than an hour (S rule 8's strict comparison broken).
    CsrApprovedAtTheHour = "csr-approved-at-the-hour",
    /// A request with no conditions counts as stale after one hour instead of 24 (S rule 6 broken).
    CsrPendingAfterAnHour = "csr-pending-after-an-hour",
    /// An issued certificate past its NotAfter keeps its request until the age rules take it
    /// (S rule 7 ignored).
    CsrExpiredIgnored = "csr-expired-ignored",
    /// A request approved but never issued counts as issued (S rule 3's certificate check dropped).
    CsrApprovedUnissued = "csr-approved-unissued",
}
