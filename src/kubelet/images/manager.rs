//! The image GC manager (`realImageGCManager`): its records, and the passes that delete images —
//! `GarbageCollect` (age, then space), `freeOldImages` (MaxAge), `freeSpace` (LRU under MinAge),
//! and `DeleteUnusedImages` (everything eligible, for the eviction manager).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, TimeDelta, Utc};

use crate::kubelet::events::{FREE_DISK_SPACE_FAILED, INVALID_DISK_CAPACITY};
use crate::kubelet::images::order::{self, EvictionInfo};
use crate::kubelet::images::records::{self, ImageRecord, image_key};
use crate::kubelet::images::{ImageGcError, ImageGcPolicy, policy, threshold};
use crate::kubelet::mutant::Mutant;
use crate::kubelet::node::Node;
use crate::kubelet::runtime::Image;
use crate::kubelet::time::sub;

/// Metric label of deletions by `freeOldImages`.
pub const REASON_AGE: &str = "age";
/// Metric label of deletions by `freeSpace`.
pub const REASON_SPACE: &str = "space";

/// What `freeSpace` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreeSpace {
    /// IDs of the candidates it passed over (too recent, too young, failed) before stopping;
    /// `None` when a deletion failed, as upstream returns nil then.
    pub images_left: Option<Vec<String>>,
    /// Bytes freed: the sum of the deleted images' recorded sizes.
    pub freed: i64,
    /// Deletion errors, if any.
    pub error: Option<ImageGcError>,
}

/// The image GC manager of one kubelet.
#[derive(Clone, Debug)]
pub struct ImageGcManager {
    /// Its policy (validated).
    policy: ImageGcPolicy,
    /// Image records by key.
    records: BTreeMap<String, ImageRecord>,
    /// Each run of the post-GC hooks, with the image IDs it was given.
    pub post_gc_hook_runs: Vec<Vec<String>>,
    /// `image_garbage_collected_total` by reason (`age`, `space`).
    pub collected: BTreeMap<&'static str, u64>,
}

impl ImageGcManager {
    /// `NewImageGCManager`: fails with upstream's text on an invalid policy.
    pub fn new(policy: ImageGcPolicy, node: &Node) -> Result<Self, String> {
        policy::validate(&policy, node.mutant)?;
        Ok(Self { policy, records: BTreeMap::new(), post_gc_hook_runs: Vec::new(), collected: BTreeMap::new() })
    }

    /// The policy.
    pub fn policy(&self) -> &ImageGcPolicy {
        &self.policy
    }

    /// The image records by key.
    pub fn records(&self) -> &BTreeMap<String, ImageRecord> {
        &self.records
    }

    /// `detectImages`: one detection pass at `detect_time`; the keys of the images in use.
    pub fn detect_images(&mut self, node: &Node, detect_time: DateTime<Utc>) -> Result<BTreeSet<String>, ImageGcError> {
        records::detect(&mut self.records, node, detect_time)
    }

    /// `imagesInEvictionOrder`: a detection pass at `free_time`, then the candidates in order.
    pub fn images_in_eviction_order(&mut self, node: &mut Node, free_time: DateTime<Utc>) -> Result<Vec<EvictionInfo>, ImageGcError> {
        let in_use = self.detect_images(node, free_time)?;
        Ok(order::candidates(&self.records, &in_use, node))
    }

    /// `GarbageCollect(beganGC)`: age-based deletion, then — if the image filesystem's usage is
    /// at or above the high threshold — space-based deletion down to the low threshold.
    pub fn garbage_collect(&mut self, node: &mut Node, began_gc: DateTime<Utc>) -> Result<(), ImageGcError> {
        let free_time = node.now();
        let mut images = self.images_in_eviction_order(node, free_time)?;
        let early_stats =
            if node.is(Mutant::StatsBeforeAgeGc) { Some(node.disks.image_fs_stats().map_err(ImageGcError::Stats)?) } else { None };
        let (remaining, error) = self.free_old_images(node, images, free_time, began_gc);
        if let Some(e) = error {
            return Err(e);
        }
        images = remaining;
        let fs = match early_stats {
            Some(fs) => fs,
            None => node.disks.image_fs_stats().map_err(ImageGcError::Stats)?,
        };
        let capacity = fs.capacity.unwrap_or(0);
        let mut available = fs.available;
        if available > capacity && !node.is(Mutant::AvailableNotClamped) {
            available = capacity;
        }
        if capacity == 0 {
            if node.is(Mutant::CapacityUnchecked) {
                return Ok(());
            }
            let e = ImageGcError::InvalidCapacity;
            node.warn(INVALID_DISK_CAPACITY, e.to_string());
            return Err(e);
        }
        let usage = threshold::usage_percent(capacity, available, node.mutant);
        if usage >= self.policy.high_threshold_percent || node.is(Mutant::SpaceGcAlwaysRuns) {
            let (low, high) = (self.policy.low_threshold_percent, self.policy.high_threshold_percent);
            let amount = threshold::amount_to_free(capacity, available, low, high, node.mutant);
            let result = self.free_space(node, amount, free_time, &images);
            if let Some(e) = result.error {
                return Err(e);
            }
            self.post_gc_hook_runs.push(result.images_left.unwrap_or_default());
            if result.freed < amount {
                let e = ImageGcError::NotEnoughFreed { attempted: amount, freed: result.freed };
                if !node.is(Mutant::FreeDiskSpaceFailedSilent) {
                    node.warn(FREE_DISK_SPACE_FAILED, e.to_string());
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// `freeOldImages`: deletes candidates unused for longer than MaxAge, once MaxAge has passed
    /// since the GC loop began. MinAge plays no part. Returns the candidates left.
    pub fn free_old_images(
        &mut self,
        node: &mut Node,
        images: Vec<EvictionInfo>,
        free_time: DateTime<Utc>,
        began_gc: DateTime<Utc>,
    ) -> (Vec<EvictionInfo>, Option<ImageGcError>) {
        let max_age = self.policy.max_age;
        if max_age == TimeDelta::zero() && !node.is(Mutant::MaxAgeZeroNotDisabled) {
            return (images, None);
        }
        if sub(free_time, began_gc) <= max_age && !node.is(Mutant::MaxAgeNoStartupWait) {
            return (images, None);
        }
        let mut errors = Vec::new();
        let mut remaining = Vec::new();
        for image in images {
            let unused_for = sub(free_time, image.record.last_used);
            let old = if node.is(Mutant::MaxAgeInclusive) { unused_for >= max_age } else { unused_for > max_age };
            let young = node.is(Mutant::MaxAgeHonoursMinAge) && sub(free_time, image.record.first_detected) < self.policy.min_age;
            if !old || young {
                remaining.push(image);
                continue;
            }
            if let Err(e) = self.free_image(node, &image, REASON_AGE) {
                errors.push(e);
                remaining.push(image);
            }
        }
        let error = (!errors.is_empty()).then_some(ImageGcError::OldImages { max_age, errors });
        (remaining, error)
    }

    /// `freeSpace`: walks the candidates in order, skipping those used at or after `free_time`
    /// and those first detected less than MinAge ago, deleting the rest until `bytes_to_free`
    /// is reached (checked after each deletion, so a target of 0 still deletes one image).
    pub fn free_space(&mut self, node: &mut Node, bytes_to_free: i64, free_time: DateTime<Utc>, images: &[EvictionInfo]) -> FreeSpace {
        let mut errors = Vec::new();
        let mut freed: i64 = 0;
        let mut left = Vec::new();
        let min_age = self.policy.min_age;
        for image in images {
            if image.record.last_used >= free_time && !node.is(Mutant::RecentlyUsedNotSkipped) {
                left.push(image.id.clone());
                continue;
            }
            let age = sub(free_time, image.record.first_detected);
            let too_young = if node.is(Mutant::MinAgeIgnored) {
                false
            } else if node.is(Mutant::MinAgeExclusive) {
                age <= min_age
            } else {
                age < min_age
            };
            if too_young {
                left.push(image.id.clone());
                continue;
            }
            if node.is(Mutant::StopCheckBeforeDelete) && freed >= bytes_to_free {
                break;
            }
            let removed = match self.free_image(node, image, REASON_SPACE) {
                Ok(removed) => removed,
                Err(e) => {
                    errors.push(e);
                    left.push(image.id.clone());
                    if node.is(Mutant::DeletionErrorsStop) {
                        break;
                    }
                    continue;
                }
            };
            let counted =
                if node.is(Mutant::FreedMeasuredOnDisk) { removed.released_bytes.unwrap_or(removed.size) } else { image.record.size };
            freed = freed.saturating_add(counted);
            if freed >= bytes_to_free && !node.is(Mutant::StopCheckBeforeDelete) {
                break;
            }
        }
        if errors.is_empty() {
            FreeSpace { images_left: Some(left), freed, error: None }
        } else {
            FreeSpace { images_left: None, freed, error: Some(ImageGcError::FreeSpace { wanted: bytes_to_free, freed, errors }) }
        }
    }

    /// `DeleteUnusedImages`: every eligible candidate goes (no thresholds, no MaxAge; in-use,
    /// pinned, MinAge and "used too recently" still protect).
    pub fn delete_unused_images(&mut self, node: &mut Node) -> Result<(), ImageGcError> {
        let free_time = node.now();
        let images = self.images_in_eviction_order(node, free_time)?;
        let result = self.free_space(node, i64::MAX, free_time, &images);
        if let Some(e) = result.error {
            return Err(e);
        }
        self.post_gc_hook_runs.push(result.images_left.unwrap_or_default());
        Ok(())
    }

    /// `freeImage`: removes one image through the runtime and forgets its record.
    fn free_image(&mut self, node: &mut Node, image: &EvictionInfo, reason: &'static str) -> Result<Image, String> {
        let handler = image.record.runtime_handler.clone();
        let removed = node.remove_image(&image.id, &handler)?;
        self.records.remove(&image_key(&image.id, &handler, records::keyed_by_handler(node)));
        *self.collected.entry(reason).or_default() += 1;
        Ok(removed)
    }
}
