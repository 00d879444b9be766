//! Jobs: the registry's defaults that the job controller relies on. Unless the Job asks for a
//! manual selector, the API server labels its pod template with the Job's name and uid
//! (`batch.kubernetes.io/job-name`, `batch.kubernetes.io/controller-uid` and their legacy
//! forms, keeping labels the user set) and selects on the uid label, so that a Job's pods match
//! only that Job (upstream `generateSelector` in the Job registry's strategy); the status starts
//! empty. A new CronJob's status starts empty too. Their defaulting functions are in
//! [`crate::apiserver::defaults::batch`]. Validation (pkg/apis/batch/validation/validation.go)
//! checks that a generated selector and labels are as generated (`validateGeneratedSelector`,
//! on create), that the selector is given and matches the template (`ValidateJobSpec`), and
//! that an update keeps the selector (`ValidateJobSpecUpdate`).

use kube::core::SelectorExt;
use serde_json::{Value, json};

use crate::apiserver::catalogue::DefaultGcPolicy;
use crate::apiserver::deletion::DeleteOptions;
use crate::apiserver::kinds::workloads::{JOB_SELECTOR, label_selector};
use crate::apiserver::status::FieldError;
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

/// What `validateGeneratedSelector` refuses of a Job whose selector the API server generated:
/// a template label of [`GENERATED_LABELS`] missing or not the Job's, or a selector that does
/// not select the generated labels alone.
fn generated_selector_errors(job: &Value) -> Vec<FieldError> {
    if job["spec"]["manualSelector"] == json!(true) || job["spec"]["selector"].is_null() {
        return Vec::new();
    }
    let labels = &job["spec"]["template"]["metadata"]["labels"];
    // Upstream checks the uid label before the name label, the legacy forms first.
    let in_checked_order = [GENERATED_LABELS[2], GENERATED_LABELS[0], GENERATED_LABELS[3], GENERATED_LABELS[1]];
    let mut errs: Vec<FieldError> = in_checked_order
        .into_iter()
        .filter_map(|(label, field)| {
            let expected = &job["metadata"][field];
            let path = format!("spec.template.metadata.labels[{label}]");
            let must_be = format!("must be '{}'", expected.as_str().unwrap_or(""));
            match labels.get(label) {
                None => Some(FieldError::required(path, &must_be)),
                Some(value) if value != expected => Some(FieldError::invalid(path, labels.clone(), must_be)),
                Some(_) => None,
            }
        })
        .collect();
    let generated =
        GENERATED_LABELS.iter().map(|(label, field)| (label.to_string(), job["metadata"][*field].as_str().unwrap_or("").to_string()));
    let generated = generated.collect::<std::collections::BTreeMap<_, _>>();
    if label_selector(&job["spec"]["selector"]).is_some_and(|s| !s.matches(&generated)) {
        errs.push(FieldError::invalid("spec.selector", job["spec"]["selector"].clone(), "`selector` not auto-generated"));
    }
    errs
}

impl Kind for Jobs {
    /// `ValidateJobCreate`'s selector checks.
    fn validate(&self, job: &Value) -> Vec<FieldError> {
        let mut errs = generated_selector_errors(job);
        errs.extend(JOB_SELECTOR.errors(job));
        errs
    }

    /// `ValidateJobSpecUpdate`'s selector checks: the new spec's, then the selector's
    /// immutability.
    fn validate_update(&self, new: &Value, existing: &Value) -> Vec<FieldError> {
        let mut errs = JOB_SELECTOR.errors(new);
        let selector = &new["spec"]["selector"];
        if *selector != existing["spec"]["selector"] {
            errs.push(FieldError::invalid("spec.selector", selector.clone(), "field is immutable"));
        }
        errs
    }

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
    use crate::apiserver::status::ApiError;

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

    fn message(errs: Vec<FieldError>) -> String {
        ApiError::invalid("batch", "Job", "c", errs).message
    }

    #[test]
    fn an_update_keeps_a_selector_that_matches_the_template() {
        let mut job = json!({"metadata": {"name": "c", "uid": "u-1"}, "spec": {"suspend": true, "template": {"spec": {}}}});
        Jobs.default_on_create(&mut job, "");
        assert_eq!(Jobs.validate(&job), vec![]);
        let mut without = job.clone();
        without["spec"].as_object_mut().unwrap().remove("selector");
        without["spec"]["template"]["metadata"].as_object_mut().unwrap().remove("labels");
        // What kube-apiserver answered a PUT of such a Job (the random differential, seed 2).
        assert_eq!(
            message(Jobs.validate_update(&without, &job)),
            "Job.batch \"c\" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`, spec.selector: Invalid value: null: field is immutable]"
        );
        assert_eq!(Jobs.validate_update(&job, &job), vec![]);
    }

    #[test]
    fn a_selector_is_generated_unless_the_job_asks_for_its_own() {
        let mut job = json!({"metadata": {"name": "c", "uid": "u-1"}, "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": {"metadata": {"labels": {"app": "x", "controller-uid": "u-2"}}}}});
        Jobs.default_on_create(&mut job, "");
        assert_eq!(
            message(Jobs.validate(&job)),
            "Job.batch \"c\" is invalid: [spec.template.metadata.labels[controller-uid]: Invalid value: {\"app\":\"x\",\"batch.kubernetes.io/controller-uid\":\"u-1\",\"batch.kubernetes.io/job-name\":\"c\",\"controller-uid\":\"u-2\",\"job-name\":\"c\"}: must be 'u-1', spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"x\",\"batch.kubernetes.io/controller-uid\":\"u-1\"}}: `selector` not auto-generated]"
        );
        // An empty selector of a Job that chose its own selects every pod.
        let manual = json!({"spec": {"manualSelector": true, "selector": {}, "template": {"metadata": {"labels": {"app": "x"}}}}});
        assert_eq!(Jobs.validate(&manual), vec![]);
        let mismatch = json!({"spec": {"manualSelector": true, "selector": {"matchLabels": {"app": "y"}}, "template": {"metadata": {"labels": {"app": "x"}}}}});
        assert!(message(Jobs.validate(&mismatch)).ends_with("`selector` does not match template `labels`"));
    }
}
