//! Validation of the enumerated fields the controllers read and write, as upstream's validation
//! refuses them: a 422 `Unsupported value` that lists the supported values, in upstream's order
//! (`pkg/apis/core/validation/validation.go`, `pkg/apis/apps/validation/validation.go`,
//! `pkg/apis/batch/validation/validation.go`). Pod specs are checked wherever they are
//! embedded; only values present are checked, since defaulting fills the rest.

use serde_json::{Value, json};

use crate::apiserver::catalogue::ResourceInfo;
use crate::apiserver::pod_specs::{self, items};
use crate::apiserver::status::FieldError;

/// Container image pull policies (`supportedPullPolicies`, listed sorted).
const PULL_POLICIES: &[&str] = &["Always", "IfNotPresent", "Never"];
/// Pod restart policies (`validateRestartPolicy`).
const RESTART_POLICIES: &[&str] = &["Always", "OnFailure", "Never"];
/// The restart policies of a Job's pods.
const JOB_RESTART_POLICIES: &[&str] = &["OnFailure", "Never"];
/// Pod DNS policies (`validateDNSPolicy`).
const DNS_POLICIES: &[&str] = &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
/// Port protocols (`supportedPortProtocols`, listed sorted).
const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
/// Service types (`supportedServiceType`, listed sorted).
const SERVICE_TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
/// Service session affinities (`supportedSessionAffinityType`, listed sorted).
const SESSION_AFFINITIES: &[&str] = &["ClientIP", "None"];
/// Deployment strategies (`ValidateDeploymentStrategy`).
const DEPLOYMENT_STRATEGIES: &[&str] = &["Recreate", "RollingUpdate"];
/// Job completion modes.
const COMPLETION_MODES: &[&str] = &["NonIndexed", "Indexed"];
/// CronJob concurrency policies (`validateConcurrencyPolicy`).
const CONCURRENCY_POLICIES: &[&str] = &["Allow", "Forbid", "Replace"];

/// The enumerated fields of `object`, of `resource`, that hold a value upstream does not support.
pub fn validate(resource: &ResourceInfo, object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if resource.custom {
        return errors;
    }
    for (pod_spec_at, path) in pod_specs::embedded(resource, object) {
        pod_spec(pod_spec_at, path, &mut errors);
    }
    let spec = &object["spec"];
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("apps", "Deployment") => {
            let strategy = &spec["strategy"];
            if strategy["type"].as_str().is_some_and(|t| !DEPLOYMENT_STRATEGIES.contains(&t)) {
                // Upstream shows the whole internal strategy, with its Go field names.
                let value = json!({"Type": strategy["type"], "RollingUpdate": strategy["rollingUpdate"]});
                errors.push(FieldError::not_supported("spec.strategy", value, DEPLOYMENT_STRATEGIES));
            }
        }
        ("batch", "Job") => {
            one_of(spec, "completionMode", "spec", COMPLETION_MODES, &mut errors);
            job_restart_policy(spec, "spec", &mut errors);
        }
        ("batch", "CronJob") => {
            one_of(spec, "concurrencyPolicy", "spec", CONCURRENCY_POLICIES, &mut errors);
            one_of(&spec["jobTemplate"]["spec"], "completionMode", "spec.jobTemplate.spec", COMPLETION_MODES, &mut errors);
            job_restart_policy(&spec["jobTemplate"]["spec"], "spec.jobTemplate.spec", &mut errors);
        }
        ("", "Service") => {
            one_of(spec, "sessionAffinity", "spec", SESSION_AFFINITIES, &mut errors);
            one_of(spec, "type", "spec", SERVICE_TYPES, &mut errors);
            for (i, port) in items(spec, "ports") {
                one_of(port, "protocol", &format!("spec.ports[{i}]"), PROTOCOLS, &mut errors);
            }
        }
        _ => {}
    }
    errors
}

/// A Job's pods restart on failure or never: the default `Always` (or none) is refused as
/// missing, and a pod failure policy asks for `Never` (`validateJobSpec`,
/// pkg/apis/batch/validation/validation.go).
fn job_restart_policy(job_spec: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let at = format!("{path}.template.spec.restartPolicy");
    match job_spec["template"]["spec"]["restartPolicy"].as_str().unwrap_or("") {
        "" | "Always" => {
            errors.push(FieldError::required(at, format!("valid values: {:?}, {:?}", JOB_RESTART_POLICIES[0], JOB_RESTART_POLICIES[1])))
        }
        "Never" => {}
        "OnFailure" if !job_spec["podFailurePolicy"].is_null() => {
            errors.push(FieldError::invalid(at, json!("OnFailure"), "only \"Never\" is supported when podFailurePolicy is specified"))
        }
        "OnFailure" => {}
        other => errors.push(FieldError::not_supported(at, json!(other), JOB_RESTART_POLICIES)),
    }
}

/// Refuses the string at `field` of `object` (at `path`) unless it is one of `supported`.
fn one_of(object: &Value, field: &str, path: &str, supported: &[&str], errors: &mut Vec<FieldError>) {
    if let Some(value) = object[field].as_str()
        && !supported.contains(&value)
    {
        errors.push(FieldError::not_supported(format!("{path}.{field}"), json!(value), supported));
    }
}

/// A pod spec at `path`: its containers' pull policies and port protocols, its restart and
/// DNS policies.
fn pod_spec(spec: &Value, path: &str, errors: &mut Vec<FieldError>) {
    for containers in ["containers", "initContainers"] {
        for (i, container) in items(spec, containers) {
            let at = format!("{path}.{containers}[{i}]");
            for (j, port) in items(container, "ports") {
                one_of(port, "protocol", &format!("{at}.ports[{j}]"), PROTOCOLS, errors);
            }
            one_of(container, "imagePullPolicy", &at, PULL_POLICIES, errors);
        }
    }
    one_of(spec, "restartPolicy", path, RESTART_POLICIES, errors);
    one_of(spec, "dnsPolicy", path, DNS_POLICIES, errors);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::catalogue::Catalogue;

    #[test]
    fn an_unsupported_pull_policy_in_a_template_is_named_with_the_supported_ones() {
        let deployments = Catalogue::new().lookup("apps", "v1", "deployments").unwrap();
        let d = json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "imagePullPolicy": "Sometimes"}]}}}});
        let errors = validate(&deployments, &d);
        assert_eq!(
            errors,
            vec![FieldError::not_supported("spec.template.spec.containers[0].imagePullPolicy", json!("Sometimes"), PULL_POLICIES)]
        );
        assert_eq!(errors[0].detail, r#"supported values: "Always", "IfNotPresent", "Never""#);
    }
}
