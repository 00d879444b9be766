//! Which images image GC may delete and in which order (`imagesInEvictionOrder`): every record
//! not in use and not pinned, least recently used first, ties broken by earlier first
//! detection. (Upstream's sort is unstable on full ties; here they keep record-key order.)

use std::collections::{BTreeMap, BTreeSet};

use crate::kubelet::images::ImageRecord;
use crate::kubelet::mutant::Mutable;
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

/// The records that pinning protects: every pinned one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pinned(pub BTreeSet<String>);

impl Pinned {
    /// The keys of the pinned records among `records`.
    pub fn of(records: &BTreeMap<String, ImageRecord>) -> Self {
        Self(records.iter().filter(|(_, r)| r.pinned).map(|(key, _)| key.clone()).collect())
    }
}

/// The candidates among `records`, sorted for eviction; records whose key yields an empty image
/// ID are skipped with an event.
pub fn candidates(records: &BTreeMap<String, ImageRecord>, in_use: &BTreeSet<String>, node: &mut Node) -> Vec<EvictionInfo> {
    let by_handler = crate::kubelet::images::records::keyed_by_handler(node);
    let pinned = Pinned::of(records).mutated(node.mutant);
    let mut images = Vec::new();
    for (key, record) in records {
        if in_use.contains(key) || pinned.0.contains(key) {
            continue;
        }
        let id = if by_handler { key.split(',').next().unwrap_or_default().to_string() } else { key.clone() };
        if by_handler && id.is_empty() {
            node.warn(INVALID_IMAGE_ID_REASON, "");
            continue;
        }
        images.push(EvictionInfo { id, record: record.clone() });
    }
    sort(&mut images);
    images.mutated(node.mutant)
}

/// Sorts candidates: oldest `lastUsed` first, then oldest `firstDetected`.
pub fn sort(images: &mut [EvictionInfo]) {
    images.sort_by(|a, b| {
        let (a, b) = (&a.record, &b.record);
        a.last_used.cmp(&b.last_used).then(a.first_detected.cmp(&b.first_detected))
    });
}
