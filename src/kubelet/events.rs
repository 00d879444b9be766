//! Events the kubelet records (on its Node, or on a pod it evicts), with the reasons upstream
//! uses. The texts are part of the specification: people search for them.

use std::fmt;

/// `InvalidDiskCapacity`: the image filesystem reports no capacity.
pub const INVALID_DISK_CAPACITY: &str = "InvalidDiskCapacity";
/// `FreeDiskSpaceFailed`: space-based image GC could not free enough.
pub const FREE_DISK_SPACE_FAILED: &str = "FreeDiskSpaceFailed";
/// `ImageGCFailed`: image GC failed twice or more in a row.
pub const IMAGE_GC_FAILED: &str = "ImageGCFailed";
/// `ContainerGCFailed`: a container GC pass failed.
pub const CONTAINER_GC_FAILED: &str = "ContainerGCFailed";
/// `EvictionThresholdMet`: the eviction manager starts reclaiming a resource.
pub const EVICTION_THRESHOLD_MET: &str = "EvictionThresholdMet";
/// `Evicted`: a pod was evicted.
pub const EVICTED: &str = "Evicted";

/// `Normal` or `Warning`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    /// Informational.
    Normal,
    /// Something went wrong or needs attention.
    Warning,
}

/// One recorded event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Normal or Warning.
    pub event_type: EventType,
    /// The machine-readable reason (`FreeDiskSpaceFailed`).
    pub reason: String,
    /// The human-readable message.
    pub message: String,
    /// What it is about: `Node` or `Pod/<name>`.
    pub object: String,
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} {} on {}: {}", self.event_type, self.reason, self.object, self.message)
    }
}

/// A failure the kubelet may record as a Warning event on its Node. Whether it does is a rule of
/// its own: `ImageGCFailed`, for one, only from the second failure in a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureEvent {
    /// The event's reason (`ImageGCFailed`).
    pub reason: &'static str,
    /// The failure's text, the event's message.
    pub message: String,
    /// Whether it is recorded.
    pub recorded: bool,
}
