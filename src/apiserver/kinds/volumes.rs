//! PersistentVolumeClaims and PersistentVolumes: the StorageObjectInUseProtection admission
//! plugin (on by default, upstream `plugin/pkg/admission/storage/storageobjectinuseprotection`)
//! gives each a protection finalizer at create ([`crate::apiserver::admission`]). The
//! pvc-protection and pv-protection controllers that remove it are not the API server's: they
//! are ordinary clients, [`crate::cleanup::pvc_protection`] and [`crate::cleanup::pv_protection`].
//! A new volume starts pending, its phase changed now (upstream
//! `pkg/registry/core/persistentvolume/strategy.go`, `PrepareForCreate`).

use serde_json::{Value, json};

use crate::apiserver::admission::{Admission, PV_PROTECTION, PVC_PROTECTION};
use crate::apiserver::kinds::volume_spec;
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::{Kind, keep_stored, objects_along};
use crate::apiserver::storage::write::Target;

/// A kind whose new objects the StorageObjectInUseProtection plugin gives `finalizer`.
pub struct Protected {
    /// The protection finalizer.
    pub finalizer: &'static str,
    /// Whether a new object's status is reset to a phase that changed at its creation.
    pub phase_changed_at_create: bool,
    /// The errors of an object's spec.
    pub spec_errors: fn(&Value) -> Vec<FieldError>,
    /// What an update of a stored object (the second) to the first may not change.
    pub change_refused: fn(&Value, &Value) -> Vec<FieldError>,
}

/// core/v1 PersistentVolumeClaims.
pub const CLAIMS: Protected = Protected {
    finalizer: PVC_PROTECTION,
    phase_changed_at_create: false,
    spec_errors: volume_spec::claim_errors,
    change_refused: volume_spec::claim_change_refused,
};

/// core/v1 PersistentVolumes.
pub const VOLUMES: Protected = Protected {
    finalizer: PV_PROTECTION,
    phase_changed_at_create: true,
    spec_errors: volume_spec::errors,
    change_refused: volume_spec::volume_change_refused,
};

impl Kind for Protected {
    fn default_on_create(&self, object: &mut Value, now: &str) {
        if self.phase_changed_at_create && object.is_object() {
            object["status"] = json!({"phase": "Pending", "lastPhaseTransitionTime": now});
        }
    }

    fn admission(&self) -> Admission {
        Admission { protection_finalizer: Some(self.finalizer), ..Admission::default() }
    }

    fn validate(&self, object: &Value) -> Vec<FieldError> {
        (self.spec_errors)(&object["spec"])
    }

    fn validate_update(&self, new: &Value, existing: &Value) -> Vec<FieldError> {
        [self.validate(new), (self.change_refused)(new, existing)].concat()
    }

    /// A volume's status write keeps the time of its last phase change while the phase stays,
    /// and sets it when the phase changes and the writer did not (upstream
    /// `persistentvolumeStatusStrategy.PrepareForUpdate`).
    fn prepare_update(&self, target: Target, new: &mut Value, existing: &Value, now: &str) -> Vec<FieldError> {
        if self.phase_changed_at_create && target == Target::Status && objects_along(new, &["status"]) {
            let phase = |object: &Value| object["status"]["phase"].as_str().unwrap_or("").to_string();
            let (given, stored) = (&new["status"][TRANSITION], &existing["status"][TRANSITION]);
            if phase(new) == phase(existing) && given.is_null() {
                keep_stored(new, existing, "status", TRANSITION);
            } else if phase(new) != phase(existing) && (given.is_null() || given == stored) {
                new["status"][TRANSITION] = json!(now);
            }
        }
        Vec::new()
    }
}

/// The status field of a volume's last phase change.
const TRANSITION: &str = "lastPhaseTransitionTime";
