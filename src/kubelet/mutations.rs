//! What each kubelet mutant ([`crate::kubelet::mutant`]) makes of the decision of the rule it
//! breaks: the model's decisions implement [`Mutable`] here, away from the rules, which need only
//! the seam; no rule imports this module.

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
use crate::kubelet::mutant::{Mutable, Mutant};
use crate::kubelet::node::GateLock;
use crate::kubelet::pods::UnknownPods;

// Image detection.

impl Mutable<Mutant> for Keying {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::RuntimeHandlerIgnored) => Keying { by_handler: false },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for InUse {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::InUseRunningOnly) => InUse { by_not_running: Default::default(), ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Detection {
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

impl Mutable<Mutant> for Pinned {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::PinnedCollected) => Pinned(Default::default()),
            _ => self,
        }
    }
}

/// The candidates in eviction order. The mutants re-sort them stably, so that what they leave
/// tied keeps the reference order (which is record-key order among full ties).
impl Mutable<Mutant> for Vec<EvictionInfo> {
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

impl Mutable<Mutant> for SpaceVerdict {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::RecentlyUsedNotSkipped) => SpaceVerdict { recently_used: false, ..self },
            Some(Mutant::MinAgeIgnored) => SpaceVerdict { too_young: false, ..self },
            Some(Mutant::MinAgeExclusive) => SpaceVerdict { too_young: self.since_detected <= self.min_age, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for FreeSpaceWalk {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::StopCheckBeforeDelete) => FreeSpaceWalk { check_before_deleting: true, ..self },
            Some(Mutant::DeletionErrorsStop) => FreeSpaceWalk { stop_at_first_error: true, ..self },
            Some(Mutant::FreedMeasuredOnDisk) => FreeSpaceWalk { count_released_bytes: true, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for ThresholdCheck {
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

impl Mutable<Mutant> for StatsTiming {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::StatsBeforeAgeGc) => StatsTiming::BeforeAgeGc,
            _ => self,
        }
    }
}

/// Failure events: whether each is recorded.
impl Mutable<Mutant> for FailureEvent {
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

impl Mutable<Mutant> for AgeGcDue {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::MaxAgeZeroNotDisabled) => AgeGcDue { enabled: true, ..self },
            Some(Mutant::MaxAgeNoStartupWait) => AgeGcDue { waited: true, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for AgeVerdict {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::MaxAgeInclusive) => AgeVerdict { delete: self.unused_for >= self.max_age, ..self },
            Some(Mutant::MaxAgeHonoursMinAge) => AgeVerdict { delete: self.delete && self.since_detected >= self.min_age, ..self },
            _ => self,
        }
    }
}

// Policy and configuration validation.

impl Mutable<Mutant> for PolicyCheck {
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

impl Mutable<Mutant> for ConfigCheck {
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

impl Mutable<Mutant> for Defaulting {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::MinAgeNotDefaulted) && self.min_age_defaulted {
            self.config.image_minimum_gc_age = TimeDelta::zero();
            self.min_age_defaulted = false;
        }
        self
    }
}

// The kubelet's loops.

impl Mutable<Mutant> for ImageGcLoop {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::High100DisablesImageGc) => ImageGcLoop { started: !self.high_is_100, ..self },
            Some(Mutant::ImageGcLoopAlwaysStarted) => ImageGcLoop { started: true, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Schedule {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::LoopsStartLate) => Schedule { first_runs_wait: true, ..self },
            Some(Mutant::DetectionEveryMinute) => Schedule { detection: CONTAINER_GC_PERIOD, ..self },
            _ => self,
        }
    }
}

// Container GC.

impl Mutable<Mutant> for Option<NegativeMinAge> {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NegativeContainerMinAgeAccepted) => None,
            _ => self,
        }
    }
}

/// The limits as container GC enforces them.
impl Mutable<Mutant> for ContainerGcPolicy {
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

impl Mutable<Mutant> for Candidate {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::RunningCollected) => Candidate { running: false, ..self },
            Some(Mutant::ContainerMinAgeFromExit) => Candidate { age_from: self.finished.unwrap_or(self.age_from), ..self },
            Some(Mutant::UnknownNotStopped) => Candidate { stop_first: false, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for EqualShare {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NoEqualShare) => EqualShare { share: None, ..self },
            Some(Mutant::ShareWithoutFloor) => EqualShare { share: Some(self.part), ..self },
            _ => self,
        }
    }
}

/// The mutants re-sort stably, so that what they leave tied keeps the reference order.
impl Mutable<Mutant> for NewestFirst {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NewestRemovedFirst) => self.0.sort_by_key(|c| c.created),
            Some(Mutant::SortByAttempt) => self.0.sort_by_key(|c| (Reverse(c.attempt), Reverse(c.created))),
            _ => {}
        }
        self
    }
}

impl Mutable<Mutant> for Remaining {
    fn mutated(mut self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::FailedRemovalsCounted) {
            self.counted.append(&mut self.failed);
        }
        self
    }
}

impl Mutable<Mutant> for PodRemoval {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::DeletedPodsKept) => PodRemoval { content: false, ..self },
            Some(Mutant::TerminatedPodsIgnored) => PodRemoval { runtime: false, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for UnknownPods {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::UnknownPodsKept) => UnknownPods { removable: false },
            Some(Mutant::UnknownPodsRemovedBeforeSync) => UnknownPods { removable: true },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for SourcesGate {
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

impl Mutable<Mutant> for OnStepError {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::ContainerGcStopsAtFirstError) => OnStepError::Stop,
            _ => self,
        }
    }
}

// Sandbox and log GC.

impl Mutable<Mutant> for Activity {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::ReadySandboxesRemoved) => Activity { ready: false, ..self },
            Some(Mutant::SandboxContainersIgnored | Mutant::NotReadySandboxesRemoved) => Activity { holds_containers: false, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for KeepNewest {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NewestSandboxRemoved | Mutant::NotReadySandboxesRemoved) => KeepNewest(false),
            _ => self,
        }
    }
}

impl Mutable<Mutant> for LogDirPod<'_> {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::LogDirUidFirstField) => LogDirPod { uid: self.dir.split('_').next().unwrap_or_default(), ..self },
            _ => self,
        }
    }
}

// Eviction.

impl Mutable<Mutant> for ReclaimCheck {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NoRecheckAfterReclaim) => ReclaimCheck { recheck: false, ..self },
            Some(Mutant::MinReclaimIgnored) => ReclaimCheck { with_min_reclaim: false, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for NodeConditions {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NoTransitionPeriod) => NodeConditions { reported: self.observed.clone(), ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Grace {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::HardEvictionGraceful) => Grace { seconds: self.max_pod_grace_period_seconds, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for SymlinkIdLength {
    /// Any non-empty ID is read.
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::ShortSymlinkIdsRead) { SymlinkIdLength(1) } else { self }
    }
}

impl Mutable<Mutant> for SymlinkGoesWithContainer {
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::SymlinkKeptWithContainer) { SymlinkGoesWithContainer(false) } else { self }
    }
}

impl Mutable<Mutant> for GateLock {
    /// Every gate can be changed.
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::LockedGatesChangeable) { GateLock(false) } else { self }
    }
}

impl Mutable<Mutant> for Reclaim {
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

impl Mutable<Mutant> for EvictionHard {
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
impl Mutable<Mutant> for Ranking {
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

impl Mutable<Mutant> for PercentPrecision {
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::PercentagesInDoublePrecision) { PercentPrecision::Double } else { self }
    }
}

impl Mutable<Mutant> for FreshStats {
    fn mutated(self, active: Option<Mutant>) -> Self {
        if active == Some(Mutant::StaleStatsActedOn) { FreshStats { fresh: true } } else { self }
    }
}

impl Mutable<Mutant> for WritableLayerRanked {
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
