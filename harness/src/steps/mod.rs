//! Step definitions, by topic: creating objects, deleting and changing them, and asserting
//! what the cluster looks like afterwards.

pub mod assertions;
pub mod changes;
pub mod objects;

/// A comma-separated list in a step (`"a, b"`), trimmed; empty for `""`.
pub fn list(s: &str) -> Vec<String> {
    s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(String::from).collect()
}
