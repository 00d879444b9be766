//! What of two answers to one request is compared, after masking what two servers
//! legitimately differ in: uids, resourceVersions and continue tokens, timestamps, the random
//! suffix of a generated name, allocated Service addresses and ports. Everything else counts:
//! the code, the `Content-Type`, `reason`, `message`, `details.causes`, the rest of the body
//! field by field, the `Warning` headers, and a watch's events one by one.
//!
//! Bodies that are neither JSON nor YAML (protobuf, CBOR) are compared only as "binary": their
//! bytes hold the servers' own uids and resourceVersions, which cannot be masked in place.

use std::sync::LazyLock;

use kubegc::apiserver::protobuf;
use regex::Regex;
use serde_json::{Map, Value, json};

use crate::fuzz::generate::FuzzRequest;
use crate::fuzz::invariants::Answer;

/// An answer as compared, masked.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    /// HTTP status code.
    pub code: u16,
    /// The media type of `Content-Type`, lower-cased, without parameters.
    pub media: String,
    /// The `Warning` headers, masked.
    pub warnings: Vec<String>,
    /// The body.
    pub body: Shape,
}

/// An answer's body.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A JSON (or YAML) document, masked.
    Json(Value),
    /// A watch's events, each masked (a line that is not JSON as a string).
    Events(Vec<Value>),
    /// Text that is not JSON, masked.
    Text(String),
    /// Bytes that are not text, by length (never compared).
    Binary(usize),
}

/// One thing two answers differ in.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// What differs: `code`, `message`, `body /spec/x`, ... (array positions as `*`).
    pub field: String,
    /// The fake's side, on one line, whole (rules match it whole).
    pub fake: String,
    /// The upstream side, on one line, whole.
    pub upstream: String,
}

impl Difference {
    /// The two sides as shown to a reader: clipped, from a little before where they part when
    /// that is far in.
    pub fn shown(&self) -> (String, String) {
        clip_apart(&self.fake, &self.upstream)
    }
}

/// The most differences reported of one answer's body.
const MOST_PER_BODY: usize = 12;

/// The longest rendering of one side of a difference.
const LONGEST: usize = 300;

/// The text of `request` whose uids an answer keeps unmasked (a uid the request names).
fn context_of(request: &FuzzRequest) -> String {
    format!("{} {}", request.uri, String::from_utf8_lossy(&request.body))
}

/// What the answers to `to_fake` and to `request`, one request sent to each server in the form
/// that server needs (an update of each one's own object), keep unmasked: the uids both name.
/// The same request to both: everything it names.
pub fn shared_context(to_fake: &FuzzRequest, request: &FuzzRequest) -> String {
    let (fake, upstream) = (context_of(to_fake), context_of(request));
    if fake == upstream {
        return upstream;
    }
    UID.find_iter(&upstream).map(|m| m.as_str()).filter(|uid| fake.contains(uid)).collect::<Vec<_>>().join(" ")
}

/// `answer` to `request` as compared, keeping unmasked the uids `context` names.
pub fn see_in(request: &FuzzRequest, answer: &Answer, watch: bool, context: &str) -> Seen {
    let media = answer.content_type.as_deref().unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let warnings = answer.warnings.iter().map(|w| mask_text(w, context)).collect();
    let body = if request.method == "HEAD" {
        Shape::Text(String::new())
    } else if watch && answer.code == 200 {
        let masked = |mut event: Value| {
            mask(&mut event, "", context);
            event
        };
        // A protobuf stream is read back frame by frame by the decoder for request bodies (its
        // error shown when a frame does not decode), a JSON stream as consecutive JSON values, as
        // a client reads it (an indented event spans lines; the order of its keys is not compared).
        let events: Vec<Value> = if protobuf::is_protobuf(&media) {
            protobuf::decode_watch(&answer.body).map_or_else(|why| vec![json!(why)], |events| events.into_iter().map(masked).collect())
        } else {
            json_stream(&answer.body, context).into_iter().map(|event| event.map_or_else(|rest| rest, masked)).collect()
        };
        Shape::Events(events.into_iter().filter(|event| !by_ip_repair(&event["object"]) && !is_periodic_bookmark(event)).collect())
    } else if let Ok(mut value) = serde_json::from_slice::<Value>(&answer.body) {
        mask(&mut value, "", context);
        Shape::Json(value)
    } else if let Some(mut value) = protobuf::is_protobuf(&media).then(|| protobuf::decode(&answer.body).ok()).flatten() {
        // Read with the protobuf decoder for request bodies (k8s-pb's types), not the encoder.
        mask(&mut value, "", context);
        Shape::Json(value)
    } else {
        match std::str::from_utf8(&answer.body) {
            Ok(text) if media.contains("yaml") => match serde_saphyr::from_str::<Value>(text) {
                Ok(mut value) => {
                    mask(&mut value, "", context);
                    Shape::Json(value)
                }
                Err(_) => Shape::Text(mask_text(text, context)),
            },
            Ok(text) => Shape::Text(mask_text(text, context)),
            Err(_) => Shape::Binary(answer.body.len()),
        }
    };
    Seen { code: answer.code, media, warnings, body }
}

/// The JSON values `body` holds one after another, then, when the rest does not read as JSON,
/// that rest as masked text (`Err`).
fn json_stream(body: &[u8], context: &str) -> Vec<Result<Value, Value>> {
    let mut values = serde_json::Deserializer::from_slice(body).into_iter::<Value>();
    let mut out = Vec::new();
    for value in values.by_ref() {
        match value {
            Ok(value) => out.push(Ok(value)),
            Err(_) => break,
        }
    }
    let rest = String::from_utf8_lossy(&body[values.byte_offset()..]);
    if !rest.trim().is_empty() {
        out.push(Err(json!(mask_text(rest.trim(), context))));
    }
    out
}

/// What `fake` and `upstream` differ in. Answers of different codes differ in their code
/// alone (their bodies cannot agree).
pub fn differences(fake: &Seen, upstream: &Seen) -> Vec<Difference> {
    let mut out = Vec::new();
    if fake.code != upstream.code {
        out.push(Difference {
            field: format!("code {} (upstream {})", fake.code, upstream.code),
            fake: summary(fake),
            upstream: summary(upstream),
        });
        return out;
    }
    if fake.media != upstream.media {
        out.push(Difference { field: "content-type".into(), fake: fake.media.clone(), upstream: upstream.media.clone() });
    }
    if fake.warnings != upstream.warnings {
        out.push(Difference {
            field: "warnings".into(),
            fake: render_strings(&fake.warnings),
            upstream: render_strings(&upstream.warnings),
        });
    }
    match (&fake.body, &upstream.body) {
        (Shape::Json(f), Shape::Json(u)) => json_differences(f, u, &mut out),
        (Shape::Events(f), Shape::Events(u)) => event_differences(f, u, &mut out),
        (Shape::Text(f), Shape::Text(u)) if f != u => {
            out.push(Difference { field: "body text".into(), fake: f.clone(), upstream: u.clone() });
        }
        (Shape::Text(_), Shape::Text(_)) | (Shape::Binary(_), Shape::Binary(_)) => {}
        (f, u) => out.push(Difference { field: "body shape".into(), fake: shape_summary(f), upstream: shape_summary(u) }),
    }
    out
}

/// A Status's reason, message and causes, then every other field of the two bodies.
fn json_differences(fake: &Value, upstream: &Value, out: &mut Vec<Difference>) {
    let (mut fake, mut upstream) = (fake.clone(), upstream.clone());
    if fake["kind"] == "Status" && upstream["kind"] == "Status" {
        for (field, pointer) in [("reason", "/reason"), ("message", "/message"), ("details.causes", "/details/causes")] {
            let (f, u) = (take(&mut fake, pointer), take(&mut upstream, pointer));
            if f != u {
                out.push(Difference { field: field.into(), fake: rendered(f.as_ref()), upstream: rendered(u.as_ref()) });
            }
        }
    }
    let mut found = Vec::new();
    leaf_differences(Some(&fake), Some(&upstream), "", &mut found);
    for (path, f, u) in found.into_iter().take(MOST_PER_BODY) {
        out.push(Difference { field: format!("body {}", if path.is_empty() { "/" } else { &path }), fake: f, upstream: u });
    }
}

/// A watch's events one by one: their number, then each one's type and object.
fn event_differences(fake: &[Value], upstream: &[Value], out: &mut Vec<Difference>) {
    if fake.len() != upstream.len() {
        let types = |events: &[Value]| {
            let list: Vec<String> = events
                .iter()
                .map(|e| format!("{} {}", e["type"].as_str().unwrap_or("?"), e["object"]["metadata"]["name"].as_str().unwrap_or("")))
                .collect();
            format!("{} events [{}]", events.len(), list.join(", "))
        };
        out.push(Difference { field: "watch events".into(), fake: clip(&types(fake)), upstream: clip(&types(upstream)) });
        return;
    }
    let mut found = Vec::new();
    for (f, u) in fake.iter().zip(upstream) {
        leaf_differences(Some(f), Some(u), "", &mut found);
    }
    for (path, f, u) in found.into_iter().take(MOST_PER_BODY) {
        out.push(Difference { field: format!("watch event {path}"), fake: f, upstream: u });
    }
}

/// Removes and returns the field at `pointer`.
fn take(value: &mut Value, pointer: &str) -> Option<Value> {
    let (parent, last) = pointer.rsplit_once('/')?;
    let parent = if parent.is_empty() { Some(value) } else { value.pointer_mut(parent) };
    parent?.as_object_mut()?.remove(last)
}

/// Every leaf at which `fake` and `upstream` differ, by path (array positions as `*`); arrays
/// of different lengths differ as a whole.
fn leaf_differences(fake: Option<&Value>, upstream: Option<&Value>, path: &str, out: &mut Vec<(String, String, String)>) {
    match (fake, upstream) {
        (Some(Value::Object(f)), Some(Value::Object(u))) => {
            let mut keys: Vec<&String> = f.keys().chain(u.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                leaf_differences(f.get(key), u.get(key), &format!("{path}/{key}"), out);
            }
        }
        (Some(Value::Array(f)), Some(Value::Array(u))) if f.len() == u.len() => {
            for (f, u) in f.iter().zip(u) {
                leaf_differences(Some(f), Some(u), &format!("{path}/*"), out);
            }
        }
        (f, u) if f != u => out.push((path.to_string(), rendered(f), rendered(u))),
        _ => {}
    }
}

/// One side of a difference on one line (unclipped): compact JSON, arrays of objects by their
/// names.
fn rendered(value: Option<&Value>) -> String {
    match value {
        None => "(absent)".into(),
        Some(Value::Array(items)) if !items.is_empty() && items.iter().all(|i| i["metadata"]["name"].is_string()) => {
            let names: Vec<&str> = items.iter().filter_map(|i| i["metadata"]["name"].as_str()).collect();
            format!("{} objects [{}]", names.len(), names.join(", "))
        }
        Some(value) => value.to_string(),
    }
}

/// Two sides of a difference, each clipped, from a little before the first character where
/// they part when a clip from the start would hide it.
fn clip_apart(fake: &str, upstream: &str) -> (String, String) {
    const BEFORE: usize = 60;
    let same = fake.chars().zip(upstream.chars()).take_while(|(f, u)| f == u).count();
    if same + 20 < LONGEST {
        return (clip(fake), clip(upstream));
    }
    let from = |text: &str| format!("...{}", clip(&text.chars().skip(same - BEFORE).collect::<String>()));
    (from(fake), from(upstream))
}

fn render_strings(items: &[String]) -> String {
    if items.is_empty() { "(none)".into() } else { items.join(" | ") }
}

/// An answer on one line: its code and, of a Status, reason and message; of an object, its
/// kind and name.
pub fn summary(seen: &Seen) -> String {
    let detail = match &seen.body {
        Shape::Json(v) if v["kind"] == "Status" => {
            format!("{} {}", v["reason"].as_str().unwrap_or(""), v["message"].as_str().unwrap_or(""))
        }
        Shape::Json(v) => format!("{} {}", v["kind"].as_str().unwrap_or(""), v["metadata"]["name"].as_str().unwrap_or("")),
        other => shape_summary(other),
    };
    clip(&format!("{} {}", seen.code, detail.trim()))
}

fn shape_summary(shape: &Shape) -> String {
    match shape {
        Shape::Json(v) => clip(&v.to_string()),
        Shape::Events(events) => format!("{} watch events", events.len()),
        Shape::Text(text) => clip(&format!("text {text:?}")),
        Shape::Binary(len) => format!("{len} bytes of binary"),
    }
}

/// `text` on one line, at most [`LONGEST`] characters.
pub fn clip(text: &str) -> String {
    let line = text.replace('\n', "\\n");
    if line.chars().count() <= LONGEST {
        return line;
    }
    let cut: String = line.chars().take(LONGEST).collect();
    format!("{cut}...")
}

/// Masks, in place, what two servers legitimately differ in; `key` is the field `value` is
/// held in, `context` the request's text (a uid the request names is kept).
fn mask(value: &mut Value, key: &str, context: &str) {
    // A discovery list's resources are compared by name, so that each one the fake does not
    // serve is a difference of its own.
    if key == "resources"
        && let Value::Array(items) = value
        && !items.is_empty()
        && items.iter().all(|r| r["name"].is_string() && r["verbs"].is_array())
    {
        *value = Value::Object(items.drain(..).map(|r| (r["name"].as_str().unwrap_or_default().to_string(), r)).collect());
    }
    match value {
        Value::Object(map) => {
            mask_generated_name(map);
            mask_table_cells(map);
            mask_secure_port(map);
            // A page that held the IP repair controller's Events (dropped below) ends elsewhere
            // than the fake's: its continue token and count of the rest say nothing of the fake.
            // The slots they took are noted for `align_pages`.
            let taken = map.get("items").and_then(Value::as_array).map_or(0, |items| items.iter().filter(|i| by_ip_repair(i)).count());
            if taken > 0
                && let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut)
            {
                meta.remove("continue");
                meta.remove("remainingItemCount");
                meta.insert(SLOTS_TAKEN.into(), json!(taken));
            }
            // A list of metadata with no items writes them as null (its Go slice is nil): so
            // is one whose every item was the server's own.
            if map.get("kind").is_some_and(|k| k == "PartialObjectMetadataList")
                && let Some(Value::Array(items)) = map.get_mut("items")
                && !items.is_empty()
                && items.iter().all(by_ip_repair)
            {
                map.insert("items".into(), Value::Null);
            }
            // A namespace's first DELETE writes its finalizers back from a Go map (kubernetes
            // pkg/registry/core/namespace/storage/storage.go, `REST.Delete`): their order is
            // random upstream, so a namespace's are compared as a set.
            if map.get("kind").is_some_and(|k| k == "Namespace")
                && let Some(Value::Array(finalizers)) = map.get_mut("metadata").and_then(|m| m.get_mut("finalizers"))
            {
                finalizers.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
            }
            // Keys too: managedFields name list items by key (`k:{"name":"kube-api-access-..."}`).
            let masked: Vec<(String, String)> =
                map.keys().map(|k| (k.clone(), mask_text(k, context))).filter(|(k, masked)| k != masked).collect();
            for (key, masked) in masked {
                if let Some(v) = map.remove(&key) {
                    map.insert(masked, v);
                }
            }
            for (k, v) in map.iter_mut() {
                mask(v, k, context);
            }
        }
        Value::Array(items) => {
            if key == "items" || key == "rows" {
                items.retain(|item| !by_ip_repair(item));
            }
            items.iter_mut().for_each(|v| mask(v, key, context));
            // Conditions are a map keyed by type (`+listType=map`): their order says only which
            // of the controllers that write them came first, a race on a real control plane.
            if key == "conditions" && items.iter().all(|c| c["type"].is_string()) {
                items.sort_by(|a, b| a["type"].as_str().cmp(&b["type"].as_str()));
            }
            // managedFields are sorted by operation, then by the second of their time, then by
            // manager (k8s.io/apimachinery pkg/util/managedfields/internal/managedfields.go
            // `sortEncodedManagedFields`): with times masked, whether two writes fell in one
            // second is a race too, so entries are compared in the order times do not decide.
            if key == "managedFields" {
                let order = |e: &Value| ["operation", "manager", "subresource"].map(|k| e[k].as_str().unwrap_or("").to_string());
                items.sort_by_key(order);
            }
        }
        Value::String(s) => {
            let masked = match key {
                "resourceVersion" if !s.is_empty() => "<rv>".to_string(),
                "continue" if !s.is_empty() => "<continue>".to_string(),
                "clusterIP" | "clusterIPs" if !s.is_empty() && s != "None" => "<ip>".to_string(),
                // Where each server listens, which it chose when it started (`/api`'s
                // `serverAddressByClientCIDRs`).
                "serverAddress" if !s.is_empty() => "<server address>".to_string(),
                // Each cluster has a CA of its own (kube-system's `extension-apiserver-authentication`).
                "client-ca-file" if s.starts_with("-----BEGIN CERTIFICATE-----") => "<ca bundle>".to_string(),
                k if is_time(k) && !s.is_empty() => "<time>".to_string(),
                _ => mask_text(s, context),
            };
            *s = masked;
        }
        Value::Number(_) if matches!(key, "nodePort" | "healthCheckNodePort") => *value = json!("<port>"),
        _ => {}
    }
}

/// Where a masked page notes how many of its items were the IP repair controller's Events.
const SLOTS_TAKEN: &str = "<slots of the IP repair controller's Events>";

/// Aligns the fake's page of a list with upstream's when Events of upstream's IP repair
/// controller (or other objects the server wrote itself, dropped from both pages) took more of
/// upstream's `limit` slots than of the fake's: the fake's page is cut to the items upstream
/// had room for, and its continue token and count of the rest, which upstream's page lost, go
/// too. Both servers otherwise hold the same objects, so the items upstream's page has left
/// are the first of the fake's. The notes of slots taken go from both pages.
pub fn align_pages(request: &FuzzRequest, fake: &mut Seen, upstream: &mut Seen) {
    let (Shape::Json(fake_page), Shape::Json(upstream_page)) = (&mut fake.body, &mut upstream.body) else { return };
    let take = |page: &mut Value| {
        page.get_mut("metadata").and_then(Value::as_object_mut).and_then(|m| m.remove(SLOTS_TAKEN)).and_then(|t| t.as_u64())
    };
    let (on_the_fake, taken) = (take(fake_page).unwrap_or(0), take(upstream_page).unwrap_or(0));
    if taken <= on_the_fake {
        return;
    }
    if let Some(meta) = fake_page.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("continue");
        meta.remove("remainingItemCount");
    }
    let query = request.uri.split_once('?').map_or("", |(_, q)| q);
    let limit = form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "limit").and_then(|(_, v)| v.parse::<u64>().ok());
    if let (Some(limit @ 1..), Some(items)) = (limit, fake_page.get_mut("items").and_then(Value::as_array_mut)) {
        items.truncate(usize::try_from(limit.saturating_sub(taken)).unwrap_or(usize::MAX));
    }
}

/// Cuts upstream's events of a watch asked to time out before it starts (a negative
/// `timeoutSeconds`) to the fake's, when the fake's are the first of upstream's. Upstream's
/// timer has fired before the first event is sent, and Go's `select` picks at random among the
/// timer and each ready event (k8s.io/apiserver pkg/endpoints/handlers/watch.go, `HandleHTTP`),
/// so upstream sends any number of its first events; the fake sends none.
pub fn cut_expired_watch(request: &FuzzRequest, fake: &Seen, upstream: &mut Seen) {
    let query = request.uri.split_once('?').map_or("", |(_, q)| q);
    let timeout = form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "timeoutSeconds").and_then(|(_, v)| v.parse::<i64>().ok());
    if !timeout.is_some_and(|t| t < 0) {
        return;
    }
    if let (Shape::Events(f), Shape::Events(u)) = (&fake.body, &mut upstream.body) {
        if f.len() < u.len() && u.starts_with(f) {
            u.truncate(f.len());
        }
    }
}

/// The name upstream's IP repair controller reports its Events under.
const IP_REPAIR: &str = "ipallocator-repair-controller";

/// Whether a watch `event` is a bookmark the server sent when it chose to, rather than the one
/// that ends a watch list's initial events (annotated `k8s.io/initial-events-end`). The watch
/// cache sends them on a timer of its own and whenever etcd reports progress
/// (k8s.io/apiserver pkg/storage/cacher/cache_watcher.go `nextBookmarkTime`); a client asks
/// only to allow them and may not rely on when they come (metav1 `ListOptions.allowWatchBookmarks`).
fn is_periodic_bookmark(event: &Value) -> bool {
    event["type"] == "BOOKMARK" && event["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] != "true"
}

/// Whether `item` (an Event, or a Table's row of one) was written by upstream's IP repair
/// controller (kubernetes pkg/registry/core/service/ipallocator/controller/repairip.go). Its
/// loop compares Services with IPAddresses as its informers see them, at times no request
/// decides: about the IPAddresses of deleted Services (a kind the fake does not serve), and,
/// when it runs between a Service's create and its IPAddress reaching the informer,
/// `ClusterIPNotAllocated` about a Service that is fine (CI saw one on seed 1).
fn by_ip_repair(item: &Value) -> bool {
    let reporter = |v: &Value| v.as_str().is_some_and(|s| s.starts_with(IP_REPAIR));
    item["involvedObject"]["kind"] == "IPAddress"
        || item["regarding"]["kind"] == "IPAddress"
        || reporter(&item["reportingController"])
        || reporter(&item["reportingComponent"])
        || reporter(&item["source"]["component"])
        || item["cells"].as_array().is_some_and(|cells| cells.iter().any(reporter))
        || by_the_server_itself(item)
}

/// Whether `item` is an Event listed as metadata alone (`PartialObjectMetadata`) that the API
/// server wrote itself: nothing but the manager of its fields says so, and no fuzzed request
/// writes as `kube-apiserver` (CI saw the IP repair controller's Event listed so on seed 1).
fn by_the_server_itself(item: &Value) -> bool {
    item["kind"] == "PartialObjectMetadata"
        && item["metadata"]["managedFields"].as_array().is_some_and(|entries| entries.iter().any(|e| e["manager"] == "kube-apiserver"))
}

/// The columns of a Table whose cells are the time since a time the server chose, written as
/// an age (`12s`).
const AGE_COLUMNS: &[&str] = &["Age", "Last Seen", "First Seen", "Last Schedule", "Duration"];

/// The secure port in the `kubernetes` Service of `default` masked: each server names the port
/// it listens on (kubernetes pkg/controlplane/controller/kubernetesservice), upstream's chosen
/// when it started.
fn mask_secure_port(map: &mut Map<String, Value>) {
    let meta = map.get("metadata");
    if meta.is_none_or(|m| m["name"] != "kubernetes" || m["namespace"] != "default") {
        return;
    }
    let ports = map.get_mut("spec").and_then(|s| s.get_mut("ports")).and_then(Value::as_array_mut);
    for port in ports.into_iter().flatten().filter(|p| p.get("targetPort").is_some()) {
        port["targetPort"] = json!("<secure port>");
    }
}

/// A Table's cells the servers chose masked: ages (each server created the objects at its own
/// moment) and a Service's allocated cluster IP.
fn mask_table_cells(map: &mut Map<String, Value>) {
    if map.get("kind").is_none_or(|k| k != "Table") {
        return;
    }
    let masks: Vec<(usize, &str)> = map["columnDefinitions"]
        .as_array()
        .map(|columns| {
            let mask_of = |c: &Value| match c["name"].as_str() {
                Some(name) if AGE_COLUMNS.contains(&name) => Some("<age>"),
                Some("Cluster-IP") => Some("<ip>"),
                _ => None,
            };
            columns.iter().enumerate().filter_map(|(i, c)| mask_of(c).map(|m| (i, m))).collect()
        })
        .unwrap_or_default();
    for row in map.get_mut("rows").and_then(Value::as_array_mut).into_iter().flatten() {
        for &(i, masked) in &masks {
            // A headless Service's cluster IP is `None`, which neither server chose.
            if let Some(cell) = row["cells"].get_mut(i).filter(|c| c.is_string() && *c != "None") {
                *cell = json!(masked);
            }
        }
    }
}

/// Whether a field holds a time the server chose: `creationTimestamp`, `deletionTimestamp`,
/// managedFields' `time`, conditions' `lastTransitionTime`, Events' `firstTimestamp`, ...
fn is_time(key: &str) -> bool {
    key == "time" || key.ends_with("Time") || key.ends_with("Timestamp")
}

/// A name made from `generateName`: its random five characters masked.
fn mask_generated_name(map: &mut Map<String, Value>) {
    let Some(prefix) = map.get("generateName").and_then(Value::as_str).map(str::to_string) else { return };
    if let Some(Value::String(name)) = map.get_mut("name")
        && name.len() == prefix.len() + 5
        && name.starts_with(&prefix)
    {
        *name = format!("{prefix}<suffix>");
    }
}

/// A uid (a UUID) the request does not name.
static UID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").expect("a valid expression"));

/// A resourceVersion in a message: upstream's "current: 123", "object meta: 123", "(123)".
static VERSION_IN_TEXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(current: |object meta: |\()[0-9]+\b").expect("a valid expression"));

/// The random suffix of a generated volume name (the ServiceAccount admission plugin's
/// `kube-api-access-xxxxx`).
static GENERATED_VOLUME: LazyLock<Regex> = LazyLock::new(|| Regex::new("kube-api-access-[a-z0-9]{5}").expect("a valid expression"));

/// `text` with the uids the request does not name, resourceVersions and generated suffixes
/// masked, and a list of structured-merge-diff errors sorted.
fn mask_text(text: &str, context: &str) -> String {
    let uids = UID.replace_all(text, |c: &regex::Captures| if context.contains(&c[0]) { c[0].to_string() } else { "<uid>".to_string() });
    let versions = VERSION_IN_TEXT.replace_all(&uids, "$1<rv>");
    sort_error_list(&GENERATED_VOLUME.replace_all(&versions, "kube-api-access-<suffix>"))
}

/// `text` with the lines of a structured-merge-diff error list (`errors:`, then one indented
/// error a line, as an apply's "failed to create typed patch object" gives them) sorted:
/// upstream lists them as it walks the object's fields, in Go's random map order
/// (sigs.k8s.io/structured-merge-diff value/mapunstructured.go, `IterateUsing`), so their order
/// differs between two runs of the same request (seed 1, request 46,608).
fn sort_error_list(text: &str) -> String {
    let Some(start) = text.find("errors:\n") else { return text.to_string() };
    let (head, rest) = text.split_at(start + "errors:\n".len());
    let mut lines: Vec<&str> = rest.split('\n').collect();
    let listed = lines.iter().take_while(|l| l.starts_with("  ")).count();
    lines[..listed].sort_unstable();
    format!("{head}{}", lines.join("\n"))
}

/// The shape of a request, its class's first half: the verb (`LIST`, `WATCH`, `GET`,
/// `DELETECOLLECTION`, the method otherwise; a PATCH with its patch type) and the resource
/// (`group/resource/subresource`, the salted custom group unsalted), or the path when it
/// names no resource.
pub fn request_shape(request: &FuzzRequest, watch: bool) -> String {
    use kubegc::apiserver::http::request::ResourcePath;
    let path = request.uri.split('?').next().unwrap_or("");
    let Some(p) = ResourcePath::parse(path) else {
        return format!("{} {}", request.method, clip(path));
    };
    let named = p.name.is_some();
    let verb = match request.method.as_str() {
        "GET" if watch => "WATCH".to_string(),
        "GET" if !named => "LIST".to_string(),
        "DELETE" if !named => "DELETECOLLECTION".to_string(),
        "PATCH" => {
            let kind = request.content_type.as_deref().unwrap_or("none").split(';').next().unwrap_or("").trim().to_string();
            format!("PATCH({})", kind.trim_start_matches("application/"))
        }
        other => other.to_string(),
    };
    let group = match p.group.split_once(".fuzz.example.com") {
        Some((_, "")) => "fuzz.example.com".to_string(),
        _ => p.group.clone(),
    };
    let mut resource = if group.is_empty() { p.resource.clone() } else { format!("{group}/{}", p.resource) };
    if let Some(sub) = &p.subresource {
        resource = format!("{resource}/{sub}");
    }
    format!("{verb} {resource}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_structured_merge_diff_error_list_is_compared_in_any_order() {
        let fake = "failed to create typed patch object (a/b; apps/v1, Kind=DaemonSet): errors:\n  .metadata.uid: expected string\n  .spec.replicas: field not declared in schema";
        let upstream = "failed to create typed patch object (a/b; apps/v1, Kind=DaemonSet): errors:\n  .spec.replicas: field not declared in schema\n  .metadata.uid: expected string";
        assert_eq!(mask_text(fake, ""), mask_text(upstream, ""));
        let other =
            "failed to create typed patch object (a/b; apps/v1, Kind=DaemonSet): errors:\n  .spec.replicas: field not declared in schema";
        assert_ne!(mask_text(fake, ""), mask_text(other, ""), "a missing error still differs");
        assert_eq!(sort_error_list("no list here"), "no list here");
    }

    fn answer(code: u16, body: Value) -> Answer {
        Answer {
            code,
            body: body.to_string().into_bytes(),
            streamed: false,
            content_type: Some("application/json".into()),
            warnings: vec![],
        }
    }

    fn see(request: &FuzzRequest, answer: &Answer, watch: bool) -> Seen {
        see_in(request, answer, watch, &context_of(request))
    }

    #[test]
    fn a_watch_stream_is_read_as_json_values_whatever_their_lines_and_key_order() {
        let request = FuzzRequest {
            method: "GET".into(),
            uri: "/api/v1/namespaces/a/configmaps?watch=true&pretty=true".into(),
            content_type: None,
            accept: None,
            body: vec![],
        };
        let stream =
            |body: &str| Answer { code: 200, body: body.as_bytes().to_vec(), streamed: true, content_type: None, warnings: vec![] };
        let indented = stream("{\n  \"type\": \"ADDED\",\n  \"object\": {\"kind\": \"ConfigMap\", \"apiVersion\": \"v1\"}\n}\n");
        let compact = stream("{\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},\"type\":\"ADDED\"}\n");
        assert!(differences(&see(&request, &indented, true), &see(&request, &compact, true)).is_empty());
        let torn = see(&request, &stream("{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":"), true);
        let Shape::Events(events) = torn.body else { panic!("a watch is read as events") };
        assert_eq!(events, vec![json!({"type": "ADDED", "object": {}}), json!("{\"type\":")]);
    }

    #[test]
    fn long_sides_are_shown_from_where_they_part() {
        let head = "x".repeat(400);
        let (fake, upstream) = clip_apart(&format!("{head}fake tail"), &format!("{head}upstream tail"));
        assert_eq!(
            (fake.as_str(), upstream.as_str()),
            (&*format!("...{}fake tail", "x".repeat(60)), &*format!("...{}upstream tail", "x".repeat(60)))
        );
        assert_eq!(clip_apart("a", "b"), ("a".to_string(), "b".to_string()));
    }

    #[test]
    fn an_update_sent_to_each_server_in_its_own_form_keeps_only_the_uids_both_name() {
        let (mine, theirs, shared) =
            ("0b6c3f2e-8d1a-4c5e-9f7a-1e2d3c4b5a69", "7f0e1d2c-3b4a-4968-8776-a5b4c3d2e1f0", "00000000-0000-0000-0000-000000000001");
        let put = |uid: &str| FuzzRequest {
            method: "PUT".into(),
            uri: "/apis/batch/v1/namespaces/a/jobs/pi".into(),
            content_type: Some("application/json".into()),
            accept: None,
            body: json!({"metadata": {"labels": {"controller-uid": uid}, "ownerReferences": [{"uid": shared}]}}).to_string().into_bytes(),
        };
        let (to_fake, to_upstream) = (put(mine), put(theirs));
        let context = shared_context(&to_fake, &to_upstream);
        let answer_with =
            |uid: &str| answer(200, json!({"metadata": {"labels": {"controller-uid": uid}, "ownerReferences": [{"uid": shared}]}}));
        let fake = see_in(&to_fake, &answer_with(mine), false, &context);
        let upstream = see_in(&to_upstream, &answer_with(theirs), false, &context);
        assert_eq!(differences(&fake, &upstream), vec![]);
        let Shape::Json(body) = &fake.body else { panic!("json") };
        assert_eq!(body["metadata"]["ownerReferences"][0]["uid"], shared, "a uid both name is kept");
    }

    fn get(uri: &str) -> FuzzRequest {
        FuzzRequest { method: "GET".into(), uri: uri.into(), content_type: None, accept: None, body: vec![] }
    }

    #[test]
    fn only_the_ip_repair_controllers_events_are_left_out_of_lists() {
        let request = get("/api/v1/namespaces/fz-b/events");
        let event = |name: &str, component: &str| json!({"metadata": {"name": name}, "source": {"component": component}});
        let mine = event("fz-a", "fuzz");
        let fake = see(&request, &answer(200, json!({"kind": "EventList", "items": [mine]})), false);
        let repair = event("a.18ed8da8bd14f0d8", "ipallocator-repair-controller");
        let upstream = see(&request, &answer(200, json!({"kind": "EventList", "items": [mine, repair]})), false);
        assert_eq!(differences(&fake, &upstream), vec![]);
        let another = event("b.18ed8da8bd14f0d9", "kubelet");
        let upstream = see(&request, &answer(200, json!({"kind": "EventList", "items": [mine, another]})), false);
        assert_eq!(differences(&fake, &upstream).len(), 1);
        // A page the repair Event took a place in goes on where the fake's does not (CI saw it
        // on seed 1); a page without one keeps its token.
        let page = |items: Vec<&Value>, more: bool| {
            let meta = if more { json!({"continue": "c", "remainingItemCount": 1}) } else { json!({}) };
            see(&request, &answer(200, json!({"kind": "EventList", "metadata": meta, "items": items})), false)
        };
        let aligned = |request: &FuzzRequest, mut fake: Seen, mut upstream: Seen| {
            align_pages(request, &mut fake, &mut upstream);
            differences(&fake, &upstream)
        };
        assert_eq!(aligned(&request, page(vec![&mine], false), page(vec![&repair, &mine], true)), vec![]);
        assert_eq!(aligned(&request, page(vec![&mine], false), page(vec![&mine], true)).len(), 2);
        // Under a limit, the fake's page holds the item upstream's had no room for (CI saw it
        // on seed 1), and its token; only what upstream's page held is compared.
        let limited = get("/api/v1/namespaces/fz-b/events?limit=2");
        let other = event("fz-b", "fuzz");
        let page = |items: Vec<&Value>| {
            see(&limited, &answer(200, json!({"kind": "EventList", "metadata": {"continue": "c"}, "items": items})), false)
        };
        assert_eq!(aligned(&limited, page(vec![&mine, &other]), page(vec![&repair, &mine])), vec![]);
        assert_eq!(
            aligned(&limited, page(vec![&other, &mine]), page(vec![&repair, &mine])).len(),
            1,
            "a different first item still differs"
        );
        assert_eq!(aligned(&limited, page(vec![&repair, &mine]), page(vec![&repair, &mine])), vec![], "slots taken alike on both");
        let row = |source: &str| json!({"cells": ["<age>", "Warning", "ClusterIPNotAllocated", "service/a", "", source]});
        let table = |rows: Vec<Value>| json!({"kind": "Table", "columnDefinitions": [], "rows": rows});
        let fake = see(&request, &answer(200, table(vec![])), false);
        let upstream =
            see(&request, &answer(200, table(vec![row("ipallocator-repair-controller, ipallocator-repair-controller-vm")])), false);
        assert_eq!(differences(&fake, &upstream), vec![]);
        let upstream = see(&request, &answer(200, table(vec![row("kubelet, node-1")])), false);
        assert_eq!(differences(&fake, &upstream).len(), 1);
        let metadata = |manager: &str| json!({"kind": "PartialObjectMetadata", "metadata": {"name": "a.18edb9369b4129bc", "managedFields": [{"manager": manager}]}});
        let list = |items: Vec<Value>| json!({"kind": "PartialObjectMetadataList", "items": items});
        let fake = see(&request, &answer(200, json!({"kind": "PartialObjectMetadataList", "items": null})), false);
        assert_eq!(differences(&fake, &see(&request, &answer(200, list(vec![metadata("kube-apiserver")])), false)), vec![]);
        assert_eq!(differences(&fake, &see(&request, &answer(200, list(vec![metadata("fuzz")])), false)).len(), 1);
    }

    #[test]
    fn a_watch_that_expired_before_it_started_is_compared_up_to_the_fakes_events() {
        let stream = |names: &[&str]| Seen {
            code: 200,
            media: "application/json".into(),
            warnings: vec![],
            body: Shape::Events(names.iter().map(|n| json!({"type": "ADDED", "object": {"metadata": {"name": n}}})).collect()),
        };
        let cut = |uri: &str, fake: &[&str], upstream: &[&str]| {
            let (fake, mut upstream) = (stream(fake), stream(upstream));
            cut_expired_watch(&get(uri), &fake, &mut upstream);
            differences(&fake, &upstream)
        };
        let expired = "/api/v1/watch/namespaces/default/pods?timeoutSeconds=-1";
        assert_eq!(cut(expired, &[], &["a", "b"]), vec![]);
        assert_eq!(cut(expired, &["a"], &["a", "b"]), vec![]);
        assert_eq!(cut(expired, &["b"], &["a", "b"]).len(), 1, "not the first of upstream's");
        assert_eq!(cut(expired, &["a", "b"], &["a"]).len(), 1, "more than upstream's");
        assert_eq!(cut("/api/v1/watch/namespaces/default/pods?timeoutSeconds=1", &[], &["a"]).len(), 1, "a timeout still to come");
    }

    #[test]
    fn what_two_servers_choose_themselves_is_masked_and_nothing_else() {
        let request = get("/api/v1/namespaces/fz-a/configmaps/a");
        let object = |uid: &str, rv: &str, t: &str, data: &str| {
            json!({"kind": "ConfigMap", "metadata": {"name": "a", "uid": uid, "resourceVersion": rv, "creationTimestamp": t,
                "managedFields": [{"manager": "m", "time": t}],
                "ownerReferences": [{"uid": "00000000-0000-0000-0000-000000000001"}]}, "data": {"k": data}})
        };
        let fake = see(&request, &answer(200, object("0b6c3f2e-8d1a-4c5e-9f7a-1e2d3c4b5a69", "12", "2024-01-01T00:00:00Z", "v")), false);
        let upstream =
            see(&request, &answer(200, object("7f0e1d2c-3b4a-4968-8776-a5b4c3d2e1f0", "4711", "2026-11-27T08:00:00Z", "v")), false);
        assert_eq!(differences(&fake, &upstream), vec![]);
        let other = see(&request, &answer(200, object("7f0e1d2c-3b4a-4968-8776-a5b4c3d2e1f0", "4711", "2026-11-27T08:00:00Z", "w")), false);
        let found = differences(&fake, &other);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].field, "body /data/k");
    }

    #[test]
    fn a_table_s_ages_and_cluster_ips_are_masked_and_its_other_cells_compared() {
        let request = get("/api/v1/namespaces/fz-a/services");
        let columns = json!([{"name": "Name"}, {"name": "Cluster-IP"}, {"name": "Age"}]);
        let table =
            |ip: &str, age: &str, name: &str| json!({"kind": "Table", "columnDefinitions": columns, "rows": [{"cells": [name, ip, age]}]});
        let fake = see(&request, &answer(200, table("10.108.121.167", "3s", "a")), false);
        assert_eq!(differences(&fake, &see(&request, &answer(200, table("10.103.181.75", "9m", "a")), false)), vec![]);
        assert_eq!(differences(&fake, &see(&request, &answer(200, table("10.103.181.75", "9m", "b")), false)).len(), 1);
        let headless = see(&request, &answer(200, table("None", "3s", "a")), false);
        assert_eq!(differences(&fake, &headless).len(), 1);
    }

    #[test]
    fn the_address_each_server_listens_on_is_masked() {
        let request = get("/api/");
        let versions = |address: &str, version: &str| json!({"kind": "APIVersions", "versions": [version], "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}]});
        let fake = see(&request, &answer(200, versions("127.0.0.1", "v1")), false);
        let upstream = see(&request, &answer(200, versions("127.0.0.1:44047", "v1")), false);
        assert_eq!(differences(&fake, &upstream), vec![]);
        let other = see(&request, &answer(200, versions("127.0.0.1:44047", "v2")), false);
        assert_eq!(differences(&fake, &other).len(), 1);
    }

    #[test]
    fn only_a_resource_path_is_watched_whatever_the_query_says() {
        use crate::fuzz::asks_for_watch;
        assert!(asks_for_watch(&get("/api/v1/namespaces/default/configmaps?watch=true")));
        assert!(asks_for_watch(&get("/api/v1/watch/namespaces/default/configmaps")));
        // Discovery ignores the query and answers its document.
        assert!(!asks_for_watch(&get("/api/v1/?watch=true")));
        assert!(!asks_for_watch(&get("/apis/apps/v1?watch=1")));
    }

    #[test]
    fn protobuf_watch_streams_are_compared_event_by_event() {
        let request = get("/api/v1/namespaces/default/configmaps?watch=1");
        let frames = |version: &str, value: &str| {
            let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "resourceVersion": version}, "data": {"k": value}});
            let body = [protobuf::watch_frame("ADDED", &object).unwrap(), protobuf::watch_frame("DELETED", &object).unwrap()].concat();
            Answer { body, content_type: Some("application/vnd.kubernetes.protobuf;stream=watch".into()), ..answer(200, json!({})) }
        };
        let fake = see(&request, &frames("12", "v"), true);
        assert!(matches!(&fake.body, Shape::Events(events) if events.len() == 2), "{:?}", fake.body);
        assert_eq!(differences(&fake, &see(&request, &frames("345", "v"), true)), vec![]);
        assert!(!differences(&fake, &see(&request, &frames("12", "w"), true)).is_empty());
    }

    #[test]
    fn a_bookmark_the_server_chose_to_send_is_not_compared_but_the_initial_events_end_is() {
        let request = get("/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true");
        let stream = |events: &[Value]| {
            let lines: Vec<String> = events.iter().map(Value::to_string).collect();
            Answer { body: lines.join("\n").into_bytes(), content_type: Some("application/json".into()), ..answer(200, json!({})) }
        };
        let bookmark = |annotations: Value| json!({"type": "BOOKMARK", "object": {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"resourceVersion": "9", "annotations": annotations}}});
        let none = see(&request, &stream(&[]), true);
        assert_eq!(differences(&none, &see(&request, &stream(&[bookmark(Value::Null)]), true)), vec![]);
        let end = bookmark(json!({"k8s.io/initial-events-end": "true"}));
        assert_eq!(differences(&none, &see(&request, &stream(&[end]), true)).len(), 1);
    }

    #[test]
    fn conditions_are_compared_by_type_whatever_their_order() {
        let request = get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/a.k8s.io");
        let conditions = |types: &[&str], last: &str| {
            let mut list: Vec<Value> = types.iter().map(|t| json!({"type": t, "status": "True"})).collect();
            list.last_mut().expect("one")["status"] = json!(last);
            json!({"kind": "CustomResourceDefinition", "status": {"conditions": list}})
        };
        let fake = see(&request, &answer(200, conditions(&["Established", "KubernetesAPIApprovalPolicyConformant"], "True")), false);
        let upstream = see(&request, &answer(200, conditions(&["KubernetesAPIApprovalPolicyConformant", "Established"], "True")), false);
        assert_eq!(differences(&fake, &upstream), vec![]);
        let other = see(&request, &answer(200, conditions(&["KubernetesAPIApprovalPolicyConformant", "Established"], "False")), false);
        assert_eq!(differences(&fake, &other).len(), 1);
    }

    #[test]
    fn a_namespace_s_finalizers_are_compared_as_a_set() {
        let request = get("/api/v1/namespaces/fz-b");
        let namespace = |finalizers: &[&str]| json!({"kind": "Namespace", "metadata": {"finalizers": finalizers}});
        let fake = see(&request, &answer(200, namespace(&["orphan", "example.com/hold"])), false);
        let upstream = see(&request, &answer(200, namespace(&["example.com/hold", "orphan"])), false);
        assert_eq!(differences(&fake, &upstream), vec![]);
        let other = see(&request, &answer(200, namespace(&["example.com/hold"])), false);
        assert_eq!(differences(&fake, &other).len(), 1);
    }

    #[test]
    fn a_discovery_list_s_resources_differ_one_by_one() {
        let request = get("/api/v1/");
        let list = |names: &[&str]| json!({"kind": "APIResourceList", "resources": names.iter().map(|n| json!({"name": n, "verbs": ["get"]})).collect::<Vec<_>>()});
        let fake = see(&request, &answer(200, list(&["configmaps", "pods"])), false);
        let upstream = see(&request, &answer(200, list(&["bindings", "configmaps", "pods"])), false);
        let fields: Vec<String> = differences(&fake, &upstream).into_iter().map(|d| d.field).collect();
        assert_eq!(fields, vec!["body /resources/bindings"]);
    }

    #[test]
    fn a_generated_suffix_is_masked_in_keys_too() {
        let request = get("/api/v1/namespaces/fz-a/pods/a");
        let fields = |volume: &str| json!({"kind": "Pod", "metadata": {"managedFields": [{"fieldsV1": {"f:spec": {"f:volumes": {format!("k:{{\"name\":\"{volume}\"}}"): {}}}}}]}});
        let fake = see(&request, &answer(200, fields("kube-api-access-abcde")), false);
        let upstream = see(&request, &answer(200, fields("kube-api-access-x1y2z")), false);
        assert_eq!(differences(&fake, &upstream), vec![]);
    }

    #[test]
    fn a_status_is_compared_by_reason_message_and_causes_and_different_codes_by_code_alone() {
        let request = get("/api/v1/namespaces/fz-a/configmaps/a");
        let status = |code: u16, reason: &str, message: &str| json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason, "message": message});
        let fake = see(&request, &answer(404, status(404, "NotFound", "configmaps \"a\" not found")), false);
        let upstream = see(&request, &answer(404, status(404, "NotFound", "configmaps \"a\" is missing")), false);
        let found = differences(&fake, &upstream);
        assert_eq!(found.iter().map(|d| d.field.as_str()).collect::<Vec<_>>(), ["message"]);
        let refused = see(&request, &answer(403, status(403, "Forbidden", "no")), false);
        let found = differences(&fake, &refused);
        assert_eq!(found.iter().map(|d| d.field.as_str()).collect::<Vec<_>>(), ["code 404 (upstream 403)"]);
    }

    #[test]
    fn a_request_s_shape_names_its_verb_and_unsalted_resource() {
        let mut request = get("/apis/d3.fuzz.example.com/v1/namespaces/fz-a-d3/widgets?watch=true");
        assert_eq!(request_shape(&request, true), "WATCH fuzz.example.com/widgets");
        request.uri = "/api/v1/namespaces/fz-a/pods/a/status".into();
        request.method = "PATCH".into();
        request.content_type = Some("application/merge-patch+json".into());
        assert_eq!(request_shape(&request, false), "PATCH(merge-patch+json) pods/status");
        request.uri = "/version".into();
        assert_eq!(request_shape(&request, false), "PATCH /version");
    }
}
