//! What each workload controller mutant ([`crate::workloads::mutant`]) makes of the decision
//! of the rule it breaks: the controllers' decisions implement [`Mutable`] here, away from the
//! rules, which no mutant reaches but through [`crate::workloads::writes::Writes::decided`].

use k8s_openapi::api::apps::v1::StatefulSetPersistentVolumeClaimRetentionPolicy;

use crate::workloads::cronjobs::FinishedJobsKept;
use crate::workloads::daemon_sets::{Placement, Tolerations};
use crate::workloads::deployments::OldReplicaSetsKept;
use crate::workloads::mutant::{Mutable, Mutant};

impl Mutable<Mutant> for FinishedJobsKept {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::CronJobFailedLimitIgnored) if !self.succeeded => FinishedJobsKept { limit: None, ..self },
            Some(Mutant::CronJobKeepsOneMore) => FinishedJobsKept { limit: self.limit.map(|l| l + 1), ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for OldReplicaSetsKept {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::DeploymentHistoryNeverDeleted) => OldReplicaSetsKept(None),
            Some(Mutant::DeploymentKeepsOneMore) => OldReplicaSetsKept(self.0.map(|l| l + 1)),
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Tolerations {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::DaemonSetNoDaemonTolerations) => Tolerations { added: Vec::new(), ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Placement {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::DaemonSetNoScheduleEvicts) => Placement { should_continue: self.should_continue && self.should_run, ..self },
            _ => self,
        }
    }
}

/// A StatefulSet's claim retention policy, as the controller acts on it.
impl Mutable<Mutant> for StatefulSetPersistentVolumeClaimRetentionPolicy {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::StatefulSetWhenDeletedIgnored) => Self { when_deleted: None, ..self },
            Some(Mutant::StatefulSetWhenScaledIgnored) => Self { when_scaled: None, ..self },
            _ => self,
        }
    }
}
