//! Steps on volumes as the PersistentVolume controllers see them: a PersistentVolume bound to
//! its claim (or reserved for one), pods using a claim, a volume's phase and message.
//!
//! A volume is bound the way a pre-bound pair binds on a real cluster: the claim names the
//! volume (`spec.volumeName`) and the volume's `claimRef` carries the claim's uid, and the
//! PersistentVolume controller sets the volume Bound; the step waits for that. Volumes are
//! `local` volumes (no in-tree plugin of kube-controller-manager deletes or recycles them) or,
//! `from CSI driver "d"`, CSI volumes.

use cucumber::{given, then};
use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};

use super::support::{create_body, unscheduled_without_nodes};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// The storage class of the steps' claims and volumes: none (the empty class binds only
/// volumes of no class, and no default class is applied).
const NO_CLASS: &str = "";

/// `Given a PersistentVolume named "v" bound to PersistentVolumeClaim "c" with reclaim policy
/// Delete` (optionally ` provisioned by "example.com/p"` and ` from CSI driver "d"`).
#[given(
    regex = r#"^a PersistentVolume named "([^"]+)" bound to PersistentVolumeClaim "([^"]+)" with reclaim policy (Retain|Delete|Recycle)(?: provisioned by "([^"]+)")?(?: from CSI driver "([^"]+)")?$"#
)]
async fn bound_volume(
    world: &mut KubeWorld,
    volume: String,
    claim: String,
    policy: String,
    provisioner: String,
    driver: String,
) -> StepResult {
    let (_, _, namespace) = world.api("PersistentVolumeClaim").await?;
    let body = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}},
            "storageClassName": NO_CLASS, "volumeName": volume}});
    create_body(world, "PersistentVolumeClaim", &claim, body, false)
        .await
        .map_err(|e| format!("cannot create the claim {claim:?}: {e}"))?;
    let uid = world.uid_of("PersistentVolumeClaim", &claim)?;
    let reference = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": namespace, "name": claim, "uid": uid});
    create_volume(world, &volume, &policy, reference, &provisioner, &driver).await?;
    volume_phase(world, volume, "Bound".into()).await
}

/// `Given a PersistentVolume named "v" reserved for PersistentVolumeClaim "c" with reclaim
/// policy Delete`: pre-bound to a claim by name alone (no uid), the claim not created.
#[given(
    regex = r#"^a PersistentVolume named "([^"]+)" reserved for PersistentVolumeClaim "([^"]+)" with reclaim policy (Retain|Delete|Recycle)$"#
)]
async fn reserved_volume(world: &mut KubeWorld, volume: String, claim: String, policy: String) -> StepResult {
    let (_, _, namespace) = world.api("PersistentVolumeClaim").await?;
    let reference = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": namespace, "name": claim});
    create_volume(world, &volume, &policy, reference, "", "").await
}

/// `Given a PersistentVolume named "v" also claiming PersistentVolumeClaim "c" with reclaim
/// policy Delete provisioned by "example.com/p"`: a second volume whose claimRef names the
/// claim of the scenario (uid included) while the claim is bound to another volume.
#[given(
    regex = r#"^a PersistentVolume named "([^"]+)" also claiming PersistentVolumeClaim "([^"]+)" with reclaim policy (Retain|Delete|Recycle)(?: provisioned by "([^"]+)")?$"#
)]
async fn second_volume(world: &mut KubeWorld, volume: String, claim: String, policy: String, provisioner: String) -> StepResult {
    let (_, _, namespace) = world.api("PersistentVolumeClaim").await?;
    let uid = world.uid_of("PersistentVolumeClaim", &claim)?;
    let reference = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": namespace, "name": claim, "uid": uid});
    create_volume(world, &volume, &policy, reference, &provisioner, "").await
}

/// Creates a 1 Mi volume of no class with `claim_ref`.
async fn create_volume(world: &mut KubeWorld, name: &str, policy: &str, claim_ref: Value, provisioner: &str, driver: &str) -> StepResult {
    let mut body = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
        "spec": {"capacity": {"storage": "1Mi"}, "accessModes": ["ReadWriteOnce"], "persistentVolumeReclaimPolicy": policy,
            "storageClassName": NO_CLASS, "claimRef": claim_ref}});
    if driver.is_empty() {
        body["spec"]["local"] = json!({"path": "/mnt/kubegc"});
        body["spec"]["nodeAffinity"] = json!({"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["kubegc-no-such-node"]}]}]}});
    } else {
        body["spec"]["csi"] = json!({"driver": driver, "volumeHandle": name});
    }
    if !provisioner.is_empty() {
        body["metadata"]["annotations"] = json!({kubegc::cleanup::pv_reclaim::PROVISIONED_BY: provisioner});
    }
    create_body(world, "PersistentVolume", name, body, false).await.map_err(|e| format!("cannot create the volume {name:?}: {e}"))
}

/// `Then PersistentVolume "v" becomes Released` (waits up to the backend's timeout).
#[given(regex = r#"^PersistentVolume "([^"]+)" becomes (Available|Bound|Released|Failed)$"#)]
#[then(regex = r#"^PersistentVolume "([^"]+)" becomes (Available|Bound|Released|Failed)$"#)]
async fn volume_phase(world: &mut KubeWorld, name: String, phase: String) -> StepResult {
    volume_field(world, &name, "phase", &phase, |have, want| have == want).await
}

/// `Then PersistentVolume "v" gets a message containing "no volume plugin matched"` (waits
/// up to the backend's timeout).
#[then(regex = r#"^PersistentVolume "([^"]+)" gets a message containing "([^"]+)"$"#)]
async fn volume_message(world: &mut KubeWorld, name: String, text: String) -> StepResult {
    volume_field(world, &name, "message", &text, |have, want| have.contains(want)).await
}

/// Waits until `status.<field>` of volume `name` matches `want`.
async fn volume_field(world: &mut KubeWorld, name: &str, field: &str, want: &str, matches: fn(&str, &str) -> bool) -> StepResult {
    let api = world.object_api("PersistentVolume", name).await?;
    let last = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let result = world
        .poll(&format!("PersistentVolume {name:?} to have status.{field} {want:?}"), || {
            let (api, last) = (api.clone(), last.clone());
            async move {
                let volume = api.get_opt(name).await.map_err(|e| e.to_string())?.ok_or(format!("PersistentVolume {name:?} is gone"))?;
                let have = volume.data["status"][field].as_str().unwrap_or("").to_string();
                let found = matches(&have, want);
                *last.lock().unwrap_or_else(|p| p.into_inner()) = have;
                Ok(found)
            }
        })
        .await;
    result.map_err(|e| format!("{e}; it has {:?}", last.lock().unwrap_or_else(|p| p.into_inner())))
}

/// `Given a Pod named "p" on node "n" in phase Succeeded using PersistentVolumeClaim "c"`
/// (node and phase optional: without a node the pod stays unscheduled, without a phase Pending).
#[given(
    regex = r#"^a Pod named "([^"]+)"(?: on node "([^"]+)")?(?: in phase (Pending|Running|Succeeded|Failed))? using PersistentVolumeClaim "([^"]+)"$"#
)]
async fn pod_using_claim(world: &mut KubeWorld, name: String, node: String, phase: String, claim: String) -> StepResult {
    let (api, _, _) = world.api("Pod").await?;
    let mut body = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {
        "terminationGracePeriodSeconds": 0,
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]}});
    if node.is_empty() {
        unscheduled_without_nodes(world, &mut body["spec"]);
    } else {
        body["spec"]["nodeName"] = json!(node);
    }
    create_body(world, "Pod", &name, body, false).await.map_err(|e| format!("cannot create Pod {name:?}: {e}"))?;
    if !phase.is_empty() {
        world.settled = false;
        let patch = json!({"status": {"phase": phase}});
        api.patch_status(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map_err(|e| format!("cannot set the phase of {name:?}: {e}"))?;
    }
    Ok(())
}
