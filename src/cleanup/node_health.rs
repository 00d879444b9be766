//! The node lifecycle controller's health check (`tryUpdateNodeHealth` in
//! `pkg/controller/nodelifecycle/node_lifecycle_controller.go`): a Node whose kubelet has
//! neither posted its status nor renewed its Lease in `kube-node-lease` for the grace period
//! (`--node-monitor-grace-period`, 50 s) has its `Ready`, `MemoryPressure`, `DiskPressure` and
//! `PIDPressure` conditions set to `Unknown`, reason `NodeStatusUnknown`, "Kubelet stopped
//! posting node status." (a condition it never had is added with reason
//! `NodeStatusNeverUpdated`); `NetworkUnavailable` is left alone. The NoSchedule taint that
//! follows is [`crate::workloads::node_taints`]'s; a cloud's controller may then delete the
//! Node ([`crate::cleanup::cloud_nodes`]).
//!
//! Upstream times the grace from when it last saw the heartbeat or the Lease change; the fake's
//! kubelets write both on the cluster's clock, so the grace runs from the later of the Ready
//! condition's `lastHeartbeatTime` and the Lease's `renewTime`. A Node that never had a Ready
//! condition (upstream's `--node-startup-grace-period` case) is not looked at.

use chrono::{DateTime, Duration, Utc};
use futures::future::BoxFuture;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Node, NodeCondition};
use kube::ResourceExt;
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

use crate::cleanup::pass::{Context, Controller, Outcome, instant, resource};
use crate::clock::{earliest, format_time};

/// `--node-monitor-grace-period`'s default.
pub const GRACE: Duration = Duration::seconds(50);

/// The namespace of the kubelets' Leases.
const LEASES: &str = "kube-node-lease";

/// The conditions a silent node's kubelet can no longer vouch for.
const KUBELET_CONDITIONS: [&str; 4] = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

/// How long a node's kubelet may stay silent before its conditions go Unknown, as the check
/// acts on it (upstream `tryUpdateNodeHealth`'s grace period): the decision a mutant may
/// change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grace(pub Duration);

/// The health check.
#[derive(Debug, Default)]
pub struct NodeHealth;

impl Controller for NodeHealth {
    fn name(&self) -> &'static str {
        "node-lifecycle-controller"
    }

    fn watches(&self) -> Vec<kube::api::ApiResource> {
        vec![resource::<Node>(), resource::<Lease>()]
    }

    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>> {
        Box::pin(async move {
            let now = context.clock.now();
            let nodes = context.list::<Node>().await?;
            let leases = context.list::<Lease>().await?;
            let grace = context.decided(Grace(GRACE)).0;
            let mut outcome = Outcome::default();
            for node in &nodes {
                let conditions = node.status.as_ref().and_then(|s| s.conditions.clone()).unwrap_or_default();
                let Some(ready) = conditions.iter().find(|c| c.type_ == "Ready") else { continue };
                if ready.status == "Unknown" {
                    continue;
                }
                let lease = leases.iter().find(|l| l.namespace().as_deref() == Some(LEASES) && l.name_any() == node.name_any());
                let renewed = lease.and_then(|l| l.spec.as_ref()?.renew_time.as_ref()).map(|t| instant(&t.0));
                let heartbeat = ready.last_heartbeat_time.as_ref().map(|t| instant(&t.0));
                let Some(probe) = heartbeat.max(renewed) else { continue };
                // Upstream's test is `now.After(probe + grace)`: strictly later.
                if now <= probe + grace {
                    outcome.again_at = earliest(outcome.again_at, Some(probe + grace + Duration::milliseconds(1)));
                    continue;
                }
                let patch = json!({"status": {"conditions": unknown(&conditions, node, now)}});
                let api: Api<Node> = Api::all(context.client.clone());
                match api.patch_status(&node.name_any(), &PatchParams::default(), &Patch::Merge(&patch)).await {
                    Ok(_) => outcome.wrote = true,
                    Err(e) => tracing::debug!("node health: marking {} Unknown: {e}", node.name_any()),
                }
            }
            Ok(outcome)
        })
    }
}

/// `conditions` as upstream leaves them for a silent node at `now`.
fn unknown(conditions: &[NodeCondition], node: &Node, now: DateTime<Utc>) -> Vec<serde_json::Value> {
    let mut out: Vec<serde_json::Value> = conditions.iter().map(|c| serde_json::to_value(c).unwrap_or_default()).collect();
    for kind in KUBELET_CONDITIONS {
        match out.iter_mut().find(|c| c["type"] == kind) {
            Some(c) if c["status"] != "Unknown" => {
                c["status"] = json!("Unknown");
                c["reason"] = json!("NodeStatusUnknown");
                c["message"] = json!("Kubelet stopped posting node status.");
                c["lastTransitionTime"] = json!(format_time(now));
            }
            Some(_) => {}
            None => out.push(json!({"type": kind, "status": "Unknown", "reason": "NodeStatusNeverUpdated",
                "message": "Kubelet never posted node status.",
                "lastHeartbeatTime": node.metadata.creation_timestamp, "lastTransitionTime": format_time(now)})),
        }
    }
    out
}
