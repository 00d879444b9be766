//! The specs of PersistentVolumes and PersistentVolumeClaims as kube-apiserver validates them
//! (kubernetes pkg/apis/core/validation/validation.go). A volume (`ValidatePersistentVolumeSpec`,
//! not inline): access modes, capacity, reclaim policy, exactly one volume source, the required
//! fields of the sources clusters use most (hostPath, nfs, local, csi) and the volume mode; other
//! sources count as a source but their own fields are not checked. A claim
//! (`ValidatePersistentVolumeClaimSpec`): access modes, a positive storage request, the class name
//! and the volume mode; its selector and data sources are not checked.

use serde_json::{Value, json};

use crate::apiserver::catalogue::NameRule;
use crate::apiserver::pod_specs::items;
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::changed_fields;
use crate::apiserver::validation::validate_name;
use crate::quantity;

/// Volume access modes (`supportedAccessModes`, listed sorted).
const ACCESS_MODES: &[&str] = &["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
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
    let mut errors = access_modes(spec, "");
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
    errors.extend(volume_mode(spec));
    errors
}

/// The errors of a PersistentVolumeClaim's `spec`, in upstream's order.
pub fn claim_errors(spec: &Value) -> Vec<FieldError> {
    let mut errors = access_modes(spec, "at least 1 access mode is required");
    const STORAGE: &str = "spec.resources[storage]";
    let request = &spec["resources"]["requests"]["storage"];
    let request = request.as_str().map(str::to_string).or_else(|| request.as_number().map(ToString::to_string));
    match request.as_deref().and_then(quantity::canonical) {
        None => errors.push(FieldError::required(STORAGE, "")),
        Some(size) if size == "0" || size.starts_with('-') => {
            errors.push(FieldError::invalid(STORAGE, json!(size), "must be greater than zero"));
        }
        Some(_) => {}
    }
    if let Some(class) = spec["storageClassName"].as_str().filter(|c| !c.is_empty()) {
        errors.extend(validate_name(class, NameRule::Subdomain, "spec.storageClassName"));
    }
    errors.extend(volume_mode(spec));
    errors
}

/// An unsupported volume mode.
fn volume_mode(spec: &Value) -> Option<FieldError> {
    let mode = spec["volumeMode"].as_str().filter(|m| !VOLUME_MODES.contains(m))?;
    Some(FieldError::not_supported("spec.volumeMode", json!(mode), VOLUME_MODES))
}

/// At least one access mode (refused with `required_detail` when none), each supported, and
/// ReadWriteOncePod alone.
fn access_modes(spec: &Value, required_detail: &str) -> Vec<FieldError> {
    let modes: Vec<&str> = items(spec, "accessModes").filter_map(|(_, m)| m.as_str()).collect();
    let mut errors = Vec::new();
    if items(spec, "accessModes").next().is_none() {
        errors.push(FieldError::required("spec.accessModes", required_detail));
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

/// The annotation that named a claim's class before `spec.storageClassName`.
const BETA_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// The refusal of an update that changes stored claim `old` into `new` beyond what may change
/// (`ValidatePersistentVolumeClaimUpdate`): the volume name once, a class set where none was
/// (and the beta annotation named none other), a bound claim's storage request, and its volume
/// attributes class. Upstream follows the message with go-cmp's diff of the two specs; the fake
/// names the fields that differ ([`changed_fields`]).
pub fn claim_change_refused(new: &Value, old: &Value) -> Vec<FieldError> {
    let (mut new_spec, old_spec) = (new["spec"].clone(), &old["spec"]);
    if !new_spec.is_object() || !old_spec.is_object() {
        return Vec::new();
    }
    let mut keep = |field: &str| match old_spec.get(field) {
        Some(value) => new_spec[field] = value.clone(),
        None => {
            if let Some(spec) = new_spec.as_object_mut() {
                spec.remove(field);
            }
        }
    };
    if old_spec["volumeName"].as_str().unwrap_or_default().is_empty() {
        keep("volumeName");
    }
    let beta_class = &old["metadata"]["annotations"][BETA_CLASS];
    if old_spec["storageClassName"].is_null()
        && new["spec"]["storageClassName"].is_string()
        && (beta_class.is_null() || *beta_class == new["spec"]["storageClassName"])
    {
        keep("storageClassName");
    }
    keep("volumeAttributesClassName");
    if new["status"]["phase"] == "Bound" && new_spec["resources"]["requests"].is_object() {
        new_spec["resources"]["requests"]["storage"] = old_spec["resources"]["requests"]["storage"].clone();
    }
    if new_spec == *old_spec {
        return Vec::new();
    }
    let changed = changed_fields(&new_spec, old_spec, "spec");
    vec![FieldError::forbidden(
        "spec",
        format!(
            "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\nchanged: {changed}"
        ),
    )]
}

/// The refusal of an update that changes stored volume `old` into `new` beyond what may change
/// (`ValidatePersistentVolumeUpdate`): its source (a CSI source may gain a controller-expand
/// secret) and its volume mode. Upstream follows the source's message with a diff; the fake
/// names the sources that differ.
pub fn volume_change_refused(new: &Value, old: &Value) -> Vec<FieldError> {
    let sources = |spec: &Value| -> Value {
        SOURCES.iter().filter_map(|(field, _)| spec.get(*field).map(|source| (field.to_string(), source.clone()))).collect()
    };
    let (mut new_sources, old_sources) = (sources(&new["spec"]), sources(&old["spec"]));
    const EXPAND_SECRET: &str = "controllerExpandSecretRef";
    if old_sources["csi"].is_object() && old_sources["csi"].get(EXPAND_SECRET).is_none() {
        if let Some(csi) = new_sources.get_mut("csi").and_then(Value::as_object_mut) {
            csi.remove(EXPAND_SECRET);
        }
    }
    let mut errors = Vec::new();
    if new_sources != old_sources {
        let changed = changed_fields(&new_sources, &old_sources, "spec");
        errors.push(FieldError::forbidden(
            "spec.persistentvolumesource",
            format!("spec.persistentvolumesource is immutable after creation\nchanged: {changed}"),
        ));
    }
    if new["spec"]["volumeMode"] != old["spec"]["volumeMode"] {
        errors.push(FieldError::invalid("volumeMode", new["spec"]["volumeMode"].clone(), "field is immutable"));
    }
    errors
}
