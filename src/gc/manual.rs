//! The collector stepped by hand, as upstream's unit tests drive `GarbageCollector` and
//! `GraphBuilder`: no graph-builder task, no workers and no monitors unless asked for. A test
//! applies graph events itself, processes one queue item at a time, and inspects the queues, the
//! graph and the absent-owner cache in between. The queues are synchronous (upstream's tracking
//! queue): an item re-queued with back-off is visible at once, behind the items already queued.
//! Graph changes the collector itself sends (virtual delete events) wait in a list until the test
//! applies them; so do the monitors' events, with the marks of their initial lists
//! ([`GraphChange::Listed`]), which are applied on the way to the next event.
//!
//! Everything else is the production code: the same [`Collector`], decisions and API calls.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::mpsc;

use crate::gc::collector::{Collector, Outcome, Stage};
use crate::gc::config::Config;
use crate::gc::events::GraphEvent;
use crate::gc::graph::{Identity, WorkItem};
use crate::gc::monitors::GraphChange;
use crate::gc::rest_mapper::{DiscoveryError, RestMapper, discover};

/// A queued item as upstream's tests show it: the coordinates and virtual flag of the node copy
/// that was queued (the graph's node while that copy is current).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueuedNode {
    /// Coordinates.
    pub identity: Identity,
    /// Whether the copy is virtual.
    pub virtual_node: bool,
}

/// Graph changes sent to the collector and not yet applied.
struct GraphChanges {
    /// Where [`Collector::send_graph_event`] sends them.
    rx: mpsc::UnboundedReceiver<GraphChange>,
    /// Received, oldest first.
    pending: VecDeque<GraphChange>,
}

impl GraphChanges {
    /// Every change sent so far, oldest first.
    fn pending(&mut self) -> &mut VecDeque<GraphChange> {
        while let Ok(event) = self.rx.try_recv() {
            self.pending.push_back(event);
        }
        &mut self.pending
    }
}

/// A garbage collector that acts only when told to. Dropping it stops its monitors, if any.
pub struct ManualCollector {
    collector: Arc<Collector>,
    /// A std mutex: never held across an await.
    graph_changes: Mutex<GraphChanges>,
}

impl std::fmt::Debug for ManualCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManualCollector").field("config", &self.collector.config).finish()
    }
}

impl Drop for ManualCollector {
    fn drop(&mut self) {
        self.collector.monitors.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

impl ManualCollector {
    /// A collector over `client` with empty graph, queues and REST mapper.
    pub(crate) fn new(client: kube::Client, config: Config) -> Self {
        let (graph_tx, rx) = mpsc::unbounded_channel();
        let collector = Collector::new(client, config, graph_tx, true);
        Self { collector, graph_changes: Mutex::new(GraphChanges { rx, pending: VecDeque::new() }) }
    }

    /// The collector: graph and absent-owner cache (`lock_builder`), queues, monitors, metrics.
    pub fn collector(&self) -> &Arc<Collector> {
        &self.collector
    }

    /// Runs discovery and replaces the REST mapper, starting no monitor (upstream's unit tests
    /// give the collector a static RESTMapper).
    pub async fn refresh_rest_mapper(&self) -> Result<(), DiscoveryError> {
        let found = discover(&self.collector.client).await;
        *self.collector.mapper.write().unwrap_or_else(|p| p.into_inner()) = RestMapper::from_lists(&found.lists);
        found.error.map_or(Ok(()), Err)
    }

    /// One round of the monitors' resync ([`Collector::resync_monitors`]). The monitors it starts
    /// run on their own; what they observe waits among the pending graph changes.
    pub async fn resync_monitors(&self) -> Result<(), DiscoveryError> {
        self.collector.resync_monitors().await
    }

    fn graph_changes(&self) -> MutexGuard<'_, GraphChanges> {
        self.graph_changes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Applies `event` at once (upstream `processEvent`), recording the events it causes before
    /// returning.
    pub async fn process_graph_event(&self, event: &GraphEvent) {
        for (dependent, owner) in self.collector.apply_graph_event(event) {
            self.collector.record_invalid_namespace_event(&dependent, &owner).await;
        }
    }

    /// The graph events waiting to be applied, oldest first.
    pub fn pending_graph_changes(&self) -> Vec<GraphEvent> {
        let mut changes = self.graph_changes();
        changes
            .pending()
            .iter()
            .filter_map(|c| match c {
                GraphChange::Event(e) => Some(e.clone()),
                GraphChange::Listed(_) => None,
            })
            .collect()
    }

    /// Puts `event` ahead of the waiting graph changes (upstream `insertEvent`: an informer event
    /// that arrives before a virtual delete event already queued).
    pub fn insert_graph_change(&self, event: GraphEvent) {
        self.collector.in_flight.fetch_add(1, Ordering::SeqCst);
        self.graph_changes().pending().push_front(GraphChange::Event(event));
    }

    /// Applies the oldest waiting graph event (and the list marks ahead of it); returns it, or
    /// `None` when none waits.
    pub async fn process_pending_graph_change(&self) -> Option<GraphEvent> {
        loop {
            let change = self.graph_changes().pending().pop_front()?;
            let events = self.collector.apply_graph_change(&change);
            for (dependent, owner) in events {
                self.collector.record_invalid_namespace_event(&dependent, &owner).await;
            }
            self.collector.in_flight.fetch_sub(1, Ordering::SeqCst);
            if let GraphChange::Event(event) = change {
                return Some(event);
            }
        }
    }

    /// Processes the next attemptToDelete item as a worker would (upstream
    /// `processAttemptToDeleteWorker`); `None` when the queue is empty.
    pub async fn process_next_attempt_to_delete(&self) -> Option<(WorkItem, Outcome)> {
        self.process_next(Stage::AttemptToDelete).await
    }

    /// Processes the next attemptToOrphan item as a worker would; `None` when the queue is empty.
    pub async fn process_next_attempt_to_orphan(&self) -> Option<(WorkItem, Outcome)> {
        self.process_next(Stage::AttemptToOrphan).await
    }

    async fn process_next(&self, stage: Stage) -> Option<(WorkItem, Outcome)> {
        let item = self.collector.queue(stage).try_get()?;
        let outcome = self.collector.work_on(stage, &item).await;
        Some((item, outcome))
    }

    /// The attemptToDelete queue, in processing order.
    pub fn pending_attempt_to_delete(&self) -> Vec<QueuedNode> {
        self.describe(Stage::AttemptToDelete)
    }

    /// The attemptToOrphan queue, in processing order.
    pub fn pending_attempt_to_orphan(&self) -> Vec<QueuedNode> {
        self.describe(Stage::AttemptToOrphan)
    }

    fn describe(&self, stage: Stage) -> Vec<QueuedNode> {
        let items = self.collector.queue(stage).ready_items();
        let builder = self.collector.lock_builder();
        items
            .into_iter()
            .map(|w| match builder.graph.queued_copy(&w) {
                Some(n) => QueuedNode { identity: n.identity, virtual_node: n.virtual_node },
                None => QueuedNode { identity: w.identity, virtual_node: w.virtual_node },
            })
            .collect()
    }
}
