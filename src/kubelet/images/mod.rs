//! Image garbage collection (`pkg/kubelet/images/image_gc_manager.go`): the kubelet deletes
//! unused images when the image filesystem passes the high threshold (least recently used
//! first, down to the low threshold), when they have been unused longer than MaxAge, and when
//! the eviction manager asks for every unused image.
//!
//! - [`policy`]: the thresholds and ages, and the manager's own validation.
//! - [`records`]: what the kubelet remembers of each image (first detected, last used) and the
//!   detection pass that updates it.
//! - [`order`]: which images are candidates, and in which order they go.
//! - [`threshold`]: the usage and amount-to-free arithmetic, with upstream's integer truncation,
//!   and the check of the image filesystem's stats against the thresholds.
//! - [`manager`]: `GarbageCollect`, `freeSpace`, `freeOldImages`, `DeleteUnusedImages`, and
//!   their verdicts on each candidate.
//! - [`error`]: the errors, with upstream's texts.

pub mod error;
pub mod manager;
pub mod order;
pub mod policy;
pub mod records;
pub mod threshold;

pub use error::ImageGcError;
pub use manager::{FreeSpace, ImageGcManager};
pub use policy::ImageGcPolicy;
pub use records::ImageRecord;
