//! The patch bodies the collector sends (upstream `patch.go`): strategic merge patches that
//! delete owner references by UID or make blocking references non-blocking, and the JSON
//! merge patch fallbacks for servers that refuse strategic merge (custom resources).

use serde_json::{Value, json};

use crate::gc::graph::OwnerRef;

/// A reference as JSON.
pub fn owner_ref_json(r: &OwnerRef) -> Value {
    let mut v = json!({"apiVersion": &*r.api_version, "kind": &*r.kind, "name": &*r.name, "uid": &*r.uid});
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
pub fn delete_owner_refs_strategic(uid: &str, owner_uids: &[&str]) -> Value {
    let refs: Vec<Value> = owner_uids.iter().map(|u| json!({"$patch": "delete", "uid": u})).collect();
    json!({"metadata": {"uid": uid, "ownerReferences": refs}})
}

/// JSON merge patch keeping every reference but those to `owner_uids`, conditional on
/// `resource_version`.
pub fn delete_owner_refs_merge(resource_version: &str, current: &[OwnerRef], owner_uids: &[&str]) -> Value {
    let remaining: Vec<Value> = current.iter().filter(|r| !owner_uids.contains(&&*r.uid)).map(owner_ref_json).collect();
    json!({"metadata": {"resourceVersion": resource_version, "ownerReferences": remaining}})
}

/// Strategic merge patch re-sending each blocking reference with `blockOwnerDeletion: false`.
pub fn unblock_owner_refs_strategic(uid: &str, owners: &[OwnerRef]) -> Value {
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
