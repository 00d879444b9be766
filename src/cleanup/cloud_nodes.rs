//! The cloud node lifecycle controller of a cloud-controller-manager (`MonitorNodes` in
//! `k8s.io/cloud-provider/controllers/nodelifecycle/node_lifecycle_controller.go`), over
//! kubegc's fake [`Cloud`]: the one way a Node object is deleted because its machine is gone.
//!
//! - A Node whose `Ready` condition is `True` is never asked about, whatever the cloud says
//!   (upstream's `Test_NodesDeleted` "node is ready, but provider said it is deleted"); it only
//!   loses the shutdown taint if it has it.
//! - Any other Node (Ready `False`, `Unknown`, or no Ready condition, which counts as
//!   `Unknown`) whose instance the cloud no longer has is deleted with a plain DELETE, after a
//!   Normal `DeletingNode` Event. What the Node held goes by other rules: its Lease by the
//!   garbage collector (the kubelet makes the Node its owner), its pods by the pod garbage
//!   collector's orphan rule.
//! - A not-Ready Node whose instance exists but is shut down gets the NoSchedule taint
//!   `node.cloudprovider.kubernetes.io/shutdown` and stays (existence decides before shutdown).
//!
//! Upstream looks every `--node-monitor-period` (5 s); the fake looks whenever a Node or the
//! cloud changes, which is when the answer can change.

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{Node, Taint};
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use serde_json::json;

use crate::cleanup::pass::{Context, Controller, Outcome, resource};
use crate::cloud::{Cloud, Instance};
use crate::recorder::Record;

/// The taint of a Node whose machine is shut down (`TaintNodeShutdown`).
pub const SHUTDOWN_TAINT: &str = "node.cloudprovider.kubernetes.io/shutdown";

/// The component its Events come from.
const COMPONENT: &str = "cloud-node-lifecycle-controller";

/// Whether the controller asks the cloud about a Node (upstream `MonitorNodes`: only about
/// Nodes that are not Ready): the decision a mutant may change, as is the [`Instance`] the
/// cloud answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Asked(pub bool);

/// The controller, over its cloud.
#[derive(Debug)]
pub struct CloudNodes {
    cloud: Cloud,
}

impl CloudNodes {
    /// The controller asking `cloud`.
    pub fn new(cloud: Cloud) -> Self {
        Self { cloud }
    }
}

impl Controller for CloudNodes {
    fn name(&self) -> &'static str {
        "cloud-node-lifecycle-controller"
    }

    fn watches(&self) -> Vec<kube::api::ApiResource> {
        vec![resource::<Node>()]
    }

    fn cloud(&self) -> Option<&Cloud> {
        Some(&self.cloud)
    }

    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>> {
        Box::pin(async move {
            let api: Api<Node> = Api::all(context.client.clone());
            let mut wrote = false;
            for node in context.list::<Node>().await? {
                let name = node.name_any();
                let taints = node.spec.as_ref().and_then(|s| s.taints.clone()).unwrap_or_default();
                let tainted = taints.iter().any(|t| t.key == SHUTDOWN_TAINT && t.effect == "NoSchedule");
                let ready = node.status.as_ref().and_then(|s| s.conditions.as_ref()).and_then(|c| c.iter().find(|c| c.type_ == "Ready"));
                let asked = context.decided(Asked(ready.is_none_or(|r| r.status != "True"))).0;
                let wanted = if !asked {
                    tainted.then(|| taints.iter().filter(|t| t.key != SHUTDOWN_TAINT).cloned().collect::<Vec<Taint>>())
                } else {
                    match context.decided(self.cloud.instance(&name)) {
                        Instance::Gone => {
                            wrote |= delete(context, &api, &node).await;
                            None
                        }
                        Instance::Shutdown if !tainted => {
                            let mut with = taints.clone();
                            with.push(Taint { key: SHUTDOWN_TAINT.into(), effect: "NoSchedule".into(), ..Default::default() });
                            Some(with)
                        }
                        Instance::Shutdown | Instance::Running => None,
                    }
                };
                if let Some(taints) = wanted {
                    let patch = json!({"spec": {"taints": taints}});
                    match api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await {
                        Ok(_) => wrote = true,
                        Err(e) => tracing::debug!("cloud node lifecycle: tainting {name}: {e}"),
                    }
                }
            }
            Ok(Outcome { wrote, again_at: None })
        })
    }
}

/// Records `DeletingNode` and deletes `node`; whether it went.
async fn delete(context: &Context, api: &Api<Node>, node: &Node) -> bool {
    let name = node.name_any();
    let involved = json!({"apiVersion": "v1", "kind": "Node", "name": name, "uid": node.metadata.uid});
    let now = context.clock.now();
    let deleting = Record {
        involved: involved.clone(),
        event_type: "Normal",
        reason: "DeletingNode",
        message: format!("Deleting node {name} because it does not exist in the cloud provider"),
    };
    if let Err(e) = deleting.send(&context.client, COMPONENT, now).await {
        tracing::debug!("cloud node lifecycle: recording the deletion of {name}: {e}");
    }
    match api.delete(&name, &DeleteParams::default()).await {
        Ok(_) => true,
        Err(e) => {
            let failed = Record {
                involved,
                event_type: "Warning",
                reason: "DeletingNodeFailed",
                message: format!("Failed deleting node {name}: {e}"),
            };
            let _ = failed.send(&context.client, COMPONENT, now).await;
            false
        }
    }
}
