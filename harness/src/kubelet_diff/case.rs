//! A random node and what happens to it: the kubelet's settings, the node as it starts, the
//! images that arrive one detection pass apart, and the steps. A case builds the same
//! [`KubeletWorld`] for the model and for upstream's code, and describes itself as the
//! scenario steps that set it up.

use std::path::Path;

use crate::kubelet_wire as wire;
use kubegc::clock::Clock;
use kubegc::kubelet::Node;
use kubegc::kubelet::config::{KubeletConfigFile, KubeletConfiguration};
use kubegc::kubelet::containers::ContainerGcPolicy;
use kubegc::kubelet::disks::{DiskLayout, FsRole};
use kubegc::kubelet::eviction::manager::PodUsage;
use kubegc::kubelet::eviction::thresholds::{Signal, Threshold};
use kubegc::kubelet::mutant::Mutant;
use kubegc::kubelet::runtime::Image;
use kubegc::kubelet::time::{DateTime, TimeDelta, Utc, add};

use crate::world::kubelet::KubeletWorld;
use crate::world::kubelet::actions::Action;

/// One step of a case.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// An action of the kubelet.
    Act(Action),
    /// A feature gate is set (the kubelet may refuse).
    Gate(&'static str, bool),
    /// A filesystem's available bytes change.
    Available(FsRole, i64),
    /// A container exits, now.
    Exit(String),
    /// A container is removed from the runtime (outside garbage collection).
    RemoveContainer(String),
    /// The runtime no longer lists an image (removed outside garbage collection).
    Unlist(String),
    /// The evictionHard the kubelet runs with is read.
    HardInForce,
    /// The reclaim functions for a signal on a layout are read.
    Reclaims(Signal, DiskLayout),
}

/// A random node, its kubelet's settings and what happens to it.
#[derive(Clone, Debug)]
pub struct Case {
    /// The seed that generated it.
    pub seed: u64,
    /// The node at the start (its clock is not shared: each side gets its own).
    pub node: Node,
    /// The kubelet configuration.
    pub config: KubeletConfiguration,
    /// The configuration file, for defaulting.
    pub config_file: KubeletConfigFile,
    /// The container GC policy.
    pub container_policy: ContainerGcPolicy,
    /// Explicit eviction thresholds (instead of the configuration's evictionHard).
    pub eviction_thresholds: Option<Vec<Threshold>>,
    /// `evictionMaxPodGracePeriod`.
    pub max_pod_grace_period_seconds: i64,
    /// The pods the eviction manager ranks.
    pub pods: Vec<PodUsage>,
    /// Images that arrive before the steps, each pulled and then detected at its own instant,
    /// so that no two share a first detection: upstream orders images tied on last use and
    /// first detection in Go's random map order (`imagesInEvictionOrder`,
    /// `pkg/kubelet/images/image_gc_manager.go`), which no model can match.
    pub arrivals: Vec<(Image, DateTime<Utc>)>,
    /// The steps.
    pub steps: Vec<Step>,
}

/// The instant `seconds` after the case's start.
pub fn after(start: DateTime<Utc>, seconds: i64) -> DateTime<Utc> {
    add(start, TimeDelta::seconds(seconds)).unwrap_or(start)
}

impl Case {
    /// A case on a node at 10:00 with the kubelet's defaults and nothing on it.
    pub fn empty(seed: u64) -> Self {
        Self {
            seed,
            node: Node::at_ten(),
            config: KubeletConfiguration::default(),
            config_file: KubeletConfigFile::default(),
            container_policy: kubegc::kubelet::config::ContainerGcFlags::default().policy(),
            eviction_thresholds: None,
            max_pod_grace_period_seconds: 0,
            pods: Vec::new(),
            arrivals: Vec::new(),
            steps: Vec::new(),
        }
    }

    /// The world this case starts in: upstream's code through `driver`, or the model running
    /// `mutant`.
    pub fn world(&self, driver: Option<&Path>, mutant: Option<Mutant>) -> Result<KubeletWorld, String> {
        let mut world = KubeletWorld::new().map_err(|e| e.to_string())?;
        let mut node = self.node.clone();
        node.clock = Clock::virtual_at(self.node.now());
        node.mutant = if driver.is_some() { None } else { mutant };
        world.started = node.now();
        world.node = node;
        world.config = self.config.clone();
        world.config_file = self.config_file.clone();
        world.container_policy = self.container_policy;
        world.eviction_thresholds = self.eviction_thresholds.clone();
        world.max_pod_grace_period_seconds = self.max_pod_grace_period_seconds;
        world.upstream_driver = driver.map(Path::to_path_buf);
        for pod in &self.pods {
            world.know_pod(&pod.name);
            world.declared_pods.push(pod.clone());
        }
        Ok(world)
    }

    /// The case as scenario steps: what the node holds (as the kubelet's wire form gives it,
    /// empty fields left out), the settings that are not the defaults, the arrivals and the
    /// steps.
    pub fn describe(&self) -> String {
        let mut lines = Vec::new();
        let day = self.node.now();
        let mut node = serde_json::to_value(wire::WireNode::of(&self.node)).unwrap_or_default();
        prune(&mut node);
        lines.push(format!("Given a node (in the kubelet driver's wire form): {node}"));
        let defaults = Case::empty(self.seed);
        let settings = |c: &Case| {
            let eviction = wire::EvictionSettings::of(c.eviction_thresholds.as_deref(), &c.config, c.max_pod_grace_period_seconds);
            serde_json::to_value(wire::Settings::of(&c.config, &c.config_file, &c.container_policy, day, eviction)).unwrap_or_default()
        };
        let (mut ours, theirs) = (settings(self), settings(&defaults));
        drop_equal(&mut ours, &theirs);
        prune(&mut ours);
        if !ours.is_null() {
            lines.push(format!("And the kubelet's settings (beyond the defaults): {ours}"));
        }
        for pod in &self.pods {
            lines.push(format!(
                "And pod {:?} for eviction: priority {}, disk usage {} bytes, request {} bytes",
                pod.name, pod.priority, pod.disk_usage, pod.ephemeral_storage_request
            ));
        }
        for (image, at) in &self.arrivals {
            let image = serde_json::to_value(wire::WireImage::of(image)).unwrap_or_default();
            lines.push(format!("And the runtime pulls the image {image}"));
            lines.push(format!("And {}", Action::Detect { at: *at }.phrase(day)));
        }
        for (i, step) in self.steps.iter().enumerate() {
            lines.push(format!("{} {}", if i == 0 { "When" } else { "And" }, step.phrase(day)));
        }
        lines.join("\n")
    }
}

/// Removes nulls, empty lists and maps, `false`, `0` and `""` (the wire form's defaults).
fn prune(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            for v in map.values_mut() {
                prune(v);
            }
            map.retain(|_, v| !v.is_null());
            if map.is_empty() {
                *value = Value::Null;
            }
        }
        Value::Array(items) => {
            for v in items.iter_mut() {
                prune(v);
            }
            if items.is_empty() {
                *value = Value::Null;
            }
        }
        Value::Bool(false) => *value = Value::Null,
        Value::String(s) if s.is_empty() => *value = Value::Null,
        Value::Number(n) if n.as_f64() == Some(0.0) => *value = Value::Null,
        _ => {}
    }
}

/// Removes from `ours` every field equal in `theirs`.
fn drop_equal(ours: &mut serde_json::Value, theirs: &serde_json::Value) {
    if let (serde_json::Value::Object(map), serde_json::Value::Object(other)) = (&mut *ours, theirs) {
        for (k, v) in map.iter_mut() {
            match other.get(k) {
                Some(o) if o == v => *v = serde_json::Value::Null,
                Some(o) => drop_equal(v, o),
                None => {}
            }
        }
    }
}

impl Step {
    /// The step as a scenario reads it.
    pub fn phrase(&self, day: DateTime<Utc>) -> String {
        match self {
            Step::Act(action) => action.phrase(day),
            Step::Gate(name, on) => format!("the feature gate {name} is turned {}", if *on { "on" } else { "off" }),
            Step::Available(role, bytes) => {
                let fs = match role {
                    FsRole::Node => "node",
                    FsRole::Image => "image",
                    FsRole::Container => "container",
                };
                format!("the {fs} filesystem has {bytes} bytes available")
            }
            Step::Exit(id) => format!("container {id:?} exits"),
            Step::RemoveContainer(id) => format!("container {id:?} is removed from the runtime"),
            Step::Unlist(id) => format!("the runtime no longer lists image {id:?}"),
            Step::HardInForce => "the eviction hard thresholds in force are read".into(),
            Step::Reclaims(signal, layout) => {
                format!("the reclaim functions of {} on a {} node are read", signal.name(), wire::layout_name(*layout))
            }
        }
    }
}
