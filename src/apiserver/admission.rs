//! What the default admission plugins do to a new object, as a value: the
//! StorageObjectInUseProtection plugin (on by default) gives every new claim and volume a
//! protection finalizer, which the pvc-protection and pv-protection controllers remove; the
//! ServiceAccount plugin refuses a pod whose service account does not exist (the store looks
//! it up, see [`Admission::service_account`]); the RuntimeClass plugin, after it, refuses a pod
//! naming a RuntimeClass that does not exist ([`Admission::runtime_class`]).

use serde_json::{Value, json};

/// The finalizer every new PersistentVolumeClaim gets; the pvc-protection controller removes
/// it once no pod uses the claim.
pub const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";

/// The finalizer every new PersistentVolume gets, removed once the volume is not bound.
pub const PV_PROTECTION: &str = "kubernetes.io/pv-protection";

/// What admission adds to a new object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Admission {
    /// The storage-protection finalizer.
    pub protection_finalizer: Option<&'static str>,
    /// Whether the object is a pod whose `spec.serviceAccountName` must exist: a missing one is
    /// refused with 403 (`error looking up service account`). The `default` account counts as
    /// present in every namespace, even in the moment before the service account controller
    /// makes it (upstream refuses a pod then, which is why clients wait for the account).
    pub service_account: bool,
    /// Whether the object is a pod whose `spec.runtimeClassName` must exist: a missing one is
    /// refused with 403 (`pod rejected: RuntimeClass "x" not found`, upstream
    /// `plugin/pkg/admission/runtimeclass`). Only create is admitted, as upstream's plugin.
    pub runtime_class: bool,
}

impl Admission {
    /// The service account a new pod names, if admission must find it.
    pub fn service_account_of(self, object: &Value) -> Option<&str> {
        let name = object["spec"]["serviceAccountName"].as_str().filter(|n| !n.is_empty() && *n != "default");
        if self.service_account { name } else { None }
    }

    /// The RuntimeClass a new pod names, if admission must find it.
    pub fn runtime_class_of(self, object: &Value) -> Option<&str> {
        let name = object["spec"]["runtimeClassName"].as_str().filter(|n| !n.is_empty());
        if self.runtime_class { name } else { None }
    }
}

impl Admission {
    /// Adds what admission adds to `object`.
    pub fn admit(self, object: &mut Value) {
        let Some(finalizer) = self.protection_finalizer else { return };
        let meta = &mut object["metadata"];
        match meta["finalizers"].as_array_mut() {
            Some(list) if list.iter().any(|f| f == finalizer) => {}
            Some(list) => list.push(json!(finalizer)),
            None => meta["finalizers"] = json!([finalizer]),
        }
    }
}
