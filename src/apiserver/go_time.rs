//! Go's `time.Parse(time.RFC3339, s)`, for its errors: `metav1.Time` decodes a timestamp with
//! it, and a create or update whose time does not parse is refused with Go's words
//! (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`,
//! `parsing time "2020-13-45T99:99:99Z": month out of range`; Go's src/time/format.go).

/// Go's layout for RFC 3339.
const RFC3339: &str = "2006-01-02T15:04:05Z07:00";

/// The layout's chunks in order: a literal to skip, or a value element.
const CHUNKS: [Chunk; 12] = [
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
    Chunk::Zone,
];

#[derive(Clone, Copy)]
enum Chunk {
    Literal(&'static str),
    Number(&'static str),
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

/// Go's error for `time.Parse(time.RFC3339, value)`, or `None` when it parses.
pub fn rfc3339_error(value: &str) -> Option<String> {
    let cannot = |elem: &str, rest: &str| {
        Some(format!("parsing time {} as {}: cannot parse {} as {}", quote(value), quote(RFC3339), quote(rest), quote(elem)))
    };
    let out_of_range = |what: &str| Some(format!("parsing time {}: {what} out of range", quote(value)));
    let mut rest = value;
    let (mut year, mut month, mut day) = (0, 0, 0);
    for chunk in CHUNKS {
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
                if elem == "05" {
                    // A fraction of a second may follow the seconds, unasked for by the layout.
                    let bytes = rest.as_bytes();
                    if bytes.len() >= 2 && (bytes[0] == b'.' || bytes[0] == b',') && bytes[1].is_ascii_digit() {
                        let n = 1 + bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
                        rest = &rest[n..];
                    }
                }
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
            assert_eq!(rfc3339_error(good), None, "{good}");
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
            assert_eq!(rfc3339_error(value).as_deref(), Some(error), "{value}");
        }
    }
}
