//! Nothing in the kubelet model panics, whatever it is given: a deterministic fuzz over random
//! (and extreme) policies, configurations, filesystems, images, containers, sandboxes, clocks
//! and faults, calling every entry point — and over the parsers of every text the model reads.

use kubegc::kubelet::Node;
use kubegc::kubelet::config::{ContainerGcFlags, KubeletConfigFile, KubeletConfiguration, defaulted};
use kubegc::kubelet::containers::{self, ContainerGc, ContainerGcPolicy};
use kubegc::kubelet::disks::{DiskLayout, Filesystem};
use kubegc::kubelet::eviction::manager::{EvictionConfig, EvictionManager, PodUsage};
use kubegc::kubelet::eviction::thresholds::{ThresholdValue, parse_threshold};
use kubegc::kubelet::images::{ImageGcManager, ImageGcPolicy};
use kubegc::kubelet::logs::{LogDir, LogSymlink};
use kubegc::kubelet::loops::GcLoops;
use kubegc::kubelet::mutant::Mutant;
use kubegc::kubelet::pods::PodState;
use kubegc::kubelet::quantity::parse_bytes;
use kubegc::kubelet::runtime::{Container, ContainerState, Image, Sandbox, SandboxState};
use kubegc::kubelet::time::{DateTime, TimeDelta, Utc, latest_time, parse_duration, zero_time};

/// xorshift64*: small, deterministic, good enough to wander.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<T: Clone>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u64) as usize].clone()
    }
    fn int(&mut self) -> i64 {
        let any = self.next() as i64;
        self.pick(&[0, 1, -1, 50, 80, 85, 100, 101, 1 << 30, i64::MAX, i64::MIN, any])
    }
    fn size(&mut self) -> i64 {
        let any = (self.next() >> 20) as i64;
        self.pick(&[0, 1, 10, 1024, 1 << 30, 100 << 30, -5, i64::MAX, any])
    }
    fn duration(&mut self) -> TimeDelta {
        let any = TimeDelta::seconds(self.below(100_000) as i64);
        self.pick(&[
            TimeDelta::zero(),
            TimeDelta::nanoseconds(1),
            TimeDelta::nanoseconds(-1),
            TimeDelta::minutes(2),
            TimeDelta::hours(1),
            TimeDelta::nanoseconds(i64::MAX),
            TimeDelta::nanoseconds(i64::MIN),
            any,
        ])
    }
    fn time(&mut self, now: DateTime<Utc>) -> DateTime<Utc> {
        let offset = TimeDelta::seconds(self.below(7200) as i64 - 3600);
        let near = now.checked_add_signed(offset).unwrap_or(now);
        self.pick(&[zero_time(), latest_time(), now, near])
    }
    fn word(&mut self) -> String {
        self.pick(&["a", "b", "c", "", "x,y", "ns_pod_u1", "web_default_app-c1.log", "c1"]).to_string()
    }
}

fn random_node(rng: &mut Rng) -> Node {
    let start = rng.pick(&[Node::at_ten().now(), zero_time(), latest_time()]);
    let mut node = Node::new(start);
    node.mutant = if rng.below(3) == 0 { Some(rng.pick(Mutant::ALL)) } else { None };
    node.disks.layout = rng.pick(&[DiskLayout::Single, DiskLayout::DedicatedImageFs, DiskLayout::SplitImageFs]);
    node.disks.nodefs = Filesystem {
        capacity: {
            let v = rng.size();
            rng.pick(&[None, Some(v)])
        },
        available: rng.size(),
    };
    node.disks.imagefs = Filesystem {
        capacity: {
            let v = rng.size();
            rng.pick(&[None, Some(v)])
        },
        available: rng.size(),
    };
    if rng.below(5) == 0 {
        node.disks.image_stats_error = Some("stats".into());
    }
    node.gates.runtime_class_in_image_cri_api = rng.below(2) == 0;
    node.gates.image_volume = rng.below(2) == 0;
    node.gates.kubelet_separate_disk_gc = rng.below(4) != 0;
    node.sources_ready = rng.below(3) != 0;
    node.pods.synced = rng.below(3) != 0;
    for _ in 0..rng.below(6) {
        let (id, size) = (rng.word(), rng.size());
        let mut image = Image::new(&id, size);
        image.pinned = rng.below(4) == 0;
        image.runtime_handler = rng.pick(&["", "H"]).into();
        image.released_bytes = {
            let v = rng.size();
            rng.pick(&[None, Some(v)])
        };
        node.runtime.images.push(image);
    }
    for i in 0..rng.below(8) {
        let now = node.now();
        node.runtime.containers.push(Container {
            id: format!("c{i}"),
            pod_uid: rng.word(),
            name: rng.word(),
            attempt: rng.below(5) as u32,
            created: rng.time(now),
            finished: {
                let v = rng.time(now);
                rng.pick(&[None, Some(v)])
            },
            state: rng.pick(&[ContainerState::Created, ContainerState::Running, ContainerState::Exited, ContainerState::Unknown]),
            image_id: rng.word(),
            image_runtime_handler: rng.pick(&["", "H"]).into(),
            sandbox_id: if rng.below(2) == 0 { None } else { Some("s0".to_string()) },
            size: rng.size(),
            image_volumes: vec![rng.word()],
        });
    }
    for i in 0..rng.below(4) {
        let now = node.now();
        node.runtime.sandboxes.push(Sandbox {
            id: format!("s{i}"),
            pod_uid: rng.word(),
            attempt: 0,
            state: rng.pick(&[SandboxState::Ready, SandboxState::NotReady]),
            created: rng.time(now),
        });
    }
    for _ in 0..rng.below(4) {
        let state = rng.pick(&[PodState::Running, PodState::Terminated, PodState::Removed, PodState::Evicted]);
        node.pods.states.insert(rng.word(), state);
    }
    node.logs.pod_dirs = (0..rng.below(3)).map(|_| LogDir { name: rng.word(), size: rng.size() }).collect();
    node.logs.symlinks = (0..rng.below(3)).map(|_| LogSymlink { name: rng.word(), target_exists: rng.below(2) == 0 }).collect();
    for id in ["a", "c1", "c2", "s0"] {
        if rng.below(4) == 0 {
            node.runtime.faults.remove_image.insert(id.into());
            node.runtime.faults.stop_container.insert(id.into());
            node.runtime.faults.remove_container.insert(id.into());
            node.runtime.faults.stop_sandbox.insert(id.into());
            node.runtime.faults.container_status.insert(id.into());
        }
    }
    if rng.below(8) == 0 {
        node.runtime.faults.list_containers = Some("boom".into());
    }
    node
}

#[test]
fn the_model_never_panics() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let mut node = random_node(&mut rng);
        let config = KubeletConfiguration {
            image_gc_high_threshold_percent: rng.int(),
            image_gc_low_threshold_percent: rng.int(),
            image_minimum_gc_age: rng.duration(),
            image_maximum_gc_age: rng.duration(),
            ..KubeletConfiguration::default()
        };
        let _ = config.validate(&node.gates, node.mutant);
        let policy = ImageGcPolicy {
            high_threshold_percent: rng.int(),
            low_threshold_percent: rng.int(),
            min_age: rng.duration(),
            max_age: rng.duration(),
        };
        // A rejected policy still leaves the rest to exercise: fall back to one every model accepts.
        let equal = ImageGcPolicy { high_threshold_percent: 50, low_threshold_percent: 50, ..ImageGcPolicy::default() };
        let Some(mut images) = [policy, ImageGcPolicy::default(), equal].into_iter().find_map(|p| ImageGcManager::new(p, &node).ok())
        else {
            panic!("no policy accepted under {:?}", node.mutant);
        };
        let flags = ContainerGcFlags {
            minimum_container_ttl_duration: rng.duration(),
            maximum_dead_containers_per_container: rng.int(),
            maximum_dead_containers: rng.int(),
        };
        let cpolicy: ContainerGcPolicy = flags.policy();
        let now = node.now();
        let (t, began) = (rng.time(now), rng.time(now));
        let _ = images.detect_images(&node, t);
        if let Ok(candidates) = images.images_in_eviction_order(&mut node, t) {
            let _ = images.free_space(&mut node, rng.int(), t, &candidates);
            let _ = images.free_old_images(&mut node, candidates, t, began);
        }
        let _ = images.garbage_collect(&mut node, began);
        let _ = images.delete_unused_images(&mut node);
        let _ = containers::garbage_collect(&mut node, &cpolicy, rng.below(2) == 0, rng.below(2) == 0);
        if let Ok(cgc) = ContainerGc::new(cpolicy, &node) {
            let mut loops = GcLoops::start(&config, now, node.mutant);
            let end = rng.pick(&[now, now.checked_add_signed(TimeDelta::minutes(12)).unwrap_or(now)]);
            let _ = loops.run_until(end, &mut node, &mut images, &cgc);
            let thresholds = ["nodefs.available<10%", "imagefs.available<1Gi", "containerfs.available<5%", "memory.available<100Mi"]
                .iter()
                .map(|t| {
                    let mut t = parse_threshold(t).unwrap();
                    let q = ThresholdValue::Quantity(rng.size());
                    t.min_reclaim = rng.pick(&[None, Some(q), Some(ThresholdValue::Percentage(0.5))]);
                    t.grace_period = rng.duration();
                    t
                })
                .collect();
            let eviction_config =
                EvictionConfig { thresholds, pressure_transition_period: rng.duration(), max_pod_grace_period_seconds: rng.int() };
            if let Ok(mut eviction) = EvictionManager::new(eviction_config, &node) {
                eviction.active_pods = vec![PodUsage {
                    name: rng.word(),
                    priority: rng.int() as i32,
                    disk_usage: rng.size(),
                    ephemeral_storage_request: rng.size(),
                }];
                for _ in 0..3 {
                    let _ = eviction.synchronize(&mut node, &mut images, &cgc);
                }
            }
        }
    }
}

#[test]
fn the_parsers_never_panic() {
    let mut rng = Rng(42);
    let alphabet: Vec<char> = "0123456789.-+ %<>,:nsuµmhKMGTiBbyte_abcdefgimnoprsvxz".chars().collect();
    for _ in 0..20_000 {
        let len = rng.below(24) as usize;
        let text: String = (0..len).map(|_| rng.pick(&alphabet)).collect();
        let _ = parse_bytes(&text);
        let _ = parse_duration(&text);
        let _ = parse_threshold(&text);
        let _ = ThresholdValue::parse(&text);
        let _ = text.parse::<Mutant>();
        let _ = kubegc::kubelet::logs::container_id_of_symlink(&text, kubegc::kubelet::logs::SymlinkIdLength::default());
        let _ = kubegc::kubelet::logs::pod_uid_of_log_dir(&text);
    }
    let file = KubeletConfigFile { image_minimum_gc_age: Some(TimeDelta::nanoseconds(i64::MIN)), ..KubeletConfigFile::default() };
    let _ = defaulted(&file, None);
}
