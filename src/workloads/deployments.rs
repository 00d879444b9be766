//! The deployment controller: it claims the ReplicaSets its selector matches, finds the one
//! whose template is its own (ignoring the `pod-template-hash` label) or creates it, named
//! after the deployment and a hash of the template, and moves replicas from the old ones to it
//! as its strategy says: `RollingUpdate` (surge and unavailability bounds, upstream's
//! `NewRSNewReplicas` and `reconcileOldReplicaSets`) or `Recreate`. A deployment being deleted
//! or paused only has its status written. A paused deployment, or one whose rollout is complete,
//! deletes its oldest old ReplicaSets beyond `revisionHistoryLimit` that have scaled to nothing
//! (`cleanupDeployment`).
//!
//! Left out: proportional scaling of several active ReplicaSets, progress conditions and
//! rollback.

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
    if d.meta().deletion_timestamp.is_none() && (spec.paused == Some(true) || complete(d)) {
        clean_up(writes, d, &old).await;
    }
    let status = status(d, new, &owned);
    if status::changes(&serde_json::to_value(&d.status).unwrap_or_default(), &status) {
        writes.patch_status(d, status).await;
    }
}

/// Whether the rollout is complete as the stored status says (`DeploymentComplete`): every
/// replica updated and available, none more, and the status up to the spec's generation.
fn complete(d: &Deployment) -> bool {
    let Some(s) = d.status.as_ref() else { return false };
    let want = d.spec.replicas.unwrap_or(1);
    [s.updated_replicas, s.replicas, s.available_replicas].iter().all(|n| n.unwrap_or(0) == want)
        && s.observed_generation.unwrap_or(0) >= d.meta().generation.unwrap_or(0)
}

/// How many old ReplicaSets a Deployment keeps (its `revisionHistoryLimit`; none: all), as
/// the controller acts on it: the decision a mutant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OldReplicaSetsKept(pub Option<usize>);

/// Deletes the oldest of the `old` ReplicaSets beyond the revision history limit, by revision
/// (`cleanupDeployment`): every old one not being deleted counts, but one that still has
/// replicas, or whose status has not caught up with its spec, is kept.
async fn clean_up(writes: &mut Writes, d: &Deployment, old: &[&ReplicaSet]) {
    let limit = d.spec.revision_history_limit.and_then(|l| usize::try_from(l).ok());
    let Some(limit) = writes.decided(OldReplicaSetsKept(limit)).0 else { return };
    let mut alive: Vec<&ReplicaSet> = old.iter().copied().filter(|rs| rs.meta().deletion_timestamp.is_none()).collect();
    let excess = alive.len().saturating_sub(limit);
    let revision = |rs: &ReplicaSet| rs.annotations().get(REVISION).and_then(|r| r.parse::<i64>().ok()).unwrap_or(0);
    alive.sort_by_key(|rs| (revision(rs), rs.metadata.creation_timestamp.as_ref().map(|t| t.0)));
    for rs in alive.into_iter().take(excess) {
        let status = rs.status.as_ref();
        let idle = spec_replicas(rs) == 0 && status.is_some_and(|s| s.replicas == 0);
        let caught_up = rs.meta().generation.unwrap_or(0) <= status.and_then(|s| s.observed_generation).unwrap_or(0);
        if idle && caught_up {
            writes.delete(rs).await;
        }
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

    /// `RollingUpdate`, one step of it at a time ([`rolling_step`]).
    async fn roll(&self, writes: &mut Writes) {
        let (surge, unavailable) = self.bounds();
        let size = |rs: &ReplicaSet| Size { replicas: spec_replicas(rs), available: available(rs) };
        let old: Vec<Size> = self.old.iter().map(|rs| size(rs)).collect();
        match rolling_step(self.replicas, surge, unavailable, self.new.map(size), &old) {
            RollingStep::ScaleNew(n) => self.scale_new(writes, n, self.replicas + surge).await,
            RollingStep::ScaleOld(sizes) => {
                for (n, rs) in sizes.into_iter().zip(self.old) {
                    if n != spec_replicas(rs) {
                        scale(writes, rs, n, self.replicas, self.replicas + surge).await;
                    }
                }
            }
            RollingStep::Nothing => {}
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

/// A ReplicaSet as a rolling update sees it: the pods it is scaled to, and how many of its
/// pods are available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// `spec.replicas`.
    pub replicas: i32,
    /// `status.availableReplicas`.
    pub available: i32,
}

/// What one sync of a rolling update changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RollingStep {
    /// The new ReplicaSet (created if there is none) goes to this size.
    ScaleNew(i32),
    /// The old ReplicaSets go to these sizes, in their order.
    ScaleOld(Vec<i32>),
    /// Nothing to change.
    Nothing,
}

/// One step of a rolling update of a deployment wanting `replicas` pods, with at most `surge`
/// more and `unavailable` fewer available: upstream's `reconcileNewReplicaSet` (grow the new
/// ReplicaSet within the surge bound, or shrink it to `replicas`) and, when that changes
/// nothing, `reconcileOldReplicaSets` (remove old unhealthy replicas first, then healthy ones
/// while at least `replicas - unavailable` stay available). `old` is oldest first.
pub fn rolling_step(replicas: i32, surge: i32, unavailable: i32, new: Option<Size>, old: &[Size]) -> RollingStep {
    let new_now = new.map_or(0, |n| n.replicas);
    let old_pods: i32 = old.iter().map(|s| s.replicas).sum();
    let max_total = replicas + surge;
    let grown = if old_pods + new_now >= max_total { new_now } else { new_now + (max_total - old_pods - new_now).min(replicas - new_now) };
    match new {
        None => return RollingStep::ScaleNew(grown),
        Some(n) if n.replicas > replicas => return RollingStep::ScaleNew(replicas),
        Some(n) if grown != n.replicas => return RollingStep::ScaleNew(grown),
        Some(_) => {}
    }
    if old_pods == 0 {
        return RollingStep::Nothing;
    }
    let min_available = replicas - unavailable;
    let new_unavailable = new_now - new.map_or(0, |n| n.available);
    let mut budget = old_pods + new_now - min_available - new_unavailable;
    if budget <= 0 {
        return RollingStep::Nothing;
    }
    let mut sizes: Vec<i32> = old.iter().map(|s| s.replicas).collect();
    for (size, s) in sizes.iter_mut().zip(old) {
        let cut = (*size - s.available).min(budget).max(0);
        *size -= cut;
        budget -= cut;
    }
    let mut spare = old.iter().map(|s| s.available).sum::<i32>() + new.map_or(0, |n| n.available) - min_available;
    for size in sizes.iter_mut() {
        let cut = (*size).min(spare).max(0);
        *size -= cut;
        spare -= cut;
    }
    if sizes.iter().zip(old).all(|(n, s)| *n == s.replicas) { RollingStep::Nothing } else { RollingStep::ScaleOld(sizes) }
}

/// A count or a percentage of `total`, rounded up or down (upstream
/// `GetScaledValueFromIntOrPercent`).
pub fn scaled(value: &IntOrString, total: i32, round_up: bool) -> i32 {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn size(replicas: i32, available: i32) -> Size {
        Size { replicas, available }
    }

    /// upstream `TestDeploymentController_reconcileNewReplicaSet` (maxUnavailable 0).
    #[test]
    fn the_new_replica_set_grows_within_the_surge_and_shrinks_to_the_replicas() {
        let step = |surge, old, new| rolling_step(10, surge, 0, Some(size(new, 0)), &[size(old, 0)]);
        assert_eq!(step(0, 10, 0), RollingStep::Nothing);
        assert_eq!(step(2, 10, 0), RollingStep::ScaleNew(2));
        assert_eq!(step(2, 5, 0), RollingStep::ScaleNew(7));
        assert_eq!(step(2, 10, 2), RollingStep::Nothing);
        assert_eq!(step(2, 2, 11), RollingStep::ScaleNew(10));
        assert_eq!(rolling_step(2, 1, 0, None, &[]), RollingStep::ScaleNew(2), "a first ReplicaSet gets every replica");
    }

    /// upstream `TestDeploymentController_reconcileOldReplicaSets` (maxSurge 0; both bounds 0
    /// make one pod of unavailability, as [`Plan::bounds`] does).
    #[test]
    fn old_replica_sets_shrink_unhealthy_first_keeping_enough_available() {
        let step = |unavailable, old, new, old_ready, new_ready| {
            rolling_step(10, 0, unavailable, Some(size(new, new_ready)), &[size(old, old_ready)])
        };
        assert_eq!(step(1, 10, 0, 10, 0), RollingStep::ScaleOld(vec![9]));
        assert_eq!(step(2, 10, 0, 10, 0), RollingStep::ScaleOld(vec![8]));
        assert_eq!(step(2, 10, 0, 8, 0), RollingStep::ScaleOld(vec![8]));
        assert_eq!(step(2, 10, 0, 9, 0), RollingStep::ScaleOld(vec![8]));
        assert_eq!(step(2, 8, 2, 8, 0), RollingStep::Nothing);
    }
}
