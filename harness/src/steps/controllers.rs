//! Steps for the cleanup controllers: a cluster of the scenario's own with their settings, time
//! passing, pods in a phase or on a node, and nodes that are not Ready or are tainted.
//!
//! A cluster of its own is the fake's on a virtual clock, or, on the upstream control plane, a
//! kube-controller-manager started for the scenario with the flags that set the controllers
//! so. Time passes on the fake's virtual clock at once; elsewhere it really passes.

use std::time::Duration;

use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, Patch, PatchParams};
use kubegc::kubelet::quantity::parse_bytes;
use kubegc::workloads::nodes::kubelet::NodeDisks;
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
    start_own_cluster(world, OwnCluster { terminated_pod_threshold: Some(threshold), ..Default::default() }).await
}

/// `Given a cluster of its own with 2 nodes`: as `a cluster of its own`, with nodes that run
/// pods (`node-1`, `node-2`, …) — on the fake, node agents standing in for kubelets and a
/// scheduler; on the upstream control plane, a control plane of its own with kube-scheduler and
/// hollow nodes (the release's kubelet on a fake container runtime).
#[given(regex = r"^a cluster of its own with ((?-u:\d)+) nodes?$")]
async fn own_cluster_with_nodes(world: &mut KubeWorld, count: usize) -> StepResult {
    start_own_cluster(world, OwnCluster { nodes: count, ..Default::default() }).await
}

/// `Given a cluster of its own with 1 node whose disk holds 10Gi`, optionally followed by
/// `, where images take:` and a table of `image | size`: as `a cluster of its own with 1
/// node`, each node's disk that big and those images that big (others 100 MiB), as the
/// fake's kubelet model sees them (so only on the fake).
#[given(regex = r"^a cluster of its own with ((?-u:\d)+) nodes? whose disks? holds? ([^,]+?)(, where images take:)?$")]
async fn own_cluster_with_disks(world: &mut KubeWorld, count: usize, size: String, images: String, step: &Step) -> StepResult {
    let mut disks = NodeDisks { capacity: parse_bytes(&size)?, ..Default::default() };
    if !images.is_empty() {
        let table = step.table.as_ref().ok_or("the step needs a table of image | size")?;
        for row in table.rows.iter().skip(1) {
            let [image, size] = row.as_slice() else { return Err(format!("a row {row:?} is not image | size")) };
            disks.image_sizes.insert(image.clone(), parse_bytes(size)?);
        }
    }
    start_own_cluster(world, OwnCluster { nodes: count, disks: Some(disks), ..Default::default() }).await
}

/// Gives the scenario the controllers `spec` asks for.
async fn start_own_cluster(world: &mut KubeWorld, spec: OwnCluster) -> StepResult {
    world.on_nodes = spec.nodes > 0;
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

/// `Given a Pod named "a" on node "n" with finalizer "f" whose container repeats an
/// environment variable` (or `a port`): keys a strategic-merge patch of the pod would merge,
/// which once broke the patch that fails an orphaned pod (upstream issues 118261 and 113482).
#[given(
    regex = r#"^a Pod named "([^"]+)" on node "([^"]+)" with finalizers? "([^"]*)" whose container repeats (an environment variable|a port)$"#
)]
async fn pod_with_repeated_keys(world: &mut KubeWorld, name: String, node: String, finalizers: String, repeated: String) -> StepResult {
    let mut body = manifest_with(world, "Pod", &name, Vec::new(), list(&finalizers)).await?;
    body["spec"]["nodeName"] = json!(node);
    body["spec"]["containers"][0][if repeated == "a port" { "ports" } else { "env" }] = if repeated == "a port" {
        json!([{"containerPort": 93, "hostPort": 9376}, {"containerPort": 93, "hostPort": 9377}])
    } else {
        json!([{"name": "EXAMPLE", "value": "one"}, {"name": "EXAMPLE", "value": "two"}])
    };
    create_body(world, "Pod", &name, body, false).await.map_err(|e| format!("cannot create Pod {name:?}: {e}"))
}

/// `Given a Node named "n" that is not Ready with the out-of-service taint with effect
/// NoExecute` (or `that is Ready`; the taint optional, NoSchedule unless said otherwise). The readiness is always said, so that
/// the step is not mistaken for the plain `Given a Node named "n"`.
#[given(
    regex = r#"^a Node named "([^"]+)" that is (not )?Ready( with the out-of-service taint(?: with effect (NoExecute|NoSchedule|PreferNoSchedule))?(?: and value "([^"]+)")?)?$"#
)]
async fn node(world: &mut KubeWorld, name: String, not_ready: String, tainted: String, effect: String, value: String) -> StepResult {
    let mut body = manifest_with(world, "Node", &name, Vec::new(), Vec::new()).await?;
    if !tainted.is_empty() {
        let effect = if effect.is_empty() { "NoSchedule" } else { &effect };
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

/// Creates pod `name`, bound to `node` unless that is empty, with the default grace period of
/// 30 seconds (the manifests of other steps have none, to be deleted at once).
async fn create_pod(world: &mut KubeWorld, name: &str, node: &str, finalizers: &str) -> StepResult {
    let mut body = manifest_with(world, "Pod", name, Vec::new(), list(finalizers)).await?;
    body["spec"]["terminationGracePeriodSeconds"] = json!(30);
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

/// `Given 30 Pods in phase Failed, named "old-" and a number`: pods `old-1` to `old-30`,
/// created one after another, each then set to the phase.
#[given(regex = r#"^((?-u:\d)+) Pods in phase (Succeeded|Failed), named "([^"]+)" and a number$"#)]
async fn many_pods(world: &mut KubeWorld, count: usize, phase: String, prefix: String) -> StepResult {
    for i in 1..=count {
        let name = format!("{prefix}{i}");
        create_pod(world, &name, "", "").await?;
        patch_status(world, "Pod", &name, json!({"status": {"phase": phase}})).await?;
    }
    Ok(())
}

/// `Given a Pod named "a" in phase Running with condition Ready on node "n" with finalizer "f"`: as
/// [`pod_in_phase`], with a condition of that type set to True.
#[given(
    regex = r#"^a Pod named "([^"]+)" in phase (Pending|Running) with condition ((?-u:\w)+) on node "([^"]+)" with finalizers? "([^"]*)"$"#
)]
async fn pod_with_condition(
    world: &mut KubeWorld,
    name: String,
    phase: String,
    condition: String,
    node: String,
    finalizers: String,
) -> StepResult {
    create_pod(world, &name, &node, &finalizers).await?;
    let condition = json!({"type": condition, "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z"});
    patch_status(world, "Pod", &name, json!({"status": {"phase": phase, "conditions": [condition]}})).await
}

/// `When Node "n" gets the out-of-service taint`: the taint an administrator sets on a node
/// that is shut down for good, with effect NoSchedule (NoExecute would also bring
/// kube-controller-manager's taint-eviction controller, which adds a condition of its own).
#[given(regex = r#"^Node "([^"]+)" gets the out-of-service taint$"#)]
#[when(regex = r#"^Node "([^"]+)" gets the out-of-service taint$"#)]
async fn taint_node(world: &mut KubeWorld, name: String) -> StepResult {
    let (api, _, _) = world.api("Node").await?;
    let taint = json!({"key": kubegc::cleanup::pod_gc::OUT_OF_SERVICE_TAINT, "effect": "NoSchedule"});
    world.settled = false;
    api.patch(&name, &PatchParams::default(), &Patch::Merge(&json!({"spec": {"taints": [taint]}})))
        .await
        .map_err(|e| format!("cannot taint Node {name:?}: {e}"))?;
    Ok(())
}

/// `Then the Pods left are "b, c"`: eventually the scenario's
/// namespace holds exactly these pods, terminating ones included.
#[then(regex = r#"^the Pods left are "([^"]*)"$"#)]
async fn pods_left(world: &mut KubeWorld, names: String) -> StepResult {
    let mut want = list(&names);
    want.sort();
    let (api, _, _) = world.api("Pod").await?;
    let have = Seen::default();
    let result = world
        .poll(&format!("the pods left to be {want:?}"), || {
            let (api, want, have) = (api.clone(), &want, have.clone());
            async move {
                let listed = api.list_metadata(&ListParams::default()).await.map_err(|e| e.to_string())?;
                let mut names: Vec<String> = listed.items.iter().filter_map(|p| p.metadata.name.clone()).collect();
                names.sort();
                let done = names == *want;
                have.set(names);
                Ok(done)
            }
        })
        .await;
    result.map_err(|e| format!("{e}; left: {:?}", have.get()))
}

/// `Then 10 Pods are left` (`1 Pod is left`): eventually the scenario's namespace holds that many pods.
#[then(regex = r"^((?-u:\d)+) Pods? (?:are|is) left$")]
async fn pods_counted(world: &mut KubeWorld, count: usize) -> StepResult {
    let (api, _, _) = world.api("Pod").await?;
    let have = Seen::default();
    let result = world
        .poll(&format!("{count} pods to be left"), || {
            let (api, have) = (api.clone(), have.clone());
            async move {
                let left = api.list_metadata(&ListParams::default()).await.map_err(|e| e.to_string())?.items.len();
                have.set(left);
                Ok(left == count)
            }
        })
        .await;
    result.map_err(|e| format!("{e}; left: {}", have.get()))
}

/// `Then Pod "c" is marked Failed` (eventually), optionally `with condition DisruptionTarget
/// and reason "DeletionByPodGC"` (status True, a transition time set), or `without condition
/// DisruptionTarget`.
#[then(regex = r#"^Pod "([^"]+)" is marked (Failed|Succeeded)(?: (with|without) condition ((?-u:\w)+)(?: and reason "([^"]+)")?)?$"#)]
async fn pod_marked(world: &mut KubeWorld, name: String, phase: String, with: String, condition: String, reason: String) -> StepResult {
    let (api, _, _) = world.api("Pod").await?;
    let seen = Seen::default();
    let result = world
        .poll(&format!("Pod {name:?} to be marked {phase}"), || {
            let (api, seen) = (api.clone(), seen.clone());
            let (name, phase, with, condition, reason) = (&name, &phase, &with, &condition, &reason);
            async move {
                let pod = api.get(name).await.map_err(|e| format!("cannot read Pod {name:?}: {e}"))?;
                let status = pod.data["status"].clone();
                seen.set(status.clone());
                let found = status["conditions"].as_array().into_iter().flatten().find(|c| c["type"] == condition.as_str()).cloned();
                let condition_ok = match with.as_str() {
                    "with" => found.is_some_and(|c| {
                        c["status"] == "True"
                            && (reason.is_empty() || c["reason"] == reason.as_str())
                            && c["lastTransitionTime"].is_string()
                    }),
                    "without" => found.is_none(),
                    _ => true,
                };
                Ok(status["phase"] == phase.as_str() && condition_ok)
            }
        })
        .await;
    result.map_err(|e| format!("{e}; its status: {}", seen.get()))
}

/// The last value a poll saw, for its failure message.
#[derive(Clone, Default)]
struct Seen<T>(std::sync::Arc<std::sync::Mutex<T>>);

impl<T: Clone> Seen<T> {
    fn set(&self, value: T) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = value;
    }

    fn get(&self) -> T {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
