//! The DaemonSet controller (`pkg/controller/daemon/daemon_controller.go`, `update.go` and
//! `util/daemonset_util.go`): one pod of a DaemonSet on every Node that should run it.
//!
//! - A Node should run the pod when the template names no other node, its node selector and
//!   required node affinity match the Node, and every NoSchedule and NoExecute taint is
//!   tolerated — by the template's tolerations and those every daemon pod gets (`not-ready`
//!   and `unreachable` NoExecute; `disk-pressure`, `memory-pressure`, `pid-pressure`,
//!   `unschedulable` NoSchedule; `network-unavailable` NoSchedule for host-network pods). A
//!   pod on a Node whose untolerated taints are only NoSchedule keeps running
//!   (`nodeShouldRunDaemonPod`'s second answer).
//! - Each pod is made from the template with the `controller-revision-hash` and
//!   `pod-template-generation` labels and a required node affinity for its Node alone
//!   (`ReplaceDaemonSetPodNodeNameNodeAffinity`): the scheduler binds it there.
//! - On a Node that should run one: a missing pod is created, a Failed or Succeeded one
//!   deleted (to be replaced), and of several running all but the oldest deleted; on a Node
//!   that should not keep it, every one is deleted. A pod waiting for a Node that no longer
//!   exists is deleted; one bound to a Node that is gone is left to the pod garbage collector.
//! - Its template's history is kept in ControllerRevisions ([`revisions`]); a rolling update (the default, one pod unavailable
//!   at a time unless `maxUnavailable` says otherwise) deletes pods of older revisions, an
//!   `OnDelete` one waits for someone else to.
//! - Its status counts the Nodes that should run the pod and how their pods are.
//!
//! Not modelled: the back-off before deleting a failed pod again, surge updates, and
//! trimming revisions beyond `revisionHistoryLimit`.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Node, Pod, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use crate::workloads::claims::{ChildSelector, claim_children, controller_reference};
use crate::workloads::deployments::scaled;
use crate::workloads::nodes::scheduler::{selected, tolerated};
use crate::workloads::revisions::{self, HASH_LABEL};
use crate::workloads::writes::Writes;
use crate::workloads::{pods, status};

/// The label with the DaemonSet's generation when a pod was made.
const GENERATION_LABEL: &str = "pod-template-generation";

/// The tolerations every daemon pod gets (`AddOrUpdateDaemonPodTolerations`): key and effect.
const DAEMON_TOLERATIONS: [(&str, &str); 6] = [
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
];

/// One sync of the DaemonSet controller for `ds`, over every Node, pod and ControllerRevision
/// in the cluster.
pub async fn sync(writes: &mut Writes, ds: &DaemonSet, nodes: &[Node], all_pods: &[Pod], all_revisions: &[ControllerRevision]) {
    if ds.meta().deletion_timestamp.is_some() {
        return;
    }
    let spec = &ds.spec;
    let namespace = ds.namespace().unwrap_or_default();
    let reference = controller_reference("apps/v1", "DaemonSet", ds.meta());
    let selector = ChildSelector::of(Some(&spec.selector));
    let Some(hash) = revisions::current(writes, ds, &reference, &selector, &spec.template, all_revisions).await else { return };
    let in_namespace = |meta: &ObjectMeta| meta.namespace.as_deref() == Some(&namespace);
    let candidates = all_pods.iter().filter(|p| in_namespace(p.meta())).collect();
    let controlled = claim_children(writes, ds, &reference, &selector, candidates).await;
    let mut by_node: BTreeMap<String, Vec<&Pod>> = BTreeMap::new();
    for pod in &controlled {
        by_node.entry(target_node(pod)).or_default().push(pod);
    }
    let template = serde_json::to_value(&spec.template.spec).unwrap_or_default();
    let tolerations = writes.decided(Tolerations::of(&template)).all();
    let mut deletions: Vec<&Pod> = Vec::new();
    let mut counts = Counts::default();
    let mut rolling = Rolling::default();
    for node in nodes {
        let name = node.name_any();
        let Placement { should_run, should_continue } = writes.decided(Placement::of(&template, &tolerations, node));
        let on_node: Vec<&Pod> =
            by_node.remove(&name).unwrap_or_default().into_iter().filter(|p| p.meta().deletion_timestamp.is_none()).collect();
        if should_run && on_node.is_empty() {
            create(writes, ds, &spec.template, &hash, &reference, &name).await;
        } else if should_continue {
            let (ended, mut running): (Vec<&Pod>, Vec<&Pod>) = on_node.iter().partition(|p| pods::is_terminal(p));
            deletions.extend(ended);
            running.sort_by_key(|p| p.meta().creation_timestamp.as_ref().map(|t| t.0));
            deletions.extend(running.iter().skip(1));
            if let Some(oldest) = running.first() {
                rolling.see(oldest, &hash, spec.min_ready_seconds.unwrap_or(0));
            }
        } else {
            deletions.extend(&on_node);
        }
        counts.count(should_run, &on_node, &hash, spec.min_ready_seconds.unwrap_or(0));
    }
    // Pods waiting for a Node that is gone; those bound to one are the pod GC's.
    deletions.extend(by_node.values().flatten().filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_ref()).is_none()));
    if spec.update_strategy.as_ref().and_then(|s| s.type_.as_deref()).unwrap_or("RollingUpdate") == "RollingUpdate" {
        let max = spec.update_strategy.as_ref().and_then(|s| s.rolling_update.as_ref()?.max_unavailable.clone());
        let max = max.map_or(1, |m| scaled(&m, counts.desired, true).max(1));
        deletions.extend(rolling.outdated(max, counts.desired - counts.available));
    }
    for pod in deletions {
        writes.delete(pod).await;
    }
    let status = counts.status(ds.meta().generation);
    if status::changes(&serde_json::to_value(&ds.status).unwrap_or_default(), &status) {
        writes.patch_status(ds, status).await;
    }
}

/// The node a daemon pod is for: the one it is bound to, or the one its node affinity names.
fn target_node(pod: &Pod) -> String {
    let spec = pod.spec.as_ref();
    if let Some(name) = spec.and_then(|s| s.node_name.clone()) {
        return name;
    }
    let json = serde_json::to_value(spec).unwrap_or_default();
    let terms = &json["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    let fields = terms.as_array().into_iter().flatten().flat_map(|t| t["matchFields"].as_array().into_iter().flatten());
    let named = fields.filter(|f| f["key"] == "metadata.name" && f["operator"] == "In").find_map(|f| f["values"][0].as_str());
    named.unwrap_or_default().to_string()
}

/// The tolerations a daemon pod gets (upstream `AddOrUpdateDaemonPodTolerations`): its
/// template's, and those every daemon pod gets that the template lacks; the decision a mutant
/// may change.
#[derive(Clone, Debug, PartialEq)]
pub struct Tolerations {
    /// The template's own.
    pub template: Vec<Value>,
    /// Those added.
    pub added: Vec<Value>,
}

impl Tolerations {
    /// The tolerations of a daemon pod made from `template` (a pod spec).
    fn of(template: &Value) -> Self {
        let own = template["tolerations"].as_array().cloned().unwrap_or_default();
        let mut extra: Vec<(&str, &str)> = DAEMON_TOLERATIONS.to_vec();
        if template["hostNetwork"] == true {
            extra.push(("node.kubernetes.io/network-unavailable", "NoSchedule"));
        }
        let mut added: Vec<Value> = Vec::new();
        for (key, effect) in extra {
            if !own.iter().chain(&added).any(|t| t["key"] == key && t["effect"] == effect) {
                added.push(json!({"key": key, "operator": "Exists", "effect": effect}));
            }
        }
        Self { template: own, added }
    }

    /// The template's and the added ones, in that order.
    fn all(&self) -> Vec<Value> {
        self.template.iter().chain(&self.added).cloned().collect()
    }
}

/// Whether `node` should run the daemon pod, and whether a pod already there may keep running
/// (`nodeShouldRunDaemonPod`): the decision a mutant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The node should run the daemon pod.
    pub should_run: bool,
    /// A daemon pod already there may keep running.
    pub should_continue: bool,
}

impl Placement {
    /// Where the daemon pod of `template` (a pod spec) with `tolerations` belongs on `node`.
    fn of(template: &Value, tolerations: &[Value], node: &Node) -> Self {
        let json = serde_json::to_value(node).unwrap_or_default();
        let named = template["nodeName"].as_str().is_none_or(|n| n.is_empty() || Some(n) == json["metadata"]["name"].as_str());
        if !named || !selected(template, &json["metadata"]) {
            return Self { should_run: false, should_continue: false };
        }
        let untolerated = |effect: &str| {
            json["spec"]["taints"].as_array().into_iter().flatten().filter(|t| t["effect"] == effect).any(|t| {
                let (key, value) = (t["key"].as_str().unwrap_or_default(), t["value"].as_str().unwrap_or_default());
                !tolerated(tolerations, key, value, effect)
            })
        };
        let no_execute = untolerated("NoExecute");
        if no_execute || untolerated("NoSchedule") {
            return Self { should_run: false, should_continue: !no_execute };
        }
        Self { should_run: true, should_continue: true }
    }
}

/// Creates the daemon pod for `node` from `template` at revision `hash`.
async fn create(writes: &mut Writes, ds: &DaemonSet, template: &PodTemplateSpec, hash: &str, reference: &OwnerReference, node: &str) {
    let namespace = ds.namespace().unwrap_or_default();
    let mut pod = pods::from_template(template, reference.clone(), &namespace, &format!("{}-", ds.name_any()));
    let labels = pod.metadata.labels.get_or_insert_with(Default::default);
    labels.insert(HASH_LABEL.into(), hash.into());
    labels.insert(GENERATION_LABEL.into(), ds.meta().generation.unwrap_or(0).to_string());
    let mut spec = serde_json::to_value(&pod.spec).unwrap_or_default();
    let tolerations = writes.decided(Tolerations::of(&spec));
    if !tolerations.added.is_empty() {
        spec["tolerations"] = json!(tolerations.all());
    }
    // Only the node's name is required of it, whatever else the template's affinity said of nodes
    // (`ReplaceDaemonSetPodNodeNameNodeAffinity`).
    let term = json!({"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]});
    spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json!({"nodeSelectorTerms": [term]});
    pod.spec = serde_json::from_value(spec).ok();
    writes.create(&namespace, &pod).await;
}

/// What a rolling update sees: the oldest running pod of each Node that keeps one.
#[derive(Default)]
struct Rolling<'a> {
    /// Pods of older revisions, available or not.
    outdated: Vec<(&'a Pod, bool)>,
}

impl<'a> Rolling<'a> {
    fn see(&mut self, pod: &'a Pod, hash: &str, min_ready_seconds: i32) {
        if pod.labels().get(HASH_LABEL).map(String::as_str) != Some(hash) {
            self.outdated.push((pod, pods::is_available(pod, min_ready_seconds)));
        }
    }

    /// The outdated pods to delete now: every unavailable one, and available ones while fewer
    /// than `max` pods are unavailable (`unavailable` already are).
    fn outdated(self, max: i32, unavailable: i32) -> Vec<&'a Pod> {
        let mut budget = max - unavailable;
        let mut chosen: Vec<&Pod> = self.outdated.iter().filter(|(_, available)| !available).map(|(p, _)| *p).collect();
        for (pod, _) in self.outdated.iter().filter(|(_, available)| *available) {
            if budget <= 0 {
                break;
            }
            budget -= 1;
            chosen.push(pod);
        }
        chosen
    }
}

/// The counts of a DaemonSet's status (`updateDaemonSetStatus`).
#[derive(Default)]
struct Counts {
    desired: i32,
    current: i32,
    misscheduled: i32,
    ready: i32,
    updated: i32,
    available: i32,
}

impl Counts {
    /// Counts a Node that should run the pod or not, with `on_node` its daemon pods.
    fn count(&mut self, should_run: bool, on_node: &[&Pod], hash: &str, min_ready_seconds: i32) {
        if !should_run {
            self.misscheduled += i32::from(!on_node.is_empty());
            return;
        }
        self.desired += 1;
        let Some(pod) = on_node.iter().min_by_key(|p| p.meta().creation_timestamp.as_ref().map(|t| t.0)) else { return };
        self.current += 1;
        if pods::is_ready(pod) {
            self.ready += 1;
            self.available += i32::from(pods::is_available(pod, min_ready_seconds));
        }
        self.updated += i32::from(pod.labels().get(HASH_LABEL).map(String::as_str) == Some(hash));
    }

    /// The status patch at `generation`.
    fn status(&self, generation: Option<i64>) -> Value {
        let fields = [
            ("currentNumberScheduled", i64::from(self.current)),
            ("numberMisscheduled", i64::from(self.misscheduled)),
            ("desiredNumberScheduled", i64::from(self.desired)),
            ("numberReady", i64::from(self.ready)),
            ("observedGeneration", generation.unwrap_or(0)),
            ("updatedNumberScheduled", i64::from(self.updated)),
            ("numberAvailable", i64::from(self.available)),
            ("numberUnavailable", i64::from(self.desired - self.available)),
        ];
        status::counts(&fields, &["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"])
    }
}
