//! Steps for the cloud behind a cluster's Nodes: a machine gone or shut down (on the fake its
//! fake cloud, on the upstream control plane the file the real cloud node lifecycle
//! controller's fake cloud reads, the hollow node's kubelet stopped with it), and what the
//! Node is left with: its taints and its Lease.

use cucumber::{given, then, when};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, Patch, PatchParams};
use kubegc::cloud::Instance;
use serde_json::json;

use super::support::{create_body, manifest_with, settled};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// `Given a Node named "n1" whose readiness is Unknown`: a Node (no kubelet behind it) whose
/// Ready condition is Unknown, as the node lifecycle controller leaves a silent one.
#[given(regex = r#"^a Node named "([^"]+)" whose readiness is Unknown$"#)]
async fn unknown_node(world: &mut KubeWorld, name: String) -> StepResult {
    let body = manifest_with(world, "Node", &name, Vec::new(), Vec::new()).await?;
    create_body(world, "Node", &name, body, false).await.map_err(|e| format!("cannot create Node {name:?}: {e}"))?;
    let api: Api<Node> = Api::all(world.client());
    let status = json!({"status": {"conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown"}]}});
    world.settled = false;
    api.patch_status(&name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .map_err(|e| format!("cannot set the status of Node {name:?}: {e}"))?;
    Ok(())
}

/// `When the cloud no longer has the machine of Node "node-2"` (its kubelet stops with it) and
/// `When the cloud shuts down the machine of Node "node-2"`, once the cluster has settled.
#[when(regex = r#"^the cloud (no longer has|shuts down) the machine of Node "([^"]+)"$"#)]
async fn machine(world: &mut KubeWorld, what: String, node: String) -> StepResult {
    let instance = if what == "no longer has" { Instance::Gone } else { Instance::Shutdown };
    // What the steps before set going has happened (the Node registered, say) before the
    // machine goes.
    settled(world).await?;
    world.settled = false;
    world.backend().set_instance(&node, instance).await
}

/// `Then the Lease of Node "node-2" is gone`: its kubelet's Lease in `kube-node-lease` (waits up
/// to the backend's timeout).
#[then(regex = r#"^the Lease of Node "([^"]+)" is gone$"#)]
async fn lease_gone(world: &mut KubeWorld, node: String) -> StepResult {
    let api: Api<Lease> = Api::namespaced(world.client(), "kube-node-lease");
    world
        .poll(&format!("the Lease of Node {node:?} to be gone"), || {
            let api = api.clone();
            let node = node.clone();
            async move { api.get_opt(&node).await.map(|l| l.is_none()).map_err(|e| e.to_string()) }
        })
        .await
}

/// `Then Node "node-2" has the taint "node.cloudprovider.kubernetes.io/shutdown:NoSchedule"`
/// and `... has no taint "..."` (a taint as kubectl writes it, `key[=value]:Effect`; waits up to
/// the backend's timeout for it to hold, after the cluster has settled).
#[then(regex = r#"^Node "([^"]+)" has (the|no) taint "([^"]+)"$"#)]
async fn node_taint(world: &mut KubeWorld, node: String, which: String, taint: String) -> StepResult {
    settled(world).await?;
    let api: Api<Node> = Api::all(world.client());
    let wanted = which == "the";
    world
        .poll(&format!("Node {node:?} to have {which} taint {taint:?}"), || {
            let api = api.clone();
            let (node, taint) = (node.clone(), taint.clone());
            async move {
                let stored = api.get(&node).await.map_err(|e| format!("cannot read Node {node:?}: {e}"))?;
                let taints = stored.spec.and_then(|s| s.taints).unwrap_or_default();
                let has = taints.iter().any(|t| {
                    let key = t.value.as_ref().map_or(t.key.clone(), |v| format!("{}={v}", t.key));
                    format!("{key}:{}", t.effect) == taint
                });
                Ok(has == wanted)
            }
        })
        .await
}
