//! The fake backend: a [`kubegc::Cluster`] in this process — the fake apiserver with the
//! reference garbage collector and the workload controllers, talking over the in-process HTTP
//! service. Settled means the collector has observed every write and has no work left, the
//! workload controllers have nothing to write, and the apiserver's own controllers are idle.

use std::time::Duration;

use futures::future::BoxFuture;
use kubegc::Cluster;
use kubegc::apiserver::ApiServer;
use kubegc::gc::Config;

use crate::backend::Backend;

/// In-process fake apiserver plus reference collector and workload controllers.
pub struct FakeBackend {
    cluster: Cluster,
    /// How long an "eventually" assertion waits.
    eventually: Duration,
}

impl std::fmt::Debug for FakeBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FakeBackend")
    }
}

impl FakeBackend {
    /// Starts the reference collector and the workload controllers against `server`. Must be
    /// called inside a Tokio runtime.
    pub fn start(server: ApiServer) -> Self {
        Self::with_collector(server, Config::default())
    }

    /// Starts a collector configured so (a mutant, for instance) against `server`.
    pub fn with_collector(server: ApiServer, config: Config) -> Self {
        Self::of(Cluster::builder().server(server).collector_config(config).start())
    }

    /// The fake apiserver and its workload controllers, with no garbage collector.
    pub fn without_gc(server: ApiServer) -> Self {
        Self::of(Cluster::builder().server(server).without_collector().start())
    }

    /// The backend of a started `cluster`.
    pub fn of(cluster: Cluster) -> Self {
        Self { cluster, eventually: DEFAULT_EVENTUALLY }
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
