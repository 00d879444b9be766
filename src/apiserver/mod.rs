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
//! The request path goes down these layers (see `docs/architecture.md` for one DELETE followed
//! through them):
//! - [`http`]: routes, dispatch, body and query decoding, rendering, watch streams. The only
//!   module that knows HTTP.
//! - [`storage`]: the generic store's verbs (`create`, `read`, `update`, `delete`) on
//!   [`storage::Storage`], everything behind the server's one lock; its [`storage::store`]
//!   keeps versioned objects, one global revision and the watch history.
//! - [`catalogue`]: the served resources, their scope and per-resource rules; [`crd`] adds
//!   resources from CustomResourceDefinitions.
//! - [`kinds`]: what is special about one kind (pods, namespaces, CRDs, claims and volumes,
//!   events), behind the store's hook trait; [`admission`]: what the default admission
//!   plugins add to a new object; [`defaults`]: what the defaulting functions of each built-in
//!   kind's API group fill on every write.
//! - Rules, as pure functions: [`deletion`] (what a DELETE does, upstream `store.go`'s `Delete`),
//!   [`validation`] and [`schema`] (metadata, unknown fields and values of the wrong type,
//!   custom resources pruned by their schema), [`enums`] (the enumerated fields controllers
//!   write), [`declarative`] (what only declarative validation checks), [`cron_schedule`] (CronJob schedules as the cron parser reads them), [`pod_specs`] (the pod specs objects hold, their volume references), [`strict`] (bodies decoded with their repeated keys), [`patch`], [`apply`]
//!   (server-side apply and managedFields), [`selectors`], [`convert`] (served and stored
//!   versions), [`scale`] (the `Scale` of a scalable object).
//! - [`controllers`]: the simulated namespace controller, CRD finalizer and node agent, and the
//!   expiry of Events (`--event-ttl`).
//! - [`faults`]: ready-made interceptors for fault injection.
//! - [`discovery`], [`openapi`]: what kubectl reads before it does anything; [`protobuf`]: the
//!   protobuf bodies typed clients send; [`kubeconfig`]: the file written for clients of a
//!   served instance; [`status`]: `Status` errors; [`go_quote`]: strings quoted as upstream's
//!   messages quote them; [`warning`]: the `Warning` headers a request's
//!   handling gives its client; [`user`]: the one user every request is served as.
//! - [`mutant`]: deliberately broken rules, for judging specifications.

pub mod admission;
pub mod apply;
pub mod catalogue;
pub mod controllers;
pub mod convert;
pub mod crd;
pub mod cron_schedule;
pub mod declarative;
pub mod defaults;
pub mod deletion;
pub mod discovery;
pub mod enums;
pub mod faults;
pub mod go_fmt;
pub mod go_json;
pub mod go_quote;
pub mod go_time;
pub mod go_yaml;
pub mod http;
pub mod ids;
pub mod kinds;
pub mod kubeconfig;
pub mod mutant;
pub mod openapi;
pub mod patch;
pub mod pod_specs;
pub mod protobuf;
pub mod scale;
pub mod schema;
pub mod scheme;
pub mod selectors;
pub mod status;
pub mod storage;
pub mod strict;
pub mod user;
pub mod validation;
pub mod warning;
pub mod write_warnings;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use parking_lot::{Mutex, MutexGuard};

use crate::activity::Activity;
use crate::apiserver::status::ApiError;
use crate::apiserver::storage::Storage;
use crate::clock::Clock;

/// A hook that sees every request before it is served and may answer it with an error
/// instead: the seam for fault injection.
pub type Interceptor = Arc<dyn Fn(&::http::request::Parts) -> Option<ApiError> + Send + Sync>;

/// How the fake apiserver behaves.
#[derive(Clone)]
pub struct Config {
    /// Clock for timestamps and grace periods.
    pub clock: Clock,
    /// Where uids and generated names come from.
    pub ids: ids::Ids,
    /// How many writes are kept for watches to resume from; older resourceVersions get 410.
    pub history_limit: usize,
    /// How often a watch that asked for bookmarks gets one.
    pub bookmark_interval: Duration,
    /// Whether the node agent finishes graceful pod deletions (as kubelets would).
    pub node_agent: bool,
    /// How often the simulated controllers run.
    pub controller_interval: Duration,
    /// How often the server's own upkeep runs, whatever controllers run beside it: Event
    /// expiry, its identity lease, the legacy token tracking ConfigMap.
    pub upkeep_interval: Duration,
    /// Whether GC finalizers are managed on delete (kube-apiserver's
    /// `--enable-garbage-collector`, the store's `EnableGarbageCollection`). When off,
    /// propagation options are ignored and only user finalizers keep objects.
    pub garbage_collection: bool,
    /// Whether the namespace controller runs (as kube-controller-manager does): it empties a
    /// terminating namespace and then removes it. Off, a deleted namespace stays `Terminating`,
    /// as on a control plane with no controller manager.
    pub namespace_controller: bool,
    /// How long an Event lives after its last write (kube-apiserver's `--event-ttl`, 1 h by
    /// default; upstream Event storage's `NewREST`): every create and update restarts it, on
    /// [`Config::clock`].
    pub event_ttl: Duration,
    /// How long a new pod waits for its namespace's missing `default` ServiceAccount before
    /// admission refuses it: upstream's ServiceAccount plugin looks it up ten times, 100–200 ms
    /// apart (`getServiceAccount`, kubernetes plugin/pkg/admission/serviceaccount/admission.go),
    /// as the service account controller makes it soon after its namespace. Zero refuses at
    /// once, for a caller that never makes the account while a request waits.
    pub default_account_wait: Duration,
    /// Optional fault-injection hook.
    pub interceptor: Option<Interceptor>,
    /// A deliberately broken rule, for judging a specification; `None` in normal use.
    pub mutant: Option<mutant::Mutant>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            clock: Clock::real(),
            ids: ids::Ids::random(),
            history_limit: 100_000,
            bookmark_interval: Duration::from_secs(1),
            node_agent: true,
            controller_interval: Duration::from_millis(50),
            upkeep_interval: Duration::from_secs(1),
            garbage_collection: true,
            namespace_controller: true,
            event_ttl: Duration::from_secs(3600),
            default_account_wait: admission::DEFAULT_ACCOUNT_WAIT,
            interceptor: None,
            mutant: None,
        }
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("clock", &self.clock)
            .field("ids", &self.ids)
            .field("history_limit", &self.history_limit)
            .field("bookmark_interval", &self.bookmark_interval)
            .field("node_agent", &self.node_agent)
            .field("garbage_collection", &self.garbage_collection)
            .field("namespace_controller", &self.namespace_controller)
            .field("event_ttl", &self.event_ttl)
            .field("default_account_wait", &self.default_account_wait)
            .field("mutant", &self.mutant)
            .field("interceptor", &self.interceptor.is_some())
            .finish()
    }
}

/// The server itself, which every handler shares: its storage behind one lock, and its
/// configuration. [`ApiServer`] is a cheap handle to it.
pub struct Server {
    /// The storage. No lock is held across an await, and every operation under it is short
    /// and synchronous.
    storage: Mutex<Storage>,
    /// The configuration.
    pub config: Config,
    /// Clock (also in `config`), kept here for renderers.
    pub clock: Clock,
    /// Raised after every pass of the simulated controllers that had work or expired Events.
    activity: Activity,
}

impl Server {
    /// Locks the storage.
    pub fn lock(&self) -> MutexGuard<'_, Storage> {
        self.storage.lock()
    }
}

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
        let mut storage = Storage::new(config.clock.clone(), config.ids.clone(), config.history_limit, kinds::of);
        storage.garbage_collection = config.garbage_collection;
        storage.namespace_controller = config.namespace_controller;
        storage.event_ttl = chrono::Duration::from_std(config.event_ttl).unwrap_or(chrono::Duration::MAX);
        storage.mutant = config.mutant;
        let server = Arc::new(Server { storage: Mutex::new(storage), clock: config.clock.clone(), config, activity: Activity::default() });
        let weak = Arc::downgrade(&server);
        tokio::spawn(async move {
            // When each last ran; both run at once.
            let (mut upkept, mut controlled): (Option<tokio::time::Instant>, Option<tokio::time::Instant>) = (None, None);
            loop {
                let Some(server) = weak.upgrade() else { return };
                let (controllers, upkeep) = (server.config.controller_interval, server.config.upkeep_interval);
                let worked = {
                    let mut storage = server.lock();
                    let mut worked = false;
                    if upkept.is_none_or(|at| at.elapsed() >= upkeep) {
                        worked |= storage.events_due();
                        storage.expire_events();
                        storage.renew_identity_lease();
                        worked |= storage.track_legacy_tokens();
                        upkept = Some(tokio::time::Instant::now());
                    }
                    if !storage.awaiting_controllers.is_empty() && controlled.is_none_or(|at| at.elapsed() >= controllers) {
                        storage.run_controllers(server.config.node_agent);
                        controlled = Some(tokio::time::Instant::now());
                        worked = true;
                    }
                    worked
                };
                if worked {
                    server.activity.raise();
                }
                drop(server);
                tokio::time::sleep(controllers.min(upkeep)).await;
            }
        });
        Self { server }
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
        &self.server.activity
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
