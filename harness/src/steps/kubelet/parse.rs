//! The small languages of kubelet steps: instants (`10:05`, `10:01:00.000000001`,
//! `the zero time`, `the zero time + 1s`, `the latest representable time`, `now`), Go
//! durations (`1m`, `1ns`), sizes (`12 GiB`, `1024 bytes`, `1.1G`), name lists (`a, b and c`)
//! and data tables with named columns.

use std::collections::HashMap;

use cucumber::gherkin::Step;
use kubegc::kubelet::Node;
use kubegc::kubelet::quantity::parse_bytes;
use kubegc::kubelet::time::{DateTime, TimeDelta, Utc, add, latest_time, on_day_at, parse_duration, zero_time};

/// An instant: a time of day on the scenario's day, or one of the named instants, optionally
/// `+ <duration>`.
pub fn instant(text: &str, node: &Node) -> Result<DateTime<Utc>, String> {
    let text = text.trim();
    if let Some((base, offset)) = text.rsplit_once(" + ") {
        let base = instant(base, node)?;
        return add(base, duration(offset)?).ok_or_else(|| format!("{text} is past the end of time"));
    }
    match text {
        "the zero time" => return Ok(zero_time()),
        "the latest representable time" => return Ok(latest_time()),
        "now" => return Ok(node.now()),
        _ => {}
    }
    on_day_at(node.now(), text).ok_or_else(|| format!("not an instant: {text:?} (expected HH:MM[:SS[.fraction]], the zero time, or now)"))
}

/// How an instant reads in failure messages.
pub fn show(t: DateTime<Utc>, node: &Node) -> String {
    if t == zero_time() {
        "the zero time (never)".into()
    } else if t.format("%F").to_string() == node.now().format("%F").to_string() {
        t.format("%H:%M:%S%.f").to_string()
    } else {
        t.to_rfc3339()
    }
}

/// A Go duration.
pub fn duration(text: &str) -> Result<TimeDelta, String> {
    parse_duration(text.trim())
}

/// A size in bytes.
pub fn size(text: &str) -> Result<i64, String> {
    parse_bytes(text)
}

/// A number of any integer type, with an error naming the text.
pub fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.trim().parse().map_err(|_| format!("not a number (or out of range): {text:?}"))
}

/// A limit: a number, or `unlimited` (−1).
pub fn limit(text: &str) -> Result<i64, String> {
    match text.trim() {
        "unlimited" => Ok(-1),
        n => number(n),
    }
}

/// Names in `"a, b"`, `a and b`, `a, b and c` (quotes optional); empty for `""`.
pub fn names(text: &str) -> Vec<String> {
    text.replace(" and ", ", ")
        .split(',')
        .map(|s| s.trim().trim_matches('"').trim().to_string())
        .filter(|s| !s.is_empty() && s != "none")
        .collect()
}

/// The rows of a step's data table as column name → cell (names lowercased).
pub fn rows(step: &Step) -> Result<Vec<HashMap<String, String>>, String> {
    let table = step.table.as_ref().ok_or("the step needs a data table")?;
    let mut lines = table.rows.iter();
    let header: Vec<String> = lines.next().ok_or("the table needs a header row")?.iter().map(|h| h.trim().to_lowercase()).collect();
    Ok(lines.map(|row| header.iter().cloned().zip(row.iter().map(|c| c.trim().to_string())).collect()).collect())
}

/// A cell, or `default` when the column is absent or the cell empty.
pub fn cell<'a>(row: &'a HashMap<String, String>, column: &str, default: &'a str) -> &'a str {
    row.get(column).map(String::as_str).filter(|c| !c.is_empty()).unwrap_or(default)
}

/// A yes/no cell.
pub fn yes(text: &str) -> Result<bool, String> {
    match text {
        "yes" | "true" => Ok(true),
        "no" | "false" | "" => Ok(false),
        other => Err(format!("expected yes or no, got {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_and_lists_parse() {
        let node = Node::at_ten();
        assert_eq!(show(instant("10:05", &node).unwrap(), &node), "10:05:00");
        assert_eq!(instant("the zero time + 1s", &node).unwrap(), zero_time() + TimeDelta::seconds(1));
        assert_eq!(show(instant("10:01:00.000000001", &node).unwrap(), &node), "10:01:00.000000001");
        assert!(instant("yesterday", &node).is_err());
        assert!(instant("the latest representable time + 1s", &node).is_err());
        assert_eq!(names("a, b and c"), ["a", "b", "c"]);
        assert_eq!(names("\"x\""), ["x"]);
        assert!(names("").is_empty());
        assert_eq!(limit("unlimited").unwrap(), -1);
    }
}
