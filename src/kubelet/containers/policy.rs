//! The container GC policy (`kubecontainer.GCPolicy`), built from the kubelet's
//! `--minimum-container-ttl-duration`, `--maximum-dead-containers-per-container` and
//! `--maximum-dead-containers` flags.

use std::fmt;

use chrono::TimeDelta;

use crate::kubelet::time::format_duration;

/// Limits on dead containers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContainerGcPolicy {
    /// Minimum age (from creation) before a dead container may be removed; 0 for none.
    pub min_age: TimeDelta,
    /// Maximum dead containers per (pod UID, container name); negative for no limit.
    pub max_per_pod_container: i64,
    /// Maximum dead containers on the node; negative for no limit.
    pub max_containers: i64,
}

impl Default for ContainerGcPolicy {
    /// The kubelet flags' defaults: MinAge 0, 1 per container, no global limit.
    fn default() -> Self {
        Self { min_age: TimeDelta::zero(), max_per_pod_container: 1, max_containers: -1 }
    }
}

/// `NewContainerGC`'s objection to a policy: a negative MinAge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NegativeMinAge(pub TimeDelta);

impl fmt::Display for NegativeMinAge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid minimum garbage collection age: {}", format_duration(self.0))
    }
}

/// `NewContainerGC`'s check of `policy`.
pub fn check(policy: &ContainerGcPolicy) -> Option<NegativeMinAge> {
    (policy.min_age < TimeDelta::zero()).then_some(NegativeMinAge(policy.min_age))
}
