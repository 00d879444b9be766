//! CronJob schedules as the API server reads them to validate one: robfig/cron v3's standard
//! parser (`cron.ParseStandard`, github.com/robfig/cron/v3 parser.go, called by kubernetes
//! pkg/util/parsers `ParseCronScheduleWithPanicRecovery`), with its errors word for word: five
//! fields or a `@` descriptor, after an optional `TZ=` or `CRON_TZ=` time zone; and Go's
//! `time.LoadLocation`, which reads time zone names.

use std::str::FromStr;

use crate::apiserver::go_quote::quote;
use crate::go_duration;

/// The range of one field, and the names it accepts for its numbers.
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [&'static str],
}

/// Minute, hour, day of month, month and day of week, in a schedule's order. Month names
/// count from 1, weekday names from 0.
const FIELDS: [Bounds; 5] = [
    Bounds { min: 0, max: 59, names: &[] },
    Bounds { min: 0, max: 23, names: &[] },
    Bounds { min: 1, max: 31, names: &[] },
    Bounds { min: 1, max: 12, names: &["", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] },
    Bounds { min: 0, max: 6, names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"] },
];

/// The named schedules.
const DESCRIPTORS: &[&str] = &["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"];

/// Why `schedule` does not parse, in the cron parser's words, or `None` when it does.
pub fn parse_error(schedule: &str) -> Option<String> {
    if schedule.is_empty() {
        return Some("empty spec string".to_string());
    }
    let mut spec = schedule;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let zone_start = spec.find('=').map_or(0, |i| i + 1);
        let Some(zone_end) = spec.find(' ') else {
            // The parser slices up to a space it did not find; the panic is recovered.
            return Some("invalid schedule format: runtime error: slice bounds out of range [:-1]".to_string());
        };
        let zone = &spec[zone_start..zone_end];
        if let Some(error) = time_zone_error(zone) {
            return Some(format!("provided bad location {zone}: {error}"));
        }
        spec = spec[zone_end..].trim();
    }
    if spec.starts_with('@') {
        return descriptor_error(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != FIELDS.len() {
        return Some(format!("expected exactly {} fields, found {}: [{}]", FIELDS.len(), fields.len(), fields.join(" ")));
    }
    fields.iter().zip(&FIELDS).find_map(|(field, bounds)| field.split(',').filter(|r| !r.is_empty()).find_map(|r| range_error(r, bounds)))
}

/// Why a descriptor (`@daily`, `@every 1h30m`) names no schedule.
fn descriptor_error(descriptor: &str) -> Option<String> {
    if DESCRIPTORS.contains(&descriptor) {
        return None;
    }
    match descriptor.strip_prefix("@every ") {
        Some(duration) => {
            go_duration::parse(duration).err().map(|e| format!("failed to parse duration {descriptor}: {}", e.message(duration, quote)))
        }
        None => Some(format!("unrecognized descriptor: {descriptor}")),
    }
}

/// Why one range of a field (`5`, `1-5`, `*/10`, `mon-fri/2`) is not one of `bounds`.
fn range_error(expr: &str, bounds: &Bounds) -> Option<String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let (start, mut end) = if matches!(low_and_high[0], "*" | "?") {
        (bounds.min, bounds.max)
    } else {
        let start = match number_or_name(low_and_high[0], bounds) {
            Ok(n) => n,
            Err(e) => return Some(e),
        };
        match low_and_high.len() {
            1 => (start, start),
            2 => match number_or_name(low_and_high[1], bounds) {
                Ok(end) => (start, end),
                Err(e) => return Some(e),
            },
            _ => return Some(format!("too many hyphens: {expr}")),
        }
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => match number(range_and_step[1]) {
            // `N/step` runs from N to the field's maximum.
            Ok(step) => {
                if low_and_high.len() == 1 {
                    end = bounds.max;
                }
                step
            }
            Err(e) => return Some(e),
        },
        _ => return Some(format!("too many slashes: {expr}")),
    };
    if start < bounds.min {
        Some(format!("beginning of range ({start}) below minimum ({}): {expr}", bounds.min))
    } else if end > bounds.max {
        Some(format!("end of range ({end}) above maximum ({}): {expr}", bounds.max))
    } else if start > end {
        Some(format!("beginning of range ({start}) beyond end of range ({end}): {expr}"))
    } else if step == 0 {
        Some(format!("step of range should be a positive number: {expr}"))
    } else {
        None
    }
}

/// A field's number, or the number a name stands for (any case).
fn number_or_name(expr: &str, bounds: &Bounds) -> Result<u64, String> {
    let lower = expr.to_lowercase();
    match bounds.names.iter().position(|name| !name.is_empty() && *name == lower) {
        Some(n) => Ok(n as u64),
        None => number(expr),
    }
}

/// A non-negative decimal number, as Go's `strconv.Atoi` reads it (an optional sign, digits).
fn number(expr: &str) -> Result<u64, String> {
    match i64::from_str(expr) {
        Ok(n) => u64::try_from(n).map_err(|_| format!("negative number ({n}) not allowed: {expr}")),
        Err(e) => {
            let why = match e.kind() {
                std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => "value out of range",
                _ => "invalid syntax",
            };
            Err(format!("failed to parse int from {expr}: strconv.Atoi: parsing {}: {why}", quote(expr)))
        }
    }
}

/// Why Go's `time.LoadLocation` cannot load the time zone `name`, or `None` when it can (the
/// empty name and `UTC` are UTC, `Local` the server's own zone).
pub fn time_zone_error(name: &str) -> Option<String> {
    if matches!(name, "" | "UTC" | "Local") {
        return None;
    }
    if name.starts_with(['/', '\\']) || name.contains("..") {
        return Some("time: invalid location name".to_string());
    }
    chrono_tz::Tz::from_str(name).is_err().then(|| format!("unknown time zone {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_parse_as_robfig_cron_parses_them() {
        for ok in [
            "* * * * *",
            "*/5 1-5 ? JAN-dec mon-FRI/2",
            "0 0 1 1 0",
            "@every 1h30m",
            "@daily",
            "CRON_TZ=Europe/Paris 0 * * * *",
            "1,,2 * * * *",
        ] {
            assert_eq!(parse_error(ok), None, "{ok}");
        }
        for (bad, error) in [
            ("", "empty spec string"),
            ("x", "expected exactly 5 fields, found 1: [x]"),
            ("* * * *  * *", "expected exactly 5 fields, found 6: [* * * * * *]"),
            ("60 * * * *", "end of range (60) above maximum (59): 60"),
            ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
            ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
            ("*/0 * * * *", "step of range should be a positive number: */0"),
            ("*/-2 * * * *", "negative number (-2) not allowed: -2"),
            ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
            ("1/2/3 * * * *", "too many slashes: 1/2/3"),
            ("x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"),
            (
                "99999999999999999999 * * * *",
                "failed to parse int from 99999999999999999999: strconv.Atoi: parsing \"99999999999999999999\": value out of range",
            ),
            ("@often", "unrecognized descriptor: @often"),
            ("@every 1", "failed to parse duration @every 1: time: missing unit in duration \"1\""),
            ("TZ=Mars/Base * * * * *", "provided bad location Mars/Base: unknown time zone Mars/Base"),
            ("TZ=UTC", "invalid schedule format: runtime error: slice bounds out of range [:-1]"),
        ] {
            assert_eq!(parse_error(bad).as_deref(), Some(error), "{bad}");
        }
    }

    #[test]
    fn time_zones_load_as_go_loads_them() {
        for ok in ["", "UTC", "Local", "America/New_York", "Etc/GMT+5"] {
            assert_eq!(time_zone_error(ok), None, "{ok}");
        }
        assert_eq!(time_zone_error("Nowhere/City").as_deref(), Some("unknown time zone Nowhere/City"));
        assert_eq!(time_zone_error("a/../b").as_deref(), Some("time: invalid location name"));
    }
}
