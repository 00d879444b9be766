//! `POST pods/{name}/binding`: a scheduler binds a pod to a node (kubernetes
//! pkg/registry/core/pod/storage/storage.go, `BindingREST.Create` and `setPodNodeAndMetadata`).
//! The write goes straight to storage, past the pod's strategy and field management: the pod
//! gets its node, the binding's annotations and labels, and a true `PodScheduled` condition.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::apiserver::catalogue::ResourceInfo;
use crate::apiserver::status::{ApiError, ApiResult, FieldError, QualifiedResource};
use crate::apiserver::storage::create::{check_namespace, check_type};
use crate::apiserver::storage::{Scope, Storage};
use crate::clock::format_time;

/// The resource conflicts of a binding are reported on.
const BINDING: QualifiedResource<'static> = QualifiedResource { group: "", resource: "pods/binding" };

/// What `ValidatePodBinding` (kubernetes pkg/apis/core/validation/validation.go) refuses: a
/// target of another kind than a Node, and a target without a name.
fn binding_errors(binding: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let kind = binding["target"]["kind"].as_str().unwrap_or("");
    if !kind.is_empty() && kind != "Node" {
        errs.push(FieldError::not_supported("target.kind", json!(kind), &["Node", "<empty>"]));
    }
    if binding["target"]["name"].as_str().unwrap_or("").is_empty() {
        errs.push(FieldError::required("target.name", ""));
    }
    errs
}

impl Storage {
    /// Binds pod `name` in `scope` as `binding` (a `v1 Binding`) says; `dry_run` checks without
    /// writing. Answers the `Status` upstream answers.
    pub fn bind(&mut self, scope: &Scope, name: &str, mut binding: Value, dry_run: bool) -> ApiResult<Value> {
        let as_binding =
            Scope { resource: Arc::new(ResourceInfo { kind: "Binding".into(), ..(*scope.resource).clone() }), ..scope.clone() };
        check_type(&as_binding, &mut binding)?;
        if binding.get("metadata").is_none() {
            binding["metadata"] = json!({});
        }
        check_namespace(&as_binding, &mut binding)?;
        if binding["metadata"]["name"].as_str().unwrap_or("") != name {
            return Err(ApiError::bad_request("name in URL does not match name in Binding object"));
        }
        // A validation error is no `Status`: upstream answers it as an unknown error.
        let errs = binding_errors(&binding);
        if !errs.is_empty() {
            return Err(ApiError::unknown(FieldError::aggregate(&errs)));
        }
        let key = scope.request_key(name)?;
        let stored = self.store.get(&key).ok_or_else(|| ApiError::not_found(scope.resource.qualified(), name))?;
        let mut pod = scope.present(stored)?;
        // The binding's uid and resourceVersion are the update's preconditions.
        let meta = &binding["metadata"];
        for (field, label) in [("uid", "UID"), ("resourceVersion", "ResourceVersion")] {
            let (wanted, held) = (meta[field].as_str().unwrap_or(""), pod["metadata"][field].as_str().unwrap_or(""));
            if !wanted.is_empty() && wanted != held {
                let failed = format!("{label} in precondition: {wanted}, {label} in object meta: {held}");
                return Err(scope.precondition_failed(name, &failed));
            }
        }
        let refused = if !pod["metadata"]["deletionTimestamp"].is_null() {
            Some(format!("pod {name} is being deleted, cannot be assigned to a host"))
        } else if let Some(node) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
            Some(format!("pod {name} is already assigned to node {node:?}"))
        } else if pod["spec"]["schedulingGates"].as_array().is_some_and(|g| !g.is_empty()) {
            Some(format!("pod {name} has non-empty .spec.schedulingGates"))
        } else {
            None
        };
        if let Some(why) = refused {
            return Err(ApiError::conflict(BINDING, name, &why));
        }
        pod["spec"]["nodeName"] = binding["target"]["name"].clone();
        for field in ["annotations", "labels"] {
            if let Some(given) = meta[field].as_object().filter(|m| !m.is_empty()) {
                if !pod["metadata"][field].is_object() {
                    pod["metadata"][field] = json!({});
                }
                for (k, v) in given {
                    pod["metadata"][field][k] = v.clone();
                }
            }
        }
        scheduled(&mut pod["status"], &format_time(self.clock.now()));
        if !dry_run {
            let stored = scope.to_storage(pod)?;
            self.commit(key, stored);
        }
        Ok(json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}))
    }
}

/// Sets the pod's `PodScheduled` condition true as `UpdatePodCondition` does (kubernetes
/// pkg/api/pod/util.go): the condition is replaced whole, its transition time kept while
/// its status stays.
fn scheduled(status: &mut Value, now: &str) {
    if !status["conditions"].is_array() {
        status["conditions"] = json!([]);
    }
    let conditions = status["conditions"].as_array_mut().expect("made an array");
    let mut condition = json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": now});
    match conditions.iter_mut().find(|c| c["type"] == "PodScheduled") {
        Some(old) => {
            if old["status"] == "True" {
                condition["lastTransitionTime"] = old["lastTransitionTime"].clone();
            }
            *old = condition;
        }
        None => conditions.push(condition),
    }
}
