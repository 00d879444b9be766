//! Steps on Nodes as the cleanup controllers see them: Ready or not, and tainted.

use cucumber::{given, when};
use kube::api::{Patch, PatchParams};
use serde_json::json;

use super::support::{create_body, manifest_with, patch_status};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

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
