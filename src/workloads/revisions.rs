//! The history of a DaemonSet's or StatefulSet's pod template, as their controllers keep it
//! (`pkg/controller/history`, and each controller's `constructHistory` / `getPatch`): one
//! ControllerRevision per template, named `<owner>-<hash>`, labelled with the hash, owned by its
//! workload as controller, holding the template as a patch that replaces it, its revision
//! number counting up. A revision is found again by its hash label or by what it holds (so one
//! someone else made for the same template serves), and renumbered to come last when an older
//! template's came after it. The hash is the fake's own ([`deployments::template_hash`]).

use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use kube::ResourceExt;
use serde_json::{Value, json};

use crate::workloads::claims::{ChildSelector, claim_children};
use crate::workloads::deployments;
use crate::workloads::writes::{Workload, Writes};

/// The label naming the revision a pod (and a ControllerRevision) was made from.
pub const HASH_LABEL: &str = "controller-revision-hash";

/// The hash of `owner`'s current revision, renumbered or made as needed; `None` until it can be
/// made. Its revisions are those of `all` in its namespace that it controls through
/// `reference`, once it has adopted and released them by `selector`.
pub async fn current<O: Workload>(
    writes: &mut Writes,
    owner: &O,
    reference: &OwnerReference,
    selector: &ChildSelector,
    template: &PodTemplateSpec,
    all: &[ControllerRevision],
) -> Option<String> {
    let candidates = all.iter().filter(|r| r.namespace() == owner.namespace()).collect();
    let revisions = claim_children(writes, owner, reference, selector, candidates).await;
    let hash = deployments::template_hash(template);
    let data = revision_data(template);
    let is_current = |r: &&&ControllerRevision| r.labels().get(HASH_LABEL) == Some(&hash) || r.data.0 == data;
    let newest_other = revisions.iter().filter(|r| !is_current(r)).filter_map(|r| r.revision).max().unwrap_or(0);
    let current = revisions.iter().filter(is_current).max_by_key(|r| r.revision.unwrap_or(0));
    match current {
        Some(current) => {
            if current.revision.unwrap_or(0) <= newest_other {
                let mut renumbered = (*current).clone();
                renumbered.revision = Some(newest_other + 1);
                writes.replace(&renumbered).await;
            }
            Some(current.labels().get(HASH_LABEL).cloned().unwrap_or(hash))
        }
        None => {
            let mut labels = template.metadata.as_ref().and_then(|m| m.labels.clone()).unwrap_or_default();
            labels.insert(HASH_LABEL.into(), hash.clone());
            let revision = ControllerRevision {
                metadata: ObjectMeta {
                    name: Some(format!("{}-{hash}", owner.name_any())),
                    namespace: owner.namespace(),
                    labels: Some(labels),
                    annotations: owner.meta().annotations.clone(),
                    owner_references: Some(vec![reference.clone()]),
                    ..Default::default()
                },
                data: RawExtension(data),
                revision: Some(newest_other + 1),
            };
            writes.create(&owner.namespace().unwrap_or_default(), &revision).await.map(|_| hash)
        }
    }
}

/// What a revision holds: the template as a patch that replaces it (`getPatch`).
fn revision_data(template: &PodTemplateSpec) -> Value {
    let mut template = serde_json::to_value(template).unwrap_or_default();
    template["$patch"] = json!("replace");
    json!({"spec": {"template": template}})
}
