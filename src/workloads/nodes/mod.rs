//! Nodes that run pods, on a cluster asked to have them ([`crate::cluster::Builder::nodes`],
//! `kubegc serve --nodes`): node agents standing in for kubelets, and a small scheduler. Each
//! agent registers its Node and keeps its Lease and status fresh; the scheduler binds pods to
//! nodes; each agent takes the pods bound to its node through their lives as a kubelet reports
//! them — accepted, containers running and ready, exiting by the rule of [`programs`],
//! restarted as their policy says, stopped when deleted (and then removed), failed past their
//! active deadline or when their node's kubelet model evicts them. With them, `kubectl rollout
//! status` completes, a Job's pods finish on their own, and the cleanups that follow a pod's
//! life see real lives.
//!
//! - [`programs`]: what a container's command does when it runs.
//! - [`kubelet`]: the kubelet model on each node: images, dead containers, disk pressure and
//!   evictions.
//! - [`lifecycle`]: a pod's containers over time.
//! - [`pod_status`]: the pod status a kubelet writes.
//! - [`scheduler`]: which node a pod goes to.
//! - [`registration`]: a node agent's Node and Lease.
//! - [`events`]: the Events the scheduler and the agents record.

pub mod events;
pub mod kubelet;
pub mod lifecycle;
pub mod pod_status;
pub mod programs;
pub mod registration;
pub mod scheduler;

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Node, Pod, PodStatus};
use kube::api::Api;
use serde_json::{Value, json};

use crate::clock::{earliest, parse_time};
use crate::cloud::{Cloud, Instance};
use crate::kubelet::events::Event as KubeletEvent;
use crate::workloads::nodes::kubelet::{Eviction, NodeDisks, NodeKubelet, Observed, Report};
use crate::workloads::nodes::lifecycle::Stop;
use crate::workloads::nodes::pod_status::{EVICTED_REASON, EndedBy, Place, Seen};
use crate::workloads::status::changes;
use crate::workloads::writes::Writes;

/// The field manager of the node agents' writes.
const KUBELET: &str = "kubelet";

/// A pod's grace period when its spec gives none.
const DEFAULT_GRACE: i64 = 30;

/// The node agents of a cluster, and what they remember between passes.
#[derive(Debug, Default)]
pub struct Agents {
    /// How many nodes run.
    count: usize,
    /// The uid of each agent's Node once registered, by node index: an agent registers once.
    registered: BTreeMap<usize, String>,
    /// When each agent last renewed its Lease.
    renewed: BTreeMap<usize, DateTime<Utc>>,
    /// The uids of the pods whose stop the agents have recorded.
    stopping: BTreeSet<String>,
    /// What the nodes' disks hold.
    disks: NodeDisks,
    /// The machines the nodes run on: an agent whose machine is shut down or gone does nothing.
    cloud: Cloud,
    /// The kubelet model of each agent, by node index.
    kubelets: BTreeMap<usize, NodeKubelet>,
    /// The evictions the kubelets made, by pod uid, until their pods are gone.
    evicted: BTreeMap<String, Eviction>,
    /// When each Event the kubelets recorded was last sent, by node, object, reason and
    /// message: one repeated within [`EVENT_REPEAT`] is not sent again.
    sent: BTreeMap<String, DateTime<Utc>>,
}

/// How long an Event the kubelet records again goes unsent (client-go's correlator counts such
/// repeats on the first Event for ten minutes).
const EVENT_REPEAT: Duration = Duration::minutes(10);

/// When the node agents have next to act by the clock: for a pod (a container starts or ends,
/// a grace period or deadline ends), and at all (a Lease or status is due too).
#[derive(Debug, Default, Clone, Copy)]
pub struct Due {
    /// The next moment a pod changes by itself.
    pub pods: Option<DateTime<Utc>>,
    /// The next moment any agent acts.
    pub any: Option<DateTime<Utc>>,
}

impl Due {
    fn pod_at(&mut self, at: Option<DateTime<Utc>>) {
        self.pods = earliest(self.pods, at);
        self.any = earliest(self.any, at);
    }

    fn heartbeat_at(&mut self, at: DateTime<Utc>) {
        self.any = earliest(self.any, Some(at));
    }
}

impl Agents {
    /// `count` node agents (none: the cluster has no nodes that run pods).
    pub fn new(count: usize) -> Self {
        Self { count, ..Default::default() }
    }

    /// The agents with `disks` on their nodes.
    pub fn with_disks(self, disks: NodeDisks) -> Self {
        Self { disks, ..self }
    }

    /// The agents on the machines of `cloud`.
    pub fn with_cloud(self, cloud: Cloud) -> Self {
        Self { cloud, ..self }
    }

    /// Whether any node runs.
    pub fn any(&self) -> bool {
        self.count > 0
    }

    /// One pass of the agents and the scheduler over `nodes` and `pods` at `now`.
    pub async fn sync(&mut self, writes: &mut Writes, nodes: &[Node], pods: &[Pod], now: DateTime<Utc>) -> Due {
        let mut due = Due::default();
        if !self.any() {
            return due;
        }
        writes.acting_as(KUBELET);
        let running = self.register(writes, nodes, now, &mut due).await;
        writes.acting_as(scheduler::NAME);
        schedule(writes, nodes, pods, now).await;
        writes.acting_as(KUBELET);
        let exists = |uid: &String| pods.iter().any(|p| p.metadata.uid.as_deref() == Some(uid.as_str()));
        self.stopping.retain(exists);
        self.evicted.retain(|uid, _| exists(uid));
        self.sent.retain(|_, at| *at + EVENT_REPEAT > now);
        for (index, node) in running {
            let typed: Vec<&Pod> =
                pods.iter().filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node.as_str())).collect();
            let on_node: Vec<Value> = typed.iter().map(|p| serde_json::to_value(p).unwrap_or_default()).collect();
            let mut taken = addresses_taken(&on_node);
            let mut worked_out = Vec::new();
            for (pod, json) in typed.iter().zip(&on_node) {
                let eviction = self.evicted.get(json["metadata"]["uid"].as_str().unwrap_or_default());
                let ran = run_pod(writes, index, (pod, json), eviction, &mut taken, &mut self.stopping, now).await;
                due.pod_at(ran.as_ref().and_then(|c| c.next));
                worked_out.push(ran);
            }
            if let Some(kubelet) = self.kubelets.get_mut(&index) {
                let observed: Vec<Observed> =
                    on_node.iter().zip(&worked_out).map(|(pod, containers)| Observed { pod, containers: containers.as_ref() }).collect();
                kubelet.observe(&observed);
                let events = kubelet.take_events();
                self.send_events(writes.client(), &node, &on_node, events, now).await;
            }
        }
        writes.acting_as(crate::workloads::writes::FIELD_MANAGER);
        due
    }

    /// Registers each agent's Node once, keeps its status and Lease fresh, and returns the
    /// agents whose Node is there, by index and name.
    async fn register(&mut self, writes: &mut Writes, nodes: &[Node], now: DateTime<Utc>, due: &mut Due) -> Vec<(usize, String)> {
        let mut running = Vec::new();
        for index in 1..=self.count {
            let name = registration::name(index);
            // A machine that is off runs no kubelet: no status, no Lease, its pods left as they are.
            if self.cloud.instance(&name) != Instance::Running {
                continue;
            }
            let node = nodes.iter().find(|n| n.metadata.name.as_deref() == Some(name.as_str()));
            let uid = match (self.registered.get(&index), node.and_then(|n| n.metadata.uid.clone())) {
                (Some(uid), _) => uid.clone(),
                (None, Some(uid)) => {
                    self.registered.insert(index, uid.clone());
                    uid
                }
                (None, None) => {
                    if let Ok(node) = serde_json::from_value::<Node>(registration::node(index)) {
                        writes.create_cluster(&node).await;
                    }
                    continue;
                }
            };
            // A kubelet whose Node was deleted does not register again.
            let Some(node) = node.filter(|n| n.metadata.uid.as_deref() == Some(uid.as_str())) else { continue };
            let reports = self.run_kubelet(index, now, due);
            let stored = serde_json::to_value(&node.status).unwrap_or_default();
            let heartbeat = ready_heartbeat(&stored);
            if heartbeat.is_none_or(|at| at + registration::STATUS_REPORT <= now) || registration::outdated(&stored, &reports) {
                writes.patch_cluster_status(node, registration::status(index, &stored["conditions"], now, &reports)).await;
            } else if let Some(at) = heartbeat {
                due.heartbeat_at(at + registration::STATUS_REPORT);
            }
            let renewed = self.renewed.get(&index).copied();
            if renewed.is_none_or(|at| at + registration::LEASE_RENEWAL <= now) && renew_lease(writes, &name, &uid, now).await {
                self.renewed.insert(index, now);
            }
            due.heartbeat_at(self.renewed.get(&index).map_or(now, |at| *at + registration::LEASE_RENEWAL));
            running.push((index, name));
        }
        running
    }
}

impl Agents {
    /// Runs the kubelet model of agent `index` up to `now` (starting it the first time),
    /// keeping the evictions it makes; what the Node's status is to say of it.
    fn run_kubelet(&mut self, index: usize, now: DateTime<Utc>, due: &mut Due) -> Report {
        if !self.kubelets.contains_key(&index) {
            match NodeKubelet::start(&self.disks, now) {
                Ok(kubelet) => {
                    self.kubelets.insert(index, kubelet);
                }
                Err(e) => tracing::warn!("node {}: the kubelet model does not start: {e}", registration::name(index)),
            }
        }
        let Some(kubelet) = self.kubelets.get_mut(&index) else {
            return Report { capacity: self.disks.capacity, ..Report::default() };
        };
        match kubelet.advance(now) {
            Ok(evictions) => self.evicted.extend(evictions.into_iter().map(|e| (e.uid.clone(), e))),
            Err(e) => tracing::warn!("node {}: the kubelet model: {e}", registration::name(index)),
        }
        due.heartbeat_at(kubelet.due());
        kubelet.report()
    }

    /// Sends the Events the kubelet of `node` recorded — on the Node, or on one of the pods
    /// `on_node` — but none it sent within [`EVENT_REPEAT`].
    async fn send_events(&mut self, client: &kube::Client, node: &str, on_node: &[Value], recorded: Vec<KubeletEvent>, now: DateTime<Utc>) {
        for event in recorded {
            let key = format!("{node}/{}/{}/{}", event.object, event.reason, event.message);
            if self.sent.contains_key(&key) {
                continue;
            }
            let pod = match event.object.strip_prefix("Pod/") {
                // An Event about a pod that is gone has nothing to be about.
                Some(uid) => match on_node.iter().find(|p| p["metadata"]["uid"] == uid) {
                    Some(pod) => Some(pod),
                    None => continue,
                },
                None => None,
            };
            self.sent.insert(key, now);
            events::kubelet(client, node, pod, &event, now).await;
        }
    }
}

/// When the Node's `Ready` condition was last reported.
fn ready_heartbeat(status: &Value) -> Option<DateTime<Utc>> {
    let conditions = status["conditions"].as_array()?;
    let ready = conditions.iter().find(|c| c["type"] == "Ready" && c["reason"] == "KubeletReady")?;
    ready["lastHeartbeatTime"].as_str().and_then(parse_time)
}

/// Renews (or makes) the Node `name`'s Lease; whether that landed.
async fn renew_lease(writes: &mut Writes, name: &str, uid: &str, now: DateTime<Utc>) -> bool {
    let Ok(lease) = serde_json::from_value::<Lease>(registration::lease(name, uid, now)) else { return false };
    let api: Api<Lease> = Api::namespaced(writes.client().clone(), registration::LEASE_NAMESPACE);
    match api.get_opt(name).await {
        Ok(Some(stored)) => {
            let landed = writes.landed;
            writes.patch(&stored, json!({"spec": {"holderIdentity": name, "renewTime": registration::micro_time(now)}})).await;
            writes.landed > landed
        }
        Ok(None) => writes.create(registration::LEASE_NAMESPACE, &lease).await.is_some(),
        Err(e) => {
            writes.retry.push(format!("reading the Lease of node {name}: {e}"));
            false
        }
    }
}

/// Binds each pod that waits for the scheduler to a node that fits it, or says in its
/// `PodScheduled` condition why none does.
async fn schedule(writes: &mut Writes, nodes: &[Node], pods: &[Pod], now: DateTime<Utc>) {
    let nodes: Vec<Value> =
        nodes.iter().filter(|n| n.metadata.deletion_timestamp.is_none()).filter_map(|n| serde_json::to_value(n).ok()).collect();
    let mut placed: Vec<Value> =
        pods.iter().filter_map(|p| serde_json::to_value(p).ok()).filter(|p| !p["spec"]["nodeName"].is_null()).collect();
    for pod in pods {
        let Ok(json) = serde_json::to_value(pod) else { continue };
        if !scheduler::wants(&json) {
            continue;
        }
        match scheduler::choose(&json, &nodes, &placed) {
            Ok(node) => {
                let namespace = json["metadata"]["namespace"].clone();
                let name = json["metadata"]["name"].clone();
                let binding = json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": namespace},
                    "target": {"apiVersion": "v1", "kind": "Node", "name": node}});
                if writes.post_subresource(pod, "binding", &binding).await {
                    events::scheduled(writes.client(), &json, &node, now).await;
                    let mut bound = json;
                    bound["spec"]["nodeName"] = json!(node);
                    placed.push(bound);
                }
            }
            Err(message) => {
                let condition = json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message});
                let old = json["status"]["conditions"].as_array().and_then(|c| c.iter().find(|c| c["type"] == "PodScheduled"));
                let same = old.is_some_and(|o| o["status"] == "False" && o["reason"] == "Unschedulable" && o["message"] == message);
                if !same {
                    let mut condition = condition;
                    condition["lastProbeTime"] = Value::Null;
                    condition["lastTransitionTime"] = json!(crate::clock::format_time(now));
                    let mut conditions: Vec<Value> = json["status"]["conditions"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|c| c["type"] != "PodScheduled")
                        .cloned()
                        .collect();
                    conditions.push(condition);
                    writes.patch_status(pod, json!({"conditions": conditions})).await;
                }
            }
        }
    }
}

/// One pass of the agent of node `index` over `pod` (typed, and as JSON): accepts it (with an
/// address not `taken` on the node, which it then takes), writes its status as it changes,
/// records its stop once (remembering its uid among those `stopping`), removes it once stopped
/// after a deletion; a pod its kubelet evicted (`eviction`) is stopped with the eviction's grace
/// period and ends Failed. Returns its containers now, when worked out (not for a pod not yet
/// started or already finished).
async fn run_pod(
    writes: &mut Writes,
    index: usize,
    (pod, json): (&Pod, &Value),
    eviction: Option<&Eviction>,
    taken: &mut Vec<String>,
    stopping: &mut BTreeSet<String>,
    now: DateTime<Utc>,
) -> Option<lifecycle::Pod> {
    let status = &json["status"];
    let deleting = json["metadata"]["deletionTimestamp"].as_str().and_then(parse_time);
    let Some(started) = status["startTime"].as_str().and_then(parse_time) else {
        if deleting.is_some() {
            writes.delete_now(pod).await;
        } else {
            let ip = free_address(index, taken);
            taken.push(ip.clone());
            let place = Place { host_ip: &registration::address(index), pod_ip: &ip };
            writes.patch_status(pod, pod_status::accepted(json, &place, now)).await;
        }
        return None;
    };
    let finished = matches!(status["phase"].as_str(), Some("Succeeded" | "Failed"));
    if finished && deleting.is_none() {
        return None;
    }
    let grace = json["metadata"]["deletionGracePeriodSeconds"].as_i64().unwrap_or(0);
    let deadline = json["spec"]["activeDeadlineSeconds"].as_i64().map(|s| started + Duration::seconds(s));
    let stop = match (deleting, eviction, deadline) {
        (Some(kill), _, _) => Some(Stop { term: kill - Duration::seconds(grace), kill }),
        (None, Some(e), _) => Some(Stop { term: e.at, kill: e.at + Duration::seconds(e.grace_seconds) }),
        (None, None, Some(d)) => {
            let grace = json["spec"]["terminationGracePeriodSeconds"].as_i64().unwrap_or(DEFAULT_GRACE);
            Some(Stop { term: d, kill: d + Duration::seconds(grace) })
        }
        (None, None, None) => None,
    };
    let containers = lifecycle::at(&json["spec"], started, stop, now);
    let stopped = stop.is_some_and(|s| now >= s.term);
    if stopped && stopping.insert(json["metadata"]["uid"].as_str().unwrap_or_default().to_string()) {
        events::killing(writes.client(), json, now).await;
    }
    let terminal = stopped && containers.all_stopped();
    let ended_by = match eviction {
        _ if deleting.is_some() || !stopped => None,
        Some(e) => Some(EndedBy { reason: EVICTED_REASON, message: &e.message, disruption: true }),
        None => Some(pod_status::DEADLINE),
    };
    let ip = status["podIP"].as_str().unwrap_or_default().to_string();
    let seen =
        Seen { place: Place { host_ip: &registration::address(index), pod_ip: &ip }, started, containers: &containers, terminal, ended_by };
    let mut next = pod_status::running(json, &seen, now);
    if ended_by.is_some() && terminal {
        next["phase"] = json!("Failed");
    }
    if changes(status, &as_stored(next.clone())) {
        if !writes.patch_status(pod, next.clone()).await {
            return Some(containers);
        }
        events::containers_changed(writes.client(), json, status, &next, now).await;
    }
    if terminal && deleting.is_some() {
        writes.delete_now(pod).await;
    }
    Some(containers)
}

/// `status` as it reads back once stored (through the typed PodStatus, as the pod it is
/// compared with was read), so that a field the two spell differently is not written again
/// and again.
fn as_stored(status: Value) -> Value {
    serde_json::from_value::<PodStatus>(status.clone()).ok().and_then(|s| serde_json::to_value(s).ok()).unwrap_or(status)
}

/// The addresses the unfinished pods among `on_node` hold.
fn addresses_taken(on_node: &[Value]) -> Vec<String> {
    on_node
        .iter()
        .map(|p| &p["status"])
        .filter(|s| !matches!(s["phase"].as_str(), Some("Succeeded" | "Failed")))
        .filter_map(|s| s["podIP"].as_str().map(String::from))
        .collect()
}

/// The lowest pod address of node `index` not `taken`.
fn free_address(index: usize, taken: &[String]) -> String {
    (0..registration::POD_ADDRESSES)
        .map(|n| registration::pod_address(index, n))
        .find(|a| !taken.contains(a))
        .unwrap_or_else(|| registration::pod_address(index, 0))
}
