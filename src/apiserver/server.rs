//! The server: how it behaves ([`Config`]) and the state every request handler shares
//! ([`Server`]), with the task that runs its upkeep and the simulated controllers' passes.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, MutexGuard};

use crate::activity::Activity;
use crate::apiserver::status::ApiError;
use crate::apiserver::storage::Storage;
use crate::apiserver::{admission, ids, kinds, mutant};
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
/// configuration. [`crate::apiserver::ApiServer`] is a cheap handle to it.
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
    /// A server with `config`, and the task that runs its upkeep and the simulated
    /// controllers while it lives. Must be called inside a Tokio runtime.
    pub fn start(config: Config) -> Arc<Self> {
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
        server
    }

    /// Raised after every pass of the simulated controllers that had work or expired Events.
    pub fn activity(&self) -> &Activity {
        &self.activity
    }

    /// Locks the storage.
    pub fn lock(&self) -> MutexGuard<'_, Storage> {
        self.storage.lock()
    }
}
