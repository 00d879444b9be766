//! Which images image GC may delete and in which order (`imagesInEvictionOrder`): every record
//! not in use and not pinned, least recently used first, ties broken by earlier first
//! detection. (Upstream's sort is unstable on full ties; here they keep record-key order.)

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use crate::kubelet::images::ImageRecord;
use crate::kubelet::mutant::{self, Mutant};
use crate::kubelet::node::Node;

/// Reason of the odd event upstream records for an empty image ID: the format string itself.
pub const INVALID_IMAGE_ID_REASON: &str = "ImageID is not valid, skipping, ImageID: %v";

/// A candidate for deletion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvictionInfo {
    /// The image ID to remove (without the runtime handler).
    pub id: String,
    /// Its record when the candidates were listed.
    pub record: ImageRecord,
}

/// The candidates among `records`, sorted for eviction; records whose key yields an empty image
/// ID are skipped with an event.
pub fn candidates(records: &BTreeMap<String, ImageRecord>, in_use: &BTreeSet<String>, node: &mut Node) -> Vec<EvictionInfo> {
    let by_handler = crate::kubelet::images::records::keyed_by_handler(node);
    let mut images = Vec::new();
    for (key, record) in records {
        if in_use.contains(key) || (record.pinned && !node.is(Mutant::PinnedCollected)) {
            continue;
        }
        let id = if by_handler { key.split(',').next().unwrap_or_default().to_string() } else { key.clone() };
        if by_handler && id.is_empty() {
            node.warn(INVALID_IMAGE_ID_REASON, "");
            continue;
        }
        images.push(EvictionInfo { id, record: record.clone() });
    }
    sort(&mut images, node.mutant);
    images
}

/// Sorts candidates: oldest `lastUsed` first, then oldest `firstDetected`.
pub fn sort(images: &mut [EvictionInfo], active: Option<mutant::Mutant>) {
    images.sort_by(|a, b| {
        let (a, b) = (&a.record, &b.record);
        let by_detection = if mutant::is(active, Mutant::TieBreakReversed) {
            b.first_detected.cmp(&a.first_detected)
        } else {
            a.first_detected.cmp(&b.first_detected)
        };
        let by_use = if mutant::is(active, Mutant::LruReversed) { b.last_used.cmp(&a.last_used) } else { a.last_used.cmp(&b.last_used) };
        match by_use {
            Ordering::Equal => by_detection,
            other => other,
        }
    });
}
