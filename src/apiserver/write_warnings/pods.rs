//! The warnings a write of a pod or of a pod template gives (pkg/api/pod/warnings.go,
//! `warningsForPodSpecAndMeta`, which each kind's strategy calls in `WarningsOnCreate` and
//! `WarningsOnUpdate`): deprecated node labels, annotations and volume plugins, duplicates that
//! apply or services would trip on (image pull secrets, host aliases, environment variables,
//! ports and port names), a negative grace period, and affinity terms that select no pod.
//! Not modelled: fractional byte quantities, overlapping projected paths, IP address formats,
//! `hostIP` without `hostPort`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::apiserver::validation::label_value_problems;

/// Where the pod template of an object of `kind` in `group` is, for the kinds whose writes are
/// warned about their pods (`None` for a kind without one; a pod is its own template).
fn template_path(group: &str, kind: &str) -> Option<&'static [&'static str]> {
    match (group, kind) {
        ("", "Pod") => Some(&[]),
        ("", "PodTemplate") => Some(&["template"]),
        ("", "ReplicationController") | ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet") | ("batch", "Job") => {
            Some(&["spec", "template"])
        }
        ("batch", "CronJob") => Some(&["spec", "jobTemplate", "spec", "template"]),
        _ => None,
    }
}

/// The warnings about the pod template of `object` of `kind` in `group` (none for a kind
/// without one; a pod's own spec for a pod).
pub fn of_template_owner(group: &str, kind: &str, object: &Value) -> Vec<String> {
    let Some(path) = template_path(group, kind) else { return Vec::new() };
    let template = path.iter().fold(object, |at, field| &at[*field]);
    let prefix = path.join(".");
    for_template(&prefix, &template["spec"], &template["metadata"])
}

/// Labels that nodes no longer carry, or carry under another name, with what to use instead.
pub(super) const DEPRECATED_NODE_LABELS: [(&str, &str); 8] = [
    ("beta.kubernetes.io/arch", "deprecated since v1.14; use \"kubernetes.io/arch\" instead"),
    ("beta.kubernetes.io/os", "deprecated since v1.14; use \"kubernetes.io/os\" instead"),
    ("failure-domain.beta.kubernetes.io/region", "deprecated since v1.17; use \"topology.kubernetes.io/region\" instead"),
    ("failure-domain.beta.kubernetes.io/zone", "deprecated since v1.17; use \"topology.kubernetes.io/zone\" instead"),
    ("beta.kubernetes.io/instance-type", "deprecated since v1.17; use \"node.kubernetes.io/instance-type\" instead"),
    ("app.kubernetes.io/created-by", "deprecated since v1.9"),
    ("scheduler.alpha.kubernetes.io/preferAvoidPods", "deprecated since v1.22; use Taints and Tolerations instead"),
    ("node-role.kubernetes.io/master", "use \"node-role.kubernetes.io/control-plane\" instead"),
];

/// Pod annotations that no longer do anything.
const DEPRECATED_ANNOTATIONS: [(&str, &str); 3] = [
    ("scheduler.alpha.kubernetes.io/critical-pod", "non-functional in v1.16+; use the \"priorityClassName\" field instead"),
    ("security.alpha.kubernetes.io/sysctls", "non-functional in v1.11+; use the \"sysctls\" field instead"),
    ("security.alpha.kubernetes.io/unsafe-sysctls", "non-functional in v1.11+; use the \"sysctls\" field instead"),
];

/// Volume plugins removed from Kubernetes, with when.
const REMOVED_VOLUMES: [(&str, &str); 9] = [
    ("photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("gitRepo", "deprecated in v1.11, and disabled by default in v1.33+"),
    ("scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "deprecated in v1.28, non-functional in v1.31+"),
];

/// A field path under `prefix` as apimachinery's `field.Path` prints it.
fn at(prefix: &str, rest: &str) -> String {
    if prefix.is_empty() { rest.to_string() } else { format!("{prefix}.{rest}") }
}

/// Why node label `key` is deprecated, if it is (pkg/api/node/util.go).
pub(super) fn deprecated_node_label(key: &str) -> Option<&'static str> {
    DEPRECATED_NODE_LABELS.iter().find(|(label, _)| *label == key).map(|(_, why)| *why)
}

/// The warnings about a node selector term at `path`: deprecated keys, and with
/// `check_values` invalid label values (`GetWarningsForNodeSelectorTerm`).
pub(super) fn node_selector_term(path: &str, term: &Value, check_values: bool) -> Vec<String> {
    let mut warnings = Vec::new();
    for (i, expression) in items(&term["matchExpressions"]).iter().enumerate() {
        let key = text(&expression["key"]);
        if let Some(why) = deprecated_node_label(key) {
            warnings.push(format!("{path}.matchExpressions[{i}].key: {key} is {why}"));
        }
        if check_values {
            for (j, value) in items(&expression["values"]).iter().enumerate() {
                for problem in label_value_problems(text(value)) {
                    warnings.push(format!("{path}.matchExpressions[{i}].values[{j}]: {} is invalid, {problem}", text(value)));
                }
            }
        }
    }
    warnings
}

pub(super) fn items(value: &Value) -> &[Value] {
    value.as_array().map(Vec::as_slice).unwrap_or_default()
}

pub(super) fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("")
}

/// The warnings for a pod template's `spec` and `meta` at `prefix` (empty for a pod).
fn for_template(prefix: &str, spec: &Value, meta: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    for key in spec["nodeSelector"].as_object().into_iter().flat_map(|m| m.keys()) {
        if let Some(why) = deprecated_node_label(key) {
            warnings.push(format!("{}[{key}]: {why}", at(prefix, "spec.nodeSelector")));
        }
    }
    let node_affinity = &spec["affinity"]["nodeAffinity"];
    let required = at(prefix, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
    for (i, term) in items(&node_affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]).iter().enumerate() {
        warnings.extend(node_selector_term(&format!("{required}[{i}]"), term, false));
    }
    let preferred = at(prefix, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution");
    for (i, term) in items(&node_affinity["preferredDuringSchedulingIgnoredDuringExecution"]).iter().enumerate() {
        warnings.extend(node_selector_term(&format!("{preferred}[{i}].preference"), &term["preference"], true));
    }
    for (i, constraint) in items(&spec["topologySpreadConstraints"]).iter().enumerate() {
        let path = at(prefix, &format!("spec.topologySpreadConstraints[{i}]"));
        let key = text(&constraint["topologyKey"]);
        if let Some(why) = deprecated_node_label(key) {
            warnings.push(format!("{path}.topologyKey: {key} is {why}"));
        }
        if constraint["labelSelector"].is_null() {
            warnings.push(format!("{path}.labelSelector: a null labelSelector results in matching no pod"));
        }
    }
    for (key, why) in DEPRECATED_ANNOTATIONS {
        if meta["annotations"].get(key).is_some() {
            warnings.push(format!("{}[{key}]: {why}", at(prefix, "metadata.annotations")));
        }
    }
    for (i, volume) in items(&spec["volumes"]).iter().enumerate() {
        for (plugin, why) in REMOVED_VOLUMES {
            if volume[plugin].is_object() {
                warnings.push(format!("{}.{plugin}: {why}", at(prefix, &format!("spec.volumes[{i}]"))));
            }
        }
    }
    duplicates(&mut warnings, items(&spec["hostAliases"]), "ip", &at(prefix, "spec.hostAliases"), "duplicate ip");
    duplicates(&mut warnings, items(&spec["imagePullSecrets"]), "name", &at(prefix, "spec.imagePullSecrets"), "duplicate name");
    for (i, secret) in items(&spec["imagePullSecrets"]).iter().enumerate() {
        if text(&secret["name"]).is_empty() {
            warnings.push(format!("{}[{i}].name: invalid empty name \"\"", at(prefix, "spec.imagePullSecrets")));
        }
    }
    let containers = containers(prefix, spec);
    for (path, container) in &containers {
        hidden_env(&mut warnings, path, container);
    }
    ports(&mut warnings, &containers);
    if spec["terminationGracePeriodSeconds"].as_i64().is_some_and(|g| g < 0) {
        warnings.push(format!(
            "{}: must be >= 0; negative values are invalid and will be treated as 1",
            at(prefix, "spec.terminationGracePeriodSeconds")
        ));
    }
    for affinity in ["podAffinity", "podAntiAffinity"] {
        let terms = &spec["affinity"][affinity];
        let path = at(prefix, &format!("spec.affinity.{affinity}"));
        for (i, term) in items(&terms["requiredDuringSchedulingIgnoredDuringExecution"]).iter().enumerate() {
            if term["labelSelector"].is_null() {
                warnings.push(format!("{path}.requiredDuringSchedulingIgnoredDuringExecution[{i}].labelSelector: a null labelSelector results in matching no pod"));
            }
        }
        for (i, term) in items(&terms["preferredDuringSchedulingIgnoredDuringExecution"]).iter().enumerate() {
            if term["podAffinityTerm"]["labelSelector"].is_null() {
                warnings.push(format!(
                    "{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod"
                ));
            }
        }
    }
    warnings
}

/// Each item of `list` whose `key` an earlier item has too.
fn duplicates(warnings: &mut Vec<String>, list: &[Value], key: &str, path: &str, what: &str) {
    let mut seen = BTreeSet::new();
    for (i, item) in list.iter().enumerate() {
        let value = text(&item[key]);
        if !seen.insert(value) {
            warnings.push(format!("{path}[{i}].{key}: {what} {value:?}"));
        }
    }
}

/// Every container with its path, in the order `pods.VisitContainersWithPath` visits them.
fn containers<'a>(prefix: &str, spec: &'a Value) -> Vec<(String, &'a Value)> {
    ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .flat_map(|list| items(&spec[*list]).iter().enumerate().map(move |(i, c)| (at(prefix, &format!("spec.{list}[{i}]")), c)))
        .collect()
}

/// A variable defined again in a way that drops the earlier definition.
fn hidden_env(warnings: &mut Vec<String>, path: &str, container: &Value) {
    let mut seen = BTreeSet::new();
    for (i, var) in items(&container["env"]).iter().enumerate() {
        let name = text(&var["name"]);
        if seen.insert(name) {
            continue;
        }
        let reference = format!("$({name})");
        let value = text(&var["value"]);
        if !var["valueFrom"].is_null() || value == reference || !value.contains(&reference) {
            warnings.push(format!("{path}.env[{i}]: hides previous definition of {name:?}, which may be dropped when using apply"));
        }
    }
}

/// Ports that clash across the pod's containers, and port names used twice.
fn ports(warnings: &mut Vec<String>, containers: &[(String, &Value)]) {
    let mut by_port: BTreeMap<String, Vec<(String, &Value)>> = BTreeMap::new();
    for (path, container) in containers {
        for (i, port) in items(&container["ports"]).iter().enumerate() {
            let here = format!("{path}.ports[{i}]");
            let key = format!("{}/{}", port["containerPort"].as_i64().unwrap_or(0), port["protocol"].as_str().unwrap_or("TCP"));
            let host = |p: &Value| (text(&p["hostIP"]).to_string(), p["hostPort"].as_i64().unwrap_or(0));
            for (other_path, other) in by_port.get(&key).into_iter().flatten() {
                let ((ip, port_no), (other_ip, other_no)) = (host(port), host(other));
                if ip == other_ip && port_no == other_no {
                    warnings.push(format!("{here}: duplicate port definition with {other_path}"));
                } else if port_no == 0 || other_no == 0 {
                    warnings.push(format!("{here}: overlapping port definition with {other_path}"));
                } else if port_no == other_no && ip.is_empty() != other_ip.is_empty() {
                    warnings.push(format!("{here}: dangerously ambiguous port definition with {other_path}"));
                }
            }
            by_port.entry(key).or_default().push((here, port));
        }
    }
    let mut names: BTreeMap<&str, String> = BTreeMap::new();
    for (path, container) in containers {
        for (i, port) in items(&container["ports"]).iter().enumerate() {
            let name = text(&port["name"]);
            if name.is_empty() {
                continue;
            }
            match names.get(name) {
                Some(first) => warnings.push(format!(
                    "{path}.ports[{i}]: duplicate port name {name:?} with {first}, services and probes that select ports by name will use {first}"
                )),
                None => {
                    names.insert(name, format!("{path}.ports[{i}]"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_template_s_duplicates_and_deprecations_are_warned_about_at_their_path() {
        let set = json!({"spec": {"template": {"metadata": {"annotations": {"scheduler.alpha.kubernetes.io/critical-pod": ""}},
            "spec": {"nodeSelector": {"beta.kubernetes.io/os": "linux"},
                "containers": [{"name": "a", "ports": [{"name": "healthz", "containerPort": 9898}],
                                "env": [{"name": "X", "value": "1"}, {"name": "X", "value": "2"}]},
                               {"name": "b", "ports": [{"name": "healthz", "containerPort": 9899}, {"containerPort": 9898}]}]}}}});
        assert_eq!(
            of_template_owner("apps", "StatefulSet", &set),
            [
                "spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use \"kubernetes.io/os\" instead",
                "spec.template.metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the \"priorityClassName\" field instead",
                "spec.template.spec.containers[0].env[1]: hides previous definition of \"X\", which may be dropped when using apply",
                "spec.template.spec.containers[1].ports[1]: duplicate port definition with spec.template.spec.containers[0].ports[0]",
                "spec.template.spec.containers[1].ports[0]: duplicate port name \"healthz\" with spec.template.spec.containers[0].ports[0], services and probes that select ports by name will use spec.template.spec.containers[0].ports[0]",
            ]
        );
        let pod = json!({"spec": {"terminationGracePeriodSeconds": -1, "containers": []}});
        assert_eq!(
            of_template_owner("", "Pod", &pod),
            ["spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"]
        );
        assert!(of_template_owner("", "ConfigMap", &pod).is_empty());
    }
}
