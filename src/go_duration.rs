//! Go's `time.ParseDuration` (Go's src/time/format.go): a signed sequence of decimal numbers,
//! each with a unit (`ns`, `us`/`µs`/`μs`, `ms`, `s`, `m`, `h`), such as `1m`, `-1ns`, `1h30m`,
//! `1.5s`; `0` alone needs no unit. Read by the kubelet model's thresholds and by the API
//! server's CronJob schedules (`@every 1h`), whose messages quote Go's errors.

use chrono::TimeDelta;

/// Why a duration does not parse, as Go tells the three cases apart.
#[derive(Clone, Debug, PartialEq)]
pub enum DurationError {
    /// `time: invalid duration "<text>"`: no number where one must be, or too large.
    Invalid,
    /// `time: missing unit in duration "<text>"`.
    MissingUnit,
    /// `time: unknown unit "<unit>" in duration "<text>"`.
    UnknownUnit(String),
}

impl DurationError {
    /// Go's message for `text`, its strings quoted by `quote` (Go's `strconv.Quote` where the
    /// words must be upstream's).
    pub fn message(&self, text: &str, quote: impl Fn(&str) -> String) -> String {
        match self {
            Self::Invalid => format!("time: invalid duration {}", quote(text)),
            Self::MissingUnit => format!("time: missing unit in duration {}", quote(text)),
            Self::UnknownUnit(unit) => format!("time: unknown unit {} in duration {}", quote(unit), quote(text)),
        }
    }
}

/// Nanoseconds in one of each unit.
fn unit_nanos(unit: &str) -> Option<u64> {
    Some(match unit {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// The length of the run of bytes at the start of `s` that `keep` accepts.
fn run(s: &[u8], keep: impl Fn(u8) -> bool) -> usize {
    s.iter().position(|b| !keep(*b)).unwrap_or(s.len())
}

/// `text` as Go's `time.ParseDuration` reads it.
pub fn parse(text: &str) -> Result<TimeDelta, DurationError> {
    const LIMIT: u64 = 1 << 63;
    let (negative, mut s) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        all => (false, all),
    };
    if s == b"0" {
        return Ok(TimeDelta::zero());
    }
    if s.is_empty() {
        return Err(DurationError::Invalid);
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(DurationError::Invalid);
        }
        let whole_len = run(s, |b| b.is_ascii_digit());
        // Go's leadingInt refuses a whole part past 1<<63.
        let mut whole: u64 = 0;
        for digit in &s[..whole_len] {
            whole = whole
                .checked_mul(10)
                .and_then(|w| w.checked_add(u64::from(digit - b'0')))
                .filter(|w| *w <= LIMIT)
                .ok_or(DurationError::Invalid)?;
        }
        s = &s[whole_len..];
        // A fraction keeps the digits that fit and skips the rest, as Go's leadingFraction.
        let (mut fraction, mut scale, mut fraction_len) = (0u64, 1f64, 0);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            fraction_len = run(s, |b| b.is_ascii_digit());
            let mut overflowed = false;
            for digit in &s[..fraction_len] {
                match fraction.checked_mul(10).and_then(|f| f.checked_add(u64::from(digit - b'0'))).filter(|f| *f <= LIMIT) {
                    Some(f) if !overflowed => {
                        fraction = f;
                        scale *= 10.0;
                    }
                    _ => overflowed = true,
                }
            }
            s = &s[fraction_len..];
        }
        if whole_len == 0 && fraction_len == 0 {
            return Err(DurationError::Invalid);
        }
        let unit_len = run(s, |b| !(b == b'.' || b.is_ascii_digit()));
        if unit_len == 0 {
            return Err(DurationError::MissingUnit);
        }
        // The unit ends before an ASCII byte or at the end: it is whole UTF-8.
        let unit = String::from_utf8_lossy(&s[..unit_len]).into_owned();
        s = &s[unit_len..];
        let nanos = unit_nanos(&unit).ok_or(DurationError::UnknownUnit(unit))?;
        if whole > LIMIT / nanos {
            return Err(DurationError::Invalid);
        }
        let mut value = whole * nanos;
        if fraction > 0 {
            // Go adds the fraction's nanoseconds through a float, truncated.
            value = value.saturating_add((fraction as f64 * (nanos as f64 / scale)) as u64);
            if value > LIMIT {
                return Err(DurationError::Invalid);
            }
        }
        total = total.checked_add(value).filter(|t| *t <= LIMIT).ok_or(DurationError::Invalid)?;
    }
    let nanos = match (negative, i64::try_from(total)) {
        (false, Ok(n)) => n,
        (true, Ok(n)) => -n,
        (true, Err(_)) => i64::MIN,
        (false, Err(_)) => return Err(DurationError::Invalid),
    };
    Ok(TimeDelta::nanoseconds(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> String {
        parse(text).unwrap_err().message(text, |s| format!("{s:?}"))
    }

    #[test]
    fn durations_read_as_go_reads_them() {
        for (text, ns) in [("0", 0), ("-0", 0), ("1.5h", 5_400_000_000_000), ("+2m", 120_000_000_000), ("1h30m", 5_400_000_000_000)] {
            assert_eq!(parse(text), Ok(TimeDelta::nanoseconds(ns)), "{text}");
        }
        assert_eq!(parse(".5s"), Ok(TimeDelta::milliseconds(500)));
        assert_eq!(parse("1µs"), Ok(TimeDelta::microseconds(1)));
        assert_eq!(parse("-9223372036854775808ns"), Ok(TimeDelta::nanoseconds(i64::MIN)));
    }

    #[test]
    fn bad_durations_have_go_s_three_messages() {
        for text in ["", "-", "h", ".s", "99999999999999999999h", "9223372036854775808ns"] {
            assert_eq!(message(text), format!("time: invalid duration {text:?}"));
        }
        assert_eq!(message("1"), "time: missing unit in duration \"1\"");
        assert_eq!(message("1.2.3s"), "time: missing unit in duration \"1.2.3s\"");
        assert_eq!(message("1x"), "time: unknown unit \"x\" in duration \"1x\"");
        assert_eq!(message("1m-1s"), "time: unknown unit \"m-\" in duration \"1m-1s\"");
        assert_eq!(message("1h2"), "time: missing unit in duration \"1h2\"");
    }
}
