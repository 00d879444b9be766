//! The node lifecycle controller's NoSchedule tainting
//! (`doNoScheduleTaintingPass` in `pkg/controller/nodelifecycle/node_lifecycle_controller.go`):
//! a Node carries exactly the `NoSchedule` taints its conditions call for — `not-ready` while
//! Ready is False, `unreachable` while it is Unknown, `memory-pressure`, `disk-pressure`,
//! `pid-pressure` and `network-unavailable` while those conditions are True — and
//! `unschedulable` while it is cordoned. Other taints are left as they are. With it, the
//! not-ready taint admission gives a new Node goes once the Node is Ready, or has no
//! condition at all (upstream's controller marks a silent node Unknown only after its grace
//! period, which the fake does not model).

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1::{Node, Taint};
use serde_json::json;

use crate::workloads::writes::Writes;

/// The taint a condition of `kind` in `status` calls for, if any.
fn condition_taint(kind: &str, status: &str) -> Option<&'static str> {
    match (kind, status) {
        ("Ready", "False") => Some("node.kubernetes.io/not-ready"),
        ("Ready", "Unknown") => Some("node.kubernetes.io/unreachable"),
        ("MemoryPressure", "True") => Some("node.kubernetes.io/memory-pressure"),
        ("DiskPressure", "True") => Some("node.kubernetes.io/disk-pressure"),
        ("NetworkUnavailable", "True") => Some("node.kubernetes.io/network-unavailable"),
        ("PIDPressure", "True") => Some("node.kubernetes.io/pid-pressure"),
        _ => None,
    }
}

/// The taint of a cordoned node.
const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// The keys of the taints the controller manages.
const MANAGED: [&str; 7] = [
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/pid-pressure",
    UNSCHEDULABLE,
];

/// The taints `node` should carry: those it has that the controller does not manage, then
/// the managed ones its conditions call for, in the order it has them or else the conditions'
/// order, added at `now` (`SwapNodeControllerTaint` in `pkg/controller/util/node`); `None`
/// when it carries them already.
pub fn wanted(node: &Node, now: DateTime<Utc>) -> Option<Vec<Taint>> {
    let spec = node.spec.clone().unwrap_or_default();
    let conditions = node.status.as_ref().and_then(|s| s.conditions.clone()).unwrap_or_default();
    let mut called: Vec<&str> = conditions.iter().filter_map(|c| condition_taint(&c.type_, &c.status)).collect();
    if spec.unschedulable == Some(true) {
        called.push(UNSCHEDULABLE);
    }
    let managed = |t: &Taint| t.effect == "NoSchedule" && MANAGED.contains(&t.key.as_str());
    let taints = spec.taints.unwrap_or_default();
    let kept: Vec<Taint> = taints.iter().filter(|t| !managed(t) || called.contains(&t.key.as_str())).cloned().collect();
    let time_added = now.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let added: Vec<Taint> = called
        .iter()
        .filter(|key| !kept.iter().any(|t| t.effect == "NoSchedule" && t.key == **key))
        .filter_map(|key| serde_json::from_value(json!({"key": key, "effect": "NoSchedule", "timeAdded": time_added})).ok())
        .collect();
    if added.is_empty() && kept.len() == taints.len() {
        return None;
    }
    Some(kept.into_iter().chain(added).collect())
}

/// One sync of the controller at `now`: every Node given the taints it should carry.
pub async fn sync(writes: &mut Writes, nodes: &[Node], now: DateTime<Utc>) {
    for node in nodes {
        if let Some(taints) = wanted(node, now) {
            let mut updated = node.clone();
            updated.spec.get_or_insert_with(Default::default).taints = (!taints.is_empty()).then_some(taints);
            writes.replace_cluster(&updated).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(taints: serde_json::Value, conditions: serde_json::Value, unschedulable: bool) -> Node {
        serde_json::from_value(json!({
            "metadata": {"name": "n"},
            "spec": {"taints": taints, "unschedulable": unschedulable},
            "status": {"conditions": conditions},
        }))
        .unwrap()
    }

    fn at(node: &Node) -> Option<Vec<Taint>> {
        wanted(node, Utc::now())
    }

    fn keys(taints: Option<Vec<Taint>>) -> Option<Vec<String>> {
        taints.map(|ts| ts.into_iter().map(|t| format!("{}:{}", t.key, t.effect)).collect())
    }

    #[test]
    fn a_ready_node_loses_the_not_ready_taint_and_keeps_the_others() {
        let taints =
            json!([{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}, {"key": "example.com/gpu", "effect": "NoSchedule"}]);
        let ready = json!([{"type": "Ready", "status": "True"}]);
        assert_eq!(keys(at(&node(taints, ready, false))), Some(vec!["example.com/gpu:NoSchedule".into()]));
    }

    #[test]
    fn conditions_and_cordoning_call_for_their_taints() {
        let conditions = json!([{"type": "Ready", "status": "Unknown"}, {"type": "DiskPressure", "status": "True"}]);
        let noexecute = json!([{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]);
        assert_eq!(
            keys(at(&node(noexecute, conditions, true))),
            Some(vec![
                "node.kubernetes.io/unreachable:NoExecute".into(),
                "node.kubernetes.io/unreachable:NoSchedule".into(),
                "node.kubernetes.io/disk-pressure:NoSchedule".into(),
                "node.kubernetes.io/unschedulable:NoSchedule".into(),
            ])
        );
    }

    #[test]
    fn a_node_with_the_taints_it_should_carry_is_left_alone() {
        let taints = json!([{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]);
        assert_eq!(keys(at(&node(taints, json!([{"type": "Ready", "status": "False"}]), false))), None);
        assert_eq!(keys(at(&node(json!([]), json!([]), false))), None);
    }
}
