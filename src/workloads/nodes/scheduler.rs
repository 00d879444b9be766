//! A small scheduler: what a controller test needs of kube-scheduler, not all of it. A pod is
//! scheduled when it names no node, is not being deleted, asks for the default scheduler and has
//! no scheduling gates. A node fits it when it is not cordoned (unless the pod tolerates that),
//! its labels match the pod's node selector and required node affinity, the pod tolerates each
//! of its `NoSchedule` and `NoExecute` taints, and its allocatable CPU, memory and pod count
//! hold the pod's requests beside those of the unfinished pods already on it (the plugins
//! NodeUnschedulable, NodeAffinity, TaintToleration and NodeResourcesFit of
//! kubernetes pkg/scheduler/framework/plugins). Of the nodes that fit, the least requested
//! one is chosen (NodeResourcesLeastAllocated), by name among equals, where kube-scheduler
//! picks at random. When none fits, the pod's `PodScheduled` condition says why in
//! kube-scheduler's words, with what its preemption found: the fake preempts no pod, so a node
//! short of resources has no victim, as when every pod has the same priority.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::quantity::milli_value;

/// The scheduler's name, which pods ask for by default.
pub const NAME: &str = "default-scheduler";

/// Whether the scheduler is to place `pod`.
pub fn wants(pod: &Value) -> bool {
    let spec = &pod["spec"];
    spec["nodeName"].as_str().is_none_or(str::is_empty)
        && pod["metadata"]["deletionTimestamp"].is_null()
        && spec["schedulerName"].as_str().is_none_or(|s| s == NAME)
        && spec["schedulingGates"].as_array().is_none_or(Vec::is_empty)
        && !matches!(pod["status"]["phase"].as_str(), Some("Succeeded" | "Failed"))
}

/// The node `pod` goes to, among `nodes`, beside `placed` (every pod bound to a node); or
/// why none fits, as the `PodScheduled` condition's message (kube-scheduler's).
pub fn choose(pod: &Value, nodes: &[Value], placed: &[Value]) -> Result<String, String> {
    let wanted = requests(&pod["spec"]);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    // What preemption found on each node that does not fit.
    let mut preemption: BTreeMap<String, usize> = BTreeMap::new();
    let mut fits: Vec<(i128, &str)> = Vec::new();
    for node in nodes {
        let name = node["metadata"]["name"].as_str().unwrap_or_default();
        let on_node: Vec<&Value> = placed
            .iter()
            .filter(|p| p["spec"]["nodeName"] == name && !matches!(p["status"]["phase"].as_str(), Some("Succeeded" | "Failed")))
            .collect();
        match misfits(pod, node, &wanted, &on_node) {
            Ok(score) => fits.push((score, name)),
            Err(Misfit { reasons: why, resolvable }) => {
                for reason in why {
                    *reasons.entry(reason).or_default() += 1;
                }
                *preemption.entry(preemption_finding(resolvable).to_string()).or_default() += 1;
            }
        }
    }
    if let Some((_, name)) = fits.into_iter().min() {
        return Ok(name.to_string());
    }
    if nodes.is_empty() {
        return Err("no nodes available to schedule pods".into());
    }
    // The default preemption plugin's PostFilter message follows the filters' (`FitError.Error`
    // in pkg/scheduler/framework/types.go, `DefaultPreemption.PostFilter` in
    // pkg/scheduler/framework/plugins/defaultpreemption): a pod that may not preempt says so,
    // others say what preemption found on each node.
    let preempting = if pod["spec"]["preemptionPolicy"] == "Never" {
        "not eligible due to preemptionPolicy=Never.".to_string()
    } else {
        fit_error(nodes.len(), &preemption)
    };
    Err(format!("{} preemption: {preempting}", fit_error(nodes.len(), &reasons)))
}

/// `0/N nodes are available: …` with each reason's count, sorted as strings, as
/// `FitError.Error` writes them.
fn fit_error(nodes: usize, reasons: &BTreeMap<String, usize>) -> String {
    let mut listed: Vec<String> = reasons.iter().map(|(reason, n)| format!("{n} {reason}")).collect();
    listed.sort();
    format!("0/{nodes} nodes are available: {}.", listed.join(", "))
}

/// What the default preemption plugin finds on a node that does not fit: on a node where only
/// resources are short, no pod of lower priority to evict (the fake has none: it preempts no
/// pod); on a node that no eviction could make fit, nothing to try
/// (`nodesWherePreemptionMightHelp` in pkg/scheduler/framework/preemption).
fn preemption_finding(resolvable: bool) -> &'static str {
    if resolvable { "No preemption victims found for incoming pod" } else { "Preemption is not helpful for scheduling" }
}

/// Why a node does not fit a pod.
struct Misfit {
    /// The filters' reasons, in kube-scheduler's words.
    reasons: Vec<String>,
    /// Whether evicting pods could make it fit (the filter said `Unschedulable`, not
    /// `UnschedulableAndUnresolvable`): only resources are short.
    resolvable: bool,
}

impl Misfit {
    /// A reason no eviction can change.
    fn unresolvable(reason: String) -> Self {
        Self { reasons: vec![reason], resolvable: false }
    }
}

/// The resources a pod spec asks for, in thousandths: each of its containers' requests added,
/// or the largest of an init container's if that is more (`computePodResourceRequest`).
pub fn requests(spec: &Value) -> BTreeMap<String, i128> {
    let mut total: BTreeMap<String, i128> = BTreeMap::new();
    let each = |c: &Value| -> BTreeMap<String, i128> {
        let requests = c["resources"]["requests"].as_object().cloned().unwrap_or_default();
        let limits = c["resources"]["limits"].as_object().cloned().unwrap_or_default();
        // A limit without a request is requested in full (the API server's defaulting).
        let mut merged = limits;
        merged.extend(requests);
        merged.iter().filter_map(|(k, v)| Some((k.clone(), milli_value(v.as_str()?)?))).collect()
    };
    for c in spec["containers"].as_array().into_iter().flatten() {
        for (k, v) in each(c) {
            *total.entry(k).or_default() += v;
        }
    }
    for c in spec["initContainers"].as_array().into_iter().flatten() {
        for (k, v) in each(c) {
            let t = total.entry(k).or_default();
            *t = (*t).max(v);
        }
    }
    total
}

/// Why `node` does not fit `pod`, or how requested it would be with it (the fractions of its CPU
/// and memory added, in millionths, counting a default for containers that request nothing).
fn misfits(pod: &Value, node: &Value, wanted: &BTreeMap<String, i128>, on_node: &[&Value]) -> Result<i128, Misfit> {
    let spec = &pod["spec"];
    let tolerations = spec["tolerations"].as_array().map_or(&[][..], Vec::as_slice);
    if node["spec"]["unschedulable"] == true && !tolerated(tolerations, "node.kubernetes.io/unschedulable", "", "NoSchedule") {
        return Err(Misfit::unresolvable("node(s) were unschedulable".into()));
    }
    if !selected(spec, &node["metadata"]) {
        return Err(Misfit::unresolvable("node(s) didn't match Pod's node affinity/selector".into()));
    }
    for taint in node["spec"]["taints"].as_array().into_iter().flatten() {
        let effect = taint["effect"].as_str().unwrap_or_default();
        if !matches!(effect, "NoSchedule" | "NoExecute") {
            continue;
        }
        let (key, value) = (taint["key"].as_str().unwrap_or_default(), taint["value"].as_str().unwrap_or_default());
        if !tolerated(tolerations, key, value, effect) {
            return Err(Misfit::unresolvable(format!("node(s) had untolerated taint {{{key}: {value}}}")));
        }
    }
    let allocatable = &node["status"]["allocatable"];
    let mut used: BTreeMap<String, i128> = BTreeMap::new();
    for p in on_node {
        for (k, v) in requests(&p["spec"]) {
            *used.entry(k).or_default() += v;
        }
    }
    let mut why = Vec::new();
    let pods_allowed = allocatable["pods"].as_str().and_then(milli_value).unwrap_or(110_000) / 1000;
    if on_node.len() as i128 + 1 > pods_allowed {
        why.push("Too many pods".to_string());
    }
    for (resource, asked) in wanted.iter().filter(|(_, v)| **v > 0) {
        let capacity = allocatable[resource.as_str()].as_str().and_then(milli_value).unwrap_or(0);
        if used.get(resource).copied().unwrap_or(0) + asked > capacity {
            why.push(format!("Insufficient {resource}"));
        }
    }
    if !why.is_empty() {
        return Err(Misfit { reasons: why, resolvable: true });
    }
    let mut score = 0;
    for (resource, default) in NONZERO {
        let capacity = allocatable[resource].as_str().and_then(milli_value).unwrap_or(0);
        let requested: i128 = std::iter::once(spec).chain(on_node.iter().map(|p| &p["spec"])).map(|s| nonzero(s, resource, default)).sum();
        if capacity > 0 {
            score += requested * 1_000_000 / capacity;
        }
    }
    Ok(score)
}

/// The requests scoring counts for containers that ask for none (`GetNonzeroRequests` of
/// pkg/scheduler/util: 100m of CPU, 200 MB of memory), in thousandths.
const NONZERO: [(&str, i128); 2] = [("cpu", 100), ("memory", 200 * 1024 * 1024 * 1000)];

/// What a pod spec's containers request of `resource` for scoring, each `default` if it asks
/// for none.
fn nonzero(spec: &Value, resource: &str, default: i128) -> i128 {
    spec["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["resources"]["requests"][resource].as_str().and_then(milli_value).unwrap_or(default))
        .sum()
}

/// Whether `tolerations` tolerate a taint (`Toleration.ToleratesTaint`): same effect or none,
/// and `Exists` of its key (or of every key) or `Equal` to its key and value.
pub fn tolerated(tolerations: &[Value], key: &str, value: &str, effect: &str) -> bool {
    tolerations.iter().any(|t| {
        let t_effect = t["effect"].as_str().unwrap_or_default();
        if !t_effect.is_empty() && t_effect != effect {
            return false;
        }
        let t_key = t["key"].as_str().unwrap_or_default();
        if !t_key.is_empty() && t_key != key {
            return false;
        }
        match t["operator"].as_str().unwrap_or("Equal") {
            "Exists" => true,
            "Equal" => !t_key.is_empty() && t["value"].as_str().unwrap_or_default() == value,
            _ => false,
        }
    })
}

/// Whether a node with `meta` matches the pod `spec`'s node selector and its required node
/// affinity (any of its terms, each wholly).
pub fn selected(spec: &Value, meta: &Value) -> bool {
    let labels = &meta["labels"];
    let selector = spec["nodeSelector"].as_object().cloned().unwrap_or_default();
    if !selector.iter().all(|(k, v)| labels[k] == *v) {
        return false;
    }
    let required = &spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
    let Some(terms) = required["nodeSelectorTerms"].as_array() else { return true };
    terms.iter().any(|term| {
        let expressions = term["matchExpressions"].as_array().map_or(&[][..], Vec::as_slice);
        let fields = term["matchFields"].as_array().map_or(&[][..], Vec::as_slice);
        if expressions.is_empty() && fields.is_empty() {
            return false;
        }
        expressions.iter().all(|e| matches_requirement(e, labels[e["key"].as_str().unwrap_or_default()].as_str()))
            && fields.iter().all(|e| e["key"] == "metadata.name" && matches_requirement(e, meta["name"].as_str()))
    })
}

/// Whether a label's `value` (none: the node lacks it) meets a node selector requirement.
fn matches_requirement(requirement: &Value, value: Option<&str>) -> bool {
    let values: Vec<&str> = requirement["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let number = |text: &str| text.parse::<i64>().ok();
    match requirement["operator"].as_str().unwrap_or_default() {
        "In" => value.is_some_and(|v| values.contains(&v)),
        "NotIn" => value.is_none_or(|v| !values.contains(&v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" => matches!((value.and_then(number), values.first().and_then(|v| number(v))), (Some(a), Some(b)) if a > b),
        "Lt" => matches!((value.and_then(number), values.first().and_then(|v| number(v))), (Some(a), Some(b)) if a < b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn node(name: &str, labels: Value, taints: Value, cpu: &str) -> Value {
        json!({"metadata": {"name": name, "labels": labels}, "spec": {"taints": taints},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}})
    }

    fn pod(spec: Value) -> Value {
        json!({"metadata": {"name": "p"}, "spec": spec})
    }

    #[test]
    fn a_pod_goes_to_the_least_requested_node_that_fits() {
        let nodes = [node("a", json!({}), json!([]), "4"), node("b", json!({}), json!([]), "4")];
        let busy = pod(json!({"nodeName": "a", "containers": [{"resources": {"requests": {"cpu": "1"}}}]}));
        let asked = pod(json!({"containers": [{"resources": {"requests": {"cpu": "500m"}}}]}));
        assert_eq!(choose(&asked, &nodes, std::slice::from_ref(&busy)), Ok("b".into()));
        let big = pod(json!({"containers": [{"resources": {"requests": {"cpu": "3500m"}}}]}));
        assert_eq!(choose(&big, &nodes, &[busy]), Ok("b".into()));
        let huge = pod(json!({"containers": [{"resources": {"limits": {"cpu": "5"}}}]}));
        assert_eq!(
            choose(&huge, &nodes, &[]),
            Err("0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.".into())
        );
        let meek = pod(json!({"preemptionPolicy": "Never", "containers": [{"resources": {"limits": {"cpu": "5"}}}]}));
        assert_eq!(
            choose(&meek, &nodes, &[]),
            Err("0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.".into())
        );
    }

    #[test]
    fn selectors_affinity_and_taints_rule_nodes_out() {
        let nodes = [
            node("plain", json!({"disk": "hdd"}), json!([]), "4"),
            node("tainted", json!({"disk": "ssd"}), json!([{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]), "4"),
        ];
        let ssd = pod(json!({"nodeSelector": {"disk": "ssd"}, "containers": [{}]}));
        assert_eq!(
            choose(&ssd, &nodes, &[]),
            Err(
                "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {gpu: yes}. \
                 preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
                    .into()
            )
        );
        let tolerant =
            pod(json!({"nodeSelector": {"disk": "ssd"}, "tolerations": [{"key": "gpu", "operator": "Exists"}], "containers": [{}]}));
        assert_eq!(choose(&tolerant, &nodes, &[]), Ok("tainted".into()));
        let affinity = pod(json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "disk", "operator": "NotIn", "values": ["ssd"]}]}]}}}, "containers": [{}]}));
        assert_eq!(choose(&affinity, &nodes, &[]), Ok("plain".into()));
    }

    #[test]
    fn a_cordoned_node_takes_nothing_and_the_scheduler_leaves_pods_it_does_not_own() {
        let mut cordoned = node("a", json!({}), json!([]), "4");
        cordoned["spec"]["unschedulable"] = json!(true);
        assert_eq!(
            choose(&pod(json!({"containers": [{}]})), &[cordoned], &[]),
            Err("0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.".into())
        );
        assert!(wants(&pod(json!({"containers": [{}]}))));
        assert!(!wants(&pod(json!({"schedulerName": "other", "containers": [{}]}))));
        assert!(!wants(&pod(json!({"schedulingGates": [{"name": "g"}], "containers": [{}]}))));
        assert!(!wants(&pod(json!({"nodeName": "a", "containers": [{}]}))));
    }
}
