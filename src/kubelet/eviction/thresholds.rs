//! Eviction signals and thresholds: `nodefs.available<10%`, `imagefs.available<1Gi` with a
//! minimum reclaim and an optional grace period (soft thresholds), the Linux default
//! `evictionHard`, and how a configured `evictionHard` combines with it.

use std::collections::BTreeMap;
use std::fmt;

use chrono::TimeDelta;

use crate::kubelet::mutant::{Mutable, Mutant};
use crate::kubelet::quantity::{format_quantity, parse_bytes};

/// An eviction signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Signal {
    /// `memory.available`.
    MemoryAvailable,
    /// `nodefs.available`.
    NodeFsAvailable,
    /// `nodefs.inodesFree`.
    NodeFsInodesFree,
    /// `imagefs.available`.
    ImageFsAvailable,
    /// `imagefs.inodesFree`.
    ImageFsInodesFree,
    /// `containerfs.available`.
    ContainerFsAvailable,
    /// `containerfs.inodesFree`.
    ContainerFsInodesFree,
    /// `pid.available`.
    PidAvailable,
}

const SIGNALS: [(Signal, &str); 8] = [
    (Signal::MemoryAvailable, "memory.available"),
    (Signal::NodeFsAvailable, "nodefs.available"),
    (Signal::NodeFsInodesFree, "nodefs.inodesFree"),
    (Signal::ImageFsAvailable, "imagefs.available"),
    (Signal::ImageFsInodesFree, "imagefs.inodesFree"),
    (Signal::ContainerFsAvailable, "containerfs.available"),
    (Signal::ContainerFsInodesFree, "containerfs.inodesFree"),
    (Signal::PidAvailable, "pid.available"),
];

impl Signal {
    /// Its name in configuration.
    pub fn name(self) -> &'static str {
        SIGNALS.iter().find(|(s, _)| *s == self).map(|(_, n)| *n).unwrap_or("unknown")
    }

    /// The signal of a name.
    pub fn parse(name: &str) -> Result<Signal, String> {
        SIGNALS.iter().find(|(_, n)| *n == name).map(|(s, _)| *s).ok_or_else(|| format!("unsupported eviction signal {name:?}"))
    }

    /// The node condition it sets.
    pub fn node_condition(self) -> &'static str {
        match self {
            Signal::MemoryAvailable => "MemoryPressure",
            Signal::PidAvailable => "PIDPressure",
            _ => "DiskPressure",
        }
    }

    /// The resource it reclaims (`ephemeral-storage`, `inodes`, `memory`, `pids`).
    pub fn resource(self) -> &'static str {
        match self {
            Signal::MemoryAvailable => "memory",
            Signal::PidAvailable => "pids",
            Signal::NodeFsInodesFree | Signal::ImageFsInodesFree | Signal::ContainerFsInodesFree => "inodes",
            _ => "ephemeral-storage",
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A threshold's value: an absolute quantity or a share of capacity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ThresholdValue {
    /// Bytes (or inodes).
    Quantity(i64),
    /// A fraction of capacity (`10%` is 0.1), in single precision as the kubelet holds it
    /// (`ParsePercentage`): `38%` of 1000 bytes is 379 bytes, not 380.
    Percentage(f32),
}

impl ThresholdValue {
    /// Parses `10%` or `1Gi`.
    pub fn parse(text: &str) -> Result<ThresholdValue, String> {
        match text.strip_suffix('%') {
            Some(p) => {
                let p: f64 = p.trim().parse().map_err(|_| format!("invalid percentage {text:?}"))?;
                if !(0.0..=100.0).contains(&p) {
                    return Err(format!("eviction percentage threshold must be between 0% and 100%: {text}"));
                }
                Ok(ThresholdValue::Percentage(p as f32 / 100.0))
            }
            None => parse_bytes(text).map(ThresholdValue::Quantity),
        }
    }

    /// The absolute value against `capacity`.
    pub fn quantity(self, capacity: i64) -> i64 {
        self.quantity_in(capacity, PercentPrecision::Single)
    }

    /// The absolute value against `capacity`, a percentage taken in `precision`.
    pub fn quantity_in(self, capacity: i64, precision: PercentPrecision) -> i64 {
        match (self, precision) {
            (ThresholdValue::Quantity(q), _) => q,
            (ThresholdValue::Percentage(p), PercentPrecision::Single) => (capacity as f64 * f64::from(p)) as i64,
            // The fraction as written: the shortest decimal that reads back as `p`.
            (ThresholdValue::Percentage(p), PercentPrecision::Double) => {
                (capacity as f64 * p.to_string().parse::<f64>().unwrap_or(0.0)) as i64
            }
        }
    }

    /// The threshold's quantity against `capacity` as the eviction manager prints it
    /// (`GetThresholdQuantity`): a percentage of capacity in binary form; a quantity in decimal
    /// form, as the model keeps it in bytes (a kubelet prints `1Gi` as written).
    pub fn shown(self, capacity: i64) -> String {
        match self {
            ThresholdValue::Quantity(q) => format_quantity(q, false),
            ThresholdValue::Percentage(_) => format_quantity(self.quantity(capacity), true),
        }
    }
}

/// The precision a percentage threshold is taken in: single, as the kubelet holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PercentPrecision {
    /// `float32`, as `ParsePercentage` gives it.
    Single,
    /// The fraction as written.
    Double,
}

/// As configuration writes it: bytes, or a percentage (`10%`).
impl fmt::Display for ThresholdValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThresholdValue::Quantity(q) => write!(f, "{q}"),
            ThresholdValue::Percentage(p) => write!(f, "{}%", (f64::from(*p) * 100.0 * 1e4).round() / 1e4),
        }
    }
}

/// `signal < value`, with its grace period (0 for a hard threshold) and minimum reclaim.
#[derive(Clone, Debug, PartialEq)]
pub struct Threshold {
    /// The signal.
    pub signal: Signal,
    /// The value the signal must stay at or above.
    pub value: ThresholdValue,
    /// How long it must be met before acting: 0 for hard thresholds.
    pub grace_period: TimeDelta,
    /// How far above the threshold reclaim must bring the signal.
    pub min_reclaim: Option<ThresholdValue>,
}

/// Parses `nodefs.available<10%` as a hard threshold.
pub fn parse_threshold(expression: &str) -> Result<Threshold, String> {
    let (signal, value) =
        expression.split_once('<').ok_or_else(|| format!("invalid eviction threshold {expression:?}: expected <signal><<value>"))?;
    Ok(Threshold {
        signal: Signal::parse(signal.trim())?,
        value: ThresholdValue::parse(value.trim())?,
        grace_period: TimeDelta::zero(),
        min_reclaim: None,
    })
}

/// `DefaultEvictionHard` on Linux.
pub fn default_eviction_hard() -> BTreeMap<String, String> {
    [
        ("memory.available", "100Mi"),
        ("nodefs.available", "10%"),
        ("nodefs.inodesFree", "5%"),
        ("imagefs.available", "15%"),
        ("imagefs.inodesFree", "5%"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// The `evictionHard` in force and what it is made of: the defaults when none is configured;
/// the configured map alone when one is (the other signals are not defaulted), unless
/// `mergeDefaultEvictionSettings` fills the missing signals from the defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvictionHard {
    /// The defaults.
    pub defaults: BTreeMap<String, String>,
    /// The configured map, if any.
    pub configured: Option<BTreeMap<String, String>>,
    /// Whether the defaults fill the signals the configured map lacks.
    pub merge: bool,
}

impl EvictionHard {
    /// The `configured` map (merged with the defaults if `merge`).
    pub fn new(configured: Option<&BTreeMap<String, String>>, merge: bool) -> Self {
        Self { defaults: default_eviction_hard(), configured: configured.cloned(), merge }
    }

    /// The thresholds in force.
    pub fn in_force(self) -> BTreeMap<String, String> {
        match self.configured {
            None => self.defaults,
            Some(mut map) => {
                if self.merge {
                    for (k, v) in self.defaults {
                        map.entry(k).or_insert(v);
                    }
                }
                map
            }
        }
    }
}

/// The `evictionHard` in force ([`EvictionHard`]) on a kubelet running with `active`.
pub fn effective_eviction_hard(
    configured: Option<&BTreeMap<String, String>>,
    merge: bool,
    active: Option<Mutant>,
) -> BTreeMap<String, String> {
    EvictionHard::new(configured, merge).mutated(active).in_force()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_parse() {
        let t = parse_threshold("nodefs.available<10%").unwrap();
        assert_eq!(t.signal, Signal::NodeFsAvailable);
        assert_eq!(t.value.quantity(1000), 100);
        assert_eq!(parse_threshold("imagefs.available<1Gi").unwrap().value, ThresholdValue::Quantity(1 << 30));
        for bad in ["nodefs.available", "disk<1Gi", "nodefs.available<101%", "nodefs.available<x"] {
            assert!(parse_threshold(bad).is_err(), "{bad}");
        }
        for (signal, name) in SIGNALS {
            assert_eq!(Signal::parse(name).unwrap(), signal);
            assert_eq!(signal.to_string(), name);
        }
    }
}
