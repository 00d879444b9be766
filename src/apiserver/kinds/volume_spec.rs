//! A PersistentVolume's spec as kube-apiserver validates it (kubernetes
//! pkg/apis/core/validation/validation.go, `ValidatePersistentVolumeSpec`, not inline): access
//! modes, capacity, reclaim policy, exactly one volume source, the required fields of the sources
//! clusters use most (hostPath, nfs, local, csi) and the volume mode. Other sources count as a
//! source but their own fields are not checked.

use serde_json::{Value, json};

use crate::apiserver::enums::ACCESS_MODES;
use crate::apiserver::pod_specs::items;
use crate::apiserver::status::FieldError;

/// PersistentVolume reclaim policies (`supportedReclaimPolicy`, listed sorted).
const RECLAIM_POLICIES: &[&str] = &["Delete", "Recycle", "Retain"];
/// Volume modes (`supportedVolumeModes`, listed sorted).
const VOLUME_MODES: &[&str] = &["Block", "Filesystem"];

/// The volume sources in the order upstream counts them, each with the path its "more than 1
/// volume type" error names (upstream writes `cephFS` for `cephfs`). FlexVolume counts but is
/// never the one refused.
const SOURCES: &[(&str, &str)] = &[
    ("hostPath", "hostPath"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("nfs", "nfs"),
    ("rbd", "rbd"),
    ("quobyte", "quobyte"),
    ("cephfs", "cephFS"),
    ("iscsi", "iscsi"),
    ("cinder", "cinder"),
    ("fc", "fc"),
    ("flexVolume", ""),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("scaleIO", "scaleIO"),
    ("local", "local"),
    ("storageos", "storageos"),
    ("csi", "csi"),
];

/// The errors of a PersistentVolume's `spec`, in upstream's order.
pub fn errors(spec: &Value) -> Vec<FieldError> {
    let mut errors = access_modes(spec);
    let capacity = spec["capacity"].as_object().filter(|c| !c.is_empty());
    if capacity.is_none() {
        errors.push(FieldError::required("spec.capacity", ""));
    }
    if capacity.is_none_or(|c| !c.contains_key("storage") || c.len() > 1) {
        let value = capacity.map_or(Value::Null, |c| Value::Object(c.clone()));
        errors.push(FieldError::not_supported("spec.capacity", value, &["storage"]));
    }
    if let Some(policy) = spec["persistentVolumeReclaimPolicy"].as_str().filter(|p| !p.is_empty() && !RECLAIM_POLICIES.contains(p)) {
        errors.push(FieldError::not_supported("spec.persistentVolumeReclaimPolicy", json!(policy), RECLAIM_POLICIES));
    }
    let mut counted = 0;
    for (field, refused_as) in SOURCES {
        let source = &spec[*field];
        if source.is_null() {
            continue;
        }
        if counted > 0 && !refused_as.is_empty() {
            errors.push(FieldError::forbidden(format!("spec.{refused_as}"), "may not specify more than 1 volume type"));
            continue;
        }
        counted += 1;
        errors.extend(source_errors(field, source, spec));
    }
    if counted == 0 {
        errors.push(FieldError::required("spec", "must specify a volume type"));
    }
    if let Some(mode) = spec["volumeMode"].as_str().filter(|m| !VOLUME_MODES.contains(m)) {
        errors.push(FieldError::not_supported("spec.volumeMode", json!(mode), VOLUME_MODES));
    }
    errors
}

/// The access modes: at least one, each supported, ReadWriteOncePod alone.
pub fn access_modes(spec: &Value) -> Vec<FieldError> {
    let modes: Vec<&str> = items(spec, "accessModes").filter_map(|(_, m)| m.as_str()).collect();
    let mut errors = Vec::new();
    if modes.is_empty() {
        errors.push(FieldError::required("spec.accessModes", ""));
    }
    for mode in modes.iter().filter(|m| !ACCESS_MODES.contains(m)) {
        errors.push(FieldError::not_supported("spec.accessModes", json!(mode), ACCESS_MODES));
    }
    let once_pod = modes.contains(&"ReadWriteOncePod");
    if once_pod && modes.iter().any(|m| *m != "ReadWriteOncePod" && ACCESS_MODES.contains(m)) {
        errors.push(FieldError::forbidden("spec.accessModes", "may not use ReadWriteOncePod with other access modes"));
    }
    errors
}

/// The required fields of the source `field` (`validateHostPathVolumeSource`,
/// `validateNFSVolumeSource`, `validateLocalVolumeSource`, `validateCSIPersistentVolumeSource`).
fn source_errors(field: &str, source: &Value, spec: &Value) -> Vec<FieldError> {
    let text = |key: &str| source[key].as_str().unwrap_or_default();
    let required = |key: &str| FieldError::required(format!("spec.{field}.{key}"), "");
    let mut errors = Vec::new();
    match field {
        "hostPath" | "local" if text("path").is_empty() => errors.push(required("path")),
        "nfs" => {
            if text("server").is_empty() {
                errors.push(required("server"));
            }
            if text("path").is_empty() {
                errors.push(required("path"));
            }
            if !text("path").starts_with('/') {
                errors.push(FieldError::invalid("spec.nfs.path", json!(text("path")), "must be an absolute path"));
            }
        }
        "csi" => {
            if text("driver").is_empty() {
                errors.push(required("driver"));
            }
            if text("volumeHandle").is_empty() {
                errors.push(required("volumeHandle"));
            }
        }
        _ => {}
    }
    if field == "local" && spec["nodeAffinity"].is_null() {
        errors.push(FieldError::required("spec.nodeAffinity", "Local volume requires node affinity"));
    }
    errors
}
