//! The threshold arithmetic of space-based image GC, with upstream's integer truncation:
//! usage is `100 − ⌊available·100 / capacity⌋`, so 84.9% used counts as 85%; the amount to
//! free is `⌊capacity·(100 − low) / 100⌋ − available`, which may be zero or negative.

use crate::kubelet::mutant::{self, Mutant};

/// Usage percent of a filesystem with `capacity` > 0 and `available` bytes.
pub fn usage_percent(capacity: i64, available: i64, active: Option<Mutant>) -> i64 {
    let (capacity, available) = (i128::from(capacity.max(1)), i128::from(available));
    let usage = if mutant::is(active, Mutant::UsageNotTruncated) {
        (capacity - available) * 100 / capacity
    } else {
        100 - available * 100 / capacity
    };
    saturate(usage)
}

/// Bytes to free to get down to `low` percent (or `high` under a mutant).
pub fn amount_to_free(capacity: i64, available: i64, low: i64, high: i64, active: Option<Mutant>) -> i64 {
    let target = if mutant::is(active, Mutant::FreeToHighThreshold) { high } else { low };
    saturate(i128::from(capacity) * (100 - i128::from(target)) / 100 - i128::from(available))
}

fn saturate(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_truncates_the_free_percentage() {
        assert_eq!(usage_percent(1000, 151, None), 85);
        assert_eq!(usage_percent(1000, 151, Some(Mutant::UsageNotTruncated)), 84);
        assert_eq!(usage_percent(1000, 600, None), 40);
        assert_eq!(usage_percent(1000, 1000, None), 0);
        assert_eq!(usage_percent(1000, 9, None), 100);
    }

    #[test]
    fn amount_to_free_can_be_zero_or_negative() {
        assert_eq!(amount_to_free(1000, 50, 80, 90, None), 150);
        assert_eq!(amount_to_free(1010, 161, 84, 85, None), 0);
        assert_eq!(amount_to_free(1000, 160, 85, 85, None), -10);
        assert_eq!(amount_to_free(i64::MAX, 0, 0, 0, None), i64::MAX);
    }
}
