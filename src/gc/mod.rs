//! The reference garbage collector: an ordinary controller that reaches the API only through a
//! `kube::Client`, so it runs unchanged against the fake apiserver, a kind cluster with
//! kube-controller-manager's collector switched off, or beside another implementation.
//!
//! # Layout (mirroring upstream `pkg/controller/garbagecollector`)
//! - [`graph`]: nodes, owners, dependents, identities, work items (`graph.go`).
//! - [`events`]: what the graph is built from: object metadata and what happened to it
//!   (`graph_builder.go`'s `event`).
//! - [`graph_builder`]: events → graph → work (`graph_builder.go`, catalogue A.3-A.4).
//! - [`collector`]: the attemptToDelete and attemptToOrphan workers and their decisions
//!   (`garbagecollector.go`, A.5-A.9).
//! - [`operations`], [`patch`]: API calls and patch bodies (`operations.go`, `patch.go`).
//! - [`monitors`], [`rest_mapper`]: discovery and metadata list+watch per resource.
//! - [`cache_sync`]: acting only on a graph built from complete initial lists (upstream's
//!   "wait for cache sync", made strict).
//! - [`retry`]: back-off delays and which API failures are worth waiting out.
//! - [`queue`]: de-duplicating, rate-limited work queues.
//! - [`absent_cache`]: owners verified absent.
//! - [`dot`], [`metrics`]: the graph as DOT and counters.
//! - [`mutant`]: deliberately broken rules, for judging specifications.
//! - [`manual`]: the collector stepped by hand, as upstream's unit tests drive it.

pub mod absent_cache;
pub mod cache_sync;
pub mod collector;
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

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use tokio::sync::{Notify, mpsc, watch};

use crate::gc::cache_sync::{GraphChange, Held, resource_name};
use crate::gc::events::GraphEvent;
use crate::gc::graph::{Identity, OwnerRef, WorkItem};
use crate::gc::graph_builder::{Effect, GraphBuilder};
pub use crate::gc::manual::ManualCollector;
use crate::gc::metrics::Metrics;
use crate::gc::monitors::{Monitor, phase};
use crate::gc::queue::{Backoff, WorkQueue};
use crate::gc::rest_mapper::RestMapper;
use crate::gc::retry::Delays;

/// How the collector runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Workers for each of attemptToDelete and attemptToOrphan (kube-controller-manager: 20).
    pub workers: usize,
    /// How often discovery is re-run to pick up new or removed resources (upstream: 30 s).
    pub resync_period: Duration,
    /// How long the workers wait at the start for every monitor's initial list before they
    /// proceed with the work that needs no complete graph (kube-controller-manager: 30 s, its
    /// sync period); see [`cache_sync`].
    pub initial_sync_timeout: Duration,
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
            initial_sync_timeout: Duration::from_secs(30),
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

impl Stage {
    /// Upstream's name of the stage's queue.
    pub fn name(self) -> &'static str {
        match self {
            Stage::AttemptToDelete => "attemptToDelete",
            Stage::AttemptToOrphan => "attemptToOrphan",
        }
    }
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
    graph_tx: mpsc::UnboundedSender<GraphChange>,
    /// Graph changes sent but not yet applied, and events being recorded.
    in_flight: AtomicUsize,
    /// Running monitors by `(group, resource)`.
    pub monitors: Mutex<HashMap<(String, String), Monitor>>,
    resync_requested: AtomicU64,
    resync_completed: AtomicU64,
    resync_notify: Notify,
    /// Group versions whose discovery failed in the latest round and that were never discovered
    /// before, with the failure: what they serve is unknown.
    pub undiscovered: Mutex<BTreeMap<String, String>>,
    /// Work that needs a complete graph, held until the graph is complete.
    pub held: Held,
    /// Woken when the graph may have become complete.
    sync_notify: Notify,
    /// Whether the workers have started (after the start's wait for the initial lists).
    workers_started: watch::Sender<bool>,
    /// Counters.
    pub metrics: Metrics,
}

impl Shared {
    /// Locks the graph builder.
    pub fn lock_builder(&self) -> MutexGuard<'_, GraphBuilder> {
        self.builder.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a graph event.
    pub fn send_graph_event(&self, event: GraphEvent) {
        self.send_graph_change(GraphChange::Event(event));
    }

    /// Queues an entry of graphChanges.
    pub(crate) fn send_graph_change(&self, change: GraphChange) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        if self.graph_tx.send(change).is_err() {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Applies one entry of graphChanges; returns the `OwnerRefInvalidNamespace` events to
    /// record. A [`GraphChange::Listed`] marks its monitor's initial list as in the graph.
    fn apply_graph_change(&self, change: &GraphChange) -> Vec<(Identity, OwnerRef)> {
        match change {
            GraphChange::Event(event) => self.apply_graph_event(event),
            GraphChange::Listed(status) => {
                status.in_graph.store(true, Ordering::SeqCst);
                self.sync_changed();
                Vec::new()
            }
        }
    }

    /// Whether a discovery resync has been asked for and has not completed.
    fn resync_pending(&self) -> bool {
        self.resync_completed.load(Ordering::SeqCst) < self.resync_requested.load(Ordering::SeqCst)
    }

    /// Asks for a discovery resync soon (a CustomResourceDefinition changed).
    pub fn request_resync(&self) {
        self.resync_requested.fetch_add(1, Ordering::SeqCst);
        self.resync_notify.notify_one();
    }

    /// A collector's state over `client`; `graph_tx` feeds its graphChanges queue. A `manual`
    /// collector's retried work is re-queued at once instead of after a back-off, and it asks for
    /// no discovery of its own (the test steps discovery).
    fn new(client: kube::Client, config: Config, graph_tx: mpsc::UnboundedSender<GraphChange>, manual: bool) -> Arc<Self> {
        let queue = || if manual { WorkQueue::synchronous() } else { WorkQueue::new(config.backoff) };
        Arc::new(Shared {
            client,
            builder: Mutex::new(GraphBuilder::new(config.absent_cache_capacity)),
            attempt_to_delete: queue(),
            attempt_to_orphan: queue(),
            mapper: RwLock::new(RestMapper::default()),
            graph_tx,
            in_flight: AtomicUsize::new(0),
            monitors: Mutex::new(HashMap::new()),
            resync_requested: AtomicU64::new(u64::from(!manual)),
            resync_completed: AtomicU64::new(0),
            resync_notify: Notify::new(),
            undiscovered: Mutex::new(BTreeMap::new()),
            held: Held::default(),
            sync_notify: Notify::new(),
            workers_started: watch::Sender::new(false),
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
            collector::Outcome::Hold => {
                queue.forget(item);
                self.hold(stage, item.clone());
            }
        }
        queue.done(item);
        outcome
    }
}

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
            while let Some(change) = graph_rx.recv().await {
                for (dependent, owner) in s.apply_graph_change(&change) {
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
            let mut delays = Delays::new(Backoff { base: Duration::from_millis(100), max: s.config.resync_period });
            loop {
                let target = s.resync_requested.load(Ordering::SeqCst);
                if let Err(e) = monitors::resync(&s).await {
                    let delay = delays.next_delay();
                    tracing::warn!(error = %e, "waiting for discovery; keeping the current monitors, retrying in {delay:?}");
                    tokio::time::sleep(delay).await;
                    continue;
                }
                s.resync_completed.store(target, Ordering::SeqCst);
                s.sync_changed();
                // Group versions never discovered are asked for again soon, not a period later.
                let wait = if s.undiscovered.lock().unwrap_or_else(|p| p.into_inner()).is_empty() {
                    delays.reset();
                    s.config.resync_period
                } else {
                    delays.next_delay()
                };
                let again = s.resync_requested.load(Ordering::SeqCst) != target;
                if !again {
                    let _ = tokio::time::timeout(wait, s.resync_notify.notified()).await;
                }
            }
        }));
        let s = shared.clone();
        tasks.push(tokio::spawn(async move {
            cache_sync::wait_for_initial_sync(&s, s.config.initial_sync_timeout).await;
            s.workers_started.send_replace(true);
        }));
        for _ in 0..shared.config.workers.max(1) {
            for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
                let s = shared.clone();
                tasks.push(tokio::spawn(async move {
                    if s.workers_started.subscribe().wait_for(|started| *started).await.is_err() {
                        return;
                    }
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
        let s = &self.shared;
        // Work is checked before and after the monitors: a worker's write lands in the
        // revisions the monitors are compared with only if it happened before that read, and a
        // worker busy in between shows in one of the two work checks.
        let mut pending = self.pending_work();
        if s.resync_pending() {
            pending.push("discovery resync pending".to_string());
        }
        for ((group, resource), m) in s.monitors.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            let observed = m.status.observed.load(Ordering::SeqCst);
            let revision = revision_of(group, resource);
            let name = resource_name(group, resource);
            if m.status.phase.load(Ordering::SeqCst) != phase::SYNCED && revision > 0 {
                let why = m.status.last_error().map(|e| format!(" (last attempt: {e})")).unwrap_or_default();
                pending.push(format!("monitor {name} has not listed yet{why}"));
            } else if observed < revision {
                pending.push(format!("monitor {name} at resourceVersion {observed} < {revision}"));
            }
        }
        let missing = s.graph_incomplete().join("; ");
        if !*s.workers_started.borrow() {
            pending.push(format!("workers not started yet: waiting for {missing}"));
        }
        for (stage, w) in s.held.items() {
            pending.push(format!("{}: {} held until the graph is complete: waiting for {missing}", stage.name(), w.identity));
        }
        pending.extend(self.pending_work());
        pending.dedup();
        let settled = pending.is_empty();
        for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
            let (name, q) = (stage.name(), s.queue(stage));
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
        for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
            let (name, d) = (stage.name(), s.queue(stage).depth());
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
