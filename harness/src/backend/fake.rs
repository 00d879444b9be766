//! The fake backend: the in-process fake apiserver with the reference garbage collector, both
//! in this process, talking over the in-process HTTP service. Settled means the collector has
//! observed every write and has no work left, and the apiserver's simulated controllers have
//! nothing pending.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use kubegc::apiserver::ApiServer;
use kubegc::gc::{Config, GarbageCollector};

use crate::backend::Backend;

/// In-process fake apiserver plus reference collector.
pub struct FakeBackend {
    server: ApiServer,
    /// The reference collector; none to watch the apiserver's half alone.
    gc: Option<Arc<GarbageCollector>>,
    /// How long an "eventually" assertion waits.
    eventually: Duration,
}

impl std::fmt::Debug for FakeBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FakeBackend")
    }
}

impl FakeBackend {
    /// Starts the reference collector against `server`. Must be called inside a Tokio runtime.
    pub fn start(server: ApiServer) -> Self {
        Self::with_collector(server, Config::default())
    }

    /// Starts a collector configured so (a mutant, for instance) against `server`.
    pub fn with_collector(server: ApiServer, config: Config) -> Self {
        let gc = Some(Arc::new(GarbageCollector::start(server.client(), config)));
        Self { server, gc, eventually: DEFAULT_EVENTUALLY }
    }

    /// The fake apiserver alone, with no garbage collector.
    pub fn without_gc(server: ApiServer) -> Self {
        Self { server, gc: None, eventually: DEFAULT_EVENTUALLY }
    }

    /// The same backend with "eventually" assertions waiting `timeout` (the default is
    /// generous for loaded machines; a mutation run, where many scenarios must fail, wants less).
    pub fn with_eventually_timeout(mut self, timeout: Duration) -> Self {
        self.eventually = timeout;
        self
    }

    fn gc_state(&self) -> kubegc::gc::Settled {
        match &self.gc {
            Some(gc) => gc.settled_with(|g, r| self.server.resource_revision(g, r)),
            None => kubegc::gc::Settled { settled: true, pending: vec!["no garbage collector is running (--gc none)".into()] },
        }
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
        self.server.client()
    }

    fn settle(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            let start = tokio::time::Instant::now();
            loop {
                let state = self.gc_state();
                let controllers_idle = self.server.controllers_idle();
                if state.settled && controllers_idle {
                    return Ok(());
                }
                if start.elapsed() > SETTLE_LIMIT {
                    let mut why = state.pending;
                    if !controllers_idle {
                        why.push("the apiserver's simulated controllers have pending work".into());
                    }
                    return Err(format!("the garbage collector did not settle within {SETTLE_LIMIT:?}: {}", why.join("; ")));
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
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
        let state = self.gc_state();
        if state.pending.is_empty() {
            "the garbage collector has nothing pending".into()
        } else {
            format!("the garbage collector: {}", state.pending.join("; "))
        }
    }
}
