//! Go's time semantics that the kubelet's decisions depend on: the zero time (an image never
//! used has `lastUsed` = zero), saturating subtraction (`time.Time.Sub`), and the text of
//! durations (`time.Duration.String`, quoted in error messages) and its parser.

use chrono::{NaiveDate, NaiveTime};

/// The time types the model uses, re-exported so that users need no `chrono` of their own.
pub use chrono::{DateTime, TimeDelta, Utc};

/// Go's zero `time.Time`: 0001-01-01T00:00:00Z. An image that no container ever used has this
/// `lastUsed`, so it sorts before every used image.
pub fn zero_time() -> DateTime<Utc> {
    NaiveDate::from_ymd_opt(1, 1, 1).and_then(|d| d.and_hms_opt(0, 0, 0)).map(|t| t.and_utc()).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// The latest instant the model can represent (Go's is later still; the model's suffices to
/// show that nothing happens "even at the end of time").
pub fn latest_time() -> DateTime<Utc> {
    DateTime::<Utc>::MAX_UTC
}

/// The largest Go `time.Duration`: 2^63 − 1 nanoseconds (about 292 years).
pub fn max_duration() -> TimeDelta {
    TimeDelta::nanoseconds(i64::MAX)
}

/// Go's `later.Sub(earlier)`: the difference, saturated to the range of a `time.Duration`.
/// (Ages of never-used images, measured from year 1, saturate at about 292 years.)
pub fn sub(later: DateTime<Utc>, earlier: DateTime<Utc>) -> TimeDelta {
    let d = later.signed_duration_since(earlier);
    match d.num_nanoseconds() {
        Some(_) => d,
        None if d > TimeDelta::zero() => max_duration(),
        None => TimeDelta::nanoseconds(i64::MIN),
    }
}

/// `t + d`, or `None` past the representable range (instead of a panic).
pub fn add(t: DateTime<Utc>, d: TimeDelta) -> Option<DateTime<Utc>> {
    t.checked_add_signed(d)
}

/// Go's `Duration.String()`: `0s`, `1ns`, `1.5µs`, `2ms`, `3s`, `2m0s`, `1h0m0s`, `1m0.000000001s`.
pub fn format_duration(d: TimeDelta) -> String {
    let ns = d.num_nanoseconds().unwrap_or(if d > TimeDelta::zero() { i64::MAX } else { i64::MIN });
    let negative = ns < 0;
    let mut u = ns.unsigned_abs();
    let mut out = String::new();
    if u < 1_000_000_000 {
        let (unit, prec) = match u {
            0 => return "0s".into(),
            1..1_000 => ("ns", 0),
            1_000..1_000_000 => ("µs", 3),
            _ => ("ms", 6),
        };
        let (frac, rest) = fraction(u, prec);
        out.push_str(&format!("{rest}{frac}{unit}"));
    } else {
        let (frac, rest) = fraction(u, 9);
        u = rest;
        let seconds = format!("{}{frac}s", u % 60);
        u /= 60;
        if u > 0 {
            let minutes = format!("{}m", u % 60);
            u /= 60;
            if u > 0 {
                out.push_str(&format!("{u}h"));
            }
            out.push_str(&minutes);
        }
        out.push_str(&seconds);
    }
    if negative { format!("-{out}") } else { out }
}

/// The fraction `v / 10^prec` as `.ddd` without trailing zeros (empty when zero), and the
/// integer part.
fn fraction(mut v: u64, prec: u32) -> (String, u64) {
    let mut digits = Vec::new();
    let mut print = false;
    for _ in 0..prec {
        let digit = v % 10;
        print = print || digit != 0;
        if print {
            digits.push(char::from(b'0' + digit as u8));
        }
        v /= 10;
    }
    if digits.is_empty() {
        return (String::new(), v);
    }
    digits.reverse();
    (format!(".{}", digits.into_iter().collect::<String>()), v)
}

/// The instant at time of day `text` (`HH:MM`, `HH:MM:SS`, `HH:MM:SS.fraction`) on the day of
/// `day`, or `None` when `text` is not a time of day.
pub fn on_day_at(day: DateTime<Utc>, text: &str) -> Option<DateTime<Utc>> {
    let time = NaiveTime::parse_from_str(text, "%H:%M:%S%.f").or_else(|_| NaiveTime::parse_from_str(text, "%H:%M")).ok()?;
    Some(day.date_naive().and_time(time).and_utc())
}

/// Go's `time.ParseDuration` ([`crate::go_duration`]), its error in Go's words.
pub fn parse_duration(text: &str) -> Result<TimeDelta, String> {
    crate::go_duration::parse(text).map_err(|e| e.message(text, |s| format!("{s:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_go_prints_them() {
        for (ns, text) in [
            (0, "0s"),
            (1, "1ns"),
            (-1, "-1ns"),
            (2, "2ns"),
            (1_500, "1.5µs"),
            (2_000_000, "2ms"),
            (3_000_000_000, "3s"),
            (120_000_000_000, "2m0s"),
            (3_600_000_000_000, "1h0m0s"),
            (60_000_000_001, "1m0.000000001s"),
            (90_061_000_000_000, "25h1m1s"),
        ] {
            assert_eq!(format_duration(TimeDelta::nanoseconds(ns)), text);
            assert_eq!(parse_duration(text).unwrap(), TimeDelta::nanoseconds(ns), "{text}");
        }
        assert_eq!(format_duration(max_duration()), "2562047h47m16.854775807s");
    }

    #[test]
    fn subtraction_saturates_like_go() {
        let now = NaiveDate::from_ymd_opt(2025, 1, 1).unwrap().and_hms_opt(0, 0, 0).unwrap().and_utc();
        assert_eq!(sub(now, zero_time()), max_duration());
        assert_eq!(sub(zero_time(), now), TimeDelta::nanoseconds(i64::MIN));
        assert_eq!(sub(latest_time(), now), max_duration());
        assert_eq!(sub(now, now), TimeDelta::zero());
    }
}
