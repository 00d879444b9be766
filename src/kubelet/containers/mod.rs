//! Container garbage collection (`pkg/kubelet/kuberuntime/kuberuntime_gc.go`): dead containers
//! under the GC policy's limits, pod sandboxes that nothing uses any more, and the log
//! directories of pods that are gone. The three steps run in that order; each step's error is
//! collected and the pass goes on.
//!
//! - [`policy`]: `GCPolicy` (MinAge, MaxPerPodContainer, MaxContainers) and its check.
//! - [`dead`]: which containers are evictable, and the limits (`evictContainers`).
//! - [`sandboxes`]: sandbox GC (`evictSandboxes`).
//! - [`logs`]: pod log GC (`evictPodLogsDirectories`).
//!
//! The steps share two rules, here: whether everything of a pod goes ([`PodRemoval`]), and
//! which steps wait until all config sources are ready ([`SourcesGate`]).

pub mod dead;
pub mod logs;
pub mod policy;
pub mod sandboxes;

pub use policy::ContainerGcPolicy;

use crate::kubelet::errors::aggregate;
use crate::kubelet::mutant::Mutable;
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
        if let Some(e) = policy::check(&policy).mutated(node.mutant) {
            return Err(e.to_string());
        }
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

/// What a container GC pass does when a step fails: upstream collects the error and goes on
/// with the next step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnStepError {
    /// Go on with the next step.
    #[default]
    GoOn,
    /// End the pass.
    Stop,
}

/// Whether everything of a pod goes, whatever the limits: its content once it is deleted (or
/// evicted), and — on the eviction manager's pass — its runtime objects once it is terminated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PodRemoval {
    /// `ShouldPodContentBeRemoved`.
    pub content: bool,
    /// `ShouldPodRuntimeBeRemoved`, on the eviction manager's pass only.
    pub runtime: bool,
}

impl PodRemoval {
    /// Whether everything of the pod goes.
    pub fn everything(self) -> bool {
        self.content || self.runtime
    }
}

/// [`PodRemoval`] of the pod `uid` on `node`.
fn pod_removal(node: &Node, uid: &str, evict_non_deleted_pods: bool) -> PodRemoval {
    let removal = PodRemoval {
        content: node.should_pod_content_be_removed(uid),
        runtime: evict_non_deleted_pods && node.should_pod_runtime_be_removed(uid),
    };
    removal.mutated(node.mutant)
}

/// A step of a container GC pass that removes the content of pods the kubelet believes gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatedStep {
    /// Removing the dead containers of deleted pods.
    DeletedPodContainers,
    /// Removing the log directories of deleted pods.
    PodLogDirs,
    /// Removing dangling legacy container log symlinks.
    LogSymlinks,
}

/// Whether a step may act: until all config sources are ready the kubelet does not know which
/// pods are gone, so the steps that remove a deleted pod's content wait; dangling log symlinks
/// belong to no pod it has to know, and do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourcesGate {
    /// The step.
    pub step: GatedStep,
    /// Whether all config sources are ready.
    pub sources_ready: bool,
    /// Whether the step acts.
    pub open: bool,
}

/// Whether `step` acts on `node` ([`SourcesGate`]).
fn gate_open(node: &Node, step: GatedStep, sources_ready: bool) -> bool {
    let gate = SourcesGate { step, sources_ready, open: sources_ready || step == GatedStep::LogSymlinks };
    gate.mutated(node.mutant).open
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
    let on_error = OnStepError::default().mutated(node.mutant);
    let mut errors = Vec::new();
    let steps: [GcStep<'_>; 3] = [
        &|n| dead::evict_containers(n, policy, all_sources_ready, evict_non_deleted_pods),
        &|n| sandboxes::evict_sandboxes(n, evict_non_deleted_pods),
        &|n| logs::evict_pod_logs_directories(n, all_sources_ready),
    ];
    for step in steps {
        if let Err(e) = step(node) {
            errors.push(e);
            if on_error == OnStepError::Stop {
                break;
            }
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(aggregate(&errors)) }
}
