//! The CronJob controller (`pkg/controller/cronjob/cronjob_controllerv2.go` and `utils.go`):
//! on each time its schedule names, a CronJob makes a Job from its template, named
//! `<cronjob>-<minutes since the epoch of that time>` and owned by the CronJob as its
//! controller, so that deleting the CronJob collects its Jobs and their pods. It counts the
//! Jobs it owns that have not finished as active, and deletes the oldest finished ones beyond
//! `successfulJobsHistoryLimit` and `failedJobsHistoryLimit` (in the background, so their pods
//! go with them).
//!
//! When a time is due: a suspended CronJob makes nothing; a time older than
//! `startingDeadlineSeconds` is missed; `concurrencyPolicy: Forbid` skips it while a Job is
//! active and `Replace` deletes the active Jobs first. Only the most recent due time since the
//! last one (or the CronJob's creation) is run, as upstream does. Schedules are read as
//! robfig/cron's standard parser reads them (five fields, `?`, and `@hourly`-style
//! descriptors), in `spec.timeZone` (UTC when unset); a schedule or time zone that cannot be
//! read makes no Job.

use std::str::FromStr;

use chrono::{DateTime, TimeDelta, Utc};
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use crate::clock::{format_time, parse_time};
use crate::recorder::Record;
use crate::workloads::claims::controller_reference;
use crate::workloads::writes::Writes;

/// The annotation a Job made by a CronJob carries with the time it was scheduled for.
pub const SCHEDULED_TIMESTAMP: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";

/// One sync of the CronJob controller for `cron_job`, over every Job in the cluster, at
/// `now`; returns when it has next to act (its next scheduled time), if ever.
pub async fn sync(writes: &mut Writes, cron_job: &CronJob, all_jobs: &[Job], now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let namespace = cron_job.namespace().unwrap_or_default();
    let uid = cron_job.uid();
    let owned: Vec<&Job> = all_jobs
        .iter()
        .filter(|j| j.namespace().as_deref() == Some(&namespace))
        .filter(|j| j.owner_references().iter().any(|r| r.controller == Some(true) && Some(&r.uid) == uid.as_ref()))
        .collect();
    let spec = cron_job.spec.clone();
    let written = serde_json::to_value(&cron_job.status).unwrap_or_default();
    let mut status = json!({});
    let active: Vec<&Job> = owned.iter().copied().filter(|j| finish(j).is_none()).collect();
    // An empty list is left out, as upstream writes it (a null removes it in a merge patch).
    status["active"] = active_list(active.iter().map(|j| reference(j)).collect());
    if let Some(last) = owned.iter().filter(|j| finish(j) == Some(true)).filter_map(|j| completion_time(j)).max() {
        status["lastSuccessfulTime"] = json!(format_time(last));
    }
    if cron_job.meta().deletion_timestamp.is_some() {
        return None;
    }
    for name in missing(&written, &owned) {
        let record = Record {
            involved: json!({"apiVersion": "batch/v1", "kind": "CronJob", "namespace": namespace, "name": cron_job.name_any(),
                "uid": uid, "resourceVersion": cron_job.resource_version()}),
            event_type: "Normal",
            reason: "MissingJob",
            message: format!("Active job went missing: {name}"),
        };
        if let Err(e) = record.send(writes.client(), "cronjob-controller", now).await {
            tracing::debug!("cronjob controller: recording MissingJob for {name}: {e}");
        }
    }
    clean_history(writes, &owned, spec.successful_jobs_history_limit, spec.failed_jobs_history_limit).await;

    let Some(schedule) = Schedule::read(&spec.schedule, spec.time_zone.as_deref()) else {
        patch_status(writes, cron_job, &written, status).await;
        return None;
    };
    let last = written["lastScheduleTime"].as_str().and_then(parse_time);
    let mut earliest = last.or_else(|| cron_job.meta().creation_timestamp.as_ref().and_then(time_of))?;
    if let Some(deadline) = spec.starting_deadline_seconds {
        earliest = earliest.max(now - TimeDelta::seconds(deadline));
    }
    let next = schedule.after(now);
    let due = schedule.most_recent(earliest, now);
    let Some(due) = due.filter(|_| spec.suspend != Some(true)) else {
        patch_status(writes, cron_job, &written, status).await;
        return next;
    };
    let name = format!("{}-{}", cron_job.name_any(), due.timestamp().div_euclid(60));
    let policy = spec.concurrency_policy.as_deref().unwrap_or("Allow");
    if owned.iter().any(|j| j.name_any() == name) || (policy == "Forbid" && !active.is_empty()) {
        patch_status(writes, cron_job, &written, status).await;
        // A forbidden run waits for the active Jobs to finish, which wakes the controller.
        return next;
    }
    if policy == "Replace" {
        for job in &active {
            writes.delete(*job).await;
        }
        status["active"] = Value::Null;
    }
    let template = spec.job_template;
    let mut job: Job = Job { metadata: template.metadata.unwrap_or_default(), spec: template.spec, status: None };
    job.metadata.name = Some(name);
    job.metadata.namespace = Some(namespace.clone());
    job.metadata.owner_references = Some(vec![controller_reference("batch/v1", "CronJob", cron_job.meta())]);
    job.metadata.annotations.get_or_insert_default().insert(SCHEDULED_TIMESTAMP.into(), schedule.format(due));
    if let Some(made) = writes.create(&namespace, &job).await {
        let mut listed = status["active"].as_array().cloned().unwrap_or_default();
        listed.push(reference(&made));
        status["active"] = active_list(listed);
    }
    status["lastScheduleTime"] = json!(format_time(due));
    patch_status(writes, cron_job, &written, status).await;
    next
}

/// Writes `status` if it changes what is written.
async fn patch_status(writes: &mut Writes, cron_job: &CronJob, written: &Value, status: Value) {
    if crate::workloads::status::changes(written, &status) {
        writes.patch_status(cron_job, status).await;
    }
}

/// How many finished Jobs of one outcome a CronJob keeps (its `successfulJobsHistoryLimit` or
/// `failedJobsHistoryLimit`; none: all), as the controller acts on it: the decision a mutant
/// may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FinishedJobsKept {
    /// Whether these are the Jobs that succeeded (or those that failed).
    pub succeeded: bool,
    /// The limit.
    pub limit: Option<usize>,
}

/// Deletes the oldest finished Jobs beyond the limits (`cleanupFinishedJobs`).
async fn clean_history(writes: &mut Writes, owned: &[&Job], successful: Option<i32>, failed: Option<i32>) {
    for (limit, succeeded) in [(successful, true), (failed, false)] {
        let kept = FinishedJobsKept { succeeded, limit: limit.and_then(|l| usize::try_from(l).ok()) };
        let Some(limit) = writes.decided(kept).limit else { continue };
        let mut finished: Vec<&Job> = owned.iter().copied().filter(|j| finish(j) == Some(succeeded)).collect();
        if finished.len() <= limit {
            continue;
        }
        // Oldest first by start time, Jobs that never started last (`byJobStartTime`).
        finished.sort_by_key(|j| {
            let start = j.status.as_ref().and_then(|s| s.start_time.as_ref()).and_then(time_of);
            (start.is_none(), start, j.name_any())
        });
        for job in &finished[..finished.len() - limit] {
            if job.meta().deletion_timestamp.is_none() {
                writes.delete(*job).await;
            }
        }
    }
}

/// The names of the Jobs the written `status.active` lists that the CronJob no longer owns:
/// gone, so that they leave the list with a `MissingJob` event (`syncCronJob` in
/// `cronjob_controllerv2.go`; the e2e test "should remove from active list jobs that have been
/// deleted" waits for the event).
fn missing(written: &Value, owned: &[&Job]) -> Vec<String> {
    let listed = written["active"].as_array().map(Vec::as_slice).unwrap_or_default();
    listed
        .iter()
        .filter(|r| !owned.iter().any(|j| j.uid().as_deref() == r["uid"].as_str()))
        .map(|r| r["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Whether a Job has finished: `Some(true)` complete, `Some(false)` failed, `None` not yet.
fn finish(job: &Job) -> Option<bool> {
    let conditions = job.status.as_ref()?.conditions.as_ref()?;
    conditions.iter().filter(|c| c.status == "True").find_map(|c| match c.type_.as_str() {
        "Complete" => Some(true),
        "Failed" => Some(false),
        _ => None,
    })
}

fn completion_time(job: &Job) -> Option<DateTime<Utc>> {
    time_of(job.status.as_ref()?.completion_time.as_ref()?)
}

/// A `metav1.Time` as an instant.
fn time_of(t: &k8s_openapi::apimachinery::pkg::apis::meta::v1::Time) -> Option<DateTime<Utc>> {
    serde_json::to_value(t).ok()?.as_str().and_then(parse_time)
}

/// `status.active` of these references: left out when there are none.
fn active_list(references: Vec<Value>) -> Value {
    if references.is_empty() { Value::Null } else { Value::Array(references) }
}

/// The reference to a Job that `status.active` holds.
fn reference(job: &Job) -> Value {
    json!({
        "apiVersion": "batch/v1", "kind": "Job", "namespace": job.namespace(), "name": job.name_any(),
        "uid": job.uid(), "resourceVersion": job.resource_version(),
    })
}

/// A cron schedule in a time zone.
struct Schedule {
    cron: Cron,
    zone: chrono_tz::Tz,
}

impl Schedule {
    /// The schedule `text` in `zone`, if both can be read.
    fn read(text: &str, zone: Option<&str>) -> Option<Self> {
        let zone = match zone {
            None => chrono_tz::UTC,
            Some(name) => chrono_tz::Tz::from_str(name).ok()?,
        };
        let parser = CronParser::builder().seconds(Seconds::Disallowed).year(Year::Disallowed).build();
        let cron = parser.parse(text.trim()).ok()?;
        Some(Self { cron, zone })
    }

    /// The first scheduled time after `t`.
    fn after(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.cron.find_next_occurrence(&t.with_timezone(&self.zone), false).ok().map(|t| t.with_timezone(&Utc))
    }

    /// The latest scheduled time after `earliest` and not after `now` (`mostRecentScheduleTime`).
    fn most_recent(&self, earliest: DateTime<Utc>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let latest = self.cron.find_previous_occurrence(&now.with_timezone(&self.zone), true).ok()?.with_timezone(&Utc);
        (latest > earliest).then_some(latest)
    }

    /// `t` as the Job's annotation writes it: RFC 3339 in the schedule's time zone.
    fn format(&self, t: DateTime<Utc>) -> String {
        t.with_timezone(&self.zone).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        parse_time(s).unwrap()
    }

    #[test]
    fn jobs_listed_active_but_no_longer_owned_are_missing() {
        let job: Job = serde_json::from_value(json!({"metadata": {"name": "kept", "uid": "u1"}})).unwrap();
        let written = json!({"active": [{"name": "kept", "uid": "u1"}, {"name": "gone", "uid": "u2"}]});
        assert_eq!(missing(&written, &[&job]), ["gone"]);
        assert!(missing(&json!({}), &[]).is_empty());
    }

    #[test]
    fn schedules_read_as_the_standard_parser_reads_them() {
        let every_minute = Schedule::read("*/1 * * * ?", None).unwrap();
        assert_eq!(every_minute.after(at("2026-01-01T10:00:30Z")), Some(at("2026-01-01T10:01:00Z")));
        assert_eq!(Schedule::read("@hourly", None).unwrap().after(at("2026-01-01T10:00:30Z")), Some(at("2026-01-01T11:00:00Z")));
        assert!(Schedule::read("0 0 * * * *", None).is_none(), "six fields (seconds) are refused");
        assert!(Schedule::read("* * * * *", Some("Mars/Olympus")).is_none());
        let tokyo = Schedule::read("0 9 * * *", Some("Asia/Tokyo")).unwrap();
        assert_eq!(tokyo.after(at("2026-01-01T00:30:00Z")), Some(at("2026-01-02T00:00:00Z")));
        assert_eq!(tokyo.format(at("2026-01-02T00:00:00Z")), "2026-01-02T09:00:00+09:00");
    }

    #[test]
    fn only_the_most_recent_missed_time_runs() {
        let every_minute = Schedule::read("* * * * *", None).unwrap();
        let created = at("2026-01-01T10:00:30Z");
        assert_eq!(every_minute.most_recent(created, at("2026-01-01T10:00:59Z")), None);
        assert_eq!(every_minute.most_recent(created, at("2026-01-01T10:05:10Z")), Some(at("2026-01-01T10:05:00Z")));
        assert_eq!(every_minute.most_recent(at("2026-01-01T10:05:00Z"), at("2026-01-01T10:05:10Z")), None, "already run");
    }
}
