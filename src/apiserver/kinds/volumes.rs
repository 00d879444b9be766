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

/// A kind whose objects the StorageObjectInUseProtection plugin protects: a new object gets
/// `finalizer`, and a terminating one keeps it while `in_use` says so.
pub struct Protected {
    /// The protection finalizer.
    pub finalizer: &'static str,
    /// Whether the object is still in use.
    pub in_use: fn(&Storage, &ObjectKey, &Value) -> bool,
}

/// core/v1 PersistentVolumeClaims, in use while a pod that has not finished mounts them.
pub const CLAIMS: Protected =
    Protected { finalizer: PVC_PROTECTION, in_use: |storage, key, _| claim_in_use(storage, &key.namespace, &key.name) };

/// core/v1 PersistentVolumes, in use while bound.
pub const VOLUMES: Protected = Protected { finalizer: PV_PROTECTION, in_use: |_, _, volume| volume["status"]["phase"] == "Bound" };

impl Kind for Protected {
    fn admission(&self) -> Admission {
        Admission { protection_finalizer: Some(self.finalizer), ..Admission::default() }
    }

    fn has_controller(&self) -> bool {
        true
    }

    /// The pvc-protection or pv-protection controller: a terminating object keeps its
    /// finalizer while in use.
    fn reconcile(&self, storage: &mut Storage, key: &ObjectKey, object: &Value, _node_agent: bool) {
        if !string_list(&object["metadata"], "finalizers").iter().any(|f| f == self.finalizer) {
            storage.awaiting_controllers.remove(key);
        } else if !(self.in_use)(storage, key, object) {
            storage.remove_controller_finalizer(key, object, self.finalizer);
        }
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
