//! The image GC manager (`realImageGCManager`): its records, and the passes that delete images —
//! `GarbageCollect` (age, then space), `freeOldImages` (MaxAge), `freeSpace` (LRU under MinAge),
//! and `DeleteUnusedImages` (everything eligible, for the eviction manager).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, TimeDelta, Utc};

use crate::kubelet::events::{FREE_DISK_SPACE_FAILED, FailureEvent, INVALID_DISK_CAPACITY};
use crate::kubelet::images::order::{self, EvictionInfo};
use crate::kubelet::images::records::{self, ImageRecord, image_key};
use crate::kubelet::images::threshold::{SpaceGc, ThresholdCheck, usage_percent};
use crate::kubelet::images::{ImageGcError, ImageGcPolicy, policy};
use crate::kubelet::mutant::Mutable;
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

/// When `GarbageCollect` reads the image filesystem's stats: after age-based deletion, so that
/// space-based deletion sees what it freed (and a stats failure leaves age-based deletion done).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StatsTiming {
    /// After age-based deletion.
    #[default]
    AfterAgeGc,
    /// Before it.
    BeforeAgeGc,
}

/// Whether age-based deletion runs at a pass: only with a MaxAge (0 disables it), and only once
/// MaxAge has passed since the GC loop began (records are not trusted before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgeGcDue {
    /// Whether a MaxAge is set.
    pub enabled: bool,
    /// Whether more than MaxAge has passed since the GC loop began.
    pub waited: bool,
}

/// What age-based deletion makes of a candidate: it goes when unused for longer than MaxAge.
/// MinAge plays no part; the facts beside it are what a rule broken here may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgeVerdict {
    /// How long it has been unused.
    pub unused_for: TimeDelta,
    /// The policy's MaxAge.
    pub max_age: TimeDelta,
    /// How long ago it was first detected.
    pub since_detected: TimeDelta,
    /// The policy's MinAge.
    pub min_age: TimeDelta,
    /// Whether it goes.
    pub delete: bool,
}

impl AgeVerdict {
    /// The verdict on `record` at `free_time` under `policy`.
    pub fn of(record: &ImageRecord, free_time: DateTime<Utc>, policy: &ImageGcPolicy) -> Self {
        let unused_for = sub(free_time, record.last_used);
        Self {
            unused_for,
            max_age: policy.max_age,
            since_detected: sub(free_time, record.first_detected),
            min_age: policy.min_age,
            delete: unused_for > policy.max_age,
        }
    }
}

/// What space-based deletion makes of a candidate: it is passed over when used at or after the
/// pass's time, or when first detected less than MinAge ago.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpaceVerdict {
    /// Whether it was used at or after the pass's time.
    pub recently_used: bool,
    /// How long ago it was first detected.
    pub since_detected: TimeDelta,
    /// The policy's MinAge.
    pub min_age: TimeDelta,
    /// Whether it is younger than MinAge.
    pub too_young: bool,
}

impl SpaceVerdict {
    /// The verdict on `record` at `free_time` with `min_age`.
    pub fn of(record: &ImageRecord, free_time: DateTime<Utc>, min_age: TimeDelta) -> Self {
        let since_detected = sub(free_time, record.first_detected);
        Self { recently_used: record.last_used >= free_time, since_detected, min_age, too_young: since_detected < min_age }
    }

    /// Whether it may be deleted.
    pub fn eligible(&self) -> bool {
        !self.recently_used && !self.too_young
    }
}

/// How `freeSpace` walks the eligible candidates: it deletes one, counts the image's recorded
/// size as freed, and stops once it has freed enough (so a target of 0 still deletes one
/// image); a deletion error is collected and the walk goes on. Each field, when set, departs
/// from that.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FreeSpaceWalk {
    /// Check "freed enough" before each deletion instead of after it.
    pub check_before_deleting: bool,
    /// Stop at the first deletion error.
    pub stop_at_first_error: bool,
    /// Count the bytes the filesystem got back instead of the recorded size.
    pub count_released_bytes: bool,
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
        policy::check(&policy).mutated(node.mutant).result()?;
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
        let detection = records::detect(&self.records, node, detect_time)?.mutated(node.mutant);
        self.records = detection.records;
        Ok(detection.in_use)
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
        let images = self.images_in_eviction_order(node, free_time)?;
        let early_stats = match StatsTiming::default().mutated(node.mutant) {
            StatsTiming::BeforeAgeGc => Some(node.disks.image_fs_stats().map_err(ImageGcError::Stats)?),
            StatsTiming::AfterAgeGc => None,
        };
        let (images, error) = self.free_old_images(node, images, free_time, began_gc);
        if let Some(e) = error {
            return Err(e);
        }
        let fs = match early_stats {
            Some(fs) => fs,
            None => node.disks.image_fs_stats().map_err(ImageGcError::Stats)?,
        };
        let (low, high) = (self.policy.low_threshold_percent, self.policy.high_threshold_percent);
        let check = ThresholdCheck::of(&fs, low, high).mutated(node.mutant);
        match check.action {
            SpaceGc::NotNeeded => Ok(()),
            SpaceGc::InvalidCapacity => {
                let e = ImageGcError::InvalidCapacity;
                node.warn(INVALID_DISK_CAPACITY, e.to_string());
                Err(e)
            }
            SpaceGc::Free(amount) => {
                let result = self.free_space(node, amount, free_time, &images);
                if let Some(e) = result.error {
                    return Err(e);
                }
                self.post_gc_hook_runs.push(result.images_left.unwrap_or_default());
                if result.freed < amount {
                    let e = ImageGcError::NotEnoughFreed {
                        usage_percent: usage_percent(check.capacity, check.available),
                        capacity: check.capacity,
                        freed: result.freed,
                    };
                    node.record_failure(FailureEvent { reason: FREE_DISK_SPACE_FAILED, message: e.to_string(), recorded: true });
                    return Err(e);
                }
                Ok(())
            }
        }
    }

    /// `freeOldImages`: deletes candidates unused for longer than MaxAge, once MaxAge has passed
    /// since the GC loop began ([`AgeGcDue`], [`AgeVerdict`]). Returns the candidates left.
    pub fn free_old_images(
        &mut self,
        node: &mut Node,
        images: Vec<EvictionInfo>,
        free_time: DateTime<Utc>,
        began_gc: DateTime<Utc>,
    ) -> (Vec<EvictionInfo>, Option<ImageGcError>) {
        let max_age = self.policy.max_age;
        let due = AgeGcDue { enabled: max_age != TimeDelta::zero(), waited: sub(free_time, began_gc) > max_age }.mutated(node.mutant);
        if !due.enabled || !due.waited {
            return (images, None);
        }
        let mut errors = Vec::new();
        let mut remaining = Vec::new();
        for image in images {
            if !AgeVerdict::of(&image.record, free_time, &self.policy).mutated(node.mutant).delete {
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

    /// `freeSpace`: walks the candidates in order, passing over those used at or after
    /// `free_time` and those first detected less than MinAge ago ([`SpaceVerdict`]), deleting
    /// the rest until `bytes_to_free` is reached ([`FreeSpaceWalk`]).
    pub fn free_space(&mut self, node: &mut Node, bytes_to_free: i64, free_time: DateTime<Utc>, images: &[EvictionInfo]) -> FreeSpace {
        let walk = FreeSpaceWalk::default().mutated(node.mutant);
        let mut errors = Vec::new();
        let mut freed: i64 = 0;
        let mut left = Vec::new();
        for image in images {
            if !SpaceVerdict::of(&image.record, free_time, self.policy.min_age).mutated(node.mutant).eligible() {
                left.push(image.id.clone());
                continue;
            }
            if walk.check_before_deleting && freed >= bytes_to_free {
                break;
            }
            let removed = match self.free_image(node, image, REASON_SPACE) {
                Ok(removed) => removed,
                Err(e) => {
                    errors.push(e);
                    left.push(image.id.clone());
                    if walk.stop_at_first_error {
                        break;
                    }
                    continue;
                }
            };
            let counted = if walk.count_released_bytes { removed.released_bytes.unwrap_or(removed.size) } else { image.record.size };
            freed = freed.saturating_add(counted);
            if !walk.check_before_deleting && freed >= bytes_to_free {
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
