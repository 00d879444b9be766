//! The pv-protection controller (kube-controller-manager's `persistentvolume-protection-controller`,
//! upstream `pkg/controller/volume/pvprotection/pv_protection_controller.go`). The
//! StorageObjectInUseProtection admission plugin gives every new volume the finalizer
//! `kubernetes.io/pv-protection`; this controller adds it to any live volume that lacks it and
//! removes it from a terminating volume whose `status.phase` is not Bound (`isBeingUsed`: the
//! phase alone decides, no claim is looked up).

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::PersistentVolume;
use kube::api::{Api, ApiResource};

use crate::apiserver::admission::PV_PROTECTION;
use crate::cleanup::pass::{Context, Controller, Outcome, resource};
use crate::cleanup::protection::{is_deletion_candidate, needs_finalizer, set_finalizer};

/// The pv-protection controller.
#[derive(Debug, Default)]
pub struct PvProtection;

impl Controller for PvProtection {
    fn name(&self) -> &'static str {
        "persistentvolume-protection-controller"
    }

    fn watches(&self) -> Vec<ApiResource> {
        vec![resource::<PersistentVolume>()]
    }

    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>> {
        Box::pin(async move {
            let volumes: Vec<PersistentVolume> = context.list().await?;
            let api: Api<PersistentVolume> = Api::all(context.client.clone());
            let mut wrote = false;
            for volume in &volumes {
                if let Some(add) = context.decided(Protection::of(volume)).change() {
                    wrote |= set_finalizer(&api, volume, PV_PROTECTION, add).await;
                }
            }
            Ok(Outcome { wrote, again_at: None })
        })
    }
}

/// What the controller reads of a volume to add or remove its protection finalizer (upstream
/// pv-protection `processPV`): the decision a mutant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Protection {
    /// The volume is live and lacks the finalizer.
    pub lacking: bool,
    /// The volume is being deleted and still carries the finalizer.
    pub releasable: bool,
    /// The volume is in use: its phase is Bound (upstream `isBeingUsed`).
    pub bound: bool,
}

impl Protection {
    /// What `volume` shows.
    fn of(volume: &PersistentVolume) -> Self {
        let phase = volume.status.as_ref().and_then(|s| s.phase.as_deref());
        Self {
            lacking: needs_finalizer(volume, PV_PROTECTION),
            releasable: is_deletion_candidate(volume, PV_PROTECTION),
            bound: phase == Some("Bound"),
        }
    }

    /// The change to make: add the finalizer (`true`) to a live volume lacking it, remove it
    /// (`false`) from a terminating volume no longer in use, or none.
    pub fn change(&self) -> Option<bool> {
        if self.lacking {
            Some(true)
        } else if self.releasable && !self.bound {
            Some(false)
        } else {
            None
        }
    }
}
