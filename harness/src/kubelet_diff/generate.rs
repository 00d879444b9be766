//! Random cases from a seed. Each case has a theme — image GC, the kubelet's loops, container
//! GC, configuration, eviction — that decides what the node holds and which steps it takes, so
//! that every rule of the model meets many nodes that exercise it.
//!
//! The generator never makes an order that upstream leaves undefined: images arrive one
//! detection pass apart (see [`Case::arrivals`]); containers and sandboxes are created at
//! distinct instants, since upstream sorts them with `sort.Sort` on their creation time alone;
//! where the kubelet's loops run, no image is listed twice; and an eviction case has one
//! threshold. What upstream does in map order is compared without its order
//! ([`super::observe`]).

use fastrand::Rng;
use kubegc::kubelet::disks::{DiskLayout, Filesystem, FsRole};
use kubegc::kubelet::eviction::manager::PodUsage;
use kubegc::kubelet::eviction::thresholds::{Signal, ThresholdValue, parse_threshold};
use kubegc::kubelet::logs::{LogDir, LogSymlink};
use kubegc::kubelet::pods::PodState;
use kubegc::kubelet::runtime::{Container, ContainerState, Image, Sandbox, SandboxState};
use kubegc::kubelet::time::{DateTime, TimeDelta, Utc};

use super::case::{Case, Step, after};
use crate::world::kubelet::actions::Action;

/// What a case is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Theme {
    /// Image detection, eviction order, space- and age-based image GC.
    Images,
    /// The kubelet's GC loops over images and containers.
    Loops,
    /// Container, sandbox and pod-log GC.
    Containers,
    /// Configuration validation and defaulting, constructors, gates, eviction settings.
    Config,
    /// The eviction manager's pass under disk pressure.
    Eviction,
}

/// The case of `seed`.
pub fn case(seed: u64) -> Case {
    let mut g = Gen { rng: Rng::with_seed(seed), case: Case::empty(seed), created: 0 };
    let theme = [Theme::Images, Theme::Images, Theme::Loops, Theme::Containers, Theme::Containers, Theme::Config, Theme::Eviction]
        [g.rng.usize(..7)];
    match theme {
        Theme::Images => g.images_theme(),
        Theme::Loops => g.loops_theme(),
        Theme::Containers => g.containers_theme(),
        Theme::Config => g.config_theme(),
        Theme::Eviction => g.eviction_theme(),
    }
    g.case
}

/// Drawing from a seeded generator.
trait Draw {
    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: u32) -> bool;
    /// One of `items`.
    fn pick<T: Clone>(&mut self, items: &[T]) -> T;
}

impl Draw for Rng {
    fn chance(&mut self, percent: u32) -> bool {
        self.u32(..100) < percent
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.usize(..items.len())].clone()
    }
}

/// The generator's state: the case so far.
struct Gen {
    rng: Rng,
    case: Case,
    /// Minutes before the start at which the last container or sandbox was created.
    created: i64,
}

const IMAGE_IDS: [&str; 5] = ["sha256:aaa", "sha256:bbb", "sha256:ccc", "sha256:ddd", "sha256:eee"];
const PODS: [&str; 3] = ["web", "db", "job"];

impl Gen {
    fn start(&self) -> DateTime<Utc> {
        self.case.node.now()
    }

    /// A distinct creation instant, earlier than every one given before.
    fn created(&mut self) -> DateTime<Utc> {
        self.created += self.rng.i64(1..=20);
        after(self.start(), -60 * self.created - self.rng.i64(0..60))
    }

    /// A filesystem of one of a few capacities (rarely none, rarely more available than
    /// capacity), and its capacity.
    fn filesystem(&mut self) -> (Filesystem, i64) {
        let capacity = self.rng.pick(&[1000, 4000, 10_000, 10_000]);
        let mut available = self.rng.i64(0..=capacity);
        if self.rng.chance(5) {
            available = capacity + self.rng.i64(1..100);
        }
        if self.rng.chance(4) {
            return (Filesystem { capacity: None, available }, capacity);
        }
        (Filesystem::new(capacity, available), capacity)
    }

    fn image_config(&mut self) {
        let c = &mut self.case.config;
        c.image_gc_high_threshold_percent = match self.rng.u32(..20) {
            0 | 1 => 100,
            2 => 0,
            _ => self.rng.i64(20..100),
        };
        let high = c.image_gc_high_threshold_percent;
        c.image_gc_low_threshold_percent = if self.rng.u32(..10) == 0 { high } else { self.rng.i64(0..high.max(1)) };
        c.image_minimum_gc_age = TimeDelta::seconds(self.rng.pick(&[0, 30, 120, 120, 300]));
        c.image_maximum_gc_age = TimeDelta::seconds(self.rng.pick(&[0, 0, 0, 300, 1200, 3600]));
        if self.rng.chance(25) {
            self.case.node.gates.runtime_class_in_image_cri_api = true;
        }
    }

    /// Up to `most` images arriving a detection pass apart, before the start; sometimes one
    /// listed twice (when `twice`), pinned, of a runtime handler, or giving back other bytes
    /// than its size.
    fn arrivals(&mut self, most: usize, capacity: i64, twice: bool) {
        let count = self.rng.usize(1..=most);
        let mut seconds_before: Vec<i64> = (0..count).map(|_| self.rng.i64(0..3600)).collect();
        seconds_before.sort_unstable_by(|a, b| b.cmp(a));
        seconds_before.dedup();
        for (i, before) in seconds_before.into_iter().enumerate() {
            let id =
                if twice && i > 0 && self.rng.chance(10) { self.rng.pick(&IMAGE_IDS[..i]).to_string() } else { IMAGE_IDS[i].to_string() };
            let mut image = Image::new(&id, self.rng.i64(1..=(capacity / 3).max(2)));
            image.pinned = self.rng.chance(15);
            if self.rng.chance(20) {
                image.runtime_handler = "kata".into();
            }
            if self.rng.chance(10) {
                image.released_bytes = Some(image.size / 2);
            }
            let at = after(self.start(), -before);
            self.case.arrivals.push((image, at));
        }
    }

    fn arrived_ids(&self) -> Vec<String> {
        self.case.arrivals.iter().map(|(i, _)| i.id.clone()).collect()
    }

    /// A container of `pod` running `image`.
    fn container(&mut self, id: String, pod: &str, name: &str, attempt: u32, image: String) -> Container {
        let state = self.rng.pick(&[
            ContainerState::Exited,
            ContainerState::Exited,
            ContainerState::Exited,
            ContainerState::Running,
            ContainerState::Created,
            ContainerState::Unknown,
        ]);
        let created = self.created();
        let finished = (state == ContainerState::Exited && self.rng.chance(50)).then(|| after(created, self.rng.i64(1..600)));
        Container {
            id,
            pod_uid: pod.into(),
            name: name.into(),
            attempt,
            created,
            finished,
            state,
            image_id: image,
            image_runtime_handler: String::new(),
            sandbox_id: None,
            size: self.rng.i64(0..200),
            image_volumes: Vec::new(),
        }
    }

    /// Up to `most` containers running the arrived images (or none), some with an image volume.
    fn image_users(&mut self, most: usize) {
        let ids = self.arrived_ids();
        for i in 0..self.rng.usize(0..=most) {
            let image = self.rng.pick(&ids);
            let mut c = self.container(format!("user{i}"), "web", &format!("app{i}"), 0, image.clone());
            if let Some((arrived, _)) = self.case.arrivals.iter().find(|(a, _)| a.id == image) {
                c.image_runtime_handler = arrived.runtime_handler.clone();
            }
            if self.rng.chance(10) {
                c.image_volumes.push(self.rng.pick(&ids));
            }
            self.case.node.runtime.containers.push(c);
        }
        self.case.node.pods.states.insert("web".into(), PodState::Running);
    }

    /// An instant at or after `now`, up to `minutes` later (`now` itself a quarter of the time).
    fn later(&mut self, now: DateTime<Utc>, minutes: i64) -> DateTime<Utc> {
        if self.rng.chance(25) {
            return now;
        }
        after(now, self.rng.i64(0..=60 * minutes))
    }

    fn images_theme(&mut self) {
        let (fs, capacity) = self.filesystem();
        let node = &mut self.case.node;
        node.disks.layout = if self.rng.bool() { DiskLayout::Single } else { DiskLayout::DedicatedImageFs };
        *node.disks.fs_mut(FsRole::Image) = fs;
        if self.rng.chance(8) {
            node.disks.image_stats_error = Some("failed to get imageFs stats: unable to find data in memory cache".into());
        }
        self.image_config();
        self.arrivals(5, capacity, true);
        self.image_users(3);
        let ids = self.arrived_ids();
        if self.rng.chance(10) {
            let id = self.rng.pick(&ids);
            self.case.node.runtime.faults.remove_image.insert(id);
        }
        let mut now = self.start();
        for _ in 0..self.rng.usize(1..=6) {
            let step = match self.rng.u32(..13) {
                0 => Step::Act(Action::ListCandidates { at: self.later(now, 30) }),
                12 => match self.case.node.runtime.containers.first() {
                    // An image last used at the start, then aged to a limit.
                    Some(c) => {
                        self.case.steps.push(Step::RemoveContainer(c.id.clone()));
                        let began = after(now, -self.rng.i64(1..=3600));
                        Step::Act(Action::FreeOld { at: self.edge_or_later(now, 90), began })
                    }
                    None => continue,
                },
                1 => Step::Act(Action::FreeSpace { bytes: self.rng.i64(0..=capacity), at: self.edge_or_later(now, 30) }),
                2 => {
                    let began = after(now, -self.rng.i64(0..=3600));
                    Step::Act(Action::FreeOld { at: self.edge_or_later(now, 90), began })
                }
                3 | 4 => {
                    now = self.edge_or_later(now, 30).max(now);
                    Step::Act(Action::ImageGc { at: Some(now) })
                }
                5 => {
                    now = self.edge_or_later(now, 30).max(now);
                    Step::Act(Action::DeleteUnusedImages { at: Some(now) })
                }
                6 => Step::Act(Action::Detect { at: self.later(now, 10) }),
                7 => {
                    let by = self.rng.i64(1..=600);
                    now = after(now, by);
                    Step::Act(Action::Pass { by: TimeDelta::seconds(by) })
                }
                8 => match self.case.node.runtime.containers.iter().find(|c| c.state == ContainerState::Running) {
                    Some(c) => Step::Exit(c.id.clone()),
                    None => continue,
                },
                9 => match self.case.node.runtime.containers.first() {
                    Some(c) => Step::RemoveContainer(c.id.clone()),
                    None => continue,
                },
                10 => Step::Unlist(self.rng.pick(&ids)),
                _ => Step::Available(FsRole::Image, self.rng.i64(0..=capacity)),
            };
            self.case.steps.push(step);
        }
    }

    /// An instant where an image's age reaches a limit (the start, or an arrival, plus the
    /// minimum or maximum age) a third of the time, else one at or after `now`, up to
    /// `minutes` later.
    fn edge_or_later(&mut self, now: DateTime<Utc>, minutes: i64) -> DateTime<Utc> {
        if self.rng.chance(33) {
            // The start is when every image in use at the arrivals was last used.
            let arrivals: Vec<DateTime<Utc>> = self.case.arrivals.iter().map(|(_, at)| *at).collect();
            let base = if arrivals.is_empty() || self.rng.bool() { self.start() } else { self.rng.pick(&arrivals) };
            let config = &self.case.config;
            let age = self.rng.pick(&[config.image_minimum_gc_age, config.image_maximum_gc_age]);
            return kubegc::kubelet::time::add(base, age).unwrap_or(base);
        }
        self.later(now, minutes)
    }

    fn loops_theme(&mut self) {
        let (fs, capacity) = self.filesystem();
        self.case.node.disks.nodefs = fs;
        if self.rng.chance(20) {
            self.case.node.disks.image_stats_error = Some("failed to get imageFs stats: unable to find data in memory cache".into());
        }
        self.image_config();
        // No image listed twice: one entry's removal leaves the other listed, and the kubelet's
        // detection and image GC loops, due at the same instants, run concurrently, so whether
        // the next detection sees it before or after a pass is undefined.
        self.arrivals(4, capacity, false);
        self.image_users(2);
        if self.rng.chance(20) {
            self.case.node.runtime.faults.list_containers = Some("runtime is down".into());
        }
        let mut now = after(self.start(), self.rng.i64(0..=40) * 60 + self.rng.pick(&[0, 0, 1, 30]));
        self.case.steps.push(Step::Act(Action::RunUntil { end: now }));
        for _ in 0..self.rng.usize(0..=3) {
            let step = match self.rng.u32(..4) {
                0 => {
                    let by = self.rng.i64(1..=900);
                    now = after(now, by);
                    Step::Act(Action::Pass { by: TimeDelta::seconds(by) })
                }
                1 => {
                    now = self.later(now, 30);
                    Step::Act(Action::RunUntil { end: now })
                }
                2 => Step::Available(FsRole::Image, self.rng.i64(0..=capacity)),
                _ => Step::Act(Action::Restart),
            };
            self.case.steps.push(step);
        }
    }

    fn containers_theme(&mut self) {
        let node = &mut self.case.node;
        node.pods.synced = self.rng.u32(..5) > 0;
        node.sources_ready = self.rng.u32(..5) > 0;
        let pods: Vec<&str> = PODS[..self.rng.usize(1..=3)].to_vec();
        for pod in &pods {
            let state = self.rng.pick(&[
                Some(PodState::Running),
                Some(PodState::Terminated),
                Some(PodState::Removed),
                Some(PodState::Evicted),
                None,
            ]);
            if let Some(state) = state {
                self.case.node.pods.states.insert(pod.to_string(), state);
            }
        }
        let mut sandboxes = Vec::new();
        for pod in &pods {
            for attempt in 0..self.rng.u32(0..=2) {
                let sandbox = Sandbox {
                    id: format!("sb-{pod}-{attempt}"),
                    pod_uid: pod.to_string(),
                    attempt,
                    state: if self.rng.chance(30) { SandboxState::Ready } else { SandboxState::NotReady },
                    created: self.created(),
                };
                sandboxes.push(sandbox);
            }
        }
        let mut containers = Vec::new();
        for i in 0..self.rng.usize(1..=8) {
            let pod = self.rng.pick(&pods);
            let name = self.rng.pick(&["app", "sidecar"]);
            let attempt = containers.iter().filter(|c: &&Container| c.pod_uid == pod && c.name == name).count() as u32;
            let id = if self.rng.chance(15) { format!("c{i}") } else { format!("c{i:05}") };
            let mut c = self.container(id, pod, name, attempt, String::new());
            c.sandbox_id = sandboxes.iter().filter(|s| s.pod_uid == pod).map(|s| s.id.clone()).next_back();
            containers.push(c);
        }
        let faults = &mut self.case.node.runtime.faults;
        for c in &containers {
            match self.rng.u32(..30) {
                0 => faults.stop_container.insert(c.id.clone()),
                1 => faults.remove_container.insert(c.id.clone()),
                _ => false,
            };
        }
        if let Some(s) = sandboxes.first()
            && self.rng.chance(10)
        {
            faults.stop_sandbox.insert(s.id.clone());
        }
        if self.rng.chance(5) {
            faults.list_containers = Some("runtime is down".into());
        }
        let logs = &mut self.case.node.logs;
        for pod in &pods {
            if self.rng.bool() {
                logs.pod_dirs.push(LogDir { name: format!("default_{pod}_{pod}"), size: 10 });
            }
        }
        if self.rng.chance(30) {
            logs.pod_dirs.push(LogDir { name: "default_gone_gone".into(), size: 10 });
        }
        for c in &containers {
            if self.rng.chance(30) {
                logs.symlinks
                    .push(LogSymlink { name: format!("{}_default_{}-{}.log", c.pod_uid, c.name, c.id), target_exists: self.rng.bool() });
            }
        }
        self.case.node.runtime.containers = containers;
        self.case.node.runtime.sandboxes = sandboxes;
        let p = &mut self.case.container_policy;
        p.min_age = TimeDelta::seconds(self.rng.pick(&[0, 0, 30, 600, 3600]));
        p.max_per_pod_container = self.rng.pick(&[-1, 0, 1, 1, 2]);
        p.max_containers = self.rng.pick(&[-1, -1, 0, 1, 3, 5]);
        for _ in 0..self.rng.usize(1..=4) {
            let step = match self.rng.u32(..7) {
                0 | 1 => Action::ContainerGc,
                2 => Action::DeleteAllUnusedContainers,
                3 => Action::EvictContainers { terminated: self.rng.bool() },
                4 => Action::EvictSandboxes { terminated: self.rng.bool() },
                5 => Action::EvictLogs,
                _ => Action::Pass { by: TimeDelta::seconds(self.rng.i64(1..=3600)) },
            };
            self.case.steps.push(Step::Act(step));
        }
    }

    fn config_theme(&mut self) {
        let c = &mut self.case.config;
        c.image_gc_high_threshold_percent = self.rng.i64(-5..=105);
        c.image_gc_low_threshold_percent = if self.rng.chance(20) { c.image_gc_high_threshold_percent } else { self.rng.i64(-5..=105) };
        c.image_minimum_gc_age = TimeDelta::seconds(self.rng.pick(&[-60, 0, 120, 120, 600]));
        c.image_maximum_gc_age = TimeDelta::seconds(self.rng.pick(&[-60, 0, 0, 60, 120, 600, 3600]));
        let (high, low) = (self.rng.i64(0..=100), self.rng.i64(0..=100));
        let (min_age, max_age) = (TimeDelta::seconds(self.rng.pick(&[0, 60, 120])), TimeDelta::seconds(self.rng.pick(&[0, 600])));
        let f = &mut self.case.config_file;
        f.image_gc_high_threshold_percent = self.rng.bool().then_some(high);
        f.image_gc_low_threshold_percent = self.rng.bool().then_some(low);
        f.image_minimum_gc_age = self.rng.bool().then_some(min_age);
        f.image_maximum_gc_age = self.rng.bool().then_some(max_age);
        if self.rng.chance(60) {
            let mut map = std::collections::BTreeMap::new();
            for _ in 0..self.rng.usize(0..=2) {
                let signal = self.rng.pick(&["nodefs.available", "imagefs.available", "nodefs.inodesFree", "memory.available"]);
                let value = self.rng.pick(&["10%", "5%", "1Gi", "100Mi"]);
                map.insert(signal.to_string(), value.to_string());
            }
            self.case.config.eviction_hard = Some(map);
            self.case.config.merge_default_eviction_settings = self.rng.bool();
        }
        for _ in 0..self.rng.usize(1..=4) {
            let step = match self.rng.u32(..8) {
                0 | 1 => Step::Act(Action::ValidateConfig),
                2 => Step::Act(Action::LoadConfigFile),
                3 => Step::Act(Action::CreateImageGc { high: self.rng.i64(-5..=105), low: self.rng.i64(-5..=105) }),
                4 => Step::Act(Action::CreateContainerGc { min_age: TimeDelta::seconds(self.rng.i64(-60..=60)) }),
                5 => {
                    let gate = self.rng.pick(&["RuntimeClassInImageCriAPI", "ImageMaximumGCAge", "KubeletSeparateDiskGC", "ImageVolume"]);
                    Step::Gate(gate, self.rng.bool())
                }
                6 => Step::HardInForce,
                _ => {
                    let signal = self.rng.pick(&[
                        Signal::NodeFsAvailable,
                        Signal::NodeFsInodesFree,
                        Signal::ImageFsAvailable,
                        Signal::ImageFsInodesFree,
                        Signal::ContainerFsAvailable,
                    ]);
                    let layout = self.rng.pick(&[DiskLayout::Single, DiskLayout::DedicatedImageFs, DiskLayout::SplitImageFs]);
                    Step::Reclaims(signal, layout)
                }
            };
            self.case.steps.push(step);
        }
    }

    fn eviction_theme(&mut self) {
        let layout = self.rng.pick(&[DiskLayout::Single, DiskLayout::DedicatedImageFs, DiskLayout::SplitImageFs]);
        let (nodefs, capacity) = self.filesystem();
        let (imagefs, _) = self.filesystem();
        let disks = &mut self.case.node.disks;
        disks.layout = layout;
        disks.nodefs = Filesystem { capacity: Some(capacity), ..nodefs };
        disks.imagefs = Filesystem { capacity: imagefs.capacity.or(Some(capacity)), ..imagefs };
        self.case.config.image_minimum_gc_age = TimeDelta::zero();
        self.arrivals(3, capacity, false);
        self.image_users(2);
        // One threshold: when two are met at once, upstream picks the one that drives the pass
        // in Go's map order (`thresholdsMetGracePeriod`, `pkg/kubelet/eviction/helpers.go`).
        let signal = match layout {
            DiskLayout::Single => "nodefs.available",
            DiskLayout::DedicatedImageFs => self.rng.pick(&["nodefs.available", "imagefs.available"]),
            DiskLayout::SplitImageFs => self.rng.pick(&["nodefs.available", "imagefs.available", "containerfs.available"]),
        };
        let value = if self.rng.bool() { format!("{}%", self.rng.u32(1..60)) } else { format!("{}", self.rng.i64(1..capacity)) };
        if let Ok(mut t) = parse_threshold(&format!("{signal}<{value}")) {
            if self.rng.chance(30) {
                t.min_reclaim = Some(ThresholdValue::Quantity(self.rng.i64(1..capacity / 2)));
            }
            // Now and then the signal sits right at its threshold.
            let role = match signal {
                "imagefs.available" => Some(FsRole::Image),
                "nodefs.available" => Some(FsRole::Node),
                _ => None,
            };
            if let Some(role) = role
                && self.rng.chance(30)
            {
                let fs = self.case.node.disks.fs_mut(role);
                fs.available = t.value.quantity(fs.capacity.unwrap_or(0));
            }
            self.case.eviction_thresholds = Some(vec![t]);
        }
        self.case.max_pod_grace_period_seconds = self.rng.pick(&[0, 0, 30]);
        for name in &PODS[..self.rng.usize(1..=3)] {
            let pod = PodUsage {
                name: name.to_string(),
                priority: self.rng.pick(&[-1, 0, 0, 1, 1000]),
                disk_usage: self.rng.i64(0..capacity / 2),
                ephemeral_storage_request: self.rng.pick(&[0, 0, 100, 1000]),
            };
            self.case.pods.push(pod);
        }
        for _ in 0..self.rng.usize(1..=3) {
            self.case.steps.push(Step::Act(Action::Synchronize));
            match self.rng.u32(..3) {
                0 => self.case.steps.push(Step::Available(self.rng.pick(&[FsRole::Node, FsRole::Image]), self.rng.i64(0..=capacity))),
                1 => self.case.steps.push(Step::Act(Action::Pass { by: TimeDelta::seconds(self.rng.i64(1..=600)) })),
                _ => {}
            }
        }
    }
}
