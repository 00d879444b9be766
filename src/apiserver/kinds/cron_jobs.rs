//! CronJobs: what `validateCronJobSpec` and `ValidateCronJobCreate` (kubernetes
//! pkg/apis/batch/validation/validation.go) refuse of a CronJob's own fields — a schedule the
//! cron parser cannot read ([`crate::apiserver::cron_schedule`]) or that names a time zone
//! (only an update of a schedule that already did may keep one), a negative starting deadline,
//! a time zone that cannot be loaded, negative history limits, and on create a name too long
//! for its Jobs' names. The concurrency policy and the job template are checked with the other
//! enumerations ([`crate::apiserver::enums`]), after these.

use serde_json::{Value, json};

use crate::apiserver::cron_schedule;
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::Kind;

/// batch/v1 CronJobs.
pub struct CronJobs;

/// The longest name a CronJob may have: its Jobs add an 11-character suffix to it and must
/// stay DNS-1035 labels of 63.
const LONGEST_NAME: usize = 63 - 11;

/// Characters a component of a time zone name may have (`validTimeZoneCharacters`).
fn time_zone_part_ok(part: &str) -> bool {
    (1..=14).contains(&part.len())
        && part.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'+'))
        && !matches!(part, "." | "..")
        && !part.starts_with('-')
}

/// `validateTimeZone`'s errors for the time zone `zone` at `spec.timeZone`.
fn time_zone_errors(zone: &str) -> Vec<FieldError> {
    let invalid = |detail: String| FieldError::invalid("spec.timeZone", json!(zone), detail);
    if zone.is_empty() {
        return vec![invalid("timeZone must be nil or non-empty string".to_string())];
    }
    if !zone.split('/').all(time_zone_part_ok) {
        return vec![invalid(format!("unknown time zone {zone}"))];
    }
    let mut errors = Vec::new();
    if zone.eq_ignore_ascii_case("Local") {
        errors.push(invalid("timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones".to_string()));
    }
    errors.extend(cron_schedule::time_zone_error(zone).map(invalid));
    errors
}

/// A negative integer at `field` of the spec, refused as `ValidateNonnegativeField` does.
fn negative(spec: &Value, field: &str) -> Option<FieldError> {
    let n = spec[field].as_i64().filter(|n| *n < 0)?;
    Some(FieldError::invalid(format!("spec.{field}"), json!(n), "must be greater than or equal to 0"))
}

/// `validateCronJobSpec`'s errors of the CronJob's own fields; `old` is the stored CronJob on
/// update.
fn spec_errors(cron_job: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let spec = &cron_job["spec"];
    let mut errors = Vec::new();
    if let Some(schedule) = spec["schedule"].as_str().filter(|s| !s.is_empty()) {
        let invalid = |detail: String| FieldError::invalid("spec.schedule", json!(schedule), detail);
        errors.extend(cron_schedule::parse_error(schedule).map(invalid));
        let tz_allowed = old.is_some_and(|old| old["spec"]["schedule"].as_str().is_some_and(|s| s.contains("TZ")));
        if schedule.contains("TZ") {
            if tz_allowed && !spec["timeZone"].is_null() {
                errors.push(invalid("cannot use both timeZone field and TZ or CRON_TZ in schedule".to_string()));
            } else if !tz_allowed {
                errors.push(invalid("cannot use TZ or CRON_TZ in schedule, use timeZone field instead".to_string()));
            }
        }
    }
    errors.extend(negative(spec, "startingDeadlineSeconds"));
    if old.is_none_or(|old| old["spec"]["timeZone"] != spec["timeZone"])
        && let Some(zone) = spec["timeZone"].as_str()
    {
        errors.extend(time_zone_errors(zone));
    }
    errors.extend(negative(spec, "successfulJobsHistoryLimit"));
    errors.extend(negative(spec, "failedJobsHistoryLimit"));
    errors
}

impl Kind for CronJobs {
    fn validate(&self, cron_job: &Value) -> Vec<FieldError> {
        spec_errors(cron_job, None)
    }

    /// The metadata's errors, the spec's, then a name too long for the Jobs'.
    fn validate_create(&self, cron_job: &Value, meta: Vec<FieldError>) -> Vec<FieldError> {
        let mut errors = [meta, self.validate(cron_job)].concat();
        let name = cron_job["metadata"]["name"].as_str().unwrap_or("");
        if name.len() > LONGEST_NAME {
            errors.push(FieldError::invalid("metadata.name", json!(name), format!("must be no more than {LONGEST_NAME} characters")));
        }
        errors
    }

    fn validate_update(&self, new: &Value, existing: &Value) -> Vec<FieldError> {
        spec_errors(new, Some(existing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(errors: Vec<FieldError>) -> Vec<String> {
        errors.iter().map(|e| format!("{}: {}", e.field, e.detail)).collect()
    }

    #[test]
    fn a_schedule_must_parse_and_name_no_time_zone_unless_it_already_did() {
        let with = |schedule: &str| json!({"metadata": {"name": "c"}, "spec": {"schedule": schedule}});
        assert_eq!(messages(CronJobs.validate(&with("0 * * * *"))), Vec::<String>::new());
        assert_eq!(messages(CronJobs.validate(&with("61 * * * *"))), ["spec.schedule: end of range (61) above maximum (59): 61"]);
        let zoned = with("TZ=UTC 0 * * * *");
        assert_eq!(
            messages(CronJobs.validate(&zoned)),
            ["spec.schedule: cannot use TZ or CRON_TZ in schedule, use timeZone field instead"]
        );
        assert_eq!(messages(CronJobs.validate_update(&zoned, &zoned)), Vec::<String>::new());
    }

    #[test]
    fn time_zones_deadlines_limits_and_long_names_are_checked() {
        let cron_job = json!({"metadata": {"name": "c".repeat(53)}, "spec": {"schedule": "@daily", "timeZone": "local",
            "startingDeadlineSeconds": -1, "failedJobsHistoryLimit": -2}});
        assert_eq!(
            messages(CronJobs.validate_create(&cron_job, vec![])),
            [
                "spec.startingDeadlineSeconds: must be greater than or equal to 0",
                "spec.timeZone: timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
                "spec.timeZone: unknown time zone local",
                "spec.failedJobsHistoryLimit: must be greater than or equal to 0",
                "metadata.name: must be no more than 52 characters",
            ]
        );
        assert_eq!(messages(time_zone_errors("a//b")), ["spec.timeZone: unknown time zone a//b"]);
    }
}
