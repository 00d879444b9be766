//! Given steps: the node's disks, runtime (images, containers, sandboxes, faults), pods and
//! logs; the image and container GC policies, the kubelet configuration and feature gates, and
//! the eviction thresholds and pods. Most also read as When steps, for changes mid-scenario.

use cucumber::gherkin::Step;
use cucumber::{given, when};
use kubegc::kubelet::disks::{DiskLayout, Filesystem, FsRole};
use kubegc::kubelet::eviction::manager::PodUsage;
use kubegc::kubelet::eviction::thresholds::{ThresholdValue, parse_threshold};
use kubegc::kubelet::logs::{LogDir, LogSymlink};
use kubegc::kubelet::pods::PodState;
use kubegc::kubelet::runtime::{Container, ContainerState, Image, Sandbox, SandboxState};

use super::parse::{cell, duration, instant, limit, names, number, rows, size, yes};
use crate::world::StepResult;
use crate::world::kubelet::KubeletWorld;

fn role(name: &str) -> FsRole {
    match name {
        "image" => FsRole::Image,
        "container" => FsRole::Container,
        _ => FsRole::Node,
    }
}

fn filesystem(capacity: &str, amount: &str, kind: &str) -> Result<Filesystem, String> {
    let capacity = size(capacity)?;
    let amount = size(amount)?;
    Ok(Filesystem::new(capacity, if kind == "used" { capacity - amount } else { amount }))
}

/// `Given a node with a single filesystem` (or `a dedicated image filesystem`, or `an image
/// filesystem split from its container filesystem`).
#[given(
    regex = r"^a node with (a single filesystem|a dedicated image filesystem|an image filesystem split from its container filesystem)$"
)]
fn layout(world: &mut KubeletWorld, which: String) -> StepResult {
    world.node.disks.layout = match which.as_str() {
        "a single filesystem" => DiskLayout::Single,
        "a dedicated image filesystem" => DiskLayout::DedicatedImageFs,
        _ => DiskLayout::SplitImageFs,
    };
    Ok(())
}

/// `Given a node whose image filesystem is 100 GiB with 90 GiB used` (a single filesystem).
#[given(regex = r"^a node whose image filesystem is (.+) with (.+) (used|available)$")]
fn image_fs_node(world: &mut KubeletWorld, capacity: String, amount: String, kind: String) -> StepResult {
    world.node.disks.layout = DiskLayout::Single;
    world.node.disks.nodefs = filesystem(&capacity, &amount, &kind)?;
    Ok(())
}

/// `Given a node whose image filesystem reports no capacity`.
#[given(regex = r"^a node whose image filesystem reports no capacity$")]
fn no_capacity(world: &mut KubeletWorld) -> StepResult {
    world.node.disks.nodefs = Filesystem { capacity: None, available: 0 };
    Ok(())
}

/// `Given the node filesystem is 20 GiB with 16 GiB available` (node, image or container).
#[given(regex = r"^the (node|image|container) filesystem is (.+) with (.+) (used|available)$")]
fn fs_is(world: &mut KubeletWorld, which: String, capacity: String, amount: String, kind: String) -> StepResult {
    *world.node.disks.fs_mut(role(&which)) = filesystem(&capacity, &amount, &kind)?;
    Ok(())
}

/// `When the node filesystem drops to 750Mi available` (also `recovers to`, `has`).
#[given(regex = r"^the (node|image|container) filesystem (?:has|drops to|recovers to) (.+) available$")]
#[when(regex = r"^the (node|image|container) filesystem (?:has|drops to|recovers to) (.+) available$")]
fn fs_available(world: &mut KubeletWorld, which: String, amount: String) -> StepResult {
    world.node.disks.fs_mut(role(&which)).available = size(&amount)?;
    Ok(())
}

/// `Given the image filesystem stats cannot be read` / `can be read again`.
#[given(regex = r"^the image filesystem stats (cannot be read|can be read again)$")]
#[when(regex = r"^the image filesystem stats (cannot be read|can be read again)$")]
fn image_stats(world: &mut KubeletWorld, how: String) -> StepResult {
    world.node.disks.image_stats_error =
        (how == "cannot be read").then(|| "failed to get imageFs stats: unable to find data in memory cache".to_string());
    Ok(())
}

fn image_from_row(row: &std::collections::HashMap<String, String>) -> Result<Image, String> {
    let released = cell(row, "released", "");
    Ok(Image {
        id: cell(row, "image", "").to_string(),
        size: size(cell(row, "size", "0"))?,
        pinned: yes(cell(row, "pinned", "no"))?,
        runtime_handler: cell(row, "runtime handler", "").to_string(),
        released_bytes: if released.is_empty() { None } else { Some(size(released)?) },
    })
}

/// `Given the runtime has images:` with columns `image | size | pinned | runtime handler |
/// released` (all but `image` optional; `released` is what the disk gets back on removal).
#[given(regex = r"^the runtime has images:$")]
fn has_images(world: &mut KubeletWorld, step: &Step) -> StepResult {
    for row in rows(step)? {
        world.node.runtime.images.push(image_from_row(&row)?);
    }
    Ok(())
}

/// `When the runtime's images become:` — the image list is replaced.
#[when(regex = r"^the runtime's images become:$")]
fn images_become(world: &mut KubeletWorld, step: &Step) -> StepResult {
    world.node.runtime.images = rows(step)?.iter().map(image_from_row).collect::<Result<_, _>>()?;
    Ok(())
}

/// `When the runtime lists no images`.
#[when(regex = r"^the runtime lists no images$")]
fn no_images(world: &mut KubeletWorld) -> StepResult {
    world.node.runtime.images.clear();
    Ok(())
}

/// `Given the runtime has an image "a" of 1 GiB` / `When the runtime pulls an image "a" of 1 GiB`
/// (optionally `that is pinned`).
#[given(regex = r#"^the runtime (?:has|pulls) an image "([^"]+)" of (.+?)( that is pinned)?$"#)]
#[when(regex = r#"^the runtime (?:has|pulls) an image "([^"]+)" of (.+?)( that is pinned)?$"#)]
fn one_image(world: &mut KubeletWorld, id: String, bytes: String, pinned: String) -> StepResult {
    let mut image = Image::new(&id, size(&bytes)?);
    image.pinned = !pinned.is_empty();
    world.node.runtime.images.push(image);
    Ok(())
}

fn container_state(text: &str) -> Result<ContainerState, String> {
    match text {
        "created" => Ok(ContainerState::Created),
        "running" => Ok(ContainerState::Running),
        "exited" => Ok(ContainerState::Exited),
        "unknown" => Ok(ContainerState::Unknown),
        other => Err(format!("unknown container state {other:?}")),
    }
}

/// `Given the runtime has containers:` (also `When the runtime starts containers:`) with
/// columns `id | pod | container | image | state | created | attempt | sandbox | runtime
/// handler | size`; only `id` is required (state defaults to exited, created to now). Their
/// pods become known to the pod workers as running unless already known.
#[given(regex = r"^the runtime (?:has|starts) containers:$")]
#[when(regex = r"^the runtime (?:has|starts) containers:$")]
fn has_containers(world: &mut KubeletWorld, step: &Step) -> StepResult {
    for row in rows(step)? {
        let id = cell(&row, "id", "").to_string();
        if id.is_empty() {
            return Err("every container needs an id".into());
        }
        let pod = cell(&row, "pod", "pod").to_string();
        let container = Container {
            name: cell(&row, "container", &id).to_string(),
            pod_uid: pod.clone(),
            attempt: number(cell(&row, "attempt", "0"))?,
            created: instant(cell(&row, "created", "now"), &world.node)?,
            finished: None,
            state: container_state(cell(&row, "state", "exited"))?,
            image_id: cell(&row, "image", "").to_string(),
            image_runtime_handler: cell(&row, "runtime handler", "").to_string(),
            sandbox_id: row.get("sandbox").filter(|s| !s.is_empty()).cloned(),
            size: size(cell(&row, "size", "0"))?,
            image_volumes: Vec::new(),
            id,
        };
        world.node.runtime.containers.push(container);
        world.know_pod(&pod);
    }
    Ok(())
}

/// `When container "c" is removed from the runtime` (outside garbage collection).
#[when(regex = r#"^container "([^"]+)" is removed from the runtime$"#)]
fn container_removed(world: &mut KubeletWorld, id: String) -> StepResult {
    world.remove_from_runtime(&id)
}

/// `When container "c" exits` (now).
#[when(regex = r#"^container "([^"]+)" exits$"#)]
fn container_exits(world: &mut KubeletWorld, id: String) -> StepResult {
    world.exit_container(&id)
}

/// `Given the runtime has sandboxes:` with columns `id | pod | attempt | state | created`.
#[given(regex = r"^the runtime has sandboxes:$")]
fn has_sandboxes(world: &mut KubeletWorld, step: &Step) -> StepResult {
    for row in rows(step)? {
        let pod = cell(&row, "pod", "pod").to_string();
        let sandbox = Sandbox {
            id: cell(&row, "id", "").to_string(),
            pod_uid: pod.clone(),
            attempt: number(cell(&row, "attempt", "0"))?,
            state: match cell(&row, "state", "notready") {
                "ready" => SandboxState::Ready,
                "notready" | "not ready" => SandboxState::NotReady,
                other => return Err(format!("unknown sandbox state {other:?}")),
            },
            created: instant(cell(&row, "created", "now"), &world.node)?,
        };
        world.node.runtime.sandboxes.push(sandbox);
        world.know_pod(&pod);
    }
    Ok(())
}

/// `Given removing image "a" fails` (also stopping or removing a container, or stopping a
/// sandbox).
#[given(regex = r#"^(removing image|stopping container|removing container|stopping sandbox) "([^"]+)" fails$"#)]
fn fault(world: &mut KubeletWorld, what: String, id: String) -> StepResult {
    let faults = &mut world.node.runtime.faults;
    let set = match what.as_str() {
        "removing image" => &mut faults.remove_image,
        "stopping container" => &mut faults.stop_container,
        "removing container" => &mut faults.remove_container,
        _ => &mut faults.stop_sandbox,
    };
    set.insert(id);
    Ok(())
}

/// `Given listing containers fails with "text"`.
#[given(regex = r#"^listing containers fails with "([^"]*)"$"#)]
fn listing_fails(world: &mut KubeletWorld, text: String) -> StepResult {
    world.node.runtime.faults.list_containers = Some(text);
    Ok(())
}

/// `Given pod "foo" has terminated`, `pods "a, b" have been deleted`, `... are running`,
/// `... has been evicted`.
#[given(regex = r#"^pods? "([^"]+)" (?:is|are|has|have) (running|terminated|been deleted|been evicted)$"#)]
#[when(regex = r#"^pods? "([^"]+)" (?:is|are|has|have) (running|terminated|been deleted|been evicted)$"#)]
fn pod_state(world: &mut KubeletWorld, pods: String, how: String) -> StepResult {
    let pod_state = match how.as_str() {
        "running" => PodState::Running,
        "terminated" => PodState::Terminated,
        "been deleted" => PodState::Removed,
        _ => PodState::Evicted,
    };
    for pod in names(&pods) {
        world.node.pods.states.insert(pod, pod_state);
    }
    Ok(())
}

/// `Given pod "x" is unknown to the pod workers`.
#[given(regex = r#"^pods? "([^"]+)" (?:is|are) unknown to the pod workers$"#)]
fn pod_unknown(world: &mut KubeletWorld, pods: String) -> StepResult {
    for pod in names(&pods) {
        world.node.pods.states.remove(&pod);
    }
    Ok(())
}

/// `Given the pod workers have not synced yet` / `When the pod workers have synced`.
#[given(regex = r"^the pod workers have (not synced yet|synced)$")]
#[when(regex = r"^the pod workers have (not synced yet|synced)$")]
fn pod_workers(world: &mut KubeletWorld, how: String) -> StepResult {
    world.node.pods.synced = how == "synced";
    Ok(())
}

/// `Given the kubelet's config sources are not all ready` / `When all config sources are ready`.
#[given(regex = r"^(the kubelet's config sources are not all ready|all config sources are ready)$")]
#[when(regex = r"^(the kubelet's config sources are not all ready|all config sources are ready)$")]
fn sources(world: &mut KubeletWorld, how: String) -> StepResult {
    world.node.sources_ready = how.starts_with("all");
    Ok(())
}

/// `Given the pod logs directory holds "123, 456, name_namespace_321"` (in listing order).
#[given(regex = r#"^the pod logs directory holds "([^"]*)"$"#)]
fn log_dirs(world: &mut KubeletWorld, entries: String) -> StepResult {
    world.node.logs.pod_dirs = names(&entries).into_iter().map(|name| LogDir { name, size: 0 }).collect();
    Ok(())
}

/// `Given the container log symlinks are:` with columns `symlink | target` (exists or missing).
#[given(regex = r"^the container log symlinks are:$")]
fn symlinks(world: &mut KubeletWorld, step: &Step) -> StepResult {
    for row in rows(step)? {
        let target_exists = match cell(&row, "target", "exists") {
            "exists" => true,
            "missing" => false,
            other => return Err(format!("target must be exists or missing, not {other:?}")),
        };
        world.node.logs.symlinks.push(LogSymlink { name: cell(&row, "symlink", "").to_string(), target_exists });
    }
    Ok(())
}

fn configure(world: &mut KubeletWorld, what: &str) -> StepResult {
    world.before_first_use(what)
}

/// `Given image GC thresholds high 85% low 80%`.
#[given(regex = r"^image GC thresholds high (-?\d+)% low (-?\d+)%$")]
fn thresholds(world: &mut KubeletWorld, high: String, low: String) -> StepResult {
    configure(world, "image GC thresholds")?;
    world.config.image_gc_high_threshold_percent = number(&high)?;
    world.config.image_gc_low_threshold_percent = number(&low)?;
    Ok(())
}

/// `Given a minimum image age of 2m` / `a maximum image age of 1h`.
#[given(regex = r"^an? (minimum|maximum) image age of (\S+)$")]
fn image_age(world: &mut KubeletWorld, which: String, age: String) -> StepResult {
    configure(world, "image ages")?;
    let age = duration(&age)?;
    if which == "minimum" {
        world.config.image_minimum_gc_age = age;
    } else {
        world.config.image_maximum_gc_age = age;
    }
    Ok(())
}

/// `Given the feature gate RuntimeClassInImageCriAPI is enabled` (a refusal fails the step).
#[given(regex = r"^the feature gate (\w+) is (enabled|disabled)$")]
fn gate(world: &mut KubeletWorld, name: String, how: String) -> StepResult {
    world.set_gate(&name, how == "enabled")
}

/// `When the feature gate ImageMaximumGCAge is turned off`: the change, or its refusal, is what
/// `it is accepted` and `it is rejected with` then check.
#[when(regex = r"^the feature gate (\w+) is turned (on|off)$")]
fn turn_gate(world: &mut KubeletWorld, name: String, how: String) -> StepResult {
    world.validation = Some(world.set_gate(&name, how == "on"));
    Ok(())
}

/// `Given container GC keeps dead containers for at least 1h, at most 2 per container and 6 on
/// the node` (`unlimited` or a negative number for no limit).
#[given(regex = r"^container GC keeps dead containers for at least (\S+), at most (\S+) per container and (\S+) on the node$")]
fn container_policy(world: &mut KubeletWorld, min_age: String, per_container: String, total: String) -> StepResult {
    configure(world, "the container GC policy")?;
    world.container_policy.min_age = duration(&min_age)?;
    world.container_policy.max_per_pod_container = limit(&per_container)?;
    world.container_policy.max_containers = limit(&total)?;
    Ok(())
}

fn set_field(config: &mut kubegc::kubelet::config::KubeletConfigFile, field: &str, value: &str) -> StepResult {
    match field {
        "imageGCHighThresholdPercent" => config.image_gc_high_threshold_percent = Some(number(value)?),
        "imageGCLowThresholdPercent" => config.image_gc_low_threshold_percent = Some(number(value)?),
        "imageMinimumGCAge" => config.image_minimum_gc_age = Some(duration(value)?),
        "imageMaximumGCAge" => config.image_maximum_gc_age = Some(duration(value)?),
        other => return Err(format!("the model has no configuration field {other}")),
    }
    Ok(())
}

/// `Given the kubelet configuration sets imageGCHighThresholdPercent to 101` (on top of the
/// defaults: the field as it reaches validation).
#[given(regex = r"^the kubelet configuration sets (\w+) to (\S+)$")]
fn config_sets(world: &mut KubeletWorld, field: String, value: String) -> StepResult {
    let mut file = kubegc::kubelet::config::KubeletConfigFile::default();
    set_field(&mut file, &field, &value)?;
    let c = &mut world.config;
    c.image_gc_high_threshold_percent = file.image_gc_high_threshold_percent.unwrap_or(c.image_gc_high_threshold_percent);
    c.image_gc_low_threshold_percent = file.image_gc_low_threshold_percent.unwrap_or(c.image_gc_low_threshold_percent);
    c.image_minimum_gc_age = file.image_minimum_gc_age.unwrap_or(c.image_minimum_gc_age);
    c.image_maximum_gc_age = file.image_maximum_gc_age.unwrap_or(c.image_maximum_gc_age);
    Ok(())
}

/// `Given a kubelet configuration file setting imageMinimumGCAge to 0s`.
#[given(regex = r"^a kubelet configuration file setting (\w+) to (\S+)$")]
fn file_sets(world: &mut KubeletWorld, field: String, value: String) -> StepResult {
    set_field(&mut world.config_file, &field, &value)
}

/// `Given the eviction hard threshold "nodefs.available<1Gi" with minimum reclaim "500Mi"`.
#[given(regex = r#"^the eviction hard threshold "([^"]+)"(?: with minimum reclaim "([^"]+)")?$"#)]
fn eviction_threshold(world: &mut KubeletWorld, expression: String, min_reclaim: String) -> StepResult {
    configure(world, "eviction thresholds")?;
    let mut t = parse_threshold(&expression)?;
    if !min_reclaim.is_empty() {
        t.min_reclaim = Some(ThresholdValue::parse(&min_reclaim)?);
    }
    world.eviction_thresholds.get_or_insert_with(Vec::new).push(t);
    Ok(())
}

/// `Given the kubelet's evictionHard sets "imagefs.available<10%"` (optionally `with
/// mergeDefaultEvictionSettings`).
#[given(regex = r#"^the kubelet's evictionHard sets "([^"]+)"( with mergeDefaultEvictionSettings)?$"#)]
fn eviction_hard(world: &mut KubeletWorld, entries: String, merge: String) -> StepResult {
    configure(world, "evictionHard")?;
    let mut map = std::collections::BTreeMap::new();
    for entry in names(&entries) {
        let (signal, value) = entry.split_once('<').ok_or_else(|| format!("expected signal<value, got {entry:?}"))?;
        map.insert(signal.to_string(), value.to_string());
    }
    world.config.eviction_hard = Some(map);
    world.config.merge_default_eviction_settings = !merge.is_empty();
    Ok(())
}

/// `Given a maximum pod grace period of 5 seconds` (`evictionMaxPodGracePeriod`).
#[given(regex = r"^a maximum pod grace period of (\d+) seconds?$")]
fn max_grace(world: &mut KubeletWorld, seconds: String) -> StepResult {
    configure(world, "evictionMaxPodGracePeriod")?;
    world.max_pod_grace_period_seconds = number(&seconds)?;
    Ok(())
}

/// `Given the pods on the node:` with columns `pod | priority | disk usage | request`
/// (priority low, default, high or a number).
#[given(regex = r"^the pods on the node:$")]
fn eviction_pods(world: &mut KubeletWorld, step: &Step) -> StepResult {
    for row in rows(step)? {
        let priority = match cell(&row, "priority", "default") {
            "low" => -1,
            "default" => 0,
            "high" => 1,
            n => number(n)?,
        };
        let pod = PodUsage {
            name: cell(&row, "pod", "").to_string(),
            priority,
            disk_usage: size(cell(&row, "disk usage", "0"))?,
            ephemeral_storage_request: size(cell(&row, "request", "0"))?,
        };
        world.know_pod(&pod.name);
        world.declared_pods.push(pod);
    }
    Ok(())
}

/// `When pod "p" is recreated` (after an eviction: it is active again, in its declared place
/// among the active pods, as the kubelet lists them to the eviction manager).
#[when(regex = r#"^pod "([^"]+)" is recreated$"#)]
fn recreated(world: &mut KubeletWorld, name: String) -> StepResult {
    let pod = world.declared_pods.iter().find(|p| p.name == name).cloned().ok_or_else(|| format!("no pod {name:?} was declared"))?;
    world.node.pods.states.insert(name, PodState::Running);
    if !world.is_upstream() {
        let declared: Vec<String> = world.declared_pods.iter().map(|p| p.name.clone()).collect();
        let active = &mut world.eviction()?.active_pods;
        active.push(pod);
        active.sort_by_key(|p| declared.iter().position(|name| *name == p.name));
    }
    Ok(())
}
