//! When steps: the kubelet's actions, read from their phrases and carried out by
//! [`KubeletWorld::perform`] (the model, or upstream's code). The upstream unit tests call the
//! image GC manager's internals with explicit times (`detectImages(t)`, `freeSpace(bytes, t)`,
//! `freeOldImages(t, beganGC)`); those steps take the time as written and leave the clock
//! alone. The kubelet-level steps (`image garbage collection runs`, `the kubelet runs until`)
//! read the clock, as the kubelet does, moving it forward first when a time is given.

use cucumber::{given, when};
use kubegc::kubelet::time::{DateTime, Utc};

use super::parse::{duration, instant, number, size};
use crate::world::StepResult;
use crate::world::kubelet::KubeletWorld;
use crate::world::kubelet::actions::Action;

/// An optional instant (`at 10:05`), read on the scenario's day.
fn optional_instant(world: &KubeletWorld, text: &str) -> Result<Option<DateTime<Utc>>, String> {
    if text.is_empty() { Ok(None) } else { instant(text, &world.node).map(Some) }
}

/// `When images are detected at the zero time` (`detectImages(t)`).
#[given(regex = r"^images (?:are|were) detected at (.+)$")]
#[when(regex = r"^images (?:are|were) detected at (.+)$")]
fn detect(world: &mut KubeletWorld, time: String) -> StepResult {
    let at = instant(&time, &world.node)?;
    world.perform(&Action::Detect { at })
}

/// `When the image manager starts` (its first detection pass, now).
#[when(regex = r"^the image manager starts$")]
fn image_manager_starts(world: &mut KubeletWorld) -> StepResult {
    world.perform(&Action::Detect { at: world.node.now() })
}

/// `When the candidates for deletion are listed at 10:00` (`imagesInEvictionOrder(t)`).
#[when(regex = r"^the candidates for deletion are listed at (.+)$")]
fn list_candidates(world: &mut KubeletWorld, time: String) -> StepResult {
    let at = instant(&time, &world.node)?;
    world.perform(&Action::ListCandidates { at })
}

/// `When the image manager frees 4096 bytes at 10:00` (`imagesInEvictionOrder(t)` then
/// `freeSpace(bytes, t)`).
#[when(regex = r"^the image manager frees (.+) at (.+)$")]
fn free_space(world: &mut KubeletWorld, bytes: String, time: String) -> StepResult {
    let at = instant(&time, &world.node)?;
    world.perform(&Action::FreeSpace { bytes: size(&bytes)?, at })
}

/// `When images unused for longer than the maximum age are freed at 10:01, the GC loop having
/// begun at 10:00` (`imagesInEvictionOrder(t)` then `freeOldImages(t, beganGC)`).
#[when(regex = r"^images unused for longer than the maximum age are freed at (.+), the GC loop having begun at (.+)$")]
fn free_old(world: &mut KubeletWorld, time: String, began: String) -> StepResult {
    let (at, began) = (instant(&time, &world.node)?, instant(&began, &world.node)?);
    world.perform(&Action::FreeOld { at, began })
}

/// `When image garbage collection runs` (or `runs at 10:05`): one pass of image GC as the
/// kubelet's loop makes it (`GarbageCollect` with the kubelet's start as `beganGC`), without
/// the loop's own failure events (for those, the kubelet runs).
#[when(regex = r"^image garbage collection runs(?: at (.+))?$")]
fn image_gc_runs(world: &mut KubeletWorld, time: String) -> StepResult {
    let at = optional_instant(world, &time)?;
    world.perform(&Action::ImageGc { at })
}

/// `When unused images are deleted` (`DeleteUnusedImages`, as the eviction manager calls it).
#[when(regex = r"^unused images are deleted(?: at (.+))?$")]
fn delete_unused(world: &mut KubeletWorld, time: String) -> StepResult {
    let at = optional_instant(world, &time)?;
    world.perform(&Action::DeleteUnusedImages { at })
}

/// `When 1m passes` (the virtual clock moves; a running kubelet's loops run on the way).
#[when(regex = r"^(\S+) pass(?:es)?$")]
fn passes(world: &mut KubeletWorld, by: String) -> StepResult {
    world.perform(&Action::Pass { by: duration(&by)? })
}

/// `When the kubelet runs until 11:05`: its GC loops (detection, container GC every minute,
/// image GC every five minutes) run on the virtual clock.
#[when(regex = r"^the kubelet runs until (.+)$")]
fn runs_until(world: &mut KubeletWorld, time: String) -> StepResult {
    let end = instant(&time, &world.node)?;
    world.perform(&Action::RunUntil { end })
}

/// `When the kubelet runs for 30m`.
#[when(regex = r"^the kubelet runs for (\S+)$")]
fn runs_for(world: &mut KubeletWorld, by: String) -> StepResult {
    let end = kubegc::kubelet::time::add(world.node.now(), duration(&by)?).ok_or("past the end of time")?;
    world.perform(&Action::RunUntil { end })
}

/// `When the kubelet restarts`: image records are lost, the GC loops start again now.
#[when(regex = r"^the kubelet restarts$")]
fn restarts(world: &mut KubeletWorld) -> StepResult {
    world.perform(&Action::Restart)
}

/// `When container garbage collection runs`: one pass of container GC as the kubelet's loop
/// makes it (`GarbageCollect`), without the loop's failure event (for that, the kubelet runs).
#[when(regex = r"^container garbage collection runs$")]
fn container_gc_runs(world: &mut KubeletWorld) -> StepResult {
    world.perform(&Action::ContainerGc)
}

/// `When the kubelet deletes all unused containers` (`DeleteAllUnusedContainers`).
#[when(regex = r"^the kubelet deletes all unused containers$")]
fn delete_all_unused_containers(world: &mut KubeletWorld) -> StepResult {
    world.perform(&Action::DeleteAllUnusedContainers)
}

/// `When dead containers are evicted` (`evictContainers`; `including terminated pods` is the
/// eviction path's `evictNonDeletedPods`).
#[when(regex = r"^dead containers are evicted( including terminated pods)?$")]
fn evict_containers(world: &mut KubeletWorld, terminated: String) -> StepResult {
    world.perform(&Action::EvictContainers { terminated: !terminated.is_empty() })
}

/// `When pod sandboxes are evicted` (`evictSandboxes`).
#[when(regex = r"^pod sandboxes are evicted( including terminated pods)?$")]
fn evict_sandboxes(world: &mut KubeletWorld, terminated: String) -> StepResult {
    world.perform(&Action::EvictSandboxes { terminated: !terminated.is_empty() })
}

/// `When pod log directories are evicted` (`evictPodLogsDirectories`).
#[when(regex = r"^pod log directories are evicted$")]
fn evict_logs(world: &mut KubeletWorld) -> StepResult {
    world.perform(&Action::EvictLogs)
}

/// `When the image GC manager is created with thresholds high 2% low 1%` (`NewImageGCManager`).
#[when(regex = r"^the image GC manager is created with thresholds high (-?\d+)% low (-?\d+)%$")]
fn create_image_manager(world: &mut KubeletWorld, high: String, low: String) -> StepResult {
    world.perform(&Action::CreateImageGc { high: number(&high)?, low: number(&low)? })
}

/// `When container GC is created with a minimum age of -1s` (`NewContainerGC`).
#[when(regex = r"^container GC is created with a minimum age of (\S+)$")]
fn create_container_gc(world: &mut KubeletWorld, min_age: String) -> StepResult {
    world.perform(&Action::CreateContainerGc { min_age: duration(&min_age)? })
}

/// `When the kubelet configuration is validated`.
#[when(regex = r"^the kubelet configuration is validated$")]
fn validate_config(world: &mut KubeletWorld) -> StepResult {
    world.perform(&Action::ValidateConfig)
}

/// `When the configuration file is loaded` (defaulting).
#[when(regex = r"^the configuration file is loaded$")]
fn load_file(world: &mut KubeletWorld) -> StepResult {
    world.perform(&Action::LoadConfigFile)
}

/// `When the eviction manager synchronizes` (one pass, now).
#[when(regex = r"^the eviction manager synchronizes$")]
fn synchronize(world: &mut KubeletWorld) -> StepResult {
    world.perform(&Action::Synchronize)
}
