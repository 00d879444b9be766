//! The cleanup controllers: what kube-controller-manager (and the API server) collect besides
//! objects whose owners are gone — terminated pods, finished Jobs, stale certificate signing
//! requests, released volumes. Each is an ordinary API client, as the reference collector is,
//! and a specification of its upstream namesake: its rules are cited from upstream's source.
//!
//! Every controller is level-based: a pass lists what it needs afresh and acts on it. The
//! controllers run one after another in one task; a pass that wrote starts the round again, a
//! round that writes nothing leaves them settled at the revisions they read, until a watched
//! resource changes or the earliest moment a controller asked to look again comes (on the
//! [`Clock`], so a virtual clock judges hour-long rules at once).
//!
//! - [`pod_gc`]: the pod garbage collector.
//! - [`pv_reclaim`]: the PersistentVolume controller's reclaim of volumes whose claim is gone.
//! - [`pvc_protection`], [`pv_protection`]: the storage-protection finalizers' controllers;
//!   [`protection`]: what they share.
//! - [`identity_leases`]: kube-apiserver's collector of expired identity leases.
//! - [`ttl_after_finished`]: the TTL-after-finished controller, for finished Jobs.
//! - [`csr_cleaner`]: the cleaner of stale certificate signing requests.
//! - [`config`]: which controllers run, with which thresholds, and the mutants.
//! - [`pass`]: what a pass reads through and what it tells the loop.
//! - [`mutant`]: deliberately broken rules, for judging the specification.

pub mod config;
pub mod csr_cleaner;
pub mod identity_leases;
pub mod mutant;
pub mod pass;
pub mod pod_gc;
pub mod protection;
pub mod pv_protection;
pub mod pv_reclaim;
pub mod pvc_protection;
pub mod ttl_after_finished;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::StreamExt;
use kube::api::{Api, ApiResource, DynamicObject, WatchParams};

pub use config::Config;
use pass::{Context, Controller};

use crate::clock::Clock;

/// How long a quiet round waits for a change or a due moment before it looks again anyway.
const RESYNC: Duration = Duration::from_secs(30);

/// How long the controllers wait before retrying a round that failed.
const RETRY: Duration = Duration::from_millis(200);

/// The running cleanup controllers. Dropping them stops them.
pub struct Cleanup {
    progress: Arc<Progress>,
    clock: Clock,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for Cleanup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cleanup").field("busy", &self.progress.busy.load(Ordering::SeqCst)).finish()
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// How far the controllers have got.
#[derive(Debug, Default)]
struct Progress {
    /// Whether a round is running or due.
    busy: AtomicBool,
    /// What the last quiet round saw: each watched `(group, plural)` up to its revision, and
    /// the earliest moment a controller asked to look again.
    settled: Mutex<Settled>,
    /// Why the last round failed, until one succeeds.
    last_error: Mutex<Option<String>>,
}

/// The state a quiet round left.
#[derive(Debug, Default)]
struct Settled {
    seen: BTreeMap<(String, String), u64>,
    due: Option<DateTime<Utc>>,
}

impl Cleanup {
    /// Starts the controllers `config` turns on against `client`, timed by `clock`. Must be
    /// called inside a Tokio runtime.
    pub fn start(client: kube::Client, clock: Clock, config: Config) -> Self {
        let progress = Arc::new(Progress { busy: AtomicBool::new(true), ..Default::default() });
        let controllers = config.controllers();
        let context = Context::new(client, clock.clone(), config.mutant);
        let task = tokio::spawn(run(context, controllers, progress.clone()));
        Self { progress, clock, task }
    }

    /// The earliest moment a controller waits for, as the last quiet round left it.
    pub fn due(&self) -> Option<DateTime<Utc>> {
        self.progress.settled.lock().unwrap_or_else(|e| e.into_inner()).due
    }

    /// What the controllers still have to do before they have seen every change to what they
    /// watch, have nothing to write, and no moment they wait for has come; empty when settled.
    /// `revision_of(group, resource)` is the revision of the resource's last write (see
    /// [`crate::apiserver::ApiServer::resource_revision`]).
    pub fn pending(&self, revision_of: impl Fn(&str, &str) -> u64) -> Vec<String> {
        let p = &self.progress;
        let mut pending = Vec::new();
        if let Some(e) = p.last_error.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            pending.push(format!("the cleanup controllers retry after: {e}"));
        }
        if p.busy.load(Ordering::SeqCst) {
            pending.push("the cleanup controllers are in a round".into());
            return pending;
        }
        let settled = p.settled.lock().unwrap_or_else(|e| e.into_inner());
        for ((group, resource), seen) in &settled.seen {
            let written = revision_of(group, resource);
            if written > *seen {
                pending.push(format!("the cleanup controllers have seen {resource} up to {seen}, written at {written}"));
            }
        }
        if let Some(due) = settled.due.filter(|due| *due <= self.clock.now()) {
            pending.push(format!("the cleanup controllers look again at {due}"));
        }
        pending
    }
}

/// The controllers' loop: rounds until one writes nothing, then a wait for a change or a due
/// moment.
async fn run(context: Context, mut controllers: Vec<Box<dyn Controller>>, progress: Arc<Progress>) {
    let watched: Vec<ApiResource> = {
        let mut all: Vec<ApiResource> = controllers.iter().flat_map(|c| c.watches()).collect();
        all.sort_by(|a, b| (&a.group, &a.plural).cmp(&(&b.group, &b.plural)));
        all.dedup_by(|a, b| a.group == b.group && a.plural == b.plural);
        all
    };
    loop {
        progress.busy.store(true, Ordering::SeqCst);
        context.start_round();
        let mut wrote = false;
        let mut due: Option<DateTime<Utc>> = None;
        let mut failure = None;
        for controller in &mut controllers {
            match controller.pass(&context).await {
                Ok(outcome) => {
                    wrote |= outcome.wrote;
                    due = match (due, outcome.again_at) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                }
                Err(e) => failure = Some(format!("{}: {e}", controller.name())),
            }
        }
        if let Some(why) = failure {
            tracing::debug!("cleanup controllers: {why}");
            *progress.last_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
            tokio::time::sleep(RETRY).await;
            continue;
        }
        if wrote {
            continue;
        }
        *progress.last_error.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let seen = context.seen();
        let from = seen.values().copied().min().unwrap_or(0);
        *progress.settled.lock().unwrap_or_else(|e| e.into_inner()) = Settled { seen, due };
        progress.busy.store(false, Ordering::SeqCst);
        wait(&context, &watched, from, due).await;
    }
}

/// Waits until a watched resource changes after `revision`, the clock reaches `due`, an error
/// ends a watch, or [`RESYNC`] passes.
async fn wait(context: &Context, watched: &[ApiResource], revision: u64, due: Option<DateTime<Utc>>) {
    let mut watches = Vec::new();
    for resource in watched {
        let api: Api<DynamicObject> = Api::all_with(context.client.clone(), resource);
        match api.watch_metadata(&WatchParams::default().timeout(290), &revision.to_string()).await {
            Ok(stream) => watches.push(stream.map(|_| ()).boxed()),
            Err(_) => {
                tokio::time::sleep(RETRY).await;
                return;
            }
        }
    }
    let changed = async {
        if watches.is_empty() {
            futures::future::pending::<()>().await;
        }
        futures::stream::select_all(watches).next().await;
    };
    let due = async {
        match due {
            Some(at) => context.clock.sleep_until(at).await,
            None => futures::future::pending().await,
        }
    };
    tokio::select! {
        () = changed => {}
        () = due => {}
        () = tokio::time::sleep(RESYNC) => {}
    }
}
