//! The reference garbage collector: an ordinary controller that reaches the API only through a
//! `kube::Client`, so it runs unchanged against the fake apiserver, a kind cluster with
//! kube-controller-manager's collector switched off, or beside another implementation.
//!
//! # Layout (mirroring upstream `pkg/controller/garbagecollector`)
//! - [`graph`]: nodes, owners, dependents, identities (`graph.go`).
//! - [`graph_builder`]: events → graph → work (`graph_builder.go`, catalogue A.3-A.4).
//! - [`collector`]: the attemptToDelete and attemptToOrphan workers and their decisions
//!   (`garbagecollector.go`, A.5-A.9).
//! - [`operations`], [`patch`]: API calls and patch bodies (`operations.go`, `patch.go`).
//! - [`monitors`], [`rest_mapper`]: discovery and metadata list+watch per resource.
//! - [`queue`]: de-duplicating, rate-limited work queues.
//! - [`absent_cache`]: owners verified absent.
//! - [`dot`], [`metrics`]: the graph as DOT and counters.
//! - [`mutant`]: deliberately broken rules, for judging specifications.
//! - [`manual`]: the collector stepped by hand, as upstream's unit tests drive it.

pub mod absent_cache;
pub mod collector;
pub mod dot;
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

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};

use crate::gc::graph::{Identity, OwnerRef};
use crate::gc::graph_builder::{Effect, GraphBuilder, GraphEvent, WorkItem};
pub use crate::gc::manual::ManualCollector;
use crate::gc::metrics::Metrics;
use crate::gc::monitors::{Monitor, phase};
use crate::gc::queue::{Backoff, WorkQueue};
use crate::gc::rest_mapper::RestMapper;

/// How the collector runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Workers for each of attemptToDelete and attemptToOrphan (kube-controller-manager: 20).
    pub workers: usize,
    /// How often discovery is re-run to pick up new or removed resources (upstream: 30 s).
    pub resync_period: Duration,
    /// `(group, resource)` pairs never monitored; by default both kinds of events.
    pub ignored: Vec<(String, String)>,
    /// Size of the absent-owner cache (upstream: 500).
    pub absent_cache_capacity: usize,
    /// Back-off for retried work items.
    pub backoff: Backoff,
    /// A deliberately broken rule, to check that a specification catches it; `None` in any real use.
    pub mutant: Option<mutant::Mutant>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            workers: 20,
            resync_period: Duration::from_secs(30),
            ignored: vec![(String::new(), "events".into()), ("events.k8s.io".into(), "events".into())],
            absent_cache_capacity: absent_cache::DEFAULT_CAPACITY,
            backoff: Backoff::default(),
            mutant: None,
        }
    }
}

/// The collector's two kinds of work, each with its queue and workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Verify owners and delete, or strip dangling references (upstream `attemptToDelete`).
    AttemptToDelete,
    /// Orphan an owner's dependents (upstream `attemptToOrphan`).
    AttemptToOrphan,
}

/// State shared by the collector's tasks.
pub struct Shared {
    /// The API client: the collector's only way to the cluster.
    pub client: kube::Client,
    /// The configuration.
    pub config: Config,
    /// The latest discovery.
    pub mapper: RwLock<RestMapper>,
    /// The graph and the absent-owner cache. A std mutex: never held across an await.
    builder: Mutex<GraphBuilder>,
    /// The attemptToDelete queue.
    pub attempt_to_delete: WorkQueue<WorkItem>,
    /// The attemptToOrphan queue.
    pub attempt_to_orphan: WorkQueue<WorkItem>,
    /// The graphChanges queue.
    graph_tx: mpsc::UnboundedSender<GraphEvent>,
    /// Graph events sent but not yet applied, and events being recorded.
    in_flight: AtomicUsize,
    /// Running monitors by `(group, resource)`.
    pub monitors: Mutex<HashMap<(String, String), Monitor>>,
    resync_requested: AtomicU64,
    resync_completed: AtomicU64,
    resync_notify: Notify,
    /// Counters.
    pub metrics: Metrics,
}

impl Shared {
    /// Locks the graph builder.
    pub fn lock_builder(&self) -> MutexGuard<'_, GraphBuilder> {
        self.builder.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a graph change.
    pub fn send_graph_event(&self, event: GraphEvent) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        if self.graph_tx.send(event).is_err() {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Asks for a discovery resync soon (a CustomResourceDefinition changed).
    pub fn request_resync(&self) {
        self.resync_requested.fetch_add(1, Ordering::SeqCst);
        self.resync_notify.notify_one();
    }

    /// A collector's state over `client`; `graph_tx` feeds its graphChanges queue. With
    /// `synchronous_queues`, retried work is re-queued at once instead of after a back-off (the
    /// manual mode's queues).
    fn new(client: kube::Client, config: Config, graph_tx: mpsc::UnboundedSender<GraphEvent>, synchronous_queues: bool) -> Arc<Self> {
        let queue = || if synchronous_queues { WorkQueue::synchronous() } else { WorkQueue::new(config.backoff) };
        Arc::new(Shared {
            client,
            builder: Mutex::new(GraphBuilder::new(config.absent_cache_capacity)),
            attempt_to_delete: queue(),
            attempt_to_orphan: queue(),
            mapper: RwLock::new(RestMapper::default()),
            graph_tx,
            in_flight: AtomicUsize::new(0),
            monitors: Mutex::new(HashMap::new()),
            resync_requested: AtomicU64::new(1),
            resync_completed: AtomicU64::new(0),
            resync_notify: Notify::new(),
            metrics: Metrics::default(),
            config,
        })
    }

    /// Applies one graph change, queueing the work it creates; returns the
    /// `OwnerRefInvalidNamespace` events to record as `(dependent, reference)`.
    fn apply_graph_event(&self, event: &GraphEvent) -> Vec<(Identity, OwnerRef)> {
        let effects = self.lock_builder().process(event);
        let mut events = Vec::new();
        for effect in effects {
            match effect {
                Effect::AttemptToDelete(w) => self.attempt_to_delete.add(w),
                Effect::AttemptToDeleteRateLimited(w) => self.attempt_to_delete.add_rate_limited(w),
                Effect::AttemptToOrphan(w) => self.attempt_to_orphan.add(w),
                Effect::InvalidNamespaceOwnerRef { dependent, owner } => events.push((dependent, owner)),
            }
        }
        events
    }

    /// Records `Warning OwnerRefInvalidNamespace` on `dependent` (catalogue A.11); a failure is
    /// only logged, as upstream's recorder drops events it cannot send.
    async fn record_invalid_namespace_event(&self, dependent: &Identity, owner: &OwnerRef) {
        if self.config.mutant == Some(mutant::Mutant::NoInvalidNamespaceEvents) {
            return;
        }
        match operations::record_invalid_namespace_event(&self.client, dependent, owner).await {
            Ok(()) => self.metrics.events.inc(),
            Err(e) => tracing::warn!(dependent = %dependent, error = %e, "cannot record OwnerRefInvalidNamespace event"),
        }
    }

    /// The queue of `stage`.
    fn queue(&self, stage: Stage) -> &WorkQueue<WorkItem> {
        match stage {
            Stage::AttemptToDelete => &self.attempt_to_delete,
            Stage::AttemptToOrphan => &self.attempt_to_orphan,
        }
    }

    /// One worker step on an item taken from `stage`'s queue: process, then forget it or
    /// re-queue it with back-off, and release it.
    async fn work_on(&self, stage: Stage, item: &WorkItem) -> collector::Outcome {
        let outcome = match stage {
            Stage::AttemptToDelete => self.process_attempt_to_delete(item).await,
            Stage::AttemptToOrphan => self.process_attempt_to_orphan(item).await,
        };
        let queue = self.queue(stage);
        match outcome {
            collector::Outcome::Forget => queue.forget(item),
            collector::Outcome::Requeue => queue.add_rate_limited(item.clone()),
        }
        queue.done(item);
        outcome
    }
}

/// Whether the collector has caught up, and if not, why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    /// Every monitor has observed the target resourceVersion, discovery is current, and no
    /// work is queued or in process.
    pub settled: bool,
    /// What is still pending, for failure messages (also lists back-off waits, which do not
    /// count against settling).
    pub pending: Vec<String>,
}

/// A running garbage collector. Dropping it stops it.
pub struct GarbageCollector {
    shared: Arc<Shared>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for GarbageCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GarbageCollector").field("config", &self.shared.config).finish()
    }
}

impl Drop for GarbageCollector {
    fn drop(&mut self) {
        self.shared.attempt_to_delete.shut_down();
        self.shared.attempt_to_orphan.shut_down();
        for t in &self.tasks {
            t.abort();
        }
        self.shared.monitors.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

impl GarbageCollector {
    /// Starts the collector against `client`: discovery and monitors, the graph builder, and
    /// the workers. Must be called inside a Tokio runtime.
    pub fn start(client: kube::Client, config: Config) -> Self {
        let (graph_tx, mut graph_rx) = mpsc::unbounded_channel();
        let shared = Shared::new(client, config, graph_tx, false);
        let mut tasks = Vec::new();
        let s = shared.clone();
        tasks.push(tokio::spawn(async move {
            while let Some(event) = graph_rx.recv().await {
                for (dependent, owner) in s.apply_graph_event(&event) {
                    s.in_flight.fetch_add(1, Ordering::SeqCst);
                    let s = s.clone();
                    tokio::spawn(async move {
                        s.record_invalid_namespace_event(&dependent, &owner).await;
                        s.in_flight.fetch_sub(1, Ordering::SeqCst);
                    });
                }
                s.in_flight.fetch_sub(1, Ordering::SeqCst);
            }
        }));
        let s = shared.clone();
        tasks.push(tokio::spawn(async move {
            loop {
                let target = s.resync_requested.load(Ordering::SeqCst);
                match monitors::resync(&s).await {
                    Ok(()) => s.resync_completed.store(target, Ordering::SeqCst),
                    Err(e) => tracing::warn!(error = %e, "discovery failed; keeping the current monitors"),
                }
                let again = s.resync_requested.load(Ordering::SeqCst) != target;
                if !again {
                    let _ = tokio::time::timeout(s.config.resync_period, s.resync_notify.notified()).await;
                }
            }
        }));
        for _ in 0..shared.config.workers.max(1) {
            for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
                let s = shared.clone();
                tasks.push(tokio::spawn(async move {
                    while let Some(item) = s.queue(stage).get().await {
                        s.work_on(stage, &item).await;
                    }
                }));
            }
        }
        Self { shared, tasks }
    }

    /// A collector that does nothing by itself, for stepping through upstream's unit-test
    /// scenarios: see [`ManualCollector`].
    pub fn manual(client: kube::Client, config: Config) -> ManualCollector {
        ManualCollector::new(client, config)
    }

    /// The shared state (graph, queues, monitors), for inspection.
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Whether the collector is settled relative to the server's `revision` (the
    /// resourceVersion of a fresh list): every monitor that has listed has observed it,
    /// discovery is up to date, and nothing is queued, in process or in flight. On a quiet
    /// resource this waits for a watch bookmark; see [`GarbageCollector::settled_with`].
    pub fn settled(&self, revision: u64) -> Settled {
        self.settled_with(|_, _| revision)
    }

    /// As [`GarbageCollector::settled`], with the revision each monitor must have observed given
    /// per `(group, resource)`: with the fake apiserver, the revision of the resource's last
    /// write ([`crate::apiserver::ApiServer::resource_revision`]), so no bookmark is awaited.
    pub fn settled_with(&self, revision_of: impl Fn(&str, &str) -> u64) -> Settled {
        let s = &self.shared;
        // Work is checked before and after the monitors: a worker's write lands in the
        // revisions the monitors are compared with only if it happened before that read, and a
        // worker busy in between shows in one of the two work checks.
        let mut pending = self.pending_work();
        let (requested, completed) = (s.resync_requested.load(Ordering::SeqCst), s.resync_completed.load(Ordering::SeqCst));
        if completed < requested {
            pending.push("discovery resync pending".to_string());
        }
        for ((group, resource), m) in s.monitors.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            let observed = m.status.observed.load(Ordering::SeqCst);
            let revision = revision_of(group, resource);
            if m.status.phase.load(Ordering::SeqCst) != phase::FAILING && observed < revision {
                pending.push(format!("monitor {resource}.{group} at resourceVersion {observed} < {revision}"));
            }
        }
        pending.extend(self.pending_work());
        pending.dedup();
        let settled = pending.is_empty();
        for (name, q) in [("attemptToDelete", &s.attempt_to_delete), ("attemptToOrphan", &s.attempt_to_orphan)] {
            let graph = s.lock_builder();
            for w in q.waiting_items() {
                let who = graph.graph.queued_copy(&w).map_or_else(|| w.identity.to_string(), |n| n.identity.to_string());
                pending.push(format!("{name}: {who} waiting to retry (does not hold up settling)"));
            }
        }
        Settled { settled, pending }
    }

    /// Graph changes in flight and queued or in-process work items.
    fn pending_work(&self) -> Vec<String> {
        let s = &self.shared;
        let mut pending = Vec::new();
        let in_flight = s.in_flight.load(Ordering::SeqCst);
        if in_flight > 0 {
            pending.push(format!("{in_flight} graph changes or events in flight"));
        }
        for (name, q) in [("attemptToDelete", &s.attempt_to_delete), ("attemptToOrphan", &s.attempt_to_orphan)] {
            let d = q.depth();
            if d.ready > 0 || d.processing > 0 {
                pending.push(format!("{name}: {} queued, {} in process", d.ready, d.processing));
            }
        }
        pending
    }

    /// The dependency graph as DOT (all of it, or the part connected to `uids`).
    pub fn graph_dot(&self, uids: &[String]) -> String {
        dot::render(&self.shared.lock_builder().graph, uids)
    }

    /// Whether the graph has a node for `uid` (upstream `GraphHasUID`).
    pub fn graph_has_uid(&self, uid: &str) -> bool {
        self.shared.lock_builder().graph.contains(uid)
    }

    /// The counters in Prometheus text format.
    pub fn metrics_text(&self) -> String {
        self.shared.metrics.render()
    }
}
