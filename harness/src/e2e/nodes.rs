//! Node objects for a cluster without kubelets, as the e2e framework needs them: schedulable,
//! Ready, without taints, and kept so by a heartbeat where a node lifecycle controller would
//! otherwise mark them NotReady (it does on the upstream control plane when neither the node's
//! Lease in `kube-node-lease` nor its Ready condition's heartbeat is renewed within the grace
//! period: `pkg/controller/nodelifecycle/node_lifecycle_controller.go`). The heartbeat renews
//! both, as a kubelet does (`pkg/kubelet/nodelease`, `pkg/kubelet/kubelet_node_status.go`).

use std::time::Duration;

use anyhow::Context;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

/// How often the heartbeat renews the Leases and Ready conditions (a kubelet renews its Lease
/// every 10 s).
const HEARTBEAT: Duration = Duration::from_secs(10);

/// How long a created node may take to become Ready and untainted (the node lifecycle
/// controller removes the `not-ready` taint that admission puts on a new Node).
const READY_WITHIN: Duration = Duration::from_secs(90);

/// Nodes made for a run, and their heartbeat; dropping it stops the heartbeat.
pub struct Nodes {
    names: Vec<String>,
    heartbeat: tokio::task::JoinHandle<()>,
}

impl Drop for Nodes {
    fn drop(&mut self) {
        self.heartbeat.abort();
    }
}

impl Nodes {
    /// Creates `count` Nodes named `kubegc-e2e-node-N` (or takes them over if they exist),
    /// starts their heartbeat and returns once each is Ready and without taints.
    pub async fn start(client: kube::Client, count: usize, release: &str) -> anyhow::Result<Self> {
        let names: Vec<String> = (1..=count).map(|i| format!("kubegc-e2e-node-{i}")).collect();
        let nodes: Api<Node> = Api::all(client.clone());
        for name in &names {
            let node: Node = serde_json::from_value(json!({
                "metadata": {
                    "name": name,
                    "labels": {
                        "kubernetes.io/hostname": name,
                        "kubernetes.io/os": "linux",
                        "kubernetes.io/arch": arch(),
                    },
                },
            }))?;
            match nodes.create(&PostParams::default(), &node).await {
                Ok(_) => {}
                Err(kube::Error::Api(e)) if e.code == 409 => {}
                Err(e) => return Err(e).with_context(|| format!("cannot create Node {name}")),
            }
        }
        let beat = Heartbeat { client, names: names.clone(), release: release.to_string() };
        beat.once().await?;
        let heartbeat = tokio::spawn(async move {
            loop {
                tokio::time::sleep(HEARTBEAT).await;
                if let Err(e) = beat.once().await {
                    tracing::warn!("node heartbeat: {e:#}");
                }
            }
        });
        let made = Self { names, heartbeat };
        made.wait_ready(&nodes).await?;
        Ok(made)
    }

    async fn wait_ready(&self, nodes: &Api<Node>) -> anyhow::Result<()> {
        let deadline = tokio::time::Instant::now() + READY_WITHIN;
        loop {
            let mut waiting = Vec::new();
            for name in &self.names {
                let node = nodes.get(name).await.with_context(|| format!("cannot read Node {name}"))?;
                if let Some(why) = not_ready(&node) {
                    waiting.push(format!("{name}: {why}"));
                }
            }
            if waiting.is_empty() {
                return Ok(());
            }
            anyhow::ensure!(
                tokio::time::Instant::now() < deadline,
                "the nodes made for the e2e tests are not Ready and schedulable after {READY_WITHIN:?}: {}",
                waiting.join("; ")
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// Why `node` is not a Ready schedulable node for the e2e framework, if it is not.
fn not_ready(node: &Node) -> Option<String> {
    let spec = node.spec.clone().unwrap_or_default();
    if spec.unschedulable == Some(true) {
        return Some("unschedulable".into());
    }
    if let Some(taint) = spec.taints.unwrap_or_default().first() {
        return Some(format!("tainted {}:{}", taint.key, taint.effect));
    }
    let ready = node.status.as_ref()?.conditions.as_ref()?.iter().any(|c| c.type_ == "Ready" && c.status == "True");
    (!ready).then(|| "not Ready".into())
}

/// Renews the nodes' Leases and Ready conditions.
struct Heartbeat {
    client: kube::Client,
    names: Vec<String>,
    release: String,
}

impl Heartbeat {
    async fn once(&self) -> anyhow::Result<()> {
        let nodes: Api<Node> = Api::all(self.client.clone());
        let leases: Api<Lease> = Api::namespaced(self.client.clone(), "kube-node-lease");
        let now = chrono::Utc::now();
        let stamp = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        for name in &self.names {
            let node = nodes.get(name).await.with_context(|| format!("cannot read Node {name}"))?;
            let condition = |type_: &str, status: &str, reason: &str| {
                json!({
                    "type": type_, "status": status, "reason": reason,
                    "message": "kubegc e2e: a Node object without a kubelet, kept Ready by kubegc's heartbeat",
                    "lastHeartbeatTime": stamp, "lastTransitionTime": stamp,
                })
            };
            let status = json!({
                "status": {
                    "capacity": capacity(),
                    "allocatable": capacity(),
                    "conditions": [
                        condition("Ready", "True", "KubeletReady"),
                        condition("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                        condition("DiskPressure", "False", "KubeletHasNoDiskPressure"),
                        condition("PIDPressure", "False", "KubeletHasSufficientPID"),
                    ],
                    "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}, {"type": "Hostname", "address": name}],
                    "nodeInfo": {
                        "kubeletVersion": self.release, "containerRuntimeVersion": "none://kubegc",
                        "operatingSystem": "linux", "architecture": arch(), "osImage": "kubegc",
                        "kernelVersion": "", "machineID": "", "systemUUID": "", "bootID": "", "kubeProxyVersion": "",
                    },
                },
            });
            nodes
                .patch_status(name, &PatchParams::default(), &Patch::Strategic(status))
                .await
                .with_context(|| format!("cannot update Node {name}"))?;
            let renew = json!({"spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": now.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)}});
            match leases.patch(name, &PatchParams::default(), &Patch::Merge(&renew)).await {
                Err(kube::Error::Api(e)) if e.code == 404 => {
                    let mut lease = renew;
                    lease["metadata"] =
                        json!({"name": name, "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": node.metadata.uid}]});
                    let lease: Lease = serde_json::from_value(lease)?;
                    leases.create(&PostParams::default(), &lease).await.map(drop)
                }
                renewed => renewed.map(drop),
            }
            .with_context(|| format!("cannot renew the Lease of Node {name}"))?;
        }
        Ok(())
    }
}

/// This machine's architecture as Kubernetes names it (`GOARCH`), for the node's label and
/// status alike.
fn arch() -> String {
    kubegc::apiserver::discovery::go_arch(std::env::consts::ARCH).to_string()
}

/// What each node offers: enough for every test's requests.
fn capacity() -> serde_json::Value {
    json!({"cpu": "16", "memory": "64Gi", "pods": "110", "ephemeral-storage": "100Gi"})
}
