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
}
