//! Monitors: one metadata-only list+watch per deletable resource, feeding the graph builder
//! (upstream `syncMonitors`, `graph_builder.go`). A monitor relists on `410 Gone`, re-watches
//! after errors with back-off, and records the newest resourceVersion it has observed (from
//! events and bookmarks) so that "settled" can be judged. Behind the events of its first list it
//! sends [`GraphChange::Listed`], so that the collector knows when the graph holds the whole
//! list (see [`crate::gc::cache_sync`]). A monitor that cannot list keeps retrying on its own
//! with back-off, logging what it waits for, and never stops the others from listing. A monitor
//! of CustomResourceDefinitions also asks for a discovery resync whenever one changes, so that
//! the set of monitors, which the collector keeps in step with discovery, follows promptly.
//!
//! A monitor knows the collector only as the [`Sink`] it feeds, and holds it weakly: it stops
//! once the collector is gone.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::TryStreamExt;
use kube::api::{Api, DynamicObject, ListParams, WatchEvent, WatchParams};

use crate::gc::events::{EventType, GraphEvent, ObjectMeta};
use crate::gc::graph::Uid;
use crate::gc::operations::object_meta;
use crate::gc::queue::Backoff;
use crate::gc::rest_mapper::Mapping;
use crate::gc::retry::{Delays, describe};

/// One entry of the graphChanges queue.
// Nearly every entry is an event; boxing them to shrink the rare list mark would cost an
// allocation per event.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum GraphChange {
    /// An observed or virtual event for the graph builder.
    Event(GraphEvent),
    /// Every event of a monitor's initial list is ahead of this entry: once it is applied, the
    /// graph holds the whole list.
    Listed(Arc<MonitorStatus>),
}

/// What a monitor needs of the collector it feeds.
pub trait Sink: Send + Sync {
    /// Queues an entry of graphChanges.
    fn send_graph_change(&self, change: GraphChange);
    /// Asks for a discovery resync soon (a CustomResourceDefinition changed).
    fn request_resync(&self);
    /// Says that the monitor has observed a newer revision (after a list or a watch event).
    fn observed(&self);
}

/// A resource as logs and messages name it: `configmaps`, `deployments.apps`.
pub fn resource_name(group: &str, resource: &str) -> String {
    if group.is_empty() { resource.to_string() } else { format!("{resource}.{group}") }
}

/// A monitor's progress.
#[derive(Debug, Default)]
pub struct MonitorStatus {
    /// The newest resourceVersion observed (0 before the first list).
    pub observed: AtomicU64,
    /// 0 starting, 1 synced, 2 failing to list.
    pub phase: AtomicU8,
    /// Whether the graph holds the first list: its [`GraphChange::Listed`] has been applied.
    pub in_graph: AtomicBool,
    /// Whether the monitor is retired ([`Monitor::retire`]): it stops when its watch ends.
    retired: AtomicBool,
    /// Why the last list failed, until one succeeds. A std mutex: never held across an await.
    last_error: Mutex<Option<String>>,
}

impl MonitorStatus {
    /// Why the last list failed, if the last one did.
    pub fn last_error(&self) -> Option<String> {
        self.last_error.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set_last_error(&self, error: Option<String>) {
        *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = error;
    }
}

/// Back-off between a monitor's failed lists, and between failed watches.
const RETRY: Backoff = Backoff { base: Duration::from_millis(50), max: Duration::from_secs(10) };

/// Phase values of [`MonitorStatus::phase`].
pub mod phase {
    /// The first list has not completed.
    pub const STARTING: u8 = 0;
    /// Listed at least once.
    pub const SYNCED: u8 = 1;
    /// The first list failed; retrying.
    pub const FAILING: u8 = 2;
}

/// A running monitor.
#[derive(Debug)]
pub struct Monitor {
    /// What it watches.
    pub mapping: Mapping,
    /// Its progress.
    pub status: Arc<MonitorStatus>,
    /// Aborted on drop, unless the monitor was retired.
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Monitor {
    /// Lets the monitor go without cutting off what its watch still carries: it delivers the
    /// events the server has sent and stops when the watch ends, rather than at once. A
    /// resource leaves discovery when its definition goes, and the events the definition's
    /// removal caused (the deletions of its objects) may still be on the way: an owner's
    /// deletion lost there would leave its dependents for ever. kube-apiserver ends such a
    /// watch when it tears down the resource's storage; a watch of a resource still served
    /// ends at its timeout.
    pub fn retire(mut self) {
        self.status.retired.store(true, Ordering::SeqCst);
        self.task.take();
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

fn rv_number(rv: &str) -> u64 {
    rv.parse().unwrap_or(0)
}

fn is_crds(mapping: &Mapping) -> bool {
    mapping.resource.group == "apiextensions.k8s.io" && mapping.resource.plural == "customresourcedefinitions"
}

/// Starts a monitor for `mapping` that lists and watches through `client` and feeds `sink`.
pub fn start(sink: Weak<dyn Sink>, client: kube::Client, mapping: Mapping) -> Monitor {
    let status = Arc::new(MonitorStatus::default());
    let task = tokio::spawn(run(sink, client, mapping.clone(), status.clone()));
    Monitor { mapping, status, task: Some(task) }
}

/// The event a monitor of `mapping` sends for a change it observed.
pub fn observed(mapping: &Mapping, event_type: EventType, object: ObjectMeta, old: Option<ObjectMeta>) -> GraphEvent {
    GraphEvent {
        event_type,
        virtual_event: false,
        object,
        old,
        api_version: Arc::from(mapping.resource.api_version.as_str()),
        kind: Arc::from(mapping.resource.kind.as_str()),
    }
}

/// Sends one observed change to the graph builder.
fn emit(sink: &dyn Sink, mapping: &Mapping, event_type: EventType, object: ObjectMeta, old: Option<ObjectMeta>) {
    if is_crds(mapping) {
        sink.request_resync();
    }
    sink.send_graph_change(GraphChange::Event(observed(mapping, event_type, object, old)));
}

async fn run(sink: Weak<dyn Sink>, client: kube::Client, mapping: Mapping, status: Arc<MonitorStatus>) {
    let api: Api<DynamicObject> = Api::all_with(client, &mapping.resource);
    let name = resource_name(&mapping.resource.group, &mapping.resource.plural);
    let mut known: HashMap<Uid, ObjectMeta> = HashMap::new();
    let (mut list_delays, mut watch_delays) = (Delays::new(RETRY), Delays::new(RETRY));
    let mut listed_once = false;
    while !status.retired.load(Ordering::SeqCst) {
        let list = match api.list_metadata(&ListParams::default()).await {
            Ok(l) => l,
            Err(e) => {
                let (delay, error) = (list_delays.next_delay(), describe(&e));
                if listed_once {
                    tracing::warn!(%error, "cannot relist {name}; retrying in {delay:?}");
                } else {
                    tracing::warn!(%error, "waiting for the initial list of {name}; retrying in {delay:?}");
                }
                status.set_last_error(Some(error));
                let _ = status.phase.compare_exchange(phase::STARTING, phase::FAILING, Ordering::SeqCst, Ordering::SeqCst);
                tokio::time::sleep(delay).await;
                continue;
            }
        };
        list_delays.reset();
        status.set_last_error(None);
        let Some(strong) = sink.upgrade() else { return };
        reconcile(&*strong, &mapping, &mut known, list.items.iter().map(|i| object_meta(&i.metadata)).collect());
        if !listed_once {
            strong.send_graph_change(GraphChange::Listed(status.clone()));
            listed_once = true;
        }
        drop(strong);
        let mut rv = list.metadata.resource_version.unwrap_or_default();
        status.observed.store(rv_number(&rv), Ordering::SeqCst);
        status.phase.store(phase::SYNCED, Ordering::SeqCst);
        if let Some(strong) = sink.upgrade() {
            strong.observed();
        }
        loop {
            let end = watch(&api, &sink, &mapping, &status, &mut known, &mut rv, &mut watch_delays).await;
            if status.retired.load(Ordering::SeqCst) {
                return;
            }
            match end {
                WatchEnd::Relist => break,
                WatchEnd::Stopped => return,
                WatchEnd::Rewatch => {}
                WatchEnd::Failed => tokio::time::sleep(watch_delays.next_delay()).await,
            }
        }
    }
}

/// Brings `known` in line with a fresh list, emitting adds, updates and the deletions a relist
/// reveals.
fn reconcile(sink: &dyn Sink, mapping: &Mapping, known: &mut HashMap<Uid, ObjectMeta>, listed: Vec<ObjectMeta>) {
    let seen: HashSet<Uid> = listed.iter().map(|m| m.uid.clone()).collect();
    for meta in listed {
        match known.insert(meta.uid.clone(), meta.clone()) {
            None => emit(sink, mapping, EventType::Add, meta, None),
            Some(old) if old != meta => emit(sink, mapping, EventType::Update, meta, Some(old)),
            Some(_) => {}
        }
    }
    let mut gone: Vec<Uid> = known.keys().filter(|k| !seen.contains(*k)).cloned().collect();
    // In a stable order: the same lists give the same events every time.
    gone.sort_unstable();
    for uid in gone {
        let old = known.remove(&uid).expect("taken from known");
        emit(sink, mapping, EventType::Delete, old, None);
    }
}

/// How a watch ended.
enum WatchEnd {
    /// The history is gone (410): list again.
    Relist,
    /// The stream ended normally (timeout): watch again from the last resourceVersion.
    Rewatch,
    /// The watch failed: pause, then watch again.
    Failed,
    /// The collector is gone.
    Stopped,
}

/// Watches from `rv`, emitting events and advancing `rv` (also on bookmarks); every event
/// received resets the back-off between failed watches.
async fn watch(
    api: &Api<DynamicObject>,
    sink: &Weak<dyn Sink>,
    mapping: &Mapping,
    status: &MonitorStatus,
    known: &mut HashMap<Uid, ObjectMeta>,
    rv: &mut String,
    delays: &mut Delays,
) -> WatchEnd {
    let params = WatchParams::default().timeout(290);
    let stream = match api.watch_metadata(&params, rv).await {
        Ok(s) => s,
        Err(e) => {
            tracing::debug!(resource = %mapping.resource.plural, error = %e, "monitor watch failed");
            return WatchEnd::Failed;
        }
    };
    futures::pin_mut!(stream);
    loop {
        let event = match stream.try_next().await {
            Ok(Some(e)) => e,
            Ok(None) => return WatchEnd::Rewatch,
            Err(e) => {
                tracing::debug!(resource = %mapping.resource.plural, error = %e, "monitor watch stream broke");
                return WatchEnd::Failed;
            }
        };
        let Some(sink) = sink.upgrade() else { return WatchEnd::Stopped };
        delays.reset();
        match event {
            WatchEvent::Added(o) | WatchEvent::Modified(o) => {
                let meta = object_meta(&o.metadata);
                *rv = meta.resource_version.clone();
                match known.insert(meta.uid.clone(), meta.clone()) {
                    None => emit(&*sink, mapping, EventType::Add, meta, None),
                    Some(old) => emit(&*sink, mapping, EventType::Update, meta, Some(old)),
                }
            }
            WatchEvent::Deleted(o) => {
                let meta = object_meta(&o.metadata);
                *rv = meta.resource_version.clone();
                known.remove(&meta.uid);
                emit(&*sink, mapping, EventType::Delete, meta, None);
            }
            WatchEvent::Bookmark(b) => *rv = b.metadata.resource_version,
            WatchEvent::Error(e) if e.code == 410 => return WatchEnd::Relist,
            WatchEvent::Error(e) => {
                tracing::debug!(resource = %mapping.resource.plural, error = %e.message, "monitor watch error");
                return WatchEnd::Failed;
            }
        }
        status.observed.store(rv_number(rv), Ordering::SeqCst);
        sink.observed();
    }
}
