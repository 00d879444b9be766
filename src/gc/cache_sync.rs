//! Acting only on a complete graph: upstream's "wait for cache sync", made strict.
//!
//! Upstream `GarbageCollector.Run` (`garbagecollector.go`) starts the graph builder, waits up to
//! an initial sync timeout (kube-controller-manager passes 30 s) for `GraphBuilder.IsSynced`
//! (every monitor's informer `HasSynced`: its initial list handed to the event handlers, which
//! put it on graphChanges), logs "all resource monitors have synced" or "not all resource
//! monitors could be synced, proceeding anyways", and only then starts the attemptToDelete and
//! attemptToOrphan workers. After a later discovery resync it no longer waits (PR #125796): a
//! monitor that cannot list must not stop the collection of everything else.
//!
//! The reference collector mirrors that start, and is stricter in two ways, both for safety:
//!
//! - A monitor counts as synced once its initial list has been **applied to the graph** (the
//!   monitor sends [`GraphChange::Listed`] behind the list's events), not merely queued for the
//!   graph builder: upstream's `HasSynced` leaves a window in which a worker can read a graph
//!   still missing part of a list.
//! - Decisions that read an object's **dependents** from the graph wait, whatever the time, until
//!   the graph is complete (no discovery resync pending and every monitor's initial list
//!   applied): orphaning (the dependents to strip), finishing a foreground deletion (the blocking
//!   dependents left) and deleting an item whose owner waits for its dependents (whether the item
//!   has dependents of its own). Such work is held aside, not retried, and released when the
//!   graph becomes complete; while it waits the settled check names what it waits for. An
//!   incomplete graph at that point once deleted live objects (kubernetes issue 88097): an Orphan
//!   deletion seen before the dependents' list loses its orphan finalizer, and the dependents,
//!   still pointing at the deleted owner, are collected. Decisions made from live GETs of the
//!   item and its owners (the owners are all gone; an owner is solid) need no complete graph and
//!   go ahead after the initial sync timeout as upstream's do.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::gc::events::GraphEvent;
use crate::gc::graph::WorkItem;
use crate::gc::monitors::MonitorStatus;
use crate::gc::{Shared, Stage};

/// One entry of the graphChanges queue.
// Nearly every entry is an event; boxing them to shrink the rare list mark would cost an
// allocation per event.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum GraphChange {
    /// An observed or virtual event for the graph builder.
    Event(GraphEvent),
    /// Every event of a monitor's initial list is ahead of this entry: once it is applied, the
    /// graph holds the whole list.
    Listed(Arc<MonitorStatus>),
}

/// Work held aside until the graph is complete.
#[derive(Debug, Default)]
pub struct Held {
    /// The held items and the queue each goes back to. A std mutex: never held across an await.
    items: Mutex<Vec<(Stage, WorkItem)>>,
}

impl Held {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Stage, WorkItem)>> {
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The held items, oldest first.
    pub fn items(&self) -> Vec<(Stage, WorkItem)> {
        self.lock().clone()
    }
}

/// A resource as logs and messages name it: `configmaps`, `deployments.apps`.
pub fn resource_name(group: &str, resource: &str) -> String {
    if group.is_empty() { resource.to_string() } else { format!("{resource}.{group}") }
}

/// How often the start logs what it still waits for.
const WAIT_LOG_INTERVAL: Duration = Duration::from_secs(5);

impl Shared {
    /// What the graph still lacks, empty when it is complete: `discovery` while a discovery
    /// resync is pending, `discovery of <group/version>` for each group version that has never
    /// been discovered because its discovery fails, and `the initial list of <resource>` (with
    /// the last failure) for each monitor whose initial list is not in the graph yet.
    pub fn graph_incomplete(&self) -> Vec<String> {
        let mut missing = Vec::new();
        if self.resync_pending() {
            missing.push("discovery".to_string());
        }
        let undiscovered = self.undiscovered.lock().unwrap_or_else(|p| p.into_inner());
        missing.extend(undiscovered.iter().map(|(gv, e)| format!("discovery of {gv} (last attempt: {e})")));
        drop(undiscovered);
        let monitors = self.monitors.lock().unwrap_or_else(|p| p.into_inner());
        let mut lists: Vec<String> = monitors
            .iter()
            .filter(|(_, m)| !m.status.in_graph.load(Ordering::SeqCst))
            .map(|((group, resource), m)| match m.status.last_error() {
                Some(e) => format!("the initial list of {} (last attempt: {e})", resource_name(group, resource)),
                None => format!("the initial list of {}", resource_name(group, resource)),
            })
            .collect();
        lists.sort();
        missing.extend(lists);
        missing
    }

    /// Whether the start's wait is over: discovery has run, there are monitors, and every one
    /// has its initial list in the graph (upstream `IsSynced`, made strict as the module says).
    fn initially_synced(&self) -> bool {
        !self.monitors.lock().unwrap_or_else(|p| p.into_inner()).is_empty() && self.graph_incomplete().is_empty()
    }

    /// Holds `item` of `stage` aside until the graph is complete, or puts it straight back on
    /// its queue if the graph has become complete meanwhile.
    pub(crate) fn hold(&self, stage: Stage, item: WorkItem) {
        let mut held = self.held.lock();
        if self.graph_incomplete().is_empty() {
            drop(held);
            self.queue(stage).add(item);
        } else if !held.iter().any(|(s, w)| *s == stage && *w == item) {
            held.push((stage, item));
        }
    }

    /// Called whenever the graph may have become complete (a list applied, discovery done,
    /// the monitors changed): wakes the start's wait and releases the held work if so.
    pub(crate) fn sync_changed(&self) {
        self.sync_notify.notify_waiters();
        if !self.graph_incomplete().is_empty() {
            return;
        }
        let released = std::mem::take(&mut *self.held.lock());
        for (stage, item) in released {
            self.queue(stage).add(item);
        }
    }
}

/// The start's wait (upstream `Run` before its workers): returns once every monitor's initial
/// list is in the graph, or after `timeout`, logging which and, meanwhile, what it waits for.
pub async fn wait_for_initial_sync(shared: &Shared, timeout: Duration) {
    tracing::info!("waiting for discovery and every resource monitor's initial list before collecting garbage");
    let deadline = tokio::time::Instant::now() + timeout;
    let mut next_log = tokio::time::Instant::now() + WAIT_LOG_INTERVAL;
    loop {
        let notified = shared.sync_notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if shared.initially_synced() {
            tracing::info!("all resource monitors have synced; collecting garbage");
            return;
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            tracing::warn!(
                waiting_for = %shared.graph_incomplete().join("; "),
                "not all resource monitors could be synced, proceeding anyways; orphaning and foreground deletions still wait for them"
            );
            return;
        }
        if now >= next_log {
            tracing::warn!(waiting_for = %shared.graph_incomplete().join("; "), "still waiting before collecting garbage");
            next_log = now + WAIT_LOG_INTERVAL;
        }
        let _ = tokio::time::timeout_at(deadline.min(next_log), notified).await;
    }
}
