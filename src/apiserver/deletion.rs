//! The apiserver's half of garbage collection: what a DELETE does to an object.
//!
//! Pure functions of the stored object, the `DeleteOptions` and the resource's rules, mirroring
//! upstream `registry/rest/delete.go` (`BeforeDelete`) and `generic/registry/store.go`
//! (`Delete`, `deletionFinalizersForGarbageCollection`, `markAsDeleting`): how a delete's GC
//! policy is chosen, each resource's default policy, and what a request does to the object. A
//! delete is planned in steps, each ending in a value (a decision) that the DELETE verb's
//! planner ([`crate::apiserver::storage::delete::DeletePlanner`]) hands to the next; between
//! the two is where a mutant may change it ([`crate::apiserver::mutant`]); nothing here knows
//! of mutants.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

use crate::apiserver::catalogue::{DefaultGcPolicy, ResourceInfo};
use crate::apiserver::status::{ApiError, ApiResult, FieldError, FieldErrorKind, QualifiedResource};
use crate::apiserver::validation::string_list;
use crate::clock::{format_time, parse_time};
use crate::metadata::{FINALIZER_FOREGROUND, FINALIZER_ORPHAN};

/// `DeleteOptions.propagationPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Propagation {
    /// Dependents are orphaned: the `orphan` finalizer.
    Orphan,
    /// Dependents are deleted after the owner, by the garbage collector.
    Background,
    /// Dependents are deleted before the owner: the `foregroundDeletion` finalizer.
    Foreground,
}

/// The parts of `metav1.DeleteOptions` that deletion depends on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeleteOptions {
    /// `propagationPolicy`.
    pub propagation: Option<Propagation>,
    /// Deprecated `orphanDependents`.
    pub orphan_dependents: Option<bool>,
    /// `gracePeriodSeconds`.
    pub grace_period_seconds: Option<i64>,
    /// `preconditions.uid`.
    pub precondition_uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub precondition_resource_version: Option<String>,
    /// `dryRun: [All]`.
    pub dry_run: bool,
}

fn options_invalid(errors: Vec<FieldError>) -> ApiError {
    ApiError::invalid("meta.k8s.io", "DeleteOptions", "", errors)
}

/// Reads `dryRun` (keeping the error a request with another value gets).
pub fn parse_dry_run(values: &[&str]) -> Result<bool, FieldError> {
    match values {
        [] => Ok(false),
        ["All"] => Ok(true),
        other => Err(FieldError::new(FieldErrorKind::NotSupported, "dryRun", Some(json!(other)), "supported values: \"All\"")),
    }
}

/// `DeleteOptions` as a request gives them, before validation: a field the server cannot take
/// still holds its error.
#[derive(Clone, Debug, PartialEq)]
pub struct DeleteRequest {
    /// `propagationPolicy`.
    pub propagation: Result<Option<Propagation>, FieldError>,
    /// Deprecated `orphanDependents`.
    pub orphan_dependents: Option<bool>,
    /// `gracePeriodSeconds`.
    pub grace_period_seconds: ApiResult<Option<i64>>,
    /// `preconditions.uid`.
    pub precondition_uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub precondition_resource_version: Option<String>,
    /// `dryRun`.
    pub dry_run: Result<bool, FieldError>,
}

impl DeleteRequest {
    /// Validates the options as upstream's delete handler does: a field it could not decode is
    /// a 400; then every rule they break, listed in one 422 (`ValidateDeleteOptions`,
    /// k8s.io/apimachinery pkg/apis/meta/v1/validation): `orphanDependents` set with
    /// `propagationPolicy`, a policy it does not know, a `dryRun` other than `All`.
    pub fn validate(self) -> ApiResult<DeleteOptions> {
        let grace_period_seconds = self.grace_period_seconds?;
        let mut errors = Vec::new();
        let policy = match &self.propagation {
            Ok(policy) => policy.map(|p| json!(format!("{p:?}"))),
            Err(unsupported) => unsupported.value.clone(),
        };
        if let (Some(_), Some(policy)) = (self.orphan_dependents, policy) {
            errors.push(FieldError::invalid("propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"));
        }
        let propagation = self.propagation.unwrap_or_else(|e| {
            errors.push(e);
            None
        });
        let dry_run = self.dry_run.unwrap_or_else(|e| {
            errors.push(e);
            false
        });
        if !errors.is_empty() {
            return Err(options_invalid(errors));
        }
        Ok(DeleteOptions {
            propagation,
            orphan_dependents: self.orphan_dependents,
            grace_period_seconds,
            precondition_uid: self.precondition_uid,
            precondition_resource_version: self.precondition_resource_version,
            dry_run,
        })
    }
}

/// Reads `propagationPolicy` (keeping the error a request with another value gets).
pub fn parse_policy(v: Option<&str>) -> Result<Option<Propagation>, FieldError> {
    match v {
        None => Ok(None),
        Some("Orphan") => Ok(Some(Propagation::Orphan)),
        Some("Background") => Ok(Some(Propagation::Background)),
        Some("Foreground") => Ok(Some(Propagation::Foreground)),
        Some(other) => Err(FieldError::new(
            FieldErrorKind::NotSupported,
            "propagationPolicy",
            Some(json!(other)),
            "supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
        )),
    }
}

/// What chooses the GC policy of a delete, strongest first (upstream
/// `shouldOrphanDependents` and `shouldDeleteDependents`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicySources {
    /// What the deprecated `orphanDependents` says: `true` orphans, `false` does not, which
    /// leaves the dependents to background deletion.
    pub orphan_dependents: Option<Propagation>,
    /// `propagationPolicy`.
    pub propagation: Option<Propagation>,
    /// What the first GC finalizer already on the object says.
    pub finalizers: Option<Propagation>,
    /// The resource's default (upstream `DefaultGarbageCollectionPolicy`).
    pub default: DefaultGcPolicy,
}

impl PolicySources {
    /// The sources of a delete with `opts` of an object with `finalizers`.
    pub fn of(opts: &DeleteOptions, finalizers: &[String], default: DefaultGcPolicy) -> Self {
        let by_finalizer = finalizers.iter().find_map(|f| match f.as_str() {
            FINALIZER_ORPHAN => Some(Propagation::Orphan),
            FINALIZER_FOREGROUND => Some(Propagation::Foreground),
            _ => None,
        });
        Self {
            orphan_dependents: opts.orphan_dependents.map(|o| if o { Propagation::Orphan } else { Propagation::Background }),
            propagation: opts.propagation,
            finalizers: by_finalizer,
            default,
        }
    }

    /// The policy of the delete: the strongest source's; `None` for a resource that never gets
    /// GC finalizers, whatever the options.
    pub fn policy(self) -> Option<Propagation> {
        let default = match self.default {
            DefaultGcPolicy::Unsupported => return None,
            DefaultGcPolicy::OrphanDependents => Propagation::Orphan,
            DefaultGcPolicy::DeleteDependents => Propagation::Background,
        };
        Some(self.orphan_dependents.or(self.propagation).or(self.finalizers).unwrap_or(default))
    }
}

/// A delete's change of the finalizer list (upstream `deletionFinalizersForGarbageCollection`).
#[derive(Clone, Debug, PartialEq)]
pub struct FinalizerChange {
    /// The list before the delete.
    pub current: Vec<String>,
    /// The list after it.
    pub new: Vec<String>,
}

impl FinalizerChange {
    /// The change a delete with `policy` makes: GC finalizers are stripped, other finalizers
    /// keep their order, then the policy's GC finalizer (if any) is appended.
    pub fn new(current: Vec<String>, policy: Option<Propagation>) -> Self {
        let mut new: Vec<String> = current.iter().filter(|f| *f != FINALIZER_ORPHAN && *f != FINALIZER_FOREGROUND).cloned().collect();
        match policy {
            Some(Propagation::Orphan) => new.push(FINALIZER_ORPHAN.into()),
            Some(Propagation::Foreground) => new.push(FINALIZER_FOREGROUND.into()),
            Some(Propagation::Background) | None => {}
        }
        Self { current, new }
    }

    /// No change: the server runs with garbage collection disabled (the upstream store's
    /// `EnableGarbageCollection` is off).
    pub fn none(current: Vec<String>) -> Self {
        Self { new: current.clone(), current }
    }

    /// Whether the list changed as a set: only then is the new list written.
    pub fn changed(&self) -> bool {
        let as_set = |l: &[String]| l.iter().cloned().collect::<BTreeSet<_>>();
        as_set(&self.new) != as_set(&self.current)
    }
}

/// What a DELETE does to the stored object.
#[derive(Clone, Debug, PartialEq)]
pub enum DeletePlan {
    /// Remove the object from storage now.
    Remove,
    /// Write the object as given (a graceful deletion with no grace left: deletionTimestamp,
    /// grace period 0, generation bumped), then remove it; the answer is what was written.
    WriteThenRemove(Value),
    /// Keep the object, written as given (deletionTimestamp, grace period, finalizers set).
    Keep(Value),
    /// Graceful deletion is already pending: nothing changes (upstream `rest.BeforeDelete`'s
    /// `pendingGraceful`).
    Unchanged,
    /// The removal fails and nothing changes: the object (deleted without grace) had finalizers,
    /// none of which is left pending, and the caller gave a resourceVersion precondition.
    /// Upstream's store (`Store.Delete`) looks at the finalizers in an update that decides on
    /// removal at once and so writes nothing; it then checks the precondition again against
    /// that update's result, whose resourceVersion is empty, and the removal always conflicts.
    LostResourceVersion,
}

/// The verdict of the precondition check (upstream `rest.BeforeDelete`).
#[derive(Clone, Debug, PartialEq)]
pub struct PreconditionCheck {
    /// The conflict of a precondition that fails.
    pub conflict: Option<ApiError>,
}

impl PreconditionCheck {
    /// The verdict as the DELETE takes it: a conflict fails the request.
    pub fn result(self) -> ApiResult<()> {
        self.conflict.map_or(Ok(()), Err)
    }
}

/// Checks `preconditions.uid` and `preconditions.resourceVersion` (upstream `rest.BeforeDelete`).
pub fn check_preconditions(existing: &Value, opts: &DeleteOptions, ctx: DeleteContext<'_>) -> PreconditionCheck {
    PreconditionCheck { conflict: preconditions_hold(existing, opts, ctx.resource).err() }
}

fn preconditions_hold(existing: &Value, opts: &DeleteOptions, resource: &ResourceInfo) -> ApiResult<()> {
    // Upstream's rest.BeforeDelete names the kind where other conflicts name the resource.
    let by_kind = QualifiedResource { group: &resource.group, resource: &resource.kind };
    let meta = &existing["metadata"];
    let name = meta["name"].as_str().unwrap_or("");
    if let Some(uid) = &opts.precondition_uid {
        let stored = meta["uid"].as_str().unwrap_or("");
        if uid != stored {
            return Err(ApiError::conflict(
                by_kind,
                name,
                &format!(
                    "the UID in the precondition ({uid}) does not match the UID in record ({stored}). The object might have been deleted and then recreated"
                ),
            ));
        }
    }
    if let Some(rv) = &opts.precondition_resource_version {
        let stored = meta["resourceVersion"].as_str().unwrap_or("");
        if rv != stored {
            return Err(ApiError::conflict(
                by_kind,
                name,
                &format!(
                    "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({stored}). The object might have been modified"
                ),
            ));
        }
    }
    Ok(())
}

/// What decides the grace period of a delete that starts graceful deletion (upstream
/// `rest.BeforeDelete` with the pod strategy's `CheckGracefulDelete`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GracePeriod {
    /// Whether the resource is deleted gracefully at all (pods).
    pub graceful: bool,
    /// `gracePeriodSeconds`.
    pub requested: Option<i64>,
    /// The pod's `spec.terminationGracePeriodSeconds`.
    pub default: Option<i64>,
    /// The pod runs nowhere (it is unscheduled, or terminated): it goes without grace.
    pub not_running: bool,
}

impl GracePeriod {
    /// The inputs of a delete with `opts` of `object`, a `resource`.
    pub fn of(object: &Value, opts: &DeleteOptions, resource: &ResourceInfo) -> Self {
        Self {
            graceful: resource.graceful,
            requested: opts.grace_period_seconds,
            default: object["spec"]["terminationGracePeriodSeconds"].as_i64(),
            not_running: object["spec"]["nodeName"].as_str().unwrap_or("").is_empty()
                || matches!(object["status"]["phase"].as_str(), Some("Succeeded" | "Failed")),
        }
    }

    /// The grace period in seconds; `None` for a resource deleted without grace.
    pub fn seconds(self) -> Option<i64> {
        if !self.graceful {
            return None;
        }
        let period = if self.not_running { 0 } else { self.requested.or(self.default).unwrap_or(0) };
        Some(if period < 0 { 1 } else { period })
    }
}

fn bump_generation(meta: &mut Value) {
    if let Some(g) = meta["generation"].as_i64().filter(|g| *g > 0) {
        meta["generation"] = json!(g + 1);
    }
}

/// Where and when a DELETE happens: the resource and version it was made at, the time, and
/// whether the server manages GC finalizers at all.
#[derive(Clone, Copy, Debug)]
pub struct DeleteContext<'a> {
    /// The resource.
    pub resource: &'a ResourceInfo,
    /// The version the request was made at (the default GC policy depends on it).
    pub version: &'a str,
    /// The time of the request.
    pub now: DateTime<Utc>,
    /// `false` when the server runs with garbage collection disabled (the upstream store's
    /// `EnableGarbageCollection`).
    pub garbage_collection: bool,
}

/// How a delete ends once `rest.BeforeDelete` and the finalizer update are done (upstream
/// `Store.Delete`): the facts its last step goes by.
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    /// The object as `BeforeDelete` and the finalizer update leave it.
    pub object: Value,
    /// The grace period a graceful deletion leaves; `None` when the delete is not graceful.
    pub grace: Option<i64>,
    /// Whether finalizers are left, which the object waits for.
    pub pending_finalizers: bool,
    /// Whether a removal loses the resourceVersion precondition
    /// ([`DeletePlan::LostResourceVersion`]).
    pub loses_resource_version: bool,
    /// Whether `markAsDeleting` keeps the object's deletionTimestamp, one earlier than now.
    pub keeps_timestamp: bool,
}

/// Plans a DELETE of `existing` (already checked against the preconditions) with `opts`, a
/// graceful deletion with `grace` and the finalizer change `finalizers`, up to its [`Ending`];
/// `None` when graceful deletion is already pending and nothing changes (upstream
/// `rest.BeforeDelete`'s `pendingGraceful`).
pub fn plan_delete(
    existing: &Value,
    opts: &DeleteOptions,
    grace: GracePeriod,
    finalizers: &FinalizerChange,
    now: DateTime<Utc>,
) -> Option<Ending> {
    let mut obj = existing.clone();
    let meta = &mut obj["metadata"];
    let deletion_ts = meta["deletionTimestamp"].as_str().and_then(parse_time);
    let opt_grace = opts.grace_period_seconds.map(|g| g.max(if g < 0 { 1 } else { 0 }));

    // rest.BeforeDelete: the graceful computation.
    let graceful = if let Some(ts) = deletion_ts {
        match meta["deletionGracePeriodSeconds"].as_i64() {
            None | Some(0) => false,
            Some(current) => match opt_grace {
                Some(p) if p < current => {
                    let shortened = ts - Duration::seconds(current) + Duration::seconds(p);
                    meta["deletionTimestamp"] = json!(format_time(shortened));
                    meta["deletionGracePeriodSeconds"] = json!(p);
                    true
                }
                _ => return None,
            },
        }
    } else if let Some(grace) = grace.seconds() {
        meta["deletionTimestamp"] = json!(format_time(now + Duration::seconds(grace)));
        meta["deletionGracePeriodSeconds"] = json!(grace);
        bump_generation(meta);
        true
    } else {
        false
    };

    // deletionFinalizersForGarbageCollection.
    let changed = finalizers.changed();
    if changed {
        meta["finalizers"] = json!(finalizers.new);
        if finalizers.new.is_empty() {
            meta.as_object_mut().expect("metadata is an object").remove("finalizers");
        }
    }
    let looked_at_finalizers = changed || !finalizers.current.is_empty();
    Some(Ending {
        grace: graceful.then(|| meta["deletionGracePeriodSeconds"].as_i64().unwrap_or(0)),
        pending_finalizers: !finalizers.new.is_empty(),
        loses_resource_version: looked_at_finalizers && opts.precondition_resource_version.is_some(),
        keeps_timestamp: deletion_ts.is_some_and(|ts| ts <= now),
        object: obj,
    })
}

impl Ending {
    /// What the DELETE does to the stored object.
    pub fn plan(self, now: DateTime<Utc>) -> DeletePlan {
        let mut obj = self.object;
        if let Some(grace) = self.grace {
            return if grace == 0 && !self.pending_finalizers { DeletePlan::WriteThenRemove(obj) } else { DeletePlan::Keep(obj) };
        }
        if !self.pending_finalizers {
            return if self.loses_resource_version { DeletePlan::LostResourceVersion } else { DeletePlan::Remove };
        }
        // markAsDeleting: first deletion bumps generation; an earlier timestamp is kept.
        let meta = &mut obj["metadata"];
        if meta["deletionTimestamp"].as_str().and_then(parse_time).is_none() {
            bump_generation(meta);
        }
        if !self.keeps_timestamp {
            meta["deletionTimestamp"] = json!(format_time(now));
        }
        meta["deletionGracePeriodSeconds"] = json!(0);
        DeletePlan::Keep(obj)
    }
}

/// What a DELETE that removes the object answers with (upstream `ReturnDeletedObject`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteAnswer {
    /// The object as it was last written.
    Object,
    /// A `Status` naming the object.
    Status,
}

impl DeleteAnswer {
    /// The answer of `resource`'s DELETE.
    pub fn of(resource: &ResourceInfo) -> Self {
        if resource.returns_deleted_object { Self::Object } else { Self::Status }
    }
}

/// What becomes of an object an update leaves (upstream `ShouldDeleteDuringUpdate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterUpdate {
    /// It is stored.
    Stored,
    /// It is removed at once: it is being deleted with no grace period or one of 0 (a
    /// definition's or a namespace's own delete sets none), and no finalizers are left: of a
    /// namespace, neither in its metadata nor in its spec
    /// (pkg/registry/core/namespace/storage/storage.go, `ShouldDeleteNamespaceDuringUpdate`).
    Removed,
}

/// What becomes of `updated` (see [`AfterUpdate`]).
pub fn after_update(updated: &Value) -> AfterUpdate {
    let meta = &updated["metadata"];
    let namespace = updated["kind"] == "Namespace" && updated["apiVersion"] == "v1";
    let namespace_finalized = !namespace || string_list(&updated["spec"], "finalizers").is_empty();
    let gone = !meta["deletionTimestamp"].is_null()
        && meta["deletionGracePeriodSeconds"].as_i64().is_none_or(|g| g == 0)
        && string_list(meta, "finalizers").is_empty()
        && namespace_finalized;
    if gone { AfterUpdate::Removed } else { AfterUpdate::Stored }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::catalogue::Catalogue;

    fn fins(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn finalizers_are_rebuilt_with_gc_finalizers_appended() {
        let opts = DeleteOptions { propagation: Some(Propagation::Foreground), ..Default::default() };
        let current = fins(&["orphan", "a/b", "c/d"]);
        let policy = PolicySources::of(&opts, &current, DefaultGcPolicy::DeleteDependents).policy();
        let change = FinalizerChange::new(current, policy);
        assert!(change.changed());
        assert_eq!(change.new, fins(&["a/b", "c/d", "foregroundDeletion"]));
    }

    #[test]
    fn pending_graceful_pod_is_unchanged() {
        let reg = Catalogue::new();
        let pods = reg.lookup("", "v1", "pods").unwrap();
        let pod = json!({"metadata": {"name": "p", "deletionTimestamp": "2030-01-01T00:00:30Z", "deletionGracePeriodSeconds": 30},
            "spec": {"nodeName": "n"}});
        let now = parse_time("2030-01-01T00:00:00Z").unwrap();
        let opts = DeleteOptions::default();
        let grace = GracePeriod::of(&pod, &opts, &pods);
        assert_eq!(plan_delete(&pod, &opts, grace, &FinalizerChange::none(Vec::new()), now), None);
    }
}
