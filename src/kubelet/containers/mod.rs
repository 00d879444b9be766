//! Container garbage collection (`pkg/kubelet/kuberuntime/kuberuntime_gc.go`): dead containers
//! under the GC policy's limits, pod sandboxes that nothing uses any more, and the log
//! directories of pods that are gone. The three steps run in that order; each step's error is
//! collected and the pass goes on.
//!
//! - [`policy`]: `GCPolicy` (MinAge, MaxPerPodContainer, MaxContainers) and its check.
//! - [`dead`]: which containers are evictable, and the limits (`evictContainers`).
//! - [`sandboxes`]: sandbox GC (`evictSandboxes`).
//! - [`logs`]: pod log GC (`evictPodLogsDirectories`).

pub mod dead;
pub mod logs;
pub mod policy;
pub mod sandboxes;

pub use policy::ContainerGcPolicy;

use crate::kubelet::errors::aggregate;
use crate::kubelet::mutant::Mutant;
use crate::kubelet::node::Node;

/// The container GC of one kubelet (`realContainerGC`).
#[derive(Clone, Debug)]
pub struct ContainerGc {
    /// Its policy (validated).
    policy: ContainerGcPolicy,
}

impl ContainerGc {
    /// `NewContainerGC`: fails with upstream's text on a negative MinAge.
    pub fn new(policy: ContainerGcPolicy, node: &Node) -> Result<Self, String> {
        policy::validate(&policy, node.mutant)?;
        Ok(Self { policy })
    }

    /// The policy.
    pub fn policy(&self) -> &ContainerGcPolicy {
        &self.policy
    }

    /// `GarbageCollect`: the periodic pass (deleted pods only once all sources are ready).
    pub fn garbage_collect(&self, node: &mut Node) -> Result<(), String> {
        let ready = node.sources_ready;
        garbage_collect(node, &self.policy, ready, false)
    }

    /// `DeleteAllUnusedContainers`: the eviction manager's pass, which also removes everything of
    /// terminated (not yet deleted) pods.
    pub fn delete_all_unused_containers(&self, node: &mut Node) -> Result<(), String> {
        let ready = node.sources_ready;
        garbage_collect(node, &self.policy, ready, true)
    }
}

/// One step of a container GC pass.
type GcStep<'a> = &'a dyn Fn(&mut Node) -> Result<(), String>;

/// The runtime's `GarbageCollect`: dead containers, then sandboxes, then pod logs; the errors
/// of all three, aggregated.
pub fn garbage_collect(
    node: &mut Node,
    policy: &ContainerGcPolicy,
    all_sources_ready: bool,
    evict_non_deleted_pods: bool,
) -> Result<(), String> {
    let mut errors = Vec::new();
    let steps: [GcStep<'_>; 3] = [
        &|n| dead::evict_containers(n, policy, all_sources_ready, evict_non_deleted_pods),
        &|n| sandboxes::evict_sandboxes(n, evict_non_deleted_pods),
        &|n| logs::evict_pod_logs_directories(n, all_sources_ready),
    ];
    for step in steps {
        if let Err(e) = step(node) {
            errors.push(e);
            if node.is(Mutant::ContainerGcStopsAtFirstError) {
                break;
            }
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(aggregate(&errors)) }
}
