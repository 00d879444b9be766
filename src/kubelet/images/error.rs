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
        /// The image filesystem's usage before the pass, percent.
        usage_percent: i64,
        /// The image filesystem's capacity.
        capacity: i64,
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
            ImageGcError::NotEnoughFreed { usage_percent, capacity, freed } => write!(
                f,
                "Insufficient free disk space on the node's image filesystem ({usage_percent}% of {} used). Failed to free sufficient space by deleting unused images (freed {freed} bytes). Investigate disk usage, as it could be used by active images, logs, volumes, or other data.",
                format_size(*capacity)
            ),
        }
    }
}

impl std::error::Error for ImageGcError {}

/// A size as the image manager's messages give it (`formatSize`): bytes below 1 KiB, else KiB,
/// MiB, GiB or TiB with one decimal.
fn format_size(bytes: i64) -> String {
    const KIB: f64 = 1024.0;
    let size = bytes as f64;
    let (unit, scale) = match size {
        s if s < KIB => return format!("{bytes} B"),
        s if s < KIB * KIB => ("KiB", KIB),
        s if s < KIB * KIB * KIB => ("MiB", KIB * KIB),
        s if s < KIB * KIB * KIB * KIB => ("GiB", KIB * KIB * KIB),
        _ => ("TiB", KIB * KIB * KIB * KIB),
    };
    format!("{:.1} {unit}", size / scale)
}

#[cfg(test)]
mod tests {
    use super::format_size;

    #[test]
    fn sizes_read_as_the_image_manager_gives_them() {
        assert_eq!(format_size(1000), "1000 B");
        assert_eq!(format_size(1536), "1.5 KiB");
        assert_eq!(format_size(100 << 30), "100.0 GiB");
        assert_eq!(format_size(3 << 40), "3.0 TiB");
    }
}
