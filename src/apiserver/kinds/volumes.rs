//! PersistentVolumeClaims and PersistentVolumes: the StorageObjectInUseProtection admission
//! plugin (on by default) gives each a protection finalizer at create
//! ([`crate::apiserver::admission`]), and the pvc-protection
//! and pv-protection controllers remove it from a terminating claim no pod uses, a terminating
//! volume no claim is bound to.

use serde_json::Value;

use crate::apiserver::admission::{Admission, PV_PROTECTION, PVC_PROTECTION};
use crate::apiserver::storage::Storage;
use crate::apiserver::storage::hooks::Kind;
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::validation::string_list;

/// core/v1 PersistentVolumeClaims.
pub struct Claims;

impl Kind for Claims {
    fn admission(&self) -> Admission {
        Admission { protection_finalizer: Some(PVC_PROTECTION) }
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
    fn admission(&self) -> Admission {
        Admission { protection_finalizer: Some(PV_PROTECTION) }
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
