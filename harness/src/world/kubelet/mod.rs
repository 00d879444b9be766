//! The world of `@kubelet` scenarios: a fake node ([`kubegc::kubelet::Node`]) on a virtual
//! clock, driven by the reference kubelet model or, with `kubegc run --kubelet upstream`, by the
//! kubelet's own code ([`upstream`]). Nothing here talks to an API server.
//!
//! The environment variable [`MUTANT_ENV`] runs every scenario against a deliberately wrong
//! model (see [`kubegc::kubelet::mutant`]); the mutation test uses it.

use std::collections::BTreeMap;

use crate::kubelet_wire::{self as wire, Answer, Op, Request};
use kubegc::kubelet::config::{KubeletConfigFile, KubeletConfiguration};
use kubegc::kubelet::containers::{ContainerGc, ContainerGcPolicy};
use kubegc::kubelet::disks::DiskLayout;
use kubegc::kubelet::eviction::manager::SyncOutcome;
use kubegc::kubelet::eviction::reclaim::{ReclaimFn, reclaim_functions};
use kubegc::kubelet::eviction::thresholds::{Signal, effective_eviction_hard};
use kubegc::kubelet::eviction::{EvictionConfig, EvictionManager, PodUsage, Threshold};
use kubegc::kubelet::images::ImageGcManager;
use kubegc::kubelet::images::order::EvictionInfo;
use kubegc::kubelet::images::records::ImageRecord;
use kubegc::kubelet::loops::{GcLoops, move_clock_to};
use kubegc::kubelet::mutant::Mutant;
use kubegc::kubelet::runtime::Image;
use kubegc::kubelet::time::{DateTime, Utc};
use kubegc::kubelet::{Node, pods::PodState};
use upstream::UpstreamKubelet;

pub mod actions;
pub mod upstream;

/// The environment variable selecting a mutant of the kubelet model.
pub const MUTANT_ENV: &str = "KUBEGC_KUBELET_MUTANT";

/// What the last action did, for the checks that follow it.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// What it was (`image garbage collection`, `deleting unused images`, ...).
    pub action: &'static str,
    /// Its error text, if it failed.
    pub error: Option<String>,
    /// Images the runtime no longer lists afterwards.
    pub removed_images: Vec<Image>,
    /// Bytes it reports freed (`freeSpace`'s result), when it reports any.
    pub freed: Option<i64>,
}

/// The world of a `@kubelet` scenario: the fake node, the configuration the scenario gave, and
/// the components of the model, created on first use from that configuration.
#[derive(Debug, cucumber::World)]
#[world(init = Self::new)]
pub struct KubeletWorld {
    /// The fake node.
    pub node: Node,
    /// When the scenario (and the kubelet's GC loops) started.
    pub started: DateTime<Utc>,
    /// The kubelet configuration (image GC thresholds and ages, eviction settings).
    pub config: KubeletConfiguration,
    /// A configuration file, for defaulting scenarios.
    pub config_file: KubeletConfigFile,
    /// The container GC policy.
    pub container_policy: ContainerGcPolicy,
    /// Image GC, once used.
    pub images: Option<ImageGcManager>,
    /// Container GC, once used.
    pub containers: Option<ContainerGc>,
    /// The GC loops, once used.
    pub loops: Option<GcLoops>,
    /// Explicit eviction thresholds (instead of the configuration's `evictionHard`).
    pub eviction_thresholds: Option<Vec<Threshold>>,
    /// `evictionMaxPodGracePeriod` for the eviction manager.
    pub max_pod_grace_period_seconds: i64,
    /// The eviction manager, once used.
    pub eviction: Option<EvictionManager>,
    /// Pods as the scenario declared them for eviction (to recreate them).
    pub declared_pods: Vec<PodUsage>,
    /// The last action's outcome.
    pub outcome: Outcome,
    /// Candidates left by the last candidate listing or age-based pass.
    pub candidates: Vec<EvictionInfo>,
    /// The result of the last validation.
    pub validation: Option<Result<(), String>>,
    /// The last eviction pass.
    pub last_sync: Option<SyncOutcome>,
    /// The kubelet driver to run upstream's code with, instead of the model.
    pub upstream_driver: Option<std::path::PathBuf>,
    /// The driver's process, once started.
    pub upstream: Option<UpstreamKubelet>,
    /// Why the driver could not carry out the last request, if it could not: a failure of the
    /// step, never an outcome the kubelet's code produced.
    pub driver_fault: Option<String>,
}

impl KubeletWorld {
    /// A node at 10:00 on 1 January 2025 with the kubelet's defaults, running the mutant named
    /// by [`MUTANT_ENV`] if any.
    pub fn new() -> anyhow::Result<Self> {
        let mut node = Node::at_ten();
        if let Ok(name) = std::env::var(MUTANT_ENV)
            && !name.is_empty()
        {
            node.mutant = Some(name.parse::<Mutant>().map_err(anyhow::Error::msg)?);
        }
        let started = node.now();
        Ok(Self {
            node,
            started,
            config: KubeletConfiguration::default(),
            config_file: KubeletConfigFile::default(),
            container_policy: kubegc::kubelet::config::ContainerGcFlags::default().policy(),
            images: None,
            containers: None,
            loops: None,
            eviction_thresholds: None,
            max_pod_grace_period_seconds: 0,
            eviction: None,
            declared_pods: Vec::new(),
            outcome: Outcome::default(),
            candidates: Vec::new(),
            validation: None,
            last_sync: None,
            upstream_driver: None,
            upstream: None,
            driver_fault: None,
        })
    }

    /// Whether upstream's kubelet code, not the model, acts on this scenario's node.
    pub fn is_upstream(&self) -> bool {
        self.upstream_driver.is_some()
    }

    /// Runs `op` in upstream's kubelet code: sends the node and the settings, and takes the node
    /// back as upstream's code left it. The driver starts on first use.
    pub fn drive(&mut self, op: Op) -> Result<Answer, String> {
        let answer = self.call_driver(op);
        if let Err(fault) = &answer {
            self.driver_fault = Some(fault.clone());
        }
        answer
    }

    fn call_driver(&mut self, op: Op) -> Result<Answer, String> {
        if self.upstream.is_none() {
            let path = self.upstream_driver.as_deref().ok_or("this scenario runs on the kubelet model, not upstream's code")?;
            self.upstream = Some(UpstreamKubelet::start(path)?);
        }
        let eviction = wire::EvictionSettings::of(self.eviction_thresholds.as_deref(), &self.config, self.max_pod_grace_period_seconds);
        let settings = wire::Settings::of(&self.config, &self.config_file, &self.container_policy, self.started, eviction);
        let request = Request { node: wire::WireNode::of(&self.node), settings, op };
        let answer = self.upstream.as_mut().ok_or("the kubelet driver is missing")?.call(&request)?;
        answer.node.apply_to(&mut self.node)?;
        Ok(answer)
    }

    /// The image records: the model's, or those upstream's collector keeps.
    pub fn records(&self) -> BTreeMap<String, ImageRecord> {
        match &self.upstream {
            Some(upstream) => upstream.records.clone(),
            None => self.images.as_ref().map(|i| i.records().clone()).unwrap_or_default(),
        }
    }

    /// `image_garbage_collected_total` for `reason` (`age` or `space`).
    pub fn collected(&self, reason: &str) -> u64 {
        match &self.upstream {
            Some(upstream) => upstream.collected.get(reason).copied().unwrap_or(0),
            None => self.images.as_ref().and_then(|i| i.collected.get(reason).copied()).unwrap_or(0),
        }
    }

    /// How often the post-GC hooks ran.
    pub fn hook_runs(&self) -> usize {
        match &self.upstream {
            Some(upstream) => upstream.hook_runs,
            None => self.images.as_ref().map_or(0, |i| i.post_gc_hook_runs.len()),
        }
    }

    /// Image GC, created from the configuration on first use.
    pub fn images(&mut self) -> Result<&mut ImageGcManager, String> {
        if self.images.is_none() {
            self.images = Some(ImageGcManager::new(self.config.image_gc_policy(), &self.node)?);
        }
        self.images.as_mut().ok_or_else(|| "image GC is missing".to_string())
    }

    /// Runs `f` on the node and image GC (created on first use).
    pub fn with_images<T>(&mut self, f: impl FnOnce(&mut Node, &mut ImageGcManager) -> Result<T, String>) -> Result<T, String> {
        self.images()?;
        let images = self.images.as_mut().ok_or("image GC is missing")?;
        f(&mut self.node, images)
    }

    /// Container GC, created from the policy on first use.
    pub fn containers(&mut self) -> Result<ContainerGc, String> {
        if self.containers.is_none() {
            self.containers = Some(ContainerGc::new(self.container_policy, &self.node)?);
        }
        self.containers.clone().ok_or_else(|| "container GC is missing".to_string())
    }

    /// Whether the kubelet's GC loops run (they start on first use, at the kubelet's start).
    pub fn loops_started(&self) -> bool {
        match &self.upstream {
            Some(upstream) => upstream.loops.is_some(),
            None => self.loops.is_some(),
        }
    }

    /// Whether the kubelet started its image GC loop; an error before its loops have run.
    pub fn image_gc_loop_running(&self) -> Result<bool, String> {
        let running = match &self.upstream {
            Some(upstream) => upstream.loops.map(|l| l.image_gc_runs > 0),
            None => self.loops.as_ref().map(GcLoops::image_gc_enabled),
        };
        running.ok_or_else(|| "the kubelet's loops have not run yet".to_string())
    }

    /// Runs the kubelet's GC loops until `end`, passes due at `end` included, and moves the
    /// clock there. The loops start on first use, which must be at the kubelet's start
    /// ([`Self::loops_can_run_until`] says whether they can).
    pub fn run_loops_until(&mut self, end: DateTime<Utc>) -> Result<(), String> {
        if self.is_upstream() {
            self.drive(Op { at: Some(end), ..Op::named("runUntil") })?;
            move_clock_to(&self.node, end);
            return Ok(());
        }
        let containers = self.containers()?;
        self.images()?;
        let (config, started, mutant) = (&self.config, self.started, self.node.mutant);
        let loops = self.loops.get_or_insert_with(|| GcLoops::start(config, started, mutant));
        let images = self.images.as_mut().ok_or("image GC is missing")?;
        loops.run_until(end, &mut self.node, images, &containers)
    }

    /// Whether the kubelet's loops can run until `end`: not backwards in time, and, the first
    /// time, from the kubelet's start.
    pub fn loops_can_run_until(&self, end: DateTime<Utc>) -> Result<(), String> {
        if end < self.node.now() {
            return Err("the kubelet cannot run backwards in time".into());
        }
        if !self.loops_started() && self.node.now() != self.started {
            return Err(format!(
                "the kubelet's loops start when the kubelet starts ({}), but the clock already reads {}",
                self.started,
                self.node.now()
            ));
        }
        Ok(())
    }

    /// Moves the clock forward to `t`; a running kubelet's loops run on the way.
    pub fn advance_to(&mut self, t: DateTime<Utc>) -> Result<(), String> {
        if self.loops_started() {
            return self.run_loops_until(t);
        }
        move_clock_to(&self.node, t);
        Ok(())
    }

    /// The eviction manager, created on first use.
    pub fn eviction(&mut self) -> Result<&mut EvictionManager, String> {
        if self.eviction.is_none() {
            let mut config = EvictionConfig::from_kubelet(&self.config, self.node.mutant)?;
            if let Some(thresholds) = &self.eviction_thresholds {
                config.thresholds = thresholds.clone();
            }
            config.max_pod_grace_period_seconds = self.max_pod_grace_period_seconds;
            let mut manager = EvictionManager::new(config, &self.node)?;
            manager.active_pods = self.declared_pods.clone();
            self.eviction = Some(manager);
        }
        self.eviction.as_mut().ok_or_else(|| "the eviction manager is missing".to_string())
    }

    /// Fails when a component built from the configuration already exists: changing the
    /// configuration afterwards would not reach it.
    pub fn before_first_use(&self, what: &str) -> Result<(), String> {
        if self.images.is_some() || self.containers.is_some() || self.loops.is_some() || self.eviction.is_some() || self.upstream.is_some()
        {
            return Err(format!("{what} must be set before the kubelet's garbage collection first runs"));
        }
        Ok(())
    }

    /// Container `id` exits now.
    pub fn exit_container(&mut self, id: &str) -> Result<(), String> {
        let now = self.node.now();
        let c = self.node.runtime.containers.iter_mut().find(|c| c.id == id).ok_or_else(|| format!("no container {id:?}"))?;
        c.state = kubegc::kubelet::runtime::ContainerState::Exited;
        c.finished = Some(now);
        Ok(())
    }

    /// Container `id` is removed from the runtime, outside garbage collection.
    pub fn remove_from_runtime(&mut self, id: &str) -> Result<(), String> {
        let before = self.node.runtime.containers.len();
        self.node.runtime.containers.retain(|c| c.id != id);
        if self.node.runtime.containers.len() == before {
            return Err(format!("no container {id:?}"));
        }
        Ok(())
    }

    /// Marks pod `uid` as known and running, unless the pod workers already know it.
    pub fn know_pod(&mut self, uid: &str) {
        self.node.pods.states.entry(uid.to_string()).or_insert(PodState::Running);
    }

    /// Sets a feature gate on the node as the kubelet's feature gate does (in upstream's code
    /// too, on upstream); the gate is unchanged when that refuses.
    pub fn set_gate(&mut self, name: &str, on: bool) -> Result<(), String> {
        let before = self.node.gates;
        let active = self.node.mutant;
        self.node.gates.set(name, on, active)?;
        if self.is_upstream() {
            let refused = self.drive(Op::named("setGates"))?.validation.and_then(|v| v.error);
            if let Some(e) = refused {
                self.node.gates = before;
                return Err(e);
            }
        }
        Ok(())
    }

    /// Whether the node reports DiskPressure after the eviction manager's last pass.
    pub fn disk_pressure(&mut self) -> Result<bool, String> {
        if self.is_upstream() {
            return Ok(self.upstream.as_ref().is_some_and(|u| u.disk_pressure));
        }
        Ok(self.eviction()?.is_under_disk_pressure())
    }

    /// The node-level reclaim functions the eviction manager runs for `signal` on `layout`.
    pub fn reclaim_functions(&mut self, signal: Signal, layout: DiskLayout) -> Result<Vec<ReclaimFn>, String> {
        if self.is_upstream() {
            let op = Op { signal: signal.name().into(), layout: wire::layout_name(layout).into(), ..Op::named("reclaimFunctions") };
            return self.drive(op)?.reclaim_functions.iter().map(|f| wire::reclaim_fn(f)).collect();
        }
        Ok(reclaim_functions(layout, signal, self.node.mutant))
    }

    /// The hard eviction thresholds the kubelet runs with, by signal, from its configuration.
    pub fn eviction_hard_in_force(&mut self) -> Result<BTreeMap<String, String>, String> {
        if self.is_upstream() {
            return Ok(self.drive(Op::named("evictionHardInForce"))?.eviction_hard);
        }
        Ok(effective_eviction_hard(self.config.eviction_hard.as_ref(), self.config.merge_default_eviction_settings, self.node.mutant))
    }
}
