//! What upstream checks by declarative validation alone (`+k8s:` tags on the API types, the
//! handwritten checks marked `MarkCoveredByDeclarative`): its errors follow the handwritten
//! ones in a 422 (`rest.ValidateDeclarativelyWithMigrationChecks`, k8s.io/apiserver
//! pkg/registry/rest/validate.go).

use serde_json::Value;

use crate::apiserver::catalogue::ResourceInfo;
use crate::apiserver::status::FieldError;

/// The declarative validation errors of `object`, of `resource`.
pub fn validate(resource: &ResourceInfo, object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if resource.custom {
        return errors;
    }
    if (resource.group.as_str(), resource.kind.as_str()) == ("batch", "CronJob")
        && object["spec"]["schedule"].as_str().is_none_or(str::is_empty)
    {
        // `validateCronJobSpec`, kubernetes pkg/apis/batch/validation/validation.go.
        errors.push(FieldError::required("spec.schedule", ""));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::apiserver::catalogue::Catalogue;

    #[test]
    fn a_cron_job_needs_a_schedule() {
        let cronjobs = Catalogue::new().lookup("batch", "v1", "cronjobs").unwrap();
        assert_eq!(validate(&cronjobs, &json!({"spec": {}})), vec![FieldError::required("spec.schedule", "")]);
        assert_eq!(validate(&cronjobs, &json!({"spec": {"schedule": "* * * * *"}})), vec![]);
    }
}
