//! Defaults of batch/v1 (`pkg/apis/batch/v1/defaults.go` and
//! `pkg/apis/batch/v1/zz_generated.defaults.go`): a Job's parallelism, completions, backoff,
//! completion mode, suspension, pod replacement and selector mode, its labels from its
//! template's; a CronJob's concurrency, suspension and history limits; the pod templates of
//! both, and the status Go always writes.

use serde_json::{Value, json};

use super::core::pod_template;
use super::{items, object_at, or_nil, or_zero, present};

/// Defaults of the batch kind `kind`.
pub fn apply(kind: &str, object: &mut Value) {
    match kind {
        "Job" => job(object),
        "CronJob" => {
            if let Some(spec) = object_at(object, "spec") {
                cron_job_spec(spec);
            }
            object_at(object, "status");
        }
        _ => {}
    }
}

/// `SetDefaults_Job`, and the status Go always writes.
fn job(job: &mut Value) {
    let template_labels = job["spec"]["template"]["metadata"]["labels"].clone();
    if let Some(spec) = object_at(job, "spec") {
        job_spec(spec);
    }
    if template_labels.is_object()
        && let Some(meta) = object_at(job, "metadata")
        && meta["labels"].as_object().is_none_or(|l| l.is_empty())
    {
        meta["labels"] = template_labels;
    }
    object_at(job, "status");
}

/// `SetDefaults_Job` of a Job's spec, then what its spec holds.
fn job_spec(spec: &mut Value) {
    if spec["completions"].is_null() && spec["parallelism"].is_null() {
        spec["completions"] = json!(1);
    }
    or_nil(spec, "parallelism", json!(1));
    let backoff = if spec["backoffLimitPerIndex"].is_null() { 6 } else { i64::from(i32::MAX) };
    or_nil(spec, "backoffLimit", json!(backoff));
    or_nil(spec, "completionMode", json!("NonIndexed"));
    or_nil(spec, "suspend", json!(false));
    let replacement = if spec["podFailurePolicy"].is_null() { "TerminatingOrFailed" } else { "Failed" };
    or_nil(spec, "podReplacementPolicy", json!(replacement));
    or_nil(spec, "manualSelector", json!(false));
    held_by_job_spec(spec);
}

/// The generated defaults of what a Job's spec holds, also in a CronJob's job template (whose
/// spec gets no `SetDefaults_Job`): pod failure patterns match a true condition, and the pod
/// template's defaults.
fn held_by_job_spec(spec: &mut Value) {
    if let Some(policy) = present(spec, "podFailurePolicy") {
        for rule in items(policy, "rules") {
            for pattern in items(rule, "onPodConditions") {
                or_zero(pattern, "status", json!("True"));
            }
        }
    }
    if let Some(template) = object_at(spec, "template") {
        pod_template(template);
    }
}

/// `SetDefaults_CronJob`, and the defaults of what its job template holds.
fn cron_job_spec(spec: &mut Value) {
    or_zero(spec, "concurrencyPolicy", json!("Allow"));
    or_nil(spec, "suspend", json!(false));
    or_nil(spec, "successfulJobsHistoryLimit", json!(3));
    or_nil(spec, "failedJobsHistoryLimit", json!(1));
    if let Some(template) = object_at(spec, "jobTemplate") {
        object_at(template, "metadata");
        if let Some(job) = object_at(template, "spec") {
            held_by_job_spec(job);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_runs_once_with_six_retries_and_takes_its_template_s_labels() {
        let mut job = json!({"metadata": {"name": "j"}, "spec": {"template": {"metadata": {"labels": {"a": "b"}}}}});
        apply("Job", &mut job);
        let spec = &job["spec"];
        assert_eq!(
            (spec["parallelism"].clone(), spec["completions"].clone(), spec["backoffLimit"].clone()),
            (json!(1), json!(1), json!(6))
        );
        assert_eq!(spec["podReplacementPolicy"], "TerminatingOrFailed");
        assert_eq!(job["metadata"]["labels"], json!({"a": "b"}));
        let mut per_index = json!({"spec": {"backoffLimitPerIndex": 1, "completions": 3}});
        apply("Job", &mut per_index);
        assert_eq!((per_index["spec"]["backoffLimit"].clone(), per_index["spec"]["completions"].clone()), (json!(i32::MAX), json!(3)));
    }

    #[test]
    fn a_cron_job_keeps_three_successful_jobs_and_one_failed_by_default() {
        let mut cron_job = json!({"spec": {"schedule": "* * * * *", "failedJobsHistoryLimit": 0, "jobTemplate": {"spec": {}}}});
        apply("CronJob", &mut cron_job);
        let spec = &cron_job["spec"];
        assert_eq!(spec["successfulJobsHistoryLimit"], 3);
        assert_eq!(spec["failedJobsHistoryLimit"], 0, "a limit the user set is kept");
        assert_eq!((spec["concurrencyPolicy"].clone(), spec["suspend"].clone()), (json!("Allow"), json!(false)));
        assert!(spec["jobTemplate"]["spec"]["backoffLimit"].is_null(), "a job template gets no Job defaults");
        assert_eq!(spec["jobTemplate"]["spec"]["template"]["spec"]["restartPolicy"], "Always");
    }
}
