//! Pod sandboxes (`evictSandboxes`): a sandbox is active when ready or when any container (in
//! any state) belongs to it; active sandboxes are never removed. Of a live pod's sandboxes the
//! newest is kept and older inactive ones go; a removed pod (or, on the eviction path, a
//! terminated one) loses every inactive sandbox. No MinAge and no config-source gating.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use crate::kubelet::containers::pod_removal;
use crate::kubelet::mutant::Mutable;
use crate::kubelet::node::Node;
use crate::kubelet::runtime::SandboxState;

/// What sandbox GC keeps of a sandbox (`sandboxGCInfo`).
#[derive(Clone, Debug)]
struct SandboxInfo {
    id: String,
    created: DateTime<Utc>,
    active: bool,
}

/// Whether a sandbox is active — ready, or holding any container (in any state) — and so
/// never removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activity {
    /// Whether it counts as ready.
    pub ready: bool,
    /// Whether it counts as holding containers.
    pub holds_containers: bool,
}

impl Activity {
    /// Whether it is active.
    pub fn active(self) -> bool {
        self.ready || self.holds_containers
    }
}

/// Whether the newest of a pod's sandboxes is kept: while the pod lives, yes; once everything of
/// it goes, no.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeepNewest(pub bool);

/// `evictSandboxes`.
pub fn evict_sandboxes(node: &mut Node, evict_non_deleted_pods: bool) -> Result<(), String> {
    let containers = node.runtime.list_containers()?;
    let sandboxes = node.runtime.list_sandboxes()?;
    let with_containers: BTreeSet<String> = containers.into_iter().filter_map(|c| c.sandbox_id).collect();
    let mut by_pod: BTreeMap<String, Vec<SandboxInfo>> = BTreeMap::new();
    for s in sandboxes {
        let activity = Activity { ready: s.state == SandboxState::Ready, holds_containers: with_containers.contains(&s.id) };
        let active = activity.mutated(node.mutant).active();
        by_pod.entry(s.pod_uid).or_default().push(SandboxInfo { id: s.id, created: s.created, active });
    }
    for (uid, list) in by_pod {
        let keep_newest = KeepNewest(!pod_removal(node, &uid, evict_non_deleted_pods).everything()).mutated(node.mutant);
        let n = if keep_newest.0 { list.len().saturating_sub(1) } else { list.len() };
        remove_oldest_sandboxes(node, list, n);
    }
    Ok(())
}

/// `removeOldestNSandboxes`: of the `n` oldest, removes the inactive ones (stop, then remove; a
/// failed stop skips the removal).
fn remove_oldest_sandboxes(node: &mut Node, mut list: Vec<SandboxInfo>, n: usize) {
    let keep = list.len().saturating_sub(n);
    if keep > 0 {
        list.sort_by_key(|s| std::cmp::Reverse(s.created));
    }
    for s in list[keep..].iter().rev() {
        if s.active || node.runtime.stop_sandbox(&s.id).is_err() {
            continue;
        }
        let _ = node.runtime.remove_sandbox(&s.id);
    }
}
