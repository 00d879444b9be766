//! The reference garbage collector: an ordinary controller that reaches the API only through a
//! `kube::Client`, so it runs unchanged against the fake apiserver, a kind cluster with
//! kube-controller-manager's collector switched off, or beside another implementation.
//!
//! # Layout (mirroring upstream `pkg/controller/garbagecollector`)
//! - [`graph`]: nodes, owners, dependents, identities, work items (`graph.go`), stored compactly
//!   for large clusters; [`uid`]: object UIDs in 16 bytes.
//! - [`events`]: what the graph is built from: object metadata and what happened to it
//!   (`graph_builder.go`'s `event`).
//! - [`graph_builder`]: events → graph → work (`graph_builder.go`).
//! - [`collector`]: the collector's state and methods: graph changes, queues, monitors kept in
//!   step with discovery, and the attemptToDelete and attemptToOrphan workers' steps
//!   (`garbagecollector.go`).
//! - [`decision`]: the rules the workers decide by, as pure functions (`garbagecollector.go`'s
//!   `attemptToDeleteItem`, `isDangling` and the like).
//! - [`operations`], [`patch`]: API calls and patch bodies (`operations.go`, `patch.go`).
//! - [`monitors`], [`rest_mapper`]: metadata list+watch per resource, and discovery.
//! - [`cache_sync`]: acting only on a graph built from complete initial lists (upstream's
//!   "wait for cache sync", made strict).
//! - [`retry`]: back-off delays and which API failures are worth waiting out.
//! - [`queue`]: de-duplicating, rate-limited work queues.
//! - [`absent_cache`]: owners verified absent.
//! - [`dot`], [`metrics`]: the graph as DOT and counters.
//! - [`config`]: how the collector runs.
//! - [`mutant`]: deliberately broken rules, for judging specifications, and the one seam where
//!   they change the rules' decisions.
//! - [`manual`]: the collector stepped by hand, as upstream's unit tests drive it.
//!
//! This module runs a collector on its own tasks ([`GarbageCollector`], upstream `Run`). No
//! module here imports from it, and none imports from another in a cycle.

pub mod absent_cache;
pub mod cache_sync;
pub mod collector;
pub mod config;
pub mod decision;
pub mod dot;
pub mod events;
pub mod graph;
pub mod graph_builder;
pub mod manual;
pub mod metrics;
pub mod monitors;
pub mod mutant;
pub mod operations;
pub mod patch;
pub mod queue;
pub mod rest_mapper;
pub mod retry;
pub mod uid;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::activity::Activity;
use crate::gc::collector::{Collector, Stage};
pub use crate::gc::config::Config;
pub use crate::gc::manual::ManualCollector;
use crate::gc::monitors::{phase, resource_name};
use crate::gc::queue::Backoff;
use crate::gc::retry::Delays;

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

/// A running garbage collector: a [`Collector`] and the tasks that run it (upstream `Run`:
/// the graph builder, discovery and the workers). Dropping it stops them.
pub struct GarbageCollector {
    collector: Arc<Collector>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for GarbageCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GarbageCollector").field("config", &self.collector.config).finish()
    }
}

impl Drop for GarbageCollector {
    fn drop(&mut self) {
        self.collector.attempt_to_delete.shut_down();
        self.collector.attempt_to_orphan.shut_down();
        for t in &self.tasks {
            t.abort();
        }
        self.collector.monitors.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

impl GarbageCollector {
    /// Starts the collector against `client`: discovery and monitors, the graph builder, and
    /// the workers. Must be called inside a Tokio runtime.
    pub fn start(client: kube::Client, config: Config) -> Self {
        let (graph_tx, mut graph_rx) = mpsc::unbounded_channel();
        let collector = Collector::new(client, config, graph_tx, false);
        let mut tasks = Vec::new();
        let c = collector.clone();
        tasks.push(tokio::spawn(async move {
            while let Some(change) = graph_rx.recv().await {
                for (dependent, owner) in c.apply_graph_change(&change) {
                    c.in_flight.fetch_add(1, Ordering::SeqCst);
                    let c = c.clone();
                    tokio::spawn(async move {
                        c.record_invalid_namespace_event(&dependent, &owner).await;
                        c.in_flight.fetch_sub(1, Ordering::SeqCst);
                        c.activity.raise();
                    });
                }
                c.in_flight.fetch_sub(1, Ordering::SeqCst);
                c.activity.raise();
            }
        }));
        let c = collector.clone();
        tasks.push(tokio::spawn(async move {
            let mut delays = Delays::new(Backoff { base: Duration::from_millis(100), max: c.config.resync_period });
            loop {
                let target = c.resync_requested.load(Ordering::SeqCst);
                if let Err(e) = c.resync_monitors().await {
                    let delay = delays.next_delay();
                    tracing::warn!(error = %e, "waiting for discovery; keeping the current monitors, retrying in {delay:?}");
                    tokio::time::sleep(delay).await;
                    continue;
                }
                c.resync_completed.store(target, Ordering::SeqCst);
                c.sync_changed();
                // Group versions never discovered are asked for again soon, not a period later.
                let wait = if c.undiscovered.lock().unwrap_or_else(|p| p.into_inner()).is_empty() {
                    delays.reset();
                    c.config.resync_period
                } else {
                    delays.next_delay()
                };
                let again = c.resync_requested.load(Ordering::SeqCst) != target;
                if !again {
                    let _ = tokio::time::timeout(wait, c.resync_notify.notified()).await;
                }
            }
        }));
        let c = collector.clone();
        tasks.push(tokio::spawn(async move {
            // Says why foreground deletion and orphaning have stopped, while they are stopped.
            loop {
                tokio::time::sleep(collector::HELD_LONG).await;
                if let Some(waited) = c.held.oldest().filter(|w| *w >= collector::HELD_LONG) {
                    let waiting_for = c.graph_incomplete().join("; ");
                    tracing::warn!(items = c.held.items().len(), %waiting_for, "work held for {waited:?} until the graph is complete");
                }
            }
        }));
        let c = collector.clone();
        tasks.push(tokio::spawn(async move {
            cache_sync::wait_for_initial_sync(&c, c.config.initial_sync_timeout).await;
            c.workers_started.open();
            c.activity.raise();
        }));
        for _ in 0..collector.config.workers.max(1) {
            for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
                let c = collector.clone();
                tasks.push(tokio::spawn(async move {
                    c.workers_started.wait().await;
                    while let Some(item) = c.queue(stage).get().await {
                        c.work_on(stage, &item).await;
                    }
                }));
            }
        }
        Self { collector, tasks }
    }

    /// A collector that does nothing by itself, for stepping through upstream's unit-test
    /// scenarios: see [`ManualCollector`].
    pub fn manual(client: kube::Client, config: Config) -> ManualCollector {
        ManualCollector::new(client, config)
    }

    /// Raised after every step that may leave the collector settled: a graph change applied, a
    /// work item done, a monitor's newer revision, discovery or the graph's completeness
    /// changed, the workers started. [`crate::Cluster::try_settle`] waits for it.
    pub fn activity(&self) -> &Activity {
        &self.collector.activity
    }

    /// The collector (graph, queues, monitors), for inspection.
    pub fn collector(&self) -> &Arc<Collector> {
        &self.collector
    }

    /// Whether the collector is settled relative to the server's `revision` (the
    /// resourceVersion of a fresh list): every monitor has listed and observed it, discovery is
    /// up to date, the workers have started, and nothing is queued, in process, in flight or
    /// held until the graph is complete ([`cache_sync`]). A monitor that cannot list is named
    /// with its last failure, and so is the work that waits for it. On a quiet resource this
    /// waits for a watch bookmark; see [`GarbageCollector::settled_with`].
    pub fn settled(&self, revision: u64) -> Settled {
        self.settled_with(|_, _| revision)
    }

    /// As [`GarbageCollector::settled`], with the revision each monitor must have observed given
    /// per `(group, resource)`: with the fake apiserver, the revision of the resource's last
    /// write ([`crate::apiserver::ApiServer::resource_revision`]), so no bookmark is awaited. A
    /// resource whose revision is 0 (never written, or left out on purpose) does not need its
    /// monitor to have listed.
    pub fn settled_with(&self, revision_of: impl Fn(&str, &str) -> u64) -> Settled {
        let c = &self.collector;
        // Work is checked before and after the monitors: a worker's write lands in the
        // revisions the monitors are compared with only if it happened before that read, and a
        // worker busy in between shows in one of the two work checks.
        let mut pending = self.pending_work();
        if c.resync_pending() {
            pending.push("discovery resync pending".to_string());
        }
        for ((group, resource), m) in c.monitors.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            let observed = m.status.observed.load(Ordering::SeqCst);
            let revision = revision_of(group, resource);
            if m.status.phase.load(Ordering::SeqCst) != phase::SYNCED && revision > 0 {
                let why = m.status.last_error().map(|e| format!(" (last attempt: {e})")).unwrap_or_default();
                pending.push(format!("monitor {} has not listed yet{why}", resource_name(group, resource)));
            } else if observed < revision {
                pending.push(format!("monitor {} at resourceVersion {observed} < {revision}", resource_name(group, resource)));
            }
        }
        let missing = c.graph_incomplete().join("; ");
        if !c.workers_started.is_open() {
            pending.push(format!("workers not started yet: waiting for {missing}"));
        }
        for (stage, w) in c.held.items() {
            pending.push(format!("{}: {} held until the graph is complete: waiting for {missing}", stage.name(), w.identity));
        }
        pending.extend(self.pending_work());
        pending.dedup();
        let settled = pending.is_empty();
        let mut retrying = 0;
        for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
            let (name, q) = (stage.name(), c.queue(stage));
            let graph = c.lock_builder();
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
        let c = &self.collector;
        let mut pending = Vec::new();
        let in_flight = c.in_flight.load(Ordering::SeqCst);
        if in_flight > 0 {
            pending.push(format!("{in_flight} graph changes or events in flight"));
        }
        for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
            let (name, d) = (stage.name(), c.queue(stage).depth());
            if d.ready > 0 || d.processing > 0 {
                pending.push(format!("{name}: {} queued, {} in process", d.ready, d.processing));
            }
        }
        pending
    }

    /// The dependency graph as DOT (all of it, or the part connected to `uids`).
    pub fn graph_dot(&self, uids: &[String]) -> String {
        dot::render(&self.collector.lock_builder().graph, uids)
    }

    /// Whether the graph has a node for `uid` (upstream `GraphHasUID`).
    pub fn graph_has_uid(&self, uid: &str) -> bool {
        self.collector.lock_builder().graph.contains(&uid.into())
    }

    /// The counters in Prometheus text format.
    pub fn metrics_text(&self) -> String {
        self.collector.metrics.render()
    }
}
