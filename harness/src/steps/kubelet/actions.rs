//! When steps: the kubelet's actions. The upstream unit tests call the image GC manager's
//! internals with explicit times (`detectImages(t)`, `freeSpace(bytes, t)`,
//! `freeOldImages(t, beganGC)`); those steps take the time as written and leave the clock
//! alone. The kubelet-level steps (`image garbage collection runs`, `the kubelet runs until`)
//! read the clock, as the kubelet does, moving it forward first when a time is given.

use cucumber::{given, when};
use kubegc::kubelet::config::defaulted;
use kubegc::kubelet::containers::{ContainerGc, ContainerGcPolicy, dead, logs, sandboxes};
use kubegc::kubelet::eviction::manager::{Eviction, SyncOutcome};
use kubegc::kubelet::images::ImageGcManager;
use kubegc::kubelet::images::order::EvictionInfo;
use kubegc::kubelet::pods::PodState;
use kubegc::kubelet::runtime::Image;
use kubegc::kubelet::time::{DateTime, TimeDelta, Utc};
use kubegc::kubelet::wire::{self, EvictionPod, Op, Record};

use super::parse::{duration, instant};
use crate::world::StepResult;
use crate::world::kubelet::{KubeletWorld, Outcome};

/// Runs `action` and records its outcome: its error, and the images the runtime no longer lists.
/// A request the kubelet driver could not carry out fails the step instead.
fn record(
    world: &mut KubeletWorld,
    name: &'static str,
    action: impl FnOnce(&mut KubeletWorld) -> Result<Option<i64>, String>,
) -> StepResult {
    let before: Vec<Image> = world.node.runtime.images.clone();
    let result = action(world);
    if let Some(fault) = world.driver_fault.take() {
        return Err(fault);
    }
    let mut after = world.node.runtime.images.clone();
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
    world.outcome = Outcome { action: name, error, removed_images: removed, freed };
    Ok(())
}

/// Runs `op` in upstream's kubelet code; the operation's own error is the result's.
fn drive(world: &mut KubeletWorld, op: Op) -> Result<kubegc::kubelet::wire::Answer, String> {
    let answer = world.drive(op)?;
    match &answer.error {
        Some(e) => Err(e.clone()),
        None => Ok(answer),
    }
}

/// Candidates as the checks read them.
fn candidates_of(records: &[Record]) -> Vec<EvictionInfo> {
    records.iter().map(|r| EvictionInfo { id: r.key.clone(), record: r.to_model() }).collect()
}

/// An image GC step at an explicit time.
fn op_at(kind: &str, t: DateTime<Utc>) -> Op {
    Op { at: Some(t), ..Op::named(kind) }
}

/// Moves the clock to `at` (if given and later), for kubelet-level actions; a running kubelet's
/// loops run on the way.
fn at(world: &mut KubeletWorld, at: &str) -> StepResult {
    if !at.is_empty() {
        let t = instant(at, &world.node)?;
        if t < world.node.now() {
            return Err(format!("{at} is in the past: the clock reads {}", super::parse::show(world.node.now(), &world.node)));
        }
        world.advance_to(t)?;
    }
    Ok(())
}

/// `When images are detected at the zero time` (`detectImages(t)`).
#[given(regex = r"^images (?:are|were) detected at (.+)$")]
#[when(regex = r"^images (?:are|were) detected at (.+)$")]
fn detect(world: &mut KubeletWorld, time: String) -> StepResult {
    let t = instant(&time, &world.node)?;
    record(world, "detection", |world| {
        if world.is_upstream() {
            return drive(world, op_at("detect", t)).map(|_| None);
        }
        world.with_images(|node, images| images.detect_images(node, t).map(|_| None).map_err(|e| e.to_string()))
    })
}

/// `When the image manager starts` (its first detection pass, now).
#[when(regex = r"^the image manager starts$")]
fn image_manager_starts(world: &mut KubeletWorld) -> StepResult {
    detect(world, "now".into())
}

/// `When the candidates for deletion are listed at 10:00` (`imagesInEvictionOrder(t)`).
#[when(regex = r"^the candidates for deletion are listed at (.+)$")]
fn list_candidates(world: &mut KubeletWorld, time: String) -> StepResult {
    let t = instant(&time, &world.node)?;
    record(world, "listing candidates", |world| {
        if world.is_upstream() {
            let answer = world.drive(op_at("candidates", t))?;
            world.candidates = candidates_of(&answer.candidates);
            return answer.error.map_or(Ok(None), Err);
        }
        world.candidates = world.with_images(|node, images| images.images_in_eviction_order(node, t).map_err(|e| e.to_string()))?;
        Ok(None)
    })
}

/// `When the image manager frees 4096 bytes at 10:00` (`imagesInEvictionOrder(t)` then
/// `freeSpace(bytes, t)`).
#[when(regex = r"^the image manager frees (.+) at (.+)$")]
fn free_space(world: &mut KubeletWorld, bytes: String, time: String) -> StepResult {
    let t = instant(&time, &world.node)?;
    let bytes = super::parse::size(&bytes)?;
    record(world, "freeing space", |world| {
        if world.is_upstream() {
            return drive(world, Op { bytes, ..op_at("freeSpace", t) }).map(|a| a.freed);
        }
        world.with_images(|node, images| {
            let candidates = images.images_in_eviction_order(node, t).map_err(|e| e.to_string())?;
            let result = images.free_space(node, bytes, t, &candidates);
            result.error.map_or(Ok(Some(result.freed)), |e| Err(e.to_string()))
        })
    })
}

/// `When images unused for longer than the maximum age are freed at 10:01, the GC loop having
/// begun at 10:00` (`imagesInEvictionOrder(t)` then `freeOldImages(t, beganGC)`).
#[when(regex = r"^images unused for longer than the maximum age are freed at (.+), the GC loop having begun at (.+)$")]
fn free_old(world: &mut KubeletWorld, time: String, began: String) -> StepResult {
    let (t, began) = (instant(&time, &world.node)?, instant(&began, &world.node)?);
    record(world, "freeing old images", |world| {
        if world.is_upstream() {
            let answer = world.drive(Op { began: Some(began), ..op_at("freeOld", t) })?;
            world.candidates = candidates_of(&answer.candidates);
            return answer.error.map_or(Ok(None), Err);
        }
        let (left, error) = world.with_images(|node, images| {
            let listed = images.images_in_eviction_order(node, t).map_err(|e| e.to_string())?;
            Ok(images.free_old_images(node, listed, t, began))
        })?;
        world.candidates = left;
        error.map_or(Ok(None), |e| Err(e.to_string()))
    })
}

/// `When image garbage collection runs` (or `runs at 10:05`): one pass of image GC as the
/// kubelet's loop makes it (`GarbageCollect` with the kubelet's start as `beganGC`), without
/// the loop's own failure events (for those, the kubelet runs).
#[when(regex = r"^image garbage collection runs(?: at (.+))?$")]
fn image_gc_runs(world: &mut KubeletWorld, time: String) -> StepResult {
    at(world, &time)?;
    record(world, "image garbage collection", |world| {
        if world.is_upstream() {
            return drive(world, Op::named("garbageCollectImages")).map(|_| None);
        }
        let began = world.started;
        world.with_images(|node, images| images.garbage_collect(node, began).map(|()| None).map_err(|e| e.to_string()))
    })
}

/// `When unused images are deleted` (`DeleteUnusedImages`, as the eviction manager calls it).
#[when(regex = r"^unused images are deleted(?: at (.+))?$")]
fn delete_unused(world: &mut KubeletWorld, time: String) -> StepResult {
    at(world, &time)?;
    record(world, "deleting unused images", |world| {
        if world.is_upstream() {
            return drive(world, Op::named("deleteUnusedImages")).map(|_| None);
        }
        world.with_images(|node, images| images.delete_unused_images(node).map(|()| None).map_err(|e| e.to_string()))
    })
}

/// `When 1m passes` (the virtual clock moves; nothing runs).
#[when(regex = r"^(\S+) pass(?:es)?$")]
fn passes(world: &mut KubeletWorld, by: String) -> StepResult {
    let by = duration(&by)?;
    let to = kubegc::kubelet::time::add(world.node.now(), by).ok_or("past the end of time")?;
    world.advance_to(to)
}

fn run_until(world: &mut KubeletWorld, end: DateTime<Utc>) -> StepResult {
    record(world, "the kubelet's loops", |world| world.run_loops_until(end).map(|()| None))
}

/// `When the kubelet runs until 11:05`: its GC loops (detection, container GC every minute,
/// image GC every five minutes) run on the virtual clock.
#[when(regex = r"^the kubelet runs until (.+)$")]
fn runs_until(world: &mut KubeletWorld, time: String) -> StepResult {
    let end = instant(&time, &world.node)?;
    run_until(world, end)
}

/// `When the kubelet runs for 30m`.
#[when(regex = r"^the kubelet runs for (\S+)$")]
fn runs_for(world: &mut KubeletWorld, by: String) -> StepResult {
    let end = kubegc::kubelet::time::add(world.node.now(), duration(&by)?).ok_or("past the end of time")?;
    run_until(world, end)
}

/// `When the kubelet restarts`: image records are lost, the GC loops start again now.
#[when(regex = r"^the kubelet restarts$")]
fn restarts(world: &mut KubeletWorld) -> StepResult {
    if world.is_upstream() {
        world.started = world.node.now();
        return world.drive(Op::named("restart")).map(|_| ());
    }
    world.images = Some(ImageGcManager::new(world.config.image_gc_policy(), &world.node)?);
    world.started = world.node.now();
    world.loops = None;
    Ok(())
}

/// `When container garbage collection runs`: one pass of container GC as the kubelet's loop
/// makes it (`GarbageCollect`), without the loop's failure event (for that, the kubelet runs).
#[when(regex = r"^container garbage collection runs$")]
fn container_gc_runs(world: &mut KubeletWorld) -> StepResult {
    if world.is_upstream() {
        return record(world, "container garbage collection", |world| drive(world, Op::named("garbageCollectContainers")).map(|_| None));
    }
    let containers = world.containers()?;
    record(world, "container garbage collection", |world| containers.garbage_collect(&mut world.node).map(|()| None))
}

/// `When the kubelet deletes all unused containers` (`DeleteAllUnusedContainers`).
#[when(regex = r"^the kubelet deletes all unused containers$")]
fn delete_all_unused_containers(world: &mut KubeletWorld) -> StepResult {
    if world.is_upstream() {
        return record(world, "container garbage collection", |world| drive(world, Op::named("deleteAllUnusedContainers")).map(|_| None));
    }
    let containers = world.containers()?;
    record(world, "container garbage collection", |world| containers.delete_all_unused_containers(&mut world.node).map(|()| None))
}

/// One step of the container collector (`kind` in upstream's code, `step` in the model).
fn gc_step(
    world: &mut KubeletWorld,
    kind: &str,
    step: impl FnOnce(&mut kubegc::kubelet::Node, &ContainerGcPolicy, bool) -> Result<(), String>,
    including_terminated: bool,
) -> StepResult {
    if world.is_upstream() {
        let op = Op { including_terminated, ..Op::named(kind) };
        return record(world, "container garbage collection", |world| drive(world, op).map(|_| None));
    }
    let policy = *world.containers()?.policy();
    record(world, "container garbage collection", |world| step(&mut world.node, &policy, including_terminated).map(|()| None))
}

/// `When dead containers are evicted` (`evictContainers`; `including terminated pods` is the
/// eviction path's `evictNonDeletedPods`).
#[when(regex = r"^dead containers are evicted( including terminated pods)?$")]
fn evict_containers(world: &mut KubeletWorld, terminated: String) -> StepResult {
    gc_step(world, "evictContainers", |node, policy, t| dead::evict_containers(node, policy, node.sources_ready, t), !terminated.is_empty())
}

/// `When pod sandboxes are evicted` (`evictSandboxes`).
#[when(regex = r"^pod sandboxes are evicted( including terminated pods)?$")]
fn evict_sandboxes(world: &mut KubeletWorld, terminated: String) -> StepResult {
    gc_step(world, "evictSandboxes", |node, _, t| sandboxes::evict_sandboxes(node, t), !terminated.is_empty())
}

/// `When pod log directories are evicted` (`evictPodLogsDirectories`).
#[when(regex = r"^pod log directories are evicted$")]
fn evict_logs(world: &mut KubeletWorld) -> StepResult {
    gc_step(world, "evictLogs", |node, _, _| logs::evict_pod_logs_directories(node, node.sources_ready), false)
}

/// `When the image GC manager is created with thresholds high 2% low 1%` (`NewImageGCManager`).
#[when(regex = r"^the image GC manager is created with thresholds high (-?\d+)% low (-?\d+)%$")]
fn create_image_manager(world: &mut KubeletWorld, high: String, low: String) -> StepResult {
    let (high, low) = (super::parse::number(&high)?, super::parse::number(&low)?);
    if world.is_upstream() {
        let answer = world.drive(Op { high, low, ..Op::named("createImageGC") })?;
        world.validation = answer.validation.map(|v| v.error.map_or(Ok(()), Err));
        return Ok(());
    }
    let policy = kubegc::kubelet::images::ImageGcPolicy { high_threshold_percent: high, low_threshold_percent: low, ..Default::default() };
    world.validation = Some(ImageGcManager::new(policy, &world.node).map(|_| ()));
    Ok(())
}

/// `When container GC is created with a minimum age of -1s` (`NewContainerGC`).
#[when(regex = r"^container GC is created with a minimum age of (\S+)$")]
fn create_container_gc(world: &mut KubeletWorld, min_age: String) -> StepResult {
    if world.is_upstream() {
        let op = Op { min_age: kubegc::kubelet::wire::nanos(duration(&min_age)?), ..Op::named("createContainerGC") };
        world.validation = world.drive(op)?.validation.map(|v| v.error.map_or(Ok(()), Err));
        return Ok(());
    }
    let policy = ContainerGcPolicy { min_age: duration(&min_age)?, ..ContainerGcPolicy::default() };
    world.validation = Some(ContainerGc::new(policy, &world.node).map(|_| ()));
    Ok(())
}

/// `When the kubelet configuration is validated`.
#[when(regex = r"^the kubelet configuration is validated$")]
fn validate_config(world: &mut KubeletWorld) -> StepResult {
    if world.is_upstream() {
        world.validation = world.drive(Op::named("validateConfig"))?.validation.map(|v| v.error.map_or(Ok(()), Err));
        return Ok(());
    }
    world.validation = Some(world.config.validate(&world.node.gates, world.node.mutant));
    Ok(())
}

/// `When the configuration file is loaded` (defaulting).
#[when(regex = r"^the configuration file is loaded$")]
fn load_file(world: &mut KubeletWorld) -> StepResult {
    if world.is_upstream() {
        let loaded = world.drive(Op::named("loadConfigFile"))?.config.ok_or("the driver loaded no configuration")?;
        let c = &mut world.config;
        c.image_gc_high_threshold_percent = loaded.image_gc_high_threshold_percent;
        c.image_gc_low_threshold_percent = loaded.image_gc_low_threshold_percent;
        c.image_minimum_gc_age = TimeDelta::nanoseconds(loaded.image_minimum_gc_age);
        c.image_maximum_gc_age = TimeDelta::nanoseconds(loaded.image_maximum_gc_age);
        return Ok(());
    }
    world.config = defaulted(&world.config_file, world.node.mutant);
    Ok(())
}

/// `When the eviction manager synchronizes` (one pass, now).
#[when(regex = r"^the eviction manager synchronizes$")]
fn synchronize(world: &mut KubeletWorld) -> StepResult {
    if world.is_upstream() {
        return record(world, "eviction", |world| {
            let active = world.declared_pods.iter().filter(|p| world.node.pods.states.get(&p.name) != Some(&PodState::Evicted));
            let answer = drive(world, Op { pods: active.map(EvictionPod::of).collect(), ..Op::named("synchronize") })?;
            let sync = answer.sync.ok_or("the kubelet driver did not synchronize")?;
            let reclaimed_with = sync.reclaimed_with.iter().map(|f| wire::reclaim_fn(f)).collect::<Result<_, _>>()?;
            let evicted = sync.evicted.map(|e| Eviction { pod: e.pod, grace_period_override: e.grace_period, message: String::new() });
            world.last_sync = Some(SyncOutcome { reclaimed_with, evicted });
            Ok(None)
        });
    }
    world.eviction()?;
    world.images()?;
    let containers = world.containers()?;
    record(world, "eviction", |world| {
        let KubeletWorld { node, images, eviction, last_sync, .. } = world;
        let (images, eviction) = (images.as_mut().ok_or("no image GC")?, eviction.as_mut().ok_or("no eviction manager")?);
        *last_sync = Some(eviction.synchronize(node, images, &containers));
        Ok(None)
    })
}
