//! What each cleanup controller mutant ([`crate::cleanup::mutant`]) makes of the decision of
//! the rule it breaks: the controllers' decisions implement [`Mutable`] here, away from the
//! rules, which no mutant reaches but through [`crate::cleanup::pass::Context::decided`].

use kube::api::PropagationPolicy;

use crate::cleanup::cloud_nodes::Asked;
use crate::cleanup::csr_cleaner::Deadlines;
use crate::cleanup::identity_leases::Renewal;
use crate::cleanup::mutant::{Mutable, Mutant};
use crate::cleanup::node_health::Grace;
use crate::cleanup::pod_gc::{AgeOrder, Quarantine, TerminatedKept};
use crate::cleanup::pv_protection::Protection;
use crate::cleanup::pv_reclaim::{Reclaim, Release};
use crate::cleanup::pvc_protection::Use;
use crate::cleanup::ttl_after_finished::{Lifetime, Propagation};
use crate::cloud::Instance;

// The pod garbage collector.

impl Mutable<Mutant> for TerminatedKept {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::PodGcThresholdOffByOne) => TerminatedKept(self.0 - 1),
            _ => self,
        }
    }
}

impl Mutable<Mutant> for AgeOrder {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::PodGcNewestFirst) => AgeOrder::NewestFirst,
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Quarantine {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::PodGcNoQuarantine) => Quarantine(chrono::Duration::zero()),
            _ => self,
        }
    }
}

// Volumes and claims.

impl Mutable<Mutant> for Release {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match (active, self) {
            (Some(Mutant::PvReleasedNeverSet), _) => Release::Nothing,
            (Some(Mutant::PvRetainDeleted), Release::Reclaim(Reclaim::Retain)) => Release::Reclaim(Reclaim::Delete),
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Use {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::PvcProtectionCountsUnscheduledPods) => Use { scheduled: true, ..self },
            Some(Mutant::PvcProtectionIgnoresFinishedPods) => Use { names_claim: self.names_claim && !self.finished, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Protection {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::PvProtectionNeverAdded) => Protection { lacking: false, ..self },
            Some(Mutant::PvProtectionIgnoresBound) => Protection { bound: false, ..self },
            _ => self,
        }
    }
}

// Leases, Jobs and certificate signing requests.

impl Mutable<Mutant> for Renewal {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::IdentityLeaseRenewTimeIgnored) => Renewal { renewed: None, ..self },
            Some(Mutant::IdentityLeaseDurationDoubled) => Renewal { seconds: 2 * self.seconds, ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Lifetime {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::TtlFromCreation) => Lifetime { finished: self.created, ..self },
            Some(Mutant::TtlMissingMeansZero) => Lifetime { ttl: self.ttl.or(Some(0)), ..self },
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Propagation {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::TtlBackgroundDeletion) => Propagation(PropagationPolicy::Background),
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Deadlines {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::CsrApprovedAtTheHour) => Deadlines { approved_strictly_older: false, ..self },
            Some(Mutant::CsrPendingAfterAnHour) => Deadlines { pending: chrono::Duration::hours(1), ..self },
            Some(Mutant::CsrExpiredIgnored) => Deadlines { expired_certificates_go: false, ..self },
            Some(Mutant::CsrApprovedUnissued) => Deadlines { issued_needs_certificate: false, ..self },
            _ => self,
        }
    }
}

// Nodes.

impl Mutable<Mutant> for Grace {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::NodeHealthGraceDoubled) => Grace(self.0 * 2),
            _ => self,
        }
    }
}

impl Mutable<Mutant> for Asked {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match active {
            Some(Mutant::CloudAsksAboutReadyNodes) => Asked(true),
            _ => self,
        }
    }
}

/// What the cloud answers about a Node's machine, as the controller reads it.
impl Mutable<Mutant> for Instance {
    fn mutated(self, active: Option<Mutant>) -> Self {
        match (active, self) {
            (Some(Mutant::CloudDeletesShutdownNodes), Instance::Shutdown) => Instance::Gone,
            _ => self,
        }
    }
}
