//! PersistentVolumeClaims and PersistentVolumes: the StorageObjectInUseProtection admission
//! plugin (on by default) gives each a protection finalizer at create, and the pvc-protection
//! and pv-protection controllers remove it from a terminating claim no pod uses, a terminating
//! volume no claim is bound to.

use serde_json::Value;

use crate::apiserver::kinds::add_finalizer;
use crate::apiserver::storage::Storage;
use crate::apiserver::storage::hooks::Kind;
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::validation::string_list;

/// The finalizer every new PersistentVolumeClaim gets; the pvc-protection controller removes
/// it once no pod uses the claim.
pub const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";

/// The finalizer every new PersistentVolume gets, removed once the volume is not bound.
pub const PV_PROTECTION: &str = "kubernetes.io/pv-protection";

/// core/v1 PersistentVolumeClaims.
pub struct Claims;

impl Kind for Claims {
    fn admit_on_create(&self, claim: &mut Value) {
        add_finalizer(claim, PVC_PROTECTION);
    }

    fn has_controller(&self) -> bool {
        true
    }

    fn reconcile(&self, storage: &mut Storage, key: &ObjectKey, claim: &Value, _node_agent: bool) {
        let in_use = claim_in_use(storage, &key.namespace, &key.name);
        release_protected(storage, key, claim, PVC_PROTECTION, in_use);
    }
}

/// core/v1 PersistentVolumes.
pub struct Volumes;

impl Kind for Volumes {
    fn admit_on_create(&self, volume: &mut Value) {
        add_finalizer(volume, PV_PROTECTION);
    }

    fn has_controller(&self) -> bool {
        true
    }

    fn reconcile(&self, storage: &mut Storage, key: &ObjectKey, volume: &Value, _node_agent: bool) {
        let bound = volume["status"]["phase"] == "Bound";
        release_protected(storage, key, volume, PV_PROTECTION, bound);
    }
}

/// A terminating claim or volume keeps its protection `finalizer` while `in_use`.
fn release_protected(storage: &mut Storage, key: &ObjectKey, object: &Value, finalizer: &str, in_use: bool) {
    if !string_list(&object["metadata"], "finalizers").iter().any(|f| f == finalizer) {
        storage.awaiting_controllers.remove(key);
    } else if !in_use {
        storage.remove_controller_finalizer(key, object, finalizer);
    }
}

/// Whether a pod in `namespace` that has not finished mounts the claim `name`.
fn claim_in_use(storage: &Storage, namespace: &str, name: &str) -> bool {
    storage.store.list("", "pods", Some(namespace), None).any(|(_, pod)| {
        let finished = matches!(pod["status"]["phase"].as_str(), Some("Succeeded" | "Failed"));
        let volumes = pod["spec"]["volumes"].as_array().map(Vec::as_slice).unwrap_or_default();
        !finished && volumes.iter().any(|v| v["persistentVolumeClaim"]["claimName"] == name)
    })
}
