//! Whether a collector has caught up with the server, and if not, what it still waits for.

use std::sync::atomic::Ordering;

use super::{Collector, Stage};
use crate::gc::monitors::{phase, resource_name};

/// Whether the collector has caught up, and if not, why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    /// Every monitor has listed and observed the target resourceVersion, discovery is current,
    /// the workers have started, and no work is queued, in process or held until the graph is
    /// complete.
    pub settled: bool,
    /// What is still pending, for failure messages (also lists back-off waits, which do not
    /// count against settling).
    pub pending: Vec<String>,
    /// Work items waiting out a back-off before their next try (they do not count against
    /// settling: a collector that settled with some has nothing to do until they are due).
    pub retrying: usize,
}

impl Collector {
    /// Whether the collector is settled, given the revision each monitor must have observed
    /// per `(group, resource)`: every monitor has listed and observed it, discovery is up to
    /// date, the workers have started, and nothing is queued, in process, in flight or held
    /// until the graph is complete. A resource whose revision is 0 does not need its monitor to
    /// have listed. See [`crate::gc::GarbageCollector::settled_with`].
    pub fn settled_with(&self, revision_of: impl Fn(&str, &str) -> u64) -> Settled {
        // Work is checked before and after the monitors: a worker's write lands in the
        // revisions the monitors are compared with only if it happened before that read, and a
        // worker busy in between shows in one of the two work checks.
        let mut pending = self.pending_work();
        if self.resync_pending() {
            pending.push("discovery resync pending".to_string());
        }
        for ((group, resource), m) in self.monitors.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            let observed = m.status.observed.load(Ordering::SeqCst);
            let revision = revision_of(group, resource);
            if m.status.phase.load(Ordering::SeqCst) != phase::SYNCED && revision > 0 {
                let why = m.status.last_error().map(|e| format!(" (last attempt: {e})")).unwrap_or_default();
                pending.push(format!("monitor {} has not listed yet{why}", resource_name(group, resource)));
            } else if observed < revision {
                pending.push(format!("monitor {} at resourceVersion {observed} < {revision}", resource_name(group, resource)));
            }
        }
        let missing = self.graph_incomplete().join("; ");
        if !self.workers_started.is_open() {
            pending.push(format!("workers not started yet: waiting for {missing}"));
        }
        for (stage, w) in self.held.items() {
            pending.push(format!("{}: {} held until the graph is complete: waiting for {missing}", stage.name(), w.identity));
        }
        pending.extend(self.pending_work());
        pending.dedup();
        let settled = pending.is_empty();
        let mut retrying = 0;
        for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
            let (name, q) = (stage.name(), self.queue(stage));
            let graph = self.lock_builder();
            for w in q.waiting_items() {
                retrying += 1;
                let who = graph.graph.queued_copy(&w).map_or_else(|| w.identity.to_string(), |n| n.identity.to_string());
                pending.push(format!("{name}: {who} waiting to retry (does not hold up settling)"));
            }
        }
        Settled { settled, pending, retrying }
    }

    /// Graph changes in flight and queued or in-process work items.
    fn pending_work(&self) -> Vec<String> {
        let mut pending = Vec::new();
        let in_flight = self.in_flight.load(Ordering::SeqCst);
        if in_flight > 0 {
            pending.push(format!("{in_flight} graph changes or events in flight"));
        }
        for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
            let (name, d) = (stage.name(), self.queue(stage).depth());
            if d.ready > 0 || d.processing > 0 {
                pending.push(format!("{name}: {} queued, {} in process", d.ready, d.processing));
            }
        }
        pending
    }
}
