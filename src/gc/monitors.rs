//! Monitors: one metadata-only list+watch per deletable resource, feeding the graph builder
//! (catalogue A.1). A monitor relists on `410 Gone`, re-watches after errors with back-off,
//! and records the newest resourceVersion it has observed (from events and bookmarks) so that
//! "settled" can be judged. Behind the events of its first list it sends
//! [`GraphChange::Listed`], so that the collector knows when the graph holds the whole list
//! (see [`crate::gc::cache_sync`]). A monitor that cannot list keeps retrying on its own with
//! back-off, logging what it waits for, and never stops the others from listing. The set of
//! monitors follows discovery: resynced periodically and promptly when a
//! CustomResourceDefinition changes.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::TryStreamExt;
use kube::api::{Api, DynamicObject, ListParams, WatchEvent, WatchParams};

use crate::gc::Shared;
use crate::gc::cache_sync::{GraphChange, resource_name};
use crate::gc::events::{EventType, GraphEvent, ObjectMeta};
use crate::gc::operations::object_meta;
use crate::gc::queue::Backoff;
use crate::gc::rest_mapper::{Discovered, DiscoveryError, Mapping, RestMapper, discover};
use crate::gc::retry::{Delays, describe};

/// A monitor's progress.
#[derive(Debug, Default)]
pub struct MonitorStatus {
    /// The newest resourceVersion observed (0 before the first list).
    pub observed: AtomicU64,
    /// 0 starting, 1 synced, 2 failing to list.
    pub phase: AtomicU8,
    /// Whether the graph holds the first list: its [`GraphChange::Listed`] has been applied.
    pub in_graph: AtomicBool,
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
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn rv_number(rv: &str) -> u64 {
    rv.parse().unwrap_or(0)
}

fn is_crds(mapping: &Mapping) -> bool {
    mapping.resource.group == "apiextensions.k8s.io" && mapping.resource.plural == "customresourcedefinitions"
}

/// Starts a monitor for `mapping`.
pub fn start(shared: &Arc<Shared>, mapping: Mapping) -> Monitor {
    let status = Arc::new(MonitorStatus::default());
    let task = tokio::spawn(run(Arc::downgrade(shared), mapping.clone(), status.clone()));
    Monitor { mapping, status, task }
}

/// Sends one observed change to the graph builder.
fn emit(shared: &Shared, mapping: &Mapping, event_type: EventType, object: ObjectMeta, old: Option<ObjectMeta>) {
    if is_crds(mapping) {
        shared.request_resync();
    }
    shared.send_graph_event(GraphEvent {
        event_type,
        virtual_event: false,
        object,
        old,
        api_version: Arc::from(mapping.resource.api_version.as_str()),
        kind: Arc::from(mapping.resource.kind.as_str()),
    });
}

async fn run(shared: Weak<Shared>, mapping: Mapping, status: Arc<MonitorStatus>) {
    let Some(client) = shared.upgrade().map(|s| s.client.clone()) else { return };
    let api: Api<DynamicObject> = Api::all_with(client, &mapping.resource);
    let name = resource_name(&mapping.resource.group, &mapping.resource.plural);
    let mut known: HashMap<Arc<str>, ObjectMeta> = HashMap::new();
    let (mut list_delays, mut watch_delays) = (Delays::new(RETRY), Delays::new(RETRY));
    let mut listed_once = false;
    loop {
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
        let Some(strong) = shared.upgrade() else { return };
        reconcile(&strong, &mapping, &mut known, list.items.iter().map(|i| object_meta(&i.metadata)).collect());
        if !listed_once {
            strong.send_graph_change(GraphChange::Listed(status.clone()));
            listed_once = true;
        }
        drop(strong);
        let mut rv = list.metadata.resource_version.unwrap_or_default();
        status.observed.store(rv_number(&rv), Ordering::SeqCst);
        status.phase.store(phase::SYNCED, Ordering::SeqCst);
        loop {
            match watch(&api, &shared, &mapping, &status, &mut known, &mut rv, &mut watch_delays).await {
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
fn reconcile(shared: &Shared, mapping: &Mapping, known: &mut HashMap<Arc<str>, ObjectMeta>, listed: Vec<ObjectMeta>) {
    let seen: HashSet<Arc<str>> = listed.iter().map(|m| m.uid.clone()).collect();
    for meta in listed {
        match known.insert(meta.uid.clone(), meta.clone()) {
            None => emit(shared, mapping, EventType::Add, meta, None),
            Some(old) if old != meta => emit(shared, mapping, EventType::Update, meta, Some(old)),
            Some(_) => {}
        }
    }
    let gone: Vec<Arc<str>> = known.keys().filter(|k| !seen.contains(*k)).cloned().collect();
    for uid in gone {
        let old = known.remove(&uid).expect("taken from known");
        emit(shared, mapping, EventType::Delete, old, None);
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
    shared: &Weak<Shared>,
    mapping: &Mapping,
    status: &MonitorStatus,
    known: &mut HashMap<Arc<str>, ObjectMeta>,
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
        let Some(shared) = shared.upgrade() else { return WatchEnd::Stopped };
        delays.reset();
        match event {
            WatchEvent::Added(o) | WatchEvent::Modified(o) => {
                let meta = object_meta(&o.metadata);
                *rv = meta.resource_version.clone();
                match known.insert(meta.uid.clone(), meta.clone()) {
                    None => emit(&shared, mapping, EventType::Add, meta, None),
                    Some(old) => emit(&shared, mapping, EventType::Update, meta, Some(old)),
                }
            }
            WatchEvent::Deleted(o) => {
                let meta = object_meta(&o.metadata);
                *rv = meta.resource_version.clone();
                known.remove(&meta.uid);
                emit(&shared, mapping, EventType::Delete, meta, None);
            }
            WatchEvent::Bookmark(b) => *rv = b.metadata.resource_version,
            WatchEvent::Error(e) if e.code == 410 => return WatchEnd::Relist,
            WatchEvent::Error(e) => {
                tracing::debug!(resource = %mapping.resource.plural, error = %e.message, "monitor watch error");
                return WatchEnd::Failed;
            }
        }
        status.observed.store(rv_number(rv), Ordering::SeqCst);
    }
}

/// One round of the monitors' resync (upstream `Sync`, catalogue A.1): rediscovers resources,
/// and starts or stops monitors to match. A round that discovers nothing is skipped and counted
/// as a sync error. When some group versions fail discovery, the monitors of those group versions
/// are kept, and so are their mappings; the rest of the round goes ahead. Upstream keeps only the
/// monitors that have synced; here an unsynced one is kept too, so that the resources it lists
/// stay among those the graph waits for ([`crate::gc::cache_sync`]) instead of silently dropping
/// out of it. A failed group version never discovered before is recorded in
/// [`Shared::undiscovered`]: what it serves is unknown, so the graph is not complete.
pub async fn resync(shared: &Arc<Shared>) -> Result<(), DiscoveryError> {
    let Discovered { lists, error } = discover(&shared.client).await;
    let mut mapper = RestMapper::from_lists(&lists);
    if mapper.deletable().is_empty() {
        shared.metrics.resource_sync_errors.inc();
        return Err(error.unwrap_or(DiscoveryError::Empty));
    }
    let failed = error.as_ref().and_then(DiscoveryError::failed_group_versions).cloned().unwrap_or_default();
    if let Some(e) = &error {
        tracing::warn!(error = %e, "discovery partly failed; keeping the monitors of the failed group versions");
    }
    let wanted: Vec<Mapping> = mapper
        .deletable()
        .iter()
        .filter(|m| !shared.config.ignored.iter().any(|(g, r)| *g == m.resource.group && *r == m.resource.plural))
        .cloned()
        .collect();
    {
        let mut current = shared.mapper.write().unwrap_or_else(|p| p.into_inner());
        mapper.inherit(&current, &failed);
        *shared.undiscovered.lock().unwrap_or_else(|p| p.into_inner()) =
            failed.iter().filter(|(gv, _)| !mapper.knows(gv)).map(|(gv, e)| (gv.clone(), e.clone())).collect();
        *current = mapper;
    }
    sync_monitors(shared, wanted, |m| failed.contains_key(&m.mapping.resource.api_version));
    Ok(())
}

/// Makes the running monitors those of `wanted`, plus the existing ones `keep` says to keep
/// (upstream `syncMonitors`). A monitor that goes is stopped: its task is aborted and dropped.
pub fn sync_monitors(shared: &Arc<Shared>, wanted: Vec<Mapping>, keep: impl Fn(&Monitor) -> bool) {
    let wanted: HashMap<(String, String), Mapping> =
        wanted.into_iter().map(|m| ((m.resource.group.clone(), m.resource.plural.clone()), m)).collect();
    {
        let mut monitors = shared.monitors.lock().unwrap_or_else(|p| p.into_inner());
        monitors.retain(|key, m| wanted.get(key).is_some_and(|w| w.resource.version == m.mapping.resource.version) || keep(m));
        for (key, mapping) in wanted {
            monitors.entry(key).or_insert_with(|| start(shared, mapping));
        }
    }
    shared.sync_changed();
}

/// Whether there are monitors and every one has listed its resource (upstream `IsSynced`: the
/// lists have been handed to the graph builder, not necessarily applied; the collector's own
/// gate is stricter, see [`crate::gc::cache_sync`]).
pub fn is_synced(shared: &Shared) -> bool {
    let monitors = shared.monitors.lock().unwrap_or_else(|p| p.into_inner());
    !monitors.is_empty() && monitors.values().all(|m| m.status.phase.load(Ordering::SeqCst) == phase::SYNCED)
}
