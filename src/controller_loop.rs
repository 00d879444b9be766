//! The loop the workload and cleanup controllers share. Their controllers are level-based: a
//! round reads afresh and acts; a round that wrote starts another, a round that failed is
//! retried after a short pause, and a round that wrote nothing leaves them settled at what it
//! read, until a change (or a moment a controller waits for) wakes them. What a round does and
//! what the wait watches are the controllers' own ([`Rounds`]); the loop keeps their progress,
//! for settling ([`ControllerLoop::pending`]).

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::activity::Activity;

/// How long a quiet wait lasts at most before the controllers look again anyway.
pub const RESYNC: Duration = Duration::from_secs(30);

/// How long the controllers wait before retrying a round that failed, or a wait that could not
/// start its watches.
pub const RETRY: Duration = Duration::from_millis(200);

/// How a round ended.
#[derive(Debug)]
pub enum Round<S> {
    /// A write landed: the next round starts at once, to read it.
    Wrote,
    /// The round failed, for the reason given: it is retried after [`RETRY`].
    Failed(String),
    /// Nothing to write: the controllers have settled at `S` (what they read, and when they
    /// next act by the clock) and wait for a change.
    Quiet(S),
}

/// Controllers run by the loop.
pub trait Rounds: Send + 'static {
    /// What a quiet round leaves the controllers settled at.
    type Settled: Send + Default + 'static;

    /// One round of every controller (or of those whose moment has come).
    fn round(&mut self) -> impl Future<Output = Round<Self::Settled>> + Send;

    /// After a quiet round: waits for a change to what the controllers read, or for a moment
    /// one of them waits for, or [`RESYNC`].
    fn wait(&mut self) -> impl Future<Output = ()> + Send;
}

/// How far the controllers have got.
#[derive(Debug, Default)]
struct Progress<S> {
    /// Whether a round is running or due.
    busy: AtomicBool,
    /// What the last quiet round left the controllers settled at.
    settled: Mutex<S>,
    /// Why the last round failed, until one succeeds.
    last_error: Mutex<Option<String>>,
    /// Raised when a round leaves the controllers settled.
    activity: Activity,
}

/// Running controllers: the loop's task and their progress. Dropping it stops them.
pub struct ControllerLoop<S> {
    /// Who they are in messages: "the workload controllers".
    name: &'static str,
    progress: Arc<Progress<S>>,
    task: tokio::task::JoinHandle<()>,
}

impl<S> std::fmt::Debug for ControllerLoop<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerLoop").field("name", &self.name).field("busy", &self.progress.busy.load(Ordering::SeqCst)).finish()
    }
}

impl<S> Drop for ControllerLoop<S> {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl<S: Send + Default + 'static> ControllerLoop<S> {
    /// Starts `rounds` on a task of their own; `name` names them in messages ("the cleanup
    /// controllers"). Must be called inside a Tokio runtime.
    pub fn start<R: Rounds<Settled = S>>(name: &'static str, rounds: R) -> Self {
        let progress = Arc::new(Progress { busy: AtomicBool::new(true), ..Default::default() });
        let task = tokio::spawn(run(name, rounds, progress.clone()));
        Self { name, progress, task }
    }

    /// What the last quiet round left the controllers settled at.
    pub fn settled(&self) -> MutexGuard<'_, S> {
        self.progress.settled.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Raised when a round that wrote nothing leaves the controllers settled.
    pub fn activity(&self) -> &Activity {
        &self.progress.activity
    }

    /// What the controllers still have to do: a failure to retry, a round running or due, and
    /// then what `since_settled` finds outstanding in what the last quiet round left (changes
    /// it has not seen, moments that have come); empty when settled.
    pub fn pending(&self, since_settled: impl FnOnce(&S) -> Vec<String>) -> Vec<String> {
        let p = &self.progress;
        let mut pending = Vec::new();
        if let Some(e) = p.last_error.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            pending.push(format!("{} retry after: {e}", self.name));
        }
        if p.busy.load(Ordering::SeqCst) {
            pending.push(format!("{} are in a round", self.name));
            return pending;
        }
        pending.extend(since_settled(&self.settled()));
        pending
    }
}

/// The loop: rounds until one writes nothing, then a wait for a change.
async fn run<R: Rounds>(name: &'static str, mut rounds: R, progress: Arc<Progress<R::Settled>>) {
    loop {
        progress.busy.store(true, Ordering::SeqCst);
        match rounds.round().await {
            Round::Wrote => {}
            Round::Failed(why) => {
                tracing::debug!("{name}: {why}");
                *progress.last_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
                tokio::time::sleep(RETRY).await;
            }
            Round::Quiet(settled) => {
                *progress.last_error.lock().unwrap_or_else(|e| e.into_inner()) = None;
                *progress.settled.lock().unwrap_or_else(|e| e.into_inner()) = settled;
                progress.busy.store(false, Ordering::SeqCst);
                progress.activity.raise();
                rounds.wait().await;
            }
        }
    }
}
