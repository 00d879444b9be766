//! The kubelet configuration that drives its garbage collection: the image-GC fields of
//! `KubeletConfiguration` (defaults, file defaulting, validation — stricter than the image GC
//! manager's own check: low must be *below* high), the eviction fields, and the deprecated
//! container-GC flags, which have no configuration-file fields.

use std::collections::BTreeMap;
use std::fmt;

use chrono::TimeDelta;

use crate::kubelet::containers::ContainerGcPolicy;
use crate::kubelet::errors::aggregate;
use crate::kubelet::images::ImageGcPolicy;
use crate::kubelet::mutant::{Mutable, Mutant};
use crate::kubelet::node::FeatureGates;
use crate::kubelet::time::format_duration;

/// The kubelet configuration's GC-related fields, after defaulting.
#[derive(Clone, Debug, PartialEq)]
pub struct KubeletConfiguration {
    /// `imageGCHighThresholdPercent` (`--image-gc-high-threshold`), default 85.
    pub image_gc_high_threshold_percent: i64,
    /// `imageGCLowThresholdPercent` (`--image-gc-low-threshold`), default 80.
    pub image_gc_low_threshold_percent: i64,
    /// `imageMinimumGCAge` (`--minimum-image-ttl-duration`), default 2m.
    pub image_minimum_gc_age: TimeDelta,
    /// `imageMaximumGCAge`, default 0 (disabled).
    pub image_maximum_gc_age: TimeDelta,
    /// `evictionHard` as given (`None`: not set, the defaults apply).
    pub eviction_hard: Option<BTreeMap<String, String>>,
    /// `mergeDefaultEvictionSettings`, default false.
    pub merge_default_eviction_settings: bool,
    /// `evictionPressureTransitionPeriod`, default 5m.
    pub eviction_pressure_transition_period: TimeDelta,
    /// `evictionMaxPodGracePeriod` (seconds), default 0.
    pub eviction_max_pod_grace_period: i64,
}

impl Default for KubeletConfiguration {
    fn default() -> Self {
        Self {
            image_gc_high_threshold_percent: 85,
            image_gc_low_threshold_percent: 80,
            image_minimum_gc_age: TimeDelta::minutes(2),
            image_maximum_gc_age: TimeDelta::zero(),
            eviction_hard: None,
            merge_default_eviction_settings: false,
            eviction_pressure_transition_period: TimeDelta::minutes(5),
            eviction_max_pod_grace_period: 0,
        }
    }
}

/// The GC-related fields of a configuration file as written (absent fields are `None`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KubeletConfigFile {
    /// `imageGCHighThresholdPercent`.
    pub image_gc_high_threshold_percent: Option<i64>,
    /// `imageGCLowThresholdPercent`.
    pub image_gc_low_threshold_percent: Option<i64>,
    /// `imageMinimumGCAge`.
    pub image_minimum_gc_age: Option<TimeDelta>,
    /// `imageMaximumGCAge`.
    pub image_maximum_gc_age: Option<TimeDelta>,
}

/// What defaulting (`SetDefaults_KubeletConfiguration`) makes of a configuration file: absent
/// thresholds get 85 and 80; an absent *or zero* imageMinimumGCAge gets 2m (so a file cannot
/// ask for 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Defaulting {
    /// The configuration.
    pub config: KubeletConfiguration,
    /// Whether its imageMinimumGCAge is the default, in place of an absent or zero one.
    pub min_age_defaulted: bool,
}

impl Defaulting {
    /// The defaulting of `file`.
    pub fn of(file: &KubeletConfigFile) -> Self {
        let defaults = KubeletConfiguration::default();
        let written = file.image_minimum_gc_age.unwrap_or(TimeDelta::zero());
        let min_age_defaulted = written == TimeDelta::zero();
        Self {
            config: KubeletConfiguration {
                image_gc_high_threshold_percent: file.image_gc_high_threshold_percent.unwrap_or(defaults.image_gc_high_threshold_percent),
                image_gc_low_threshold_percent: file.image_gc_low_threshold_percent.unwrap_or(defaults.image_gc_low_threshold_percent),
                image_minimum_gc_age: if min_age_defaulted { defaults.image_minimum_gc_age } else { written },
                image_maximum_gc_age: file.image_maximum_gc_age.unwrap_or_default(),
                ..defaults
            },
            min_age_defaulted,
        }
    }
}

/// The configuration `file` makes after defaulting ([`Defaulting`]), on a kubelet running with
/// `active`.
pub fn defaulted(file: &KubeletConfigFile, active: Option<Mutant>) -> KubeletConfiguration {
    Defaulting::of(file).mutated(active).config
}

/// A failed check of `ValidateKubeletConfiguration`'s image-GC part. The variants are in
/// upstream's order of checking, which is the order the errors are reported in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConfigError {
    /// imageGCHighThresholdPercent outside 0..=100.
    HighOutOfRange(i64),
    /// imageGCLowThresholdPercent outside 0..=100.
    LowOutOfRange(i64),
    /// The low threshold is not below the high one.
    LowNotBelowHigh {
        /// The low threshold.
        low: i64,
        /// The high threshold.
        high: i64,
    },
    /// A negative imageMinimumGCAge.
    NegativeMinAge(TimeDelta),
    /// imageMaximumGCAge set with the `ImageMaximumGCAge` feature gate off.
    MaxAgeWithoutGate,
    /// A negative imageMaximumGCAge.
    NegativeMaxAge(TimeDelta),
    /// An imageMaximumGCAge not above imageMinimumGCAge.
    MaxAgeNotAboveMinAge {
        /// imageMaximumGCAge.
        max_age: TimeDelta,
        /// imageMinimumGCAge.
        min_age: TimeDelta,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid configuration: ")?;
        match self {
            ConfigError::HighOutOfRange(high) => {
                write!(f, "imageGCHighThresholdPercent (--image-gc-high-threshold) {high} must be between 0 and 100, inclusive")
            }
            ConfigError::LowOutOfRange(low) => {
                write!(f, "imageGCLowThresholdPercent (--image-gc-low-threshold) {low} must be between 0 and 100, inclusive")
            }
            ConfigError::LowNotBelowHigh { low, high } => write!(
                f,
                "imageGCLowThresholdPercent (--image-gc-low-threshold) {low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) {high}"
            ),
            ConfigError::NegativeMinAge(min_age) => write!(f, "imageMinimumGCAge {} must not be negative", format_duration(*min_age)),
            ConfigError::MaxAgeWithoutGate => {
                f.write_str("ImageMaximumGCAge feature gate is required for Kubelet configuration option imageMaximumGCAge")
            }
            ConfigError::NegativeMaxAge(max_age) => write!(f, "imageMaximumGCAge {} must not be negative", format_duration(*max_age)),
            ConfigError::MaxAgeNotAboveMinAge { max_age, min_age } => write!(
                f,
                "imageMaximumGCAge {} must be greater than imageMinimumGCAge {}",
                format_duration(*max_age),
                format_duration(*min_age)
            ),
        }
    }
}

/// The image-GC checks of a configuration: the thresholds checked, and every check that failed,
/// in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigCheck {
    /// imageGCLowThresholdPercent.
    pub low: i64,
    /// imageGCHighThresholdPercent.
    pub high: i64,
    /// The failed checks.
    pub failed: Vec<ConfigError>,
}

impl KubeletConfiguration {
    /// The image GC policy these fields make (copied one to one).
    pub fn image_gc_policy(&self) -> ImageGcPolicy {
        ImageGcPolicy {
            high_threshold_percent: self.image_gc_high_threshold_percent,
            low_threshold_percent: self.image_gc_low_threshold_percent,
            min_age: self.image_minimum_gc_age,
            max_age: self.image_maximum_gc_age,
        }
    }

    /// The image-GC checks of `ValidateKubeletConfiguration` (stricter than the image GC
    /// manager's own: low must be *below* high).
    pub fn check(&self, gates: &FeatureGates) -> ConfigCheck {
        let (high, low) = (self.image_gc_high_threshold_percent, self.image_gc_low_threshold_percent);
        let (min_age, max_age) = (self.image_minimum_gc_age, self.image_maximum_gc_age);
        let zero = TimeDelta::zero();
        let checks = [
            (!(0..=100).contains(&high), ConfigError::HighOutOfRange(high)),
            (!(0..=100).contains(&low), ConfigError::LowOutOfRange(low)),
            (low >= high, ConfigError::LowNotBelowHigh { low, high }),
            (max_age != zero && !gates.image_maximum_gc_age, ConfigError::MaxAgeWithoutGate),
            (min_age < zero, ConfigError::NegativeMinAge(min_age)),
            (max_age < zero, ConfigError::NegativeMaxAge(max_age)),
            (max_age > zero && max_age <= min_age, ConfigError::MaxAgeNotAboveMinAge { max_age, min_age }),
        ];
        ConfigCheck { low, high, failed: checks.into_iter().filter(|(failed, _)| *failed).map(|(_, e)| e).collect() }
    }

    /// `ValidateKubeletConfiguration`, image-GC part, on a kubelet running with `active`: every
    /// failing check, aggregated.
    pub fn validate(&self, gates: &FeatureGates, active: Option<Mutant>) -> Result<(), String> {
        let failed = self.check(gates).mutated(active).failed;
        if failed.is_empty() { Ok(()) } else { Err(aggregate(&failed.iter().map(ToString::to_string).collect::<Vec<_>>())) }
    }
}

/// The deprecated container-GC flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContainerGcFlags {
    /// `--minimum-container-ttl-duration`, default 0.
    pub minimum_container_ttl_duration: TimeDelta,
    /// `--maximum-dead-containers-per-container`, default 1.
    pub maximum_dead_containers_per_container: i64,
    /// `--maximum-dead-containers`, default −1 (no limit).
    pub maximum_dead_containers: i64,
}

impl Default for ContainerGcFlags {
    fn default() -> Self {
        Self { minimum_container_ttl_duration: TimeDelta::zero(), maximum_dead_containers_per_container: 1, maximum_dead_containers: -1 }
    }
}

impl ContainerGcFlags {
    /// The container GC policy the flags make.
    pub fn policy(&self) -> ContainerGcPolicy {
        ContainerGcPolicy {
            min_age: self.minimum_container_ttl_duration,
            max_per_pod_container: self.maximum_dead_containers_per_container,
            max_containers: self.maximum_dead_containers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_kubelets() {
        let c = KubeletConfiguration::default();
        assert_eq!(c.image_gc_policy(), ImageGcPolicy::default());
        assert_eq!(c.validate(&FeatureGates::default(), None), Ok(()));
        assert_eq!(ContainerGcFlags::default().policy(), ContainerGcPolicy::default());
    }

    #[test]
    fn several_errors_are_aggregated() {
        let c = KubeletConfiguration {
            image_gc_high_threshold_percent: 101,
            image_gc_low_threshold_percent: -1,
            image_minimum_gc_age: TimeDelta::seconds(-1),
            ..KubeletConfiguration::default()
        };
        let e = c.validate(&FeatureGates::default(), None).unwrap_err();
        assert!(e.starts_with("[invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 101"), "{e}");
        assert!(e.contains("imageMinimumGCAge -1s must not be negative"), "{e}");
    }
}
