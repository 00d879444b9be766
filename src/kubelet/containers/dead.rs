//! Dead containers (`evictContainers`): every container that is not running and was created at
//! least MinAge ago is evictable, grouped in evict units of (pod UID, container name). Deleted
//! pods lose all of theirs (once all config sources are ready); then each unit is trimmed to
//! MaxPerPodContainer; then, if the node still has more than MaxContainers, each unit is trimmed
//! to an equal share (at least 1) and the oldest across the node go until the limit holds.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::kubelet::containers::ContainerGcPolicy;
use crate::kubelet::mutant::Mutant;
use crate::kubelet::node::Node;
use crate::kubelet::runtime::ContainerState;
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
    /// In unknown state: stopped before removal.
    pub unknown: bool,
}

/// Evict units: (pod UID, container name) → its evictable containers.
pub type EvictUnits = BTreeMap<(String, String), Vec<DeadContainer>>;

/// The evictable containers of the node, by unit.
pub fn evictable_containers(node: &Node, policy: &ContainerGcPolicy) -> Result<EvictUnits, String> {
    let containers = node.runtime.list_containers()?;
    let min_age = if node.is(Mutant::ContainerMinAgeIgnored) { chrono::TimeDelta::zero() } else { policy.min_age };
    let newest_gc_time = add(node.now(), -min_age).unwrap_or(DateTime::<Utc>::MIN_UTC);
    let mut units = EvictUnits::new();
    for c in containers {
        if c.state == ContainerState::Running && !node.is(Mutant::RunningCollected) {
            continue;
        }
        let age_from = if node.is(Mutant::ContainerMinAgeFromExit) { c.finished.unwrap_or(c.created) } else { c.created };
        if age_from > newest_gc_time {
            continue;
        }
        let info = DeadContainer { id: c.id, created: c.created, attempt: c.attempt, unknown: c.state == ContainerState::Unknown };
        units.entry((c.pod_uid, c.name)).or_default().push(info);
    }
    Ok(units)
}

/// `evictContainers`.
pub fn evict_containers(
    node: &mut Node,
    policy: &ContainerGcPolicy,
    all_sources_ready: bool,
    evict_non_deleted_pods: bool,
) -> Result<(), String> {
    let mut units = evictable_containers(node, policy)?;
    let unlimited_means_none = |limit: i64| if limit < 0 && node.is(Mutant::UnlimitedMeansNone) { 0 } else { limit };
    let (max_per_unit, max_containers) = (unlimited_means_none(policy.max_per_pod_container), unlimited_means_none(policy.max_containers));
    if all_sources_ready || node.is(Mutant::DeletedPodsIgnoreSourcesReady) {
        let keys: Vec<(String, String)> = units.keys().cloned().collect();
        for key in keys {
            let content = node.should_pod_content_be_removed(&key.0) && !node.is(Mutant::DeletedPodsKept);
            let runtime = evict_non_deleted_pods && node.should_pod_runtime_be_removed(&key.0) && !node.is(Mutant::TerminatedPodsIgnored);
            if content || runtime {
                let unit = units.remove(&key).unwrap_or_default();
                let n = unit.len();
                remove_oldest(node, unit, n);
            }
        }
    }
    if max_per_unit >= 0 && !node.is(Mutant::PerPodLimitIgnored) {
        let max = if node.is(Mutant::PerPodLimitOffByOne) { max_per_unit - 1 } else { max_per_unit };
        enforce_per_unit(node, &mut units, max);
    }
    let total = count(&units);
    if max_containers >= 0 && total > max_containers && !node.is(Mutant::MaxContainersIgnored) {
        if !node.is(Mutant::NoEqualShare) {
            let mut share = max_containers / (units.len().max(1) as i64);
            if share < 1 && !node.is(Mutant::ShareWithoutFloor) {
                share = 1;
            }
            enforce_per_unit(node, &mut units, share);
        }
        let total = count(&units);
        if total > max_containers {
            let mut flat: Vec<DeadContainer> = units.into_values().flatten().collect();
            sort_newest_first(&mut flat, node.mutant);
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

/// Newest first by creation time (the order upstream keeps lists in).
fn sort_newest_first(list: &mut [DeadContainer], active: Option<Mutant>) {
    list.sort_by(|a, b| match active {
        Some(Mutant::NewestRemovedFirst) => a.created.cmp(&b.created),
        Some(Mutant::SortByAttempt) => b.attempt.cmp(&a.attempt).then(b.created.cmp(&a.created)),
        _ => b.created.cmp(&a.created),
    });
}

/// `removeOldestN`: removes the `n` oldest (stopping unknown-state ones first; a failed stop
/// skips that one) and returns the rest — as if all `n` were removed, whatever failed.
pub fn remove_oldest(node: &mut Node, mut list: Vec<DeadContainer>, n: usize) -> Vec<DeadContainer> {
    let keep = list.len().saturating_sub(n);
    if keep > 0 {
        sort_newest_first(&mut list, node.mutant);
    }
    let mut failed = Vec::new();
    for c in list[keep..].iter().rev() {
        if c.unknown && !node.is(Mutant::UnknownNotStopped) && node.runtime.stop_container(&c.id).is_err() {
            failed.push(c.clone());
            continue;
        }
        if node.remove_container(&c.id).is_err() {
            failed.push(c.clone());
        }
    }
    list.truncate(keep);
    if node.is(Mutant::FailedRemovalsCounted) {
        list.extend(failed);
    }
    list
}
