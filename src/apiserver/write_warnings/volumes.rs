//! The warnings a write of a PersistentVolume or a claim gives (pkg/api/persistentvolume/util.go
//! `GetWarningsForPersistentVolume`, pkg/api/persistentvolumeclaim/util.go
//! `GetWarningsForPersistentVolumeClaim`): deprecated annotations, the Recycle reclaim policy,
//! deprecated node labels in node affinity, removed volume plugins, fractional byte sizes.

use serde_json::Value;

use super::pods::{items, node_selector_term, text};
use crate::quantity;

/// What replaced the storage-class annotation.
const STORAGE_CLASS_ANNOTATION: (&str, &str) =
    ("volume.beta.kubernetes.io/storage-class", "deprecated since v1.8; use \"storageClassName\" attribute instead");

/// Annotations a PersistentVolume should no longer carry.
const VOLUME_ANNOTATIONS: [(&str, &str); 2] = [
    STORAGE_CLASS_ANNOTATION,
    ("volume.beta.kubernetes.io/mount-options", "deprecated since v1.31; use \"mountOptions\" attribute instead"),
];

/// Volume plugins removed from Kubernetes that a PersistentVolume may still name, with when.
const REMOVED_PLUGINS: [(&str, &str); 6] = [
    ("cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("rbd", "deprecated in v1.28, non-functional in v1.31+"),
];

/// The warnings about PersistentVolume `volume`.
pub fn of_volume(volume: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    for (key, why) in VOLUME_ANNOTATIONS {
        if volume["metadata"]["annotations"].get(key).is_some() {
            warnings.push(format!("metadata.annotations[{key}]: {why}"));
        }
    }
    let spec = &volume["spec"];
    if spec["persistentVolumeReclaimPolicy"] == "Recycle" {
        warnings.push(
            "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning."
                .to_string(),
        );
    }
    for (i, term) in items(&spec["nodeAffinity"]["required"]["nodeSelectorTerms"]).iter().enumerate() {
        warnings.extend(node_selector_term(&format!("spec.nodeAffinity.required.nodeSelectorTerms[{i}]"), term, false));
    }
    for (plugin, why) in REMOVED_PLUGINS {
        if spec[plugin].is_object() {
            warnings.push(format!("spec.{plugin}: {why}"));
        }
    }
    warnings
}

/// The warnings about PersistentVolumeClaim `claim`.
pub fn of_claim(claim: &Value) -> Vec<String> {
    let (key, why) = STORAGE_CLASS_ANNOTATION;
    let annotated = claim["metadata"]["annotations"].get(key).is_some();
    let mut warnings: Vec<String> = annotated.then(|| format!("metadata.annotations[{key}]: {why}")).into_iter().collect();
    warnings.extend(of_claim_spec("spec", &claim["spec"]));
    warnings
}

/// The warnings about a StatefulSet's claim templates, each spec's path ending in `spec_field`
/// (upstream's update names it `.Spec`, its create not at all), and a negative history limit.
pub fn of_stateful_set(set: &Value, spec_field: &str) -> Vec<String> {
    let mut warnings: Vec<String> = items(&set["spec"]["volumeClaimTemplates"])
        .iter()
        .enumerate()
        .flat_map(|(i, template)| of_claim_spec(&format!("spec.volumeClaimTemplates[{i}]{spec_field}"), &template["spec"]))
        .collect();
    if set["spec"]["revisionHistoryLimit"].as_i64().is_some_and(|limit| limit < 0) {
        warnings
            .push("spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended".to_string());
    }
    warnings
}

/// Storage requests and limits that are not a whole number of bytes, in a claim spec at `path`.
fn of_claim_spec(path: &str, spec: &Value) -> Vec<String> {
    ["requests", "limits"]
        .iter()
        .filter_map(|list| {
            let size = text(&spec["resources"][*list]["storage"]);
            quantity::is_fractional(size).then(|| {
                let written = quantity::canonical(size).unwrap_or_default();
                format!("{path}.resources.{list}[storage]: fractional byte value {written:?} is invalid, must be an integer")
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn recycling_deprecated_plugins_and_fractional_sizes_are_warned_about() {
        let volume = json!({"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "slow"}},
            "spec": {"persistentVolumeReclaimPolicy": "Recycle", "rbd": {},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "beta.kubernetes.io/os"}]}]}}}});
        assert_eq!(
            of_volume(&volume),
            [
                "metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use \"storageClassName\" attribute instead",
                "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.",
                "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/os is deprecated since v1.14; use \"kubernetes.io/os\" instead",
                "spec.rbd: deprecated in v1.28, non-functional in v1.31+",
            ]
        );
        let claim = json!({"spec": {"resources": {"requests": {"storage": "1.5"}, "limits": {"storage": "2Gi"}}}});
        assert_eq!(of_claim(&claim), ["spec.resources.requests[storage]: fractional byte value \"1500m\" is invalid, must be an integer"]);
    }
}
