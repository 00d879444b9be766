//! The pod garbage collector (kube-controller-manager's `pod-garbage-collector-controller`,
//! upstream `pkg/controller/podgc/gc_controller.go`). Every [`Settings::period`] it looks at
//! every pod and node in the cluster and force-deletes (grace period 0):
//!
//! - **terminated pods over the threshold**: when more pods than
//!   `--terminated-pod-gc-threshold` (12,500; 0 or less turns only this rule off) are in a
//!   phase other than Pending, Running or Unknown, cluster-wide, the surplus goes — evicted pods
//!   first, then the oldest by creation time, ties by name alone (`gcTerminated`);
//! - **terminating pods on out-of-service nodes**: a pod being deleted on a node that is not
//!   Ready and carries the `node.kubernetes.io/out-of-service` taint (`gcTerminating`);
//! - **orphaned pods**: pods bound to a node that does not exist, once the node's name has
//!   waited out a quarantine of [`Settings::quarantine`] (40 s) and a live GET still finds no
//!   node (`gcOrphaned`); a pod not yet terminal first gets the `DisruptionTarget` condition;
//! - **unscheduled terminating pods**: a pod being deleted that no node was ever named for
//!   (`gcUnscheduledTerminating`).
//!
//! A pod not yet Succeeded or Failed is first patched to phase Failed (with the uid as a
//! precondition); a failed patch leaves the pod for the next pass.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use serde_json::json;

use crate::cleanup::pass::{Context, Controller, Outcome, Period};
use crate::clock::format_time;

/// The taint that lets the pod garbage collector delete terminating pods of a node that is not Ready.
pub const OUT_OF_SERVICE_TAINT: &str = "node.kubernetes.io/out-of-service";

/// The pod garbage collector's settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How many terminated pods the cluster keeps (`--terminated-pod-gc-threshold`); 0 or less
    /// keeps them all.
    pub threshold: i64,
    /// How often it looks (upstream's `gcCheckPeriod`, a constant).
    pub period: Duration,
    /// How long a missing node's name waits before its pods count as orphaned (upstream's
    /// `quarantineTime`, a constant).
    pub quarantine: Duration,
}

impl Default for Settings {
    /// kube-controller-manager's: 12,500 terminated pods, every 20 s, a 40 s quarantine.
    fn default() -> Self {
        Self { threshold: 12_500, period: Duration::from_secs(20), quarantine: Duration::from_secs(40) }
    }
}

/// How many terminated pods the cluster keeps, as the collector acts on it (upstream
/// `gcTerminated`'s threshold): the decision a mutant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TerminatedKept(pub i64);

/// Which pods of the same eviction state go first, by creation time (upstream
/// `byEvictionAndCreationTimestamp`): the oldest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgeOrder {
    /// The oldest first: the reference order.
    OldestFirst,
    /// The newest first.
    NewestFirst,
}

/// How long a missing node's name waits before its pods count as orphaned, as the collector
/// acts on it (upstream `gcOrphaned`'s quarantine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quarantine(pub chrono::Duration);

/// The pod garbage collector.
#[derive(Debug)]
pub struct PodGc {
    settings: Settings,
    period: Period,
    /// Names of missing nodes, with the moment their quarantine ends.
    quarantined: BTreeMap<String, DateTime<Utc>>,
}

impl PodGc {
    /// A pod garbage collector that has not looked yet.
    pub fn new(settings: Settings) -> Self {
        Self { period: Period::new(settings.period), settings, quarantined: BTreeMap::new() }
    }

    async fn collect(&mut self, context: &Context) -> kube::Result<bool> {
        let pods: Vec<Pod> = context.list().await?;
        let nodes: Vec<Node> = context.list().await?;
        let mut deleter = Deleter { context, wrote: false };
        let threshold = context.decided(TerminatedKept(self.settings.threshold)).0;
        if threshold > 0 {
            let mut terminated: Vec<&Pod> = pods.iter().filter(|p| is_terminated(p)).collect();
            let surplus = terminated.len().saturating_sub(threshold as usize);
            if surplus > 0 {
                sort_for_deletion(&mut terminated, context.decided(AgeOrder::OldestFirst));
                for pod in &terminated[..surplus] {
                    deleter.fail_and_delete(pod, None).await;
                }
            }
        }
        let by_name: BTreeMap<&str, &Node> = nodes.iter().map(|n| (n.metadata.name.as_deref().unwrap_or(""), n)).collect();
        let mut out_of_service: Vec<&Pod> = pods
            .iter()
            .filter(|p| p.metadata.deletion_timestamp.is_some())
            .filter(|p| by_name.get(node_name(p)).is_some_and(|n| !is_ready(n) && has_out_of_service_taint(n)))
            .collect();
        sort_for_deletion(&mut out_of_service, AgeOrder::OldestFirst);
        for pod in out_of_service {
            deleter.fail_and_delete(pod, None).await;
        }
        for node in self.orphaning_nodes(context, &pods, &by_name).await {
            for pod in pods.iter().filter(|p| node_name(p) == node) {
                deleter.fail_and_delete(pod, Some(node_gone_condition(context))).await;
            }
        }
        for pod in pods.iter().filter(|p| p.metadata.deletion_timestamp.is_some() && node_name(p).is_empty()) {
            deleter.fail_and_delete(pod, None).await;
        }
        Ok(deleter.wrote)
    }

    /// Quarantines the names of nodes pods are bound to but the node list lacks, and returns
    /// those whose quarantine is over and that a live GET does not find either.
    async fn orphaning_nodes(&mut self, context: &Context, pods: &[Pod], nodes: &BTreeMap<&str, &Node>) -> BTreeSet<String> {
        let now = context.clock.now();
        let quarantine = context.decided(Quarantine(chrono::Duration::from_std(self.settings.quarantine).unwrap_or_default())).0;
        for pod in pods {
            let name = node_name(pod);
            if !name.is_empty() && !nodes.contains_key(name) {
                self.quarantined.entry(name.to_string()).or_insert(now + quarantine);
            }
        }
        let over: Vec<String> = self.quarantined.iter().filter(|(_, until)| **until <= now).map(|(n, _)| n.clone()).collect();
        let mut gone = BTreeSet::new();
        for name in over {
            self.quarantined.remove(&name);
            if nodes.contains_key(name.as_str()) {
                continue;
            }
            // Only NotFound counts; another error leaves the name to be quarantined again.
            match Api::<Node>::all(context.client.clone()).get_opt(&name).await {
                Ok(None) => {
                    gone.insert(name);
                }
                Ok(Some(_)) => {}
                Err(e) => tracing::debug!("pod garbage collector: reading node {name}: {e}"),
            }
        }
        gone
    }
}

impl Controller for PodGc {
    fn name(&self) -> &'static str {
        "pod-garbage-collector-controller"
    }

    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>> {
        Box::pin(async move {
            if !self.period.due(context.clock.now()) {
                return Ok(self.period.outcome(false));
            }
            let wrote = self.collect(context).await?;
            Ok(self.period.outcome(wrote))
        })
    }
}

/// Force-deletes pods, failing them first.
struct Deleter<'a> {
    context: &'a Context,
    wrote: bool,
}

impl Deleter<'_> {
    /// Patches a pod that is not yet terminal to phase Failed (adding `condition`, if any),
    /// then deletes it with grace period 0; errors leave the pod for a later pass.
    async fn fail_and_delete(&mut self, pod: &Pod, condition: Option<serde_json::Value>) {
        let (Some(namespace), Some(name)) = (pod.metadata.namespace.as_deref(), pod.metadata.name.as_deref()) else {
            return;
        };
        let api: Api<Pod> = Api::namespaced(self.context.client.clone(), namespace);
        if !matches!(phase(pod), "Succeeded" | "Failed") {
            let patch = json!({
                "metadata": {"uid": pod.metadata.uid},
                "status": {"phase": "Failed", "conditions": conditions_with(pod, condition)},
            });
            if let Err(e) = api.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch)).await {
                tracing::debug!("pod garbage collector: failing pod {namespace}/{name}: {e}");
                return;
            }
            self.wrote = true;
        }
        match api.delete(name, &DeleteParams { grace_period_seconds: Some(0), ..DeleteParams::default() }).await {
            Ok(_) => self.wrote = true,
            Err(e) => tracing::debug!("pod garbage collector: deleting pod {namespace}/{name}: {e}"),
        }
    }
}

/// The pod's conditions with `condition` put in place of any of its type (its transition
/// time kept when the status does not change).
fn conditions_with(pod: &Pod, condition: Option<serde_json::Value>) -> Vec<serde_json::Value> {
    let mut conditions: Vec<serde_json::Value> =
        pod.status.iter().flat_map(|s| s.conditions.iter().flatten()).map(|c| serde_json::to_value(c).unwrap_or_default()).collect();
    if let Some(mut new) = condition {
        match conditions.iter_mut().find(|c| c["type"] == new["type"]) {
            Some(old) => {
                if old["status"] == new["status"] {
                    new["lastTransitionTime"] = old["lastTransitionTime"].clone();
                }
                *old = new;
            }
            None => conditions.push(new),
        }
    }
    conditions
}

/// The condition an orphaned pod gets before it is deleted.
fn node_gone_condition(context: &Context) -> serde_json::Value {
    json!({
        "type": "DisruptionTarget",
        "status": "True",
        "reason": "DeletionByPodGC",
        "message": "PodGC: node no longer exists",
        "lastTransitionTime": format_time(context.clock.now()),
    })
}

fn phase(pod: &Pod) -> &str {
    pod.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("")
}

fn node_name(pod: &Pod) -> &str {
    pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).unwrap_or("")
}

/// Terminated: in a phase other than Pending, Running or Unknown (an empty phase too).
fn is_terminated(pod: &Pod) -> bool {
    !matches!(phase(pod), "Pending" | "Running" | "Unknown")
}

/// Evicted: Failed with the reason `Evicted`.
fn is_evicted(pod: &Pod) -> bool {
    phase(pod) == "Failed" && pod.status.as_ref().and_then(|s| s.reason.as_deref()) == Some("Evicted")
}

fn is_ready(node: &Node) -> bool {
    let conditions = node.status.iter().flat_map(|s| s.conditions.iter().flatten());
    conditions.into_iter().any(|c| c.type_ == "Ready" && c.status == "True")
}

fn has_out_of_service_taint(node: &Node) -> bool {
    node.spec.iter().flat_map(|s| s.taints.iter().flatten()).any(|t| t.key == OUT_OF_SERVICE_TAINT)
}

/// Upstream's deletion order: evicted pods first, then by age in `order`, ties by name (the
/// namespace does not count).
fn sort_for_deletion(pods: &mut [&Pod], order: AgeOrder) {
    pods.sort_by(|a, b| {
        let age = a.metadata.creation_timestamp.as_ref().map(|t| t.0).cmp(&b.metadata.creation_timestamp.as_ref().map(|t| t.0));
        let age = if order == AgeOrder::NewestFirst { age.reverse() } else { age };
        is_evicted(b).cmp(&is_evicted(a)).then(age).then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
}
