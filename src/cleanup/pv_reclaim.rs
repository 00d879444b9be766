//! The PersistentVolume controller's reclaim half (kube-controller-manager's
//! `persistentvolume-binder-controller`, upstream
//! `pkg/controller/volume/persistentvolume/pv_controller.go`), as far
//! as it shows through the API without a volume plugin. For every volume (`syncVolume`):
//!
//! - with no claim reference, or one without a uid (pre-bound: the claim's sync will bind it),
//!   the volume is **Available**;
//! - with a claim reference whose claim is missing, or has the same name and another uid, the
//!   volume is **Released** (a Failed phase is never overwritten) and reclaimed;
//! - whose claim is bound to it, the volume is **Bound**;
//! - whose claim is bound to another volume: a dynamically provisioned one
//!   (`pv.kubernetes.io/provisioned-by`) with policy Delete is released and reclaimed; one the
//!   controller bound (`pv.kubernetes.io/bound-by-controller`) is unbound (claim reference
//!   dropped); any other loses only the uid of its claim reference; either becomes Available.
//!
//! Reclaiming (`reclaimVolume`) leaves a volume annotated `pv.kubernetes.io/migrated-to` to its
//! external provisioner, and by policy: **Retain** keeps it Released; **Delete** looks for a
//! deleter (`findDeletablePlugin`): a provisioned-by annotation without the `kubernetes.io/`
//! prefix, or a CSI source, means an external provisioner deletes it, and the volume stays
//! Released; otherwise, no plugin being able to delete it, it becomes **Failed** with the
//! plugin manager's error `no volume plugin matched` and a Warning event
//! `VolumeFailedDelete`. **Recycle** finds no recycler (`recycleVolumeOperation`): Failed,
//! `No recycler plugin found for the volume!`, Warning `VolumeFailedRecycle`. Phase changes
//! are status updates that also stamp `lastPhaseTransitionTime`; an event is recorded only with
//! a change of phase (`updateVolumePhaseWithEvent`), in namespace `default`.
//!
//! The reference has no volume plugins. Upstream's controller manager has in-tree hostPath
//! (delete, recycle) and NFS (recycle) plugins that run recycler pods or remove directories;
//! the specification uses volume sources none of them serves.

use std::collections::BTreeMap;

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim};
use kube::api::{Api, ApiResource, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::cleanup::pass::{Context, Controller, Outcome, resource};
use crate::clock::format_time;
use crate::recorder::Record;

/// The annotation naming the provisioner that made a volume.
pub const PROVISIONED_BY: &str = "pv.kubernetes.io/provisioned-by";
/// The annotation saying the controller bound the volume to its claim.
pub const BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
/// The annotation naming the CSI driver an in-tree volume migrated to.
pub const MIGRATED_TO: &str = "pv.kubernetes.io/migrated-to";

/// The message of a volume no plugin can delete.
pub const NO_PLUGIN: &str = "no volume plugin matched";
/// The message of a volume no plugin can recycle.
pub const NO_RECYCLER: &str = "No recycler plugin found for the volume!";

/// The PersistentVolume controller's reclaim half.
#[derive(Debug, Default)]
pub struct PvReclaim;

impl Controller for PvReclaim {
    fn name(&self) -> &'static str {
        "persistentvolume-binder-controller"
    }

    fn watches(&self) -> Vec<ApiResource> {
        vec![resource::<PersistentVolume>(), resource::<PersistentVolumeClaim>()]
    }

    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>> {
        Box::pin(async move {
            let volumes: Vec<PersistentVolume> = context.list().await?;
            let claims: Vec<PersistentVolumeClaim> = context.list().await?;
            let by_name: BTreeMap<(&str, &str), &PersistentVolumeClaim> = claims
                .iter()
                .map(|c| ((c.metadata.namespace.as_deref().unwrap_or(""), c.metadata.name.as_deref().unwrap_or("")), c))
                .collect();
            let mut wrote = false;
            for volume in &volumes {
                wrote |= sync(context, volume, &by_name).await;
            }
            Ok(Outcome { wrote, again_at: None })
        })
    }
}

/// What a volume's claim reference finds.
enum Claim {
    /// No reference, or one without a uid.
    Unclaimed,
    /// The claim is gone (or another of the same name is there).
    Missing,
    /// The claim, not yet bound to any volume (or a claim of its name that cannot be read).
    Binding,
    /// The claim, bound to this volume.
    Bound,
    /// The claim, bound to another volume.
    BoundElsewhere,
}

/// One `syncVolume`; says whether it wrote.
async fn sync(context: &Context, volume: &PersistentVolume, claims: &BTreeMap<(&str, &str), &PersistentVolumeClaim>) -> bool {
    let name = volume.metadata.name.as_deref().unwrap_or("");
    let claim = match volume.spec.as_ref().and_then(|s| s.claim_ref.as_ref()) {
        None => Claim::Unclaimed,
        Some(reference) if reference.uid.as_deref().unwrap_or("").is_empty() => Claim::Unclaimed,
        Some(reference) => {
            let key = (reference.namespace.as_deref().unwrap_or(""), reference.name.as_deref().unwrap_or(""));
            match claims.get(&key) {
                Some(claim) if claim.metadata.uid == reference.uid => {
                    match claim.spec.as_ref().and_then(|s| s.volume_name.as_deref()).unwrap_or("") {
                        "" => Claim::Binding,
                        bound if bound == name => Claim::Bound,
                        _ => Claim::BoundElsewhere,
                    }
                }
                // A claim of that name that cannot be read may be the one: nothing is done.
                None if context.cannot_read::<PersistentVolumeClaim>(key.0, Some(key.1)) => Claim::Binding,
                _ => Claim::Missing,
            }
        }
    };
    match claim {
        Claim::Unclaimed => set_phase(context, volume, "Available", None).await,
        Claim::Binding => false,
        Claim::Bound => set_phase(context, volume, "Bound", None).await,
        Claim::Missing => release(context, volume).await,
        Claim::BoundElsewhere if has_annotation(volume, PROVISIONED_BY) && policy(volume) == "Delete" => release(context, volume).await,
        Claim::BoundElsewhere => unbind(context, volume).await,
    }
}

/// Marks the volume Released, or reclaims it once it is Released or Failed.
async fn release(context: &Context, volume: &PersistentVolume) -> bool {
    match context.decided(Release::of(volume)) {
        // The next pass reclaims the volume it reads Released.
        Release::MarkReleased => set_phase(context, volume, "Released", None).await,
        Release::Reclaim(Reclaim::Delete) => delete(context, volume).await,
        Release::Reclaim(Reclaim::Fail(reason, message)) => set_phase(context, volume, "Failed", Some((reason, message))).await,
        Release::Reclaim(Reclaim::Retain | Reclaim::LeftAlone) | Release::Nothing => false,
    }
}

/// What the controller does with a volume whose claim is gone (`syncVolume`): the decision a
/// mutant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// Mark it Released.
    MarkReleased,
    /// Reclaim it, once it is Released or Failed.
    Reclaim(Reclaim),
    /// Nothing.
    Nothing,
}

impl Release {
    /// What `volume`'s phase calls for.
    fn of(volume: &PersistentVolume) -> Self {
        match phase(volume) {
            "Released" | "Failed" => Release::Reclaim(Reclaim::of(volume)),
            _ => Release::MarkReleased,
        }
    }
}

/// What reclaiming does to a released volume (`reclaimVolume`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reclaim {
    /// Keep it Released: policy Retain.
    Retain,
    /// Nothing: it is left to an external provisioner, or has a policy validation refuses.
    LeftAlone,
    /// Mark it Failed, with this event reason and message: no plugin can delete or recycle it.
    Fail(&'static str, &'static str),
    /// Delete the volume object.
    Delete,
}

impl Reclaim {
    /// What `volume`'s annotations, policy and source call for.
    fn of(volume: &PersistentVolume) -> Self {
        if has_annotation(volume, MIGRATED_TO) {
            return Reclaim::LeftAlone;
        }
        match policy(volume) {
            "Retain" => Reclaim::Retain,
            "Delete" if deleted_externally(volume) => Reclaim::LeftAlone,
            "Delete" => Reclaim::Fail("VolumeFailedDelete", NO_PLUGIN),
            "Recycle" => Reclaim::Fail("VolumeFailedRecycle", NO_RECYCLER),
            // Validation admits no other policy.
            _ => Reclaim::LeftAlone,
        }
    }
}

/// Whether an external provisioner deletes the volume (`findDeletablePlugin`): a provisioner
/// named without the `kubernetes.io/` prefix, or a CSI source.
fn deleted_externally(volume: &PersistentVolume) -> bool {
    let provisioner = volume.metadata.annotations.as_ref().and_then(|a| a.get(PROVISIONED_BY));
    let external_provisioner = provisioner.is_some_and(|p| !p.starts_with("kubernetes.io/"));
    external_provisioner || volume.spec.as_ref().is_some_and(|s| s.csi.is_some())
}

/// Unbinds a volume whose claim is bound elsewhere (`unbindVolume`): the claim reference goes
/// if the controller bound it, only its uid otherwise; then the volume is Available.
async fn unbind(context: &Context, volume: &PersistentVolume) -> bool {
    let mut updated = volume.clone();
    let bound_by_controller = has_annotation(volume, BOUND_BY_CONTROLLER);
    if let Some(spec) = updated.spec.as_mut() {
        match bound_by_controller {
            true => spec.claim_ref = None,
            false => {
                if let Some(reference) = spec.claim_ref.as_mut() {
                    reference.uid = None;
                }
            }
        }
    }
    if let Some(annotations) = updated.metadata.annotations.as_mut() {
        annotations.remove(BOUND_BY_CONTROLLER);
    }
    let name = volume.metadata.name.as_deref().unwrap_or("");
    let api: Api<PersistentVolume> = Api::all(context.client.clone());
    match api.replace(name, &PostParams::default(), &updated).await {
        Ok(unbound) => {
            set_phase(context, &unbound, "Available", None).await;
            true
        }
        Err(e) => {
            tracing::debug!("persistentvolume controller: unbinding {name}: {e}");
            false
        }
    }
}

/// Sets the volume's phase (and message; with an event when `event` names its reason and
/// message) unless it is in that phase already (`updateVolumePhase`,
/// `updateVolumePhaseWithEvent`); says whether it wrote.
async fn set_phase(context: &Context, volume: &PersistentVolume, phase_to: &str, event: Option<(&str, &str)>) -> bool {
    if phase(volume) == phase_to {
        return false;
    }
    let name = volume.metadata.name.as_deref().unwrap_or("");
    let message = event.map(|(_, message)| message);
    let patch = json!({
        "metadata": {"resourceVersion": volume.metadata.resource_version},
        "status": {"phase": phase_to, "message": message, "lastPhaseTransitionTime": format_time(context.clock.now())},
    });
    let api: Api<PersistentVolume> = Api::all(context.client.clone());
    if let Err(e) = api.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch)).await {
        tracing::debug!("persistentvolume controller: setting {name} {phase_to}: {e}");
        return false;
    }
    if let Some((reason, message)) = event {
        record_warning(context, volume, reason, message).await;
    }
    true
}

/// Deletes the volume (the mutant's reclaim of a retained volume).
async fn delete(context: &Context, volume: &PersistentVolume) -> bool {
    let name = volume.metadata.name.as_deref().unwrap_or("");
    let api: Api<PersistentVolume> = Api::all(context.client.clone());
    api.delete(name, &Default::default()).await.is_ok()
}

/// Records a Warning event about `volume` from the `persistentvolume-controller`; a failure is
/// only logged, as a recorder drops what it cannot send.
async fn record_warning(context: &Context, volume: &PersistentVolume, reason: &str, message: &str) {
    let name = volume.metadata.name.as_deref().unwrap_or("");
    let record = Record {
        involved: json!({"apiVersion": "v1", "kind": "PersistentVolume", "name": name,
            "uid": volume.metadata.uid, "resourceVersion": volume.metadata.resource_version}),
        event_type: "Warning",
        reason,
        message: message.to_string(),
    };
    if let Err(e) = record.send(&context.client, "persistentvolume-controller", context.clock.now()).await {
        tracing::debug!("persistentvolume controller: recording {reason} for {name}: {e}");
    }
}

fn phase(volume: &PersistentVolume) -> &str {
    volume.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("")
}

fn policy(volume: &PersistentVolume) -> &str {
    volume.spec.as_ref().and_then(|s| s.persistent_volume_reclaim_policy.as_deref()).unwrap_or("Retain")
}

fn has_annotation(volume: &PersistentVolume, key: &str) -> bool {
    volume.metadata.annotations.as_ref().is_some_and(|a| a.contains_key(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn volume(annotation: Option<&str>, csi: bool) -> PersistentVolume {
        let mut v = json!({"metadata": {"name": "v"}, "spec": {"persistentVolumeReclaimPolicy": "Delete"}});
        if let Some(provisioner) = annotation {
            v["metadata"]["annotations"] = json!({PROVISIONED_BY: provisioner});
        }
        if csi {
            v["spec"]["csi"] = json!({"driver": "d", "volumeHandle": "h"});
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn external_deleters() {
        assert!(deleted_externally(&volume(Some("example.com/p"), false)));
        assert!(deleted_externally(&volume(None, true)));
        assert!(!deleted_externally(&volume(Some("kubernetes.io/host-path"), false)));
        assert!(!deleted_externally(&volume(None, false)));
    }
}
