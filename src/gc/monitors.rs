//! Monitors: one metadata-only list+watch per deletable resource, feeding the graph builder
//! (catalogue A.1). A monitor relists on `410 Gone`, re-watches after errors with back-off,
//! and records the newest resourceVersion it has observed (from events and bookmarks) so that
//! "settled" can be judged. A monitor that cannot list keeps retrying on its own and never
//! holds up the others. The set of monitors follows discovery: resynced periodically and
//! promptly when a CustomResourceDefinition changes.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures::TryStreamExt;
use kube::api::{Api, DynamicObject, ListParams, WatchEvent, WatchParams};

use crate::gc::Shared;
use crate::gc::graph_builder::{EventType, GraphEvent, ObjectMeta};
use crate::gc::operations::object_meta;
use crate::gc::rest_mapper::{Discovered, DiscoveryError, Mapping, RestMapper, discover};

/// A monitor's progress.
#[derive(Debug, Default)]
pub struct MonitorStatus {
    /// The newest resourceVersion observed (0 before the first list).
    pub observed: AtomicU64,
    /// 0 starting, 1 synced, 2 failing to list.
    pub phase: AtomicU8,
}

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
    let mut known: HashMap<Arc<str>, ObjectMeta> = HashMap::new();
    let mut backoff = Duration::from_millis(50);
    loop {
        let list = match api.list_metadata(&ListParams::default()).await {
            Ok(l) => l,
            Err(e) => {
                tracing::debug!(resource = %mapping.resource.plural, error = %e, "monitor list failed");
                let _ = status.phase.compare_exchange(phase::STARTING, phase::FAILING, Ordering::SeqCst, Ordering::SeqCst);
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(10));
                continue;
            }
        };
        backoff = Duration::from_millis(50);
        let Some(strong) = shared.upgrade() else { return };
        reconcile(&strong, &mapping, &mut known, list.items.iter().map(|i| object_meta(&i.metadata)).collect());
        drop(strong);
        let mut rv = list.metadata.resource_version.unwrap_or_default();
        status.observed.store(rv_number(&rv), Ordering::SeqCst);
        status.phase.store(phase::SYNCED, Ordering::SeqCst);
        loop {
            match watch(&api, &shared, &mapping, &status, &mut known, &mut rv).await {
                WatchEnd::Relist => break,
                WatchEnd::Stopped => return,
                WatchEnd::Rewatch => {}
                WatchEnd::Failed => tokio::time::sleep(Duration::from_millis(200)).await,
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

/// Watches from `rv`, emitting events and advancing `rv` (also on bookmarks).
async fn watch(
    api: &Api<DynamicObject>,
    shared: &Weak<Shared>,
    mapping: &Mapping,
    status: &MonitorStatus,
    known: &mut HashMap<Arc<str>, ObjectMeta>,
    rv: &mut String,
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
/// as a sync error. When some group versions fail discovery, monitors of those group versions
/// that have synced are kept, and so are their mappings; the rest of the round goes ahead.
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
        *current = mapper;
    }
    sync_monitors(shared, wanted, |m| {
        failed.contains_key(&m.mapping.resource.api_version) && m.status.phase.load(Ordering::SeqCst) == phase::SYNCED
    });
    Ok(())
}

/// Makes the running monitors those of `wanted`, plus the existing ones `keep` says to keep
/// (upstream `syncMonitors`). A monitor that goes is stopped: its task is aborted and dropped.
pub fn sync_monitors(shared: &Arc<Shared>, wanted: Vec<Mapping>, keep: impl Fn(&Monitor) -> bool) {
    let wanted: HashMap<(String, String), Mapping> =
        wanted.into_iter().map(|m| ((m.resource.group.clone(), m.resource.plural.clone()), m)).collect();
    let mut monitors = shared.monitors.lock().unwrap_or_else(|p| p.into_inner());
    monitors.retain(|key, m| wanted.get(key).is_some_and(|w| w.resource.version == m.mapping.resource.version) || keep(m));
    for (key, mapping) in wanted {
        monitors.entry(key).or_insert_with(|| start(shared, mapping));
    }
}

/// Whether there are monitors and every one has listed its resource (upstream `IsSynced`).
pub fn is_synced(shared: &Shared) -> bool {
    let monitors = shared.monitors.lock().unwrap_or_else(|p| p.into_inner());
    !monitors.is_empty() && monitors.values().all(|m| m.status.phase.load(Ordering::SeqCst) == phase::SYNCED)
}
