//! The apiserver's half of garbage collection: what a DELETE does to an object.
//!
//! Pure functions of the stored object, the `DeleteOptions` and the resource's rules, mirroring
//! upstream `registry/rest/delete.go` (`BeforeDelete`) and `generic/registry/store.go`
//! (`Delete`, `deletionFinalizersForGarbageCollection`, `markAsDeleting`): catalogue sections
//! B.1 (policy resolution), B.2 (per-resource defaults) and B.3 (request → object state).

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

use crate::apiserver::catalogue::{DefaultGcPolicy, ResourceInfo};
use crate::apiserver::http::request::Query;
use crate::apiserver::mutant::Mutant;
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

fn parse_dry_run(values: &[&str]) -> ApiResult<bool> {
    match values {
        [] => Ok(false),
        ["All"] => Ok(true),
        other => Err(options_invalid(vec![FieldError::new(
            FieldErrorKind::NotSupported,
            "dryRun",
            Some(json!(other)),
            "supported values: \"All\"",
        )])),
    }
}

impl DeleteOptions {
    /// Reads the options from a request body if it has one, else from the query parameters,
    /// as the upstream DELETE handler does; then validates them (catalogue B.1 "Conflicts"),
    /// unless the server's `mutant` skips that.
    pub fn from_request(body: &[u8], query: &Query, mutant: Option<Mutant>) -> ApiResult<Self> {
        let lenient = mutant == Some(Mutant::AcceptInvalidDeleteOptions);
        let parse_policy = |v| parse_policy(v).or_else(|e| if lenient { Ok(None) } else { Err(e) });
        let parse_dry_run = |v: &[&str]| parse_dry_run(v).or_else(|e| if lenient { Ok(false) } else { Err(e) });
        let opts = if body.iter().any(|b| !b.is_ascii_whitespace()) {
            let v: Value = serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")))?;
            let dry: Vec<&str> = v["dryRun"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            Self {
                propagation: parse_policy(v["propagationPolicy"].as_str())?,
                orphan_dependents: v["orphanDependents"].as_bool(),
                grace_period_seconds: v["gracePeriodSeconds"].as_i64(),
                precondition_uid: v["preconditions"]["uid"].as_str().map(String::from),
                precondition_resource_version: v["preconditions"]["resourceVersion"].as_str().map(String::from),
                dry_run: parse_dry_run(&dry)?,
            }
        } else {
            Self {
                propagation: parse_policy(query.get("propagationPolicy"))?,
                orphan_dependents: query.flag("orphanDependents")?,
                grace_period_seconds: query.int("gracePeriodSeconds")?,
                precondition_uid: None,
                precondition_resource_version: None,
                dry_run: parse_dry_run(&query.all("dryRun"))?,
            }
        };
        if lenient && opts.propagation.is_some() {
            return Ok(Self { orphan_dependents: None, ..opts });
        }
        if let (Some(_), Some(policy)) = (opts.orphan_dependents, opts.propagation) {
            let policy = format!("{policy:?}");
            return Err(options_invalid(vec![FieldError::invalid(
                "propagationPolicy",
                json!(policy),
                "orphanDependents and deletionPropagation cannot be both set",
            )]));
        }
        Ok(opts)
    }
}

fn parse_policy(v: Option<&str>) -> ApiResult<Option<Propagation>> {
    match v {
        None => Ok(None),
        Some("Orphan") => Ok(Some(Propagation::Orphan)),
        Some("Background") => Ok(Some(Propagation::Background)),
        Some("Foreground") => Ok(Some(Propagation::Foreground)),
        Some(other) => Err(options_invalid(vec![FieldError::new(
            FieldErrorKind::NotSupported,
            "propagationPolicy",
            Some(json!(other)),
            "supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
        )])),
    }
}

/// B.1 `shouldOrphanDependents`.
pub fn should_orphan(opts: &DeleteOptions, finalizers: &[String], default: DefaultGcPolicy) -> bool {
    if default == DefaultGcPolicy::Unsupported {
        return false;
    }
    if let Some(o) = opts.orphan_dependents {
        return o;
    }
    if let Some(p) = opts.propagation {
        return p == Propagation::Orphan;
    }
    if let Some(f) = finalizers.iter().find(|f| *f == FINALIZER_ORPHAN || *f == FINALIZER_FOREGROUND) {
        return f == FINALIZER_ORPHAN;
    }
    default == DefaultGcPolicy::OrphanDependents
}

/// B.1 `shouldDeleteDependents` (foreground).
pub fn should_delete_dependents(opts: &DeleteOptions, finalizers: &[String], default: DefaultGcPolicy) -> bool {
    if default == DefaultGcPolicy::Unsupported || opts.orphan_dependents.is_some() {
        return false;
    }
    if let Some(p) = opts.propagation {
        return p == Propagation::Foreground;
    }
    if let Some(f) = finalizers.iter().find(|f| *f == FINALIZER_ORPHAN || *f == FINALIZER_FOREGROUND) {
        return f == FINALIZER_FOREGROUND;
    }
    false
}

/// B.1: the finalizer list after a delete with `opts`, and whether it changed as a set. GC
/// finalizers are stripped, other finalizers keep their order, then `orphan` and/or
/// `foregroundDeletion` are appended.
pub fn gc_finalizers(opts: &DeleteOptions, finalizers: &[String], default: DefaultGcPolicy) -> (bool, Vec<String>) {
    let mut out: Vec<String> = finalizers.iter().filter(|f| *f != FINALIZER_ORPHAN && *f != FINALIZER_FOREGROUND).cloned().collect();
    if should_orphan(opts, finalizers, default) {
        out.push(FINALIZER_ORPHAN.into());
    }
    if should_delete_dependents(opts, finalizers, default) {
        out.push(FINALIZER_FOREGROUND.into());
    }
    let as_set = |l: &[String]| l.iter().cloned().collect::<std::collections::BTreeSet<_>>();
    if as_set(&out) == as_set(finalizers) { (false, finalizers.to_vec()) } else { (true, out) }
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
    /// Graceful deletion is already pending: nothing changes (B.3 row 10).
    Unchanged,
    /// The removal fails and nothing changes: the object (deleted without grace) had finalizers,
    /// none of which is left pending, and the caller gave a resourceVersion precondition.
    /// Upstream's store (`Store.Delete`) looks at the finalizers in an update that decides on
    /// removal at once and so writes nothing; it then checks the precondition again against
    /// that update's result, whose resourceVersion is empty, and the removal always conflicts.
    LostResourceVersion,
}

/// Checks `preconditions.uid` and `preconditions.resourceVersion` (B.3 rows 2-3).
pub fn check_preconditions(existing: &Value, opts: &DeleteOptions, ctx: DeleteContext<'_>) -> ApiResult<()> {
    if ctx.mutant == Some(Mutant::IgnorePreconditions) {
        return Ok(());
    }
    let resource = ctx.resource;
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

/// The finalizer list after a delete as the server computes it (see [`gc_finalizers`]): left
/// alone when the server runs without garbage collection, and as the server's mutant (if any)
/// gets it wrong.
pub fn deletion_finalizers(
    opts: &DeleteOptions,
    current: &[String],
    default: DefaultGcPolicy,
    ctx: DeleteContext<'_>,
) -> (bool, Vec<String>) {
    if !ctx.garbage_collection {
        return (false, current.to_vec());
    }
    let Some(mutant) = ctx.mutant else {
        return gc_finalizers(opts, current, default);
    };
    let mut opts = opts.clone();
    let mut default = default;
    let mut seen = current.to_vec();
    match mutant {
        Mutant::IgnoreOrphanDependents => opts.orphan_dependents = None,
        Mutant::IgnoreDefaultPolicies if default == DefaultGcPolicy::OrphanDependents => default = DefaultGcPolicy::DeleteDependents,
        Mutant::IgnoreExistingGcFinalizers => seen.retain(|f| f != FINALIZER_ORPHAN && f != FINALIZER_FOREGROUND),
        Mutant::EventsGetGcFinalizers if default == DefaultGcPolicy::Unsupported => default = DefaultGcPolicy::DeleteDependents,
        _ => {}
    }
    let (_, mut out) = gc_finalizers(&opts, &seen, default);
    let never_added = match mutant {
        Mutant::NeverAddForegroundFinalizer => Some(FINALIZER_FOREGROUND),
        Mutant::NeverAddOrphanFinalizer => Some(FINALIZER_ORPHAN),
        _ => None,
    };
    if let Some(f) = never_added.filter(|f| !current.iter().any(|c| c == f)) {
        out.retain(|o| o != f);
    }
    let as_set = |l: &[String]| l.iter().cloned().collect::<std::collections::BTreeSet<_>>();
    if as_set(&out) == as_set(current) { (false, current.to_vec()) } else { (true, out) }
}

/// A pod's grace period for this delete (upstream pod `CheckGracefulDelete`, B.3 row 9).
fn pod_grace_period(pod: &Value, opts: &DeleteOptions, mutant: Option<Mutant>) -> i64 {
    let requested = opts.grace_period_seconds.filter(|g| *g != 0 || mutant != Some(Mutant::GraceZeroIgnored));
    let mut period = requested.or_else(|| pod["spec"]["terminationGracePeriodSeconds"].as_i64()).unwrap_or(0);
    let unscheduled = pod["spec"]["nodeName"].as_str().unwrap_or("").is_empty();
    let terminal = matches!(pod["status"]["phase"].as_str(), Some("Succeeded" | "Failed"));
    if (unscheduled || terminal) && mutant != Some(Mutant::UnscheduledPodsGraceful) {
        period = 0;
    }
    if period < 0 { 1 } else { period }
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
    /// `false` when the server runs with garbage collection disabled (B.3 row 21).
    pub garbage_collection: bool,
    /// The server's broken rule, if any (see [`crate::apiserver::mutant`]).
    pub mutant: Option<Mutant>,
}

/// Plans a DELETE of `existing` (already checked against the preconditions) with `opts`.
pub fn plan_delete(existing: &Value, opts: &DeleteOptions, ctx: DeleteContext<'_>) -> DeletePlan {
    let (resource, now) = (ctx.resource, ctx.now);
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
                _ => return DeletePlan::Unchanged,
            },
        }
    } else if resource.graceful && ctx.mutant != Some(Mutant::PodsNotGraceful) {
        let grace = pod_grace_period(existing, opts, ctx.mutant);
        meta["deletionTimestamp"] = json!(format_time(now + Duration::seconds(grace)));
        meta["deletionGracePeriodSeconds"] = json!(grace);
        bump_generation(meta);
        true
    } else {
        false
    };

    // deletionFinalizersForGarbageCollection.
    let (changed, finalizers) = deletion_finalizers(opts, &string_list(meta, "finalizers"), resource.default_gc_policy(ctx.version), ctx);
    if changed {
        meta["finalizers"] = json!(finalizers);
        if finalizers.is_empty() {
            meta.as_object_mut().expect("metadata is an object").remove("finalizers");
        }
    }
    let pending_finalizers = !finalizers.is_empty() && ctx.mutant != Some(Mutant::RemoveDespiteFinalizers);

    if graceful {
        let grace = meta["deletionGracePeriodSeconds"].as_i64().unwrap_or(0);
        return if grace == 0 && !pending_finalizers { DeletePlan::WriteThenRemove(obj) } else { DeletePlan::Keep(obj) };
    }
    if !pending_finalizers && ctx.mutant != Some(Mutant::KeepWithoutFinalizers) {
        let looked_at_finalizers = changed || !string_list(&existing["metadata"], "finalizers").is_empty();
        let survives = ctx.mutant == Some(Mutant::PreconditionSurvivesFinalizerUpdate);
        return if looked_at_finalizers && opts.precondition_resource_version.is_some() && !survives {
            DeletePlan::LostResourceVersion
        } else {
            DeletePlan::Remove
        };
    }
    // markAsDeleting: first deletion bumps generation; an earlier timestamp is kept.
    if deletion_ts.is_none() {
        bump_generation(meta);
    }
    if deletion_ts.is_none_or(|ts| ts > now) || ctx.mutant == Some(Mutant::MoveDeletionTimestamp) {
        meta["deletionTimestamp"] = json!(format_time(now));
    }
    meta["deletionGracePeriodSeconds"] = json!(0);
    DeletePlan::Keep(obj)
}

/// B.3 row 13: whether an update leaves an object that must be removed at once (being deleted
/// with grace 0 or none, and no finalizers left).
pub fn should_delete_during_update(updated: &Value, mutant: Option<Mutant>) -> bool {
    let meta = &updated["metadata"];
    mutant != Some(Mutant::KeepAfterLastFinalizer)
        && !meta["deletionTimestamp"].is_null()
        && meta["deletionGracePeriodSeconds"].as_i64().unwrap_or(0) == 0
        && string_list(meta, "finalizers").is_empty()
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
        let (changed, out) = gc_finalizers(&opts, &fins(&["orphan", "a/b", "c/d"]), DefaultGcPolicy::DeleteDependents);
        assert!(changed);
        assert_eq!(out, fins(&["a/b", "c/d", "foregroundDeletion"]));
    }

    #[test]
    fn pending_graceful_pod_is_unchanged() {
        let reg = Catalogue::new();
        let pods = reg.lookup("", "v1", "pods").unwrap();
        let pod = json!({"metadata": {"name": "p", "deletionTimestamp": "2030-01-01T00:00:30Z", "deletionGracePeriodSeconds": 30},
            "spec": {"nodeName": "n"}});
        let now = parse_time("2030-01-01T00:00:00Z").unwrap();
        let ctx = DeleteContext { resource: &pods, version: "v1", now, garbage_collection: true, mutant: None };
        assert_eq!(plan_delete(&pod, &DeleteOptions::default(), ctx), DeletePlan::Unchanged);
    }
}
