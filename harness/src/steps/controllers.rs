//! Steps for the cleanup controllers: a cluster of the scenario's own with their settings, time
//! passing, pods in a phase or on a node, and nodes that are not Ready or are tainted.
//!
//! A cluster of its own is the fake's on a virtual clock, or, on the upstream control plane, a
//! kube-controller-manager started for the scenario with the flags that set the controllers
//! so. Time passes on the fake's virtual clock at once; elsewhere it really passes.

use std::time::Duration;

use cucumber::{given, when};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, Patch, PatchParams};
use serde_json::json;

use super::support::{create_body, list, manifest_with};
use crate::backend::{Own, OwnCluster};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// `Given a cluster of its own`: controllers with kube-controller-manager's defaults, on the
/// fake a cluster of the scenario's own on a virtual clock.
#[given(regex = r"^a cluster of its own$")]
async fn own_cluster(world: &mut KubeWorld) -> StepResult {
    start_own_cluster(world, OwnCluster::default()).await
}

/// `Given a cluster of its own whose pod garbage collector keeps 2 terminated pods` (`every`
/// terminated pod: threshold 0, which turns that rule off).
///
/// Upstream's threshold counts terminated pods in the whole cluster, so on a shared control
/// plane the step first waits until no other scenario's terminated pod is left (such
/// scenarios are tagged `@serial`).
#[given(regex = r"^a cluster of its own whose pod garbage collector keeps ((?-u:\d)+|every) terminated pods?$")]
async fn own_pod_gc(world: &mut KubeWorld, keeps: String) -> StepResult {
    let threshold = if keeps == "every" { 0 } else { keeps.parse().map_err(|e| format!("{keeps}: {e}"))? };
    start_own_cluster(world, OwnCluster { terminated_pod_threshold: Some(threshold) }).await
}

/// Gives the scenario the controllers `spec` asks for.
async fn start_own_cluster(world: &mut KubeWorld, spec: OwnCluster) -> StepResult {
    let counts_terminated_pods = spec.terminated_pod_threshold.is_some_and(|t| t > 0);
    match world.backend().own_cluster(&spec).await? {
        Own::Backend(backend) => world.use_backend(backend),
        Own::Guard(guard) => {
            world.guards.push(guard);
            if counts_terminated_pods { no_terminated_pods_left(world).await } else { Ok(()) }
        }
    }
}

/// Waits until the cluster holds no terminated pod.
async fn no_terminated_pods_left(world: &KubeWorld) -> StepResult {
    let pods: Api<Pod> = Api::all(world.client());
    let deadline = tokio::time::Instant::now() + world.backend().eventually_timeout();
    loop {
        let listed = pods.list(&ListParams::default()).await.map_err(|e| format!("cannot list pods: {e}"))?;
        let terminated: Vec<String> = listed
            .items
            .iter()
            .filter(|p| matches!(p.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed")))
            .map(|p| format!("{}/{}", p.metadata.namespace.as_deref().unwrap_or(""), p.metadata.name.as_deref().unwrap_or("")))
            .collect();
        if terminated.is_empty() {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            return Err(format!("other scenarios' terminated pods are still there: {}", terminated.join(", ")));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// `When 20 seconds pass`, `When an hour passes`: on a virtual clock at once, every periodic
/// controller making each of its passes; elsewhere in real time.
#[given(regex = r"^((?-u:\d)+|a|an) (second|minute|hour)s? pass(?:es)?$")]
#[when(regex = r"^((?-u:\d)+|a|an) (second|minute|hour)s? pass(?:es)?$")]
async fn time_passes(world: &mut KubeWorld, count: String, unit: String) -> StepResult {
    let count: u64 = if count == "a" || count == "an" { 1 } else { count.parse().map_err(|e| format!("{count}: {e}"))? };
    let seconds = match unit.as_str() {
        "second" => 1,
        "minute" => 60,
        _ => 3600,
    };
    world.settled = false;
    world.backend().let_time_pass(Duration::from_secs(count * seconds)).await
}

/// `Given a Pod named "a" in phase Failed with reason "Evicted" on node "n" with finalizer "f"`
/// (reason, node and finalizers optional): the pod is created, then its status is set, as a
/// kubelet would.
#[given(
    regex = r#"^a Pod named "([^"]+)" in phase (Pending|Running|Succeeded|Failed|Unknown)(?: with reason "([^"]+)")?(?: on node "([^"]+)")?(?: with finalizers? "([^"]*)")?$"#
)]
async fn pod_in_phase(world: &mut KubeWorld, name: String, phase: String, reason: String, node: String, finalizers: String) -> StepResult {
    create_pod(world, &name, &node, &finalizers).await?;
    let mut status = json!({"phase": phase});
    if !reason.is_empty() {
        status["reason"] = json!(reason);
    }
    patch_status(world, "Pod", &name, json!({"status": status})).await
}

/// `Given a Pod named "a" on node "n"` (with finalizers optional): a pod bound to a node, still
/// Pending.
#[given(regex = r#"^a Pod named "([^"]+)" on node "([^"]+)"(?: with finalizers? "([^"]*)")?$"#)]
async fn pod_on_node(world: &mut KubeWorld, name: String, node: String, finalizers: String) -> StepResult {
    create_pod(world, &name, &node, &finalizers).await
}

/// `Given a Node named "n" that is not Ready with the out-of-service taint with effect
/// NoExecute` (or `that is Ready`; the taint optional). The readiness is always said, so that
/// the step is not mistaken for the plain `Given a Node named "n"`.
#[given(
    regex = r#"^a Node named "([^"]+)" that is (not )?Ready( with the out-of-service taint(?: with effect (NoExecute|NoSchedule|PreferNoSchedule))?(?: and value "([^"]+)")?)?$"#
)]
async fn node(world: &mut KubeWorld, name: String, not_ready: String, tainted: String, effect: String, value: String) -> StepResult {
    let mut body = manifest_with(world, "Node", &name, Vec::new(), Vec::new()).await?;
    if !tainted.is_empty() {
        let effect = if effect.is_empty() { "NoExecute" } else { &effect };
        let mut taint = json!({"key": kubegc::cleanup::pod_gc::OUT_OF_SERVICE_TAINT, "effect": effect});
        if !value.is_empty() {
            taint["value"] = json!(value);
        }
        body["spec"]["taints"] = json!([taint]);
    }
    create_body(world, "Node", &name, body, false).await.map_err(|e| format!("cannot create Node {name:?}: {e}"))?;
    let ready = if not_ready.is_empty() { "True" } else { "False" };
    patch_status(world, "Node", &name, json!({"status": {"conditions": [{"type": "Ready", "status": ready, "reason": "Kubegc"}]}})).await
}

/// Creates pod `name`, bound to `node` unless that is empty.
async fn create_pod(world: &mut KubeWorld, name: &str, node: &str, finalizers: &str) -> StepResult {
    let mut body = manifest_with(world, "Pod", name, Vec::new(), list(finalizers)).await?;
    if !node.is_empty() {
        body["spec"]["nodeName"] = json!(node);
    }
    create_body(world, "Pod", name, body, false).await.map_err(|e| format!("cannot create Pod {name:?}: {e}"))
}

/// Merges `patch` into the status of `kind/name`.
async fn patch_status(world: &mut KubeWorld, kind: &str, name: &str, patch: serde_json::Value) -> StepResult {
    let (api, _, _) = world.api(kind).await?;
    world.settled = false;
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| format!("cannot set the status of {kind} {name:?}: {e}"))?;
    Ok(())
}
