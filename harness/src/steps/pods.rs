//! Steps on Pods: created running on a node, in a phase (with a reason, on a node, with
//! conditions or repeated keys), many at once; their phase, readiness and fields as nodes that
//! run them report them; and which of them the pod garbage collector left, or marked.

use cucumber::{given, then};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams};
use serde_json::{Value, json};

use super::support::{at, create_body, explained, glob, list, manifest_with, patch_status, settled, show};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// `Given a Pod named "web" running on a node`: a pod bound to a node, with a 30 second grace
/// period, so that deleting it is graceful (optionally ` with finalizers "x/y"`).
#[given(regex = r#"^a Pod named "([^"]+)" running on a node(?: with finalizers? "([^"]*)")?$"#)]
async fn running_pod(world: &mut KubeWorld, name: String, finalizers: String) -> StepResult {
    let mut body = manifest_with(world, "Pod", &name, vec![], list(&finalizers)).await?;
    body["spec"]["nodeName"] = json!("kubegc-node");
    body["spec"]["terminationGracePeriodSeconds"] = json!(30);
    create_body(world, "Pod", &name, body, false).await.map_err(|e| format!("cannot create Pod {name:?}: {e}"))
}

/// `Then every Pod named "web-*" is Running and Ready on a node` (or `is Succeeded on a node`,
/// `on node "node-1"`): after settling, at least one pod matches, and each is in that phase,
/// bound to a node (that one, if named) and, if said, has a true `Ready` condition.
#[given(regex = r#"^every Pod named "([^"]+)" is (Pending|Running|Succeeded|Failed)( and Ready)? on (?:a node|node "([^"]+)")$"#)]
#[then(regex = r#"^every Pod named "([^"]+)" is (Pending|Running|Succeeded|Failed)( and Ready)? on (?:a node|node "([^"]+)")$"#)]
async fn all_pods_running(world: &mut KubeWorld, pattern: String, phase: String, ready: String, on: String) -> StepResult {
    let result = async {
        settled(world).await?;
        let namespace = world.namespace().await?;
        let pods: Api<Pod> = Api::namespaced(world.client(), &namespace);
        let listed = pods.list(&ListParams::default()).await.map_err(|e| format!("cannot list Pods: {e}"))?;
        let found: Vec<&Pod> = listed.items.iter().filter(|p| glob(&pattern, p.metadata.name.as_deref().unwrap_or(""))).collect();
        if found.is_empty() {
            return Err(format!("no Pod is named {pattern:?}"));
        }
        for pod in found {
            let name = pod.metadata.name.as_deref().unwrap_or_default();
            let status = pod.status.clone().unwrap_or_default();
            let node = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).unwrap_or_default();
            let is_ready = status.conditions.unwrap_or_default().iter().any(|c| c.type_ == "Ready" && c.status == "True");
            let have = status.phase.unwrap_or_default();
            if have != phase || node.is_empty() || (!on.is_empty() && node != on) || (!ready.is_empty() && !is_ready) {
                let place = if on.is_empty() { "a node".to_string() } else { format!("node {on:?}") };
                return Err(format!("Pod {name:?} is {have} (Ready: {is_ready}) on node {node:?}, expected {phase}{ready} on {place}"));
            }
        }
        Ok(())
    }
    .await;
    explained(world, result).await
}

/// `Then a Pod named "filler-*" has "status.reason" set to "Evicted"`: after settling, some
/// pod so named has that value at the dotted path (read until one has, up to the backend's
/// timeout, where settling is only a hold).
#[then(regex = r#"^a Pod named "([^"]+)" has "([^"]+)" set to "([^"]*)"$"#)]
async fn some_pod_field(world: &mut KubeWorld, pattern: String, path: String, value: String) -> StepResult {
    let result = async {
        settled(world).await?;
        let namespace = world.namespace().await?;
        let pods: Api<Pod> = Api::namespaced(world.client(), &namespace);
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let found = world
            .poll(&format!("a Pod named {pattern:?} with {path} = {value:?}"), || {
                let (pods, pattern, path, value, seen) = (pods.clone(), pattern.clone(), path.clone(), value.clone(), seen.clone());
                async move {
                    let listed = pods.list(&ListParams::default()).await.map_err(|e| format!("cannot list Pods: {e}"))?;
                    let named: Vec<Value> = listed
                        .items
                        .iter()
                        .filter(|p| glob(&pattern, p.metadata.name.as_deref().unwrap_or("")))
                        .filter_map(|p| serde_json::to_value(p).ok())
                        .collect();
                    let values: Vec<String> = named.iter().map(|p| show(at(p, &path))).collect();
                    let found = values.contains(&value);
                    *seen.lock().unwrap_or_else(|p| p.into_inner()) = values;
                    Ok(found)
                }
            })
            .await;
        found.map_err(|e| format!("{e}; the Pods so named have {path} = {:?}", seen.lock().unwrap_or_else(|p| p.into_inner())))
    }
    .await;
    explained(world, result).await
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
