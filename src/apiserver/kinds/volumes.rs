//! PersistentVolumeClaims and PersistentVolumes: the StorageObjectInUseProtection admission
//! plugin (on by default, upstream `plugin/pkg/admission/storage/storageobjectinuseprotection`)
//! gives each a protection finalizer at create ([`crate::apiserver::admission`]). The
//! pvc-protection and pv-protection controllers that remove it are not the API server's: they
//! are ordinary clients, [`crate::cleanup::pvc_protection`] and [`crate::cleanup::pv_protection`].
//! A new volume starts pending, its phase changed now (upstream
//! `pkg/registry/core/persistentvolume/strategy.go`, `PrepareForCreate`).

use serde_json::{Value, json};

use crate::apiserver::admission::{Admission, PV_PROTECTION, PVC_PROTECTION};
use crate::apiserver::storage::hooks::Kind;

/// A kind whose new objects the StorageObjectInUseProtection plugin gives `finalizer`.
pub struct Protected {
    /// The protection finalizer.
    pub finalizer: &'static str,
    /// Whether a new object's status is reset to a phase that changed at its creation.
    pub phase_changed_at_create: bool,
}

/// core/v1 PersistentVolumeClaims.
pub const CLAIMS: Protected = Protected { finalizer: PVC_PROTECTION, phase_changed_at_create: false };

/// core/v1 PersistentVolumes.
pub const VOLUMES: Protected = Protected { finalizer: PV_PROTECTION, phase_changed_at_create: true };

impl Kind for Protected {
    fn default_on_create(&self, object: &mut Value, now: &str) {
        if self.phase_changed_at_create && object.is_object() {
            object["status"] = json!({"phase": "Pending", "lastPhaseTransitionTime": now});
        }
    }

    fn admission(&self) -> Admission {
        Admission { protection_finalizer: Some(self.finalizer), ..Admission::default() }
    }
}
