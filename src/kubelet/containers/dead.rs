//! Dead containers (`evictContainers`): every container that is not running and was created at
//! least MinAge ago is evictable, grouped in evict units of (pod UID, container name). Deleted
//! pods lose all of theirs (once all config sources are ready); then each unit is trimmed to
//! MaxPerPodContainer; then, if the node still has more than MaxContainers, each unit is trimmed
//! to an equal share (at least 1) and the oldest across the node go until the limit holds.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::kubelet::containers::{ContainerGcPolicy, GatedStep, gate_open, pod_removal};
use crate::kubelet::mutant::Mutable;
use crate::kubelet::node::Node;
use crate::kubelet::runtime::{Container, ContainerState};
use crate::kubelet::time::add;

/// What container GC keeps of a candidate (`containerGCInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadContainer {
    /// Container ID.
    pub id: String,
    /// Creation time.
    pub created: DateTime<Utc>,
    /// Restart attempt (only a historic ordering used it).
    pub attempt: u32,
    /// Stopped before removal (it is in unknown state).
    pub stop_first: bool,
}

/// Evict units: (pod UID, container name) → its evictable containers.
pub type EvictUnits = BTreeMap<(String, String), Vec<DeadContainer>>;

/// What container GC makes of a listed container: a running one is never evictable, MinAge
/// counts from the creation, and one in unknown state is stopped before removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Whether it counts as running.
    pub running: bool,
    /// When its MinAge counts from.
    pub age_from: DateTime<Utc>,
    /// When it exited, if known.
    pub finished: Option<DateTime<Utc>>,
    /// Whether it is stopped before removal.
    pub stop_first: bool,
}

impl Candidate {
    /// What container GC makes of `c`.
    pub fn of(c: &Container) -> Self {
        Self {
            running: c.state == ContainerState::Running,
            age_from: c.created,
            finished: c.finished,
            stop_first: c.state == ContainerState::Unknown,
        }
    }
}

/// The evictable containers of the node, by unit.
pub fn evictable_containers(node: &Node, policy: &ContainerGcPolicy) -> Result<EvictUnits, String> {
    let containers = node.runtime.list_containers()?;
    let newest_gc_time = add(node.now(), -policy.min_age).unwrap_or(DateTime::<Utc>::MIN_UTC);
    let mut units = EvictUnits::new();
    for c in containers {
        let candidate = Candidate::of(&c).mutated(node.mutant);
        if candidate.running || candidate.age_from > newest_gc_time {
            continue;
        }
        let info = DeadContainer { id: c.id, created: c.created, attempt: c.attempt, stop_first: candidate.stop_first };
        units.entry((c.pod_uid, c.name)).or_default().push(info);
    }
    Ok(units)
}

/// The share of MaxContainers each evict unit is first trimmed to when the node has more dead
/// containers than that: an equal part, but at least 1. `None` skips the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EqualShare {
    /// MaxContainers divided by the number of units.
    pub part: i64,
    /// The share.
    pub share: Option<i64>,
}

impl EqualShare {
    /// The share of `max_containers` among `units` units.
    pub fn of(max_containers: i64, units: usize) -> Self {
        let part = max_containers / (units.max(1) as i64);
        Self { part, share: Some(part.max(1)) }
    }
}

/// `evictContainers`, with `policy`'s limits as this node applies them.
pub fn evict_containers(
    node: &mut Node,
    policy: &ContainerGcPolicy,
    all_sources_ready: bool,
    evict_non_deleted_pods: bool,
) -> Result<(), String> {
    let policy = policy.mutated(node.mutant);
    let mut units = evictable_containers(node, &policy)?;
    if gate_open(node, GatedStep::DeletedPodContainers, all_sources_ready) {
        let keys: Vec<(String, String)> = units.keys().cloned().collect();
        for key in keys {
            if pod_removal(node, &key.0, evict_non_deleted_pods).everything() {
                let unit = units.remove(&key).unwrap_or_default();
                let n = unit.len();
                remove_oldest(node, unit, n);
            }
        }
    }
    if policy.max_per_pod_container >= 0 {
        enforce_per_unit(node, &mut units, policy.max_per_pod_container);
    }
    let max_containers = policy.max_containers;
    let total = count(&units);
    if max_containers >= 0 && total > max_containers {
        if let Some(share) = EqualShare::of(max_containers, units.len()).mutated(node.mutant).share {
            enforce_per_unit(node, &mut units, share);
        }
        let total = count(&units);
        if total > max_containers {
            let flat = newest_first(node, units.into_values().flatten().collect());
            let n = usize::try_from(total - max_containers).unwrap_or(0);
            remove_oldest(node, flat, n);
        }
    }
    Ok(())
}

fn count(units: &EvictUnits) -> i64 {
    units.values().map(|u| u.len() as i64).sum()
}

/// Trims every unit to `max` containers, oldest first.
fn enforce_per_unit(node: &mut Node, units: &mut EvictUnits, max: i64) {
    for unit in units.values_mut() {
        let excess = unit.len() as i64 - max.max(0);
        if excess > 0 {
            let taken = std::mem::take(unit);
            *unit = remove_oldest(node, taken, excess as usize);
        }
    }
}

/// Dead containers in the order upstream keeps lists in: newest first by creation time, so the
/// oldest are at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewestFirst(pub Vec<DeadContainer>);

impl NewestFirst {
    /// `list` sorted (stably: equal creation times keep their order).
    pub fn of(mut list: Vec<DeadContainer>) -> Self {
        list.sort_by_key(|c| Reverse(c.created));
        Self(list)
    }
}

/// `list` in the order this node keeps it ([`NewestFirst`]).
fn newest_first(node: &Node, list: Vec<DeadContainer>) -> Vec<DeadContainer> {
    NewestFirst::of(list).mutated(node.mutant).0
}

/// What is left of a list once its oldest were removed: the containers still counted against
/// the limits — those kept — and those whose stop or removal failed, which upstream counts as
/// removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remaining {
    /// Still counted against the limits.
    pub counted: Vec<DeadContainer>,
    /// Not removed, but not counted either.
    pub failed: Vec<DeadContainer>,
}

/// `removeOldestN`: removes the `n` oldest (stopping unknown-state ones first; a failed stop
/// skips that one) and returns the rest — as if all `n` were removed, whatever failed.
pub fn remove_oldest(node: &mut Node, mut list: Vec<DeadContainer>, n: usize) -> Vec<DeadContainer> {
    let keep = list.len().saturating_sub(n);
    if keep > 0 {
        list = newest_first(node, list);
    }
    let mut failed = Vec::new();
    for c in list[keep..].iter().rev() {
        if c.stop_first && node.runtime.stop_container(&c.id).is_err() {
            failed.push(c.clone());
            continue;
        }
        if node.remove_container(&c.id).is_err() {
            failed.push(c.clone());
        }
    }
    list.truncate(keep);
    Remaining { counted: list, failed }.mutated(node.mutant).counted
}
