//! DELETE and DELETE on a collection: the request side of deletion (upstream `store.go`'s
//! `Delete` and `DeleteCollection`). What a delete does to one object is decided in steps by
//! [`crate::apiserver::deletion`]; [`DeletePlanner`] passes each step's decision through the
//! server's mutant, if any ([`crate::apiserver::mutant`]), on to the next step, and a kind with
//! a delete of its own (namespaces, CRDs) composes those steps in its hook. This file applies
//! the plan.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::apiserver::catalogue::DefaultGcPolicy;
use crate::apiserver::deletion::{
    DeleteAnswer, DeleteContext, DeleteOptions, DeletePlan, FinalizerChange, GracePeriod, PolicySources, check_preconditions, plan_delete,
};
use crate::apiserver::mutant::{Mutable, Mutant};
use crate::apiserver::selectors::Selection;
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::storage::read::{ListAt, Listed, Page};
use crate::apiserver::storage::{Scope, Storage};
use crate::apiserver::validation::string_list;

/// The answer to a DELETE: HTTP code and body.
#[derive(Clone, Debug)]
pub struct Deleted {
    /// 200, or 202 when the object stays and `orphanDependents=false` was sent.
    pub code: u16,
    /// The object (kept, or deleted where the resource returns it) or a `Status`.
    pub body: Arc<Value>,
    /// Whether the object was removed from storage.
    pub removed: bool,
}

impl Storage {
    /// Deletes object `name` with `opts`.
    pub fn delete(&mut self, scope: &Scope, name: &str, opts: &DeleteOptions) -> ApiResult<Deleted> {
        self.warn_delete(scope, opts);
        self.delete_one(scope, name, opts, Entry::Rest)
    }

    /// Deletes object `name` with `opts`, the request's warning given already, through `entry`.
    fn delete_one(&mut self, scope: &Scope, name: &str, opts: &DeleteOptions, entry: Entry) -> ApiResult<Deleted> {
        let opts = &opts.clone().mutated_by(self.mutant);
        // Admission comes before the object is read: a refused name is refused even when absent.
        if let Some(why) = self.kind(scope).forbid_delete(name) {
            return Err(ApiError::forbidden(scope.resource.qualified(), name, why));
        }
        let key = scope.request_key(name)?;
        let existing = self.store.get(&key).ok_or_else(|| ApiError::not_found(scope.resource.qualified(), name))?;
        let existing = scope.serve(existing)?;
        let ctx = DeleteContext {
            resource: &scope.resource,
            version: &scope.version,
            now: self.clock.now(),
            garbage_collection: self.garbage_collection,
        };
        check_preconditions(&existing, opts, ctx).mutated_by(self.mutant).result()?;
        let planner = DeletePlanner { opts, ctx, mutant: self.mutant };
        let plan = match entry {
            Entry::Rest => self.kind(scope).plan_delete(&existing, &planner),
            Entry::Store => planner.generic(&existing),
        };
        match plan {
            DeletePlan::Unchanged => Ok(Deleted { code: 200, body: existing, removed: false }),
            DeletePlan::LostResourceVersion => {
                let stored = existing["metadata"]["resourceVersion"].as_str().unwrap_or("");
                let failed = format!("ResourceVersion in precondition: , ResourceVersion in object meta: {stored}");
                Err(scope.precondition_failed(name, &failed))
            }
            DeletePlan::Keep(obj) => {
                let body = if opts.dry_run || obj == *existing {
                    Arc::new(obj)
                } else {
                    let stored = self.commit(key, scope.to_storage(obj)?);
                    scope.serve(&stored)?
                };
                let code = if opts.orphan_dependents == Some(false) { 202 } else { 200 };
                Ok(Deleted { code, body, removed: false })
            }
            DeletePlan::Remove | DeletePlan::WriteThenRemove(_) => {
                // What goes is what was last written: `existing`, or the graceful update.
                let last = match plan {
                    DeletePlan::WriteThenRemove(written) if !opts.dry_run => {
                        let stored = self.commit(key.clone(), scope.to_storage(written)?);
                        scope.serve(&stored)?
                    }
                    DeletePlan::WriteThenRemove(written) => Arc::new(written),
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
                    Arc::new(json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}))
                };
                Ok(Deleted { code: 200, body, removed: !opts.dry_run })
            }
        }
    }
}

/// Which DELETE an object goes through.
#[derive(Clone, Copy)]
enum Entry {
    /// The resource's own, with its kind's delete hook (a REST's `Delete`, which may wrap the
    /// store's).
    Rest,
    /// The generic store's alone: a collection delete calls `Store.Delete` on each item, never
    /// the resource's override (apiserver `registry/generic/registry/store.go`,
    /// `DeleteCollection`), so a definition deleted with its collection is not first marked.
    Store,
}

/// Plans a DELETE from the generic store's steps (upstream `rest.BeforeDelete`, the
/// finalizer update, `Store.Delete`'s ending), passing each step's decision through the
/// server's mutant on to the next. A kind's delete hook composes its own plan from them.
pub struct DeletePlanner<'a> {
    /// The delete's options.
    pub opts: &'a DeleteOptions,
    /// The resource, version and time of the delete.
    pub ctx: DeleteContext<'a>,
    /// The server's broken rule, if any.
    mutant: Option<Mutant>,
}

impl DeletePlanner<'_> {
    /// What the generic store's DELETE does to `existing` (already checked against the
    /// preconditions): its grace period, finalizer change and ending.
    pub fn generic(&self, existing: &Value) -> DeletePlan {
        let (opts, ctx) = (self.opts, self.ctx);
        let grace = GracePeriod::of(existing, opts, ctx.resource).mutated_by(self.mutant);
        let finalizers = self.finalizer_change(existing, ctx.resource.default_gc_policy(ctx.version));
        match plan_delete(existing, opts, grace, &finalizers, ctx.now) {
            Some(ending) => ending.mutated_by(self.mutant).plan(ctx.now),
            None => DeletePlan::Unchanged,
        }
    }

    /// The change the DELETE makes to the finalizers of `existing`, a resource with the
    /// `default` policy: the policy's sources and the change; none when the server runs
    /// without garbage collection.
    pub fn finalizer_change(&self, existing: &Value, default: DefaultGcPolicy) -> FinalizerChange {
        let current = string_list(&existing["metadata"], "finalizers");
        if !self.ctx.garbage_collection {
            return FinalizerChange::none(current);
        }
        let policy = PolicySources::of(self.opts, &current, default).mutated_by(self.mutant).policy();
        FinalizerChange::new(current, policy).mutated_by(self.mutant)
    }
}

impl Storage {
    /// DELETE on a collection: lists `page` (and, unless it is the `one_page` the request
    /// asked for, every page after it at the latest revision), deleting each selected item with a
    /// copy of `opts` through the generic store ([`Entry::Store`]) and ignoring items that are
    /// already gone; the first other error aborts (`Store.DeleteCollection`, k8s.io/apiserver
    /// pkg/registry/generic/registry/store.go). Returns the first page's list with every item.
    pub fn delete_collection(
        &mut self,
        scope: &Scope,
        selection: &Selection,
        mut page: Page,
        one_page: bool,
        opts: &DeleteOptions,
    ) -> ApiResult<Listed> {
        self.warn_delete(scope, opts);
        let selection = selection.clone().mutated_by(self.mutant);
        let mut whole: Option<Listed> = None;
        loop {
            let listed = self.list(scope, &selection, &page)?;
            for item in &listed.items {
                let name = item["metadata"]["name"].as_str().unwrap_or("");
                // Each item is deleted in the request's namespace: across every namespace (an
                // empty one in the path) the first delete has no key.
                match self.delete_one(scope, name, opts, Entry::Store) {
                    Ok(_) => {}
                    Err(e) if e.code == 404 => {}
                    Err(e) => return Err(e),
                }
            }
            let next = listed.continue_token.clone();
            match whole.as_mut() {
                None => whole = Some(listed),
                Some(first) => first.items.extend(listed.items),
            }
            match next {
                Some(token) if !one_page => page = Page { continue_token: Some(token), at: ListAt::Latest, ..page },
                _ => return Ok(whole.expect("one page was listed")),
            }
        }
    }

    /// Adds the warning the kind gives a DELETE with `opts`, if any (before anything is read:
    /// a request for an absent object is warned too).
    fn warn_delete(&self, scope: &Scope, opts: &DeleteOptions) {
        if let Some(text) = self.kind(scope).delete_warning(opts, scope.resource.default_gc_policy(&scope.version)) {
            crate::apiserver::warning::add(text);
        }
    }
}
