//! The kubelet's actions on a scenario's node, each carried out by the model or, on upstream,
//! by the kubelet driver: the one place where a When step (and `kubegc kubelet-diff`) chooses
//! between them. Each action records its [`Outcome`] for the checks that follow.
//!
//! The image GC manager's internals take explicit times, as upstream's unit tests call them
//! (`detectImages(t)`, `freeSpace(bytes, t)`, `freeOldImages(t, beganGC)`), and leave the clock
//! alone; the kubelet-level actions read the clock, moving it forward first when given a time.

use crate::kubelet_wire::{self as wire, Answer, EvictionPod, Op, Record};
use kubegc::kubelet::config::defaulted;
use kubegc::kubelet::containers::{ContainerGc, ContainerGcPolicy, dead, logs, sandboxes};
use kubegc::kubelet::eviction::manager::{Eviction, SyncOutcome};
use kubegc::kubelet::images::order::EvictionInfo;
use kubegc::kubelet::images::{ImageGcManager, ImageGcPolicy};
use kubegc::kubelet::pods::PodState;
use kubegc::kubelet::quantity::format_bytes;
use kubegc::kubelet::runtime::Image;
use kubegc::kubelet::time::{DateTime, TimeDelta, Utc, add, format_duration};

use super::{KubeletWorld, Outcome};

/// One action of the kubelet on its node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// `detectImages(at)`.
    Detect { at: DateTime<Utc> },
    /// `imagesInEvictionOrder(at)`.
    ListCandidates { at: DateTime<Utc> },
    /// `imagesInEvictionOrder(at)`, then `freeSpace(bytes, at)`.
    FreeSpace { bytes: i64, at: DateTime<Utc> },
    /// `imagesInEvictionOrder(at)`, then `freeOldImages(at, began)`.
    FreeOld { at: DateTime<Utc>, began: DateTime<Utc> },
    /// One image GC pass (`GarbageCollect`, the kubelet's start as `beganGC`), at `at` if given.
    ImageGc { at: Option<DateTime<Utc>> },
    /// `DeleteUnusedImages`, at `at` if given.
    DeleteUnusedImages { at: Option<DateTime<Utc>> },
    /// The clock moves by `by`; a running kubelet's loops run on the way.
    Pass { by: TimeDelta },
    /// The kubelet's GC loops run until `end`.
    RunUntil { end: DateTime<Utc> },
    /// The kubelet restarts: image records are lost, the loops start again now.
    Restart,
    /// One container GC pass (`GarbageCollect`).
    ContainerGc,
    /// `DeleteAllUnusedContainers`.
    DeleteAllUnusedContainers,
    /// `evictContainers` (`terminated`: the eviction path's `evictNonDeletedPods`).
    EvictContainers { terminated: bool },
    /// `evictSandboxes`.
    EvictSandboxes { terminated: bool },
    /// `evictPodLogsDirectories`.
    EvictLogs,
    /// `NewImageGCManager` with these thresholds.
    CreateImageGc { high: i64, low: i64 },
    /// `NewContainerGC` with this minimum age.
    CreateContainerGc { min_age: TimeDelta },
    /// `ValidateKubeletConfiguration`.
    ValidateConfig,
    /// The configuration file loaded and defaulted.
    LoadConfigFile,
    /// One pass of the eviction manager.
    Synchronize,
}

/// How an instant reads in an action: a time of day, or RFC 3339 on another day.
fn show(t: DateTime<Utc>, day: DateTime<Utc>) -> String {
    if t.date_naive() == day.date_naive() { t.format("%H:%M:%S%.f").to_string() } else { t.to_rfc3339() }
}

impl Action {
    /// The action as a When step reads, times shown relative to the scenario's `day`.
    pub fn phrase(&self, day: DateTime<Utc>) -> String {
        let at = |t: &Option<DateTime<Utc>>| t.map(|t| format!(" at {}", show(t, day))).unwrap_or_default();
        let terminated = |t: bool| if t { " including terminated pods" } else { "" };
        match self {
            Action::Detect { at } => format!("images are detected at {}", show(*at, day)),
            Action::ListCandidates { at } => format!("the candidates for deletion are listed at {}", show(*at, day)),
            Action::FreeSpace { bytes, at } => format!("the image manager frees {} at {}", format_bytes(*bytes), show(*at, day)),
            Action::FreeOld { at, began } => format!(
                "images unused for longer than the maximum age are freed at {}, the GC loop having begun at {}",
                show(*at, day),
                show(*began, day)
            ),
            Action::ImageGc { at: t } => format!("image garbage collection runs{}", at(t)),
            Action::DeleteUnusedImages { at: t } => format!("unused images are deleted{}", at(t)),
            Action::Pass { by } => format!("{} passes", format_duration(*by)),
            Action::RunUntil { end } => format!("the kubelet runs until {}", show(*end, day)),
            Action::Restart => "the kubelet restarts".into(),
            Action::ContainerGc => "container garbage collection runs".into(),
            Action::DeleteAllUnusedContainers => "the kubelet deletes all unused containers".into(),
            Action::EvictContainers { terminated: t } => format!("dead containers are evicted{}", terminated(*t)),
            Action::EvictSandboxes { terminated: t } => format!("pod sandboxes are evicted{}", terminated(*t)),
            Action::EvictLogs => "pod log directories are evicted".into(),
            Action::CreateImageGc { high, low } => format!("the image GC manager is created with thresholds high {high}% low {low}%"),
            Action::CreateContainerGc { min_age } => format!("container GC is created with a minimum age of {}", format_duration(*min_age)),
            Action::ValidateConfig => "the kubelet configuration is validated".into(),
            Action::LoadConfigFile => "the configuration file is loaded".into(),
            Action::Synchronize => "the eviction manager synchronizes".into(),
        }
    }
}

/// Candidates as the checks read them.
fn candidates_of(records: &[Record]) -> Vec<EvictionInfo> {
    records.iter().map(|r| EvictionInfo { id: r.key.clone(), record: r.to_model() }).collect()
}

/// An operation of the driver at an explicit time.
fn op_at(kind: &str, t: DateTime<Utc>) -> Op {
    Op { at: Some(t), ..Op::named(kind) }
}

/// The validation result an answer carries.
fn validation_of(answer: Answer) -> Option<Result<(), String>> {
    answer.validation.map(|v| v.error.map_or(Ok(()), Err))
}

impl KubeletWorld {
    /// Carries out `action` on the node; its own failure is its outcome's error. An `Err` is a
    /// failure of the step: the driver could not carry it out, or it cannot be done at all
    /// (time running backwards).
    pub fn perform(&mut self, action: &Action) -> Result<(), String> {
        match action {
            Action::Detect { at } => self.record("detection", |w| w.detect(*at)),
            Action::ListCandidates { at } => self.record("listing candidates", |w| w.list_candidates(*at)),
            Action::FreeSpace { bytes, at } => self.record("freeing space", |w| w.free_space(*bytes, *at)),
            Action::FreeOld { at, began } => self.record("freeing old images", |w| w.free_old(*at, *began)),
            Action::ImageGc { at } => {
                self.move_clock(*at)?;
                self.record("image garbage collection", KubeletWorld::image_gc)
            }
            Action::DeleteUnusedImages { at } => {
                self.move_clock(*at)?;
                self.record("deleting unused images", KubeletWorld::delete_unused_images)
            }
            Action::Pass { by } => self.advance_to(add(self.node.now(), *by).ok_or("past the end of time")?),
            Action::RunUntil { end } => {
                self.loops_can_run_until(*end)?;
                self.record("the kubelet's loops", |w| w.run_loops_until(*end).map(|()| None))
            }
            Action::Restart => self.restart(),
            Action::ContainerGc => self.container_step("garbageCollectContainers", false, |c, node, _| c.garbage_collect(node)),
            Action::DeleteAllUnusedContainers => {
                self.container_step("deleteAllUnusedContainers", false, |c, node, _| c.delete_all_unused_containers(node))
            }
            Action::EvictContainers { terminated } => self.container_step("evictContainers", *terminated, |c, node, t| {
                dead::evict_containers(node, c.policy(), node.sources_ready, t)
            }),
            Action::EvictSandboxes { terminated } => {
                self.container_step("evictSandboxes", *terminated, |_, node, t| sandboxes::evict_sandboxes(node, t))
            }
            Action::EvictLogs => {
                self.container_step("evictLogs", false, |_, node, _| logs::evict_pod_logs_directories(node, node.sources_ready))
            }
            Action::CreateImageGc { high, low } => self.create_image_gc(*high, *low),
            Action::CreateContainerGc { min_age } => self.create_container_gc(*min_age),
            Action::ValidateConfig => self.validate_config(),
            Action::LoadConfigFile => self.load_config_file(),
            Action::Synchronize => self.synchronize(),
        }
    }

    /// Runs `action` and records its outcome: its error, and the images the runtime no longer
    /// lists. A request the kubelet driver could not carry out fails the step instead.
    fn record(&mut self, name: &'static str, action: impl FnOnce(&mut Self) -> Result<Option<i64>, String>) -> Result<(), String> {
        let before: Vec<Image> = self.node.runtime.images.clone();
        let result = action(self);
        if let Some(fault) = self.driver_fault.take() {
            return Err(fault);
        }
        let mut after = self.node.runtime.images.clone();
        let mut removed = Vec::new();
        for image in before {
            match after.iter().position(|i| *i == image) {
                Some(at) => {
                    after.remove(at);
                }
                None => removed.push(image),
            }
        }
        let (error, freed) = match result {
            Ok(freed) => (None, freed),
            Err(e) => (Some(e), None),
        };
        self.outcome = Outcome { action: name, error, removed_images: removed, freed };
        Ok(())
    }

    /// Runs `op` in upstream's kubelet code; the operation's own error is the result's.
    fn drive_op(&mut self, op: Op) -> Result<Answer, String> {
        let answer = self.drive(op)?;
        match &answer.error {
            Some(e) => Err(e.clone()),
            None => Ok(answer),
        }
    }

    /// Moves the clock to `at` (if given), for kubelet-level actions; a running kubelet's loops
    /// run on the way.
    fn move_clock(&mut self, at: Option<DateTime<Utc>>) -> Result<(), String> {
        let Some(t) = at else { return Ok(()) };
        if t < self.node.now() {
            return Err(format!("{} is in the past: the clock reads {}", t.to_rfc3339(), self.node.now().to_rfc3339()));
        }
        self.advance_to(t)
    }

    fn detect(&mut self, t: DateTime<Utc>) -> Result<Option<i64>, String> {
        if self.is_upstream() {
            return self.drive_op(op_at("detect", t)).map(|_| None);
        }
        self.with_images(|node, images| images.detect_images(node, t).map(|_| None).map_err(|e| e.to_string()))
    }

    fn list_candidates(&mut self, t: DateTime<Utc>) -> Result<Option<i64>, String> {
        if self.is_upstream() {
            let answer = self.drive(op_at("candidates", t))?;
            self.candidates = candidates_of(&answer.candidates);
            return answer.error.map_or(Ok(None), Err);
        }
        self.candidates = self.with_images(|node, images| images.images_in_eviction_order(node, t).map_err(|e| e.to_string()))?;
        Ok(None)
    }

    fn free_space(&mut self, bytes: i64, t: DateTime<Utc>) -> Result<Option<i64>, String> {
        if self.is_upstream() {
            return self.drive_op(Op { bytes, ..op_at("freeSpace", t) }).map(|a| a.freed);
        }
        self.with_images(|node, images| {
            let candidates = images.images_in_eviction_order(node, t).map_err(|e| e.to_string())?;
            let result = images.free_space(node, bytes, t, &candidates);
            result.error.map_or(Ok(Some(result.freed)), |e| Err(e.to_string()))
        })
    }

    fn free_old(&mut self, t: DateTime<Utc>, began: DateTime<Utc>) -> Result<Option<i64>, String> {
        if self.is_upstream() {
            let answer = self.drive(Op { began: Some(began), ..op_at("freeOld", t) })?;
            self.candidates = candidates_of(&answer.candidates);
            return answer.error.map_or(Ok(None), Err);
        }
        let (left, error) = self.with_images(|node, images| {
            let listed = images.images_in_eviction_order(node, t).map_err(|e| e.to_string())?;
            Ok(images.free_old_images(node, listed, t, began))
        })?;
        self.candidates = left;
        error.map_or(Ok(None), |e| Err(e.to_string()))
    }

    fn image_gc(&mut self) -> Result<Option<i64>, String> {
        if self.is_upstream() {
            return self.drive_op(Op::named("garbageCollectImages")).map(|_| None);
        }
        let began = self.started;
        self.with_images(|node, images| images.garbage_collect(node, began).map(|()| None).map_err(|e| e.to_string()))
    }

    fn delete_unused_images(&mut self) -> Result<Option<i64>, String> {
        if self.is_upstream() {
            return self.drive_op(Op::named("deleteUnusedImages")).map(|_| None);
        }
        self.with_images(|node, images| images.delete_unused_images(node).map(|()| None).map_err(|e| e.to_string()))
    }

    fn restart(&mut self) -> Result<(), String> {
        self.started = self.node.now();
        if self.is_upstream() {
            return self.drive(Op::named("restart")).map(|_| ());
        }
        self.images = Some(ImageGcManager::new(self.config.image_gc_policy(), &self.node)?);
        self.loops = None;
        Ok(())
    }

    /// One step of the container collector: `kind` in upstream's code, `step` in the model.
    fn container_step(
        &mut self,
        kind: &str,
        including_terminated: bool,
        step: impl FnOnce(&ContainerGc, &mut kubegc::kubelet::Node, bool) -> Result<(), String>,
    ) -> Result<(), String> {
        if self.is_upstream() {
            let op = Op { including_terminated, ..Op::named(kind) };
            return self.record("container garbage collection", |w| w.drive_op(op).map(|_| None));
        }
        let containers = self.containers()?;
        self.record("container garbage collection", |w| step(&containers, &mut w.node, including_terminated).map(|()| None))
    }

    fn create_image_gc(&mut self, high: i64, low: i64) -> Result<(), String> {
        if self.is_upstream() {
            self.validation = validation_of(self.drive(Op { high, low, ..Op::named("createImageGC") })?);
            return Ok(());
        }
        let policy = ImageGcPolicy { high_threshold_percent: high, low_threshold_percent: low, ..Default::default() };
        self.validation = Some(ImageGcManager::new(policy, &self.node).map(|_| ()));
        Ok(())
    }

    fn create_container_gc(&mut self, min_age: TimeDelta) -> Result<(), String> {
        if self.is_upstream() {
            self.validation = validation_of(self.drive(Op { min_age: wire::nanos(min_age), ..Op::named("createContainerGC") })?);
            return Ok(());
        }
        let policy = ContainerGcPolicy { min_age, ..ContainerGcPolicy::default() };
        self.validation = Some(ContainerGc::new(policy, &self.node).map(|_| ()));
        Ok(())
    }

    fn validate_config(&mut self) -> Result<(), String> {
        if self.is_upstream() {
            self.validation = validation_of(self.drive(Op::named("validateConfig"))?);
            return Ok(());
        }
        self.validation = Some(self.config.validate(&self.node.gates, self.node.mutant));
        Ok(())
    }

    /// Loads the configuration file: the image GC fields it defaults replace the configuration's
    /// (the file holds no others).
    fn load_config_file(&mut self) -> Result<(), String> {
        let (high, low, min_age, max_age) = if self.is_upstream() {
            let c = self.drive(Op::named("loadConfigFile"))?.config.ok_or("the driver loaded no configuration")?;
            let ages = (TimeDelta::nanoseconds(c.image_minimum_gc_age), TimeDelta::nanoseconds(c.image_maximum_gc_age));
            (c.image_gc_high_threshold_percent, c.image_gc_low_threshold_percent, ages.0, ages.1)
        } else {
            let c = defaulted(&self.config_file, self.node.mutant);
            (c.image_gc_high_threshold_percent, c.image_gc_low_threshold_percent, c.image_minimum_gc_age, c.image_maximum_gc_age)
        };
        let c = &mut self.config;
        (c.image_gc_high_threshold_percent, c.image_gc_low_threshold_percent) = (high, low);
        (c.image_minimum_gc_age, c.image_maximum_gc_age) = (min_age, max_age);
        Ok(())
    }

    fn synchronize(&mut self) -> Result<(), String> {
        if self.is_upstream() {
            return self.record("eviction", |w| {
                let active = w.declared_pods.iter().filter(|p| w.node.pods.states.get(&p.name) != Some(&PodState::Evicted));
                let answer = w.drive_op(Op { pods: active.map(EvictionPod::of).collect(), ..Op::named("synchronize") })?;
                let sync = answer.sync.ok_or("the kubelet driver did not synchronize")?;
                let reclaimed_with = sync.reclaimed_with.iter().map(|f| wire::reclaim_fn(f)).collect::<Result<_, _>>()?;
                let evicted = sync.evicted.map(|e| Eviction { pod: e.pod, grace_period_override: e.grace_period, message: String::new() });
                // The pod workers learn of the eviction, as the model's do.
                if let Some(e) = &evicted {
                    w.node.pods.states.insert(e.pod.clone(), PodState::Evicted);
                }
                w.last_sync = Some(SyncOutcome { reclaimed_with, evicted });
                Ok(None)
            });
        }
        self.eviction()?;
        self.images()?;
        let containers = self.containers()?;
        self.record("eviction", |w| {
            let KubeletWorld { node, images, eviction, last_sync, .. } = w;
            let (images, eviction) = (images.as_mut().ok_or("no image GC")?, eviction.as_mut().ok_or("no eviction manager")?);
            *last_sync = Some(eviction.synchronize(node, images, &containers));
            Ok(None)
        })
    }
}
