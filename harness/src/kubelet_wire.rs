//! The JSON form in which the kubelet model and upstream's kubelet code (through kubegc's
//! driver in `upstream/cmd/kubegc-kubelet-driver/`, whose `wire.go` is the other half) describe
//! a node, an operation on it, and what came of the operation. Times are RFC 3339, durations
//! nanoseconds, sizes bytes.
//!
//! A [`Request`] carries the whole fake node and one [`Op`]; an [`Answer`] carries the node
//! afterwards and what the kubelet's code made of it. [`WireNode::of`] and [`WireNode::apply_to`]
//! convert to and from the model's [`kubegc::kubelet::Node`].

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use kubegc::kubelet::config::{KubeletConfigFile, KubeletConfiguration};
use kubegc::kubelet::containers::ContainerGcPolicy;
use kubegc::kubelet::disks::{DiskLayout, Filesystem};
use kubegc::kubelet::events::EventType;
use kubegc::kubelet::eviction::PodUsage;
use kubegc::kubelet::eviction::reclaim::ReclaimFn;
use kubegc::kubelet::eviction::thresholds::Threshold;
use kubegc::kubelet::images::records::ImageRecord;
use kubegc::kubelet::logs::{LogDir, LogSymlink};
use kubegc::kubelet::pods::PodState;
use kubegc::kubelet::runtime::{Container, ContainerState, Image, RuntimeCall, Sandbox, SandboxState};

/// RFC 3339 times, as Go's `time.Time` reads and writes them.
mod rfc3339 {
    use chrono::{DateTime, SecondsFormat, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&t.to_rfc3339_opts(SecondsFormat::AutoSi, true))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(d)?;
        DateTime::parse_from_rfc3339(&text).map(|t| t.with_timezone(&Utc)).map_err(serde::de::Error::custom)
    }

    /// Optional times.
    pub mod option {
        use chrono::{DateTime, Utc};
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
            match t {
                Some(t) => super::serialize(t, s),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
            Option::<String>::deserialize(d)?
                .map(|text| DateTime::parse_from_rfc3339(&text).map(|t| t.with_timezone(&Utc)).map_err(serde::de::Error::custom))
                .transpose()
        }
    }
}

/// A disk layout's name: `single`, `dedicated` (a dedicated image filesystem) or `split` (the
/// image filesystem split from the container filesystem).
pub fn layout_name(layout: DiskLayout) -> &'static str {
    match layout {
        DiskLayout::Single => "single",
        DiskLayout::DedicatedImageFs => "dedicated",
        DiskLayout::SplitImageFs => "split",
    }
}

/// A node-level reclaim function of its upstream name.
pub fn reclaim_fn(name: &str) -> Result<ReclaimFn, String> {
    match name {
        "DeleteAllUnusedContainers" => Ok(ReclaimFn::DeleteAllUnusedContainers),
        "DeleteUnusedImages" => Ok(ReclaimFn::DeleteUnusedImages),
        other => Err(format!("unknown reclaim function {other:?}")),
    }
}

/// The upstream name of a node-level reclaim function.
pub fn reclaim_fn_name(f: ReclaimFn) -> &'static str {
    match f {
        ReclaimFn::DeleteAllUnusedContainers => "DeleteAllUnusedContainers",
        ReclaimFn::DeleteUnusedImages => "DeleteUnusedImages",
    }
}

/// Nanoseconds of a duration.
pub fn nanos(d: TimeDelta) -> i64 {
    d.num_nanoseconds().unwrap_or(if d < TimeDelta::zero() { i64::MIN } else { i64::MAX })
}

/// One operation on the fake node.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Request {
    /// The node as the scenario has it now.
    pub node: WireNode,
    /// The kubelet's settings, which the collectors are built from on first use.
    pub settings: Settings,
    /// What to do.
    pub op: Op,
}

/// An operation and its arguments.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Op {
    /// Its name (`detect`, `candidates`, `freeSpace`, `freeOld`,
    /// `deleteUnusedImages`, `garbageCollectImages`, `createImageGC`, `restart`,
    /// `createContainerGC`, `evictContainers`, `evictSandboxes`, `evictLogs`,
    /// `deleteAllUnusedContainers`, `garbageCollectContainers`, `runUntil` (the kubelet's
    /// loops, started at its start on first use, until `at`), `validateConfig`,
    /// `loadConfigFile`, `setGates`, `reclaimFunctions`, `evictionHardInForce`).
    pub kind: String,
    /// The time an image GC step is given, or the end of `runUntil`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "rfc3339::option")]
    pub at: Option<DateTime<Utc>>,
    /// `beganGC` of `freeOldImages`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "rfc3339::option")]
    pub began: Option<DateTime<Utc>>,
    /// Bytes `freeSpace` is asked for.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bytes: i64,
    /// The high threshold of `createImageGC`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub high: i64,
    /// The low threshold of `createImageGC`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub low: i64,
    /// `evictNonDeletedPods` of the container collector's steps.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub including_terminated: bool,
    /// The minimum age of `createContainerGC`, nanoseconds.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_age: i64,
    /// The eviction signal `reclaimFunctions` is asked of.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signal: String,
    /// The disk layout `reclaimFunctions` is asked of (`single`, `dedicated`, `split`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub layout: String,
    /// The active pods `synchronize` may evict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<EvictionPod>,
}

/// An active pod as the eviction manager sees it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvictionPod {
    /// Its name (also its UID).
    pub name: String,
    /// Its priority.
    pub priority: i32,
    /// Bytes its container's writable layer uses.
    pub disk_usage: i64,
    /// Its ephemeral-storage request.
    pub request: i64,
}

impl EvictionPod {
    /// The model's pod in the shared form.
    pub fn of(pod: &PodUsage) -> Self {
        Self { name: pod.name.clone(), priority: pod.priority, disk_usage: pod.disk_usage, request: pod.ephemeral_storage_request }
    }
}

/// The eviction manager's configuration.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvictionSettings {
    /// Hard thresholds by signal (`None`: the configuration's `evictionHard` in force).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hard: Option<BTreeMap<String, String>>,
    /// The thresholds' minimum reclaims by signal.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub minimum_reclaim: BTreeMap<String, String>,
    /// `evictionPressureTransitionPeriod`, nanoseconds.
    pub pressure_transition_period: i64,
    /// `evictionMaxPodGracePeriod`.
    pub max_pod_grace_period_seconds: i64,
}

impl EvictionSettings {
    /// The settings of explicit hard `thresholds` (or, without, the configuration's), with
    /// `config`'s transition period and `max_pod_grace_period_seconds`.
    pub fn of(thresholds: Option<&[Threshold]>, config: &KubeletConfiguration, max_pod_grace_period_seconds: i64) -> Self {
        let hard = thresholds.map(|ts| ts.iter().map(|t| (t.signal.name().to_string(), t.value.to_string())).collect());
        let minimum_reclaim = thresholds
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t.min_reclaim.as_ref().map(|m| (t.signal.name().to_string(), m.to_string())))
            .collect();
        Self {
            hard,
            minimum_reclaim,
            pressure_transition_period: nanos(config.eviction_pressure_transition_period),
            max_pod_grace_period_seconds,
        }
    }
}

/// What a synchronize pass did.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncAnswer {
    /// The reclaim functions it ran, in order (upstream names).
    pub reclaimed_with: Vec<String>,
    /// The pod it evicted.
    #[serde(default)]
    pub evicted: Option<EvictedPod>,
    /// Whether the node reports DiskPressure afterwards.
    pub disk_pressure: bool,
}

/// A pod a synchronize pass evicted.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvictedPod {
    /// The pod.
    pub pod: String,
    /// The grace period it was given, seconds.
    pub grace_period: i64,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

impl Op {
    /// An operation without arguments.
    pub fn named(kind: &str) -> Self {
        Self { kind: kind.into(), ..Self::default() }
    }
}

/// The kubelet configuration fields the scenarios set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// `imageGCHighThresholdPercent`.
    #[serde(rename = "imageGCHighThresholdPercent")]
    pub image_gc_high_threshold_percent: i64,
    /// `imageGCLowThresholdPercent`.
    #[serde(rename = "imageGCLowThresholdPercent")]
    pub image_gc_low_threshold_percent: i64,
    /// `imageMinimumGCAge`, nanoseconds.
    #[serde(rename = "imageMinimumGCAge")]
    pub image_minimum_gc_age: i64,
    /// `imageMaximumGCAge`, nanoseconds.
    #[serde(rename = "imageMaximumGCAge")]
    pub image_maximum_gc_age: i64,
    /// `evictionHard`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eviction_hard: Option<BTreeMap<String, String>>,
    /// `mergeDefaultEvictionSettings`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub merge_default_eviction_settings: bool,
}

/// A configuration file's fields (unset ones are defaulted on loading).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ConfigFile {
    /// `imageGCHighThresholdPercent`.
    #[serde(rename = "imageGCHighThresholdPercent", skip_serializing_if = "Option::is_none")]
    pub image_gc_high_threshold_percent: Option<i64>,
    /// `imageGCLowThresholdPercent`.
    #[serde(rename = "imageGCLowThresholdPercent", skip_serializing_if = "Option::is_none")]
    pub image_gc_low_threshold_percent: Option<i64>,
    /// `imageMinimumGCAge`, nanoseconds.
    #[serde(rename = "imageMinimumGCAge", skip_serializing_if = "Option::is_none")]
    pub image_minimum_gc_age: Option<i64>,
    /// `imageMaximumGCAge`, nanoseconds.
    #[serde(rename = "imageMaximumGCAge", skip_serializing_if = "Option::is_none")]
    pub image_maximum_gc_age: Option<i64>,
}

/// The container GC policy (negative limits: no limit).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerPolicy {
    /// MinAge, nanoseconds.
    pub min_age: i64,
    /// MaxPerPodContainer.
    pub max_per_pod_container: i64,
    /// MaxContainers.
    pub max_containers: i64,
}

/// The kubelet's settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The configuration.
    pub config: Config,
    /// A configuration file, for loading.
    pub config_file: ConfigFile,
    /// The container GC policy.
    pub container_policy: ContainerPolicy,
    /// When the kubelet (and its GC loops) started.
    #[serde(with = "rfc3339")]
    pub started: DateTime<Utc>,
    /// The eviction manager's configuration.
    pub eviction: EvictionSettings,
}

/// The fake node.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireNode {
    /// The node's clock.
    #[serde(with = "rfc3339")]
    pub now: DateTime<Utc>,
    /// Images in `ListImages` order.
    pub images: Vec<WireImage>,
    /// Containers.
    pub containers: Vec<WireContainer>,
    /// Pod sandboxes.
    pub sandboxes: Vec<WireSandbox>,
    /// Injected faults.
    pub faults: Faults,
    /// Runtime calls made so far.
    pub calls: Vec<Call>,
    /// The filesystems.
    pub disks: Disks,
    /// What the pod workers know.
    pub pods: Pods,
    /// The pod logs.
    pub logs: Logs,
    /// Whether all config sources are ready.
    pub sources_ready: bool,
    /// Feature gates by their upstream names.
    pub gates: BTreeMap<String, bool>,
    /// Events recorded so far.
    pub events: Vec<WireEvent>,
}

/// An image.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireImage {
    /// ID.
    pub id: String,
    /// Size.
    pub size: i64,
    /// Pinned.
    pub pinned: bool,
    /// Runtime handler.
    pub runtime_handler: String,
    /// Bytes its removal gives back, when not its size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_bytes: Option<i64>,
}

impl WireImage {
    /// An image as the wire carries it.
    pub fn of(i: &Image) -> Self {
        Self {
            id: i.id.clone(),
            size: i.size,
            pinned: i.pinned,
            runtime_handler: i.runtime_handler.clone(),
            released_bytes: i.released_bytes,
        }
    }
}

/// A container.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireContainer {
    /// ID.
    pub id: String,
    /// Its pod's UID.
    pub pod_uid: String,
    /// Name.
    pub name: String,
    /// Attempt.
    pub attempt: u32,
    /// Created.
    #[serde(with = "rfc3339")]
    pub created: DateTime<Utc>,
    /// Finished.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "rfc3339::option")]
    pub finished: Option<DateTime<Utc>>,
    /// `created`, `running`, `exited` or `unknown`.
    pub state: String,
    /// Its image.
    pub image_id: String,
    /// Its image's runtime handler.
    pub image_runtime_handler: String,
    /// Its sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_id: Option<String>,
    /// Writable layer bytes.
    pub size: i64,
    /// Images mounted as volumes.
    pub image_volumes: Vec<String>,
}

/// A pod sandbox.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireSandbox {
    /// ID.
    pub id: String,
    /// Its pod's UID.
    pub pod_uid: String,
    /// Attempt.
    pub attempt: u32,
    /// `ready` or `notready`.
    pub state: String,
    /// Created.
    #[serde(with = "rfc3339")]
    pub created: DateTime<Utc>,
}

/// Injected faults.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Faults {
    /// `ListImages` fails with this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_images: Option<String>,
    /// Listing containers fails with this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_containers: Option<String>,
    /// Listing sandboxes fails with this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_sandboxes: Option<String>,
    /// Images whose removal fails.
    pub remove_image: Vec<String>,
    /// Containers whose stop fails.
    pub stop_container: Vec<String>,
    /// Containers whose removal fails.
    pub remove_container: Vec<String>,
    /// Sandboxes whose stop fails.
    pub stop_sandbox: Vec<String>,
    /// Containers whose status fails.
    pub container_status: Vec<String>,
}

/// A runtime call.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Call {
    /// `RemoveImage`, `StopContainer`, `RemoveContainer`, `StopPodSandbox` or `RemovePodSandbox`.
    pub call: String,
    /// The object's ID.
    pub id: String,
}

/// A filesystem.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Fs {
    /// Capacity, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<i64>,
    /// Available bytes.
    pub available: i64,
}

/// The filesystems.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Disks {
    /// `single`, `dedicated` or `split`.
    pub layout: String,
    /// The node filesystem.
    pub nodefs: Fs,
    /// The image filesystem.
    pub imagefs: Fs,
    /// Reading the image filesystem's stats fails with this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_stats_error: Option<String>,
}

/// The pod workers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pods {
    /// `running`, `terminated`, `removed` or `evicted` by pod UID.
    pub states: BTreeMap<String, String>,
    /// Whether they have synced.
    pub synced: bool,
}

/// A pod log directory.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WireLogDir {
    /// Name.
    pub name: String,
    /// Size.
    pub size: i64,
}

/// A legacy container log symlink.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireSymlink {
    /// Name.
    pub name: String,
    /// Whether its target exists.
    pub target_exists: bool,
}

/// The pod logs.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Logs {
    /// `podLogsDir`.
    pub dir: String,
    /// Its entries.
    pub pod_dirs: Vec<WireLogDir>,
    /// Reading it fails with this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_error: Option<String>,
    /// The legacy symlinks.
    pub symlinks: Vec<WireSymlink>,
    /// Paths removed so far.
    pub removed: Vec<String>,
}

/// An event.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WireEvent {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// Reason.
    pub reason: String,
    /// Message.
    pub message: String,
    /// `Node` or `Pod/<name>`.
    pub object: String,
}

/// An image record, or an eviction candidate (an image ID and its record).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The record's key, or the candidate's image ID.
    pub key: String,
    /// First detected.
    #[serde(with = "rfc3339")]
    pub first_detected: DateTime<Utc>,
    /// Last used.
    #[serde(with = "rfc3339")]
    pub last_used: DateTime<Utc>,
    /// Size.
    pub size: i64,
    /// Pinned.
    pub pinned: bool,
    /// The runtime handler it was pulled with.
    pub runtime_handler: String,
}

/// A validation's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Validation {
    /// The error, if rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What the kubelet's code made of a request.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// Set when the request could not be carried out at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// The operation's own error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What `freeSpace` reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freed: Option<i64>,
    /// The node afterwards.
    pub node: WireNode,
    /// The image records afterwards.
    pub records: Vec<Record>,
    /// The candidates listed, or left by `freeOldImages`.
    #[serde(default)]
    pub candidates: Vec<Record>,
    /// `image_garbage_collected_total` by reason.
    pub collected: BTreeMap<String, u64>,
    /// Runs of the post-GC hook.
    pub hook_runs: usize,
    /// A validation's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<Validation>,
    /// The configuration a loaded file defaulted to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Config>,
    /// The kubelet's loops, once they run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loops: Option<LoopState>,
    /// The node-level reclaim functions the eviction manager ran, in order
    /// (`DeleteAllUnusedContainers`, `DeleteUnusedImages`).
    #[serde(default)]
    pub reclaim_functions: Vec<String>,
    /// The `evictionHard` a kubelet runs with.
    #[serde(default)]
    pub eviction_hard: BTreeMap<String, String>,
    /// What a synchronize pass did.
    #[serde(default)]
    pub sync: Option<SyncAnswer>,
}

/// What an answer tells of the kubelet's running GC loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopState {
    /// Passes of the image GC loop so far (none: the kubelet did not start it).
    pub image_gc_runs: usize,
}

fn container_state(s: ContainerState) -> &'static str {
    match s {
        ContainerState::Created => "created",
        ContainerState::Running => "running",
        ContainerState::Exited => "exited",
        ContainerState::Unknown => "unknown",
    }
}

fn read_container_state(s: &str) -> Result<ContainerState, String> {
    match s {
        "created" => Ok(ContainerState::Created),
        "running" => Ok(ContainerState::Running),
        "exited" => Ok(ContainerState::Exited),
        "unknown" => Ok(ContainerState::Unknown),
        other => Err(format!("unknown container state {other:?}")),
    }
}

fn pod_state(s: PodState) -> &'static str {
    match s {
        PodState::Running => "running",
        PodState::Terminated => "terminated",
        PodState::Removed => "removed",
        PodState::Evicted => "evicted",
    }
}

fn call(c: &RuntimeCall) -> Call {
    let (name, id) = match c {
        RuntimeCall::RemoveImage(id) => ("RemoveImage", id),
        RuntimeCall::StopContainer(id) => ("StopContainer", id),
        RuntimeCall::RemoveContainer(id) => ("RemoveContainer", id),
        RuntimeCall::StopPodSandbox(id) => ("StopPodSandbox", id),
        RuntimeCall::RemovePodSandbox(id) => ("RemovePodSandbox", id),
    };
    Call { call: name.into(), id: id.clone() }
}

fn read_call(c: &Call) -> Result<RuntimeCall, String> {
    let id = c.id.clone();
    Ok(match c.call.as_str() {
        "RemoveImage" => RuntimeCall::RemoveImage(id),
        "StopContainer" => RuntimeCall::StopContainer(id),
        "RemoveContainer" => RuntimeCall::RemoveContainer(id),
        "StopPodSandbox" => RuntimeCall::StopPodSandbox(id),
        "RemovePodSandbox" => RuntimeCall::RemovePodSandbox(id),
        other => return Err(format!("unknown runtime call {other:?}")),
    })
}

fn fs(f: &Filesystem) -> Fs {
    Fs { capacity: f.capacity, available: f.available }
}

impl WireNode {
    /// The model's node in the shared form.
    pub fn of(node: &kubegc::kubelet::Node) -> Self {
        let r = &node.runtime;
        let g = &node.gates;
        Self {
            now: node.now(),
            images: r.images.iter().map(WireImage::of).collect(),
            containers: r
                .containers
                .iter()
                .map(|c| WireContainer {
                    id: c.id.clone(),
                    pod_uid: c.pod_uid.clone(),
                    name: c.name.clone(),
                    attempt: c.attempt,
                    created: c.created,
                    finished: c.finished,
                    state: container_state(c.state).into(),
                    image_id: c.image_id.clone(),
                    image_runtime_handler: c.image_runtime_handler.clone(),
                    sandbox_id: c.sandbox_id.clone(),
                    size: c.size,
                    image_volumes: c.image_volumes.clone(),
                })
                .collect(),
            sandboxes: r
                .sandboxes
                .iter()
                .map(|s| WireSandbox {
                    id: s.id.clone(),
                    pod_uid: s.pod_uid.clone(),
                    attempt: s.attempt,
                    state: if s.state == SandboxState::Ready { "ready" } else { "notready" }.into(),
                    created: s.created,
                })
                .collect(),
            faults: Faults {
                list_images: r.faults.list_images.clone(),
                list_containers: r.faults.list_containers.clone(),
                list_sandboxes: r.faults.list_sandboxes.clone(),
                remove_image: r.faults.remove_image.iter().cloned().collect(),
                stop_container: r.faults.stop_container.iter().cloned().collect(),
                remove_container: r.faults.remove_container.iter().cloned().collect(),
                stop_sandbox: r.faults.stop_sandbox.iter().cloned().collect(),
                container_status: r.faults.container_status.iter().cloned().collect(),
            },
            calls: r.calls.iter().map(call).collect(),
            disks: Disks {
                layout: layout_name(node.disks.layout).into(),
                nodefs: fs(&node.disks.nodefs),
                imagefs: fs(&node.disks.imagefs),
                image_stats_error: node.disks.image_stats_error.clone(),
            },
            pods: Pods {
                states: node.pods.states.iter().map(|(uid, s)| (uid.clone(), pod_state(*s).to_string())).collect(),
                synced: node.pods.synced,
            },
            logs: Logs {
                dir: node.logs.dir.clone(),
                pod_dirs: node.logs.pod_dirs.iter().map(|d| WireLogDir { name: d.name.clone(), size: d.size }).collect(),
                read_error: node.logs.read_error.clone(),
                symlinks: node.logs.symlinks.iter().map(|s| WireSymlink { name: s.name.clone(), target_exists: s.target_exists }).collect(),
                removed: node.logs.removed.clone(),
            },
            sources_ready: node.sources_ready,
            gates: BTreeMap::from([
                ("RuntimeClassInImageCriApi".to_string(), g.runtime_class_in_image_cri_api),
                ("ImageMaximumGCAge".to_string(), g.image_maximum_gc_age),
                ("KubeletSeparateDiskGC".to_string(), g.kubelet_separate_disk_gc),
                ("ImageVolume".to_string(), g.image_volume),
            ]),
            events: node
                .events
                .iter()
                .map(|e| WireEvent {
                    event_type: format!("{:?}", e.event_type),
                    reason: e.reason.clone(),
                    message: e.message.clone(),
                    object: e.object.clone(),
                })
                .collect(),
        }
    }

    /// Puts what the kubelet may change — the runtime's objects and calls, the filesystems'
    /// free space, the logs and the events — into the model's node.
    pub fn apply_to(&self, node: &mut kubegc::kubelet::Node) -> Result<(), String> {
        let r = &mut node.runtime;
        r.images = self
            .images
            .iter()
            .map(|i| Image {
                id: i.id.clone(),
                size: i.size,
                pinned: i.pinned,
                runtime_handler: i.runtime_handler.clone(),
                released_bytes: i.released_bytes,
            })
            .collect();
        r.containers = self
            .containers
            .iter()
            .map(|c| {
                Ok(Container {
                    id: c.id.clone(),
                    pod_uid: c.pod_uid.clone(),
                    name: c.name.clone(),
                    attempt: c.attempt,
                    created: c.created,
                    finished: c.finished,
                    state: read_container_state(&c.state)?,
                    image_id: c.image_id.clone(),
                    image_runtime_handler: c.image_runtime_handler.clone(),
                    sandbox_id: c.sandbox_id.clone(),
                    size: c.size,
                    image_volumes: c.image_volumes.clone(),
                })
            })
            .collect::<Result<_, String>>()?;
        r.sandboxes = self
            .sandboxes
            .iter()
            .map(|s| Sandbox {
                id: s.id.clone(),
                pod_uid: s.pod_uid.clone(),
                attempt: s.attempt,
                state: if s.state == "ready" { SandboxState::Ready } else { SandboxState::NotReady },
                created: s.created,
            })
            .collect();
        r.calls = self.calls.iter().map(read_call).collect::<Result<_, _>>()?;
        node.disks.nodefs.available = self.disks.nodefs.available;
        node.disks.imagefs.available = self.disks.imagefs.available;
        node.logs.pod_dirs = self.logs.pod_dirs.iter().map(|d| LogDir { name: d.name.clone(), size: d.size }).collect();
        node.logs.symlinks =
            self.logs.symlinks.iter().map(|s| LogSymlink { name: s.name.clone(), target_exists: s.target_exists }).collect();
        node.logs.removed = self.logs.removed.clone();
        node.events = self
            .events
            .iter()
            .map(|e| kubegc::kubelet::events::Event {
                event_type: if e.event_type == "Warning" { EventType::Warning } else { EventType::Normal },
                reason: e.reason.clone(),
                message: e.message.clone(),
                object: e.object.clone(),
            })
            .collect();
        Ok(())
    }
}

impl Settings {
    /// The model's settings in the shared form.
    pub fn of(
        config: &KubeletConfiguration,
        file: &KubeletConfigFile,
        policy: &ContainerGcPolicy,
        started: DateTime<Utc>,
        eviction: EvictionSettings,
    ) -> Self {
        Self {
            config: Config {
                image_gc_high_threshold_percent: config.image_gc_high_threshold_percent,
                image_gc_low_threshold_percent: config.image_gc_low_threshold_percent,
                image_minimum_gc_age: nanos(config.image_minimum_gc_age),
                image_maximum_gc_age: nanos(config.image_maximum_gc_age),
                eviction_hard: config.eviction_hard.clone(),
                merge_default_eviction_settings: config.merge_default_eviction_settings,
            },
            config_file: ConfigFile {
                image_gc_high_threshold_percent: file.image_gc_high_threshold_percent,
                image_gc_low_threshold_percent: file.image_gc_low_threshold_percent,
                image_minimum_gc_age: file.image_minimum_gc_age.map(nanos),
                image_maximum_gc_age: file.image_maximum_gc_age.map(nanos),
            },
            container_policy: ContainerPolicy {
                min_age: nanos(policy.min_age),
                max_per_pod_container: policy.max_per_pod_container,
                max_containers: policy.max_containers,
            },
            started,
            eviction,
        }
    }
}

impl Record {
    /// An image record in the shared form.
    pub fn of(key: &str, r: &ImageRecord) -> Self {
        Self {
            key: key.into(),
            first_detected: r.first_detected,
            last_used: r.last_used,
            size: r.size,
            pinned: r.pinned,
            runtime_handler: r.runtime_handler.clone(),
        }
    }

    /// The record in the model's form.
    pub fn to_model(&self) -> ImageRecord {
        ImageRecord {
            first_detected: self.first_detected,
            last_used: self.last_used,
            size: self.size,
            pinned: self.pinned,
            runtime_handler: self.runtime_handler.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_survives_the_round_trip_through_json() {
        let mut node = kubegc::kubelet::Node::at_ten();
        node.runtime.images.push(Image::new("a", 1024));
        node.runtime.calls.push(RuntimeCall::RemoveImage("b".into()));
        node.disks.nodefs.available = 7;
        let json = serde_json::to_string(&WireNode::of(&node)).unwrap();
        assert!(json.contains(r#""now":"2025-01-01T10:00:00Z""#), "{json}");
        let back: WireNode = serde_json::from_str(&json).unwrap();
        let mut other = kubegc::kubelet::Node::at_ten();
        back.apply_to(&mut other).unwrap();
        assert_eq!(other.runtime.images, node.runtime.images);
        assert_eq!(other.runtime.calls, node.runtime.calls);
        assert_eq!(other.disks.nodefs.available, 7);
    }
}
