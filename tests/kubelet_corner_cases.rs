//! Corner cases of the kubelet model that the feature files leave to unit level, because they
//! need a look inside (the order among equal creation times, what `freeSpace` returns on
//! errors) or are too fiddly to read well as a scenario (a negative amount to free, soft
//! eviction thresholds, image volumes, the odd event for an empty image ID).

use kubegc::kubelet::Node;
use kubegc::kubelet::containers::{ContainerGcPolicy, dead};
use kubegc::kubelet::disks::{DiskLayout, Filesystem};
use kubegc::kubelet::events::EventType;
use kubegc::kubelet::eviction::manager::{EvictionConfig, EvictionManager, PodUsage};
use kubegc::kubelet::eviction::thresholds::parse_threshold;
use kubegc::kubelet::images::order::INVALID_IMAGE_ID_REASON;
use kubegc::kubelet::images::{ImageGcError, ImageGcManager, ImageGcPolicy, threshold};
use kubegc::kubelet::runtime::{Container, ContainerState, Image};
use kubegc::kubelet::time::{DateTime, TimeDelta, Utc, on_day_at};

fn at(node: &Node, hhmm: &str) -> DateTime<Utc> {
    on_day_at(node.now(), hhmm).expect("a time of day")
}

fn container(node: &Node, id: &str, pod: &str, image: &str, created: &str, state: ContainerState) -> Container {
    Container {
        id: id.into(),
        pod_uid: pod.into(),
        name: "app".into(),
        attempt: 0,
        created: at(node, created),
        finished: None,
        state,
        image_id: image.into(),
        image_runtime_handler: String::new(),
        sandbox_id: None,
        size: 0,
        image_volumes: Vec::new(),
    }
}

fn policy(high: i64, low: i64) -> ImageGcPolicy {
    ImageGcPolicy { high_threshold_percent: high, low_threshold_percent: low, min_age: TimeDelta::zero(), max_age: TimeDelta::zero() }
}

/// Upstream `GarbageCollect` and `freeSpace`: with low == high (which only the manager accepts)
/// the amount to free can be negative; space GC then still deletes the first eligible image, and
/// succeeds.
#[test]
fn a_negative_amount_to_free_still_deletes_one_image() {
    assert_eq!(threshold::amount_to_free(1000, 155, 85), -5);
    assert_eq!(threshold::usage_percent(1000, 155), 85);
    let mut node = Node::at_ten();
    node.disks.nodefs = Filesystem::new(1000, 155);
    node.runtime.images = vec![Image::new("a", 10), Image::new("b", 10)];
    let mut images = ImageGcManager::new(policy(85, 85), &node).expect("the manager accepts low == high");
    images.detect_images(&node, at(&node, "09:00")).unwrap();
    let began = node.now();
    images.garbage_collect(&mut node, began).expect("no error");
    assert_eq!(node.runtime.images.len(), 1, "exactly one image goes");
}

/// Upstream `evictContainers`: among dead containers created at the same instant the order is
/// unspecified; the limits still hold exactly.
#[test]
fn equal_creation_times_still_respect_the_limits() {
    let mut node = Node::at_ten();
    node.pods.states.insert("web".into(), kubegc::kubelet::pods::PodState::Running);
    for id in ["x", "y", "z"] {
        let c = container(&node, id, "web", "", "08:00", ContainerState::Exited);
        node.runtime.containers.push(c);
    }
    let policy = ContainerGcPolicy { min_age: TimeDelta::zero(), max_per_pod_container: 1, max_containers: -1 };
    dead::evict_containers(&mut node, &policy, true, false).unwrap();
    assert_eq!(node.runtime.containers.len(), 1);
}

/// With a deletion error `freeSpace` returns no list of images left (upstream's nil) but
/// still the bytes it freed.
#[test]
fn free_space_with_errors_returns_no_images_left() {
    let mut node = Node::at_ten();
    node.runtime.images = vec![Image::new("a", 10), Image::new("b", 20)];
    node.runtime.faults.remove_image.insert("a".into());
    let mut images = ImageGcManager::new(policy(90, 80), &node).unwrap();
    images.detect_images(&node, at(&node, "09:00")).unwrap();
    let now = node.now();
    let candidates = images.images_in_eviction_order(&mut node, now).unwrap();
    let result = images.free_space(&mut node, 100, now, &candidates);
    assert_eq!(result.images_left, None);
    assert_eq!(result.freed, 20);
    assert!(matches!(result.error, Some(ImageGcError::FreeSpace { wanted: 100, freed: 20, .. })));
}

/// Upstream `detectImages`: with the ImageVolume gate, an image mounted into a container as a
/// volume is in use.
#[test]
fn an_image_mounted_as_a_volume_is_in_use() {
    let mut node = Node::at_ten();
    node.gates.image_volume = true;
    node.runtime.images = vec![Image::new("app", 10), Image::new("data", 10)];
    let mut c = container(&node, "c", "web", "app", "09:00", ContainerState::Running);
    c.image_volumes = vec!["data".into()];
    node.runtime.containers.push(c);
    let mut images = ImageGcManager::new(policy(90, 80), &node).unwrap();
    let in_use = images.detect_images(&node, node.now()).unwrap();
    assert!(in_use.contains("data") && in_use.contains("app"));
    node.runtime.faults.container_status.insert("c".into());
    let err = images.detect_images(&node, node.now()).unwrap_err();
    assert!(err.to_string().starts_with("get container status: "), "{err}");
}

/// An image whose record key yields an empty image ID is skipped, with upstream's odd
/// event whose reason is the format string itself.
#[test]
fn an_empty_image_id_is_skipped_with_the_odd_event() {
    let mut node = Node::at_ten();
    node.gates.runtime_class_in_image_cri_api = true;
    let mut odd = Image::new("", 10);
    odd.runtime_handler = "H".into();
    node.runtime.images = vec![odd];
    let mut images = ImageGcManager::new(policy(90, 80), &node).unwrap();
    let now = node.now();
    let candidates = images.images_in_eviction_order(&mut node, now).unwrap();
    assert!(candidates.is_empty());
    assert_eq!(node.events.len(), 1);
    assert_eq!(node.events[0].reason, INVALID_IMAGE_ID_REASON);
    assert_eq!(node.events[0].event_type, EventType::Warning);
}

/// Upstream's eviction manager (`pkg/kubelet/eviction`): a soft threshold acts only once met for
/// its grace period, and evicts with the maximum pod grace period instead of one second.
#[test]
fn a_soft_threshold_waits_for_its_grace_period() {
    let mut node = Node::at_ten();
    node.disks.layout = DiskLayout::DedicatedImageFs;
    node.disks.nodefs = Filesystem::new(20 << 30, 500 << 20);
    let mut soft = parse_threshold("nodefs.available<1Gi").unwrap();
    soft.grace_period = TimeDelta::minutes(1);
    let config =
        EvictionConfig { thresholds: vec![soft], pressure_transition_period: TimeDelta::minutes(5), max_pod_grace_period_seconds: 30 };
    let mut eviction = EvictionManager::new(config, &node).unwrap();
    eviction.active_pods = vec![PodUsage { name: "web".into(), priority: 0, disk_usage: 1 << 30, ephemeral_storage_request: 0 }];
    let mut images = ImageGcManager::new(policy(85, 80), &node).unwrap();
    let containers = kubegc::kubelet::containers::ContainerGc::new(ContainerGcPolicy::default(), &node).unwrap();
    let first = eviction.synchronize(&mut node, &mut images, &containers);
    assert!(eviction.is_under_disk_pressure(), "the condition is reported at once");
    assert_eq!(first.evicted, None, "but nothing happens before the grace period");
    node.clock.advance(TimeDelta::minutes(1));
    let second = eviction.synchronize(&mut node, &mut images, &containers);
    assert_eq!(second.evicted.map(|e| (e.pod, e.grace_period_override)), Some(("web".to_string(), 30)));
}

/// Upstream's eviction manager: a split image filesystem needs the KubeletSeparateDiskGC gate.
#[test]
fn a_split_filesystem_without_its_gate_is_an_error() {
    let mut node = Node::at_ten();
    node.disks.layout = DiskLayout::SplitImageFs;
    node.gates.kubelet_separate_disk_gc = false;
    let config =
        EvictionConfig { thresholds: Vec::new(), pressure_transition_period: TimeDelta::minutes(5), max_pod_grace_period_seconds: 0 };
    assert!(EvictionManager::new(config, &node).is_err());
}

/// Upstream's eviction manager: configured container filesystem thresholds are replaced by ones
/// synthesised from the filesystem that holds the writable layers.
#[test]
fn container_filesystem_thresholds_are_synthesised() {
    let mut node = Node::at_ten();
    node.disks.layout = DiskLayout::DedicatedImageFs;
    let thresholds =
        ["containerfs.available<1Gi", "imagefs.available<15%", "nodefs.available<10%"].map(|t| parse_threshold(t).unwrap()).to_vec();
    let config = EvictionConfig { thresholds, pressure_transition_period: TimeDelta::minutes(5), max_pod_grace_period_seconds: 0 };
    let eviction = EvictionManager::new(config, &node).unwrap();
    let rendered: Vec<String> = eviction.thresholds().iter().map(|t| format!("{}<{:?}", t.signal, t.value)).collect();
    assert_eq!(
        rendered,
        ["imagefs.available<Percentage(0.15)", "nodefs.available<Percentage(0.1)", "containerfs.available<Percentage(0.15)"]
    );
}

/// Upstream `evictPodLogsDirectories`: an unreadable pod logs directory fails that step with
/// upstream's text, and skips the symlink cleanup of the same step.
#[test]
fn an_unreadable_pod_logs_directory_is_an_error() {
    let mut node = Node::at_ten();
    node.logs.read_error = Some("permission denied".into());
    node.logs.symlinks = vec![kubegc::kubelet::logs::LogSymlink { name: "web_default_app-gone.log".into(), target_exists: false }];
    let err = kubegc::kubelet::containers::logs::evict_pod_logs_directories(&mut node, true).unwrap_err();
    assert_eq!(err, "failed to read podLogsDirectory \"/var/log/pods\": permission denied");
    assert!(node.logs.removed.is_empty());
}
