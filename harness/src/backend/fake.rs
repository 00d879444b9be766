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
}

impl std::fmt::Debug for FakeBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FakeBackend")
    }
}

impl FakeBackend {
    /// Starts the server and the collector. Must be called inside a Tokio runtime.
    pub fn start() -> Self {
        let server = ApiServer::new();
        let gc = Some(Arc::new(GarbageCollector::start(server.client(), Config::default())));
        Self { server, gc }
    }

    /// The fake apiserver alone, with no garbage collector.
    pub fn without_gc() -> Self {
        Self { server: ApiServer::new(), gc: None }
    }

    fn gc_state(&self) -> kubegc::gc::Settled {
        match &self.gc {
            Some(gc) => gc.settled_with(|g, r| self.server.resource_revision(g, r)),
            None => kubegc::gc::Settled { settled: true, pending: vec!["no garbage collector is running (--gc none)".into()] },
        }
    }
}

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

    fn eventually_timeout(&self) -> Duration {
        Duration::from_secs(10)
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
