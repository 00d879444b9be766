//! Watches served as HTTP: a stream of `{"type", "object"}` lines from a resourceVersion on, as kube-apiserver
//! sends them (ADDED/MODIFIED/DELETED, BOOKMARK when asked for, ERROR 410 when the requested
//! history is gone or the client falls too far behind).
//!
//! A watch ends after an ERROR event: also when an object cannot be served at the watch's
//! version (a custom resource whose conversion webhook cannot be called), whose `Status` the
//! ERROR event carries, as kube-apiserver's storage watcher does with an error during a watch.
//! A watch of a custom resource ends without an event when its CustomResourceDefinition changes
//! how the resource is served (versions, conversion) or goes: kube-apiserver then tears down the
//! resource's storage, and the client watches again under the new definition.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use crate::apiserver::crd;
use crate::apiserver::http::decode;
use crate::apiserver::http::request::{Query, Representation};
use crate::apiserver::http::table;
use crate::apiserver::schema::go_shapes;
use crate::apiserver::selectors::Selection;
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::storage::store::{EventType, StoreEvent};
use crate::apiserver::storage::{Scope, Storage};
use crate::clock::Clock;

/// A watch's parameters.
#[derive(Clone, Debug)]
pub struct WatchRequest {
    /// Which objects.
    pub selection: Selection,
    /// `resourceVersion`: `None` for "now, with the current objects first".
    pub from: Option<u64>,
    /// `sendInitialEvents=true`, as given or defaulted ([`decode::initial_events`]).
    pub send_initial_events: bool,
    /// `allowWatchBookmarks=true`.
    pub bookmarks: bool,
    /// `timeoutSeconds`: none when 0 or not given (the server's own, which is long); zero
    /// when negative, which ends the watch before its first event (its timer has fired, k8s.io/apiserver
    /// pkg/endpoints/handlers/watch.go).
    pub timeout: Option<Duration>,
    /// How objects are rendered.
    pub representation: Representation,
}

impl WatchRequest {
    /// Reads the watch parameters of a request; a watch of object `name` selects it by name.
    pub fn from_query(query: &Query, scope: &Scope, representation: Representation, name: Option<&str>) -> ApiResult<Self> {
        decode::check_list_options(query)?;
        let selection = decode::selection(query, scope, name)?;
        Ok(Self {
            selection,
            from: decode::resource_version(query, false)?,
            send_initial_events: decode::initial_events(query).unwrap_or(false),
            bookmarks: query.flag("allowWatchBookmarks").unwrap_or(false),
            timeout: query.int("timeoutSeconds")?.filter(|t| *t != 0).map(|t| Duration::from_secs(t.max(0) as u64)),
            representation,
        })
    }
}

/// Everything a running watch needs once the lock is released.
struct Watch {
    scope: Scope,
    request: WatchRequest,
    clock: Clock,
    bookmark_interval: Duration,
}

impl Watch {
    /// The line of one event about `stored`, or, when the object cannot be served at the
    /// watch's version, the ERROR event with the `Status` that ends the watch. `encoded` is
    /// `stored` as JSON when already at hand (a write's event, encoded once for every watch).
    fn event(&self, event_type: &str, stored: &Arc<Value>, encoded: Option<&Bytes>) -> Result<Bytes, Bytes> {
        let served = self.scope.serve(stored).map_err(|e| self.line("ERROR", &e.to_status()))?;
        match self.request.representation {
            Representation::Full => match encoded.filter(|_| Arc::ptr_eq(&served, stored)) {
                Some(json) => Ok(self.line_with(event_type, json)),
                None => Ok(self.line(event_type, &*served)),
            },
            Representation::Metadata(version) | Representation::MetadataList(version) => {
                Ok(self.line(event_type, &table::partial_metadata(&served, version)))
            }
            Representation::Table(version) => {
                Ok(self.line(event_type, &table::table(&self.scope.resource, &[&served], json!({}), self.clock.now(), version)))
            }
        }
    }

    /// Whether `event` changes or removes the CustomResourceDefinition this watch's resource is
    /// served under, so that the resource is no longer served as when the watch began.
    fn definition_changed(&self, event: &StoreEvent) -> bool {
        let resource = &self.scope.resource;
        crd::is_definition_of(&event.key, resource)
            && (event.event_type == EventType::Deleted || crd::resource_info(&event.object).as_ref() != Some(resource))
    }

    /// The line `{"object": ..., "type": ...}` (the key order of a JSON object the server
    /// builds) of one event.
    fn line(&self, event_type: &str, object: &impl serde::Serialize) -> Bytes {
        self.line_with(event_type, &serde_json::to_vec(object).expect("a JSON value serializes"))
    }

    /// [`Watch::line`] with the object already encoded.
    fn line_with(&self, event_type: &str, object: &[u8]) -> Bytes {
        let mut line = Vec::with_capacity(object.len() + 32);
        line.extend_from_slice(br#"{"object":"#);
        line.extend_from_slice(object);
        line.extend_from_slice(br#","type":""#);
        line.extend_from_slice(event_type.as_bytes());
        line.extend_from_slice(b"\"}\n");
        Bytes::from(line)
    }

    fn bookmark(&self, revision: u64, initial_events_end: bool) -> Bytes {
        let mut meta = json!({"resourceVersion": revision.to_string()});
        if initial_events_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let object = match self.request.representation {
            Representation::Metadata(version) | Representation::MetadataList(version) => {
                json!({"kind": "PartialObjectMetadata", "apiVersion": version, "metadata": meta})
            }
            _ => empty_object(&self.scope.resource.kind, &self.scope.resource.api_version(&self.scope.version), meta),
        };
        self.line("BOOKMARK", &object)
    }

    fn in_scope(&self, event: &StoreEvent) -> bool {
        let (g, r) = &self.scope.resource.storage;
        event.key.group == *g && event.key.resource == *r && self.scope.namespace.as_ref().is_none_or(|ns| *ns == event.key.namespace)
    }

    /// The line for a store event, if this watch sees it (`Err` for the line that ends it). An
    /// object that starts or stops matching the selectors is sent as ADDED or DELETED, as the
    /// watch cache does.
    fn event_line(&self, event: &StoreEvent) -> Option<Result<Bytes, Bytes>> {
        if !self.in_scope(event) {
            return None;
        }
        let sel = &self.request.selection;
        let now_matches = sel.matches(&event.object);
        let was_matching = event.previous.as_ref().is_some_and(|p| sel.matches(p));
        let event_type = match event.event_type {
            EventType::Added if now_matches => "ADDED",
            EventType::Deleted if was_matching || now_matches => "DELETED",
            EventType::Modified => match (was_matching, now_matches) {
                (true, true) => "MODIFIED",
                (false, true) => "ADDED",
                (true, false) => "DELETED",
                (false, false) => return None,
            },
            _ => return None,
        };
        Some(self.event(event_type, &event.object, Some(event.encoded())))
    }
}

fn too_old(requested: u64, oldest: u64) -> Value {
    ApiError::gone(format!("too old resource version: {requested} ({oldest})")).to_status()
}

/// Starts a watch under the lock: takes the initial lines and subscribes, so nothing is missed
/// or repeated between history and live events. Returns the receiver of the body's lines.
pub fn start(storage: &Storage, scope: Scope, request: WatchRequest, bookmark_interval: Duration) -> mpsc::Receiver<Bytes> {
    let watch = Watch { scope, request, clock: storage.clock.clone(), bookmark_interval };
    let mut initial: Vec<Bytes> = Vec::new();
    let revision = storage.store.revision();
    let mut start_revision = revision;
    // The ERROR line that ends the watch before it goes live, if any.
    let mut last_words = None;
    let list_current = watch.request.from.is_none() || watch.request.send_initial_events;
    if list_current {
        let (g, r) = &watch.scope.resource.storage;
        let events = storage.store.list(g, r, watch.scope.namespace.as_deref(), None).filter(|(_, o)| watch.request.selection.matches(o));
        last_words = events.map(|(_, o)| watch.event("ADDED", o, None)).try_for_each(|line| line.map(|line| initial.push(line))).err();
    } else if let Some(from) = watch.request.from {
        match storage.store.events_after(from) {
            Ok(events) => last_words = events.iter().filter_map(|e| watch.event_line(e)).try_for_each(|l| l.map(|l| initial.push(l))).err(),
            Err(e) => last_words = Some(watch.line("ERROR", &too_old(from, e.oldest))),
        }
        start_revision = revision.max(from);
    }
    let initial_end = (watch.request.send_initial_events && watch.request.bookmarks).then(|| watch.bookmark(revision, true));
    let subscription = storage.store.subscribe();
    let (tx, rx) = mpsc::channel(256);
    if watch.request.timeout == Some(Duration::ZERO) {
        return rx;
    }
    tokio::spawn(async move {
        if let Some(err) = last_words {
            for line in initial.into_iter().chain([err]) {
                if tx.send(line).await.is_err() {
                    return;
                }
            }
            return;
        }
        for line in initial.into_iter().chain(initial_end) {
            if tx.send(line).await.is_err() {
                return;
            }
        }
        run(watch, subscription, tx, start_revision).await;
    });
    rx
}

/// The object a bookmark carries: an empty one of the kind with `meta`, converted from its
/// internal type and encoded as any object (the watch cache's bookmark holds its `newFunc()`,
/// k8s.io/apiserver pkg/storage/cacher): a built-in kind's fields that Go writes even when zero,
/// what converting the apps workloads' internal types writes (a replica count, which is no
/// pointer there, and a DaemonSet's template generation as its annotation,
/// kubernetes pkg/apis/apps/v1/conversion.go).
fn empty_object(kind: &str, api_version: &str, mut meta: Value) -> Value {
    if api_version == "apps/v1" && kind == "DaemonSet" {
        meta["annotations"]["deprecated.daemonset.template.generation"] = json!("0");
    }
    let mut object = go_shapes::round_trip(api_version, kind, &json!({"kind": kind, "apiVersion": api_version, "metadata": meta}));
    if api_version == "apps/v1" && matches!(kind, "Deployment" | "ReplicaSet" | "StatefulSet") {
        object["spec"]["replicas"] = json!(0);
    }
    object
}

async fn run(watch: Watch, mut sub: broadcast::Receiver<Arc<StoreEvent>>, tx: mpsc::Sender<Bytes>, mut last: u64) {
    let mut bookmarks = tokio::time::interval(watch.bookmark_interval);
    bookmarks.tick().await;
    let deadline = tokio::time::sleep(watch.request.timeout.unwrap_or(Duration::from_secs(3600 * 24 * 365)));
    tokio::pin!(deadline);
    loop {
        // Biased: the same events give the same stream every time (a seeded run replays exactly).
        let line = tokio::select! {
            biased;
            event = sub.recv() => match event {
                Ok(e) if e.revision <= last => continue,
                Ok(e) => {
                    last = e.revision;
                    if watch.definition_changed(&e) {
                        return;
                    }
                    match watch.event_line(&e) {
                        Some(Ok(line)) => line,
                        Some(Err(last_words)) => {
                            let _ = tx.send(last_words).await;
                            return;
                        }
                        None => continue,
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let _ = tx.send(watch.line("ERROR", &too_old(last, last + 1))).await;
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = bookmarks.tick(), if watch.request.bookmarks => watch.bookmark(last, false),
            () = &mut deadline => return,
            () = tx.closed() => return,
        };
        if tx.send(line).await.is_err() {
            return;
        }
    }
}
