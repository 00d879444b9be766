//! What the kubelet's pod workers know about each pod, and the two questions garbage collection
//! asks them: may the pod's runtime objects go (`ShouldPodRuntimeBeRemoved`), and may its
//! content — containers, sandboxes, logs — go (`ShouldPodContentBeRemoved`).

use std::collections::BTreeMap;

/// A pod's lifecycle as the pod workers see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodState {
    /// Running (or about to): nothing of it is removed beyond the GC limits.
    Running,
    /// Terminated (containers stopped) but not deleted from the API.
    Terminated,
    /// Deleted and terminated: its content may go.
    Removed,
    /// Evicted: its content may go.
    Evicted,
}

/// The pod workers' knowledge.
#[derive(Clone, Debug)]
pub struct PodWorkers {
    /// Known pods by UID; a pod missing here is unknown.
    pub states: BTreeMap<String, PodState>,
    /// Whether the pod workers have synced at least once (unknown pods are removable only then).
    pub synced: bool,
}

impl Default for PodWorkers {
    fn default() -> Self {
        Self { states: BTreeMap::new(), synced: true }
    }
}

/// What becomes of the pods the pod workers do not know: they may go once the workers have
/// synced, as a live pod would be known by then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownPods {
    /// Whether their runtime objects and content may be removed.
    pub removable: bool,
}

impl PodWorkers {
    /// What becomes of the pods the workers do not know.
    pub fn unknown_pods(&self) -> UnknownPods {
        UnknownPods { removable: self.synced }
    }

    /// `ShouldPodRuntimeBeRemoved`: a known pod once terminated; an unknown pod as `unknown` says.
    pub fn should_pod_runtime_be_removed(&self, uid: &str, unknown: UnknownPods) -> bool {
        match self.states.get(uid) {
            Some(state) => *state != PodState::Running,
            None => unknown.removable,
        }
    }

    /// `ShouldPodContentBeRemoved`: a known pod once evicted, or deleted and terminated; an
    /// unknown pod as `unknown` says.
    pub fn should_pod_content_be_removed(&self, uid: &str, unknown: UnknownPods) -> bool {
        match self.states.get(uid) {
            Some(state) => matches!(state, PodState::Removed | PodState::Evicted),
            None => unknown.removable,
        }
    }
}
