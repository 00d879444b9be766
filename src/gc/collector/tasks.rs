//! The bodies of the tasks a running collector is made of (upstream `Run`): the graph builder's
//! loop over graphChanges, discovery kept current, a warning while work is held, the workers,
//! and shutting them down. [`crate::gc::GarbageCollector`] spawns them.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::mpsc;

use super::{Collector, HELD_LONG, Stage};
use crate::gc::monitors::GraphChange;
use crate::gc::queue::Backoff;
use crate::gc::retry::Delays;

impl Collector {
    /// Applies graphChanges as they come (upstream `runProcessGraphChanges`), recording each
    /// `OwnerRefInvalidNamespace` event on a task of its own, until the channel closes.
    pub(in crate::gc) async fn build_graph(self: Arc<Self>, mut changes: mpsc::UnboundedReceiver<GraphChange>) {
        while let Some(change) = changes.recv().await {
            for (dependent, owner) in self.apply_graph_change(&change) {
                self.in_flight.fetch_add(1, Ordering::SeqCst);
                let c = self.clone();
                tokio::spawn(async move {
                    c.record_invalid_namespace_event(&dependent, &owner).await;
                    c.in_flight.fetch_sub(1, Ordering::SeqCst);
                    c.activity.raise();
                });
            }
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            self.activity.raise();
        }
    }

    /// Resyncs the monitors with discovery every resync period, or sooner when asked or when a
    /// group version has never been discovered (upstream `Sync`'s loop); failures back off.
    pub(in crate::gc) async fn keep_discovery_current(self: Arc<Self>) {
        let mut delays = Delays::new(Backoff { base: Duration::from_millis(100), max: self.config.resync_period });
        loop {
            let target = self.resync_requested.load(Ordering::SeqCst);
            if let Err(e) = self.resync_monitors().await {
                let delay = delays.next_delay();
                tracing::warn!(error = %e, "waiting for discovery; keeping the current monitors, retrying in {delay:?}");
                tokio::time::sleep(delay).await;
                continue;
            }
            self.resync_completed.store(target, Ordering::SeqCst);
            self.sync_changed();
            // Group versions never discovered are asked for again soon, not a period later.
            let wait = if self.undiscovered.lock().unwrap_or_else(|p| p.into_inner()).is_empty() {
                delays.reset();
                self.config.resync_period
            } else {
                delays.next_delay()
            };
            let again = self.resync_requested.load(Ordering::SeqCst) != target;
            if !again {
                let _ = tokio::time::timeout(wait, self.resync_notify.notified()).await;
            }
        }
    }

    /// Says why foreground deletion and orphaning have stopped, every [`HELD_LONG`] while work
    /// has been held that long.
    pub(in crate::gc) async fn warn_while_held(self: Arc<Self>) {
        loop {
            tokio::time::sleep(HELD_LONG).await;
            if let Some(waited) = self.held.oldest().filter(|w| *w >= HELD_LONG) {
                let waiting_for = self.graph_incomplete().join("; ");
                tracing::warn!(items = self.held.items().len(), %waiting_for, "work held for {waited:?} until the graph is complete");
            }
        }
    }

    /// Lets the workers start (after the start's wait for the initial lists).
    pub(in crate::gc) fn start_workers(&self) {
        self.workers_started.open();
        self.activity.raise();
    }

    /// One worker of `stage` (upstream `runAttemptToDeleteWorker`, `runAttemptToOrphanWorker`):
    /// waits for the workers to start, then works on items until the queue shuts down.
    pub(in crate::gc) async fn work(self: Arc<Self>, stage: Stage) {
        self.workers_started.wait().await;
        while let Some(item) = self.queue(stage).get().await {
            self.work_on(stage, &item).await;
        }
    }

    /// Shuts the queues down and stops the monitors.
    pub(in crate::gc) fn shut_down(&self) {
        self.attempt_to_delete.shut_down();
        self.attempt_to_orphan.shut_down();
        self.monitors.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}
