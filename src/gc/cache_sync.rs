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
//!   monitor sends [`GraphChange::Listed`](crate::gc::monitors::GraphChange::Listed) behind the
//!   list's events), not merely queued for the graph builder: upstream's `HasSynced` leaves a
//!   window in which a worker can read a graph still missing part of a list.
//! - Decisions that read an object's **dependents** from the graph wait, whatever the time, until
//!   the graph is complete (no discovery resync pending and every monitor's initial list
//!   applied): orphaning (the dependents to strip), finishing a foreground deletion (the blocking
//!   dependents left) and deleting an item whose owner waits for its dependents (whether the item
//!   has dependents of its own). Such work is held aside, not retried, and released when the
//!   graph becomes complete; while it waits the settled check names what it waits for, and once it
//!   has waited [`HELD_LONG`](crate::gc::collector::HELD_LONG) a warning does, every such period. An
//!   incomplete graph at that point once deleted live objects (kubernetes issue 88097): an Orphan
//!   deletion seen before the dependents' list loses its orphan finalizer, and the dependents,
//!   still pointing at the deleted owner, are collected. Decisions made from live GETs of the
//!   item and its owners (the owners are all gone; an owner is solid) need no complete graph and
//!   go ahead after the initial sync timeout as upstream's do.
//!
//! This module is the start's wait; the collector itself holds the work that needs a complete
//! graph ([`Collector::graph_incomplete`], [`Collector::held`]).

use std::time::Duration;

use crate::gc::collector::Collector;

/// How often the start logs what it still waits for.
const WAIT_LOG_INTERVAL: Duration = Duration::from_secs(5);

/// Whether the start's wait is over: discovery has run, there are monitors, and every one has
/// its initial list in the graph (upstream `IsSynced`, made strict as the module says).
fn initially_synced(collector: &Collector) -> bool {
    !collector.monitors.lock().unwrap_or_else(|p| p.into_inner()).is_empty() && collector.graph_incomplete().is_empty()
}

/// The start's wait (upstream `Run` before its workers): returns once every monitor's initial
/// list is in the graph, or after `timeout`, logging which and, meanwhile, what it waits for.
pub async fn wait_for_initial_sync(collector: &Collector, timeout: Duration) {
    tracing::info!("waiting for discovery and every resource monitor's initial list before collecting garbage");
    let deadline = tokio::time::Instant::now() + timeout;
    let mut next_log = tokio::time::Instant::now() + WAIT_LOG_INTERVAL;
    loop {
        let notified = collector.sync_notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if initially_synced(collector) {
            tracing::info!("all resource monitors have synced; collecting garbage");
            return;
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            tracing::warn!(
                waiting_for = %collector.graph_incomplete().join("; "),
                "not all resource monitors could be synced, proceeding anyways; orphaning and foreground deletions still wait for them"
            );
            return;
        }
        if now >= next_log {
            tracing::warn!(waiting_for = %collector.graph_incomplete().join("; "), "still waiting before collecting garbage");
            next_log = now + WAIT_LOG_INTERVAL;
        }
        let _ = tokio::time::timeout_at(deadline.min(next_log), notified).await;
    }
}
