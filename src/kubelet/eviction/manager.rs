//! The eviction manager's synchronize pass, reduced to disk pressure: observe the filesystems,
//! find the thresholds met (and those met before whose minimum reclaim is not yet satisfied),
//! hold node conditions for the transition period, apply grace periods, then reclaim at node
//! level with the signal's reclaim functions and, only if fresh stats still meet a threshold
//! with its minimum reclaim, evict one pod — a hard threshold with a 1-second grace period.
//! (Local-storage-limit evictions and memory/PID observations are not modelled.)

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};

use crate::kubelet::config::KubeletConfiguration;
use crate::kubelet::containers::ContainerGc;
use crate::kubelet::disks::{DiskLayout, FsRole};
use crate::kubelet::events::{EVICTED, EVICTION_THRESHOLD_MET, Event, EventType};
use crate::kubelet::eviction::reclaim::{ReclaimFn, reclaim_functions};
use crate::kubelet::eviction::thresholds::{PercentPrecision, Signal, Threshold, effective_eviction_hard, parse_threshold};
use crate::kubelet::images::ImageGcManager;
use crate::kubelet::mutant::{Mutable, Mutant};
use crate::kubelet::node::Node;
use crate::kubelet::pods::PodState;
use crate::kubelet::quantity::format_quantity;
use crate::kubelet::time::sub;

/// The grace period of evictions for hard thresholds (`immediateEvictionGracePeriodSeconds`).
pub const IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS: i64 = 1;

/// The eviction manager's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct EvictionConfig {
    /// Thresholds, in configuration order.
    pub thresholds: Vec<Threshold>,
    /// `evictionPressureTransitionPeriod`.
    pub pressure_transition_period: TimeDelta,
    /// `evictionMaxPodGracePeriod`: the grace period of soft-threshold evictions.
    pub max_pod_grace_period_seconds: i64,
}

impl EvictionConfig {
    /// The eviction configuration of a kubelet configuration (hard thresholds only), on a
    /// kubelet running with `active`.
    pub fn from_kubelet(config: &KubeletConfiguration, active: Option<Mutant>) -> Result<Self, String> {
        let hard = effective_eviction_hard(config.eviction_hard.as_ref(), config.merge_default_eviction_settings, active);
        let thresholds = hard.iter().map(|(signal, value)| parse_threshold(&format!("{signal}<{value}"))).collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            thresholds,
            pressure_transition_period: config.eviction_pressure_transition_period,
            max_pod_grace_period_seconds: config.eviction_max_pod_grace_period,
        })
    }
}

/// A pod the eviction manager may evict, with its disk usage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodUsage {
    /// Pod name (also its UID in the model).
    pub name: String,
    /// Priority (lower goes first).
    pub priority: i32,
    /// Bytes it uses on the pressured filesystem (root, logs, local volumes).
    pub disk_usage: i64,
    /// Its ephemeral-storage request.
    pub ephemeral_storage_request: i64,
}

/// One eviction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eviction {
    /// The evicted pod.
    pub pod: String,
    /// The grace period it was given.
    pub grace_period_override: i64,
    /// The eviction message.
    pub message: String,
}

/// What one synchronize pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyncOutcome {
    /// The reclaim functions it ran, in order.
    pub reclaimed_with: Vec<ReclaimFn>,
    /// The pod it evicted, if any.
    pub evicted: Option<Eviction>,
}

/// The node conditions a pass reports: each from when its signal meets a threshold until the
/// pressure transition period has passed since it last did, so that they do not flap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeConditions {
    /// The conditions of the thresholds met now.
    pub observed: Vec<&'static str>,
    /// The conditions reported.
    pub reported: Vec<&'static str>,
}

/// The grace period an eviction gives its pod: 1 second for a hard threshold,
/// evictionMaxPodGracePeriod for a soft one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grace {
    /// evictionMaxPodGracePeriod (seconds).
    pub max_pod_grace_period_seconds: i64,
    /// The grace period given (seconds).
    pub seconds: i64,
}

impl Grace {
    /// The grace period of an eviction for a hard (or soft) threshold.
    pub fn of(hard: bool, max_pod_grace_period_seconds: i64) -> Self {
        let seconds = if hard { IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS } else { max_pod_grace_period_seconds };
        Self { max_pod_grace_period_seconds, seconds }
    }
}

/// How the eviction manager judges node-level reclaim: it re-reads the stats, and reclaim was
/// enough when no threshold is met with its minimum reclaim added. Each field, when unset,
/// departs from that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReclaimCheck {
    /// Re-read the stats (without, reclaim never counts as enough).
    pub recheck: bool,
    /// Add each threshold's minimum reclaim.
    pub with_min_reclaim: bool,
}

impl Default for ReclaimCheck {
    fn default() -> Self {
        Self { recheck: true, with_min_reclaim: true }
    }
}

/// Pods in eviction order, and the pods they were ranked from (in the order given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranking {
    /// The pods as given.
    pub pods: Vec<PodUsage>,
    /// The pods in eviction order.
    pub ranked: Vec<PodUsage>,
}

impl Ranking {
    /// The ranking of `pods` ([`rank`]).
    pub fn of(pods: &[PodUsage]) -> Self {
        Self { pods: pods.to_vec(), ranked: rank(pods) }
    }
}

/// Whether a pod's disk usage — its containers' writable layers — counts when pods are ranked
/// for a signal on a layout (`buildSignalToRankFunc`, `containerUsage`): not for node
/// filesystem pressure beside a dedicated image filesystem, where only logs and local volumes
/// count, nor for image filesystem pressure when it is split from the container filesystem,
/// where only images count, which no pod's stats carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WritableLayerRanked {
    /// The disk layout.
    pub layout: DiskLayout,
    /// The signal pods are ranked for.
    pub signal: Signal,
    /// Whether the writable layers count.
    pub counts: bool,
}

impl WritableLayerRanked {
    /// The decision for `signal` on `layout`.
    pub fn of(layout: DiskLayout, signal: Signal) -> Self {
        let counts = !matches!(
            (layout, signal),
            (DiskLayout::DedicatedImageFs, Signal::NodeFsAvailable | Signal::NodeFsInodesFree)
                | (DiskLayout::SplitImageFs, Signal::ImageFsAvailable | Signal::ImageFsInodesFree)
        );
        Self { layout, signal, counts }
    }
}

/// Whether a pass's stats are newer than the last pass's: a pass on stale stats keeps its
/// node conditions but neither reclaims nor evicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreshStats {
    /// Whether they are.
    pub fresh: bool,
}

/// The eviction manager.
#[derive(Clone, Debug)]
pub struct EvictionManager {
    /// Configuration, with the container filesystem's thresholds synthesised.
    config: EvictionConfig,
    /// The disk layout (fixed at start).
    layout: DiskLayout,
    /// Thresholds met at the last pass (after grace periods).
    thresholds_met: Vec<Threshold>,
    /// When each currently met threshold was first observed.
    first_observed_at: Vec<(Threshold, DateTime<Utc>)>,
    /// When each node condition was last observed.
    conditions_last_observed_at: BTreeMap<&'static str, DateTime<Utc>>,
    /// Node conditions reported after the last pass.
    node_conditions: Vec<&'static str>,
    /// When the stats of the last pass were taken (the clock: the model's stats are always
    /// current).
    last_observed_at: Option<DateTime<Utc>>,
    /// Pods it may evict.
    pub active_pods: Vec<PodUsage>,
    /// Evictions so far.
    pub evictions: Vec<Eviction>,
}

impl EvictionManager {
    /// Starts the manager for `node`'s layout: thresholds for the container filesystem are
    /// synthesised from the node filesystem's (single or split layout) or the image
    /// filesystem's (dedicated), replacing any configured ones.
    pub fn new(config: EvictionConfig, node: &Node) -> Result<Self, String> {
        let layout = node.disks.layout;
        if layout == DiskLayout::SplitImageFs && !node.gates.kubelet_separate_disk_gc {
            return Err("KubeletSeparateDiskGC is turned off but we still have a split filesystem".into());
        }
        let mut config = config;
        config.thresholds.retain(|t| !matches!(t.signal, Signal::ContainerFsAvailable | Signal::ContainerFsInodesFree));
        let synthesised: Vec<Threshold> = config
            .thresholds
            .iter()
            .filter_map(|t| {
                let signal = match (layout, t.signal) {
                    (DiskLayout::DedicatedImageFs, Signal::ImageFsAvailable)
                    | (DiskLayout::Single | DiskLayout::SplitImageFs, Signal::NodeFsAvailable) => Signal::ContainerFsAvailable,
                    (DiskLayout::DedicatedImageFs, Signal::ImageFsInodesFree)
                    | (DiskLayout::Single | DiskLayout::SplitImageFs, Signal::NodeFsInodesFree) => Signal::ContainerFsInodesFree,
                    _ => return None,
                };
                Some(Threshold { signal, ..t.clone() })
            })
            .collect();
        config.thresholds.extend(synthesised);
        Ok(Self {
            config,
            layout,
            thresholds_met: Vec::new(),
            first_observed_at: Vec::new(),
            conditions_last_observed_at: BTreeMap::new(),
            node_conditions: Vec::new(),
            last_observed_at: None,
            active_pods: Vec::new(),
            evictions: Vec::new(),
        })
    }

    /// The thresholds it watches.
    pub fn thresholds(&self) -> &[Threshold] {
        &self.config.thresholds
    }

    /// Whether the node reports DiskPressure.
    pub fn is_under_disk_pressure(&self) -> bool {
        self.node_conditions.contains(&"DiskPressure")
    }

    /// One synchronize pass.
    pub fn synchronize(&mut self, node: &mut Node, images: &mut ImageGcManager, containers: &ContainerGc) -> SyncOutcome {
        let now = node.now();
        let observations = observe(node);
        let mut thresholds: Vec<Threshold> =
            self.config.thresholds.iter().filter(|t| met(t, &observations, false, node.mutant)).cloned().collect();
        for t in &self.thresholds_met {
            if met(t, &observations, true, node.mutant) && !thresholds.contains(t) {
                thresholds.push(t.clone());
            }
        }
        let first_observed: Vec<(Threshold, DateTime<Utc>)> = thresholds
            .iter()
            .map(|t| (t.clone(), self.first_observed_at.iter().find(|(seen, _)| seen == t).map_or(now, |(_, at)| *at)))
            .collect();
        for t in &thresholds {
            self.conditions_last_observed_at.insert(t.signal.node_condition(), now);
        }
        let mut observed: Vec<&'static str> = thresholds.iter().map(|t| t.signal.node_condition()).collect();
        observed.dedup();
        let period = self.config.pressure_transition_period;
        let reported = self.conditions_last_observed_at.iter().filter(|(_, at)| sub(now, **at) < period).map(|(c, _)| *c).collect();
        self.node_conditions = NodeConditions { observed, reported }.mutated(node.mutant).reported;
        let mut thresholds: Vec<Threshold> =
            first_observed.iter().filter(|(t, at)| sub(now, *at) >= t.grace_period).map(|(t, _)| t.clone()).collect();
        self.first_observed_at = first_observed;
        self.thresholds_met = thresholds.clone();
        // Only thresholds whose stats are newer than the last pass's drive reclaim and eviction
        // (`thresholdsUpdatedStats`).
        let fresh = FreshStats { fresh: self.last_observed_at.is_none_or(|last| now > last) }.mutated(node.mutant).fresh;
        self.last_observed_at = Some(now);
        if !fresh {
            thresholds.clear();
        }
        let mut outcome = SyncOutcome::default();
        if thresholds.is_empty() {
            return outcome;
        }
        thresholds.sort_by_key(|t| t.signal != Signal::MemoryAvailable);
        let chosen = thresholds[0].clone();
        let resource = chosen.signal.resource();
        node.warn(EVICTION_THRESHOLD_MET, format!("Attempting to reclaim {resource}"));
        if self.reclaim_node_level_resources(node, chosen.signal, images, containers, &mut outcome) {
            return outcome;
        }
        let counted = WritableLayerRanked::of(self.layout, chosen.signal).mutated(node.mutant).counts;
        let pods: Vec<PodUsage> =
            self.active_pods.iter().map(|p| PodUsage { disk_usage: if counted { p.disk_usage } else { 0 }, ..p.clone() }).collect();
        let Some(victim) = Ranking::of(&pods).mutated(node.mutant).ranked.into_iter().next() else {
            return outcome;
        };
        let hard = chosen.grace_period == TimeDelta::zero();
        let grace = Grace::of(hard, self.config.max_pod_grace_period_seconds).mutated(node.mutant).seconds;
        // `evictionMessage`: the first threshold met for the resource, and what was observed.
        let mut message = format!("The node was low on resource: {resource}. ");
        if let Some(t) = thresholds.iter().find(|t| t.signal.resource() == resource)
            && let Some((available, capacity)) = observations.get(&t.signal)
        {
            message += &format!("Threshold quantity: {}, available: {}. ", t.value.shown(*capacity), format_quantity(*available, true));
        }
        node.pods.states.insert(victim.name.clone(), PodState::Evicted);
        node.events.push(Event {
            event_type: EventType::Warning,
            reason: EVICTED.into(),
            message: message.clone(),
            object: format!("Pod/{}", victim.name),
        });
        self.active_pods.retain(|p| p.name != victim.name);
        let eviction = Eviction { pod: victim.name, grace_period_override: grace, message };
        self.evictions.push(eviction.clone());
        outcome.evicted = Some(eviction);
        outcome
    }

    /// Runs the signal's reclaim functions; true when fresh stats then meet no threshold with
    /// its minimum reclaim (no eviction needed).
    fn reclaim_node_level_resources(
        &self,
        node: &mut Node,
        signal: Signal,
        images: &mut ImageGcManager,
        containers: &ContainerGc,
        outcome: &mut SyncOutcome,
    ) -> bool {
        let functions = reclaim_functions(self.layout, signal, node.mutant);
        for f in &functions {
            let _ = match f {
                ReclaimFn::DeleteAllUnusedContainers => containers.delete_all_unused_containers(node),
                ReclaimFn::DeleteUnusedImages => images.delete_unused_images(node).map_err(|e| e.to_string()),
            };
            outcome.reclaimed_with.push(*f);
        }
        let check = ReclaimCheck::default().mutated(node.mutant);
        if functions.is_empty() || !check.recheck {
            return false;
        }
        let observations = observe(node);
        !self.config.thresholds.iter().any(|t| met(t, &observations, check.with_min_reclaim, node.mutant))
    }
}

/// Available bytes and capacity of each observed signal.
fn observe(node: &Node) -> BTreeMap<Signal, (i64, i64)> {
    let of = |role| {
        let fs = node.disks.fs(role);
        (fs.available, fs.capacity.unwrap_or(0))
    };
    BTreeMap::from([
        (Signal::NodeFsAvailable, of(FsRole::Node)),
        (Signal::ImageFsAvailable, of(FsRole::Image)),
        (Signal::ContainerFsAvailable, of(FsRole::Container)),
    ])
}

/// Whether `t` is met: the signal is below its value (plus the minimum reclaim when enforced).
/// An unobserved signal is never met.
fn met(t: &Threshold, observations: &BTreeMap<Signal, (i64, i64)>, enforce_min_reclaim: bool, active: Option<Mutant>) -> bool {
    let Some((available, capacity)) = observations.get(&t.signal) else {
        return false;
    };
    let precision = PercentPrecision::Single.mutated(active);
    let mut quantity = t.value.quantity_in(*capacity, precision);
    if enforce_min_reclaim && let Some(min) = t.min_reclaim {
        quantity = quantity.saturating_add(min.quantity_in(*capacity, precision));
    }
    *available < quantity
}

/// Pods in eviction order under disk pressure: those using more than they requested first,
/// then lower priority, then larger usage beyond the request.
pub fn rank(pods: &[PodUsage]) -> Vec<PodUsage> {
    let mut ranked = pods.to_vec();
    ranked.sort_by_key(|p| {
        (
            p.disk_usage <= p.ephemeral_storage_request,
            p.priority,
            std::cmp::Reverse(p.disk_usage.saturating_sub(p.ephemeral_storage_request)),
        )
    });
    ranked
}
