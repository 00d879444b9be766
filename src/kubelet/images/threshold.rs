//! The threshold arithmetic of space-based image GC, with upstream's integer truncation:
//! usage is `100 − ⌊available·100 / capacity⌋`, so 84.9% used counts as 85%; the amount to
//! free is `⌊capacity·(100 − low) / 100⌋ − available`, which may be zero or negative. A
//! [`ThresholdCheck`] is what `GarbageCollect` makes of the image filesystem's stats with it.

use crate::kubelet::disks::Filesystem;

/// Usage percent of a filesystem with `capacity` > 0 and `available` bytes.
pub fn usage_percent(capacity: i64, available: i64) -> i64 {
    let (capacity, available) = (i128::from(capacity.max(1)), i128::from(available));
    saturate(100 - available * 100 / capacity)
}

/// Bytes to free to get down to `target` percent usage.
pub fn amount_to_free(capacity: i64, available: i64, target: i64) -> i64 {
    saturate(i128::from(capacity) * (100 - i128::from(target)) / 100 - i128::from(available))
}

/// `v` as an `i64`, saturating: the arithmetic runs in `i128` so that no input overflows it.
pub fn saturate(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

/// What space-based GC does about a filesystem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceGc {
    /// The capacity is 0: an error, reported.
    InvalidCapacity,
    /// Usage is below the high threshold: nothing.
    NotNeeded,
    /// Free this many bytes (down to the low threshold).
    Free(i64),
}

/// What space-based GC makes of the image filesystem's stats: available bytes above the
/// capacity count as the capacity, and at or above the high threshold it frees down to the
/// low one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThresholdCheck {
    /// The capacity (0 when not reported).
    pub capacity: i64,
    /// The available bytes as reported.
    pub reported_available: i64,
    /// The available bytes as counted.
    pub available: i64,
    /// The low threshold (percent).
    pub low: i64,
    /// The high threshold (percent).
    pub high: i64,
    /// What it does.
    pub action: SpaceGc,
}

impl ThresholdCheck {
    /// The check of `fs` against the `low` and `high` thresholds.
    pub fn of(fs: &Filesystem, low: i64, high: i64) -> Self {
        let capacity = fs.capacity.unwrap_or(0);
        let available = fs.available.min(capacity);
        Self { capacity, reported_available: fs.available, available, low, high, action: Self::action(capacity, available, low, high) }
    }

    /// What space-based GC does with `available` bytes counted of `capacity`.
    pub fn action(capacity: i64, available: i64, low: i64, high: i64) -> SpaceGc {
        if capacity == 0 {
            SpaceGc::InvalidCapacity
        } else if usage_percent(capacity, available) >= high {
            SpaceGc::Free(amount_to_free(capacity, available, low))
        } else {
            SpaceGc::NotNeeded
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_truncates_the_free_percentage() {
        assert_eq!(usage_percent(1000, 151), 85);
        assert_eq!(usage_percent(1000, 600), 40);
        assert_eq!(usage_percent(1000, 1000), 0);
        assert_eq!(usage_percent(1000, 9), 100);
    }

    #[test]
    fn amount_to_free_can_be_zero_or_negative() {
        assert_eq!(amount_to_free(1000, 50, 80), 150);
        assert_eq!(amount_to_free(1010, 161, 84), 0);
        assert_eq!(amount_to_free(1000, 160, 85), -10);
        assert_eq!(amount_to_free(i64::MAX, 0, 0), i64::MAX);
    }

    #[test]
    fn available_bytes_count_at_most_the_capacity() {
        let check = ThresholdCheck::of(&Filesystem::new(1000, 1500), 80, 85);
        assert_eq!((check.available, check.action), (1000, SpaceGc::NotNeeded));
        assert_eq!(ThresholdCheck::of(&Filesystem { capacity: None, available: 5 }, 80, 85).action, SpaceGc::InvalidCapacity);
        assert_eq!(ThresholdCheck::of(&Filesystem::new(1000, 100), 80, 85).action, SpaceGc::Free(100));
    }
}
