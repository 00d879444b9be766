//! What the kubelet remembers of each image, and the detection pass (`detectImages`) that keeps
//! it current. Records live in memory only: a restarted kubelet starts over.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use crate::kubelet::images::ImageGcError;
use crate::kubelet::mutant::Mutant;
use crate::kubelet::node::Node;
use crate::kubelet::time::zero_time;

/// One image's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageRecord {
    /// When this kubelet first saw the image (MinAge is measured from here).
    pub first_detected: DateTime<Utc>,
    /// The last detection pass at which a container used it; the zero time if never.
    pub last_used: DateTime<Utc>,
    /// Size as last listed.
    pub size: i64,
    /// Pinned as last listed.
    pub pinned: bool,
    /// The runtime handler it was pulled with.
    pub runtime_handler: String,
}

/// The key of an image's record: its ID, or `<id>,<handler>` when `RuntimeClassInImageCriAPI`
/// is on and the image has a handler.
pub fn image_key(id: &str, handler: &str, keyed_by_handler: bool) -> String {
    if keyed_by_handler && !handler.is_empty() { format!("{id},{handler}") } else { id.to_string() }
}

/// Whether records are keyed by runtime handler on this node.
pub fn keyed_by_handler(node: &Node) -> bool {
    node.gates.runtime_class_in_image_cri_api && !node.is(Mutant::RuntimeHandlerIgnored)
}

/// A detection pass at `detect_time`: new images get `firstDetected = detect_time`, images in
/// use by any container (running or not) get `lastUsed = now`, sizes and pins are refreshed,
/// records of images no longer listed are dropped. Returns the keys of the images in use.
pub fn detect(
    records: &mut BTreeMap<String, ImageRecord>,
    node: &Node,
    detect_time: DateTime<Utc>,
) -> Result<BTreeSet<String>, ImageGcError> {
    let by_handler = keyed_by_handler(node);
    let images = node.runtime.list_images().map_err(ImageGcError::Runtime)?;
    let containers = node.runtime.list_containers().map_err(ImageGcError::Runtime)?;
    let mut in_use = BTreeSet::new();
    for c in &containers {
        if node.gates.image_volume {
            node.runtime.container_status(&c.id).map_err(|e| ImageGcError::Runtime(format!("get container status: {e}")))?;
            for mounted in &c.image_volumes {
                if images.iter().any(|i| &i.id == mounted) {
                    in_use.insert(mounted.clone());
                }
            }
        }
        if node.is(Mutant::InUseRunningOnly) && c.state != crate::kubelet::runtime::ContainerState::Running {
            continue;
        }
        in_use.insert(image_key(&c.image_id, &c.image_runtime_handler, by_handler));
    }
    let now = if node.is(Mutant::LastUsedIsDetectTime) { detect_time } else { node.now() };
    let mut current = BTreeSet::new();
    for image in &images {
        let key = image_key(&image.id, &image.runtime_handler, by_handler);
        let first_seen_in_this_pass = current.insert(key.clone());
        let record = records.entry(key.clone()).or_insert_with(|| ImageRecord {
            first_detected: detect_time,
            last_used: zero_time(),
            size: image.size,
            pinned: image.pinned,
            runtime_handler: image.runtime_handler.clone(),
        });
        if node.is(Mutant::FirstDetectedRefreshed) {
            record.first_detected = detect_time;
        }
        if in_use.contains(&key) {
            record.last_used = now;
        }
        if first_seen_in_this_pass || !node.is(Mutant::FirstDuplicateWins) {
            record.size = image.size;
            record.pinned = image.pinned;
        }
    }
    if !node.is(Mutant::StaleRecordsKept) {
        records.retain(|key, _| current.contains(key));
    }
    Ok(in_use)
}
