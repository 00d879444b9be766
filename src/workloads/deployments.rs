//! The deployment controller: it claims the ReplicaSets its selector matches, finds the one
//! whose template is its own (ignoring the `pod-template-hash` label) or creates it, named
//! after the deployment and a hash of the template, and moves replicas from the old ones to it
//! as its strategy says: `RollingUpdate` (surge and unavailability bounds, upstream's
//! `NewRSNewReplicas` and `reconcileOldReplicaSets`) or `Recreate`. A deployment being deleted
//! or paused only has its status written.
//!
//! Left out: proportional scaling of several active ReplicaSets, progress conditions, rollback
//! and the clean-up of old ReplicaSets beyond `revisionHistoryLimit`.

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet, ReplicaSetSpec};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use crate::workloads::claims::{ChildSelector, claim_children, controller_reference};
use crate::workloads::status;
use crate::workloads::writes::Writes;

/// The label that tells a deployment's ReplicaSets apart.
pub const HASH_LABEL: &str = "pod-template-hash";
/// The annotation with a ReplicaSet's (and its deployment's) revision.
const REVISION: &str = "deployment.kubernetes.io/revision";
/// The annotation with the replicas the deployment wanted when it last scaled the ReplicaSet.
const DESIRED: &str = "deployment.kubernetes.io/desired-replicas";
/// The annotation with the most pods the deployment allowed when it last scaled it.
const MAX: &str = "deployment.kubernetes.io/max-replicas";

/// One sync of the deployment controller for `d`, over every ReplicaSet in the cluster.
pub async fn sync(writes: &mut Writes, d: &Deployment, all: &[ReplicaSet]) {
    let namespace = d.namespace().unwrap_or_default();
    let spec = &d.spec;
    let reference = controller_reference("apps/v1", "Deployment", d.meta());
    let selector = ChildSelector::of(Some(&spec.selector));
    let candidates: Vec<&ReplicaSet> = all.iter().filter(|rs| rs.namespace().as_deref() == Some(&namespace)).collect();
    let mut owned = claim_children(writes, d, &reference, &selector, candidates).await;
    owned.sort_by_key(|rs| rs.metadata.creation_timestamp.as_ref().map(|t| t.0));
    let position = owned.iter().position(|rs| same_template(template_of(rs), &spec.template));
    let new = position.map(|i| owned[i]);
    let old: Vec<&ReplicaSet> = owned.iter().enumerate().filter(|(i, _)| Some(*i) != position).map(|(_, rs)| *rs).collect();
    if d.meta().deletion_timestamp.is_none() && spec.paused != Some(true) {
        let plan = Plan { d, replicas: spec.replicas.unwrap_or(1), new, old: &old };
        if spec.strategy.as_ref().and_then(|s| s.type_.as_deref()) == Some("Recreate") {
            plan.recreate(writes).await;
        } else {
            plan.roll(writes).await;
        }
    }
    let status = status(d, new, &owned);
    if status::changes(&serde_json::to_value(&d.status).unwrap_or_default(), &status) {
        writes.patch_status(d, status).await;
    }
}

/// One deployment's ReplicaSets and what it wants.
struct Plan<'a> {
    d: &'a Deployment,
    replicas: i32,
    new: Option<&'a ReplicaSet>,
    old: &'a [&'a ReplicaSet],
}

impl Plan<'_> {
    /// `Recreate`: the old ReplicaSets go to zero and their pods away before the new one scales up.
    async fn recreate(&self, writes: &mut Writes) {
        let scaling_down: Vec<_> = self.old.iter().filter(|rs| spec_replicas(rs) > 0).collect();
        for rs in &scaling_down {
            scale(writes, rs, 0, self.replicas, self.replicas).await;
        }
        let old_pods_left = self.old.iter().any(|rs| rs.status.as_ref().is_some_and(|s| s.replicas > 0));
        if scaling_down.is_empty() && !old_pods_left {
            self.scale_new(writes, self.replicas, self.replicas).await;
        }
    }

    /// `RollingUpdate`: the new ReplicaSet grows within the surge bound; once it cannot, the old
    /// ones shrink within the unavailability bound.
    async fn roll(&self, writes: &mut Writes) {
        let (surge, unavailable) = self.bounds();
        let all_pods: i32 = self.old.iter().map(|rs| spec_replicas(rs)).sum::<i32>() + self.new.map_or(0, spec_replicas);
        let new_now = self.new.map_or(0, spec_replicas);
        let max_total = self.replicas + surge;
        let new_wanted = if all_pods >= max_total { new_now } else { new_now + (max_total - all_pods).min(self.replicas - new_now) };
        if self.new.is_none() || new_wanted > new_now {
            self.scale_new(writes, new_wanted, max_total).await;
            return;
        }
        self.shrink_old(writes, unavailable, new_now).await;
    }

    /// upstream's `reconcileOldReplicaSets`: unhealthy old replicas go first, then healthy ones
    /// while more than the minimum stays available.
    async fn shrink_old(&self, writes: &mut Writes, unavailable: i32, new_now: i32) {
        let old_pods: i32 = self.old.iter().map(|rs| spec_replicas(rs)).sum();
        if old_pods == 0 {
            return;
        }
        let new_unavailable = new_now - self.new.map_or(0, available);
        let min_available = self.replicas - unavailable;
        let mut budget = old_pods + new_now - min_available - new_unavailable;
        let mut sizes: Vec<i32> = self.old.iter().map(|rs| spec_replicas(rs)).collect();
        for (size, rs) in sizes.iter_mut().zip(self.old) {
            let unhealthy = *size - available(rs);
            let cut = unhealthy.min(budget).max(0);
            *size -= cut;
            budget -= cut;
        }
        let mut spare = self.old.iter().map(|rs| available(rs)).sum::<i32>() + self.new.map_or(0, available) - min_available;
        for size in sizes.iter_mut() {
            let cut = (*size).min(spare).max(0);
            *size -= cut;
            spare -= cut;
        }
        for (size, rs) in sizes.iter().zip(self.old) {
            if *size != spec_replicas(rs) {
                scale(writes, rs, *size, self.replicas, self.replicas + self.bounds().0).await;
            }
        }
    }

    /// Scales the new ReplicaSet to `replicas`, creating it if there is none.
    async fn scale_new(&self, writes: &mut Writes, replicas: i32, max: i32) {
        match self.new {
            Some(rs) if spec_replicas(rs) == replicas => {}
            Some(rs) => scale(writes, rs, replicas, self.replicas, max).await,
            None => {
                let revision = self.old.iter().filter_map(|rs| rs.annotations().get(REVISION)?.parse::<i64>().ok()).max().unwrap_or(0) + 1;
                let rs = new_replica_set(self.d, replicas, max, self.replicas, revision);
                writes.create(&self.d.namespace().unwrap_or_default(), &rs).await;
                if self.d.annotations().get(REVISION) != Some(&revision.to_string()) {
                    writes.patch(self.d, json!({"metadata": {"annotations": {REVISION: revision.to_string()}}})).await;
                }
            }
        }
    }

    /// The surge and unavailability bounds in pods; both zero makes one pod of unavailability.
    fn bounds(&self) -> (i32, i32) {
        let rolling = self.d.spec.strategy.as_ref().and_then(|s| s.rolling_update.as_ref());
        let quarter = IntOrString::String("25%".into());
        let surge = scaled(rolling.and_then(|r| r.max_surge.as_ref()).unwrap_or(&quarter), self.replicas, true);
        let unavailable = scaled(rolling.and_then(|r| r.max_unavailable.as_ref()).unwrap_or(&quarter), self.replicas, false);
        if surge == 0 && unavailable == 0 { (0, 1) } else { (surge, unavailable) }
    }
}

/// A count or a percentage of `total`, rounded up or down.
fn scaled(value: &IntOrString, total: i32, round_up: bool) -> i32 {
    match value {
        IntOrString::Int(n) => *n,
        IntOrString::String(s) => {
            let percent: f64 = s.trim_end_matches('%').parse().unwrap_or(0.0);
            let exact = percent * f64::from(total) / 100.0;
            (if round_up { exact.ceil() } else { exact.floor() }) as i32
        }
    }
}

fn spec_replicas(rs: &ReplicaSet) -> i32 {
    rs.spec.replicas.unwrap_or(1)
}

fn available(rs: &ReplicaSet) -> i32 {
    rs.status.as_ref().and_then(|s| s.available_replicas).unwrap_or(0)
}

fn template_of(rs: &ReplicaSet) -> Option<&PodTemplateSpec> {
    rs.spec.template.as_ref()
}

/// Whether a ReplicaSet's template is the deployment's, ignoring the hash label.
fn same_template(rs: Option<&PodTemplateSpec>, deployment: &PodTemplateSpec) -> bool {
    let without_hash = |t: &PodTemplateSpec| {
        let mut v = serde_json::to_value(t).unwrap_or_default();
        if let Some(labels) = v["metadata"]["labels"].as_object_mut() {
            labels.remove(HASH_LABEL);
            if labels.is_empty() {
                v["metadata"].as_object_mut().map(|m| m.remove("labels"));
            }
        }
        v
    };
    rs.is_some_and(|t| without_hash(t) == without_hash(deployment))
}

/// Scales `rs` to `replicas`, noting what the deployment wanted and allowed.
async fn scale(writes: &mut Writes, rs: &ReplicaSet, replicas: i32, desired: i32, max: i32) {
    let annotations = json!({DESIRED: desired.to_string(), MAX: max.to_string()});
    writes.patch(rs, json!({"spec": {"replicas": replicas}, "metadata": {"annotations": annotations}})).await;
}

/// The template hash: FNV-1a of the template, its decimal digits spelt in the alphabet the API
/// server names objects with (upstream hashes its own printing of the template, so the value
/// differs; the form is the same).
pub fn template_hash(template: &PodTemplateSpec) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let text = serde_json::to_string(template).unwrap_or_default();
    let hash = text.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    hash.to_string().bytes().map(|b| ALPHABET[usize::from(b) % ALPHABET.len()] as char).collect()
}

/// The deployment's new ReplicaSet: its template and selector with the hash label added.
fn new_replica_set(d: &Deployment, replicas: i32, max: i32, desired: i32, revision: i64) -> ReplicaSet {
    let spec = &d.spec;
    let hash = template_hash(&spec.template);
    let mut template = spec.template.clone();
    let template_meta = template.metadata.get_or_insert_with(Default::default);
    template_meta.labels.get_or_insert_with(Default::default).insert(HASH_LABEL.into(), hash.clone());
    let mut selector = spec.selector.clone();
    selector.match_labels.get_or_insert_with(Default::default).insert(HASH_LABEL.into(), hash.clone());
    let annotations = [(REVISION, revision.to_string()), (DESIRED, desired.to_string()), (MAX, max.to_string())];
    ReplicaSet {
        metadata: ObjectMeta {
            name: Some(format!("{}-{hash}", d.name_any())),
            namespace: d.namespace(),
            labels: template_meta.labels.clone(),
            annotations: Some(annotations.into_iter().map(|(k, v)| (k.to_string(), v)).collect()),
            owner_references: Some(vec![controller_reference("apps/v1", "Deployment", d.meta())]),
            ..Default::default()
        },
        spec: ReplicaSetSpec { replicas: Some(replicas), min_ready_seconds: spec.min_ready_seconds, selector, template: Some(template) },
        status: None,
    }
}

/// The deployment's status patch from its ReplicaSets.
fn status(d: &Deployment, new: Option<&ReplicaSet>, owned: &[&ReplicaSet]) -> Value {
    let count = |f: fn(&k8s_openapi::api::apps::v1::ReplicaSetStatus) -> i32| -> i64 {
        owned.iter().filter_map(|rs| rs.status.as_ref()).map(|s| i64::from(f(s))).sum()
    };
    let available = count(|s| s.available_replicas.unwrap_or(0));
    let wanted = i64::from(d.spec.replicas.unwrap_or(1));
    let fields = [
        ("replicas", count(|s| s.replicas)),
        ("updatedReplicas", new.and_then(|rs| rs.status.as_ref()).map_or(0, |s| i64::from(s.replicas))),
        ("readyReplicas", count(|s| s.ready_replicas.unwrap_or(0))),
        ("availableReplicas", available),
        ("unavailableReplicas", (wanted - available).max(0)),
        ("observedGeneration", d.meta().generation.unwrap_or(0)),
    ];
    status::counts(&fields, &[])
}
