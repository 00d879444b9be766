//! What every answer of the fake API server must satisfy, whatever the request: the answer's
//! code and body, and which stored objects the request was allowed to change.

use std::collections::BTreeMap;
use std::sync::Arc;

use kubegc::apiserver::ApiServer;
use kubegc::apiserver::http::request::{Query, ResourcePath};
use kubegc::apiserver::protobuf;
use kubegc::apiserver::storage::store::ObjectKey;
use serde_json::Value;

use crate::fuzz::generate::FuzzRequest;

/// The reasons Kubernetes gives with each error code (`metav1.StatusReason`).
fn reasons_for(code: u16) -> &'static [&'static str] {
    match code {
        400 => &["BadRequest"],
        401 => &["Unauthorized"],
        403 => &["Forbidden"],
        404 => &["NotFound"],
        405 => &["MethodNotAllowed"],
        406 => &["NotAcceptable"],
        409 => &["Conflict", "AlreadyExists"],
        410 => &["Expired", "Gone"],
        413 => &["RequestEntityTooLarge"],
        415 => &["UnsupportedMediaType"],
        422 => &["Invalid"],
        429 => &["TooManyRequests"],
        _ => &[],
    }
}

/// The 5xx answers the real API server gives too, each by its reason (empty for the fake's
/// and upstream's `StatusReasonUnknown`) and the start of its message:
/// - a conversion through a CRD's webhook, which the fake never reaches (upstream: 500 when the
///   webhook's service cannot be reached);
/// - server-side apply failing to build or merge the typed objects (upstream's field manager
///   returns these errors unwrapped, which its response writer turns into 500);
/// - a watch from a resourceVersion that is not a number (the storage's parse error reaches the
///   watch handler unwrapped);
/// - a namespace `.` or `..` in the path: etcd3's store refuses the key, and the
///   NamespaceLifecycle admission plugin's lookup of such a namespace for a create;
/// - a list at a resourceVersion the storage has not reached (504 Timeout once the cache gives
///   up waiting for it).
const UPSTREAM_5XX: &[(&str, &str)] = &[
    ("", "conversion webhook for "),
    ("", "failed to "),
    ("", "resourceVersion: Invalid value: "),
    ("", "invalid key: "),
    ("InternalError", "Internal error occurred: invalid resource name "),
    ("Timeout", "Timeout: Too large resource version: "),
];

/// An answer as the fuzzer sees it.
#[derive(Debug)]
pub struct Answer {
    /// HTTP status code.
    pub code: u16,
    /// The body; of a stream (a watch), what the server had sent when the fuzzer read it.
    pub body: Vec<u8>,
    /// Whether the answer is a stream of watch events: a watch, or a stream that did not end.
    pub streamed: bool,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The `Warning` headers, in order.
    pub warnings: Vec<String>,
}

/// Checks an answer's code and body; `Err` says what is wrong.
pub fn check_answer(server: &ApiServer, request: &FuzzRequest, answer: &Answer) -> Result<(), String> {
    if answer.streamed && answer.code == 200 {
        return check_watch_events(&answer.body);
    }
    if answer.code < 400 || request.method == "HEAD" {
        return Ok(());
    }
    // An error is encoded as the client accepts it: YAML or protobuf when it asks for that.
    let content_type = answer.content_type.as_deref().unwrap_or("");
    let status: Option<Value> = if content_type.starts_with("application/yaml") {
        std::str::from_utf8(&answer.body).ok().and_then(|text| serde_saphyr::from_str(text).ok())
    } else if protobuf::is_protobuf(content_type) {
        protobuf::decode(&answer.body).ok()
    } else {
        serde_json::from_slice(&answer.body).ok()
    };
    let Some(status) = status.filter(|s| s["kind"] == "Status") else {
        let plain = answer.code == 404 && answer.body == b"404 page not found\n";
        if plain && mux_answers(server, &request.uri) {
            return Ok(());
        }
        // kube-openapi's handler3 refuses with a bare code: no document (404), no JSON
        // accepted (406), an If-None-Match a write cannot meet (412).
        if request.uri.starts_with("/openapi/v3/") && answer.body.is_empty() && matches!(answer.code, 404 | 406 | 412) {
            return Ok(());
        }
        return Err(format!("{} answered without a Status: {:?}", answer.code, String::from_utf8_lossy(&answer.body)));
    };
    let reason = status["reason"].as_str().unwrap_or("");
    let message = status["message"].as_str().unwrap_or("");
    if status["apiVersion"] != "v1" || status["status"] != "Failure" || status["code"] != answer.code {
        return Err(format!("malformed Status for {}: {status}", answer.code));
    }
    if answer.code >= 500 {
        return if UPSTREAM_5XX.iter().any(|(known, start)| reason == *known && message.starts_with(start)) {
            Ok(())
        } else {
            Err(format!("unexpected {}: {status}", answer.code))
        };
    }
    if !reasons_for(answer.code).contains(&reason) {
        return Err(format!("reason {reason:?} is not one Kubernetes gives with {}: {status}", answer.code));
    }
    Ok(())
}

/// The watch event types a stream may carry.
const WATCH_EVENT_TYPES: &[&str] = &["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"];

/// Checks the lines a watch sent: each a JSON event of a known type, an ERROR carrying a
/// `Status` with the reason of its code and nothing after it, every other event an object with
/// its kind, apiVersion and metadata.
fn check_watch_events(stream: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(stream).map_err(|e| format!("a watch sent bytes that are not UTF-8: {e}"))?;
    let mut ended = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if ended {
            return Err(format!("a watch sent {line:?} after its ERROR event"));
        }
        let event: Value = serde_json::from_str(line).map_err(|e| format!("a watch sent a line that is not JSON ({e}): {line:?}"))?;
        let kind = event["type"].as_str().unwrap_or_default();
        let object = &event["object"];
        if !WATCH_EVENT_TYPES.contains(&kind) || !object.is_object() {
            return Err(format!("a watch sent a malformed event: {line}"));
        }
        if kind == "ERROR" {
            let code = object["code"].as_u64().and_then(|c| u16::try_from(c).ok()).unwrap_or_default();
            let reason = object["reason"].as_str().unwrap_or_default();
            if object["kind"] != "Status" || !reasons_for(code).contains(&reason) {
                return Err(format!("a watch's ERROR event carries no Status with the reason of its code: {line}"));
            }
            ended = true;
        } else if !object["kind"].is_string() || !object["apiVersion"].is_string() || !object["metadata"].is_object() {
            return Err(format!("a watch's {kind} event carries no object with kind, apiVersion and metadata: {line}"));
        }
    }
    Ok(())
}

/// Whether upstream's mux may answer a plain-text 404 for `uri`: a path outside `/api` and
/// outside every group the server serves now (`/apis//...` names none), or under a group of
/// custom resources alone,
/// whose apiextensions handler passes to the mux what it does not serve (a method that is no
/// verb, an unknown resource or version, a request outside the resource's scope).
fn mux_answers(server: &ApiServer, uri: &str) -> bool {
    let path = uri.split('?').next().unwrap_or("");
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let catalogue = &server.lock().catalogue;
    match parts.as_slice() {
        ["api", ..] => false,
        ["apis", group, ..] => group.is_empty() || !catalogue.serves_group(group) || catalogue.is_custom_group(group),
        _ => true,
    }
}

/// Every stored object at one moment, kept up to date by [`Snapshot::refresh`].
pub struct Snapshot {
    /// The store's revision.
    revision: u64,
    /// The objects, by key.
    objects: BTreeMap<ObjectKey, Arc<Value>>,
}

/// How one object changed between two snapshots.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Change {
    /// Created.
    Added,
    /// Written.
    Modified,
    /// Removed.
    Removed,
}

/// What one request changed.
#[derive(Debug)]
pub struct Changes {
    /// Whether the store's revision moved.
    pub revision_moved: bool,
    /// Each changed object, with the state it had before (none when added).
    pub objects: Vec<(ObjectKey, Change, Option<Arc<Value>>)>,
}

impl Snapshot {
    /// The server's state now.
    pub fn capture(server: &ApiServer) -> Self {
        let storage = server.lock();
        Self { revision: storage.store.revision(), objects: storage.store.objects().map(|(k, v)| (k, v.clone())).collect() }
    }

    /// What changed since this snapshot, which then moves to the server's state now. Every
    /// object is compared (by pointer first, then by value), not only what the watch history
    /// records.
    pub fn refresh(&mut self, server: &ApiServer) -> Changes {
        let storage = server.lock();
        let mut objects = Vec::new();
        let mut seen = 0;
        for (key, value) in storage.store.objects() {
            match self.objects.get(&key) {
                None => objects.push((key, Change::Added, None)),
                Some(old) => {
                    seen += 1;
                    if !Arc::ptr_eq(old, value) && old != value {
                        objects.push((key, Change::Modified, Some(old.clone())));
                    }
                }
            }
        }
        if seen < self.objects.len() {
            for (key, old) in &self.objects {
                if storage.store.get(key).is_none() {
                    objects.push((key.clone(), Change::Removed, Some(old.clone())));
                }
            }
        }
        for (key, change, _) in &objects {
            match change {
                Change::Removed => self.objects.remove(key),
                _ => self.objects.insert(key.clone(), storage.store.get(key).expect("present").clone()),
            };
        }
        let revision = storage.store.revision();
        let revision_moved = revision != self.revision;
        self.revision = revision;
        Changes { revision_moved, objects }
    }
}

/// Whether the request asks for a dry run: in the query, except for a DELETE with a body, whose
/// options come from the body alone (upstream decodes the query only when the body is empty).
fn dry_run(request: &FuzzRequest, query: Option<&str>) -> bool {
    if request.method == "DELETE" && !request.body.is_empty() {
        let options: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        return options["dryRun"].as_array().is_some_and(|d| d.iter().any(|v| v == "All"));
    }
    Query::parse(query).all("dryRun").contains(&"All")
}

/// Where a request may write: the storage resource and namespace its path names, and the
/// object when it names one.
struct Reach {
    group: String,
    resource: String,
    namespace: String,
    name: Option<String>,
}

impl Reach {
    fn covers(&self, key: &ObjectKey) -> bool {
        key.group == self.group
            && key.resource == self.resource
            && key.namespace == self.namespace
            && self.name.as_ref().is_none_or(|n| *n == key.name)
    }
}

/// Checks that a request changed only what it may: nothing when refused, read-only or a dry
/// run; otherwise only the object it names (or, for a collection delete, objects of the
/// collection), plus the custom resources of a definition it removed.
pub fn check_changes(server: &ApiServer, request: &FuzzRequest, answer: &Answer, changes: &Changes) -> Result<(), String> {
    // A handler that cannot render its answer as asked refuses it once the verb is done
    // (`transformResponseObject`, k8s.io/apiserver pkg/endpoints/handlers/response.go); the REST
    // router's own 406 ("406: Not Acceptable") comes before anything is done.
    let rendered_after = answer.code == 406 && !answer.body.windows(19).any(|w| w == b"406: Not Acceptable");
    let refused = answer.code >= 400 && !rendered_after;
    let read_only = !matches!(request.method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE");
    let (path, query) = request.uri.split_once('?').map_or((request.uri.as_str(), None), |(p, q)| (p, Some(q)));
    let dry_run = dry_run(request, query);
    if refused || read_only || dry_run {
        if changes.revision_moved || !changes.objects.is_empty() {
            let why = if refused {
                "a refused request"
            } else if dry_run {
                "a dry run"
            } else {
                "a read"
            };
            return Err(format!("{why} changed the store: {}", describe(changes)));
        }
        return Ok(());
    }
    let reach = ResourcePath::parse(path).and_then(|p| {
        let info = server.lock().catalogue.lookup(&p.group, &p.version, &p.resource)?;
        let namespace = if info.namespaced { p.namespace.clone().unwrap_or_default() } else { String::new() };
        // A custom resource's create names its object in its body, whatever the URL says.
        let name = if request.method == "POST" && info.custom { None } else { p.name };
        Some(Reach { group: info.storage.0.clone(), resource: info.storage.1.clone(), namespace, name })
    });
    let Some(reach) = reach else {
        return if changes.objects.is_empty() { Ok(()) } else { Err(format!("a request naming no resource wrote: {}", describe(changes))) };
    };
    // A removed definition takes its custom resources with it.
    let cascades: Vec<(String, String)> = changes
        .objects
        .iter()
        .filter(|(key, change, _)| key.resource == "customresourcedefinitions" && *change == Change::Removed)
        .filter_map(|(_, _, old)| {
            let spec = &old.as_ref()?["spec"];
            Some((spec["group"].as_str()?.to_string(), spec["names"]["plural"].as_str()?.to_string()))
        })
        .collect();
    let stray: Vec<_> = changes
        .objects
        .iter()
        .filter(|(key, change, _)| {
            let cascade = *change == Change::Removed && cascades.iter().any(|(g, r)| key.group == *g && key.resource == *r);
            !reach.covers(key) && !cascade
        })
        .collect();
    if !stray.is_empty() {
        return Err(format!("objects nobody targeted changed: {stray:?}"));
    }
    if request.method == "POST" && changes.objects.len() > 1 {
        return Err(format!("a create wrote more than one object: {}", describe(changes)));
    }
    Ok(())
}

fn describe(changes: &Changes) -> String {
    let keys: Vec<String> =
        changes.objects.iter().map(|(k, c, _)| format!("{c:?} {}/{} {}/{}", k.group, k.resource, k.namespace, k.name)).collect();
    format!("revision moved: {}; objects: [{}]", changes.revision_moved, keys.join(", "))
}
