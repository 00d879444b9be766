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
//! - [`node_health`]: the node lifecycle controller's marking of silent Nodes `Unknown`.
//! - [`cloud_nodes`]: a cloud's node lifecycle controller: Nodes whose machine is gone.
//! - [`config`]: which controllers run, with which thresholds, and the mutants.
//! - [`pass`]: what a pass reads through and what it tells the loop.
//! - [`mutant`]: deliberately broken rules, for judging the specification.

pub mod cloud_nodes;
pub mod config;
pub mod csr_cleaner;
pub mod identity_leases;
pub mod mutant;
pub mod node_health;
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
use futures::{FutureExt, StreamExt};
use kube::api::{Api, ApiResource, DynamicObject, WatchParams};

pub use config::Config;
use pass::{Context, Controller};

use crate::activity::Activity;
use crate::clock::Clock;
use crate::cloud::Cloud;
use crate::unreadable::Reporter;

/// How long a quiet round waits for a change or a due moment before it looks again anyway.
const RESYNC: Duration = Duration::from_secs(30);

/// How long the controllers wait before retrying a round that failed.
const RETRY: Duration = Duration::from_millis(200);

/// The running cleanup controllers. Dropping them stops them.
pub struct Cleanup {
    progress: Arc<Progress>,
    clock: Clock,
    cloud: Option<Cloud>,
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
    /// Raised when a round leaves the controllers settled.
    activity: Activity,
}

/// The state a quiet round left.
#[derive(Debug, Default)]
struct Settled {
    seen: BTreeMap<(String, String), u64>,
    due: Option<DateTime<Utc>>,
    /// The generation of the cloud the round read, if a controller asks one.
    cloud_seen: Option<u64>,
}

impl Cleanup {
    /// Starts the controllers `config` turns on against `client`, timed by `clock`, the cloud
    /// node lifecycle controller asking `cloud`. Must be called inside a Tokio runtime.
    pub fn start(client: kube::Client, clock: Clock, config: Config, cloud: &Cloud) -> Self {
        let progress = Arc::new(Progress { busy: AtomicBool::new(true), ..Default::default() });
        let controllers = config.controllers(cloud);
        let cloud = controllers.iter().find_map(|c| c.cloud().cloned());
        let context = Context::new(client, clock.clone(), config.mutant);
        let task = tokio::spawn(run(context, controllers, progress.clone()));
        Self { progress, clock, cloud, task }
    }

    /// The earliest moment a controller waits for, as the last quiet round left it.
    pub fn due(&self) -> Option<DateTime<Utc>> {
        self.progress.settled.lock().unwrap_or_else(|e| e.into_inner()).due
    }

    /// Raised when a round that wrote nothing leaves the controllers settled.
    pub fn activity(&self) -> &Activity {
        &self.progress.activity
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
        if let (Some(cloud), Some(seen)) = (&self.cloud, settled.cloud_seen) {
            if cloud.generation() > seen {
                pending
                    .push(format!("the cleanup controllers have seen the cloud up to change {seen}, changed {} times", cloud.generation()));
            }
        }
        if let Some(due) = settled.due.filter(|due| *due <= self.clock.now()) {
            pending.push(format!("the cleanup controllers look again at {due}"));
        }
        pending
    }
}

/// The controllers' loop: rounds until one writes nothing, then a wait for a change or a due
/// moment. A round after a change (or the first, or one after a write or a failure) runs every
/// controller; a round the clock alone woke runs only the controllers whose moment has come,
/// as nothing the others read has changed, and the watches it waited on are kept for the next
/// wait.
async fn run(context: Context, controllers: Vec<Box<dyn Controller>>, progress: Arc<Progress>) {
    let watched: Vec<ApiResource> = {
        let mut all: Vec<ApiResource> = controllers.iter().flat_map(|c| c.watches()).collect();
        all.sort_by(|a, b| (&a.group, &a.plural).cmp(&(&b.group, &b.plural)));
        all.dedup_by(|a, b| a.group == b.group && a.plural == b.plural);
        all
    };
    let cloud = controllers.iter().find_map(|c| c.cloud().cloned());
    let mut scheduled: Vec<Scheduled> = controllers.into_iter().map(|controller| Scheduled { controller, again_at: None }).collect();
    let mut seen: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut watches: Option<Watches> = None;
    let mut everyone = true;
    let mut reporter = Reporter::new("kube-controller-manager");
    loop {
        progress.busy.store(true, Ordering::SeqCst);
        context.start_round();
        let cloud_seen = cloud.as_ref().map(Cloud::generation);
        let now = context.clock.now();
        let mut wrote = false;
        let mut failure = None;
        for entry in &mut scheduled {
            if !everyone && entry.again_at.is_none_or(|at| at > now) {
                continue;
            }
            match entry.controller.pass(&context).await {
                Ok(outcome) => {
                    wrote |= outcome.wrote;
                    entry.again_at = outcome.again_at;
                }
                Err(e) => failure = Some(format!("{}: {e}", entry.controller.name())),
            }
        }
        // Only a round of every controller says what the watched resources are seen up to: a
        // change a due controller's list saw may not have reached the controllers that watch it.
        // It also says which objects the lists could not read (and reports the new ones).
        if everyone {
            seen.extend(context.seen());
            reporter.report(&context.client, now, &context.unreadable()).await;
        }
        everyone = true;
        if let Some(why) = failure {
            tracing::debug!("cleanup controllers: {why}");
            *progress.last_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
            watches = None;
            tokio::time::sleep(RETRY).await;
            continue;
        }
        if wrote {
            watches = None;
            continue;
        }
        *progress.last_error.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let due = scheduled.iter().filter_map(|entry| entry.again_at).min();
        let watched_seen =
            watched.iter().filter_map(|r| seen.get_key_value(&(r.group.clone(), r.plural.clone()))).map(|(k, v)| (k.clone(), *v)).collect();
        *progress.settled.lock().unwrap_or_else(|e| e.into_inner()) = Settled { seen: watched_seen, due, cloud_seen };
        progress.busy.store(false, Ordering::SeqCst);
        progress.activity.raise();
        let open = match watches.take() {
            Some(open) => open,
            None => match Watches::open(&context, &watched, &seen).await {
                Ok(open) => open,
                Err(e) => {
                    tracing::debug!("cleanup controllers: watching: {e}");
                    tokio::time::sleep(RETRY).await;
                    continue;
                }
            },
        };
        watches = open.wait(&context, due, cloud.as_ref().zip(cloud_seen)).await;
        everyone = watches.is_none();
    }
}

/// A controller and the moment it last asked to look again.
struct Scheduled {
    controller: Box<dyn Controller>,
    again_at: Option<DateTime<Utc>>,
}

/// The watches a quiet round waits on: every watched resource from the revision its last list
/// saw.
struct Watches(futures::stream::SelectAll<futures::stream::BoxStream<'static, ()>>);

impl Watches {
    /// Watches every resource of `watched` from its revision in `seen` (from the oldest revision
    /// there if it was never listed).
    async fn open(context: &Context, watched: &[ApiResource], seen: &BTreeMap<(String, String), u64>) -> kube::Result<Self> {
        let oldest = seen.values().copied().min().unwrap_or(0);
        let mut all = futures::stream::SelectAll::new();
        for resource in watched {
            let from = seen.get(&(resource.group.clone(), resource.plural.clone())).copied().unwrap_or(oldest);
            let api: Api<DynamicObject> = Api::all_with(context.client.clone(), resource);
            let stream = api.watch_metadata(&WatchParams::default().timeout(290), &from.to_string()).await?;
            all.push(stream.map(|_| ()).boxed());
        }
        Ok(Self(all))
    }

    /// Waits until a watched resource changes, an error ends a watch, the `cloud` changes after
    /// the generation the round read, the clock reaches `due`, or [`RESYNC`] passes. Gives the
    /// watches back when the clock alone woke it: nothing they watch has changed, and they
    /// serve the next wait.
    async fn wait(mut self, context: &Context, due: Option<DateTime<Utc>>, cloud: Option<(&Cloud, u64)>) -> Option<Self> {
        let cloud_changed = async {
            match cloud {
                Some((cloud, seen)) => {
                    let changed = cloud.changed();
                    if cloud.generation() == seen {
                        changed.await;
                    }
                }
                None => futures::future::pending().await,
            }
        };
        let due = async {
            match due {
                Some(at) => context.clock.sleep_until(at).await,
                None => futures::future::pending().await,
            }
        };
        let changed = async {
            if self.0.is_empty() {
                futures::future::pending::<()>().await;
            }
            self.0.next().await;
        };
        let clock_alone = tokio::select! {
            () = changed => false,
            () = cloud_changed => false,
            () = due => true,
            () = tokio::time::sleep(RESYNC) => false,
        };
        let quiet = self.0.is_empty() || self.0.next().now_or_never().is_none();
        (clock_alone && quiet).then_some(self)
    }
}
