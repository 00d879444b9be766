//! The image GC policy (`ImageGCPolicy`) and the check `NewImageGCManager` makes. It is looser
//! than the kubelet configuration's validation ([`crate::kubelet::config`]): low == high passes
//! here and fails there.

use chrono::TimeDelta;

use crate::kubelet::mutant::{self, Mutant};

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

/// `NewImageGCManager`'s validation: the first failing check's text, in upstream's order.
pub fn validate(policy: &ImageGcPolicy, active: Option<Mutant>) -> Result<(), String> {
    let (high, low) = (policy.high_threshold_percent, policy.low_threshold_percent);
    if !mutant::is(active, Mutant::ConstructorRangeUnchecked) {
        if !(0..=100).contains(&high) {
            return Err(format!("invalid HighThresholdPercent {high}, must be in range [0-100]"));
        }
        if !(0..=100).contains(&low) {
            return Err(format!("invalid LowThresholdPercent {low}, must be in range [0-100]"));
        }
    }
    let wrong_order = if mutant::is(active, Mutant::ThresholdOrderSwapped) {
        high > low
    } else if mutant::is(active, Mutant::ConstructorRejectsEqual) {
        low >= high
    } else {
        low > high
    };
    if wrong_order {
        return Err(format!("LowThresholdPercent {low} can not be higher than HighThresholdPercent {high}"));
    }
    Ok(())
}
