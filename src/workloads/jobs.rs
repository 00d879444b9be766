//! The job controller, for non-indexed Jobs: it claims the pods its selector matches, keeps
//! `parallelism` pods running until `completions` have succeeded (one success ends a job with
//! no `completions`), marks its pods with the `batch.kubernetes.io/job-tracking` finalizer, and
//! counts a finished pod in two steps before it lets the pod go: the pod's uid first enters
//! `status.uncountedTerminatedPods`, then its finalizer is removed, then the count moves to
//! `succeeded` or `failed` — so that no pod is counted twice or lost. A pod being deleted
//! counts as failed (pod replacement policy `TerminatingOrFailed`). A Job being deleted lets
//! every pod go at once, which is what lets a foreground deletion of a Job finish; more
//! failures than `backoffLimit` (6) fail it, as do that many container restarts of its
//! running pods under `restartPolicy: OnFailure`. A suspended Job keeps no pods, and says so in a
//! `Suspended` condition.
//!
//! Left out: indexed completion, pod failure and success policies, active deadlines and
//! backoff delays between retries.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use crate::clock::format_time;
use crate::workloads::claims::{ChildSelector, claim_children, controller_reference};
use crate::workloads::writes::Writes;
use crate::workloads::{pods, status};

/// The finalizer that keeps a Job's pod until the Job has counted it.
pub const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";

/// One sync of the job controller for `job`, over every pod in the cluster, at `now`.
pub async fn sync(writes: &mut Writes, job: &Job, all_pods: &[Pod], now: DateTime<Utc>) {
    let now = format_time(now);
    let namespace = job.namespace().unwrap_or_default();
    let spec = job.spec.clone().unwrap_or_default();
    let reference = controller_reference("batch/v1", "Job", job.meta());
    let selector = ChildSelector::of(spec.selector.as_ref());
    let candidates: Vec<&Pod> = all_pods.iter().filter(|p| p.namespace().as_deref() == Some(&namespace)).collect();
    let controlled = claim_children(writes, job, &reference, &selector, candidates).await;
    let written = serde_json::to_value(&job.status).unwrap_or_default();
    let deleting = job.meta().deletion_timestamp.is_some();
    let finished = finished(&written);

    let mut tally = Tally::from_status(&written);
    let tracked: Vec<&Pod> = controlled.iter().copied().filter(|p| p.finalizers().iter().any(|f| f == TRACKING_FINALIZER)).collect();
    tally.count_released(&tracked.iter().filter_map(|p| p.uid()).collect());
    for pod in &tracked {
        tally.note_finished(pod);
    }
    let active: Vec<&Pod> = controlled.iter().copied().filter(|p| pods::is_active(p)).collect();
    let n = |c: usize| i64::try_from(c).unwrap_or(i64::MAX);
    let terminating = controlled.iter().filter(|p| p.metadata.deletion_timestamp.is_some() && !pods::is_terminal(p)).count();
    let fields = [
        ("succeeded", tally.succeeded),
        ("failed", tally.failed),
        ("active", n(active.len())),
        ("ready", n(active.iter().filter(|p| pods::is_ready(p)).count())),
        ("terminating", n(terminating)),
    ];
    let mut patch = status::counts(&fields, &[]);
    patch["uncountedTerminatedPods"] = tally.uncounted();
    let suspended = spec.suspend == Some(true);
    if written["startTime"].is_null() && !suspended && !finished {
        patch["startTime"] = json!(now);
    }
    let backoff_limit = spec.backoff_limit.unwrap_or(6);
    let outcome = tally.outcome(spec.completions, backoff_limit).or_else(|| {
        let on_failure = spec.template.spec.as_ref().and_then(|s| s.restart_policy.as_deref()) == Some("OnFailure");
        (on_failure && restarts_exceed(&controlled, backoff_limit)).then_some(Outcome::Failed)
    });
    if !finished && outcome.is_some() && active.is_empty() && tally.uncounted_is_empty() {
        let conditions = outcome.map(|o| o.conditions(&now)).unwrap_or_default();
        patch["conditions"] = json!(conditions);
        if outcome == Some(Outcome::Complete) {
            patch["completionTime"] = json!(now);
        }
    }
    if !deleting
        && !finished
        && outcome.is_none()
        && let Some(conditions) = suspension(&written, suspended, &now)
    {
        // Suspending clears the start time; resuming starts it again.
        patch["startTime"] = if suspended { Value::Null } else { json!(now) };
        patch["conditions"] = json!(conditions);
    }
    let landed = !status::changes(&written, &patch) || writes.patch_status(job, patch).await;

    // Pods whose uid the status now holds (or, while the Job is deleted, every pod) let go.
    if landed {
        for pod in tracked.iter().filter(|p| deleting || tally.holds(p)) {
            let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER], "uid": pod.uid()}});
            writes.patch(*pod, patch).await;
        }
    }
    if deleting {
        return;
    }
    let parallelism = usize::try_from(spec.parallelism.unwrap_or(1)).unwrap_or(0);
    let want = if suspended || finished || outcome.is_some() {
        0
    } else {
        match spec.completions {
            Some(c) => parallelism.min(usize::try_from(i64::from(c) - tally.succeeded()).unwrap_or(0)),
            None => parallelism,
        }
    };
    if active.len() < want {
        let prefix = format!("{}-", job.name_any());
        for _ in active.len()..want {
            let mut pod = pods::from_template(&spec.template, reference.clone(), &namespace, &prefix);
            pod.metadata.finalizers.get_or_insert_with(Vec::new).push(TRACKING_FINALIZER.into());
            writes.create(&namespace, &pod).await;
        }
    } else if active.len() > want {
        let mut extra = active.clone();
        extra.sort_by(|a, b| pods::removal_order(a, b));
        for pod in extra.iter().take(active.len() - want) {
            writes.delete(*pod).await;
        }
    }
}

/// Lets go of the pods that hold the tracking finalizer but whose Job is gone: a Job deleted
/// in the background (as the garbage collector deletes the Jobs of a deleted CronJob) is
/// removed before it can release its pods, which the collector then deletes and which would
/// otherwise never go (`syncOrphanPod` in `pkg/controller/job/job_controller.go`).
pub async fn release_orphans(writes: &mut Writes, all_pods: &[Pod], jobs: &[Job]) {
    let job_uids: BTreeSet<String> = jobs.iter().filter_map(|j| j.uid()).collect();
    for pod in all_pods.iter().filter(|p| p.finalizers().iter().any(|f| f == TRACKING_FINALIZER)) {
        let owner = pod.owner_references().iter().find(|r| r.controller == Some(true) && r.kind == "Job");
        if owner.is_none_or(|r| !job_uids.contains(&r.uid)) {
            let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER], "uid": pod.uid()}});
            writes.patch(pod, patch).await;
        }
    }
}

/// The conditions of a Job that has not finished once its `Suspended` condition says whether
/// it is suspended, when that changes them: `True` (reason `JobSuspended`) while it is, and an
/// existing one turned `False` (reason `JobResumed`) once it is not; a Job never suspended gets
/// none (`ensureJobConditionStatus` in `pkg/controller/job/job_controller.go`).
fn suspension(status: &Value, suspended: bool, now: &str) -> Option<Vec<Value>> {
    let mut conditions = status["conditions"].as_array().cloned().unwrap_or_default();
    let (state, reason, message) =
        if suspended { ("True", "JobSuspended", "Job suspended") } else { ("False", "JobResumed", "Job resumed") };
    let wanted = json!({"type": "Suspended", "status": state, "reason": reason, "message": message, "lastProbeTime": now, "lastTransitionTime": now});
    match conditions.iter_mut().find(|c| c["type"] == "Suspended") {
        Some(c) if c["status"] == state && c["reason"] == reason && c["message"] == message => return None,
        Some(c) => *c = wanted,
        None if !suspended => return None,
        None => conditions.push(wanted),
    }
    Some(conditions)
}

/// Whether the restarts of the containers (init containers too) of `pods` that are Pending or
/// Running reach `backoff_limit` (any restart, for a limit of 0): a Job whose pods restart on
/// failure fails so (`pastBackoffLimitOnFailure` in `pkg/controller/job/job_controller.go`).
fn restarts_exceed(pods: &[&Pod], backoff_limit: i32) -> bool {
    let restarts: i64 = pods
        .iter()
        .filter(|p| matches!(pods::phase(p), "Pending" | "Running"))
        .filter_map(|p| p.status.as_ref())
        .flat_map(|s| s.init_container_statuses.iter().flatten().chain(s.container_statuses.iter().flatten()))
        .map(|c| i64::from(c.restart_count))
        .sum();
    if backoff_limit == 0 { restarts > 0 } else { restarts >= i64::from(backoff_limit) }
}

/// Whether the Job has a true `Complete` or `Failed` condition.
fn finished(status: &Value) -> bool {
    let conditions = status["conditions"].as_array().map(Vec::as_slice).unwrap_or_default();
    conditions.iter().any(|c| matches!(c["type"].as_str(), Some("Complete" | "Failed")) && c["status"] == "True")
}

/// How a Job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// Enough pods succeeded.
    Complete,
    /// More pods failed than the backoff limit allows.
    Failed,
}

impl Outcome {
    /// The conditions a Job that ended so at `now` carries (the criterion first, then the end).
    fn conditions(self, now: &str) -> Vec<Value> {
        let (first, last, reason) = match self {
            Outcome::Complete => ("SuccessCriteriaMet", "Complete", "CompletionsReached"),
            Outcome::Failed => ("FailureTarget", "Failed", "BackoffLimitExceeded"),
        };
        let message = match self {
            Outcome::Complete => "Reached expected number of succeeded pods",
            Outcome::Failed => "Job has reached the specified backoff limit",
        };
        [first, last]
            .iter()
            .map(|t| json!({"type": t, "status": "True", "reason": reason, "message": message, "lastProbeTime": now, "lastTransitionTime": now}))
            .collect()
    }
}

/// The Job's counts of finished pods: counted, and uncounted (uids the status holds while
/// their pods still carry the finalizer).
struct Tally {
    succeeded: i64,
    failed: i64,
    uncounted_succeeded: BTreeSet<String>,
    uncounted_failed: BTreeSet<String>,
}

impl Tally {
    fn from_status(status: &Value) -> Self {
        let uids = |field: &str| -> BTreeSet<String> {
            status["uncountedTerminatedPods"][field].as_array().into_iter().flatten().filter_map(|u| u.as_str().map(String::from)).collect()
        };
        Self {
            succeeded: status["succeeded"].as_i64().unwrap_or(0),
            failed: status["failed"].as_i64().unwrap_or(0),
            uncounted_succeeded: uids("succeeded"),
            uncounted_failed: uids("failed"),
        }
    }

    /// Moves the uncounted uids whose pods no longer carry the finalizer (or are gone) into
    /// the counts; `present` holds the uids of pods that still carry it.
    fn count_released(&mut self, present: &BTreeSet<String>) {
        let released = |set: &mut BTreeSet<String>| {
            let before = set.len();
            set.retain(|u| present.contains(u));
            i64::try_from(before - set.len()).unwrap_or(0)
        };
        self.succeeded += released(&mut self.uncounted_succeeded);
        self.failed += released(&mut self.uncounted_failed);
    }

    /// Notes a finished pod (succeeded, failed, or being deleted) that still carries the finalizer.
    fn note_finished(&mut self, pod: &Pod) {
        let uid = pod.uid().unwrap_or_default();
        match pods::phase(pod) {
            "Succeeded" => {
                self.uncounted_succeeded.insert(uid);
            }
            "Failed" => {
                self.uncounted_failed.insert(uid);
            }
            _ if pod.metadata.deletion_timestamp.is_some() => {
                self.uncounted_failed.insert(uid);
            }
            _ => {}
        }
    }

    /// Whether the status holds `pod`'s uid as uncounted.
    fn holds(&self, pod: &Pod) -> bool {
        let uid = pod.uid().unwrap_or_default();
        self.uncounted_succeeded.contains(&uid) || self.uncounted_failed.contains(&uid)
    }

    fn uncounted_is_empty(&self) -> bool {
        self.uncounted_succeeded.is_empty() && self.uncounted_failed.is_empty()
    }

    /// Pods that succeeded, counted or not.
    fn succeeded(&self) -> i64 {
        self.succeeded + i64::try_from(self.uncounted_succeeded.len()).unwrap_or(0)
    }

    /// How the Job ends, if it does.
    fn outcome(&self, completions: Option<i32>, backoff_limit: i32) -> Option<Outcome> {
        let failed = self.failed + i64::try_from(self.uncounted_failed.len()).unwrap_or(0);
        if failed > i64::from(backoff_limit) {
            return Some(Outcome::Failed);
        }
        let enough = completions.map_or(self.succeeded() > 0, |c| self.succeeded() >= i64::from(c));
        enough.then_some(Outcome::Complete)
    }

    /// The patch of `status.uncountedTerminatedPods`, its empty lists removed.
    fn uncounted(&self) -> Value {
        let list = |uids: &BTreeSet<String>| if uids.is_empty() { Value::Null } else { json!(uids) };
        json!({"succeeded": list(&self.uncounted_succeeded), "failed": list(&self.uncounted_failed)})
    }
}
