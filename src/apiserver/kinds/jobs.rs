//! Jobs: the registry's defaults that the job controller relies on. Unless the Job asks for a
//! manual selector, the API server labels its pod template with the Job's name and uid
//! (`batch.kubernetes.io/job-name`, `batch.kubernetes.io/controller-uid` and their legacy
//! forms, keeping labels the user set) and selects on the uid label, so that a Job's pods match
//! only that Job (upstream `generateSelector` in the Job registry's strategy); the status starts
//! empty. A new CronJob's status starts empty too. Their defaulting functions are in
//! [`crate::apiserver::defaults::batch`].

use serde_json::{Value, json};

use crate::apiserver::catalogue::DefaultGcPolicy;
use crate::apiserver::deletion::DeleteOptions;
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

/// What a batch/v1 DELETE that leaves the policy to the default (orphaning the Job's pods) is
/// told (`deleteOptionWarnings` in pkg/registry/batch/job/storage/storage.go).
const ORPHANS_BY_DEFAULT: &str = "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning";

impl Kind for Jobs {
    /// Upstream's Job `REST.Delete` and `REST.DeleteCollection` warn when neither
    /// `propagationPolicy` nor `orphanDependents` is given at a version that orphans by
    /// default (batch/v1).
    fn delete_warning(&self, opts: &DeleteOptions, default: DefaultGcPolicy) -> Option<&'static str> {
        let left_to_default = opts.propagation.is_none() && opts.orphan_dependents.is_none();
        (left_to_default && default == DefaultGcPolicy::OrphanDependents).then_some(ORPHANS_BY_DEFAULT)
    }

    fn default_on_create(&self, job: &mut Value, _now: &str) {
        // Fields of the wrong type are left for validation to refuse.
        let paths: [&[&str]; 3] = [&["spec"], &["spec", "template", "metadata", "labels"], &["spec", "selector", "matchLabels"]];
        if !paths.iter().all(|path| objects_along(job, path)) || job["spec"]["manualSelector"] == json!(true) {
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
    }
}
