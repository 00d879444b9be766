//! Backends: where scenarios run. Each gives a scenario a client, a way to judge that the
//! garbage collector has settled (so that "still exists" never sleeps on the fake), and the
//! timeout for "eventually" assertions.

pub mod external;
pub mod fake;
#[cfg(feature = "k3s")]
pub mod k3s;
pub mod kubeconfig;
pub mod upstream;

use std::time::Duration;

use futures::future::BoxFuture;

/// How often kube-controller-manager's garbage collector re-reads discovery to watch new
/// kinds (hard-wired in its start-up: 30 s), and a little more.
pub const DISCOVERY_RESYNC: Duration = Duration::from_secs(31);

/// A place to run scenarios.
pub trait Backend: Send + Sync + std::fmt::Debug {
    /// A short name for reports (`fake`, `kubeconfig`).
    fn name(&self) -> &str;
    /// A client for the backend's API server.
    fn client(&self) -> kube::Client;
    /// Resolves when the garbage collector has caught up with every change made so far, or
    /// fails with what it is still waiting for.
    fn settle(&self) -> BoxFuture<'_, Result<(), String>>;
    /// How long an "eventually" assertion waits.
    fn eventually_timeout(&self) -> Duration;
    /// Whether a scenario with these tags can run here; `Err` says why not.
    fn can_run(&self, tags: &[String]) -> Result<(), String>;
    /// How long after a kind is defined the garbage collector may still not watch it: none
    /// where settling says so; elsewhere a collector's discovery resync period
    /// ([`DISCOVERY_RESYNC`] for kube-controller-manager's).
    fn new_kind_delay(&self) -> Duration {
        DISCOVERY_RESYNC
    }
    /// Resolves, with why, when the backend can no longer judge any scenario (a collector
    /// run as a process of its own exited); never, by default.
    fn stopped(&self) -> BoxFuture<'_, String> {
        Box::pin(futures::future::pending())
    }
    /// What the garbage collector is still doing, for failure messages (empty when unknown).
    fn diagnostics(&self) -> String {
        String::new()
    }
}
