//! Status patches of counts, as the workload controllers write them: a count of zero is
//! removed (upstream's `omitempty` leaves it out), and a patch is sent only when it changes
//! something.

use serde_json::{Map, Value, json};

/// A merge patch of `counts`; a zero count becomes `null` (removed) unless it is `always` written.
pub fn counts(fields: &[(&str, i64)], always: &[&str]) -> Value {
    let map: Map<String, Value> =
        fields.iter().map(|(k, n)| (k.to_string(), if *n == 0 && !always.contains(k) { Value::Null } else { json!(n) })).collect();
    Value::Object(map)
}

/// Whether merging `patch` into `written` would change it (a JSON merge patch: `null`
/// removes, objects merge, anything else replaces).
pub fn changes(written: &Value, patch: &Value) -> bool {
    match patch {
        Value::Object(p) => p.iter().any(|(k, v)| changes(&written[k], v)),
        Value::Null => !written.is_null(),
        other => written != other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_counts_are_removed_and_equal_ones_change_nothing() {
        let patch = counts(&[("replicas", 0), ("readyReplicas", 0), ("availableReplicas", 2)], &["replicas"]);
        assert_eq!(patch, json!({"replicas": 0, "readyReplicas": null, "availableReplicas": 2}));
        assert!(!changes(&json!({"replicas": 0, "availableReplicas": 2}), &patch));
        assert!(changes(&json!({"replicas": 0, "readyReplicas": 1, "availableReplicas": 2}), &patch));
        assert!(changes(&json!({}), &patch));
        let uncounted = json!({"u": {"failed": null, "succeeded": ["a"]}});
        assert!(!changes(&json!({"u": {"succeeded": ["a"]}}), &uncounted));
        assert!(changes(&json!({"u": {"failed": ["b"], "succeeded": ["a"]}}), &uncounted));
    }
}
