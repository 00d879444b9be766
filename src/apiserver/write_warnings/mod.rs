//! The warnings a create or an update of an object gives its client: each registry strategy's
//! `WarningsOnCreate` and `WarningsOnUpdate` (pkg/registry/*/*/strategy.go), for the kinds that
//! have them. A status update gives none.

mod pods;
mod volumes;

use serde_json::Value;

/// Kinds whose name becomes part of pod names and hostnames, and which warn when it is not a
/// DNS label (deployment, replicaset, replicationcontroller, job and cronjob strategies).
const NAMES_PODS: [(&str, &str); 5] =
    [("apps", "Deployment"), ("apps", "ReplicaSet"), ("", "ReplicationController"), ("batch", "Job"), ("batch", "CronJob")];

/// The warnings a create of `object` of `kind` in `group` gives.
pub fn on_create(group: &str, kind: &str, object: &Value) -> Vec<String> {
    let name = object["metadata"]["name"].as_str().unwrap_or("");
    let mut warnings = Vec::new();
    let problems = crate::apiserver::validation::dns_label_problems(name);
    if !problems.is_empty() {
        let used_in = match (group, kind) {
            ("", "Pod") => Some("the Pod's hostname"),
            _ if NAMES_PODS.contains(&(group, kind)) => Some("Pod names and hostnames"),
            _ => None,
        };
        if let Some(used_in) = used_in {
            warnings.push(format!(
                "metadata.name: this is used in {used_in}, which can result in surprising behavior; a DNS label is recommended: [{}]",
                problems.join(" ")
            ));
        }
    }
    warnings.extend(of_spec(group, kind, object));
    warnings
}

/// The warnings an update to `new` of `kind` in `group` gives; `new_generation` says whether
/// the update bumps the generation (the pod template's warnings come only then, and a pod's
/// update gives none: pkg/registry/core/pod/strategy.go skips them on that busy path).
pub fn on_update(group: &str, kind: &str, new: &Value, new_generation: bool) -> Vec<String> {
    match (group, kind) {
        ("", "Pod") => Vec::new(),
        ("", "PersistentVolume" | "PersistentVolumeClaim") => of_spec(group, kind, new),
        ("apps", "StatefulSet") => {
            let mut warnings = if new_generation { pods::of_template_owner(group, kind, new) } else { Vec::new() };
            warnings.extend(volumes::of_stateful_set(new, ".Spec"));
            warnings
        }
        _ if new_generation => pods::of_template_owner(group, kind, new),
        _ => Vec::new(),
    }
}

/// The warnings about an object's spec, as a create gives them.
fn of_spec(group: &str, kind: &str, object: &Value) -> Vec<String> {
    match (group, kind) {
        ("", "PersistentVolume") => volumes::of_volume(object),
        ("", "PersistentVolumeClaim") => volumes::of_claim(object),
        ("apps", "StatefulSet") => {
            let mut warnings = pods::of_template_owner(group, kind, object);
            warnings.extend(volumes::of_stateful_set(object, ""));
            warnings
        }
        _ => pods::of_template_owner(group, kind, object),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_that_become_hostnames_are_warned_about_on_create_only() {
        let pod = json!({"metadata": {"name": "a.b"}, "spec": {"containers": []}});
        let warning = "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]";
        assert_eq!(on_create("", "Pod", &pod), [warning]);
        assert!(on_update("", "Pod", &pod, true).is_empty());
        assert!(on_create("", "ConfigMap", &pod).is_empty());
        let job = json!({"metadata": {"name": "x".repeat(64)}, "spec": {"template": {"spec": {"containers": []}}}});
        assert!(on_create("batch", "Job", &job)[0].ends_with("[must be no more than 63 characters]"));
    }
}
