//! The Events a scheduler and a kubelet record about a pod, as `kubectl get events` and
//! `kubectl describe pod` show them: `Scheduled` when it is bound (pkg/scheduler/
//! schedule_one.go), and for each container `Pulled` (the image is present: no registry is
//! reached), `Created` and `Started` each time it starts, `BackOff` when it waits to be
//! restarted (pkg/kubelet/kuberuntime), and `Killing` when its pod is stopped. A recorder drops
//! what it cannot send, so a failure is only logged.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::kubelet::events::{Event as KubeletEvent, EventType};
use crate::recorder::Record;

/// The reference to `pod`, or to one of its containers when `container` names it (as
/// `spec.containers{name}`, or `spec.initContainers{name}`).
fn involved(pod: &Value, container: Option<(&str, &str)>) -> Value {
    let meta = &pod["metadata"];
    let mut reference = json!({"apiVersion": "v1", "kind": "Pod", "name": meta["name"], "namespace": meta["namespace"],
        "uid": meta["uid"], "resourceVersion": meta["resourceVersion"]});
    if let Some((list, name)) = container {
        reference["fieldPath"] = json!(format!("spec.{list}{{{name}}}"));
    }
    reference
}

/// Sends one Event from `component`, logging a failure.
async fn send(client: &kube::Client, component: &str, record: Record<'_>, now: DateTime<Utc>) {
    if let Err(e) = record.send(client, component, now).await {
        tracing::debug!("{component}: recording {}: {e}", record.reason);
    }
}

/// `Scheduled`: `pod` was bound to `node`.
pub async fn scheduled(client: &kube::Client, pod: &Value, node: &str, now: DateTime<Utc>) {
    let meta = &pod["metadata"];
    let message = format!(
        "Successfully assigned {}/{} to {node}",
        meta["namespace"].as_str().unwrap_or_default(),
        meta["name"].as_str().unwrap_or_default()
    );
    let record = Record { involved: involved(pod, None), event_type: "Normal", reason: "Scheduled", message };
    // Through events.k8s.io/v1, as kube-scheduler's recorder writes (its instance is named after
    // its host, the fake's after kubegc).
    let scheduler = super::scheduler::NAME;
    if let Err(e) = record.report(client, scheduler, &format!("{scheduler}-kubegc"), "Binding", now).await {
        tracing::debug!("{scheduler}: recording Scheduled: {e}");
    }
}

/// What changed for the containers between the status `old` and `new` of `pod`, as Events:
/// each container that started (again), each that began to wait out a back-off.
pub async fn containers_changed(client: &kube::Client, pod: &Value, old: &Value, new: &Value, now: DateTime<Utc>) {
    let who = super::pod_status::pod_name(pod);
    for (list, statuses) in [("initContainers", "initContainerStatuses"), ("containers", "containerStatuses")] {
        for status in new[statuses].as_array().into_iter().flatten() {
            let name = status["name"].as_str().unwrap_or_default();
            let before = old[statuses].as_array().into_iter().flatten().find(|s| s["name"] == name).cloned().unwrap_or_default();
            let reference = involved(pod, Some((list, name)));
            let started = &status["state"]["running"]["startedAt"];
            if !started.is_null()
                && (started != &before["state"]["running"]["startedAt"] || status["restartCount"] != before["restartCount"])
            {
                let image = pod["spec"][list]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|c| c["name"] == name)
                    .map(|c| c["image"].clone())
                    .unwrap_or_default();
                let pulled = format!("Container image {image} already present on machine and can be accessed by the pod");
                for (reason, message) in
                    [("Pulled", pulled), ("Created", "Container created".into()), ("Started", "Container started".into())]
                {
                    send(client, "kubelet", Record { involved: reference.clone(), event_type: "Normal", reason, message }, now).await;
                }
            }
            let waiting = status["state"]["waiting"]["reason"] == "CrashLoopBackOff";
            if waiting && before["state"]["waiting"]["reason"] != "CrashLoopBackOff" {
                let message = format!("Back-off restarting failed container {name} in pod {who}");
                send(client, "kubelet", Record { involved: reference, event_type: "Warning", reason: "BackOff", message }, now).await;
            }
        }
    }
}

/// `Killing`: each container of `pod` that runs is being stopped.
pub async fn killing(client: &kube::Client, pod: &Value, now: DateTime<Utc>) {
    for (list, statuses) in [("initContainers", "initContainerStatuses"), ("containers", "containerStatuses")] {
        for status in pod["status"][statuses].as_array().into_iter().flatten() {
            if status["state"]["running"].is_null() {
                continue;
            }
            let name = status["name"].as_str().unwrap_or_default();
            let message = format!("Stopping container {name}");
            send(
                client,
                "kubelet",
                Record { involved: involved(pod, Some((list, name))), event_type: "Normal", reason: "Killing", message },
                now,
            )
            .await;
        }
    }
}

/// An Event the kubelet model of `node` recorded: on the Node (whose reference a kubelet
/// gives the node's name as its uid), or on `pod` when it is about one.
pub async fn kubelet(client: &kube::Client, node: &str, pod: Option<&Value>, event: &KubeletEvent, now: DateTime<Utc>) {
    let involved = match pod {
        Some(pod) => involved(pod, None),
        None => json!({"apiVersion": "v1", "kind": "Node", "name": node, "uid": node}),
    };
    let event_type = match event.event_type {
        EventType::Normal => "Normal",
        EventType::Warning => "Warning",
    };
    let record = Record { involved, event_type, reason: &event.reason, message: event.message.clone() };
    send(client, "kubelet", record, now).await;
}
