//! The TTL-after-finished controller (kube-controller-manager's
//! `ttl-after-finished-controller`, upstream `pkg/controller/ttlafterfinished/
//! ttlafterfinished_controller.go`). It looks at Jobs only:
//!
//! - a Job is a candidate when it is not being deleted, has `spec.ttlSecondsAfterFinished`, and
//!   has finished — a `Complete` or `Failed` condition with status `True` (`needsCleanup`,
//!   `IsJobFinished` in `pkg/controller/job/util/utils.go`);
//! - it finished at the `lastTransitionTime` of the first such condition (`jobFinishTime`; a
//!   Job whose condition has no time is left alone, as upstream retries it with an error);
//! - it expires at finish + TTL, on the controller's clock; a TTL of 0 expires at once
//!   (`getFinishAndExpireTime`, `timeLeft`); until then the controller looks again at the
//!   earliest expiry;
//! - before deleting, it reads the Job afresh and decides again on that copy, so a TTL raised
//!   or removed meanwhile is honoured (`processJob`);
//! - it deletes with propagation policy `Foreground` and the fresh copy's uid as a
//!   precondition, so the Job's pods go first and a Job of the same name made since is never
//!   deleted in its place.

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use k8s_openapi::api::batch::v1::Job;
use kube::api::{Api, ApiResource, DeleteParams, Preconditions, PropagationPolicy};

use crate::cleanup::pass::{Context, Controller, Outcome, instant, resource};

/// The TTL-after-finished controller. It keeps no state between passes: every pass lists the
/// Jobs afresh.
#[derive(Debug, Default)]
pub struct TtlAfterFinished;

/// Whether a Job is due for deletion, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not a candidate: being deleted, no TTL, not finished, or no finish time.
    Ignored,
    /// Expires at this moment, still to come.
    ExpiresAt(DateTime<Utc>),
    /// Expired: delete it.
    Expired,
}

/// The moment `job` finished: the `lastTransitionTime` of its first true `Complete` or
/// `Failed` condition (upstream `jobFinishTime`); none if it has not finished or the time is
/// missing.
pub fn finish_time(job: &Job) -> Option<DateTime<Utc>> {
    finished_condition(job)?.last_transition_time.as_ref().map(|t| instant(&t.0))
}

/// The first true `Complete` or `Failed` condition of `job`.
fn finished_condition(job: &Job) -> Option<&k8s_openapi::api::batch::v1::JobCondition> {
    let conditions = job.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or_default();
    conditions.iter().find(|c| matches!(c.type_.as_str(), "Complete" | "Failed") && c.status == "True")
}

/// What the controller reads of a Job to decide on it (upstream `needsCleanup`,
/// `getFinishAndExpireTime`): the decision a mutant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime {
    /// The Job is being deleted.
    pub deleting: bool,
    /// Its `spec.ttlSecondsAfterFinished`.
    pub ttl: Option<i32>,
    /// When it finished ([`finish_time`]).
    pub finished: Option<DateTime<Utc>>,
    /// When it was created, if it has finished.
    pub created: Option<DateTime<Utc>>,
}

impl Lifetime {
    /// What `job` shows.
    pub fn of(job: &Job) -> Self {
        let created = finished_condition(job).and(job.metadata.creation_timestamp.as_ref()).map(|t| instant(&t.0));
        Self {
            deleting: job.metadata.deletion_timestamp.is_some(),
            ttl: job.spec.as_ref().and_then(|s| s.ttl_seconds_after_finished),
            finished: finish_time(job),
            created,
        }
    }

    /// Whether the Job is due for deletion at `now`, and when (upstream `timeLeft`).
    pub fn verdict(&self, now: DateTime<Utc>) -> Verdict {
        let (false, Some(ttl), Some(finished)) = (self.deleting, self.ttl, self.finished) else {
            return Verdict::Ignored;
        };
        let expires = finished + chrono::Duration::seconds(i64::from(ttl));
        if expires <= now { Verdict::Expired } else { Verdict::ExpiresAt(expires) }
    }
}

/// The propagation policy an expired Job is deleted with (upstream `processJob`): Foreground,
/// so that its pods go first; the decision a mutant may change.
#[derive(Clone, Debug)]
pub struct Propagation(pub PropagationPolicy);

impl TtlAfterFinished {
    /// Reads `job` afresh and deletes it if it is still expired; returns whether a delete
    /// landed and, when the fresh copy expires later, that moment.
    async fn delete_if_still_expired(&self, context: &Context, job: &Job) -> (bool, Option<DateTime<Utc>>) {
        let (Some(namespace), Some(name)) = (job.metadata.namespace.as_deref(), job.metadata.name.as_deref()) else {
            return (false, None);
        };
        let api: Api<Job> = Api::namespaced(context.client.clone(), namespace);
        let fresh = match api.get_opt(name).await {
            Ok(Some(fresh)) => fresh,
            Ok(None) => return (false, None),
            Err(e) => {
                tracing::debug!("ttl-after-finished: reading Job {namespace}/{name}: {e}");
                return (false, None);
            }
        };
        match context.decided(Lifetime::of(&fresh)).verdict(context.clock.now()) {
            Verdict::Ignored => (false, None),
            Verdict::ExpiresAt(at) => (false, Some(at)),
            Verdict::Expired => {
                let policy = context.decided(Propagation(PropagationPolicy::Foreground)).0;
                let params = DeleteParams {
                    propagation_policy: Some(policy),
                    preconditions: Some(Preconditions { uid: fresh.metadata.uid.clone(), resource_version: None }),
                    ..DeleteParams::default()
                };
                match api.delete(name, &params).await {
                    Ok(_) => (true, None),
                    Err(e) => {
                        tracing::debug!("ttl-after-finished: deleting Job {namespace}/{name}: {e}");
                        (false, None)
                    }
                }
            }
        }
    }
}

impl Controller for TtlAfterFinished {
    fn name(&self) -> &'static str {
        "ttl-after-finished-controller"
    }

    fn watches(&self) -> Vec<ApiResource> {
        vec![resource::<Job>()]
    }

    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>> {
        Box::pin(async move {
            let jobs: Vec<Job> = context.list().await?;
            let now = context.clock.now();
            let mut outcome = Outcome::default();
            for job in &jobs {
                let later = match context.decided(Lifetime::of(job)).verdict(now) {
                    Verdict::Ignored => None,
                    Verdict::ExpiresAt(at) => Some(at),
                    Verdict::Expired => {
                        let (deleted, later) = self.delete_if_still_expired(context, job).await;
                        outcome.wrote |= deleted;
                        later
                    }
                };
                outcome.again_at = outcome.again_at.into_iter().chain(later).min();
            }
            Ok(outcome)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn job(ttl: Option<i32>, condition: Option<(&str, &str)>) -> Job {
        let conditions: Vec<_> =
            condition.into_iter().map(|(t, s)| json!({"type": t, "status": s, "lastTransitionTime": "2026-01-01T00:00:10Z"})).collect();
        serde_json::from_value(json!({
            "metadata": {"name": "pi", "namespace": "n", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"ttlSecondsAfterFinished": ttl, "template": {}},
            "status": {"conditions": conditions},
        }))
        .expect("a Job")
    }

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").expect("a time").with_timezone(&Utc) + chrono::Duration::seconds(seconds)
    }

    #[test]
    fn a_finished_job_expires_its_ttl_after_it_finished() {
        let verdict = |job: &Job, now| Lifetime::of(job).verdict(now);
        assert_eq!(verdict(&job(Some(100), None), at(10)), Verdict::Ignored, "unfinished");
        assert_eq!(verdict(&job(None, Some(("Complete", "True"))), at(10)), Verdict::Ignored, "no TTL");
        assert_eq!(verdict(&job(Some(100), Some(("Complete", "False"))), at(10)), Verdict::Ignored, "not true");
        assert_eq!(verdict(&job(Some(0), Some(("Complete", "True"))), at(10)), Verdict::Expired, "TTL 0");
        assert_eq!(verdict(&job(Some(10), Some(("Failed", "True"))), at(10)), Verdict::ExpiresAt(at(20)));
        assert_eq!(verdict(&job(Some(15), Some(("Complete", "True"))), at(20)), Verdict::ExpiresAt(at(25)));
    }

    #[test]
    fn the_mutant_counts_from_creation() {
        use crate::cleanup::mutant::{Mutable, Mutant};
        let lifetime = Lifetime::of(&job(Some(15), Some(("Complete", "True"))));
        assert_eq!(lifetime.mutated(Some(Mutant::TtlFromCreation)).verdict(at(20)), Verdict::Expired);
        assert_eq!(Lifetime::of(&job(Some(15), None)).mutated(Some(Mutant::TtlFromCreation)).created, None, "unfinished");
    }
}
