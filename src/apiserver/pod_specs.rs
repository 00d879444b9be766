//! The pod specs an object holds (a Pod's own, a workload's template, a Job template's), and
//! what upstream's `ValidatePodSpec` (`pkg/apis/core/validation/validation.go`) refuses of its
//! containers: none at all, a container without a name (or one that is no DNS label) or an
//! image (`validateContainerCommon`), and a volume mount or device naming a volume the pod does
//! not have (`validateVolumeMounts`, `validateVolumeDevices`: `Not found`). A StatefulSet's
//! claim templates are volumes of its pods (`volumesToAddForTemplates` in
//! `pkg/apis/apps/validation/validation.go`).

use serde_json::Value;

use crate::apiserver::catalogue::{NameRule, ResourceInfo};
use crate::apiserver::status::FieldError;
use crate::apiserver::validation::validate_name;

/// Every pod spec `object` (of `resource`) holds, with its field path.
pub fn embedded<'a>(resource: &ResourceInfo, object: &'a Value) -> Vec<(&'a Value, &'static str)> {
    if resource.custom {
        return Vec::new();
    }
    let spec = &object["spec"];
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("", "Pod") => vec![(spec, "spec")],
        ("", "PodTemplate") => vec![(&object["template"]["spec"], "template.spec")],
        // A ReplicationController's template is a pointer: one that is absent holds no spec.
        ("", "ReplicationController") if spec["template"].is_null() => Vec::new(),
        ("", "ReplicationController") | ("apps", "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Deployment") | ("batch", "Job") => {
            vec![(&spec["template"]["spec"], "spec.template.spec")]
        }
        ("batch", "CronJob") => vec![(&spec["jobTemplate"]["spec"]["template"]["spec"], "spec.jobTemplate.spec.template.spec")],
        _ => Vec::new(),
    }
}

/// What upstream refuses of how the pod specs of `object` refer to their volumes.
pub fn validate(resource: &ResourceInfo, object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (spec, path) in embedded(resource, object) {
        let claims = items(&object["spec"], "volumeClaimTemplates").filter(|_| resource.kind == "StatefulSet");
        let volumes: Vec<&str> =
            items(spec, "volumes").chain(claims.map(|(i, c)| (i, &c["metadata"]))).filter_map(|(_, v)| v["name"].as_str()).collect();
        if items(spec, "containers").next().is_none() {
            errors.push(FieldError::required(format!("{path}.containers"), ""));
        }
        for containers in ["containers", "initContainers", "ephemeralContainers"] {
            for (i, container) in items(spec, containers) {
                let at = format!("{path}.{containers}[{i}]");
                match container["name"].as_str().filter(|n| !n.is_empty()) {
                    Some(name) => errors.extend(validate_name(name, NameRule::Label, &format!("{at}.name"))),
                    None => errors.push(FieldError::required(format!("{at}.name"), "")),
                }
                if container["image"].as_str().is_none_or(str::is_empty) {
                    errors.push(FieldError::required(format!("{at}.image"), ""));
                }
                for (list, key) in [("volumeMounts", "name"), ("volumeDevices", "name")] {
                    for (j, reference) in items(container, list) {
                        if let Some(name) = reference[key].as_str().filter(|n| !n.is_empty() && !volumes.contains(n)) {
                            errors.push(FieldError::not_found(format!("{at}.{list}[{j}].{key}"), name));
                        }
                    }
                }
            }
        }
    }
    errors
}

/// The items of the list at `field` of `object`, with their indexes.
pub fn items<'a>(object: &'a Value, field: &str) -> impl Iterator<Item = (usize, &'a Value)> {
    object[field].as_array().into_iter().flatten().enumerate()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::apiserver::catalogue::Catalogue;

    #[test]
    fn a_mount_must_name_a_volume_of_the_pod() {
        let deployments = Catalogue::new().lookup("apps", "v1", "deployments").unwrap();
        let deployment = json!({"spec": {"template": {"spec": {"volumes": [{"name": "data"}],
            "containers": [{"name": "c", "image": "i", "volumeMounts": [{"name": "data"}, {"name": "token"}]}]}}}});
        assert_eq!(
            validate(&deployments, &deployment),
            vec![FieldError::not_found("spec.template.spec.containers[0].volumeMounts[1].name", "token")]
        );
        let stateful_sets = Catalogue::new().lookup("apps", "v1", "statefulsets").unwrap();
        let mut stateful_set = deployment.clone();
        assert_eq!(validate(&stateful_sets, &stateful_set).len(), 1);
        stateful_set["spec"]["volumeClaimTemplates"] = json!([{"metadata": {"name": "token"}}]);
        assert!(validate(&stateful_sets, &stateful_set).is_empty(), "a claim template is a volume of the pods");
    }

    #[test]
    fn a_template_s_containers_are_required_with_their_names_and_images() {
        let jobs = Catalogue::new().lookup("batch", "v1", "jobs").unwrap();
        assert_eq!(validate(&jobs, &json!({})), vec![FieldError::required("spec.template.spec.containers", "")]);
        let job = json!({"spec": {"template": {"spec": {"containers": [{"name": "Big"}], "initContainers": [{"image": "i"}]}}}});
        let fields: Vec<String> = validate(&jobs, &job).into_iter().map(|e| e.field).collect();
        let at = "spec.template.spec";
        assert_eq!(
            fields,
            [format!("{at}.containers[0].name"), format!("{at}.containers[0].image"), format!("{at}.initContainers[0].name")]
        );
    }
}
