//! Shrinking a disagreement: one piece of the case at a time (a step, an arrival, a container,
//! a sandbox, a log entry, a pod, a fault, a threshold) is dropped while the two sides still
//! disagree, until no single piece can go.

use std::path::Path;

use kubegc::kubelet::mutant::Mutant;

use super::case::Case;
use super::{Disagreement, compare};

/// How many smaller cases shrinking tries at most (each runs both sides once).
const BUDGET: usize = 400;

/// The smallest disagreeing case reachable from `found` by dropping pieces one at a time.
pub fn shrink(found: Disagreement, driver: &Path, mutant: Option<Mutant>) -> Result<Disagreement, String> {
    let mut best = found;
    let mut tries = 0;
    'smaller: loop {
        for candidate in smaller(&best.case) {
            if tries == BUDGET {
                break 'smaller;
            }
            tries += 1;
            if let Some(d) = compare(&candidate, driver, mutant)? {
                best = d;
                continue 'smaller;
            }
        }
        break;
    }
    Ok(best)
}

/// Adds to `out` a copy of `case` for each element of `items`, with `set` given `items`
/// without that element; the last element first (later pieces matter least).
fn drop_each<T: Clone>(out: &mut Vec<Case>, case: &Case, items: &[T], set: impl Fn(&mut Case, Vec<T>)) {
    for i in (0..items.len()).rev() {
        let mut smaller = case.clone();
        let mut rest = items.to_vec();
        rest.remove(i);
        set(&mut smaller, rest);
        out.push(smaller);
    }
}

/// Every case with one piece of `case` dropped: a step, an arrival, an image, a container, a
/// sandbox, a log entry, a pod, a pod's state, a threshold, the faults, the stats error.
fn smaller(case: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    let (r, logs) = (&case.node.runtime, &case.node.logs);
    drop_each(&mut out, case, &case.steps, |c, v| c.steps = v);
    drop_each(&mut out, case, &case.arrivals, |c, v| c.arrivals = v);
    drop_each(&mut out, case, &r.images, |c, v| c.node.runtime.images = v);
    drop_each(&mut out, case, &r.containers, |c, v| c.node.runtime.containers = v);
    drop_each(&mut out, case, &r.sandboxes, |c, v| c.node.runtime.sandboxes = v);
    drop_each(&mut out, case, &logs.pod_dirs, |c, v| c.node.logs.pod_dirs = v);
    drop_each(&mut out, case, &logs.symlinks, |c, v| c.node.logs.symlinks = v);
    drop_each(&mut out, case, &case.pods, |c, v| c.pods = v);
    let states: Vec<_> = case.node.pods.states.clone().into_iter().collect();
    drop_each(&mut out, case, &states, |c, v| c.node.pods.states = v.into_iter().collect());
    if let Some(thresholds) = &case.eviction_thresholds {
        drop_each(&mut out, case, thresholds, |c, v| c.eviction_thresholds = Some(v));
    }
    if r.faults != Default::default() {
        let mut c = case.clone();
        c.node.runtime.faults = Default::default();
        out.push(c);
    }
    if case.node.disks.image_stats_error.is_some() {
        let mut c = case.clone();
        c.node.disks.image_stats_error = None;
        out.push(c);
    }
    out
}
