//! What a cleanup controller's pass reads through ([`Context`]) and what it tells the loop
//! ([`Outcome`]).

use std::collections::BTreeMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use kube::Resource;
use kube::api::ApiResource;
use serde::de::DeserializeOwned;

use crate::cleanup::mutant::{Mutable, Mutant};
use crate::clock::Clock;
use crate::unreadable::{self, Unreadable};

/// One cleanup controller, run pass by pass by the loop in [`crate::cleanup`].
pub trait Controller: Send {
    /// Its name, as kube-controller-manager's `--controllers` flag spells it.
    fn name(&self) -> &'static str;
    /// The resources whose changes may give it work; none for a controller that looks on a
    /// period instead.
    fn watches(&self) -> Vec<ApiResource> {
        Vec::new()
    }
    /// The cloud it asks, if any: a change there gives it work as a watched change does.
    fn cloud(&self) -> Option<&crate::cloud::Cloud> {
        None
    }
    /// One pass: read afresh through `context`, act, and say whether anything was written and
    /// when to look again regardless of changes.
    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>>;
}

/// What a pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Whether a write landed (the loop then starts a new round before it rests).
    pub wrote: bool,
    /// The earliest moment the controller wants to look again even if nothing changes.
    pub again_at: Option<DateTime<Utc>>,
}

/// What every pass reads through: the client, the clock, the mutant, and what the round's lists
/// saw besides their items: their revisions and the objects they could not read.
pub struct Context {
    /// The controllers' client.
    pub client: kube::Client,
    /// The clock every age and period is measured on.
    pub clock: Clock,
    /// The deliberately broken rule, if any (never outside a check of the specification).
    pub mutant: Option<Mutant>,
    /// Each listed `(group, plural)` with the oldest revision a list of it saw this round.
    seen: Mutex<BTreeMap<(String, String), u64>>,
    /// The objects this round's lists could not read (left out of what they gave).
    unreadable: Mutex<Vec<Unreadable>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("clock", &self.clock).field("mutant", &self.mutant).finish()
    }
}

impl Context {
    /// A context for controllers acting through `client`.
    pub fn new(client: kube::Client, clock: Clock, mutant: Option<Mutant>) -> Self {
        Self { client, clock, mutant, seen: Mutex::default(), unreadable: Mutex::default() }
    }

    /// `decision` as the configured mutant makes it, unchanged without one: the one place a
    /// mutant reaches a controller's rule ([`crate::cleanup::mutations`]).
    pub fn decided<D: Mutable<Mutant>>(&self, decision: D) -> D {
        decision.mutated(self.mutant)
    }

    /// Forgets what the last round's lists saw.
    pub(crate) fn start_round(&self) {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.unreadable.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The objects this round's lists could not read.
    pub(crate) fn unreadable(&self) -> Vec<Unreadable> {
        self.unreadable.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether this round's lists found a `K` in `namespace` (named `name`, if given) that they
    /// could not read: a controller whose decision rests on there being no such object waits.
    pub fn cannot_read<K: Resource<DynamicType = ()>>(&self, namespace: &str, name: Option<&str>) -> bool {
        let unreadable = self.unreadable.lock().unwrap_or_else(|e| e.into_inner());
        unreadable.iter().any(|u| {
            let r = &u.reference;
            r["kind"] == K::kind(&()).as_ref()
                && r["apiVersion"] == K::api_version(&()).as_ref()
                && r["namespace"].as_str().unwrap_or("") == namespace
                && name.is_none_or(|n| r["name"] == n)
        })
    }

    /// The revisions this round's lists saw.
    pub(crate) fn seen(&self) -> BTreeMap<(String, String), u64> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Every `K` in the cluster that can be read, listed afresh (a consistent read: the pass
    /// sees every write before it); the round remembers the list's revision and the objects
    /// it could not read, which the pass never sees.
    pub async fn list<K>(&self) -> kube::Result<Vec<K>>
    where
        K: Resource<DynamicType = ()> + DeserializeOwned,
    {
        let listed = unreadable::list::<K>(&self.client, "").await?;
        let key = (K::group(&()).into_owned(), K::plural(&()).into_owned());
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let entry = seen.entry(key).or_insert(listed.revision);
        *entry = (*entry).min(listed.revision);
        self.unreadable.lock().unwrap_or_else(|e| e.into_inner()).extend(listed.unreadable);
        Ok(listed.items)
    }
}

/// When a controller that looks on a period (upstream's `wait.Until`) makes its next pass: at
/// once the first time, then a period after each.
#[derive(Debug)]
pub struct Period {
    every: chrono::Duration,
    next: Option<DateTime<Utc>>,
}

impl Period {
    /// A period of `every`, its first pass due at once.
    pub fn new(every: std::time::Duration) -> Self {
        Self { every: chrono::Duration::from_std(every).unwrap_or_default(), next: None }
    }

    /// Whether a pass is due at `now`; if it is, the next one is due a period later.
    pub fn due(&mut self, now: DateTime<Utc>) -> bool {
        if self.next.is_some_and(|next| now < next) {
            return false;
        }
        self.next = Some(now + self.every);
        true
    }

    /// What a pass tells the loop: whether it wrote, and that it looks again when the next
    /// pass is due.
    pub fn outcome(&self, wrote: bool) -> Outcome {
        Outcome { wrote, again_at: self.next }
    }
}

/// The [`ApiResource`] of `K`, for [`Controller::watches`].
pub fn resource<K: Resource<DynamicType = ()>>() -> ApiResource {
    ApiResource::erase::<K>(&())
}

/// A Kubernetes timestamp as a [`DateTime`], to whole seconds as the API writes them.
pub fn instant(t: &k8s_openapi::jiff::Timestamp) -> DateTime<Utc> {
    DateTime::from_timestamp(t.as_second(), 0).unwrap_or_default()
}
