//! The StatefulSet controller (`pkg/controller/statefulset/stateful_set_control.go`,
//! `stateful_pod_control.go` and `stateful_set_utils.go`): pods with a stable identity, each
//! with claims of its own, and the owner references that hand those claims to the garbage
//! collector when the retention policy says so.
//!
//! - Pod `n` of set `web` is named `web-n` (ordinals from `spec.ordinals.start`, 0 by default),
//!   with hostname `web-n`, the set's `serviceName` as subdomain, and the labels
//!   `statefulset.kubernetes.io/pod-name`, `apps.kubernetes.io/pod-index` and
//!   `controller-revision-hash` (the name of the set's revision it was made from).
//! - Each volume claim template `data` gives pod `web-n` the claim `data-web-n`, labelled with
//!   the template's labels and the set's selector's, made before the pod and mounted as the
//!   volume `data`. A claim that already exists is used as it is; one being deleted holds the
//!   pod back.
//! - `OrderedReady` (the default) makes pods one at a time in ordinal order, each once those
//!   before it are Running and Ready, and removes them one at a time from the highest ordinal;
//!   `Parallel` makes and removes them all at once. A finished pod is deleted to be made again.
//! - The retention policy (`persistentVolumeClaimRetentionPolicy`, Retain and Retain by default)
//!   is kept in each claim's owner references (`updateClaimOwnerRefForSetAndPod`): `whenDeleted:
//!   Delete` makes the set the claim's controller, `whenScaled: Delete` makes a pod removed by
//!   scaling down the controller of its claims before the pod is deleted, so that the garbage
//!   collector deletes them with their owner. A claim already controlled by someone else, or
//!   owned by an earlier set or pod of the same name, is left alone; while a claim still names
//!   an earlier pod of the same name, that pod is not made again.
//! - A rolling update (the default strategy) deletes, from the highest ordinal down, one pod of
//!   an older revision at a time while every pod is Running and Ready, leaving the ordinals
//!   below `partition`; `OnDelete` waits for someone else to.
//! - Its template's history is kept in ControllerRevisions ([`revisions`]); its status counts
//!   its pods.
//!
//! Not modelled: pods below a partition made again at the old revision, `maxUnavailable`,
//! `minReadySeconds` holding back an ordered start, repairing the identity of an existing pod,
//! and trimming revisions beyond `revisionHistoryLimit`.

use std::sync::OnceLock;

use k8s_openapi::api::apps::v1::{ControllerRevision, StatefulSet, StatefulSetPersistentVolumeClaimRetentionPolicy, StatefulSetSpec};
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use crate::workloads::claims::{ChildSelector, claim_children, controller_reference};
use crate::workloads::revisions::{self, HASH_LABEL};
use crate::workloads::writes::Writes;
use crate::workloads::{pods, status};

/// The label with a pod's name (`apps.StatefulSetPodNameLabel`).
const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";

/// The label with a pod's ordinal (`apps.PodIndexLabel`).
const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// What a pass of one StatefulSet reads besides the set.
pub struct Members<'a> {
    /// Every pod in the cluster.
    pub pods: &'a [Pod],
    /// Every PersistentVolumeClaim in the cluster.
    pub claims: &'a [PersistentVolumeClaim],
    /// Every ControllerRevision in the cluster.
    pub revisions: &'a [ControllerRevision],
}

/// One sync of the StatefulSet controller for `set`.
pub async fn sync(writes: &mut Writes, set: &StatefulSet, members: &Members<'_>) {
    if set.meta().deletion_timestamp.is_some() {
        return;
    }
    let spec = &set.spec;
    let namespace = set.namespace().unwrap_or_default();
    let reference = controller_reference("apps/v1", "StatefulSet", set.meta());
    let selector = ChildSelector::of(Some(&spec.selector));
    let Some(hash) = revisions::current(writes, set, &reference, &selector, &spec.template, members.revisions).await else { return };
    let in_namespace = |meta: &ObjectMeta| meta.namespace.as_deref() == Some(&namespace);
    let revision = format!("{}-{hash}", set.name_any());
    let candidates = members.pods.iter().filter(|p| in_namespace(p.meta()) && ordinal(set, p).is_some()).collect();
    let owned = claim_children(writes, set, &reference, &selector, candidates).await;
    let claims: Vec<&PersistentVolumeClaim> = members.claims.iter().filter(|c| in_namespace(c.meta())).collect();
    let set = Set { set, revision, reference, claims, live: OnceLock::new() };
    let range = set.range();
    let mut replicas: Vec<Option<&Pod>> = range.clone().map(|_| None).collect();
    let mut condemned: Vec<&Pod> = Vec::new();
    for pod in &owned {
        let n = ordinal(set.set, pod).unwrap_or_default();
        if range.contains(&n) {
            replicas[(n - range.start) as usize] = Some(pod);
        } else {
            condemned.push(pod);
        }
    }
    condemned.sort_by_key(|p| std::cmp::Reverse(ordinal(set.set, p)));
    let all_pods: Vec<&Pod> = replicas.iter().flatten().chain(&condemned).copied().collect();
    set.write_status(writes, &all_pods).await;
    let ordered = spec.pod_management_policy.as_deref() != Some("Parallel");
    if set.replicas(writes, &replicas, ordered).await || set.condemn(writes, &condemned, ordered).await {
        return;
    }
    set.roll(writes, &replicas).await;
}

/// A StatefulSet in a pass, with its current revision's name, its controller reference and the
/// claims of its namespace.
struct Set<'a> {
    set: &'a StatefulSet,
    revision: String,
    reference: OwnerReference,
    claims: Vec<&'a PersistentVolumeClaim>,
    /// Whether a fresh read found the set still live, once asked ([`Set::still_live`]).
    live: OnceLock<bool>,
}

impl Set<'_> {
    fn spec(&self) -> &StatefulSetSpec {
        &self.set.spec
    }

    /// Whether a fresh read finds the set with its uid and not being deleted, asked once a
    /// pass before it makes a claim or names itself a claim's controller: a pass's lists are
    /// read one after another, so the set it read may have been deleted since, and a claim
    /// made or owned for a set that is gone would be left behind or collected against the
    /// propagation policy (the recheck upstream's controller reference manager makes before
    /// adopting, `RecheckDeletionTimestamp`).
    async fn still_live(&self, writes: &Writes) -> bool {
        if let Some(live) = self.live.get() {
            return *live;
        }
        let live = writes.can_adopt(self.set).await;
        *self.live.get_or_init(|| live)
    }

    /// The ordinals its pods should have.
    fn range(&self) -> std::ops::Range<i64> {
        let start = self.spec().ordinals.as_ref().and_then(|o| o.start).map_or(0, i64::from);
        start..start + i64::from(self.spec().replicas.unwrap_or(1).max(0))
    }

    /// Makes, repairs and replaces the pods it should have (`processReplica`); whether an
    /// ordered pass must stop here (a parallel one goes on whatever its pods are doing).
    async fn replicas(&self, writes: &mut Writes, replicas: &[Option<&Pod>], ordered: bool) -> bool {
        for (n, pod) in self.range().zip(replicas) {
            let Some(pod) = pod else {
                self.create(writes, n).await;
                if ordered {
                    return true;
                }
                continue;
            };
            if pods::is_terminal(pod) {
                if pod.meta().deletion_timestamp.is_none() {
                    writes.delete(*pod).await;
                }
                if ordered {
                    return true;
                }
                continue;
            }
            if pods::phase(pod) == "Pending" {
                self.create_claims(writes, n).await;
            }
            if ordered && !healthy(pod) {
                return true;
            }
            self.keep_claims(writes, pod, true).await;
        }
        false
    }

    /// Removes the pods beyond its range, first handing their claims over as the retention
    /// policy says (`processCondemned`), the highest ordinal first; whether an ordered pass
    /// must stop here. An ordered removal takes one pod at a time, and an unhealthy pod only
    /// when it is the lowest unhealthy one.
    async fn condemn(&self, writes: &mut Writes, condemned: &[&Pod], ordered: bool) -> bool {
        for pod in condemned {
            self.keep_claims(writes, pod, false).await;
        }
        let first_unhealthy = condemned.iter().rev().find(|p| !healthy(p)).and_then(|p| p.uid());
        for pod in condemned {
            if pod.meta().deletion_timestamp.is_some() {
                if ordered {
                    return true;
                }
                continue;
            }
            if ordered && !healthy(pod) && pod.uid() != first_unhealthy {
                return true;
            }
            writes.delete(*pod).await;
            if ordered {
                return true;
            }
        }
        false
    }

    /// A rolling update: from the highest ordinal down to the partition, deletes the first pod
    /// of an older revision, unless a pod before it is not healthy yet.
    async fn roll(&self, writes: &mut Writes, replicas: &[Option<&Pod>]) {
        let strategy = self.spec().update_strategy.as_ref();
        if strategy.and_then(|s| s.type_.as_deref()).unwrap_or("RollingUpdate") != "RollingUpdate" {
            return;
        }
        let partition = strategy.and_then(|s| s.rolling_update.as_ref()?.partition).unwrap_or(0);
        for pod in replicas.iter().skip(usize::try_from(partition).unwrap_or(0)).rev() {
            let Some(pod) = pod else { return };
            if pod.labels().get(HASH_LABEL) != Some(&self.revision) && pod.meta().deletion_timestamp.is_none() {
                writes.delete(*pod).await;
                return;
            }
            if !healthy(pod) {
                return;
            }
        }
    }

    /// Makes pod `n` with its claims (`CreateStatefulPod`), unless a claim still belongs to an
    /// earlier pod of that name (`PodClaimIsStale`) or is being deleted.
    async fn create(&self, writes: &mut Writes, n: i64) {
        let name = self.pod_name(n);
        let policy = self.policy();
        let names_earlier_pod =
            |c: &&&PersistentVolumeClaim| c.owner_references().iter().any(|r| r.kind == "Pod" && r.api_version == "v1" && r.name == name);
        if policy.when_scaled.as_deref() == Some("Delete") && self.own_claims(n).iter().any(|c| names_earlier_pod(&c)) {
            return;
        }
        if self.create_claims(writes, n).await {
            writes.create(&self.set.namespace().unwrap_or_default(), &self.new_pod(n)).await;
        }
    }

    /// Makes pod `n`'s missing claims; whether none of them is being deleted.
    async fn create_claims(&self, writes: &mut Writes, n: i64) -> bool {
        let mut usable = true;
        for claim in self.claims_of(n) {
            match self.claims.iter().find(|c| c.name_any() == claim.name_any()) {
                Some(existing) => usable &= existing.meta().deletion_timestamp.is_none(),
                None if self.still_live(writes).await => {
                    usable &= writes.create(&self.set.namespace().unwrap_or_default(), &claim).await.is_some();
                }
                None => usable = false,
            }
        }
        usable
    }

    /// Brings the owner references of `pod`'s claims in line with the retention policy
    /// (`UpdatePodClaimForRetentionPolicy`); `in_range` when the set keeps the pod.
    async fn keep_claims(&self, writes: &mut Writes, pod: &Pod, in_range: bool) {
        let Some(n) = ordinal(self.set, pod) else { return };
        let policy = writes.decided(self.policy());
        for claim in self.own_claims(n) {
            if let Some(owners) = claim_owners(claim, &self.reference, pod, &policy, in_range) {
                let names_the_set = |refs: &[OwnerReference]| refs.iter().any(|r| r.uid == self.reference.uid);
                if names_the_set(&owners) && !names_the_set(claim.owner_references()) && !self.still_live(writes).await {
                    continue;
                }
                let mut changed = claim.clone();
                changed.metadata.owner_references = Some(owners);
                writes.replace(&changed).await;
            }
        }
    }

    /// The existing claims of pod `n`.
    fn own_claims(&self, n: i64) -> Vec<&PersistentVolumeClaim> {
        let names: Vec<String> = self.claims_of(n).iter().map(|c| c.name_any()).collect();
        self.claims.iter().filter(|c| names.contains(&c.name_any())).copied().collect()
    }

    /// The claims pod `n` should have, new (`getPersistentVolumeClaims`).
    fn claims_of(&self, n: i64) -> Vec<PersistentVolumeClaim> {
        let selector_labels = self.spec().selector.match_labels.clone().unwrap_or_default();
        let templates = self.spec().volume_claim_templates.as_deref().unwrap_or_default();
        let claim = |template: &PersistentVolumeClaim| {
            let mut claim = template.clone();
            claim.metadata = ObjectMeta {
                name: Some(format!("{}-{}", template.name_any(), self.pod_name(n))),
                namespace: self.set.namespace(),
                labels: Some(template.labels().clone().into_iter().chain(selector_labels.clone()).collect()),
                annotations: template.metadata.annotations.clone(),
                ..Default::default()
            };
            claim.status = None;
            claim
        };
        templates.iter().map(claim).collect()
    }

    /// Pod `n`, new (`newStatefulSetPod`).
    fn new_pod(&self, n: i64) -> Pod {
        let namespace = self.set.namespace().unwrap_or_default();
        let name = self.pod_name(n);
        let mut pod = pods::from_template(&self.spec().template, self.reference.clone(), &namespace, "");
        pod.metadata.generate_name = None;
        pod.metadata.name = Some(name.clone());
        let labels = pod.metadata.labels.get_or_insert_with(Default::default);
        labels.insert(POD_NAME_LABEL.into(), name.clone());
        labels.insert(POD_INDEX_LABEL.into(), n.to_string());
        labels.insert(HASH_LABEL.into(), self.revision.clone());
        let mut spec = serde_json::to_value(&pod.spec).unwrap_or_default();
        spec["hostname"] = json!(name);
        if let Some(service) = self.spec().service_name.as_deref().filter(|s| !s.is_empty()) {
            spec["subdomain"] = json!(service);
        }
        let claims = self.claims_of(n);
        let templates = self.spec().volume_claim_templates.as_deref().unwrap_or_default();
        let mut volumes: Vec<Value> = templates
            .iter()
            .zip(&claims)
            .map(|(t, c)| json!({"name": t.name_any(), "persistentVolumeClaim": {"claimName": c.name_any()}}))
            .collect();
        let own = |v: &Value| templates.iter().any(|t| v["name"].as_str() == Some(&t.name_any()));
        volumes.extend(spec["volumes"].as_array().into_iter().flatten().filter(|v| !own(v)).cloned());
        if !volumes.is_empty() {
            spec["volumes"] = json!(volumes);
        }
        pod.spec = serde_json::from_value(spec).ok();
        pod
    }

    fn pod_name(&self, n: i64) -> String {
        format!("{}-{n}", self.set.name_any())
    }

    /// The retention policy, Retain and Retain when unset: the decision a mutant may change.
    fn policy(&self) -> StatefulSetPersistentVolumeClaimRetentionPolicy {
        self.spec().persistent_volume_claim_retention_policy.clone().unwrap_or_default()
    }

    /// Writes the status its pods call for (`updateStatus`).
    async fn write_status(&self, writes: &mut Writes, all_pods: &[&Pod]) {
        let min_ready = self.spec().min_ready_seconds.unwrap_or(0);
        let current = |p: &&&Pod| p.meta().deletion_timestamp.is_none() && p.labels().get(HASH_LABEL) == Some(&self.revision);
        let ready = all_pods.iter().filter(|p| pods::phase(p) == "Running" && pods::is_ready(p)).count();
        let available = all_pods.iter().filter(|p| pods::phase(p) == "Running" && pods::is_available(p, min_ready)).count();
        let updated = all_pods.iter().filter(current).count();
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let replicas = count(all_pods.len());
        let fields = [
            ("observedGeneration", self.set.meta().generation.unwrap_or(0)),
            ("replicas", replicas),
            ("readyReplicas", count(ready)),
            ("currentReplicas", count(updated)),
            ("updatedReplicas", count(updated)),
            ("availableReplicas", count(available)),
        ];
        let mut status = status::counts(&fields, &["replicas", "availableReplicas"]);
        status["currentRevision"] = json!(self.revision);
        status["updateRevision"] = json!(self.revision);
        status["collisionCount"] = json!(0);
        if status::changes(&serde_json::to_value(&self.set.status).unwrap_or_default(), &status) {
            writes.patch_status(self.set, status).await;
        }
    }
}

/// Whether `pod` is Running and Ready and not being deleted.
fn healthy(pod: &Pod) -> bool {
    pod.meta().deletion_timestamp.is_none() && pods::phase(pod) == "Running" && pods::is_ready(pod)
}

/// The ordinal of `pod` as a member of `set` (`getParentNameAndOrdinal`): its name is the
/// set's, a dash and a number.
fn ordinal(set: &StatefulSet, pod: &Pod) -> Option<i64> {
    let name = pod.name_any();
    let n = name.strip_prefix(&set.name_any())?.strip_prefix('-')?;
    n.chars().all(|c| c.is_ascii_digit()).then(|| n.parse().ok()).flatten()
}

/// The owner references `claim` should have for `pod` under `policy`, or none when they
/// already are as they should be or must be left alone (`isClaimOwnerUpToDate`,
/// `updateClaimOwnerRefForSetAndPod`): `set` is the set's controller reference; `in_range`
/// when the set keeps the pod.
fn claim_owners(
    claim: &PersistentVolumeClaim,
    set: &OwnerReference,
    pod: &Pod,
    policy: &StatefulSetPersistentVolumeClaimRetentionPolicy,
    in_range: bool,
) -> Option<Vec<OwnerReference>> {
    let refs = claim.owner_references();
    let is_set = |r: &OwnerReference| r.api_version == set.api_version && r.kind == set.kind && r.name == set.name;
    let is_pod = |r: &OwnerReference| r.api_version == "v1" && r.kind == "Pod" && r.name == pod.name_any();
    let pod_uid = pod.uid().unwrap_or_default();
    // A reference to an earlier set or pod of the same name: an earlier controller's claim.
    let stale = refs.iter().find(|r| is_set(r)).is_some_and(|r| r.uid != set.uid)
        || refs.iter().find(|r| is_pod(r)).is_some_and(|r| r.uid != pod_uid);
    if stale {
        return None;
    }
    let delete_when_deleted = policy.when_deleted.as_deref() == Some("Delete");
    let delete_when_scaled = policy.when_scaled.as_deref() == Some("Delete");
    let someone_else = refs.iter().any(|r| r.controller == Some(true) && !is_set(r) && !is_pod(r));
    let mut owners: Vec<OwnerReference> = refs.iter().filter(|r| !is_set(r) && !is_pod(r)).cloned().collect();
    if !(someone_else && (delete_when_deleted || delete_when_scaled)) {
        if delete_when_deleted && (in_range || !delete_when_scaled) {
            owners.push(set.clone());
        }
        if delete_when_scaled && !in_range {
            owners.push(controller_reference("v1", "Pod", pod.meta()));
        }
    }
    (owners.as_slice() != refs).then_some(owners)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(when_deleted: &str, when_scaled: &str) -> StatefulSetPersistentVolumeClaimRetentionPolicy {
        StatefulSetPersistentVolumeClaimRetentionPolicy { when_deleted: Some(when_deleted.into()), when_scaled: Some(when_scaled.into()) }
    }

    fn set_ref() -> OwnerReference {
        let meta = ObjectMeta { name: Some("web".into()), uid: Some("set".into()), ..Default::default() };
        controller_reference("apps/v1", "StatefulSet", &meta)
    }

    fn pod() -> Pod {
        Pod { metadata: ObjectMeta { name: Some("web-2".into()), uid: Some("pod".into()), ..Default::default() }, ..Default::default() }
    }

    fn owners(claim: &PersistentVolumeClaim, policy: &StatefulSetPersistentVolumeClaimRetentionPolicy, in_range: bool) -> Vec<String> {
        let refs = claim_owners(claim, &set_ref(), &pod(), policy, in_range).unwrap_or_else(|| claim.owner_references().to_vec());
        refs.iter().map(|r| format!("{}/{}", r.kind, r.uid)).collect()
    }

    #[test]
    fn the_retention_policy_in_owner_references() {
        let claim = PersistentVolumeClaim::default();
        assert!(owners(&claim, &policy("Retain", "Retain"), false).is_empty());
        assert_eq!(owners(&claim, &policy("Delete", "Retain"), false), ["StatefulSet/set"]);
        assert!(owners(&claim, &policy("Retain", "Delete"), true).is_empty());
        assert_eq!(owners(&claim, &policy("Retain", "Delete"), false), ["Pod/pod"]);
        assert_eq!(owners(&claim, &policy("Delete", "Delete"), true), ["StatefulSet/set"]);
        assert_eq!(owners(&claim, &policy("Delete", "Delete"), false), ["Pod/pod"]);
    }

    #[test]
    fn claims_of_earlier_or_other_controllers_are_left_alone() {
        let mut earlier = set_ref();
        earlier.uid = "earlier".into();
        let stale = PersistentVolumeClaim {
            metadata: ObjectMeta { owner_references: Some(vec![earlier]), ..Default::default() },
            ..Default::default()
        };
        assert_eq!(claim_owners(&stale, &set_ref(), &pod(), &policy("Retain", "Retain"), true), None);
        let other =
            OwnerReference { kind: "Other".into(), name: "o".into(), uid: "other".into(), controller: Some(true), ..Default::default() };
        let taken = PersistentVolumeClaim {
            metadata: ObjectMeta { owner_references: Some(vec![other]), ..Default::default() },
            ..Default::default()
        };
        assert_eq!(claim_owners(&taken, &set_ref(), &pod(), &policy("Delete", "Delete"), true), None);
        // Under Retain and Retain another controller is no reason to keep the set's reference.
        let mut both = taken.clone();
        both.metadata.owner_references.get_or_insert_with(Vec::new).push(set_ref());
        assert_eq!(owners(&both, &policy("Retain", "Retain"), true), ["Other/other"]);
    }
}
