//! What the kubelet remembers of each image, and the detection pass (`detectImages`) that keeps
//! it current. Records live in memory only: a restarted kubelet starts over.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use crate::kubelet::images::ImageGcError;
use crate::kubelet::mutant::Mutable;
use crate::kubelet::node::Node;
use crate::kubelet::runtime::{Container, ContainerState, Image};
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

/// How records are keyed: by runtime handler when `RuntimeClassInImageCriAPI` is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keying {
    /// Whether keys include the runtime handler.
    pub by_handler: bool,
}

/// Whether records are keyed by runtime handler on this node.
pub fn keyed_by_handler(node: &Node) -> bool {
    Keying { by_handler: node.gates.runtime_class_in_image_cri_api }.mutated(node.mutant).by_handler
}

/// The images a detection pass finds in use, by what uses them: every container's, running or
/// not, and (with `ImageVolume`) those mounted as volumes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InUse {
    /// Record keys of the images of running containers.
    pub by_running: BTreeSet<String>,
    /// Record keys of the images of containers that are not running (which still hold theirs).
    pub by_not_running: BTreeSet<String>,
    /// IDs of the listed images mounted as volumes.
    pub mounted: BTreeSet<String>,
}

impl InUse {
    /// Finds the images of `images` that `containers` use; the status of each container is read
    /// when image volumes count.
    pub fn of(node: &Node, images: &[Image], containers: &[Container], by_handler: bool) -> Result<Self, ImageGcError> {
        let mut in_use = InUse::default();
        for c in containers {
            if node.gates.image_volume {
                node.runtime.container_status(&c.id).map_err(|e| ImageGcError::Runtime(format!("get container status: {e}")))?;
                for mounted in &c.image_volumes {
                    if images.iter().any(|i| &i.id == mounted) {
                        in_use.mounted.insert(mounted.clone());
                    }
                }
            }
            let key = image_key(&c.image_id, &c.image_runtime_handler, by_handler);
            let users = if c.state == ContainerState::Running { &mut in_use.by_running } else { &mut in_use.by_not_running };
            users.insert(key);
        }
        Ok(in_use)
    }

    /// The keys (or, for mounted images, IDs) of the images in use.
    pub fn keys(&self) -> BTreeSet<String> {
        self.by_running.iter().chain(&self.by_not_running).chain(&self.mounted).cloned().collect()
    }
}

/// What a detection pass makes of the records: new images get `firstDetected` = the pass's
/// detect time, images in use get `lastUsed` = now, sizes and pins are refreshed (the last of
/// duplicate entries wins), and records of images no longer listed are forgotten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detection {
    /// The pass's detect time.
    pub detect_time: DateTime<Utc>,
    /// The images listed, each with its record key, in listing order (duplicates included).
    pub listed: Vec<(String, Image)>,
    /// The keys of the images in use.
    pub in_use: BTreeSet<String>,
    /// The records after the pass.
    pub records: BTreeMap<String, ImageRecord>,
    /// The records of images no longer listed, which the pass forgets.
    pub forgotten: BTreeMap<String, ImageRecord>,
}

/// A detection pass over `records` at `detect_time` ([`Detection`]).
pub fn detect(records: &BTreeMap<String, ImageRecord>, node: &Node, detect_time: DateTime<Utc>) -> Result<Detection, ImageGcError> {
    let by_handler = keyed_by_handler(node);
    let images = node.runtime.list_images().map_err(ImageGcError::Runtime)?;
    let containers = node.runtime.list_containers().map_err(ImageGcError::Runtime)?;
    let in_use = InUse::of(node, &images, &containers, by_handler)?.mutated(node.mutant).keys();
    let now = node.now();
    let listed: Vec<(String, Image)> =
        images.into_iter().map(|image| (image_key(&image.id, &image.runtime_handler, by_handler), image)).collect();
    let mut updated = records.clone();
    for (key, image) in &listed {
        let record = updated.entry(key.clone()).or_insert_with(|| ImageRecord {
            first_detected: detect_time,
            last_used: zero_time(),
            size: image.size,
            pinned: image.pinned,
            runtime_handler: image.runtime_handler.clone(),
        });
        if in_use.contains(key) {
            record.last_used = now;
        }
        record.size = image.size;
        record.pinned = image.pinned;
    }
    let current: BTreeSet<&String> = listed.iter().map(|(key, _)| key).collect();
    let (records, forgotten): (BTreeMap<_, _>, BTreeMap<_, _>) = updated.into_iter().partition(|(key, _)| current.contains(key));
    Ok(Detection { detect_time, listed, in_use, records, forgotten })
}
