//! Jobs: the registry's defaults that the job controller relies on. Unless the Job asks for a
//! manual selector, the API server labels its pod template with the Job's name and uid
//! (`batch.kubernetes.io/job-name`, `batch.kubernetes.io/controller-uid` and their legacy
//! forms, keeping labels the user set) and selects on the uid label, so that a Job's pods match
//! only that Job (upstream `generateSelector` in the Job registry's strategy). The defaulting
//! functions fill `parallelism`, `completions` (both 1 when neither is set), `backoffLimit` (6),
//! `completionMode`, `suspend` and `manualSelector`; the status starts empty.
//!
//! CronJobs get the defaults the CronJob controller reads (`SetDefaults_CronJob` in
//! `pkg/apis/batch/v1/defaults.go`): `concurrencyPolicy: Allow`, `suspend: false`, and history
//! limits of 3 successful and 1 failed Job.

use serde_json::{Value, json};

use crate::apiserver::storage::hooks::{Kind, objects_along};

/// batch/v1 Jobs.
pub struct Jobs;

/// The pod-template labels the API server adds, each with the Job metadata field it takes.
const GENERATED_LABELS: [(&str, &str); 4] = [
    ("job-name", "name"),
    ("batch.kubernetes.io/job-name", "name"),
    ("controller-uid", "uid"),
    ("batch.kubernetes.io/controller-uid", "uid"),
];

impl Kind for Jobs {
    fn default_on_create(&self, job: &mut Value, _now: &str) {
        job["status"] = json!({});
        // Fields of the wrong type are left for validation to refuse.
        let paths: [&[&str]; 3] = [&["spec"], &["spec", "template", "metadata", "labels"], &["spec", "selector", "matchLabels"]];
        if !paths.iter().all(|path| objects_along(job, path)) {
            return;
        }
        let spec = &mut job["spec"];
        if spec["parallelism"].is_null() && spec["completions"].is_null() {
            spec["parallelism"] = json!(1);
            spec["completions"] = json!(1);
        } else if spec["parallelism"].is_null() {
            spec["parallelism"] = json!(1);
        }
        for (field, default) in [
            ("backoffLimit", json!(6)),
            ("completionMode", json!("NonIndexed")),
            ("suspend", json!(false)),
            ("manualSelector", json!(false)),
        ] {
            if spec[field].is_null() {
                spec[field] = default;
            }
        }
        if spec["manualSelector"] == json!(true) {
            return;
        }
        let meta = job["metadata"].clone();
        let template_labels = &mut job["spec"]["template"]["metadata"]["labels"];
        for (label, field) in GENERATED_LABELS {
            if template_labels[label].is_null() {
                template_labels[label] = meta[field].clone();
            }
        }
        let match_labels = &mut job["spec"]["selector"]["matchLabels"];
        if match_labels["batch.kubernetes.io/controller-uid"].is_null() {
            match_labels["batch.kubernetes.io/controller-uid"] = meta["uid"].clone();
        }
    }
}

/// batch/v1 CronJobs.
pub struct CronJobs;

impl Kind for CronJobs {
    fn default_on_create(&self, cron_job: &mut Value, _now: &str) {
        cron_job["status"] = json!({});
        if !objects_along(cron_job, &["spec"]) {
            return;
        }
        let spec = &mut cron_job["spec"];
        for (field, default) in [
            ("concurrencyPolicy", json!("Allow")),
            ("suspend", json!(false)),
            ("successfulJobsHistoryLimit", json!(3)),
            ("failedJobsHistoryLimit", json!(1)),
        ] {
            if spec[field].is_null() {
                spec[field] = default;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_selects_its_pods_by_its_uid() {
        let mut job =
            json!({"metadata": {"name": "pi", "uid": "u-1"}, "spec": {"template": {"metadata": {"labels": {"job-name": "mine"}}}}});
        Jobs.default_on_create(&mut job, "");
        let labels = &job["spec"]["template"]["metadata"]["labels"];
        assert_eq!(labels["job-name"], "mine", "a label the user set is kept");
        assert_eq!(labels["batch.kubernetes.io/job-name"], "pi");
        assert_eq!(labels["batch.kubernetes.io/controller-uid"], "u-1");
        assert_eq!(job["spec"]["selector"], json!({"matchLabels": {"batch.kubernetes.io/controller-uid": "u-1"}}));
        assert_eq!((job["spec"]["parallelism"].clone(), job["spec"]["completions"].clone()), (json!(1), json!(1)));
    }

    #[test]
    fn a_cron_job_keeps_three_successful_jobs_and_one_failed_by_default() {
        let mut cron_job = json!({"metadata": {"name": "c"}, "spec": {"schedule": "* * * * *", "failedJobsHistoryLimit": 0}});
        CronJobs.default_on_create(&mut cron_job, "");
        let spec = &cron_job["spec"];
        assert_eq!(spec["successfulJobsHistoryLimit"], 3);
        assert_eq!(spec["failedJobsHistoryLimit"], 0, "a limit the user set is kept");
        assert_eq!((spec["concurrencyPolicy"].clone(), spec["suspend"].clone()), (json!("Allow"), json!(false)));
    }
}
