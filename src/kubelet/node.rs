//! The fake node that the kubelet's garbage collectors act on: its runtime, disks, pod
//! workers, logs, config-source readiness, feature gates, recorded events, and the clock they
//! all read. Removing an image, container or log through the node gives its bytes back to the
//! right filesystem.

use chrono::{DateTime, TimeZone, Utc};

use crate::clock::Clock;
use crate::kubelet::disks::{Disks, FsRole};
use crate::kubelet::events::{Event, EventType, FailureEvent};
use crate::kubelet::logs::{PodLogs, SymlinkGoesWithContainer, legacy_symlink_name};
use crate::kubelet::mutant::{Mutable, Mutant};
use crate::kubelet::pods::{PodWorkers, UnknownPods};
use crate::kubelet::runtime::{Container, Image, Runtime};

/// Feature gates the kubelet's GC depends on (defaults as of v1.37, the pinned release).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureGates {
    /// `RuntimeClassInImageCriAPI` (alpha, off): image records keyed by `<id>,<handler>`.
    pub runtime_class_in_image_cri_api: bool,
    /// `ImageMaximumGCAge` (GA and locked on since v1.35): `imageMaximumGCAge` may be set.
    pub image_maximum_gc_age: bool,
    /// `KubeletSeparateDiskGC` (on): the image filesystem may be split from the container one.
    pub kubelet_separate_disk_gc: bool,
    /// `ImageVolume` (GA and locked on since v1.36): images mounted as volumes count as in use,
    /// and detection reads the status of every container to find them.
    pub image_volume: bool,
}

impl Default for FeatureGates {
    fn default() -> Self {
        Self { runtime_class_in_image_cri_api: false, image_maximum_gc_age: true, kubelet_separate_disk_gc: true, image_volume: true }
    }
}

/// Whether a feature gate is locked to its default (GA): such a gate cannot be changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GateLock(pub bool);

impl FeatureGates {
    /// Sets the gate named `name` (upstream's spelling) as the kubelet's feature gate does, on
    /// a kubelet running with `active`: a gate that is GA and locked to its default cannot be
    /// changed.
    pub fn set(&mut self, name: &str, on: bool, active: Option<Mutant>) -> Result<(), String> {
        let (gate, locked) = match name {
            "RuntimeClassInImageCriAPI" => (&mut self.runtime_class_in_image_cri_api, false),
            "ImageMaximumGCAge" => (&mut self.image_maximum_gc_age, true),
            "KubeletSeparateDiskGC" => (&mut self.kubelet_separate_disk_gc, false),
            "ImageVolume" => (&mut self.image_volume, true),
            other => return Err(format!("the model has no feature gate {other}")),
        };
        if GateLock(locked).mutated(active).0 && on != *gate {
            return Err(format!("cannot set feature gate {name} to {on}, feature is locked to {}", *gate));
        }
        *gate = on;
        Ok(())
    }
}

/// The fake node.
#[derive(Clone, Debug)]
pub struct Node {
    /// The clock every "now" is read from (virtual in scenarios: nothing sleeps).
    pub clock: Clock,
    /// The container runtime.
    pub runtime: Runtime,
    /// The filesystems.
    pub disks: Disks,
    /// What the pod workers know of each pod.
    pub pods: PodWorkers,
    /// Pod log directories and container log symlinks.
    pub logs: PodLogs,
    /// Whether all config sources (API server, files, HTTP) have been seen: until then the
    /// kubelet does not know which pods are gone and removes no deleted pod's content.
    pub sources_ready: bool,
    /// Feature gates.
    pub gates: FeatureGates,
    /// Events recorded so far, oldest first.
    pub events: Vec<Event>,
    /// A deliberate bug the model runs with (see [`crate::kubelet::mutant`]).
    #[doc(hidden)]
    pub mutant: Option<Mutant>,
}

impl Node {
    /// A node whose virtual clock starts at `start`, with one empty 100 GiB filesystem.
    pub fn new(start: DateTime<Utc>) -> Self {
        Self {
            clock: Clock::virtual_at(start),
            runtime: Runtime::default(),
            disks: Disks::default(),
            pods: PodWorkers::default(),
            logs: PodLogs::default(),
            sources_ready: true,
            gates: FeatureGates::default(),
            events: Vec::new(),
            mutant: None,
        }
    }

    /// A node whose clock starts at 2025-01-01T10:00:00Z.
    pub fn at_ten() -> Self {
        Self::new(Utc.with_ymd_and_hms(2025, 1, 1, 10, 0, 0).single().unwrap_or_default())
    }

    /// The current time.
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// Records a Warning event on the Node.
    pub fn warn(&mut self, reason: &str, message: impl Into<String>) {
        self.events.push(Event { event_type: EventType::Warning, reason: reason.into(), message: message.into(), object: "Node".into() });
    }

    /// Records `failure` as a Warning event on the Node if the rule says it is recorded.
    pub fn record_failure(&mut self, failure: FailureEvent) {
        let failure = failure.mutated(self.mutant);
        if failure.recorded {
            self.warn(failure.reason, failure.message);
        }
    }

    /// Removes an image through the runtime and gives its bytes back to the image filesystem.
    pub fn remove_image(&mut self, id: &str, handler: &str) -> Result<Image, String> {
        let image = self.runtime.remove_image(id, handler)?;
        self.disks.fs_mut(FsRole::Image).release(image.released_bytes.unwrap_or(image.size));
        Ok(image)
    }

    /// Removes a container as the kubelet's runtime manager does (`removeContainer`): first its
    /// legacy log symlink (`removeContainerLog` reads the container's status for its pod and
    /// name, and a failure there keeps the container), then the container through the runtime,
    /// giving its bytes back to the container filesystem.
    pub fn remove_container(&mut self, id: &str) -> Result<Container, String> {
        self.runtime.container_status(id).map_err(|e| format!("failed to get container status {id:?}: {e}"))?;
        if let Some(c) = self.runtime.containers.iter().find(|c| c.id == id)
            && SymlinkGoesWithContainer(true).mutated(self.mutant).0
        {
            let name = legacy_symlink_name(&c.pod_uid, &c.name, id);
            self.logs.remove_symlink(&name);
        }
        let container = self.runtime.remove_container(id)?;
        self.disks.fs_mut(FsRole::Container).release(container.size);
        Ok(container)
    }

    /// `ShouldPodRuntimeBeRemoved` of the pod workers.
    pub fn should_pod_runtime_be_removed(&self, uid: &str) -> bool {
        self.pods.should_pod_runtime_be_removed(uid, self.unknown_pods())
    }

    /// `ShouldPodContentBeRemoved` of the pod workers.
    pub fn should_pod_content_be_removed(&self, uid: &str) -> bool {
        self.pods.should_pod_content_be_removed(uid, self.unknown_pods())
    }

    /// What becomes of the pods the pod workers do not know.
    fn unknown_pods(&self) -> UnknownPods {
        self.pods.unknown_pods().mutated(self.mutant)
    }
}
