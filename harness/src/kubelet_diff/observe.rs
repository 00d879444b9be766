//! What can be seen of a node after each step of a case: the whole node (runtime, calls made,
//! disks, logs, events), the image records and metrics, the last action's outcome, the
//! candidates, a validation's verdict, the eviction manager's last pass, the loops, and what a
//! query step read. Two sides agree when every observation is equal, field by field.

use std::collections::BTreeMap;

use crate::kubelet_wire::{self as wire, Record};
use serde_json::{Value, json};

use super::case::{Case, Step};
use crate::world::kubelet::KubeletWorld;
use crate::world::kubelet::actions::Action;

/// One observation: the step's phrase, and what was seen after it (`failure` is a step the
/// side could not carry out at all; what follows it is not observed).
#[derive(Clone, Debug)]
pub struct Observation {
    /// The step, as a scenario reads it.
    pub step: String,
    /// Everything seen after it.
    pub seen: Value,
    /// Why the step could not be carried out, if it could not.
    pub failure: Option<String>,
}

/// Runs `case` in `world` and observes every arrival and step, up to the first that fails.
pub fn trace(case: &Case, mut world: KubeletWorld) -> Vec<Observation> {
    let day = case.node.now();
    let mut trace = Vec::new();
    let arrivals = case.arrivals.iter().map(|(image, at)| (Some(image), Step::Act(Action::Detect { at: *at })));
    for (pull, step) in arrivals.chain(case.steps.iter().map(|s| (None, s.clone()))) {
        if let Some(image) = pull {
            world.node.runtime.images.push(image.clone());
        }
        let read = carry_out(&mut world, &step);
        let failure = read.as_ref().err().cloned();
        let seen = see(&mut world, read.unwrap_or_default());
        let phrase = match pull {
            Some(image) => format!("the runtime pulls {:?} and {}", image.id, step.phrase(day)),
            None => step.phrase(day),
        };
        let failed = failure.is_some();
        trace.push(Observation { step: phrase, seen, failure });
        if failed {
            break;
        }
    }
    trace
}

/// Carries out `step`; what a query or a gate reads is its result.
fn carry_out(world: &mut KubeletWorld, step: &Step) -> Result<Value, String> {
    match step {
        Step::Act(action) => {
            world.perform(action)?;
            if *action == Action::Synchronize {
                return Ok(json!({ "diskPressure": world.disk_pressure()? }));
            }
            Ok(Value::Null)
        }
        Step::Gate(name, on) => Ok(json!({ "gate": world.set_gate(name, *on).err() })),
        Step::Available(role, bytes) => {
            world.node.disks.fs_mut(*role).available = *bytes;
            Ok(Value::Null)
        }
        Step::Exit(id) => world.exit_container(id).map(|()| Value::Null),
        Step::RemoveContainer(id) => {
            // A container garbage collection already removed is simply gone.
            let _ = world.remove_from_runtime(id);
            Ok(Value::Null)
        }
        Step::Unlist(id) => {
            world.node.runtime.images.retain(|i| i.id != *id);
            Ok(Value::Null)
        }
        Step::HardInForce => Ok(json!({ "evictionHard": world.eviction_hard_in_force()? })),
        Step::Reclaims(signal, layout) => {
            let functions = world.reclaim_functions(*signal, *layout)?;
            Ok(json!({ "reclaimFunctions": functions.iter().map(|f| wire::reclaim_fn_name(*f)).collect::<Vec<_>>() }))
        }
    }
}

/// What can be seen of `world` now, with what the step itself read.
fn see(world: &mut KubeletWorld, read: Value) -> Value {
    let records: BTreeMap<String, Record> = world.records().iter().map(|(k, r)| (k.clone(), Record::of(k, r))).collect();
    let candidates: Vec<Record> = world.candidates.iter().map(|c| Record::of(&c.id, &c.record)).collect();
    let sync = world.last_sync.as_ref().map(|s| {
        json!({
            "reclaimedWith": s.reclaimed_with.iter().map(|f| wire::reclaim_fn_name(*f)).collect::<Vec<_>>(),
            "evicted": s.evicted.as_ref().map(|e| json!({ "pod": e.pod, "gracePeriod": e.grace_period_override })),
        })
    });
    let mut node = serde_json::to_value(wire::WireNode::of(&world.node)).unwrap_or_default();
    if let Some(calls) = node.get_mut("calls") {
        *calls = calls_by_object(calls.take());
    }
    for unordered in ["/logs/removed", "/events"] {
        if let Some(Value::Array(items)) = node.pointer_mut(unordered) {
            items.sort_by_key(Value::to_string);
        }
    }
    let outcome = &world.outcome;
    let c = &world.config;
    json!({
        "node": node,
        "records": records,
        "collected": { "age": world.collected("age"), "space": world.collected("space") },
        "postGcHookRuns": world.hook_runs(),
        "outcome": { "action": outcome.action, "error": outcome.error, "freed": outcome.freed },
        "candidates": candidates,
        "validation": world.validation.as_ref().map(|v| v.as_ref().err().cloned().unwrap_or_default()),
        "sync": sync,
        "loops": { "started": world.loops_started(), "imageGcRunning": world.image_gc_loop_running().ok() },
        "config": {
            "imageGCHighThresholdPercent": c.image_gc_high_threshold_percent,
            "imageGCLowThresholdPercent": c.image_gc_low_threshold_percent,
            "imageMinimumGCAge": wire::nanos(c.image_minimum_gc_age),
            "imageMaximumGCAge": wire::nanos(c.image_maximum_gc_age),
        },
        "read": read,
    })
}

/// The runtime calls made, by the object they were made on, in order for each object. The
/// order across objects is not compared, nor that of the log paths removed: upstream's container
/// collector walks its units and its pods' sandboxes by ranging over Go maps
/// (`evictContainers`, `evictSandboxes`, `pkg/kubelet/kuberuntime/kuberuntime_gc.go`), in an
/// order that differs from run to run. Nor is the events' order: the kubelet's GC loops run
/// concurrently, so loops due at the same instant record their events in either order.
fn calls_by_object(calls: Value) -> Value {
    let mut by_object: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for call in calls.as_array().into_iter().flatten() {
        let id = call.get("id").and_then(Value::as_str).unwrap_or_default().to_string();
        by_object.entry(id).or_default().push(call.get("call").cloned().unwrap_or_default());
    }
    json!(by_object)
}

/// The fields where `a` and `b` differ, as `(path, a's value, b's value)`.
pub fn differences(a: &Value, b: &Value) -> Vec<(String, Value, Value)> {
    let mut out = Vec::new();
    walk("", a, b, &mut out);
    out
}

fn walk(path: &str, a: &Value, b: &Value, out: &mut Vec<(String, Value, Value)>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let (u, v) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                walk(&format!("{path}.{k}"), u, v, out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                walk(&format!("{path}[{i}]"), u, v, out);
            }
        }
        _ if a != b => out.push((path.trim_start_matches('.').to_string(), a.clone(), b.clone())),
        _ => {}
    }
}
