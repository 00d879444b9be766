//! Deliberately wrong variants of the kubelet model ("mutants"), each a plausible bug or an
//! older behaviour. A node built with one of them set behaves that way; the specification's
//! scenarios must notice every mutant, and every scenario must notice at least one. They change
//! the model's decisions only — never what a scenario checks. Not for normal use.
//!
//! The reference rules know nothing of mutants. Each computes a decision — a value: an order,
//! a verdict on a candidate, a threshold check, the errors of a validation, which steps wait
//! for the config sources — and the model passes it through [`Mutable`] where it leaves the
//! rule, the one place a mutant reaches it (`decision.mutated(node.mutant)`). Where a mutant
//! changes how a rule proceeds rather than what it decides (when `freeSpace` checks whether it
//! freed enough, when `GarbageCollect` reads its stats), the rule reads a small policy value
//! whose default is the reference behaviour, and that value is the decision.
//!
//! This module names the mutants and the seam and imports nothing of the model, so every rule
//! can pass its decision through it; what each mutant makes of each decision is in
//! [`crate::kubelet::mutations`], which imports the rules' decisions and which no rule imports.

crate::mutants::define_mutants! {
    "the kubelet model";
    // Image detection.
    /// Only running containers keep their image in use (exited ones do not).
    InUseRunningOnly = "in-use-running-only",
    /// A detection pass stamps `lastUsed` with the pass's detect time instead of the clock.
    LastUsedIsDetectTime = "last-used-is-detect-time",
    /// Every detection pass resets `firstDetected` to its detect time.
    FirstDetectedRefreshed = "first-detected-refreshed",
    /// Records of images the runtime no longer lists are kept.
    StaleRecordsKept = "stale-records-kept",
    /// Of duplicate entries in the image list, the first one's size and pin win.
    FirstDuplicateWins = "first-duplicate-wins",
    /// Records are keyed by image ID alone even with RuntimeClassInImageCriAPI on.
    RuntimeHandlerIgnored = "runtime-handler-ignored",
    /// Detection runs every minute (with container GC) instead of every five minutes.
    DetectionEveryMinute = "detection-every-minute",
    // Image eviction order and space-based GC.
    /// Most recently used images are deleted first.
    LruReversed = "lru-reversed",
    /// Ties in `lastUsed` go to the most recently detected image first.
    TieBreakReversed = "tie-break-reversed",
    /// Pinned images are collected like any other.
    PinnedCollected = "pinned-collected",
    /// `freeSpace` ignores MinAge.
    MinAgeIgnored = "min-age-ignored",
    /// An image exactly MinAge old is still too young.
    MinAgeExclusive = "min-age-exclusive",
    /// `freeSpace` does not skip images with `lastUsed` at or after the pass's time.
    RecentlyUsedNotSkipped = "recently-used-not-skipped",
    /// `freeSpace` checks "freed enough" before deleting, so a zero target deletes nothing.
    StopCheckBeforeDelete = "stop-check-before-delete",
    /// `freeSpace` gives up at the first deletion error.
    DeletionErrorsStop = "deletion-errors-stop",
    /// Usage is the true percentage rounded down, not 100 minus the truncated free percentage.
    UsageNotTruncated = "usage-not-truncated",
    /// Space GC frees down to the high threshold instead of the low one.
    FreeToHighThreshold = "free-to-high-threshold",
    /// Space-based GC runs whatever the usage (the high threshold is not checked).
    SpaceGcAlwaysRuns = "space-gc-always-runs",
    /// "Freed" counts the bytes the filesystem got back instead of the images' reported sizes.
    FreedMeasuredOnDisk = "freed-measured-on-disk",
    /// A capacity of 0 is not reported: GC just does nothing.
    CapacityUnchecked = "capacity-unchecked",
    /// Available bytes above capacity are not clamped.
    AvailableNotClamped = "available-not-clamped",
    /// Not freeing enough emits no `FreeDiskSpaceFailed` event.
    FreeDiskSpaceFailedSilent = "free-disk-space-failed-silent",
    /// Image filesystem stats are read before age-based deletion (a stats failure stops it).
    StatsBeforeAgeGc = "stats-before-age-gc",
    // Age-based image GC.
    /// Age-based GC also honours MinAge.
    MaxAgeHonoursMinAge = "max-age-honours-min-age",
    /// Age-based GC does not wait MaxAge after the GC loop started.
    MaxAgeNoStartupWait = "max-age-no-startup-wait",
    /// An image exactly MaxAge unused is already too old.
    MaxAgeInclusive = "max-age-inclusive",
    /// MaxAge 0 deletes every unused image instead of disabling age-based GC.
    MaxAgeZeroNotDisabled = "max-age-zero-not-disabled",
    // Policy and configuration validation.
    /// The low/high comparison is inverted (in the constructor and the configuration).
    ThresholdOrderSwapped = "threshold-order-swapped",
    /// The image GC manager accepts thresholds outside 0..100.
    ConstructorRangeUnchecked = "constructor-range-unchecked",
    /// The image GC manager rejects low == high, as configuration validation does.
    ConstructorRejectsEqual = "constructor-rejects-equal",
    /// Configuration validation accepts thresholds outside 0..100.
    ConfigRangeUnchecked = "config-range-unchecked",
    /// Configuration validation accepts low == high.
    ConfigAllowsEqual = "config-allows-equal",
    /// Configuration validation skips the imageMinimumGCAge and imageMaximumGCAge checks.
    ConfigAgesUnchecked = "config-ages-unchecked",
    /// A feature gate that is GA and locked to its default can still be changed.
    LockedGatesChangeable = "locked-gates-changeable",
    /// A zero imageMinimumGCAge in a configuration file is not defaulted to 2m.
    MinAgeNotDefaulted = "min-age-not-defaulted",
    // The kubelet's loops.
    /// High threshold 100 disables image GC even with a MaxAge (the pre-1.30 rule).
    High100DisablesImageGc = "high-100-disables-image-gc",
    /// The image GC loop starts even at high threshold 100 without a MaxAge.
    ImageGcLoopAlwaysStarted = "image-gc-loop-always-started",
    /// `ImageGCFailed` is emitted on the first failure already.
    ImageGcFailedOnFirstFailure = "image-gc-failed-on-first-failure",
    /// The GC loops wait one period before their first run.
    LoopsStartLate = "loops-start-late",
    // Container GC.
    /// A negative container MinAge is accepted.
    NegativeContainerMinAgeAccepted = "negative-container-min-age-accepted",
    /// Container MinAge is ignored.
    ContainerMinAgeIgnored = "container-min-age-ignored",
    /// Container MinAge is measured from the exit, not the creation.
    ContainerMinAgeFromExit = "container-min-age-from-exit",
    /// Running containers are collected like dead ones.
    RunningCollected = "running-collected",
    /// MaxPerPodContainer is not enforced.
    PerPodLimitIgnored = "per-pod-limit-ignored",
    /// Units are trimmed to one less than MaxPerPodContainer.
    PerPodLimitOffByOne = "per-pod-limit-off-by-one",
    /// A negative limit removes every dead container instead of meaning "no limit".
    UnlimitedMeansNone = "unlimited-means-none",
    /// MaxContainers is not enforced.
    MaxContainersIgnored = "max-containers-ignored",
    /// No equal per-unit share before the global cut: straight to oldest-first across the node.
    NoEqualShare = "no-equal-share",
    /// The per-unit share may be 0 (no floor of 1).
    ShareWithoutFloor = "share-without-floor",
    /// The newest dead containers are removed first.
    NewestRemovedFirst = "newest-removed-first",
    /// Dead containers are ordered by restart attempt before creation time (PR #91906).
    SortByAttempt = "sort-by-attempt",
    /// Containers in unknown state are removed without being stopped first.
    UnknownNotStopped = "unknown-not-stopped",
    /// A container whose removal failed still counts against the limits.
    FailedRemovalsCounted = "failed-removals-counted",
    /// Containers of deleted pods are removed even before all config sources are ready.
    DeletedPodsIgnoreSourcesReady = "deleted-pods-ignore-sources-ready",
    /// Containers of deleted pods are only subject to the ordinary limits.
    DeletedPodsKept = "deleted-pods-kept",
    /// Terminated (not deleted) pods are not fully cleaned on the eviction path.
    TerminatedPodsIgnored = "terminated-pods-ignored",
    /// Pods unknown to the pod workers are never removable.
    UnknownPodsKept = "unknown-pods-kept",
    /// Pods unknown to the pod workers are removable before the workers first synced.
    UnknownPodsRemovedBeforeSync = "unknown-pods-removed-before-sync",
    /// Container GC stops at the first failing step.
    ContainerGcStopsAtFirstError = "container-gc-stops-at-first-error",
    /// `ContainerGCFailed` is only emitted for repeated failures.
    ContainerGcFailedOnlyOnRepeat = "container-gc-failed-only-on-repeat",
    // Sandbox and log GC.
    /// The newest sandbox of a live pod is not kept.
    NewestSandboxRemoved = "newest-sandbox-removed",
    /// Ready sandboxes count as inactive.
    ReadySandboxesRemoved = "ready-sandboxes-removed",
    /// Sandboxes holding containers count as inactive.
    SandboxContainersIgnored = "sandbox-containers-ignored",
    /// Every sandbox that is not ready goes (containers and the newest-kept rule ignored).
    NotReadySandboxesRemoved = "not-ready-sandboxes-removed",
    /// Pod log directories are removed before all config sources are ready.
    LogDirsIgnoreSourcesReady = "log-dirs-ignore-sources-ready",
    /// The pod UID of a log directory is its first `_` field, not its last.
    LogDirUidFirstField = "log-dir-uid-first-field",
    /// Dangling container log symlinks wait for all config sources too.
    SymlinksNeedSourcesReady = "symlinks-need-sources-ready",
    /// Container IDs of any length are read from legacy symlink names.
    ShortSymlinkIdsRead = "short-symlink-ids-read",
    /// Removing a container leaves its legacy log symlink behind.
    SymlinkKeptWithContainer = "symlink-kept-with-container",
    // Eviction.
    /// After reclaiming, success is judged without the minimum reclaim.
    MinReclaimIgnored = "min-reclaim-ignored",
    /// Node conditions drop as soon as the signal recovers (no transition period).
    NoTransitionPeriod = "no-transition-period",
    /// Hard-threshold evictions get the maximum pod grace period instead of 1 second.
    HardEvictionGraceful = "hard-eviction-graceful",
    /// Evicting goes ahead without re-reading stats after node-level reclaim.
    NoRecheckAfterReclaim = "no-recheck-after-reclaim",
    /// With split image and container filesystems, every disk signal runs both reclaims.
    SplitReclaimsBoth = "split-reclaims-both",
    /// With a dedicated image filesystem, node filesystem pressure also reclaims.
    DedicatedNodefsReclaims = "dedicated-nodefs-reclaims",
    /// Node-level reclaim deletes images before containers (so dead containers still pin theirs).
    ImagesReclaimedFirst = "images-reclaimed-first",
    /// Default eviction thresholds are merged in even without mergeDefaultEvictionSettings.
    DefaultsAlwaysMerged = "defaults-always-merged",
    /// The default hard thresholds lack `imagefs.inodesFree<5%` (as before v1.37).
    DefaultsWithoutImageFsInodes = "defaults-without-imagefs-inodes",
    /// Pods are ranked for eviction by disk usage alone, ignoring priority.
    RankByUsageOnly = "rank-by-usage-only",
    /// Pods' writable layers count in every ranking, whatever the signal and layout.
    WritableLayerAlwaysRanked = "writable-layer-always-ranked",
    /// A pass acts on stats no newer than the last pass's.
    StaleStatsActedOn = "stale-stats-acted-on",
    /// Percentage thresholds are taken in double precision (38% of 1000 bytes is 380 bytes).
    PercentagesInDoublePrecision = "percentages-in-double-precision",
}

/// A decision of the model that a kubelet mutant may change.
pub use crate::mutants::Mutable;
