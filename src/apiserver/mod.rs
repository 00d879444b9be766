//! A fake Kubernetes API server that real clients use unchanged.
//!
//! It serves the Kubernetes REST protocol (JSON over HTTP) from memory: discovery, OpenAPI v3
//! for kubectl, CRUD, patch, list and watch with selectors and pagination, metadata-only and
//! Table representations, and the apiserver's half of garbage collection: finalizers,
//! `deletionTimestamp`, propagation policies, preconditions and per-resource default policies.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use k8s_openapi::api::core::v1::Namespace;
//! let server = kubegc::apiserver::ApiServer::new();
//! let client = server.client(); // a kube::Client with no socket
//! let namespaces = kube::Api::<Namespace>::all(client).list(&Default::default()).await.unwrap();
//! assert_eq!(namespaces.items.len(), 4); // default, kube-system, kube-public, kube-node-lease
//! # }
//! ```
//!
//! # Layout
//! - [`store`]: versioned objects, one global revision, watch history.
//! - [`registry`]: served kinds, their scope and per-resource rules; [`crd`] adds kinds.
//! - [`rest`]: the verbs (`create`, `read`, `update`, `delete`, `watch`) and the router.
//! - [`deletion`]: what a DELETE does (catalogue B.1-B.3), as pure functions.
//! - [`validation`], [`kinds`], [`schema`]: metadata and per-kind validation, defaulting and
//!   unknown-field checks.
//! - [`patch`]: merge, JSON and strategic merge patch.
//! - [`selectors`], [`request`], [`convert`], [`table`]: request parsing and rendering.
//! - [`discovery`], [`openapi`]: what kubectl reads before it does anything.
//! - [`kubeconfig`]: the kubeconfig written for clients of a served instance.
//! - [`controllers`]: simulated namespace controller, CRD finalizer and node agent.
//! - [`status`]: `Status` errors.
//! - [`mutant`]: deliberately broken rules, for judging specifications.

pub mod controllers;
pub mod convert;
pub mod crd;
pub mod deletion;
pub mod discovery;
pub mod kinds;
pub mod kubeconfig;
pub mod mutant;
pub mod openapi;
pub mod patch;
pub mod protobuf;
pub mod registry;
pub mod request;
pub mod rest;
pub mod schema;
pub mod selectors;
pub mod state;
pub mod status;
pub mod store;
pub mod table;
pub mod validation;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Request, State as AxumState};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::Value;

use crate::apiserver::state::State;
use crate::apiserver::status::ApiError;
use crate::clock::Clock;

/// A hook that sees every request before it is served and may answer it with an error
/// instead: the seam for fault injection.
pub type Interceptor = Arc<dyn Fn(&http::request::Parts) -> Option<ApiError> + Send + Sync>;

/// How the fake apiserver behaves.
#[derive(Clone)]
pub struct Config {
    /// Clock for timestamps and grace periods.
    pub clock: Clock,
    /// How many writes are kept for watches to resume from; older resourceVersions get 410.
    pub history_limit: usize,
    /// How often a watch that asked for bookmarks gets one.
    pub bookmark_interval: Duration,
    /// Whether the node agent finishes graceful pod deletions (as kubelets would).
    pub node_agent: bool,
    /// How often the simulated controllers run.
    pub controller_interval: Duration,
    /// Whether GC finalizers are managed on delete (kube-apiserver's
    /// `--enable-garbage-collector`, catalogue B.3 row 21). When off, propagation options are
    /// ignored and only user finalizers keep objects.
    pub garbage_collection: bool,
    /// Optional fault-injection hook.
    pub interceptor: Option<Interceptor>,
    /// A deliberately broken rule, for judging a specification; `None` in normal use.
    pub mutant: Option<mutant::Mutant>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            clock: Clock::real(),
            history_limit: 100_000,
            bookmark_interval: Duration::from_secs(1),
            node_agent: true,
            controller_interval: Duration::from_millis(50),
            garbage_collection: true,
            interceptor: None,
            mutant: None,
        }
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("clock", &self.clock)
            .field("history_limit", &self.history_limit)
            .field("bookmark_interval", &self.bookmark_interval)
            .field("node_agent", &self.node_agent)
            .field("garbage_collection", &self.garbage_collection)
            .field("mutant", &self.mutant)
            .field("interceptor", &self.interceptor.is_some())
            .finish()
    }
}

/// What the handlers share.
pub struct Shared {
    /// The state. A std mutex: no lock is held across an await, and every operation under it
    /// is short and synchronous.
    state: Mutex<State>,
    /// The configuration.
    pub config: Config,
    /// Clock (also in `config`), kept here for renderers.
    pub clock: Clock,
}

impl Shared {
    /// Locks the state.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The fake apiserver. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct ApiServer {
    shared: Arc<Shared>,
}

impl Default for ApiServer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for ApiServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiServer").field("config", &self.shared.config).finish()
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
        let mut state = State::new(config.clock.clone(), config.history_limit);
        state.garbage_collection = config.garbage_collection;
        state.mutant = config.mutant;
        let shared = Arc::new(Shared { state: Mutex::new(state), clock: config.clock.clone(), config });
        let weak = Arc::downgrade(&shared);
        tokio::spawn(async move {
            loop {
                let Some(shared) = weak.upgrade() else { return };
                let interval = shared.config.controller_interval;
                {
                    let mut state = shared.lock();
                    if !state.awaiting_controllers.is_empty() {
                        state.run_controllers(shared.config.node_agent);
                    }
                }
                drop(shared);
                tokio::time::sleep(interval).await;
            }
        });
        Self { shared }
    }

    /// The axum router serving the Kubernetes API.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/version", get(|| async { axum::Json(discovery::version()) }))
            .route("/api", get(|| async { axum::Json(discovery::core_versions()) }))
            .route("/apis", get(api_groups))
            .route("/api/{version}", get(core_resources))
            .route("/apis/{group}", get(api_group))
            .route("/apis/{group}/{version}", get(group_resources))
            .route("/openapi/v3", get(openapi_index))
            .route("/openapi/v3/{*path}", get(openapi_group_version))
            .route("/healthz", get(|| async { "ok" }))
            .route("/livez", get(|| async { "ok" }))
            .route("/readyz", get(|| async { "ok" }))
            .fallback(rest::handle)
            .layer(middleware::from_fn_with_state(self.shared.clone(), intercept))
            .with_state(self.shared.clone())
    }

    /// A `kube::Client` that talks to this server in-process, with no socket.
    pub fn client(&self) -> kube::Client {
        kube::Client::new(self.router(), "default")
    }

    /// Serves the API on `addr` over plain HTTP until the returned handle is dropped or
    /// aborted. Returns the bound address (useful with port 0).
    pub async fn serve(&self, addr: SocketAddr) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        let router = self.router();
        let handle = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router).await {
                tracing::error!(error = %e, "apiserver stopped");
            }
        });
        Ok((local, handle))
    }

    /// The shared state, for in-process inspection (tests, the garbage collector's settle check).
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The store's current revision (the resourceVersion a list would return now).
    pub fn revision(&self) -> u64 {
        self.shared.lock().store.revision()
    }

    /// The revision of the last write to `resource` in `group` (0 if never written): a watcher
    /// of that resource that has observed this revision has seen every change to it.
    pub fn resource_revision(&self, group: &str, resource: &str) -> u64 {
        self.shared.lock().store.resource_revision(group, resource)
    }

    /// The server's clock.
    pub fn clock(&self) -> &Clock {
        &self.shared.clock
    }

    /// Whether the simulated controllers (namespace controller, CRD finalizer, node agent) have
    /// caught up with every write and have nothing to do until time passes.
    pub fn controllers_idle(&self) -> bool {
        self.shared.lock().controllers_idle()
    }

    /// Runs the simulated controllers once, now (useful after advancing a virtual clock).
    pub fn run_controllers(&self) {
        self.shared.lock().run_controllers(self.shared.config.node_agent);
    }
}

async fn intercept(AxumState(shared): AxumState<Arc<Shared>>, request: Request, next: Next) -> Response {
    if let Some(hook) = &shared.config.interceptor {
        let (parts, body) = request.into_parts();
        if let Some(err) = hook(&parts) {
            return err.into_response();
        }
        return next.run(Request::from_parts(parts, body)).await;
    }
    next.run(request).await
}

fn json_or_404(v: Option<Value>) -> Response {
    match v {
        Some(v) => axum::Json(v).into_response(),
        None => ApiError::not_found_path().into_response(),
    }
}

async fn api_groups(AxumState(shared): AxumState<Arc<Shared>>) -> Response {
    axum::Json(discovery::groups(&shared.lock().registry)).into_response()
}

async fn api_group(AxumState(shared): AxumState<Arc<Shared>>, Path(group): Path<String>) -> Response {
    discovery::group(&shared.lock().registry, &group).map_or_else(status::page_not_found, |v| axum::Json(v).into_response())
}

async fn core_resources(AxumState(shared): AxumState<Arc<Shared>>, Path(version): Path<String>) -> Response {
    json_or_404(discovery::resources(&shared.lock().registry, "", &version))
}

async fn group_resources(AxumState(shared): AxumState<Arc<Shared>>, Path((group, version)): Path<(String, String)>) -> Response {
    let registry = &shared.lock().registry;
    if !registry.serves_group(&group) {
        return status::page_not_found();
    }
    json_or_404(discovery::resources(registry, &group, &version))
}

async fn openapi_index(AxumState(shared): AxumState<Arc<Shared>>) -> Response {
    axum::Json(openapi::v3_index(&shared.lock().registry)).into_response()
}

async fn openapi_group_version(AxumState(shared): AxumState<Arc<Shared>>, Path(path): Path<String>) -> Response {
    json_or_404(openapi::v3_group_version(&shared.lock().registry, &path))
}
