//! Eviction-driven reclaim (`pkg/kubelet/eviction`): when a disk signal crosses its threshold,
//! the eviction manager first asks the garbage collectors for space — which ones depends on the
//! disk layout and the signal — and evicts a pod only if that was not enough (the threshold plus
//! its minimum reclaim must be met again). DiskPressure stays on the node for the pressure
//! transition period after the signal recovers.
//!
//! - [`thresholds`]: signals, thresholds and the default `evictionHard`.
//! - [`reclaim`]: which reclaim functions a signal runs, by layout.
//! - [`manager`]: the synchronize pass.

pub mod manager;
pub mod reclaim;
pub mod thresholds;

pub use manager::{EvictionConfig, EvictionManager, PodUsage};
pub use reclaim::ReclaimFn;
pub use thresholds::{Signal, Threshold, ThresholdValue};
