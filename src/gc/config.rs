//! How the collector runs: worker counts, periods, what it leaves alone, and (for judging
//! specifications only) which rule it breaks.

use std::time::Duration;

use crate::gc::absent_cache;
use crate::gc::mutant::Mutant;
use crate::gc::queue::Backoff;

/// How the collector runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Workers for each of attemptToDelete and attemptToOrphan (kube-controller-manager: 20).
    pub workers: usize,
    /// How often discovery is re-run to pick up new or removed resources (upstream: 30 s).
    pub resync_period: Duration,
    /// How long the workers wait at the start for every monitor's initial list before they
    /// proceed with the work that needs no complete graph (kube-controller-manager: 30 s, its
    /// sync period); see [`crate::gc::cache_sync`].
    pub initial_sync_timeout: Duration,
    /// `(group, resource)` pairs never monitored; by default both kinds of events.
    pub ignored: Vec<(String, String)>,
    /// Size of the absent-owner cache (upstream: 500).
    pub absent_cache_capacity: usize,
    /// Back-off for retried work items.
    pub backoff: Backoff,
    /// A deliberately broken rule, to check that a specification catches it; `None` in any real use.
    pub mutant: Option<Mutant>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            workers: 20,
            resync_period: Duration::from_secs(30),
            initial_sync_timeout: Duration::from_secs(30),
            ignored: vec![(String::new(), "events".into()), ("events.k8s.io".into(), "events".into())],
            absent_cache_capacity: absent_cache::DEFAULT_CAPACITY,
            backoff: Backoff::default(),
            mutant: None,
        }
    }
}
