//! The pvc-protection controller (kube-controller-manager's `persistentvolumeclaim-protection-controller`,
//! upstream `pkg/controller/volume/pvcprotection/pvc_protection_controller.go`). The
//! StorageObjectInUseProtection admission plugin gives every new claim the
//! finalizer `kubernetes.io/pvc-protection`; this controller adds it to any live claim that
//! lacks it (`processPVC`, `addFinalizer`) and removes it from a terminating claim no pod uses
//! (`isBeingUsed`, read from a fresh list of the claim's namespace's pods).
//!
//! A pod uses a claim (`podUsesPVC`) only once it is scheduled (a node is named): a
//! `persistentVolumeClaim` volume naming the claim counts whatever the pod's phase or deletion
//! state, so a finished pod that still exists keeps its claims; a generic ephemeral volume
//! counts for the claim made for it (named `<pod>-<volume>` and controlled by the pod) unless
//! the pod is shut down (being deleted with grace period 0, `podIsShutDown`).

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use kube::api::{Api, ApiResource};

use crate::apiserver::admission::PVC_PROTECTION;
use crate::cleanup::pass::{Context, Controller, Outcome, resource};
use crate::cleanup::protection::{is_deletion_candidate, needs_finalizer, set_finalizer};

/// The pvc-protection controller.
#[derive(Debug, Default)]
pub struct PvcProtection;

impl Controller for PvcProtection {
    fn name(&self) -> &'static str {
        "persistentvolumeclaim-protection-controller"
    }

    fn watches(&self) -> Vec<ApiResource> {
        vec![resource::<PersistentVolumeClaim>(), resource::<Pod>()]
    }

    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>> {
        Box::pin(async move {
            let claims: Vec<PersistentVolumeClaim> = context.list().await?;
            let pods: Vec<Pod> = context.list().await?;
            let mut wrote = false;
            for claim in &claims {
                let api: Api<PersistentVolumeClaim> =
                    Api::namespaced(context.client.clone(), claim.metadata.namespace.as_deref().unwrap_or(""));
                if needs_finalizer(claim, PVC_PROTECTION) {
                    wrote |= set_finalizer(&api, claim, PVC_PROTECTION, true).await;
                } else if is_deletion_candidate(claim, PVC_PROTECTION)
                    && !pods.iter().any(|pod| uses(context, pod, claim))
                    && !context.cannot_read::<Pod>(claim.metadata.namespace.as_deref().unwrap_or(""), None)
                {
                    wrote |= set_finalizer(&api, claim, PVC_PROTECTION, false).await;
                }
            }
            Ok(Outcome { wrote, again_at: None })
        })
    }
}

/// Whether `pod` uses `claim` (upstream `podUsesPVC`).
fn uses(context: &Context, pod: &Pod, claim: &PersistentVolumeClaim) -> bool {
    Use::of(pod, claim).is_some_and(|found| context.decided(found).counts())
}

/// What the controller reads of a pod in the claim's namespace to judge whether it uses the
/// claim (upstream `podUsesPVC`): the decision a mutant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    /// The pod names the claim, as a volume or as the claim of its ephemeral volume.
    pub names_claim: bool,
    /// The pod is scheduled to a node.
    pub scheduled: bool,
    /// The pod is Succeeded or Failed.
    pub finished: bool,
}

impl Use {
    /// What `pod` shows of its use of `claim`; none for a pod of another namespace or with no
    /// spec.
    fn of(pod: &Pod, claim: &PersistentVolumeClaim) -> Option<Self> {
        if pod.metadata.namespace != claim.metadata.namespace {
            return None;
        }
        let spec = pod.spec.as_ref()?;
        let claim_name = claim.metadata.name.as_deref().unwrap_or("");
        let pod_name = pod.metadata.name.as_deref().unwrap_or("");
        let names_claim = spec.volumes.iter().flatten().any(|volume| {
            let named = volume.persistent_volume_claim.as_ref().is_some_and(|c| c.claim_name == claim_name);
            let ephemeral = volume.ephemeral.is_some()
                && format!("{pod_name}-{}", volume.name) == claim_name
                && is_controlled_by(claim, pod)
                && !is_shut_down(pod);
            named || ephemeral
        });
        let scheduled = spec.node_name.as_deref().is_some_and(|n| !n.is_empty());
        Some(Self { names_claim, scheduled, finished: is_finished(pod) })
    }

    /// Whether the pod counts as the claim's user: it names the claim and is scheduled; a
    /// finished pod still counts.
    pub fn counts(&self) -> bool {
        self.names_claim && self.scheduled
    }
}

/// Whether the pod is Succeeded or Failed.
fn is_finished(pod: &Pod) -> bool {
    matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"))
}

/// Whether `claim`'s controller reference names `pod` (upstream `ephemeral.VolumeIsForPod`).
fn is_controlled_by(claim: &PersistentVolumeClaim, pod: &Pod) -> bool {
    let owners = claim.metadata.owner_references.iter().flatten();
    owners.into_iter().any(|o| o.controller == Some(true) && Some(&o.uid) == pod.metadata.uid.as_ref())
}

/// Whether the pod is being deleted with no grace left (upstream `podIsShutDown`).
fn is_shut_down(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some() && pod.metadata.deletion_grace_period_seconds == Some(0)
}
