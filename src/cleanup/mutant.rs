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
