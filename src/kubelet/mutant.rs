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
//! whose default is the reference behaviour, and that value is the decision. The
//! implementations below say what each mutant makes of the decision of the rule it breaks.

use std::cmp::Reverse;

use chrono::TimeDelta;

use crate::kubelet::config::{ConfigCheck, ConfigError, Defaulting};
use crate::kubelet::containers::dead::{Candidate, EqualShare, NewestFirst, Remaining};
use crate::kubelet::containers::logs::LogDirPod;
use crate::kubelet::containers::policy::NegativeMinAge;
use crate::kubelet::containers::sandboxes::{Activity, KeepNewest};
use crate::kubelet::containers::{ContainerGcPolicy, GatedStep, OnStepError, PodRemoval, SourcesGate};
use crate::kubelet::disks::DiskLayout;
use crate::kubelet::events::{CONTAINER_GC_FAILED, FREE_DISK_SPACE_FAILED, FailureEvent, IMAGE_GC_FAILED};
use crate::kubelet::eviction::manager::{FreshStats, Grace, NodeConditions, Ranking, ReclaimCheck, WritableLayerRanked};
use crate::kubelet::eviction::reclaim::{Reclaim, ReclaimFn, SignalFs};
use crate::kubelet::eviction::thresholds::{EvictionHard, PercentPrecision};
use crate::kubelet::images::manager::{AgeGcDue, AgeVerdict, FreeSpaceWalk, SpaceVerdict, StatsTiming};
use crate::kubelet::images::order::{EvictionInfo, Pinned};
use crate::kubelet::images::policy::{PolicyCheck, PolicyError};
use crate::kubelet::images::records::{Detection, InUse, Keying};
use crate::kubelet::images::threshold::{SpaceGc, ThresholdCheck, amount_to_free, saturate};
use crate::kubelet::logs::{SymlinkGoesWithContainer, SymlinkIdLength};
use crate::kubelet::loops::{CONTAINER_GC_PERIOD, ImageGcLoop, Schedule};
use crate::kubelet::node::GateLock;
use crate::kubelet::pods::UnknownPods;

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

/// A decision of the reference rules that a mutant may change.
pub trait Mutable {
    /// The decision as the `active` mutant makes it; no mutant, or a mutant of another rule,
    /// leaves it as it is.
    fn mutated(self, active: Option<Mutant>) -> Self;
}

// Image detection.

impl Mutable for Keying {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::RuntimeHandlerIgnored) => Keying { by_handler: false },
            _ => self,
        }
    }
}

impl Mutable for InUse {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::InUseRunningOnly) => InUse { by_not_running: Default::default(), ..self },
            _ => self,
        }
    }
}

impl Mutable for Detection {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::LastUsedIsDetectTime) => {
                for key in &self.in_use {
                    if let Some(record) = self.records.get_mut(key) {
                        record.last_used = self.detect_time;
                    }
                }
            }
            Some(Mutant::FirstDetectedRefreshed) => {
                for record in self.records.values_mut() {
                    record.first_detected = self.detect_time;
                }
            }
            Some(Mutant::StaleRecordsKept) => self.records.append(&mut self.forgotten),
            Some(Mutant::FirstDuplicateWins) => {
                // Last to first, so that the first entry of each key is the one that stays.
                for (key, image) in self.listed.iter().rev() {
                    if let Some(record) = self.records.get_mut(key) {
                        record.size = image.size;
                        record.pinned = image.pinned;
                    }
                }
            }
            _ => {}
        }
        self
    }
}

// Image eviction order and space-based GC.

impl Mutable for Pinned {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::PinnedCollected) => Pinned(Default::default()),
            _ => self,
        }
    }
}

/// The candidates in eviction order. The mutants re-sort them stably, so that what they leave
/// tied keeps the reference order (which is record-key order among full ties).
impl Mutable for Vec<EvictionInfo> {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::LruReversed) => {
                self.sort_by(|a, b| b.record.last_used.cmp(&a.record.last_used).then(a.record.first_detected.cmp(&b.record.first_detected)))
            }
            Some(Mutant::TieBreakReversed) => {
                self.sort_by(|a, b| a.record.last_used.cmp(&b.record.last_used).then(b.record.first_detected.cmp(&a.record.first_detected)))
            }
            _ => {}
        }
        self
    }
}

impl Mutable for SpaceVerdict {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::RecentlyUsedNotSkipped) => SpaceVerdict { recently_used: false, ..self },
            Some(Mutant::MinAgeIgnored) => SpaceVerdict { too_young: false, ..self },
            Some(Mutant::MinAgeExclusive) => SpaceVerdict { too_young: self.since_detected <= self.min_age, ..self },
            _ => self,
        }
    }
}

impl Mutable for FreeSpaceWalk {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::StopCheckBeforeDelete) => FreeSpaceWalk { check_before_deleting: true, ..self },
            Some(Mutant::DeletionErrorsStop) => FreeSpaceWalk { stop_at_first_error: true, ..self },
            Some(Mutant::FreedMeasuredOnDisk) => FreeSpaceWalk { count_released_bytes: true, ..self },
            _ => self,
        }
    }
}

impl Mutable for ThresholdCheck {
    fn mutated(self, active: Option<Mutant>) -> Self {
        let ThresholdCheck { capacity, reported_available, available, low, high, action } = self;
        match (active, action) {
            (Some(Mutant::AvailableNotClamped), _) => ThresholdCheck {
                available: reported_available,
                action: ThresholdCheck::action(capacity, reported_available, low, high),
                ..self
            },
            (Some(Mutant::CapacityUnchecked), SpaceGc::InvalidCapacity) => ThresholdCheck { action: SpaceGc::NotNeeded, ..self },
            (Some(Mutant::UsageNotTruncated), SpaceGc::NotNeeded | SpaceGc::Free(_)) => {
                // The true percentage rounded down.
                let (c, a) = (i128::from(capacity.max(1)), i128::from(available));
                let usage = saturate((c - a) * 100 / c);
                let action = if usage >= high { SpaceGc::Free(amount_to_free(capacity, available, low)) } else { SpaceGc::NotNeeded };
                ThresholdCheck { action, ..self }
            }
            (Some(Mutant::FreeToHighThreshold), SpaceGc::Free(_)) => {
                ThresholdCheck { action: SpaceGc::Free(amount_to_free(capacity, available, high)), ..self }
            }
            (Some(Mutant::SpaceGcAlwaysRuns), SpaceGc::NotNeeded) => {
                ThresholdCheck { action: SpaceGc::Free(amount_to_free(capacity, available, low)), ..self }
            }
            _ => self,
        }
    }
}

impl Mutable for StatsTiming {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::StatsBeforeAgeGc) => StatsTiming::BeforeAgeGc,
            _ => self,
        }
    }
}

/// Failure events: whether each is recorded.
impl Mutable for FailureEvent {
    fn mutated(self, active: Option<Mutant>) -> Self {
        let recorded = match (active, self.reason) {
            (Some(Mutant::FreeDiskSpaceFailedSilent), FREE_DISK_SPACE_FAILED) => false,
            (Some(Mutant::ImageGcFailedOnFirstFailure), IMAGE_GC_FAILED) => true,
            (Some(Mutant::ContainerGcFailedOnlyOnRepeat), CONTAINER_GC_FAILED) => false,
            _ => self.recorded,
        };
        FailureEvent { recorded, ..self }
    }
}

// Age-based image GC.

impl Mutable for AgeGcDue {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::MaxAgeZeroNotDisabled) => AgeGcDue { enabled: true, ..self },
            Some(Mutant::MaxAgeNoStartupWait) => AgeGcDue { waited: true, ..self },
            _ => self,
        }
    }
}

impl Mutable for AgeVerdict {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::MaxAgeInclusive) => AgeVerdict { delete: self.unused_for >= self.max_age, ..self },
            Some(Mutant::MaxAgeHonoursMinAge) => AgeVerdict { delete: self.delete && self.since_detected >= self.min_age, ..self },
            _ => self,
        }
    }
}

// Policy and configuration validation.

impl Mutable for PolicyCheck {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        let order = PolicyError::LowAboveHigh { low: self.low, high: self.high };
        match active {
            Some(Mutant::ConstructorRangeUnchecked) => {
                self.failed.retain(|e| !matches!(e, PolicyError::HighOutOfRange(_) | PolicyError::LowOutOfRange(_)));
            }
            // The order check is the last one, so its error goes last.
            Some(Mutant::ThresholdOrderSwapped) => {
                self.failed.retain(|e| *e != order);
                if self.high > self.low {
                    self.failed.push(order);
                }
            }
            Some(Mutant::ConstructorRejectsEqual) if self.low == self.high => self.failed.push(order),
            _ => {}
        }
        self
    }
}

impl Mutable for ConfigCheck {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        let order = ConfigError::LowNotBelowHigh { low: self.low, high: self.high };
        match active {
            Some(Mutant::ConfigRangeUnchecked) => {
                self.failed.retain(|e| !matches!(e, ConfigError::HighOutOfRange(_) | ConfigError::LowOutOfRange(_)));
            }
            Some(Mutant::ConfigAgesUnchecked) => self.failed.retain(|e| {
                !matches!(
                    e,
                    ConfigError::NegativeMinAge(_)
                        | ConfigError::MaxAgeWithoutGate
                        | ConfigError::NegativeMaxAge(_)
                        | ConfigError::MaxAgeNotAboveMinAge { .. }
                )
            }),
            // Sorting puts the order check's error back among the others in checking order.
            Some(Mutant::ThresholdOrderSwapped) => {
                self.failed.retain(|e| *e != order);
                if self.high >= self.low {
                    self.failed.push(order);
                    self.failed.sort();
                }
            }
            Some(Mutant::ConfigAllowsEqual) if self.low == self.high => self.failed.retain(|e| *e != order),
            _ => {}
        }
        self
    }
}

impl Mutable for Defaulting {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::MinAgeNotDefaulted) && self.min_age_defaulted {
            self.config.image_minimum_gc_age = TimeDelta::zero();
            self.min_age_defaulted = false;
        }
        self
    }
}

// The kubelet's loops.

impl Mutable for ImageGcLoop {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::High100DisablesImageGc) => ImageGcLoop { started: !self.high_is_100, ..self },
            Some(Mutant::ImageGcLoopAlwaysStarted) => ImageGcLoop { started: true, ..self },
            _ => self,
        }
    }
}

impl Mutable for Schedule {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::LoopsStartLate) => Schedule { first_runs_wait: true, ..self },
            Some(Mutant::DetectionEveryMinute) => Schedule { detection: CONTAINER_GC_PERIOD, ..self },
            _ => self,
        }
    }
}

// Container GC.

impl Mutable for Option<NegativeMinAge> {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NegativeContainerMinAgeAccepted) => None,
            _ => self,
        }
    }
}

/// The limits as container GC enforces them.
impl Mutable for ContainerGcPolicy {
    fn mutated(self, active: Option<Mutant>) -> Self {
        let none_if_unlimited = |limit: i64| if limit < 0 { 0 } else { limit };
        match active {
            Some(Mutant::ContainerMinAgeIgnored) => ContainerGcPolicy { min_age: TimeDelta::zero(), ..self },
            Some(Mutant::UnlimitedMeansNone) => ContainerGcPolicy {
                max_per_pod_container: none_if_unlimited(self.max_per_pod_container),
                max_containers: none_if_unlimited(self.max_containers),
                ..self
            },
            Some(Mutant::PerPodLimitIgnored) => ContainerGcPolicy { max_per_pod_container: -1, ..self },
            // A unit cannot be trimmed below 0, so a limit of 0 stays 0 rather than turning
            // into "no limit".
            Some(Mutant::PerPodLimitOffByOne) if self.max_per_pod_container >= 0 => {
                ContainerGcPolicy { max_per_pod_container: (self.max_per_pod_container - 1).max(0), ..self }
            }
            Some(Mutant::MaxContainersIgnored) => ContainerGcPolicy { max_containers: -1, ..self },
            _ => self,
        }
    }
}

impl Mutable for Candidate {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::RunningCollected) => Candidate { running: false, ..self },
            Some(Mutant::ContainerMinAgeFromExit) => Candidate { age_from: self.finished.unwrap_or(self.age_from), ..self },
            Some(Mutant::UnknownNotStopped) => Candidate { stop_first: false, ..self },
            _ => self,
        }
    }
}

impl Mutable for EqualShare {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NoEqualShare) => EqualShare { share: None, ..self },
            Some(Mutant::ShareWithoutFloor) => EqualShare { share: Some(self.part), ..self },
            _ => self,
        }
    }
}

/// The mutants re-sort stably, so that what they leave tied keeps the reference order.
impl Mutable for NewestFirst {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NewestRemovedFirst) => self.0.sort_by_key(|c| c.created),
            Some(Mutant::SortByAttempt) => self.0.sort_by_key(|c| (Reverse(c.attempt), Reverse(c.created))),
            _ => {}
        }
        self
    }
}

impl Mutable for Remaining {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::FailedRemovalsCounted) {
            self.counted.append(&mut self.failed);
        }
        self
    }
}

impl Mutable for PodRemoval {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::DeletedPodsKept) => PodRemoval { content: false, ..self },
            Some(Mutant::TerminatedPodsIgnored) => PodRemoval { runtime: false, ..self },
            _ => self,
        }
    }
}

impl Mutable for UnknownPods {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::UnknownPodsKept) => UnknownPods { removable: false },
            Some(Mutant::UnknownPodsRemovedBeforeSync) => UnknownPods { removable: true },
            _ => self,
        }
    }
}

impl Mutable for SourcesGate {
    fn mutated(self, active: Option<Mutant>) -> Self {
        let open = match (active, self.step) {
            (Some(Mutant::DeletedPodsIgnoreSourcesReady), GatedStep::DeletedPodContainers)
            | (Some(Mutant::LogDirsIgnoreSourcesReady), GatedStep::PodLogDirs) => true,
            (Some(Mutant::SymlinksNeedSourcesReady), GatedStep::LogSymlinks) => self.sources_ready,
            _ => self.open,
        };
        SourcesGate { open, ..self }
    }
}

impl Mutable for OnStepError {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::ContainerGcStopsAtFirstError) => OnStepError::Stop,
            _ => self,
        }
    }
}

// Sandbox and log GC.

impl Mutable for Activity {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::ReadySandboxesRemoved) => Activity { ready: false, ..self },
            Some(Mutant::SandboxContainersIgnored | Mutant::NotReadySandboxesRemoved) => Activity { holds_containers: false, ..self },
            _ => self,
        }
    }
}

impl Mutable for KeepNewest {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NewestSandboxRemoved | Mutant::NotReadySandboxesRemoved) => KeepNewest(false),
            _ => self,
        }
    }
}

impl Mutable for LogDirPod<'_> {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::LogDirUidFirstField) => LogDirPod { uid: self.dir.split('_').next().unwrap_or_default(), ..self },
            _ => self,
        }
    }
}

// Eviction.

impl Mutable for ReclaimCheck {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NoRecheckAfterReclaim) => ReclaimCheck { recheck: false, ..self },
            Some(Mutant::MinReclaimIgnored) => ReclaimCheck { with_min_reclaim: false, ..self },
            _ => self,
        }
    }
}

impl Mutable for NodeConditions {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NoTransitionPeriod) => NodeConditions { reported: self.observed.clone(), ..self },
            _ => self,
        }
    }
}

impl Mutable for Grace {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::HardEvictionGraceful) => Grace { seconds: self.max_pod_grace_period_seconds, ..self },
            _ => self,
        }
    }
}

impl Mutable for SymlinkIdLength {
    /// Any non-empty ID is read.
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::ShortSymlinkIdsRead) { SymlinkIdLength(1) } else { self }
    }
}

impl Mutable for SymlinkGoesWithContainer {
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::SymlinkKeptWithContainer) { SymlinkGoesWithContainer(false) } else { self }
    }
}

impl Mutable for GateLock {
    /// Every gate can be changed.
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::LockedGatesChangeable) { GateLock(false) } else { self }
    }
}

impl Mutable for Reclaim {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        use ReclaimFn::{DeleteAllUnusedContainers as Containers, DeleteUnusedImages as Images};
        match (active, self.layout, self.fs) {
            (Some(Mutant::SplitReclaimsBoth), DiskLayout::SplitImageFs, Some(_))
            | (Some(Mutant::DedicatedNodefsReclaims), DiskLayout::DedicatedImageFs, Some(SignalFs::Node)) => {
                self.functions = vec![Containers, Images];
            }
            (Some(Mutant::ImagesReclaimedFirst), ..) => self.functions.reverse(),
            _ => {}
        }
        self
    }
}

impl Mutable for EvictionHard {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::DefaultsWithoutImageFsInodes) => {
                self.defaults.remove("imagefs.inodesFree");
            }
            Some(Mutant::DefaultsAlwaysMerged) => self.merge = true,
            _ => {}
        }
        self
    }
}

/// The victim is the first ranked pod; ranking by usage alone keeps the given order among
/// equal usages.
impl Mutable for Ranking {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::RankByUsageOnly) => {
                let mut ranked = self.pods.clone();
                ranked.sort_by_key(|p| Reverse(p.disk_usage));
                Ranking { ranked, ..self }
            }
            _ => self,
        }
    }
}

impl Mutable for PercentPrecision {
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::PercentagesInDoublePrecision) { PercentPrecision::Double } else { self }
    }
}

impl Mutable for FreshStats {
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::StaleStatsActedOn) { FreshStats { fresh: true } } else { self }
    }
}

impl Mutable for WritableLayerRanked {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::WritableLayerAlwaysRanked) => WritableLayerRanked { counts: true, ..self },
            _ => self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubelet::config::KubeletConfiguration;
    use crate::kubelet::disks::Filesystem;
    use crate::kubelet::node::FeatureGates;

    #[test]
    fn usage_not_truncated_rounds_the_true_percentage_down() {
        let check = ThresholdCheck::of(&Filesystem::new(1000, 151), 80, 85);
        assert_eq!(check.action, SpaceGc::Free(49));
        assert_eq!(check.mutated(None), check);
        assert_eq!(check.mutated(Some(Mutant::UsageNotTruncated)).action, SpaceGc::NotNeeded);
    }

    #[test]
    fn a_swapped_order_check_is_reported_in_checking_order() {
        let config = KubeletConfiguration {
            image_gc_high_threshold_percent: 101,
            image_gc_low_threshold_percent: 50,
            image_minimum_gc_age: TimeDelta::seconds(-1),
            ..KubeletConfiguration::default()
        };
        let failed = config.check(&FeatureGates::default()).mutated(Some(Mutant::ThresholdOrderSwapped)).failed;
        assert!(
            matches!(
                failed.as_slice(),
                [ConfigError::HighOutOfRange(101), ConfigError::LowNotBelowHigh { .. }, ConfigError::NegativeMinAge(_)]
            ),
            "{failed:?}"
        );
    }
}
