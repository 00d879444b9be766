//! Then steps: what the kubelet did — the last action's result and the images it removed, the
//! image records, the runtime's images, containers and sandboxes, the filesystems, the log
//! paths removed, the events, the eviction manager's decisions, and validation results.

use cucumber::gherkin::Step;
use cucumber::then;
use kubegc::kubelet::disks::{DiskLayout, FsRole};
use kubegc::kubelet::events::EventType;
use kubegc::kubelet::eviction::reclaim::ReclaimFn;
use kubegc::kubelet::eviction::thresholds::Signal;
use kubegc::kubelet::quantity::format_bytes;
use kubegc::kubelet::runtime::RuntimeCall;

use super::parse::{cell, instant, names, number, rows, show, size, yes};
use crate::world::StepResult;
use crate::world::kubelet::KubeletWorld;

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Passes when `actual` holds exactly the names in `list` (in any order).
fn exactly(what: &str, actual: Vec<String>, list: &str) -> StepResult {
    if sorted(actual.clone()) == sorted(names(list)) { Ok(()) } else { Err(format!("{what} are {actual:?}")) }
}

/// `Then image garbage collection succeeds` (the subject must name the last action, or be `it`).
#[then(
    regex = r"^(it|image garbage collection|container garbage collection|deleting unused images|freeing space|freeing old images) succeeds$"
)]
fn succeeds(world: &mut KubeletWorld, subject: String) -> StepResult {
    check_subject(&subject, world.outcome.action)?;
    match &world.outcome.error {
        None => Ok(()),
        Some(e) => Err(format!("{} failed: {e}", world.outcome.action)),
    }
}

/// `Then image garbage collection fails with "text"` (exactly that text).
#[then(
    regex = r#"^(it|image garbage collection|container garbage collection|deleting unused images|freeing space|freeing old images) fails with "(.*)"$"#
)]
fn fails_with(world: &mut KubeletWorld, subject: String, text: String) -> StepResult {
    check_subject(&subject, world.outcome.action)?;
    match &world.outcome.error {
        Some(e) if *e == text => Ok(()),
        Some(e) => Err(format!("{} failed with\n  {e}\nnot\n  {text}", world.outcome.action)),
        None => Err(format!("{} succeeded; expected it to fail with {text:?}", world.outcome.action)),
    }
}

fn check_subject(subject: &str, action: &str) -> StepResult {
    if subject == "it" || subject == action { Ok(()) } else { Err(format!("the last action was {action}, not {subject}")) }
}

/// `Then images a and b are removed and 12 GiB is freed` (`only image a is removed`, the size
/// part optional): exactly these images went in the last action, and their reported sizes add
/// up to the amount.
#[then(regex = r"^(?:only )?images? (.+?) (?:is|are) removed(?: and (.+) (?:is|are) freed)?$")]
fn images_removed(world: &mut KubeletWorld, list: String, freed: String) -> StepResult {
    let removed: Vec<String> = world.outcome.removed_images.iter().map(|i| i.id.clone()).collect();
    if sorted(removed.clone()) != sorted(names(&list)) {
        return Err(format!("{} removed {removed:?}, not {:?}", world.outcome.action, names(&list)));
    }
    if !freed.is_empty() {
        let expected = size(&freed)?;
        let actual = world.outcome.freed.unwrap_or_else(|| world.outcome.removed_images.iter().map(|i| i.size).sum());
        if actual != expected {
            return Err(format!("{} freed {}, not {}", world.outcome.action, format_bytes(actual), format_bytes(expected)));
        }
    }
    Ok(())
}

/// `Then one of the images "a, b" is removed and 1 GiB is freed`: exactly one image went in
/// the last action, any of those named (for orders upstream leaves undefined).
#[then(regex = r#"^one of the images "([^"]+)" is removed and (.+) (?:is|are) freed$"#)]
fn one_of_removed(world: &mut KubeletWorld, list: String, freed: String) -> StepResult {
    let removed: Vec<String> = world.outcome.removed_images.iter().map(|i| i.id.clone()).collect();
    match removed.as_slice() {
        [one] if names(&list).contains(one) => images_removed(world, one.clone(), freed),
        _ => Err(format!("{} removed {removed:?}, not one of {:?}", world.outcome.action, names(&list))),
    }
}

/// `Then no image is removed`.
#[then(regex = r"^no image is removed$")]
fn none_removed(world: &mut KubeletWorld) -> StepResult {
    match world.outcome.removed_images.as_slice() {
        [] => Ok(()),
        r => Err(format!("{} removed {:?}", world.outcome.action, r.iter().map(|i| &i.id).collect::<Vec<_>>())),
    }
}

/// `Then 1024 bytes are freed` (what `freeSpace` reported, or the removed images' sizes).
#[then(regex = r"^([\d.]+ ?[A-Za-z]*) (?:is|are) freed$")]
fn freed(world: &mut KubeletWorld, amount: String) -> StepResult {
    let expected = size(&amount)?;
    let actual = world.outcome.freed.unwrap_or_else(|| world.outcome.removed_images.iter().map(|i| i.size).sum());
    if actual == expected {
        Ok(())
    } else {
        Err(format!("{} freed {}, not {}", world.outcome.action, format_bytes(actual), format_bytes(expected)))
    }
}

/// `Then the image records are:` with column `record` and any of `first detected | last used
/// | size | pinned | runtime handler` (`never` is the zero time); no other records exist.
#[then(regex = r"^the image records are:$")]
fn records(world: &mut KubeletWorld, step: &Step) -> StepResult {
    let records = world.records();
    let expected = rows(step)?;
    let keys: Vec<String> = expected.iter().map(|r| cell(r, "record", "").to_string()).collect();
    if sorted(keys.clone()) != sorted(records.keys().cloned().collect()) {
        return Err(format!("records are {:?}, not {keys:?}", records.keys().collect::<Vec<_>>()));
    }
    for row in &expected {
        let key = cell(row, "record", "");
        let r = &records[key];
        for (column, value) in row {
            let ok = match column.as_str() {
                "record" => true,
                "first detected" => r.first_detected == instant(value, &world.node)?,
                "last used" => {
                    r.last_used == if value == "never" { kubegc::kubelet::time::zero_time() } else { instant(value, &world.node)? }
                }
                "size" => r.size == size(value)?,
                "pinned" => r.pinned == yes(value)?,
                "runtime handler" => r.runtime_handler == *value,
                other => return Err(format!("unknown column {other:?}")),
            };
            if !ok {
                return Err(format!(
                    "record {key}: {column} should be {value}; the record is first detected {}, last used {}, size {}, pinned {}, handler {:?}",
                    show(r.first_detected, &world.node),
                    show(r.last_used, &world.node),
                    r.size,
                    r.pinned,
                    r.runtime_handler
                ));
            }
        }
    }
    Ok(())
}

/// `Then there are no image records`.
#[then(regex = r"^there are no image records$")]
fn no_records(world: &mut KubeletWorld) -> StepResult {
    let keys: Vec<String> = world.records().into_keys().collect();
    if keys.is_empty() { Ok(()) } else { Err(format!("records remain: {keys:?}")) }
}

/// `Then the runtime has images "a, b"` (exactly; `""` or `the runtime has no images` for none).
#[then(regex = r#"^the runtime has images "([^"]*)"$"#)]
fn runtime_images(world: &mut KubeletWorld, list: String) -> StepResult {
    exactly("the runtime's images", world.node.runtime.images.iter().map(|i| i.id.clone()).collect(), &list)
}

/// `Then the runtime has no images`.
#[then(regex = r"^the runtime has no images$")]
fn runtime_no_images(world: &mut KubeletWorld) -> StepResult {
    runtime_images(world, String::new())
}

/// `Then the runtime lists 1 image` (counting duplicate entries).
#[then(regex = r"^the runtime lists (\d+) images?$")]
fn runtime_lists(world: &mut KubeletWorld, n: String) -> StepResult {
    let n: usize = number(&n)?;
    let len = world.node.runtime.images.len();
    if len == n { Ok(()) } else { Err(format!("the runtime lists {len} images: {:?}", world.node.runtime.images)) }
}

/// `Then the candidates left are "image-0"` (after listing candidates or freeing old images).
#[then(regex = r#"^the candidates left are "([^"]*)"$"#)]
fn candidates(world: &mut KubeletWorld, list: String) -> StepResult {
    let actual: Vec<String> = world.candidates.iter().map(|c| c.id.clone()).collect();
    if actual == names(&list) { Ok(()) } else { Err(format!("the candidates are {actual:?}")) }
}

/// `Then the remaining containers are "0, 1"` (exactly).
#[then(regex = r#"^the remaining containers are "([^"]*)"$"#)]
fn remaining_containers(world: &mut KubeletWorld, list: String) -> StepResult {
    exactly("the remaining containers", world.node.runtime.containers.iter().map(|c| c.id.clone()).collect(), &list)
}

/// `Then no containers remain`.
#[then(regex = r"^no containers remain$")]
fn no_containers(world: &mut KubeletWorld) -> StepResult {
    remaining_containers(world, String::new())
}

/// `Then the remaining sandboxes are "s0"` (exactly).
#[then(regex = r#"^the remaining sandboxes are "([^"]*)"$"#)]
fn remaining_sandboxes(world: &mut KubeletWorld, list: String) -> StepResult {
    exactly("the remaining sandboxes", world.node.runtime.sandboxes.iter().map(|s| s.id.clone()).collect(), &list)
}

/// `Then no sandboxes remain`.
#[then(regex = r"^no sandboxes remain$")]
fn no_sandboxes(world: &mut KubeletWorld) -> StepResult {
    remaining_sandboxes(world, String::new())
}

/// `Then the runtime was asked to stop container "c" before removing it`.
#[then(regex = r#"^the runtime was asked to stop container "([^"]+)" before removing it$"#)]
fn stopped_first(world: &mut KubeletWorld, id: String) -> StepResult {
    let calls = &world.node.runtime.calls;
    let stop = calls.iter().position(|c| *c == RuntimeCall::StopContainer(id.clone()));
    let remove = calls.iter().position(|c| *c == RuntimeCall::RemoveContainer(id.clone()));
    match (stop, remove) {
        (Some(s), Some(r)) if s < r => Ok(()),
        _ => Err(format!("runtime calls were {calls:?}")),
    }
}

/// `Then the removed log paths are "/var/log/pods/789, ..."` (in order).
#[then(regex = r#"^the removed log paths are "([^"]*)"$"#)]
fn removed_logs(world: &mut KubeletWorld, list: String) -> StepResult {
    if world.node.logs.removed == names(&list) { Ok(()) } else { Err(format!("removed log paths are {:?}", world.node.logs.removed)) }
}

/// `Then no log paths are removed`.
#[then(regex = r"^no log paths are removed$")]
fn no_logs_removed(world: &mut KubeletWorld) -> StepResult {
    removed_logs(world, String::new())
}

/// `Then the image filesystem has 12 GiB available`.
#[then(regex = r"^the (node|image|container) filesystem has (.+) available$")]
fn fs_has(world: &mut KubeletWorld, which: String, amount: String) -> StepResult {
    let role = match which.as_str() {
        "image" => FsRole::Image,
        "container" => FsRole::Container,
        _ => FsRole::Node,
    };
    let available = world.node.disks.fs(role).available;
    let expected = size(&amount)?;
    if available == expected { Ok(()) } else { Err(format!("the {which} filesystem has {} available", format_bytes(available))) }
}

/// `Then a Warning event FreeDiskSpaceFailed is recorded on the node with message "text"`.
#[then(regex = r#"^a (Warning|Normal) event (\S+) is recorded on (?:the node|pod "([^"]+)") with message "(.*)"$"#)]
fn event_recorded(world: &mut KubeletWorld, kind: String, reason: String, pod: String, message: String) -> StepResult {
    let object = if pod.is_empty() { "Node".to_string() } else { format!("Pod/{pod}") };
    let kind = if kind == "Warning" { EventType::Warning } else { EventType::Normal };
    if world.node.events.iter().any(|e| e.event_type == kind && e.reason == reason && e.object == object && e.message == message) {
        Ok(())
    } else {
        Err(format!("no such event; events: {:#?}", world.node.events.iter().map(ToString::to_string).collect::<Vec<_>>()))
    }
}

/// `Then no ImageGCFailed event is recorded` / `Then 1 ImageGCFailed event is recorded`.
#[then(regex = r"^(no|\d+) (\S+) events? (?:is|are) recorded$")]
fn event_count(world: &mut KubeletWorld, count: String, reason: String) -> StepResult {
    let expected: usize = if count == "no" { 0 } else { number(&count)? };
    let actual = world.node.events.iter().filter(|e| e.reason == reason).count();
    if actual == expected { Ok(()) } else { Err(format!("{actual} {reason} events: {:#?}", world.node.events)) }
}

/// `Then image garbage collection is not running` (or `is running`).
#[then(regex = r"^image garbage collection is (not running|running)$")]
fn image_gc_running(world: &mut KubeletWorld, how: String) -> StepResult {
    let running = world.image_gc_loop_running()?;
    if running == (how == "running") {
        Ok(())
    } else {
        Err(format!("image garbage collection is {}running", if running { "" } else { "not " }))
    }
}

/// `Then 1 image was collected for reason age` (`image_garbage_collected_total`).
#[then(regex = r"^(\d+) images? (?:was|were) collected for reason (age|space)$")]
fn collected(world: &mut KubeletWorld, n: String, reason: String) -> StepResult {
    let n: u64 = number(&n)?;
    let actual = world.collected(&reason);
    if actual == n { Ok(()) } else { Err(format!("{actual} images were collected for reason {reason}")) }
}

/// `Then the post-GC hooks ran 1 time`.
#[then(regex = r"^the post-GC hooks ran (\d+) times?$")]
fn hooks(world: &mut KubeletWorld, n: String) -> StepResult {
    let n: usize = number(&n)?;
    let actual = world.hook_runs();
    if actual == n { Ok(()) } else { Err(format!("the post-GC hooks ran {actual} times")) }
}

/// `Then it is accepted` (the last validation).
#[then(regex = r"^it is accepted$")]
fn accepted(world: &mut KubeletWorld) -> StepResult {
    match &world.validation {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(format!("it was rejected: {e}")),
        None => Err("nothing was validated".into()),
    }
}

/// `Then it is rejected with "text"` (exactly) or `with an error containing "text"`.
#[then(regex = r#"^it is rejected with (an error containing )?"(.*)"$"#)]
fn rejected(world: &mut KubeletWorld, containing: String, text: String) -> StepResult {
    match &world.validation {
        Some(Err(e)) if *e == text || (!containing.is_empty() && e.contains(&text)) => Ok(()),
        Some(Err(e)) => Err(format!("it was rejected with\n  {e}\nnot\n  {text}")),
        Some(Ok(())) => Err(format!("it was accepted; expected {text:?}")),
        None => Err("nothing was validated".into()),
    }
}

/// `Then the kubelet configuration has imageMinimumGCAge 2m0s`.
#[then(regex = r"^the kubelet configuration has (\w+) (\S+)$")]
fn config_has(world: &mut KubeletWorld, field: String, value: String) -> StepResult {
    let c = &world.config;
    let actual = match field.as_str() {
        "imageGCHighThresholdPercent" => c.image_gc_high_threshold_percent.to_string(),
        "imageGCLowThresholdPercent" => c.image_gc_low_threshold_percent.to_string(),
        "imageMinimumGCAge" => kubegc::kubelet::time::format_duration(c.image_minimum_gc_age),
        "imageMaximumGCAge" => kubegc::kubelet::time::format_duration(c.image_maximum_gc_age),
        other => return Err(format!("the model has no configuration field {other}")),
    };
    if actual == value { Ok(()) } else { Err(format!("{field} is {actual}")) }
}

/// `Then the node reports DiskPressure` / `does not report DiskPressure`.
#[then(regex = r"^the node (reports|does not report) DiskPressure$")]
fn disk_pressure(world: &mut KubeletWorld, how: String) -> StepResult {
    let pressure = world.disk_pressure()?;
    if pressure == (how == "reports") {
        Ok(())
    } else {
        Err(format!("the node {} DiskPressure", if pressure { "reports" } else { "does not report" }))
    }
}

fn describe(functions: &[ReclaimFn]) -> String {
    match functions {
        [] => "nothing".into(),
        [ReclaimFn::DeleteAllUnusedContainers] => "container GC only".into(),
        [ReclaimFn::DeleteUnusedImages] => "image GC only".into(),
        [ReclaimFn::DeleteAllUnusedContainers, ReclaimFn::DeleteUnusedImages] => "container GC, then image GC".into(),
        other => format!("{other:?}"),
    }
}

/// `Then the eviction manager reclaimed with container GC, then image GC` (or `container GC
/// only`, `image GC only`); `Then no node-level reclaim ran`.
#[then(
    regex = r"^(?:the eviction manager reclaimed with (container GC, then image GC|container GC only|image GC only)|no node-level reclaim ran)$"
)]
fn reclaimed(world: &mut KubeletWorld, expected: String) -> StepResult {
    let ran = world.last_sync.as_ref().map(|s| describe(&s.reclaimed_with)).unwrap_or_else(|| "nothing".into());
    let expected = if expected.is_empty() { "nothing".to_string() } else { expected };
    if ran == expected { Ok(()) } else { Err(format!("the eviction manager reclaimed with {ran}")) }
}

/// `Then pod "p" is evicted with a grace period of 1 second`.
#[then(regex = r#"^pod "([^"]+)" is evicted with a grace period of (\d+) seconds?$"#)]
fn evicted(world: &mut KubeletWorld, pod: String, grace: String) -> StepResult {
    let grace: i64 = number(&grace)?;
    match world.last_sync.as_ref().and_then(|s| s.evicted.as_ref()) {
        Some(e) if e.pod == pod && e.grace_period_override == grace => Ok(()),
        Some(e) => Err(format!("pod {:?} was evicted with a grace period of {}", e.pod, e.grace_period_override)),
        None => Err("no pod was evicted".into()),
    }
}

/// `Then no pod is evicted`.
#[then(regex = r"^no pod is evicted$")]
fn none_evicted(world: &mut KubeletWorld) -> StepResult {
    match world.last_sync.as_ref().and_then(|s| s.evicted.as_ref()) {
        None => Ok(()),
        Some(e) => Err(format!("pod {:?} was evicted", e.pod)),
    }
}

fn layout(text: &str) -> Result<DiskLayout, String> {
    match text {
        "a single filesystem" => Ok(DiskLayout::Single),
        "a dedicated image filesystem" => Ok(DiskLayout::DedicatedImageFs),
        "a split image filesystem" => Ok(DiskLayout::SplitImageFs),
        other => Err(format!("unknown layout {other:?}")),
    }
}

/// `Then the reclaim functions are:` with columns `signal | layout | functions` (layout `a
/// single filesystem`, `a dedicated image filesystem` or `a split image filesystem`; functions
/// `container GC, then image GC`, `container GC only`, `image GC only` or `nothing`).
#[then(regex = r"^the reclaim functions are:$")]
fn reclaim_table(world: &mut KubeletWorld, step: &Step) -> StepResult {
    let mut wrong = Vec::new();
    for row in rows(step)? {
        let (signal, on, expected) = (cell(&row, "signal", ""), cell(&row, "layout", ""), cell(&row, "functions", ""));
        let (signal, on_layout) = (Signal::parse(signal)?, layout(on)?);
        let functions = world.reclaim_functions(signal, on_layout)?;
        let actual = describe(&functions);
        if actual != expected {
            wrong.push(format!("{signal} on {on} reclaims with {actual}, not {expected}"));
        }
    }
    if wrong.is_empty() { Ok(()) } else { Err(wrong.join("\n")) }
}

/// `Then the eviction hard thresholds in force are "imagefs.available<10%"`.
#[then(regex = r#"^the eviction hard thresholds in force are "([^"]*)"$"#)]
fn hard_in_force(world: &mut KubeletWorld, list: String) -> StepResult {
    let map = world.eviction_hard_in_force()?;
    exactly("the thresholds in force", map.iter().map(|(k, v)| format!("{k}<{v}")).collect(), &list)
}
