//! The image GC policy (`ImageGCPolicy`) and the check `NewImageGCManager` makes. It is looser
//! than the kubelet configuration's validation ([`crate::kubelet::config`]): low == high passes
//! here and fails there.

use std::fmt;

use chrono::TimeDelta;

/// Thresholds and ages of image GC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageGcPolicy {
    /// Disk usage (percent) at or above which space-based GC runs.
    pub high_threshold_percent: i64,
    /// Disk usage (percent) space-based GC frees down to.
    pub low_threshold_percent: i64,
    /// Minimum time since an image was first detected before space-based GC may delete it.
    pub min_age: TimeDelta,
    /// Maximum time an image may stay unused; 0 disables age-based GC.
    pub max_age: TimeDelta,
}

impl Default for ImageGcPolicy {
    /// The kubelet's defaults: high 85, low 80, MinAge 2m, no MaxAge.
    fn default() -> Self {
        Self { high_threshold_percent: 85, low_threshold_percent: 80, min_age: TimeDelta::minutes(2), max_age: TimeDelta::zero() }
    }
}

/// A failed check of `NewImageGCManager`, in upstream's order of checking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyError {
    /// HighThresholdPercent outside 0..=100.
    HighOutOfRange(i64),
    /// LowThresholdPercent outside 0..=100.
    LowOutOfRange(i64),
    /// The low threshold above the high one.
    LowAboveHigh {
        /// The low threshold.
        low: i64,
        /// The high threshold.
        high: i64,
    },
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::HighOutOfRange(high) => write!(f, "invalid HighThresholdPercent {high}, must be in range [0-100]"),
            PolicyError::LowOutOfRange(low) => write!(f, "invalid LowThresholdPercent {low}, must be in range [0-100]"),
            PolicyError::LowAboveHigh { low, high } => {
                write!(f, "LowThresholdPercent {low} can not be higher than HighThresholdPercent {high}")
            }
        }
    }
}

/// `NewImageGCManager`'s checks of a policy: the thresholds checked, and every check that
/// failed, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyCheck {
    /// The low threshold.
    pub low: i64,
    /// The high threshold.
    pub high: i64,
    /// The failed checks.
    pub failed: Vec<PolicyError>,
}

impl PolicyCheck {
    /// The first failed check's text, as upstream stops at it.
    pub fn result(&self) -> Result<(), String> {
        match self.failed.first() {
            Some(e) => Err(e.to_string()),
            None => Ok(()),
        }
    }
}

/// The checks of `policy` (looser than the configuration's: low == high passes).
pub fn check(policy: &ImageGcPolicy) -> PolicyCheck {
    let (high, low) = (policy.high_threshold_percent, policy.low_threshold_percent);
    let checks = [
        (!(0..=100).contains(&high), PolicyError::HighOutOfRange(high)),
        (!(0..=100).contains(&low), PolicyError::LowOutOfRange(low)),
        (low > high, PolicyError::LowAboveHigh { low, high }),
    ];
    PolicyCheck { low, high, failed: checks.into_iter().filter(|(failed, _)| *failed).map(|(_, e)| e).collect() }
}
