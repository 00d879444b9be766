//! Pod sandboxes (`evictSandboxes`): a sandbox is active when ready or when any container (in
//! any state) belongs to it; active sandboxes are never removed. Of a live pod's sandboxes the
//! newest is kept and older inactive ones go; a removed pod (or, on the eviction path, a
//! terminated one) loses every inactive sandbox. No MinAge and no config-source gating.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use crate::kubelet::mutant::Mutant;
use crate::kubelet::node::Node;
use crate::kubelet::runtime::SandboxState;

/// What sandbox GC keeps of a sandbox (`sandboxGCInfo`).
#[derive(Clone, Debug)]
struct SandboxInfo {
    id: String,
    created: DateTime<Utc>,
    active: bool,
}

/// `evictSandboxes`.
pub fn evict_sandboxes(node: &mut Node, evict_non_deleted_pods: bool) -> Result<(), String> {
    let containers = node.runtime.list_containers()?;
    let sandboxes = node.runtime.list_sandboxes()?;
    let with_containers: BTreeSet<String> = if node.is(Mutant::SandboxContainersIgnored) {
        BTreeSet::new()
    } else {
        containers.into_iter().filter_map(|c| c.sandbox_id).collect()
    };
    let mut by_pod: BTreeMap<String, Vec<SandboxInfo>> = BTreeMap::new();
    for s in sandboxes {
        let ready = s.state == SandboxState::Ready && !node.is(Mutant::ReadySandboxesRemoved);
        let active = ready || (with_containers.contains(&s.id) && !node.is(Mutant::NotReadySandboxesRemoved));
        by_pod.entry(s.pod_uid).or_default().push(SandboxInfo { id: s.id, created: s.created, active });
    }
    for (uid, list) in by_pod {
        let content = node.should_pod_content_be_removed(&uid) && !node.is(Mutant::DeletedPodsKept);
        let runtime = evict_non_deleted_pods && node.should_pod_runtime_be_removed(&uid) && !node.is(Mutant::TerminatedPodsIgnored);
        let all = node.is(Mutant::NewestSandboxRemoved) || node.is(Mutant::NotReadySandboxesRemoved);
        let n = if content || runtime || all { list.len() } else { list.len().saturating_sub(1) };
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
