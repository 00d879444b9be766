//! The fake backend: a [`kubegc::Cluster`] in this process — the fake apiserver with the
//! reference garbage collector and the workload controllers, talking over the in-process HTTP
//! service. Settled means the collector has observed every write and has no work left, the
//! workload controllers have nothing to write, and the apiserver's own controllers are idle.

use std::time::Duration;

use std::sync::Arc;

use futures::future::BoxFuture;
use kubegc::Cluster;
use kubegc::apiserver::ApiServer;
use kubegc::clock::Clock;
use kubegc::gc::Config;

use crate::backend::{Backend, Own, OwnCluster};

/// In-process fake apiserver plus reference collector and workload controllers.
pub struct FakeBackend {
    cluster: Cluster,
    /// How long an "eventually" assertion waits.
    eventually: Duration,
    /// How a scenario's cluster of its own is made: as this one, mutants included.
    recipe: Recipe,
}

/// What a cluster of a scenario's own shares with the backend's: the mutants, and whether a
/// collector runs.
#[derive(Clone, Debug, Default)]
pub struct Recipe {
    /// The API server's mutant.
    pub server_mutant: Option<kubegc::apiserver::mutant::Mutant>,
    /// The collector's configuration; none without a collector.
    pub collector: Option<Config>,
    /// The cleanup controllers that run, and their mutant.
    pub cleanup: kubegc::cleanup::Config,
    /// The workload controllers' mutant.
    pub workload_mutant: Option<kubegc::workloads::mutant::Mutant>,
}

impl std::fmt::Debug for FakeBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FakeBackend")
    }
}

impl FakeBackend {
    /// Starts the reference collector, the workload controllers and the cleanup controllers
    /// against `server`. Must be called inside a Tokio runtime.
    pub fn start(server: ApiServer) -> Self {
        let mutant = server.mutant();
        Self::from_recipe(server, Recipe { server_mutant: mutant, collector: Some(Config::default()), ..Recipe::default() })
    }

    /// The controllers `recipe` says against `server`, and clusters of scenarios' own made
    /// the same way.
    pub fn from_recipe(server: ApiServer, recipe: Recipe) -> Self {
        let cluster = Self::builder(&recipe).server(server).cleanup_config(recipe.cleanup.clone()).start();
        Self { cluster, eventually: DEFAULT_EVENTUALLY, recipe }
    }

    /// A cluster builder with the collector and the workload mutant of `recipe`.
    fn builder(recipe: &Recipe) -> kubegc::cluster::Builder {
        let builder = Cluster::builder().workload_mutant(recipe.workload_mutant);
        match &recipe.collector {
            Some(config) => builder.collector_config(config.clone()),
            None => builder.without_collector(),
        }
    }

    /// The same backend with "eventually" assertions waiting `timeout` (the default is
    /// generous for loaded machines; a mutation run, where many scenarios must fail, wants less).
    pub fn with_eventually_timeout(mut self, timeout: Duration) -> Self {
        self.eventually = timeout;
        self
    }
}

/// How long an "eventually" assertion waits by default.
const DEFAULT_EVENTUALLY: Duration = Duration::from_secs(10);

/// How long settling may take before the scenario fails with the collector's explanation.
const SETTLE_LIMIT: Duration = Duration::from_secs(30);

impl Backend for FakeBackend {
    fn name(&self) -> &str {
        "fake"
    }

    fn client(&self) -> kube::Client {
        self.cluster.client()
    }

    fn settle(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(self.cluster.try_settle(SETTLE_LIMIT))
    }

    fn settles_exactly(&self) -> bool {
        true
    }

    fn new_kind_delay(&self) -> Duration {
        // Settling waits for the collector to watch every served kind.
        Duration::ZERO
    }

    fn eventually_timeout(&self) -> Duration {
        self.eventually
    }

    fn can_run(&self, _tags: &[String]) -> Result<(), String> {
        Ok(())
    }

    fn gives_own_clusters(&self) -> bool {
        true
    }

    fn has_virtual_clock(&self) -> bool {
        true
    }

    fn own_cluster(&self, spec: &OwnCluster) -> BoxFuture<'_, Result<Own, String>> {
        let spec = spec.clone();
        Box::pin(async move {
            let clock = Clock::virtual_at(kubegc::clock::Clock::real().now());
            // No node agent: as on a control plane without kubelets, a pod bound to a node stays
            // terminating until someone force-deletes it (the pod garbage collector, say).
            let config = kubegc::apiserver::Config { clock, mutant: self.recipe.server_mutant, node_agent: false, ..Default::default() };
            let cluster = Self::builder(&self.recipe)
                .server_config(config)
                .nodes(spec.nodes)
                .node_disks(spec.disks.clone().unwrap_or_default())
                .cleanup_config(spec.cleanup_config(self.recipe.cleanup.clone()))
                .start();
            let backend = Self { cluster, eventually: self.eventually, recipe: self.recipe.clone() };
            Ok(Own::Backend(Arc::new(backend)))
        })
    }

    fn set_instance(&self, node: &str, instance: kubegc::cloud::Instance) -> BoxFuture<'_, Result<(), String>> {
        self.cluster.cloud().set(node, instance);
        Box::pin(async { Ok(()) })
    }

    fn let_time_pass(&self, by: Duration) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            if !self.cluster.server().clock().is_virtual() {
                tokio::time::sleep(by).await;
                return Ok(());
            }
            let by = chrono::Duration::from_std(by).map_err(|e| e.to_string())?;
            self.cluster.advance(by, SETTLE_LIMIT).await
        })
    }

    fn diagnostics(&self) -> String {
        let pending = self.cluster.pending();
        if self.cluster.collector().is_none() {
            "no garbage collector is running (--gc none)".into()
        } else if pending.is_empty() {
            "the garbage collector and the controllers have nothing pending".into()
        } else {
            format!("pending: {}", pending.join("; "))
        }
    }
}
