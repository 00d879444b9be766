//! Who controls a child: upstream's ControllerRefManager. A controller keeps the children its
//! controller reference names and its selector matches, adopts orphans its selector matches
//! (never while it or the child is being deleted), and releases children it controls but no
//! longer matches (not while it is being deleted itself). Adoption and release are strategic
//! merge patches of the child's `ownerReferences` (merged by `uid`) carrying the child's uid,
//! so that they cannot land on a namesake.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use kube::ResourceExt;
use kube::core::{Selector, SelectorExt};
use serde_json::{Value, json};

use crate::workloads::writes::{Workload, Writes};

/// A selector as a controller uses it: a missing or malformed one matches nothing, an empty one
/// matches everything.
#[derive(Clone, Debug)]
pub struct ChildSelector(Option<Selector>);

impl ChildSelector {
    /// From a `LabelSelector` (ReplicaSets, Deployments, Jobs).
    pub fn of(selector: Option<&LabelSelector>) -> Self {
        Self(selector.and_then(|s| Selector::try_from(s.clone()).ok()))
    }

    /// From a map of labels (ReplicationControllers).
    pub fn of_labels(labels: &BTreeMap<String, String>) -> Self {
        Self(Some(labels.iter().map(|(k, v)| (k.clone(), v.clone())).collect()))
    }

    /// Whether the selector matches an object with `meta`'s labels.
    pub fn matches(&self, meta: &ObjectMeta) -> bool {
        let empty = BTreeMap::new();
        self.0.as_ref().is_some_and(|s| s.matches(meta.labels.as_ref().unwrap_or(&empty)))
    }
}

/// What a controller does about one child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The child is the controller's and stays so.
    Keep,
    /// An orphan the selector matches: the controller adopts it.
    Adopt,
    /// The controller's child no longer matches: the controller lets it go.
    Release,
    /// Another controller's child, or one this controller leaves alone.
    Ignore,
}

/// The controller reference among `meta`'s owner references, if any.
pub fn controller_of(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references.as_deref().unwrap_or_default().iter().find(|r| r.controller == Some(true))
}

/// Whether `child` is controlled by the object whose uid is `owner_uid`.
pub fn is_controlled_by(child: &ObjectMeta, owner_uid: &str) -> bool {
    controller_of(child).is_some_and(|r| r.uid == owner_uid)
}

/// What the controller `owner`, whose selector does (`matches`) or does not match the child,
/// does about `child`.
pub fn claim(owner: &ObjectMeta, matches: bool, child: &ObjectMeta) -> Claim {
    let owner_deleting = owner.deletion_timestamp.is_some();
    match controller_of(child) {
        Some(r) if Some(&r.uid) == owner.uid.as_ref() => match (matches, owner_deleting) {
            (true, _) => Claim::Keep,
            (false, true) => Claim::Ignore,
            (false, false) => Claim::Release,
        },
        Some(_) => Claim::Ignore,
        None if matches && !owner_deleting && child.deletion_timestamp.is_none() => Claim::Adopt,
        None => Claim::Ignore,
    }
}

/// The controller reference a controller of kind `kind` (`api_version`) puts on its children:
/// `controller` and `blockOwnerDeletion` both set.
pub fn controller_reference(api_version: &str, kind: &str, owner: &ObjectMeta) -> OwnerReference {
    OwnerReference {
        api_version: api_version.into(),
        kind: kind.into(),
        name: owner.name.clone().unwrap_or_default(),
        uid: owner.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// The patch that makes `reference` the controller of the child whose uid is `child_uid`.
pub fn adopt_patch(reference: &OwnerReference, child_uid: &str) -> Value {
    json!({"metadata": {"ownerReferences": [reference], "uid": child_uid}})
}

/// The patch that removes the reference to `owner_uid` from the child whose uid is `child_uid`.
pub fn release_patch(owner_uid: &str, child_uid: &str) -> Value {
    json!({"metadata": {"ownerReferences": [{"$patch": "delete", "uid": owner_uid}], "uid": child_uid}})
}

/// Claims `owner`'s children among `candidates` (objects in its namespace): adopts and
/// releases as [`claim`] says, and returns the children it controls afterwards.
pub async fn claim_children<'a, O: Workload, C: Workload + 'a>(
    writes: &mut Writes,
    owner: &O,
    reference: &OwnerReference,
    selector: &ChildSelector,
    candidates: Vec<&'a C>,
) -> Vec<&'a C> {
    let mut controlled = Vec::new();
    let mut may_adopt = None;
    for child in candidates {
        let child_uid = child.uid().unwrap_or_default();
        match claim(owner.meta(), selector.matches(child.meta()), child.meta()) {
            Claim::Keep => controlled.push(child),
            Claim::Adopt => {
                if may_adopt.is_none() {
                    may_adopt = Some(writes.can_adopt(owner).await);
                }
                if may_adopt == Some(true) {
                    writes.patch(child, adopt_patch(reference, &child_uid)).await;
                    controlled.push(child);
                }
            }
            Claim::Release => writes.patch(child, release_patch(&reference.uid, &child_uid)).await,
            Claim::Ignore => {}
        }
    }
    controlled
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(uid: &str, controller: Option<&str>, deleting: bool) -> ObjectMeta {
        let owner_references = controller.map(|u| vec![OwnerReference { uid: u.into(), controller: Some(true), ..Default::default() }]);
        let deletion_timestamp = deleting.then(|| k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(Default::default()));
        ObjectMeta { uid: Some(uid.into()), owner_references, deletion_timestamp, ..Default::default() }
    }

    #[test]
    fn the_controller_reference_manager_rules() {
        let owner = meta("o", None, false);
        let deleting_owner = meta("o", None, true);
        assert_eq!(claim(&owner, true, &meta("c", Some("o"), false)), Claim::Keep);
        assert_eq!(claim(&owner, false, &meta("c", Some("o"), false)), Claim::Release);
        assert_eq!(claim(&deleting_owner, false, &meta("c", Some("o"), false)), Claim::Ignore);
        assert_eq!(claim(&owner, true, &meta("c", Some("other"), false)), Claim::Ignore);
        assert_eq!(claim(&owner, true, &meta("c", None, false)), Claim::Adopt);
        assert_eq!(claim(&owner, false, &meta("c", None, false)), Claim::Ignore);
        assert_eq!(claim(&deleting_owner, true, &meta("c", None, false)), Claim::Ignore);
        assert_eq!(claim(&owner, true, &meta("c", None, true)), Claim::Ignore);
    }
}
