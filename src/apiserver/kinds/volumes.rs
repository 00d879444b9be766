//! PersistentVolumeClaims and PersistentVolumes: the StorageObjectInUseProtection admission
//! plugin (on by default, upstream `plugin/pkg/admission/storage/storageobjectinuseprotection`)
//! gives each a protection finalizer at create ([`crate::apiserver::admission`]). The
//! pvc-protection and pv-protection controllers that remove it are not the API server's: they
//! are ordinary clients, [`crate::cleanup::pvc_protection`] and [`crate::cleanup::pv_protection`].

use crate::apiserver::admission::{Admission, PV_PROTECTION, PVC_PROTECTION};
use crate::apiserver::storage::hooks::Kind;

/// A kind whose new objects the StorageObjectInUseProtection plugin gives `finalizer`.
pub struct Protected {
    /// The protection finalizer.
    pub finalizer: &'static str,
}

/// core/v1 PersistentVolumeClaims.
pub const CLAIMS: Protected = Protected { finalizer: PVC_PROTECTION };

/// core/v1 PersistentVolumes.
pub const VOLUMES: Protected = Protected { finalizer: PV_PROTECTION };

impl Kind for Protected {
    fn admission(&self) -> Admission {
        Admission { protection_finalizer: Some(self.finalizer), ..Admission::default() }
    }
}
