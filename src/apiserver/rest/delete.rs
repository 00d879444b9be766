//! DELETE and DELETE on a collection: the request side of deletion (catalogue B.3). What a
//! delete does to one object is decided in steps by [`crate::apiserver::deletion`]; this file
//! passes each step's decision through the server's mutant, if any, on to the next step
//! ([`crate::apiserver::mutant`]), and applies the plan, with the special cases of namespaces
//! and CRDs.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::apiserver::crd::CLEANUP_FINALIZER;
use crate::apiserver::deletion::{
    DeleteAnswer, DeleteContext, DeleteOptions, DeletePlan, FinalizerChange, GracePeriod, PolicySources, check_preconditions, plan_delete,
};
use crate::apiserver::mutant::Mutable;
use crate::apiserver::registry::DefaultGcPolicy;
use crate::apiserver::state::{Scope, State};
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::validation::string_list;
use crate::clock::format_time;

/// The answer to a DELETE: HTTP code and body.
#[derive(Clone, Debug)]
pub struct Deleted {
    /// 200, or 202 when the object stays and `orphanDependents=false` was sent.
    pub code: u16,
    /// The object (kept, or deleted where the resource returns it) or a `Status`.
    pub body: Value,
    /// Whether the object was removed from storage.
    pub removed: bool,
}

impl State {
    /// Deletes object `name` with `opts`.
    pub fn delete(&mut self, scope: &Scope, name: &str, opts: &DeleteOptions) -> ApiResult<Deleted> {
        let opts = &opts.clone().mutated_by(self.mutant);
        let key = scope.key(name);
        let existing = self.store.get(&key).cloned().ok_or_else(|| ApiError::not_found(scope.resource.qualified(), name))?;
        let existing = scope.present(&existing)?;
        let ctx = DeleteContext {
            resource: &scope.resource,
            version: &scope.version,
            now: self.clock.now(),
            garbage_collection: self.garbage_collection,
        };
        check_preconditions(&existing, opts, ctx).mutated_by(self.mutant).result()?;
        let plan = if scope.is_namespaces() {
            plan_namespace_delete(&existing, &self.finalizer_change(&existing, opts, DefaultGcPolicy::DeleteDependents, ctx), ctx.now)
        } else if scope.is_crds() && existing["metadata"]["deletionTimestamp"].is_null() {
            let mut with_cleanup = existing.clone();
            let mut finalizers = string_list(&existing["metadata"], "finalizers");
            if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
                finalizers.push(CLEANUP_FINALIZER.into());
            }
            with_cleanup["metadata"]["finalizers"] = json!(finalizers);
            self.plan(&with_cleanup, opts, ctx)
        } else {
            self.plan(&existing, opts, ctx)
        };
        match plan {
            DeletePlan::Unchanged => Ok(Deleted { code: 200, body: existing, removed: false }),
            DeletePlan::LostResourceVersion => {
                let stored = existing["metadata"]["resourceVersion"].as_str().unwrap_or("");
                let r = &scope.resource;
                let path = if r.group.is_empty() || !r.custom { r.plural.clone() } else { format!("{}/{}", r.group, r.plural) };
                let namespace = scope.namespace.as_deref().map(|n| format!("{n}/")).unwrap_or_default();
                let detail = format!(
                    "StorageError: invalid object, Code: 4, Key: /registry/{path}/{namespace}{name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: {stored}"
                );
                Err(ApiError::conflict(r.qualified(), name, &detail))
            }
            DeletePlan::Keep(obj) => {
                let body = if opts.dry_run || obj == existing {
                    obj
                } else {
                    let stored = self.commit(key, scope.to_storage(obj)?);
                    scope.present(&stored)?
                };
                let code = if opts.orphan_dependents == Some(false) { 202 } else { 200 };
                Ok(Deleted { code, body, removed: false })
            }
            DeletePlan::Remove | DeletePlan::WriteThenRemove(_) => {
                // What goes is what was last written: `existing`, or the graceful update.
                let last = match plan {
                    DeletePlan::WriteThenRemove(written) if !opts.dry_run => {
                        let stored = self.commit(key.clone(), scope.to_storage(written)?);
                        scope.present(&stored)?
                    }
                    DeletePlan::WriteThenRemove(written) => written,
                    _ => existing,
                };
                if !opts.dry_run {
                    self.remove(&key).expect("present under lock");
                }
                let body = if DeleteAnswer::of(&scope.resource).mutated_by(self.mutant) == DeleteAnswer::Object {
                    last
                } else {
                    let mut details = json!({"name": name, "kind": scope.resource.plural, "uid": last["metadata"]["uid"]});
                    if !scope.resource.group.is_empty() {
                        details["group"] = json!(scope.resource.group);
                    }
                    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details})
                };
                Ok(Deleted { code: 200, body, removed: !opts.dry_run })
            }
        }
    }

    /// What a DELETE with `opts` does to `existing` (already checked against the preconditions):
    /// its grace period, finalizer change and ending, each as the server's mutant makes it.
    fn plan(&self, existing: &Value, opts: &DeleteOptions, ctx: DeleteContext<'_>) -> DeletePlan {
        let grace = GracePeriod::of(existing, opts, ctx.resource).mutated_by(self.mutant);
        let finalizers = self.finalizer_change(existing, opts, ctx.resource.default_gc_policy(ctx.version), ctx);
        match plan_delete(existing, opts, grace, &finalizers, ctx.now) {
            Some(ending) => ending.mutated_by(self.mutant).plan(ctx.now),
            None => DeletePlan::Unchanged,
        }
    }

    /// The change a DELETE with `opts` makes to the finalizers of `existing`, a resource with the
    /// `default` policy: the policy's sources and the change as the server's mutant makes them;
    /// none when the server runs without garbage collection.
    fn finalizer_change(
        &self,
        existing: &Value,
        opts: &DeleteOptions,
        default: DefaultGcPolicy,
        ctx: DeleteContext<'_>,
    ) -> FinalizerChange {
        let current = string_list(&existing["metadata"], "finalizers");
        if !ctx.garbage_collection {
            return FinalizerChange::none(current);
        }
        let policy = PolicySources::of(opts, &current, default).mutated_by(self.mutant).policy();
        FinalizerChange::new(current, policy).mutated_by(self.mutant)
    }
}

/// The namespace registry's own Delete: the first request only starts termination (phase
/// `Terminating`, deletionTimestamp, GC finalizers from the options); once the namespace
/// controller has emptied `spec.finalizers`, a delete goes the generic way.
fn plan_namespace_delete(existing: &Value, finalizers: &FinalizerChange, now: DateTime<Utc>) -> DeletePlan {
    let meta = &existing["metadata"];
    if meta["deletionTimestamp"].is_null() {
        let mut obj = existing.clone();
        obj["metadata"]["deletionTimestamp"] = json!(format_time(now));
        obj["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        obj["status"]["phase"] = json!("Terminating");
        if finalizers.changed() {
            obj["metadata"]["finalizers"] = json!(finalizers.new);
        }
        return DeletePlan::Keep(obj);
    }
    if !string_list(&existing["spec"], "finalizers").is_empty() {
        return DeletePlan::Unchanged;
    }
    if finalizers.new.is_empty() {
        return DeletePlan::Remove;
    }
    let mut obj = existing.clone();
    if finalizers.changed() {
        obj["metadata"]["finalizers"] = json!(finalizers.new);
    }
    DeletePlan::Keep(obj)
}

impl State {
    /// DELETE on a collection: deletes each selected item with a copy of `opts`, ignoring items
    /// that are already gone; the first other error aborts. Returns the items as listed
    /// (catalogue B.3 row 25).
    pub fn delete_collection(
        &mut self,
        scope: &Scope,
        selection: &crate::apiserver::rest::read::Selection,
        query: &crate::apiserver::request::Query,
        opts: &DeleteOptions,
    ) -> ApiResult<crate::apiserver::rest::read::Listed> {
        let selection = selection.clone().mutated_by(self.mutant);
        let listed = self.list(scope, &selection, query)?;
        for item in &listed.items {
            let name = item["metadata"]["name"].as_str().unwrap_or("");
            let item_scope = Scope { namespace: item["metadata"]["namespace"].as_str().map(String::from), ..scope.clone() };
            match self.delete(&item_scope, name, opts) {
                Ok(_) => {}
                Err(e) if e.code == 404 => {}
                Err(e) => return Err(e),
            }
        }
        Ok(listed)
    }
}
