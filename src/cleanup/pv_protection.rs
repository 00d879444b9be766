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
use crate::cleanup::mutant::Mutant;
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
                if needs_finalizer(volume, PV_PROTECTION) {
                    if !context.mutated(Mutant::PvProtectionNeverAdded) {
                        wrote |= set_finalizer(&api, volume, PV_PROTECTION, true).await;
                    }
                } else if is_deletion_candidate(volume, PV_PROTECTION) && !is_bound(context, volume) {
                    wrote |= set_finalizer(&api, volume, PV_PROTECTION, false).await;
                }
            }
            Ok(Outcome { wrote, again_at: None })
        })
    }
}

/// Whether the volume is in use: its phase is Bound.
fn is_bound(context: &Context, volume: &PersistentVolume) -> bool {
    let phase = volume.status.as_ref().and_then(|s| s.phase.as_deref());
    phase == Some("Bound") && !context.mutated(Mutant::PvProtectionIgnoresBound)
}
