//! The kubelet model ([`crate::kubelet`]) running a node agent's node: the containers of the
//! pods on the node are the containers of the model's runtime, and their images are pulled into
//! its image store; the kubelet's garbage collection loops (container GC every minute, image
//! detection and GC every five minutes) and its eviction manager (every ten seconds,
//! `evictionMonitoringPeriod` in pkg/kubelet/kubelet.go) act on them with the kubelet's
//! defaults, and what they do reaches the API as a kubelet writes it: the Node's `DiskPressure`
//! condition and `status.images`, an evicted pod's status, the Events the model records.
//!
//! What fills a node's disk, since nothing runs: each node has one filesystem of
//! [`NodeDisks::capacity`] bytes (100 GiB unless the cluster says otherwise), empty when the
//! node starts; an image takes the size the cluster gives it ([`NodeDisks::image_sizes`]),
//! 100 MiB otherwise, from when a container first needs it; a container's writable layer takes
//! the bytes its command writes (`fallocate -l SIZE FILE`, see [`super::programs`]) from when it
//! starts. Removing an image or a container gives its bytes back.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

use crate::kubelet::config::{ContainerGcFlags, KubeletConfiguration};
use crate::kubelet::containers::ContainerGc;
use crate::kubelet::disks::{Filesystem, FsRole};
use crate::kubelet::events::Event;
use crate::kubelet::eviction::manager::{EvictionConfig, EvictionManager, PodUsage};
use crate::kubelet::images::ImageGcManager;
use crate::kubelet::loops::{GcLoops, move_clock_to};
use crate::kubelet::pods::PodState;
use crate::kubelet::runtime::{Container, ContainerState, Image};
use crate::kubelet::time::add;
use crate::workloads::nodes::lifecycle::{self, State};
use crate::workloads::nodes::pod_status::image_names;
use crate::workloads::nodes::programs::program;
use crate::workloads::nodes::scheduler::requests;

/// How often the eviction manager synchronizes.
const EVICTION_MONITORING: Duration = Duration::seconds(10);

/// The most images a Node's status lists (`nodeStatusMaxImages`).
const MAX_IMAGES: usize = 50;

/// What the nodes' disks hold: the same for every node of a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDisks {
    /// Each node's filesystem, in bytes.
    pub capacity: i64,
    /// The size of each image, by the reference a container names it with; others are
    /// [`Self::DEFAULT_IMAGE_SIZE`].
    pub image_sizes: BTreeMap<String, i64>,
}

impl NodeDisks {
    /// The size of an image the cluster gives no size.
    pub const DEFAULT_IMAGE_SIZE: i64 = 100 << 20;

    /// The size of the image `reference`.
    pub fn image_size(&self, reference: &str) -> i64 {
        self.image_sizes.get(reference).copied().unwrap_or(Self::DEFAULT_IMAGE_SIZE)
    }
}

impl Default for NodeDisks {
    fn default() -> Self {
        Self { capacity: 100 << 30, image_sizes: BTreeMap::new() }
    }
}

/// A pod on the node as the kubelet sees it in one pass: the pod, and its containers now when
/// its agent worked them out (a pod that has finished is not worked out again).
pub struct Observed<'a> {
    /// The pod.
    pub pod: &'a Value,
    /// Its containers, if worked out in this pass.
    pub containers: Option<&'a lifecycle::Pod>,
}

/// One eviction: the pod's uid, the grace period it is given, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eviction {
    /// The evicted pod's uid.
    pub uid: String,
    /// When it was evicted.
    pub at: DateTime<Utc>,
    /// Its grace period, in seconds.
    pub grace_seconds: i64,
    /// The eviction message.
    pub message: String,
}

/// What a Node's status says of its kubelet's model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Whether the node is under disk pressure.
    pub disk_pressure: bool,
    /// `status.images`.
    pub images: Value,
    /// The disk's capacity, in bytes (`ephemeral-storage`).
    pub capacity: i64,
}

/// The kubelet model of one node.
#[derive(Debug)]
pub struct NodeKubelet {
    /// The node the model acts on (its clock follows the cluster's).
    node: crate::kubelet::Node,
    /// Image garbage collection.
    images: ImageGcManager,
    /// Container garbage collection.
    containers: ContainerGc,
    /// The GC loops.
    loops: GcLoops,
    /// The eviction manager.
    eviction: EvictionManager,
    /// When the eviction manager synchronizes next.
    next_eviction: DateTime<Utc>,
    /// The ids of the containers ever created, so that one removed is not made again.
    created: BTreeSet<String>,
    /// Image sizes.
    disks: NodeDisks,
}

impl NodeKubelet {
    /// The kubelet of a node that starts at `now` with `disks`, with the kubelet's default
    /// configuration.
    pub fn start(disks: &NodeDisks, now: DateTime<Utc>) -> Result<Self, String> {
        let mut node = crate::kubelet::Node::new(now);
        node.disks.nodefs = Filesystem::new(disks.capacity, disks.capacity);
        let config = KubeletConfiguration::default();
        let images = ImageGcManager::new(config.image_gc_policy(), &node)?;
        let containers = ContainerGc::new(ContainerGcFlags::default().policy(), &node)?;
        let eviction = EvictionManager::new(EvictionConfig::from_kubelet(&config, None)?, &node)?;
        let loops = GcLoops::start(&config, now, None);
        Ok(Self { node, images, containers, loops, eviction, next_eviction: now, created: BTreeSet::new(), disks: disks.clone() })
    }

    /// Runs the GC loops and the eviction manager up to `now`, each pass at its own moment,
    /// and returns the evictions they made.
    pub fn advance(&mut self, now: DateTime<Utc>) -> Result<Vec<Eviction>, String> {
        let mut evictions = Vec::new();
        while self.next_eviction <= now {
            let at = self.next_eviction;
            self.loops.run_until(at, &mut self.node, &mut self.images, &self.containers)?;
            let outcome = self.eviction.synchronize(&mut self.node, &mut self.images, &self.containers);
            if let Some(e) = outcome.evicted {
                self.stop_containers_of(&e.pod, at);
                evictions.push(Eviction { uid: e.pod, at, grace_seconds: e.grace_period_override, message: e.message });
            }
            self.next_eviction = add(at, EVICTION_MONITORING).ok_or("the clock ran out")?;
        }
        self.loops.run_until(now, &mut self.node, &mut self.images, &self.containers)?;
        move_clock_to(&self.node, now);
        Ok(evictions)
    }

    /// When the kubelet next acts by the clock.
    pub fn due(&self) -> DateTime<Utc> {
        self.next_eviction.min(self.loops.next_run())
    }

    /// Brings the runtime and the pod workers up to date with the pods on the node: pulls the
    /// images and creates the containers that have started since, marks those that ended, and
    /// tells the pod workers which pods run, have finished or are gone.
    pub fn observe(&mut self, pods: &[Observed]) {
        let mut present = BTreeSet::new();
        let mut active = Vec::new();
        for observed in pods {
            let uid = observed.pod["metadata"]["uid"].as_str().unwrap_or_default().to_string();
            present.insert(uid.clone());
            if let Some(containers) = observed.containers {
                self.run_containers(&uid, &observed.pod["spec"], containers);
            }
            let finished = matches!(observed.pod["status"]["phase"].as_str(), Some("Succeeded" | "Failed"));
            let states = &mut self.node.pods.states;
            if states.get(&uid) != Some(&PodState::Evicted) {
                states.insert(uid.clone(), if finished { PodState::Terminated } else { PodState::Running });
            }
            if !finished && states.get(&uid) == Some(&PodState::Running) {
                active.push(self.usage(&uid, observed.pod));
            }
        }
        for (uid, state) in self.node.pods.states.iter_mut() {
            if !present.contains(uid) {
                *state = PodState::Removed;
            }
        }
        self.eviction.active_pods = active;
    }

    /// What the node's status says of the kubelet.
    pub fn report(&self) -> Report {
        Report { disk_pressure: self.eviction.is_under_disk_pressure(), images: self.images(), capacity: self.disks.capacity }
    }

    /// The Node's `status.images`: the images on the node, largest first, each named by its
    /// digest and its reference (`setters.go`, `Images`).
    fn images(&self) -> Value {
        let mut images: Vec<&Image> = self.node.runtime.images.iter().collect();
        images.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.id.cmp(&b.id)));
        let listed: Vec<Value> = images
            .into_iter()
            .take(MAX_IMAGES)
            .map(|i| {
                let (reference, digest) = image_names(&i.id);
                json!({"names": [digest, reference], "sizeBytes": i.size})
            })
            .collect();
        json!(listed)
    }

    /// The Events recorded since the last call, oldest first.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.node.events)
    }

    /// Creates the containers of pod `uid` that have started since the last pass (pulling
    /// their images when missing) and marks those that have ended.
    fn run_containers(&mut self, uid: &str, spec: &Value, pod: &lifecycle::Pod) {
        let specs: Vec<&Value> =
            ["initContainers", "containers"].iter().flat_map(|list| spec[*list].as_array().into_iter().flatten()).collect();
        for container in pod.init.iter().chain(&pod.containers) {
            let Some(spec) = specs.iter().find(|s| s["name"] == container.name.as_str()) else { continue };
            let current = match &container.state {
                State::NotStarted => continue,
                State::Running(since) => (*since, None),
                State::Ended(e) | State::BackOff(e, _) => (e.started, Some(e.finished)),
            };
            let attempt = u32::try_from(container.restarts).unwrap_or(0);
            let previous = container.last.as_ref().map(|e| (e.started, Some(e.finished)));
            for (run, attempt) in previous.into_iter().map(|r| (r, attempt.saturating_sub(1))).chain([(current, attempt)]) {
                self.run_container(uid, spec, &container.name, attempt, run);
            }
        }
    }

    /// Creates (or marks ended) the run of container `name` of pod `uid` that started at
    /// `run.0` and, if it has, ended at `run.1`.
    fn run_container(&mut self, uid: &str, spec: &Value, name: &str, attempt: u32, run: (DateTime<Utc>, Option<DateTime<Utc>>)) {
        let (started, finished) = run;
        let id = format!("{uid}/{name}/{}", started.timestamp_millis());
        let state = if finished.is_some() { ContainerState::Exited } else { ContainerState::Running };
        if let Some(c) = self.node.runtime.containers.iter_mut().find(|c| c.id == id) {
            c.state = state;
            c.finished = finished;
            return;
        }
        if !self.created.insert(id.clone()) {
            return;
        }
        let image = spec["image"].as_str().unwrap_or_default().to_string();
        if !self.node.runtime.images.iter().any(|i| i.id == image) {
            let size = self.disks.image_size(&image);
            take(self.node.disks.fs_mut(FsRole::Image), size);
            self.node.runtime.images.push(Image::new(&image, size));
        }
        let writes = program(spec).writes;
        take(self.node.disks.fs_mut(FsRole::Container), writes);
        self.node.runtime.containers.push(Container {
            id,
            pod_uid: uid.to_string(),
            name: name.to_string(),
            attempt,
            created: started,
            finished,
            state,
            image_id: image,
            image_runtime_handler: String::new(),
            sandbox_id: None,
            size: writes,
            image_volumes: Vec::new(),
        });
    }

    /// Stops every running container of pod `uid` at `at` (the eviction's kill).
    fn stop_containers_of(&mut self, uid: &str, at: DateTime<Utc>) {
        for c in self.node.runtime.containers.iter_mut().filter(|c| c.pod_uid == uid && c.state == ContainerState::Running) {
            c.state = ContainerState::Exited;
            c.finished = Some(at);
        }
    }

    /// What pod `uid` uses of the disk, for the eviction manager's ranking.
    fn usage(&self, uid: &str, pod: &Value) -> PodUsage {
        let disk_usage = self.node.runtime.containers.iter().filter(|c| c.pod_uid == uid).map(|c| c.size).sum();
        let requested = requests(&pod["spec"]).get("ephemeral-storage").copied().unwrap_or(0) / 1000;
        let ephemeral_storage_request = i64::try_from(requested).unwrap_or(i64::MAX);
        let priority = pod["spec"]["priority"].as_i64().and_then(|p| i32::try_from(p).ok()).unwrap_or(0);
        PodUsage { name: uid.to_string(), priority, disk_usage, ephemeral_storage_request }
    }
}

/// Takes `bytes` from a filesystem (never below empty).
fn take(fs: &mut Filesystem, bytes: i64) {
    fs.available = fs.available.saturating_sub(bytes.max(0)).max(0);
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use serde_json::json;

    use super::*;
    use crate::workloads::nodes::lifecycle::{Stop, at};

    fn t(seconds: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2025, 1, 1, 10, 0, 0).single().unwrap_or_default() + Duration::seconds(seconds)
    }

    fn filler(phase: &str) -> Value {
        json!({"metadata": {"uid": "u1"}, "status": {"phase": phase}, "spec": {"containers": [
            {"name": "c", "image": "busybox", "command": ["sh", "-c", "fallocate -l 9G /data; sleep infinity"]}]}})
    }

    fn disks() -> NodeDisks {
        NodeDisks { capacity: 10 << 30, ..Default::default() }
    }

    #[test]
    fn a_pod_that_fills_the_disk_is_evicted_and_the_next_pass_reclaims_its_containers() {
        let mut kubelet = NodeKubelet::start(&disks(), t(0)).expect("the defaults are valid");
        assert!(kubelet.advance(t(0)).expect("runs").is_empty());
        let pod = filler("Running");
        let running = at(&pod["spec"], t(0), None, t(0));
        kubelet.observe(&[Observed { pod: &pod, containers: Some(&running) }]);
        assert!(kubelet.advance(t(9)).expect("runs").is_empty());
        let evictions = kubelet.advance(t(10)).expect("runs");
        assert_eq!(evictions.iter().map(|e| (e.uid.as_str(), e.at, e.grace_seconds)).collect::<Vec<_>>(), [("u1", t(10), 1)]);
        assert!(kubelet.report().disk_pressure);
        let killed = at(&pod["spec"], t(0), Some(Stop { term: t(10), kill: t(11) }), t(11));
        let failed = filler("Failed");
        kubelet.observe(&[Observed { pod: &failed, containers: Some(&killed) }]);
        kubelet.advance(t(19)).expect("runs");
        assert_eq!(kubelet.node.runtime.containers.len(), 1);
        kubelet.advance(t(20)).expect("runs");
        assert!(kubelet.node.runtime.containers.is_empty(), "the next pass reclaims the evicted pod's containers");
        kubelet.advance(t(319)).expect("runs");
        assert!(kubelet.report().disk_pressure, "reported for five minutes after the last pass that saw it");
        kubelet.advance(t(320)).expect("runs");
        assert!(!kubelet.report().disk_pressure);
    }
}
