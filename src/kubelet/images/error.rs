//! Image GC errors. Their texts are what the kubelet logs and puts into `FreeDiskSpaceFailed`
//! and `ImageGCFailed` events, so they are specified exactly.

use std::fmt;

use chrono::TimeDelta;

use crate::kubelet::time::format_duration;

/// Why an image GC call failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageGcError {
    /// Listing images or containers from the runtime failed.
    Runtime(String),
    /// Reading the image filesystem's stats failed.
    Stats(String),
    /// The image filesystem reports capacity 0.
    InvalidCapacity,
    /// Space-based deletion met runtime errors.
    FreeSpace {
        /// Bytes it wanted to free.
        wanted: i64,
        /// Bytes it freed anyway.
        freed: i64,
        /// The runtime's errors.
        errors: Vec<String>,
    },
    /// Age-based deletion met runtime errors.
    OldImages {
        /// The policy's MaxAge.
        max_age: TimeDelta,
        /// The runtime's errors.
        errors: Vec<String>,
    },
    /// Space-based GC freed less than it had to.
    NotEnoughFreed {
        /// Bytes it had to free.
        attempted: i64,
        /// Bytes it found eligible and freed.
        freed: i64,
    },
}

impl fmt::Display for ImageGcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageGcError::Runtime(e) | ImageGcError::Stats(e) => f.write_str(e),
            ImageGcError::InvalidCapacity => f.write_str("invalid capacity 0 on image filesystem"),
            ImageGcError::FreeSpace { wanted, freed, errors } => write!(
                f,
                "wanted to free {wanted} bytes, but freed {freed} bytes space with errors in image deletion: {}",
                crate::kubelet::errors::aggregate(errors)
            ),
            ImageGcError::OldImages { max_age, errors } => write!(
                f,
                "wanted to free images older than {}, encountered errors in image deletion: {}",
                format_duration(*max_age),
                crate::kubelet::errors::aggregate(errors)
            ),
            ImageGcError::NotEnoughFreed { attempted, freed } => write!(
                f,
                "Failed to garbage collect required amount of images. Attempted to free {attempted} bytes, but only found {freed} bytes eligible to free."
            ),
        }
    }
}

impl std::error::Error for ImageGcError {}
