//! Pods as the workload controllers see them: made from a template, active or not, ready or
//! not, matched by a selector, and the order in which a controller that scales down removes
//! them (upstream's `ActivePodsWithRanks`, without the ranks that need a node's other pods).

use k8s_openapi::api::core::v1::{Pod, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use std::cmp::Ordering;

/// Whether a pod counts toward its controller's replicas: not finished and not being deleted.
pub fn is_active(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_none() && !is_terminal(pod)
}

/// Whether the pod has finished: `Succeeded` or `Failed`.
pub fn is_terminal(pod: &Pod) -> bool {
    matches!(phase(pod), "Succeeded" | "Failed")
}

/// The pod's phase (`Pending` when absent).
pub fn phase(pod: &Pod) -> &str {
    pod.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("Pending")
}

/// Whether the pod's `Ready` condition is true.
pub fn is_ready(pod: &Pod) -> bool {
    let conditions = pod.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or_default();
    conditions.iter().any(|c| c.type_ == "Ready" && c.status == "True")
}

/// A new pod from `template`, controlled through `reference`, in `namespace`, named by the API
/// server from `prefix` (the controller's name and a dash). Labels, annotations and
/// finalizers come from the template, as upstream's `GetPodFromTemplate` takes them.
pub fn from_template(template: &PodTemplateSpec, reference: OwnerReference, namespace: &str, prefix: &str) -> Pod {
    let t = template.metadata.clone().unwrap_or_default();
    Pod {
        metadata: ObjectMeta {
            generate_name: Some(prefix.into()),
            namespace: Some(namespace.into()),
            labels: t.labels,
            annotations: t.annotations,
            finalizers: t.finalizers,
            owner_references: Some(vec![reference]),
            ..Default::default()
        },
        spec: template.spec.clone(),
        status: None,
    }
}

/// Orders pods so that the ones a controller removes first come first: unscheduled before
/// scheduled, pending before unknown before running, not ready before ready, newer before older.
pub fn removal_order(a: &Pod, b: &Pod) -> Ordering {
    let scheduled = |p: &Pod| p.spec.as_ref().and_then(|s| s.node_name.as_deref()).is_some_and(|n| !n.is_empty());
    let phase_rank = |p: &Pod| match phase(p) {
        "Pending" => 0,
        "Unknown" => 1,
        "Running" => 2,
        _ => 3,
    };
    // No creation time first, then the newest.
    let age = |p: &Pod| {
        let created = p.metadata.creation_timestamp.as_ref().map(|t| t.0);
        (created.is_some(), std::cmp::Reverse(created))
    };
    scheduled(a).cmp(&scheduled(b)).then(phase_rank(a).cmp(&phase_rank(b))).then(is_ready(a).cmp(&is_ready(b))).then(age(a).cmp(&age(b)))
}

/// Whether the pod has been ready for at least `min_ready_seconds` (upstream's
/// `IsPodAvailable`, on the real clock).
pub fn is_available(pod: &Pod, min_ready_seconds: i32) -> bool {
    if !is_ready(pod) {
        return false;
    }
    if min_ready_seconds <= 0 {
        return true;
    }
    let conditions = pod.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or_default();
    let since = conditions.iter().find(|c| c.type_ == "Ready").and_then(|c| c.last_transition_time.as_ref());
    since.is_some_and(|t| t.0.as_second() + i64::from(min_ready_seconds) <= chrono::Utc::now().timestamp())
}
