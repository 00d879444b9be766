//! The collector (upstream `GarbageCollector`, `garbagecollector.go`): its state — the graph
//! builder, the attemptToDelete and attemptToOrphan queues, the monitors and discovery — and its
//! methods. It applies graph changes and queues the work they create, keeps its monitors in step
//! with discovery, and runs the attemptToDelete and attemptToOrphan workers' steps (upstream
//! `garbagecollector.go`): for each item it gathers the facts (a live GET of the item and of
//! each owner), lets the pure rules of [`crate::gc::decision`] decide, and acts on the decision.
//! A decision that reads an object's dependents from the graph is held until the graph is
//! complete ([`crate::gc::cache_sync`]).
//!
//! [`crate::gc::GarbageCollector`] runs a collector on its own tasks;
//! [`crate::gc::ManualCollector`] steps one by hand.

pub mod settled;
mod tasks;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};
use std::time::Duration;

use kube::api::PropagationPolicy;
use tokio::sync::{Notify, mpsc};

use crate::activity::Activity;
use crate::gc::config::Config;
use crate::gc::decision::{
    Decision, ForegroundStep, Identified, Known, KnownOwner, Orphaning, OwnerState, decide, foreground_step, known_before_lookup,
    live_owner_state,
};
use crate::gc::events::{GraphEvent, ObjectMeta};
use crate::gc::graph::{Identity, Node, OwnerRef, Uid, WorkItem};
use crate::gc::graph_builder::{Effect, GraphBuilder};
use crate::gc::metrics::Metrics;
use crate::gc::monitors::{self, GraphChange, Monitor, Sink, phase, resource_name};
use crate::gc::mutant::Mutable;
use crate::gc::operations::{self, Deletion};
use crate::gc::patch;
use crate::gc::queue::WorkQueue;
use crate::gc::rest_mapper::{Discovered, DiscoveryError, Mapping, MappingError, RestMapper, discover};
use crate::metadata::{FINALIZER_FOREGROUND, FINALIZER_ORPHAN};

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

/// A gate that opens once, for the workers to wait at. Not a `watch` channel: that wakes its
/// receivers in a random order, and a seeded run must replay exactly.
#[derive(Debug, Default)]
pub struct Gate {
    open: AtomicBool,
    notify: Notify,
}

impl Gate {
    /// Opens the gate, waking everyone waiting at it.
    pub fn open(&self) {
        self.open.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Whether it is open.
    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::SeqCst)
    }

    /// Waits until it is open.
    pub async fn wait(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_open() {
                return;
            }
            notified.await;
        }
    }
}

/// How long held work waits before its wait is logged as a warning (while it waits, and when it
/// is released): a graph that stays incomplete this long stops foreground deletion and orphaning.
pub const HELD_LONG: Duration = Duration::from_secs(10);

/// Work held aside until the graph is complete ([`crate::gc::cache_sync`]).
#[derive(Debug, Default)]
pub struct Held {
    /// The held items, and since when the oldest has waited. A std mutex: never held across an
    /// await.
    work: Mutex<HeldWork>,
}

/// The held items and the queue each goes back to, and when the first of them was held.
#[derive(Debug, Default)]
struct HeldWork {
    items: Vec<(Stage, WorkItem)>,
    since: Option<std::time::Instant>,
}

impl Held {
    fn lock(&self) -> MutexGuard<'_, HeldWork> {
        self.work.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The held items, oldest first.
    pub fn items(&self) -> Vec<(Stage, WorkItem)> {
        self.lock().items.clone()
    }

    /// How long the oldest held item has waited; `None` when nothing is held.
    pub fn oldest(&self) -> Option<Duration> {
        self.lock().since.map(|since| since.elapsed())
    }
}

/// Why an attempt did not complete.
#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    /// The item was absent; a virtual delete event was queued (forget the item).
    #[error("item is absent; a virtual delete event was queued")]
    EnqueuedVirtualDelete,
    /// A cluster-scoped item refers to a namespaced owner, or a namespaced virtual owner has
    /// no namespace: never collected, never retried (forget the item).
    #[error("cluster-scoped object refers to a namespaced owner")]
    NamespacedOwnerOfClusterScoped,
    /// The reference's kind is not served (retry with back-off).
    #[error(transparent)]
    Mapping(#[from] MappingError),
    /// An API call failed (retry with back-off).
    #[error("{0}")]
    Api(#[from] kube::Error),
    /// The decision needs the item's dependents and the graph lacks these lists (hold the item
    /// until the graph is complete).
    #[error("the graph is not complete: waiting for {}", .0.join("; "))]
    GraphIncomplete(Vec<String>),
}

/// What the worker does with a queue item after an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Done with it.
    Forget,
    /// Try again after a back-off.
    Requeue,
    /// Put it aside until the graph is complete.
    Hold,
}

/// The collector's state, shared by its tasks: what upstream calls the `GarbageCollector`.
pub struct Collector {
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
    pub(super) in_flight: AtomicUsize,
    /// Running monitors by `(group, resource)`.
    pub monitors: Mutex<BTreeMap<(String, String), Monitor>>,
    /// How many discovery resyncs have been asked for.
    pub(super) resync_requested: AtomicU64,
    /// How many of those the last completed resync answered: one is pending while fewer.
    pub(super) resync_completed: AtomicU64,
    /// Woken when a discovery resync is asked for.
    pub(super) resync_notify: Notify,
    /// Group versions whose discovery failed in the latest round and that were never discovered
    /// before, with the failure: what they serve is unknown.
    pub undiscovered: Mutex<BTreeMap<String, String>>,
    /// Work that needs a complete graph, held until the graph is complete.
    pub held: Held,
    /// Woken when the graph may have become complete.
    pub(super) sync_notify: Notify,
    /// Whether the workers have started (after the start's wait for the initial lists).
    pub(super) workers_started: Gate,
    /// Counters.
    pub metrics: Metrics,
    /// Raised after every step that may leave the collector settled (see
    /// [`crate::gc::GarbageCollector::activity`]).
    pub(super) activity: Activity,
}

impl Collector {
    /// A collector's state over `client`; `graph_tx` feeds its graphChanges queue. A `manual`
    /// collector's retried work is re-queued at once instead of after a back-off, and it asks for
    /// no discovery of its own (the test steps discovery).
    pub(super) fn new(client: kube::Client, config: Config, graph_tx: mpsc::UnboundedSender<GraphChange>, manual: bool) -> Arc<Self> {
        let queue = || if manual { WorkQueue::synchronous() } else { WorkQueue::new(config.backoff) };
        Arc::new(Collector {
            client,
            builder: Mutex::new(GraphBuilder::new(config.absent_cache_capacity)),
            attempt_to_delete: queue(),
            attempt_to_orphan: queue(),
            mapper: RwLock::new(RestMapper::default()),
            graph_tx,
            in_flight: AtomicUsize::new(0),
            monitors: Mutex::new(BTreeMap::new()),
            resync_requested: AtomicU64::new(u64::from(!manual)),
            resync_completed: AtomicU64::new(0),
            resync_notify: Notify::new(),
            undiscovered: Mutex::new(BTreeMap::new()),
            held: Held::default(),
            sync_notify: Notify::new(),
            workers_started: Gate::default(),
            metrics: Metrics::default(),
            activity: Activity::default(),
            config,
        })
    }

    /// Raised after every step that may leave the collector settled (see
    /// [`crate::gc::GarbageCollector::activity`]).
    pub fn activity(&self) -> &Activity {
        &self.activity
    }

    /// Locks the graph builder.
    pub fn lock_builder(&self) -> MutexGuard<'_, GraphBuilder> {
        self.builder.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `decision` as the configured mutant makes it, unchanged without one: the one place where a
    /// mutant reaches the collector ([`crate::gc::mutant`]).
    fn mutated<D: Mutable>(&self, decision: D) -> D {
        match self.config.mutant {
            Some(mutant) => decision.mutated(mutant),
            None => decision,
        }
    }

    /// Queues a graph event.
    pub fn send_graph_event(&self, event: GraphEvent) {
        self.send_graph_change(GraphChange::Event(event));
    }

    /// Applies one entry of graphChanges; returns the `OwnerRefInvalidNamespace` events to
    /// record. A [`GraphChange::Listed`] marks its monitor's initial list as in the graph.
    pub(super) fn apply_graph_change(&self, change: &GraphChange) -> Vec<(Identity, OwnerRef)> {
        match change {
            GraphChange::Event(event) => self.apply_graph_event(event),
            GraphChange::Listed(status) => {
                status.in_graph.store(true, Ordering::SeqCst);
                self.sync_changed();
                Vec::new()
            }
        }
    }

    /// Applies one graph change, queueing the work it creates; returns the
    /// `OwnerRefInvalidNamespace` events to record as `(dependent, reference)`.
    pub(super) fn apply_graph_event(&self, event: &GraphEvent) -> Vec<(Identity, OwnerRef)> {
        let effects = self.mutated(self.lock_builder().process(event));
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

    /// Records `Warning OwnerRefInvalidNamespace` on `dependent` (upstream
    /// `reportInvalidNamespaceOwnerRef`); a failure is only logged, as upstream's recorder drops
    /// events it cannot send.
    pub(super) async fn record_invalid_namespace_event(&self, dependent: &Identity, owner: &OwnerRef) {
        match operations::record_invalid_namespace_event(&self.client, dependent, owner).await {
            Ok(()) => self.metrics.events.inc(),
            Err(e) => tracing::warn!(dependent = %dependent, error = %e, "cannot record OwnerRefInvalidNamespace event"),
        }
    }

    /// Whether a discovery resync has been asked for and has not completed.
    pub(super) fn resync_pending(&self) -> bool {
        self.resync_completed.load(Ordering::SeqCst) < self.resync_requested.load(Ordering::SeqCst)
    }

    /// The queue of `stage`.
    pub(super) fn queue(&self, stage: Stage) -> &WorkQueue<WorkItem> {
        match stage {
            Stage::AttemptToDelete => &self.attempt_to_delete,
            Stage::AttemptToOrphan => &self.attempt_to_orphan,
        }
    }

    /// One worker step on an item taken from `stage`'s queue: process, then forget it or
    /// re-queue it with back-off, and release it.
    pub(super) async fn work_on(&self, stage: Stage, item: &WorkItem) -> Outcome {
        let outcome = match stage {
            Stage::AttemptToDelete => self.process_attempt_to_delete(item).await,
            Stage::AttemptToOrphan => self.process_attempt_to_orphan(item).await,
        };
        let queue = self.queue(stage);
        match outcome {
            Outcome::Forget => queue.forget(item),
            Outcome::Requeue => queue.add_rate_limited(item.clone()),
            Outcome::Hold => {
                queue.forget(item);
                self.hold(stage, item.clone());
            }
        }
        queue.done(item);
        self.activity.raise();
        outcome
    }

    /// What the graph still lacks, empty when it is complete ([`crate::gc::cache_sync`]):
    /// `discovery` while a discovery resync is pending, `discovery of <group/version>` for each
    /// group version that has never been discovered because its discovery fails, and `the initial
    /// list of <resource>` (with the last failure) for each monitor whose initial list is not in
    /// the graph yet.
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

    /// Holds `item` of `stage` aside until the graph is complete, or puts it straight back on
    /// its queue if the graph has become complete meanwhile.
    fn hold(&self, stage: Stage, item: WorkItem) {
        let mut held = self.held.lock();
        if self.graph_incomplete().is_empty() {
            drop(held);
            self.queue(stage).add(item);
        } else if !held.items.iter().any(|(s, w)| *s == stage && *w == item) {
            tracing::debug!(?stage, ?item, waiting_for = %self.graph_incomplete().join("; "), "holding work until the graph is complete");
            held.since.get_or_insert_with(std::time::Instant::now);
            held.items.push((stage, item));
        }
    }

    /// Called whenever the graph may have become complete (a list applied, discovery done,
    /// the monitors changed): wakes the start's wait and releases the held work if so.
    pub(super) fn sync_changed(&self) {
        self.sync_notify.notify_waiters();
        self.activity.raise();
        if !self.graph_incomplete().is_empty() {
            return;
        }
        let (released, since) = {
            let mut held = self.held.lock();
            (std::mem::take(&mut held.items), held.since.take())
        };
        if let Some(waited) = since.map(|s| s.elapsed()).filter(|w| *w >= HELD_LONG) {
            tracing::warn!(items = released.len(), "work held for {waited:?} until the graph was complete goes back on its queues");
        }
        for (stage, item) in released {
            self.queue(stage).add(item);
        }
    }

    /// One round of the monitors' resync (upstream `Sync`): rediscovers resources,
    /// and starts or stops monitors to match. A round that discovers nothing is skipped and counted
    /// as a sync error. When some group versions fail discovery, the monitors of those group
    /// versions are kept, and so are their mappings; the rest of the round goes ahead. Upstream
    /// keeps only the monitors that have synced; here an unsynced one is kept too, so that the
    /// resources it lists stay among those the graph waits for ([`crate::gc::cache_sync`]) instead
    /// of silently dropping out of it. A failed group version never discovered before is recorded
    /// in [`Collector::undiscovered`]: what it serves is unknown, so the graph is not complete.
    pub async fn resync_monitors(self: &Arc<Self>) -> Result<(), DiscoveryError> {
        let Discovered { lists, error } = discover(&self.client).await;
        let mut mapper = RestMapper::from_lists(&lists);
        if mapper.deletable().is_empty() {
            self.metrics.resource_sync_errors.inc();
            return Err(error.unwrap_or(DiscoveryError::Empty));
        }
        let failed = error.as_ref().and_then(DiscoveryError::failed_group_versions).cloned().unwrap_or_default();
        if let Some(e) = &error {
            tracing::warn!(error = %e, "discovery partly failed; keeping the monitors of the failed group versions");
        }
        let wanted: Vec<Mapping> = mapper
            .deletable()
            .iter()
            .filter(|m| !self.config.ignored.iter().any(|(g, r)| *g == m.resource.group && *r == m.resource.plural))
            .cloned()
            .collect();
        {
            let mut current = self.mapper.write().unwrap_or_else(|p| p.into_inner());
            mapper.inherit(&current, &failed);
            *self.undiscovered.lock().unwrap_or_else(|p| p.into_inner()) =
                failed.iter().filter(|(gv, _)| !mapper.knows(gv)).map(|(gv, e)| (gv.clone(), e.clone())).collect();
            *current = mapper;
        }
        self.sync_monitors(wanted, |m| failed.contains_key(&m.mapping.resource.api_version));
        Ok(())
    }

    /// Makes the running monitors those of `wanted`, plus the existing ones `keep` says to keep
    /// (upstream `syncMonitors`). A monitor that goes is retired ([`crate::gc::monitors::Monitor::retire`]): it stops
    /// once its watch ends.
    pub fn sync_monitors(self: &Arc<Self>, wanted: Vec<Mapping>, keep: impl Fn(&Monitor) -> bool) {
        // Ordered: monitors start in the same order every time (a seeded run replays exactly).
        let wanted: BTreeMap<(String, String), Mapping> =
            wanted.into_iter().map(|m| ((m.resource.group.clone(), m.resource.plural.clone()), m)).collect();
        {
            let mut monitors = self.monitors.lock().unwrap_or_else(|p| p.into_inner());
            let going: Vec<(String, String)> = monitors
                .iter()
                .filter(|(key, m)| !wanted.get(*key).is_some_and(|w| w.resource.version == m.mapping.resource.version) && !keep(m))
                .map(|(key, _)| key.clone())
                .collect();
            for key in going {
                monitors.remove(&key).expect("listed above").retire();
            }
            for (key, mapping) in wanted {
                monitors.entry(key).or_insert_with(|| {
                    let sink: Weak<Collector> = Arc::downgrade(self);
                    monitors::start(sink, self.client.clone(), mapping)
                });
            }
        }
        self.sync_changed();
    }

    /// Whether there are monitors and every one has listed its resource (upstream `IsSynced`: the
    /// lists have been handed to the graph builder, not necessarily applied; the collector's own
    /// gate is stricter, see [`crate::gc::cache_sync`]).
    pub fn monitors_synced(&self) -> bool {
        let monitors = self.monitors.lock().unwrap_or_else(|p| p.into_inner());
        !monitors.is_empty() && monitors.values().all(|m| m.status.phase.load(Ordering::SeqCst) == phase::SYNCED)
    }
}

impl Sink for Collector {
    fn send_graph_change(&self, change: GraphChange) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        if self.graph_tx.send(change).is_err() {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn request_resync(&self) {
        self.resync_requested.fetch_add(1, Ordering::SeqCst);
        self.resync_notify.notify_one();
    }

    fn observed(&self) {
        self.activity.raise();
    }
}

// The attemptToDelete and attemptToOrphan workers' steps (upstream `garbagecollector.go`).
impl Collector {
    fn mapping(&self, api_version: &str, kind: &str) -> Result<Mapping, MappingError> {
        self.mapper.read().unwrap_or_else(|p| p.into_inner()).mapping(api_version, kind)
    }

    /// One attemptToDelete step for a queue item (upstream `attemptToDeleteWorker`).
    pub async fn process_attempt_to_delete(&self, item: &WorkItem) -> Outcome {
        let node = {
            let builder = self.lock_builder();
            match builder.graph.queued_copy(item) {
                // A virtual copy whose UID has since been observed is stale (upstream
                // `attemptToDeleteWorker`).
                Some(n) if n.virtual_node && builder.graph.get(&item.identity.uid).is_some_and(|n| n.is_observed()) => None,
                other => other,
            }
        };
        let Some(node) = node else { return Outcome::Forget };
        match self.attempt_to_delete_item(&node).await {
            Ok(()) => {
                // A virtual node stays queued until a monitor observes it (#56121).
                let still_virtual = self.lock_builder().graph.queued_copy(item).is_some_and(|n| n.virtual_node);
                if still_virtual { Outcome::Requeue } else { Outcome::Forget }
            }
            Err(AttemptError::EnqueuedVirtualDelete | AttemptError::NamespacedOwnerOfClusterScoped) => Outcome::Forget,
            Err(e @ AttemptError::GraphIncomplete(_)) => {
                tracing::debug!(item = %node.identity, error = %e, "attemptToDelete held");
                Outcome::Hold
            }
            Err(e) => {
                tracing::debug!(item = %node.identity, error = %e, "attemptToDelete failed; retrying");
                self.metrics.retries.inc();
                Outcome::Requeue
            }
        }
    }

    /// `Ok` when the graph is complete; the decision about to read dependents from it waits
    /// otherwise.
    fn require_complete_graph(&self) -> Result<(), AttemptError> {
        let missing = self.graph_incomplete();
        if missing.is_empty() { Ok(()) } else { Err(AttemptError::GraphIncomplete(missing)) }
    }

    fn enqueue_virtual_delete(&self, identity: &Identity) -> AttemptError {
        self.send_graph_event(GraphEvent::virtual_delete(identity));
        AttemptError::EnqueuedVirtualDelete
    }

    async fn get_object(&self, identity: &Identity) -> Result<(Mapping, Option<ObjectMeta>), AttemptError> {
        let mapping = self.mapping(&identity.api_version, &identity.kind)?;
        if mapping.namespaced && identity.namespace.is_empty() {
            return Err(AttemptError::NamespacedOwnerOfClusterScoped);
        }
        let object = operations::get(&self.client, &mapping, &identity.namespace, &identity.name).await?;
        Ok((mapping, object))
    }

    /// Upstream `attemptToDeleteItem`: decides and acts on one node, which need not be in
    /// the graph (its dependents are read from the graph's node with its UID).
    pub async fn attempt_to_delete_item(&self, node: &Node) -> Result<(), AttemptError> {
        if node.being_deleted && !node.deleting_dependents {
            return Ok(());
        }
        let identity = &node.identity;
        let (mapping, found) = self.get_object(identity).await?;
        let Some(latest) = self.mutated(Identified::new(found, &identity.uid)).object() else {
            return Err(self.enqueue_virtual_delete(identity));
        };
        if node.deleting_dependents {
            self.require_complete_graph()?;
            return self.process_deleting_dependents(node).await;
        }
        if latest.owners.is_empty() {
            return Ok(());
        }
        let mut classified = Vec::with_capacity(latest.owners.len());
        for r in &latest.owners {
            classified.push((r.clone(), self.classify(r, node).await?));
        }
        let has = |wanted: OwnerState| classified.iter().any(|(_, state)| *state == wanted);
        if has(OwnerState::WaitingForDependentsDeletion) && !has(OwnerState::Solid) {
            // Whether to delete in the foreground depends on the item's dependents.
            self.require_complete_graph()?;
        }
        let (has_dependents, a_dependent_deletes_dependents) = {
            let builder = self.lock_builder();
            let current = builder.graph.get(&identity.uid);
            current.map_or((false, false), |n| (n.has_dependents(), n.dependents().any(|d| d.deleting_dependents())))
        };
        match self.mutated(decide(&classified, has_dependents, a_dependent_deletes_dependents, &latest.finalizers)) {
            Decision::Nothing => Ok(()),
            Decision::RemoveOwnerRefs { dangling, waiting } => {
                let uids: Vec<&Uid> = dangling.iter().chain(&waiting).collect();
                let smp = patch::delete_owner_refs_strategic(&identity.uid, &uids);
                let merge = patch::delete_owner_refs_merge(&latest.resource_version, &latest.owners, &uids);
                Ok(operations::patch_with_fallback(&self.client, &mapping, identity, smp, merge).await?)
            }
            Decision::DeleteForeground { unblock } => {
                if unblock {
                    let smp = patch::unblock_owner_refs_strategic(&identity.uid, &node.owners);
                    let merge = patch::unblock_owner_refs_merge(&latest.resource_version, &node.owners);
                    operations::patch_with_fallback(&self.client, &mapping, identity, smp, merge).await?;
                }
                self.delete_object(&mapping, identity, &latest, PropagationPolicy::Foreground).await
            }
            Decision::Delete(policy) => self.delete_object(&mapping, identity, &latest, policy).await,
        }
    }

    /// Upstream `isDangling` plus the solid/waiting split: from the absent-owner cache, or
    /// from a GET of the owner in the item's namespace.
    async fn classify(&self, r: &OwnerRef, item: &Node) -> Result<OwnerState, AttemptError> {
        let mapping = self.mapping(&r.api_version, &r.kind);
        let mut key = Identity::from_ref(r, &Arc::from(""));
        let known = {
            let mut builder = self.lock_builder();
            let cached = builder.absent_owners.has(&key) || builder.absent_owners.has(&key.in_namespace(item.identity.namespace.clone()));
            let known = known_before_lookup(cached, mapping, item.identity.namespace.is_empty());
            self.mutated(KnownOwner { owner: r, dependent: &item.identity, graph: &builder.graph, known }).known
        };
        let mapping = match known {
            Known::State(state) => return Ok(state),
            Known::Unserved(e) => return Err(e.into()),
            Known::NamespacedOwnerOfClusterScoped => return Err(AttemptError::NamespacedOwnerOfClusterScoped),
            Known::Ask(mapping) => mapping,
        };
        if mapping.namespaced {
            key.namespace = item.identity.namespace.clone();
        }
        let found = operations::get(&self.client, &mapping, &item.identity.namespace, &r.name).await?;
        match self.mutated(Identified::new(found, &r.uid)).object() {
            Some(owner) => Ok(live_owner_state(&owner)),
            None => {
                self.lock_builder().absent_owners.add(key);
                Ok(OwnerState::Dangling)
            }
        }
    }

    /// Upstream `processDeletingDependentsItem`: a foreground owner loses its `foregroundDeletion`
    /// finalizer once no blocking dependent is left in the graph; until then its blocking
    /// dependents are queued.
    async fn process_deleting_dependents(&self, node: &Node) -> Result<(), AttemptError> {
        let step = foreground_step(&self.lock_builder().graph.blocking_dependents(&node.identity.uid));
        match self.mutated(step) {
            ForegroundStep::Finish => self.remove_finalizer(&node.identity, FINALIZER_FOREGROUND).await,
            ForegroundStep::Wait(dependents) => {
                for dependent in dependents {
                    self.attempt_to_delete.add(dependent);
                }
                Ok(())
            }
        }
    }

    /// Deletes the item as [`operations::delete_object`] does; an item found gone is deleted
    /// from the graph by a virtual delete event.
    async fn delete_object(
        &self,
        mapping: &Mapping,
        identity: &Identity,
        latest: &ObjectMeta,
        policy: PropagationPolicy,
    ) -> Result<(), AttemptError> {
        match operations::delete_object(&self.client, mapping, identity, latest, policy).await? {
            Deletion::Deleted => {
                self.metrics.deletions.inc();
                Ok(())
            }
            Deletion::Absent => Err(self.enqueue_virtual_delete(identity)),
        }
    }

    /// Removes `finalizer` from the object, as [`operations::remove_finalizer`] does.
    async fn remove_finalizer(&self, identity: &Identity, finalizer: &str) -> Result<(), AttemptError> {
        let mapping = self.mapping(&identity.api_version, &identity.kind)?;
        Ok(operations::remove_finalizer(&self.client, &mapping, identity, finalizer).await?)
    }

    /// One attemptToOrphan step (upstream `orphanDependents`, then `removeFinalizer`): strip the
    /// owner from every dependent in the graph, then remove the `orphan` finalizer.
    pub async fn process_attempt_to_orphan(&self, item: &WorkItem) -> Outcome {
        let Some(owner) = self.lock_builder().graph.queued_copy(item) else { return Outcome::Forget };
        if let Err(e) = self.require_complete_graph() {
            tracing::debug!(owner = %owner.identity, error = %e, "attemptToOrphan held");
            return Outcome::Hold;
        }
        let orphaning = self.mutated(Orphaning::of(&owner, &self.lock_builder().graph));
        if let Err(e) = self.orphan_dependents(&owner.identity.uid, &orphaning.dependents).await {
            tracing::debug!(owner = %owner.identity, error = %e, "orphaning dependents failed; retrying");
            self.metrics.retries.inc();
            return Outcome::Requeue;
        }
        match self.remove_finalizer(&owner.identity, FINALIZER_ORPHAN).await {
            Ok(()) => {
                self.metrics.orphanings.inc();
                Outcome::Forget
            }
            Err(e) => {
                tracing::debug!(owner = %owner.identity, error = %e, "removing the orphan finalizer failed; retrying");
                self.metrics.retries.inc();
                Outcome::Requeue
            }
        }
    }

    /// Removes the reference to `owner_uid` from each of `dependents`, all at once (upstream
    /// `orphanDependents`); a dependent that is gone is skipped, any other failure is returned.
    pub async fn orphan_dependents(&self, owner_uid: &Uid, dependents: &[Identity]) -> Result<(), AttemptError> {
        let results = futures::future::join_all(dependents.iter().map(|d| self.orphan_dependent(d, owner_uid))).await;
        results.into_iter().collect()
    }

    async fn orphan_dependent(&self, dependent: &Identity, owner_uid: &Uid) -> Result<(), AttemptError> {
        let mapping = self.mapping(&dependent.api_version, &dependent.kind)?;
        Ok(operations::remove_owner_ref(&self.client, &mapping, dependent, owner_uid).await?)
    }
}
