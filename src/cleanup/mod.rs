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
//! - [`mutant`]: deliberately broken rules, for judging the specification, and the seam they
//!   pass through; [`mutations`]: what each makes of the decision of the rule it breaks.

pub mod cloud_nodes;
pub mod config;
pub mod csr_cleaner;
pub mod identity_leases;
pub mod mutant;
pub mod mutations;
pub mod node_health;
pub mod pass;
pub mod pod_gc;
pub mod protection;
pub mod pv_protection;
pub mod pv_reclaim;
pub mod pvc_protection;
pub mod ttl_after_finished;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use futures::{FutureExt, StreamExt};
use kube::api::{Api, ApiResource, DynamicObject, WatchParams};

pub use config::Config;
use pass::{Context, Controller};

use crate::activity::{Activity, Settling};
use crate::clock::Clock;
use crate::cloud::Cloud;
use crate::controller_loop::{ControllerLoop, RESYNC, RETRY, Round, Rounds};
use crate::unreadable::Reporter;

/// The running cleanup controllers. Dropping them stops them.
#[derive(Debug)]
pub struct Cleanup {
    running: ControllerLoop<Settled>,
    clock: Clock,
    cloud: Option<Cloud>,
}

/// The state a quiet round left.
#[derive(Debug, Default)]
struct Settled {
    /// Each watched `(group, plural)` up to the revision the round saw.
    seen: BTreeMap<(String, String), u64>,
    /// The earliest moment a controller asked to look again.
    due: Option<DateTime<Utc>>,
    /// The generation of the cloud the round read, if a controller asks one.
    cloud_seen: Option<u64>,
}

impl Cleanup {
    /// Starts the controllers `config` turns on against `client`, timed by `clock`, the cloud
    /// node lifecycle controller asking `cloud`. Must be called inside a Tokio runtime.
    pub fn start(client: kube::Client, clock: Clock, config: Config, cloud: &Cloud) -> Self {
        let controllers = config.controllers(cloud);
        let rounds = ControllerRounds::new(Context::new(client, clock.clone(), config.mutant), controllers);
        let cloud = rounds.cloud.clone();
        Self { running: ControllerLoop::start("the cleanup controllers", rounds), clock, cloud }
    }

    /// The earliest moment a controller waits for, as the last quiet round left it.
    pub fn due(&self) -> Option<DateTime<Utc>> {
        self.running.settled().due
    }
}

impl Settling for Cleanup {
    /// What the controllers still have to do before they have seen every change to what they
    /// watch, have nothing to write, and no moment they wait for has come.
    fn pending(&self, revision_of: &dyn Fn(&str, &str) -> u64) -> Vec<String> {
        self.running.pending(|settled| {
            let mut pending = Vec::new();
            for ((group, resource), seen) in &settled.seen {
                let written = revision_of(group, resource);
                if written > *seen {
                    pending.push(format!("the cleanup controllers have seen {resource} up to {seen}, written at {written}"));
                }
            }
            if let (Some(cloud), Some(seen)) = (&self.cloud, settled.cloud_seen) {
                if cloud.generation() > seen {
                    pending.push(format!(
                        "the cleanup controllers have seen the cloud up to change {seen}, changed {} times",
                        cloud.generation()
                    ));
                }
            }
            if let Some(due) = settled.due.filter(|due| *due <= self.clock.now()) {
                pending.push(format!("the cleanup controllers look again at {due}"));
            }
            pending
        })
    }

    /// Raised when a round that wrote nothing leaves the controllers settled.
    fn activity(&self) -> &Activity {
        self.running.activity()
    }
}

/// The controllers' rounds, as the [`ControllerLoop`] runs them. A round after a change (or
/// the first, or one after a write or a failure) runs every controller; a round the clock alone
/// woke runs only the controllers whose moment has come, as nothing the others read has
/// changed, and the watches it waited on are kept for the next wait.
struct ControllerRounds {
    context: Context,
    scheduled: Vec<Scheduled>,
    /// Every resource a controller watches, once.
    watched: Vec<ApiResource>,
    /// The cloud a controller asks, if one does.
    cloud: Option<Cloud>,
    /// Each resource up to the revision the last round of every controller saw.
    seen: BTreeMap<(String, String), u64>,
    /// The watches the last wait gave back, when the clock alone woke it.
    watches: Option<Watches>,
    /// Whether the next round runs every controller.
    everyone: bool,
    /// The earliest moment a controller asked to look again, and the cloud's generation, as
    /// the last round read them.
    due: Option<DateTime<Utc>>,
    cloud_seen: Option<u64>,
    reporter: Reporter,
}

impl ControllerRounds {
    fn new(context: Context, controllers: Vec<Box<dyn Controller>>) -> Self {
        let mut watched: Vec<ApiResource> = controllers.iter().flat_map(|c| c.watches()).collect();
        watched.sort_by(|a, b| (&a.group, &a.plural).cmp(&(&b.group, &b.plural)));
        watched.dedup_by(|a, b| a.group == b.group && a.plural == b.plural);
        let cloud = controllers.iter().find_map(|c| c.cloud().cloned());
        Self {
            context,
            scheduled: controllers.into_iter().map(|controller| Scheduled { controller, again_at: None }).collect(),
            watched,
            cloud,
            seen: BTreeMap::new(),
            watches: None,
            everyone: true,
            due: None,
            cloud_seen: None,
            reporter: Reporter::new("kube-controller-manager"),
        }
    }
}

impl Rounds for ControllerRounds {
    type Settled = Settled;

    async fn round(&mut self) -> Round<Settled> {
        let context = &self.context;
        context.start_round();
        self.cloud_seen = self.cloud.as_ref().map(Cloud::generation);
        let now = context.clock.now();
        let mut wrote = false;
        let mut failure = None;
        for entry in &mut self.scheduled {
            if !self.everyone && entry.again_at.is_none_or(|at| at > now) {
                continue;
            }
            match entry.controller.pass(context).await {
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
        if self.everyone {
            self.seen.extend(context.seen());
            self.reporter.report(&context.client, now, &context.unreadable()).await;
        }
        self.everyone = true;
        if let Some(why) = failure {
            self.watches = None;
            return Round::Failed(why);
        }
        if wrote {
            self.watches = None;
            return Round::Wrote;
        }
        self.due = self.scheduled.iter().filter_map(|entry| entry.again_at).min();
        let seen = &self.seen;
        let watched_seen = self
            .watched
            .iter()
            .filter_map(|r| seen.get_key_value(&(r.group.clone(), r.plural.clone())))
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        Round::Quiet(Settled { seen: watched_seen, due: self.due, cloud_seen: self.cloud_seen })
    }

    async fn wait(&mut self) {
        let open = match self.watches.take() {
            Some(open) => open,
            None => match Watches::open(&self.context, &self.watched, &self.seen).await {
                Ok(open) => open,
                Err(e) => {
                    tracing::debug!("cleanup controllers: watching: {e}");
                    tokio::time::sleep(RETRY).await;
                    return;
                }
            },
        };
        self.watches = open.wait(&self.context, self.due, self.cloud.as_ref().zip(self.cloud_seen)).await;
        self.everyone = self.watches.is_none();
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
