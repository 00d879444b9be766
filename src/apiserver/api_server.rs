//! The fake apiserver as its users hold it ([`ApiServer`]): a cheap handle to a [`Server`] that
//! serves it in-process (a router, a `kube::Client` with no socket) or on a port.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use parking_lot::MutexGuard;

use crate::activity::{Activity, Settling};
use crate::apiserver::http;
use crate::apiserver::mutant;
use crate::apiserver::server::{Config, Server};
use crate::apiserver::storage::Storage;
use crate::clock::Clock;

/// The fake apiserver. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct ApiServer {
    server: Arc<Server>,
}

impl Default for ApiServer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for ApiServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiServer").field("config", &self.server.config).finish()
    }
}

impl ApiServer {
    /// A server with the default configuration. Must be called inside a Tokio runtime: it
    /// starts the simulated controllers.
    pub fn new() -> Self {
        Self::with_config(Config::default())
    }

    /// A server with `config`. Must be called inside a Tokio runtime.
    pub fn with_config(config: Config) -> Self {
        Self { server: Server::start(config) }
    }

    /// The axum router serving the Kubernetes API (see [`http`]).
    pub fn router(&self) -> Router {
        http::router(self.server.clone())
    }

    /// A `kube::Client` that talks to this server in-process, with no socket.
    pub fn client(&self) -> kube::Client {
        kube::Client::new(self.router(), "default")
    }

    /// Serves the API on `addr` over plain HTTP until the returned handle is dropped or
    /// aborted, naming the bound address in the identity Lease. Returns the bound address
    /// (useful with port 0).
    pub async fn serve(&self, addr: SocketAddr) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        self.lock().advertise(local);
        let router = self.router();
        let handle = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router).await {
                tracing::error!(error = %e, "apiserver stopped");
            }
        });
        Ok((local, handle))
    }

    /// Locks the server's storage, for in-process inspection (tests, benchmarks). Hold it
    /// briefly: every request waits for it.
    pub fn lock(&self) -> MutexGuard<'_, Storage> {
        self.server.lock()
    }

    /// The store's current revision (the resourceVersion a list would return now).
    pub fn revision(&self) -> u64 {
        self.server.lock().store.revision()
    }

    /// The revision of the last write to `resource` in `group` (0 if never written): a watcher
    /// of that resource that has observed this revision has seen every change to it.
    pub fn resource_revision(&self, group: &str, resource: &str) -> u64 {
        self.server.lock().store.resource_revision(group, resource)
    }

    /// The server's deliberately broken rule, if any.
    pub fn mutant(&self) -> Option<mutant::Mutant> {
        self.server.config.mutant
    }

    /// The server's clock.
    pub fn clock(&self) -> &Clock {
        &self.server.clock
    }

    /// Raised after every pass of the simulated controllers that had work or expired Events, so
    /// that a wait for [`ApiServer::controllers_idle`] need not poll.
    pub fn activity(&self) -> &Activity {
        self.server.activity()
    }

    /// Whether the simulated controllers (namespace controller, CRD finalizer, node agent) have
    /// caught up with every write and have nothing to do until time passes.
    pub fn controllers_idle(&self) -> bool {
        self.server.lock().controllers_idle()
    }

    /// Runs the simulated controllers once, now (useful after advancing a virtual clock).
    pub fn run_controllers(&self) {
        self.server.lock().run_controllers(self.server.config.node_agent);
    }
}

impl Settling for ApiServer {
    /// Whether the simulated controllers have pending work (see [`ApiServer::controllers_idle`]).
    fn pending(&self, _revision_of: &dyn Fn(&str, &str) -> u64) -> Vec<String> {
        if self.controllers_idle() { Vec::new() } else { vec!["the API server's controllers have pending work".into()] }
    }

    fn activity(&self) -> &Activity {
        ApiServer::activity(self)
    }
}
