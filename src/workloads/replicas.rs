//! The replica set controller, which upstream runs for ReplicaSets and, through adapters, for
//! ReplicationControllers: it claims the active pods in its namespace, creates pods from its
//! template or deletes the ones [`pods::removal_order`] puts first until it controls as many as
//! it wants (not while it is being deleted), and reports the counts in its status.

use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::{Pod, PodTemplateSpec, ReplicationController};
use kube::ResourceExt;
use serde_json::Value;

use crate::workloads::claims::{ChildSelector, claim_children, controller_reference};
use crate::workloads::writes::{Workload, Writes};
use crate::workloads::{pods, status};

/// The most pods one sync creates or deletes (upstream's `burstReplicas`).
const BURST: usize = 500;

/// What the replica set controller reads of a ReplicaSet or a ReplicationController.
pub trait Replicated: Workload {
    /// How many pods it wants (1 when unset).
    fn replicas(&self) -> i32;
    /// The pods it selects.
    fn selector(&self) -> ChildSelector;
    /// The template of its pods.
    fn template(&self) -> Option<&PodTemplateSpec>;
    /// How long a ready pod waits before it counts as available.
    fn min_ready_seconds(&self) -> i32;
    /// Its status as written.
    fn status(&self) -> Value;
}

impl Replicated for ReplicaSet {
    fn replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
    }
    fn selector(&self) -> ChildSelector {
        ChildSelector::of(Some(&self.spec.selector))
    }
    fn template(&self) -> Option<&PodTemplateSpec> {
        self.spec.template.as_ref()
    }
    fn min_ready_seconds(&self) -> i32 {
        self.spec.min_ready_seconds.unwrap_or(0)
    }
    fn status(&self) -> Value {
        serde_json::to_value(&self.status).unwrap_or_default()
    }
}

impl Replicated for ReplicationController {
    fn replicas(&self) -> i32 {
        self.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1)
    }
    /// The selector, or the template's labels when it has none (as the API server defaults it).
    fn selector(&self) -> ChildSelector {
        let spec = self.spec.as_ref();
        let selector = spec.and_then(|s| s.selector.clone()).filter(|s| !s.is_empty());
        let labels = || spec.and_then(|s| s.template.as_ref()?.metadata.as_ref()?.labels.clone());
        match selector.or_else(labels) {
            Some(labels) => ChildSelector::of_labels(&labels),
            None => ChildSelector::of(None),
        }
    }
    fn template(&self) -> Option<&PodTemplateSpec> {
        self.spec.as_ref().and_then(|s| s.template.as_ref())
    }
    fn min_ready_seconds(&self) -> i32 {
        self.spec.as_ref().and_then(|s| s.min_ready_seconds).unwrap_or(0)
    }
    fn status(&self) -> Value {
        serde_json::to_value(&self.status).unwrap_or_default()
    }
}

/// The pod counts a replica set controller reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Active pods it controls.
    pub replicas: usize,
    /// Of those, the ones carrying every label of the template.
    pub fully_labeled: usize,
    /// Of those, the ready ones.
    pub ready: usize,
    /// Of those, the ones ready for at least `minReadySeconds`.
    pub available: usize,
}

impl Counts {
    /// The counts of `controlled`, the active pods of a controller with `template` and
    /// `min_ready_seconds`.
    pub fn of(controlled: &[&Pod], template: Option<&PodTemplateSpec>, min_ready_seconds: i32) -> Self {
        let labels = template.and_then(|t| t.metadata.as_ref()?.labels.clone()).unwrap_or_default();
        let fully_labeled = controlled.iter().filter(|p| labels.iter().all(|(k, v)| p.labels().get(k) == Some(v))).count();
        let ready = controlled.iter().filter(|p| pods::is_ready(p)).count();
        let available = controlled.iter().filter(|p| pods::is_available(p, min_ready_seconds)).count();
        Self { replicas: controlled.len(), fully_labeled, ready, available }
    }

    /// The status patch these counts make at `generation`.
    pub fn status(&self, generation: Option<i64>) -> Value {
        let n = |c: usize| i64::try_from(c).unwrap_or(i64::MAX);
        let fields = [
            ("replicas", n(self.replicas)),
            ("fullyLabeledReplicas", n(self.fully_labeled)),
            ("readyReplicas", n(self.ready)),
            ("availableReplicas", n(self.available)),
            ("observedGeneration", generation.unwrap_or(0)),
        ];
        status::counts(&fields, &["replicas"])
    }
}

/// One sync of the replica set controller for `owner`, over every pod in the cluster.
pub async fn sync<R: Replicated>(writes: &mut Writes, owner: &R, all_pods: &[Pod]) {
    let namespace = owner.namespace().unwrap_or_default();
    let reference = controller_reference(&R::api_version(&()), &R::kind(&()), owner.meta());
    let active: Vec<&Pod> = all_pods.iter().filter(|p| p.namespace().as_deref() == Some(&namespace) && pods::is_active(p)).collect();
    let mut controlled = claim_children(writes, owner, &reference, &owner.selector(), active).await;
    if owner.meta().deletion_timestamp.is_none() {
        let want = usize::try_from(owner.replicas()).unwrap_or(0);
        if controlled.len() < want {
            if let Some(template) = owner.template() {
                let prefix = format!("{}-", owner.name_any());
                for _ in 0..(want - controlled.len()).min(BURST) {
                    let pod = pods::from_template(template, reference.clone(), &namespace, &prefix);
                    writes.create(&namespace, &pod).await;
                }
            }
        } else if controlled.len() > want {
            controlled.sort_by(|a, b| pods::removal_order(a, b));
            for pod in controlled.iter().take((controlled.len() - want).min(BURST)) {
                writes.delete(*pod).await;
            }
        }
    }
    let counts = Counts::of(&controlled, owner.template(), owner.min_ready_seconds());
    let status = counts.status(owner.meta().generation);
    if status::changes(&owner.status(), &status) {
        writes.patch_status(owner, status).await;
    }
}
