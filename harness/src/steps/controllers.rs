//! Steps for the cleanup controllers: a cluster of the scenario's own with their settings,
//! and time passing.
//!
//! A cluster of its own is the fake's on a virtual clock, or, on the upstream control plane, a
//! kube-controller-manager started for the scenario with the flags that set the controllers
//! so. Time passes on the fake's virtual clock at once; elsewhere it really passes.

use std::time::Duration;

use cucumber::gherkin::Step;
use cucumber::{given, when};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams};
use kubegc::kubelet::quantity::parse_bytes;
use kubegc::workloads::nodes::kubelet::NodeDisks;

use crate::backend::{Own, OwnCluster};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// `When a second has gone by`: a second passes, and a little more on a real clock (for rules
/// about timestamps, which the API server writes with a resolution of one second).
#[given(regex = r"^a second has gone by$")]
#[when(regex = r"^a second has gone by$")]
async fn a_second(world: &mut KubeWorld) -> StepResult {
    world.backend().let_time_pass(std::time::Duration::from_millis(1100)).await
}

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
