//! The patch bodies the collector sends (upstream `patch.go`): strategic merge patches that
//! delete owner references by UID or make blocking references non-blocking, and the JSON
//! merge patch fallbacks for servers that refuse strategic merge (custom resources).

use serde_json::{Value, json};

use crate::gc::graph::{OwnerRef, Uid};

/// A reference as JSON.
pub fn owner_ref_json(r: &OwnerRef) -> Value {
    let mut v = json!({"apiVersion": &*r.api_version, "kind": &*r.kind, "name": &*r.name, "uid": r.uid});
    if let Some(c) = r.controller {
        v["controller"] = json!(c);
    }
    if let Some(b) = r.block_owner_deletion {
        v["blockOwnerDeletion"] = json!(b);
    }
    v
}

/// Strategic merge patch deleting the references to `owner_uids` from the object `uid` (the
/// object's UID acts as a precondition: a mismatch is refused as an immutable-field change).
pub fn delete_owner_refs_strategic(uid: &Uid, owner_uids: &[&Uid]) -> Value {
    let refs: Vec<Value> = owner_uids.iter().map(|u| json!({"$patch": "delete", "uid": u})).collect();
    json!({"metadata": {"uid": uid, "ownerReferences": refs}})
}

/// JSON merge patch keeping every reference but those to `owner_uids`, conditional on
/// `resource_version`.
pub fn delete_owner_refs_merge(resource_version: &str, current: &[OwnerRef], owner_uids: &[&Uid]) -> Value {
    let remaining: Vec<Value> = current.iter().filter(|r| !owner_uids.contains(&&r.uid)).map(owner_ref_json).collect();
    json!({"metadata": {"resourceVersion": resource_version, "ownerReferences": remaining}})
}

/// Strategic merge patch re-sending each blocking reference with `blockOwnerDeletion: false`.
pub fn unblock_owner_refs_strategic(uid: &Uid, owners: &[OwnerRef]) -> Value {
    let refs: Vec<Value> = owners
        .iter()
        .filter(|r| r.blocks())
        .map(|r| owner_ref_json(&OwnerRef { block_owner_deletion: Some(false), ..r.clone() }))
        .collect();
    json!({"metadata": {"uid": uid, "ownerReferences": refs}})
}

/// JSON merge patch setting every reference non-blocking, conditional on `resource_version`.
pub fn unblock_owner_refs_merge(resource_version: &str, owners: &[OwnerRef]) -> Value {
    let refs: Vec<Value> = owners.iter().map(|r| owner_ref_json(&OwnerRef { block_owner_deletion: Some(false), ..r.clone() })).collect();
    json!({"metadata": {"resourceVersion": resource_version, "ownerReferences": refs}})
}

/// JSON merge patch setting the finalizer list, conditional on `resource_version`.
pub fn set_finalizers_merge(resource_version: &str, finalizers: &[String]) -> Value {
    json!({"metadata": {"resourceVersion": resource_version, "finalizers": finalizers}})
}

/// Upstream `TestDeleteOwnerRefPatch` and `TestUnblockOwnerReference`: the patch bodies applied
/// with the fake apiserver's strategic merge.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::patch::strategic_merge;

    fn reference(uid: &str, block: Option<bool>) -> OwnerRef {
        OwnerRef {
            api_version: "v1".into(),
            kind: "ReplicationController".into(),
            name: format!("rc-{uid}").into(),
            uid: uid.into(),
            controller: None,
            block_owner_deletion: block,
        }
    }

    /// A pod with UID 100 and `refs`, after `patch`.
    fn patched(refs: &[OwnerRef], patch: &Value) -> Value {
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"uid": "100", "ownerReferences": refs.iter().map(owner_ref_json).collect::<Vec<_>>()}});
        strategic_merge(&mut pod, patch).expect("a valid patch");
        pod
    }

    #[test]
    fn test_delete_owner_ref_patch() {
        let refs = [reference("1", None), reference("2", None), reference("3", None)];
        let pod = patched(&refs, &delete_owner_refs_strategic(&"100".into(), &[&"2".into(), &"3".into()]));
        assert_eq!(pod["metadata"], json!({"uid": "100", "ownerReferences": [owner_ref_json(&refs[0])]}));
    }

    #[test]
    fn test_unblock_owner_reference() {
        let refs = [reference("1", Some(true)), reference("2", Some(false)), reference("3", None)];
        let pod = patched(&refs, &unblock_owner_refs_strategic(&"100".into(), &refs));
        let expected = [reference("1", Some(false)), reference("2", Some(false)), reference("3", None)];
        assert_eq!(pod["metadata"]["ownerReferences"], json!(expected.iter().map(owner_ref_json).collect::<Vec<_>>()));
    }
}
