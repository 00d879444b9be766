//! A collector running on its own tasks (upstream `Run`): the graph builder, discovery and the
//! workers, started together and stopped when the handle is dropped.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::activity::{Activity, Settling};
use crate::gc::cache_sync;
use crate::gc::collector::settled::Settled;
use crate::gc::collector::{Collector, Stage};
use crate::gc::config::Config;
use crate::gc::dot;
use crate::gc::manual::ManualCollector;

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
        for t in &self.tasks {
            t.abort();
        }
        self.collector.shut_down();
    }
}

impl GarbageCollector {
    /// Starts the collector against `client`: discovery and monitors, the graph builder, and
    /// the workers. Must be called inside a Tokio runtime.
    pub fn start(client: kube::Client, config: Config) -> Self {
        let (graph_tx, graph_rx) = mpsc::unbounded_channel();
        let collector = Collector::new(client, config, graph_tx, false);
        let mut tasks = vec![
            tokio::spawn(collector.clone().build_graph(graph_rx)),
            tokio::spawn(collector.clone().keep_discovery_current()),
            tokio::spawn(collector.clone().warn_while_held()),
        ];
        let c = collector.clone();
        tasks.push(tokio::spawn(async move {
            cache_sync::wait_for_initial_sync(&c, c.config.initial_sync_timeout).await;
            c.start_workers();
        }));
        for _ in 0..collector.config.workers.max(1) {
            for stage in [Stage::AttemptToDelete, Stage::AttemptToOrphan] {
                tasks.push(tokio::spawn(collector.clone().work(stage)));
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
        self.collector.activity()
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
        self.collector.settled_with(revision_of)
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

impl Settling for GarbageCollector {
    /// What [`GarbageCollector::settled_with`] finds pending, when it finds the collector not
    /// settled (back-off waits alone do not count).
    fn pending(&self, revision_of: &dyn Fn(&str, &str) -> u64) -> Vec<String> {
        let state = self.settled_with(revision_of);
        if state.settled { Vec::new() } else { state.pending }
    }

    fn activity(&self) -> &Activity {
        GarbageCollector::activity(self)
    }
}
