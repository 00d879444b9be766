//! Go's `time.Parse` of the two layouts Kubernetes' times decode with, for its errors:
//! `metav1.Time` parses `time.RFC3339`, `metav1.MicroTime` `metav1.RFC3339Micro` (exactly six
//! digits of a second's fraction), and a create or update whose time does not parse is refused
//! with Go's words (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as
//! "2006"`, `parsing time "2020-13-45T99:99:99Z": month out of range`; Go's src/time/format.go).

/// A layout a Kubernetes time is parsed with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    /// `time.RFC3339`, which `metav1.Time` parses: any fraction of a second may follow.
    Rfc3339,
    /// `metav1.RFC3339Micro`, which `metav1.MicroTime` parses: six digits of fraction, no more
    /// and no fewer.
    Rfc3339Micro,
}

impl Layout {
    /// `time` written as a time of this layout marshals: in UTC, to the second or with six
    /// digits of fraction.
    pub fn format(self, time: chrono::DateTime<chrono::Utc>) -> String {
        let format = match self {
            Layout::Rfc3339 => "%Y-%m-%dT%H:%M:%SZ",
            Layout::Rfc3339Micro => "%Y-%m-%dT%H:%M:%S%.6fZ",
        };
        time.format(format).to_string()
    }

    /// Go's text of the layout.
    fn text(self) -> &'static str {
        match self {
            Layout::Rfc3339 => "2006-01-02T15:04:05Z07:00",
            Layout::Rfc3339Micro => "2006-01-02T15:04:05.000000Z07:00",
        }
    }

    /// The layout's chunks in order: a literal to skip, or a value element.
    fn chunks(self) -> impl Iterator<Item = Chunk> {
        const DATE_TIME: [Chunk; 11] = [
            Chunk::Number("2006"),
            Chunk::Literal("-"),
            Chunk::Number("01"),
            Chunk::Literal("-"),
            Chunk::Number("02"),
            Chunk::Literal("T"),
            Chunk::Number("15"),
            Chunk::Literal(":"),
            Chunk::Number("04"),
            Chunk::Literal(":"),
            Chunk::Number("05"),
        ];
        let fraction = (self == Layout::Rfc3339Micro).then_some(Chunk::Fraction(6));
        DATE_TIME.into_iter().chain(fraction).chain([Chunk::Zone])
    }
}

#[derive(Clone, Copy)]
enum Chunk {
    Literal(&'static str),
    Number(&'static str),
    /// A fraction of a second of exactly this many digits (`.000000`).
    Fraction(usize),
    Zone,
}

/// Go's `time.quote`: ASCII as it is (`"` and `\` escaped), other bytes as `\xNN`.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut bytes = [0; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("\\x{byte:02x}"));
            }
        }
    }
    out.push('"');
    out
}

/// Go's `getnum`: one or two leading digits (two when `fixed`).
fn getnum(s: &str, fixed: bool) -> Option<(u32, &str)> {
    let digit = |i: usize| s.as_bytes().get(i).filter(|b| b.is_ascii_digit()).map(|b| u32::from(b - b'0'));
    let first = digit(0)?;
    match digit(1) {
        Some(second) => Some((first * 10 + second, &s[2..])),
        None if fixed => None,
        None => Some((first, &s[1..])),
    }
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Go's error for `time.Parse(layout, value)`, or `None` when it parses.
pub fn parse_error(value: &str, layout: Layout) -> Option<String> {
    let cannot = |elem: &str, rest: &str| {
        Some(format!("parsing time {} as {}: cannot parse {} as {}", quote(value), quote(layout.text()), quote(rest), quote(elem)))
    };
    let out_of_range = |what: &str| Some(format!("parsing time {}: {what} out of range", quote(value)));
    let mut rest = value;
    let (mut year, mut month, mut day) = (0, 0, 0);
    for chunk in layout.chunks() {
        match chunk {
            Chunk::Literal(literal) => match rest.strip_prefix(literal) {
                Some(after) => rest = after,
                None => return cannot(literal, rest),
            },
            Chunk::Number("2006") => {
                let digits = rest.get(..4).filter(|p| p.bytes().all(|b| b.is_ascii_digit()));
                let Some(digits) = digits else { return cannot("2006", rest) };
                year = digits.parse().unwrap_or(0);
                rest = &rest[4..];
            }
            Chunk::Number(elem) => {
                let Some((n, after)) = getnum(rest, elem != "15") else { return cannot(elem, rest) };
                let range = match elem {
                    "01" if !(1..=12).contains(&n) => Some("month"),
                    "15" if n >= 24 => Some("hour"),
                    "04" if n >= 60 => Some("minute"),
                    "05" if n >= 60 => Some("second"),
                    _ => None,
                };
                if let Some(what) = range {
                    return out_of_range(what);
                }
                match elem {
                    "01" => month = n,
                    "02" => day = n,
                    _ => {}
                }
                rest = after;
                if elem == "05" && layout == Layout::Rfc3339 {
                    // A fraction of a second may follow the seconds, unasked for by the layout.
                    let bytes = rest.as_bytes();
                    if bytes.len() >= 2 && (bytes[0] == b'.' || bytes[0] == b',') && bytes[1].is_ascii_digit() {
                        let n = 1 + bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
                        rest = &rest[n..];
                    }
                }
            }
            Chunk::Fraction(digits) => {
                let elem = format!(".{}", "0".repeat(digits));
                let bytes = rest.as_bytes();
                if bytes.len() <= digits || !matches!(bytes[0], b'.' | b',') {
                    return cannot(&elem, rest);
                }
                // Go's `atoi` of the digits: a sign may lead them, a negative number out of range.
                let number = &bytes[1..=digits];
                let unsigned = number.strip_prefix(b"-").or_else(|| number.strip_prefix(b"+")).unwrap_or(number);
                if !unsigned.iter().all(u8::is_ascii_digit) {
                    return cannot(&elem, rest);
                }
                if number[0] == b'-' && unsigned.iter().any(|&b| b != b'0') {
                    return out_of_range("fractional second");
                }
                rest = &rest[digits + 1..];
            }
            Chunk::Zone => {
                if let Some(after) = rest.strip_prefix('Z') {
                    rest = after;
                    continue;
                }
                let bytes = rest.as_bytes();
                if bytes.len() < 6 || bytes[3] != b':' {
                    return cannot("Z07:00", rest);
                }
                let two = |at: usize| match (bytes[at], bytes[at + 1]) {
                    (a, b) if a.is_ascii_digit() && b.is_ascii_digit() => Some(u32::from(a - b'0') * 10 + u32::from(b - b'0')),
                    _ => None,
                };
                let hours = two(1);
                let minutes = hours.and(two(4));
                // Go tests the ranges (the minute's last) before the digits and the sign.
                if minutes.unwrap_or(0) > 60 {
                    return out_of_range("time zone offset minute");
                }
                if hours.unwrap_or(0) > 24 {
                    return out_of_range("time zone offset hour");
                }
                if minutes.is_none() || !matches!(bytes[0], b'+' | b'-') {
                    return cannot("Z07:00", rest);
                }
                rest = &rest[6..];
            }
        }
    }
    if !rest.is_empty() {
        return Some(format!("parsing time {}: extra text: {}", quote(value), quote(rest)));
    }
    if day < 1 || day > days_in(month, year) {
        return out_of_range("day");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_as_go_parses_them() {
        for good in ["2020-01-02T03:04:05Z", "2020-02-29T23:59:59.123456789+01:00", "2020-01-02T3:04:05-07:30"] {
            assert_eq!(parse_error(good, Layout::Rfc3339), None, "{good}");
        }
        let cases = [
            ("xxxx", r#"parsing time "xxxx" as "2006-01-02T15:04:05Z07:00": cannot parse "xxxx" as "2006""#),
            ("2020-13-45T99:99:99Z", r#"parsing time "2020-13-45T99:99:99Z": month out of range"#),
            ("2020-01-02T24:00:00Z", r#"parsing time "2020-01-02T24:00:00Z": hour out of range"#),
            ("2021-02-29T00:00:00Z", r#"parsing time "2021-02-29T00:00:00Z": day out of range"#),
            (
                "2020-01-02 03:04:05Z",
                r#"parsing time "2020-01-02 03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 03:04:05Z" as "T""#,
            ),
            ("2020-01-02T03:04:05", r#"parsing time "2020-01-02T03:04:05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00""#),
            ("2020-01-02T03:04:05Zx", r#"parsing time "2020-01-02T03:04:05Zx": extra text: "x""#),
            ("é", r#"parsing time "\xc3\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\xc3\xa9" as "2006""#),
        ];
        for (value, error) in cases {
            assert_eq!(parse_error(value, Layout::Rfc3339).as_deref(), Some(error), "{value}");
        }
    }

    #[test]
    fn micro_times_take_six_digits_of_fraction_as_go_parses_them() {
        for good in [
            "2020-01-02T03:04:05.123456Z",
            "2020-01-02T03:04:05,123456+01:00",
            "2020-01-02T03:04:05.+12345Z",
            "2020-01-02T03:04:05.-00000Z",
        ] {
            assert_eq!(parse_error(good, Layout::Rfc3339Micro), None, "{good}");
        }
        let layout = "2006-01-02T15:04:05.000000Z07:00";
        let cases = [
            ("2020-01-02T03:04:05Z", format!(r#"parsing time "2020-01-02T03:04:05Z" as "{layout}": cannot parse "Z" as ".000000""#)),
            (
                "2020-01-02T03:04:05.123Z",
                format!(r#"parsing time "2020-01-02T03:04:05.123Z" as "{layout}": cannot parse ".123Z" as ".000000""#),
            ),
            (
                "2020-01-02T03:04:05.1234567Z",
                format!(r#"parsing time "2020-01-02T03:04:05.1234567Z" as "{layout}": cannot parse "7Z" as "Z07:00""#),
            ),
            ("2020-01-02T03:04:05.-12345Z", r#"parsing time "2020-01-02T03:04:05.-12345Z": fractional second out of range"#.to_string()),
            (
                "2020-01-02T03:04:05.12é456Z",
                format!(r#"parsing time "2020-01-02T03:04:05.12\xc3\xa9456Z" as "{layout}": cannot parse ".12\xc3\xa9456Z" as ".000000""#),
            ),
            (
                "2020-01-02T03:04:05.12345",
                format!(r#"parsing time "2020-01-02T03:04:05.12345" as "{layout}": cannot parse ".12345" as ".000000""#),
            ),
        ];
        for (value, error) in cases {
            assert_eq!(parse_error(value, Layout::Rfc3339Micro), Some(error), "{value}");
        }
    }
}
