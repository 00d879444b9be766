//! Stepping the reference collector through upstream's garbage-collector unit-test scenarios
//! (`garbagecollector_test.go`) against the fake apiserver: a [`Harness`] with a
//! [`ManualCollector`] whose API calls are recorded, faults injected by hand, upstream's object
//! and event builders (`makeID`, `makeAddEvent`, …) and its `assertState` as [`Harness::assert_state`].

#![allow(dead_code)]

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use http::HeaderValue;
use http::request::Parts;
use kubegc::apiserver::status::ApiError;
use kubegc::apiserver::{ApiServer, Config as ServerConfig};
use kubegc::gc::events::{EventType, GraphEvent, ObjectMeta};
use kubegc::gc::graph::{Identity, OwnerRef};
use kubegc::gc::manual::QueuedNode;
use kubegc::gc::{Config, GarbageCollector, ManualCollector};
use serde_json::{Value, json};

use crate::support::{delete, get, post};

/// The header that marks the collector's requests, so that the harness's own are not recorded.
const CALLER: &str = "x-kubegc-test-caller";

/// A fault: answers the requests it matches with an error.
pub type Fault = Box<dyn Fn(&Parts) -> Option<ApiError> + Send + Sync>;

/// A fake apiserver and a manual collector over it.
pub struct Harness {
    /// The server.
    pub server: ApiServer,
    /// The collector.
    pub gc: ManualCollector,
    /// `METHOD path` of each collector request not yet asserted (events excluded).
    calls: Arc<Mutex<Vec<String>>>,
    /// Injected faults, tried in order.
    faults: Arc<Mutex<Vec<Fault>>>,
    /// Names of the `OwnerRefInvalidNamespace` events already asserted.
    seen_events: Mutex<HashSet<String>>,
}

impl Harness {
    /// A server with namespaces `ns1` and `ns2`, and a collector with `config` whose REST
    /// mapper knows the server's resources.
    pub async fn new(config: Config) -> Self {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let faults: Arc<Mutex<Vec<Fault>>> = Arc::new(Mutex::new(Vec::new()));
        let (record, inject) = (calls.clone(), faults.clone());
        let interceptor: kubegc::apiserver::Interceptor = Arc::new(move |parts: &Parts| {
            if parts.headers.contains_key(CALLER) && !parts.uri.path().ends_with("/events") {
                record.lock().unwrap().push(format!("{} {}", parts.method, parts.uri.path()));
            }
            inject.lock().unwrap().iter().find_map(|f| f(parts))
        });
        let server = ApiServer::with_config(ServerConfig { interceptor: Some(interceptor), ..ServerConfig::default() });
        let gc = GarbageCollector::manual(collector_client(&server), config);
        let harness = Self { server, gc, calls, faults, seen_events: Mutex::new(HashSet::new()) };
        for ns in ["ns1", "ns2"] {
            harness.create_raw("/api/v1/namespaces", json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})).await;
            // The account its pods name, which no service account controller makes here.
            let account = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}});
            harness.create_raw(&format!("/api/v1/namespaces/{ns}/serviceaccounts"), account).await;
        }
        harness.gc.refresh_rest_mapper().await.expect("discovery");
        harness.take_calls();
        harness
    }

    /// The collector's requests since the last call, as `METHOD path`.
    pub fn take_calls(&self) -> Vec<String> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }

    /// Answers the requests `fault` matches with its error, until [`Harness::clear_faults`].
    pub fn inject(&self, fault: impl Fn(&Parts) -> Option<ApiError> + Send + Sync + 'static) {
        self.faults.lock().unwrap().push(Box::new(fault));
    }

    /// Removes every injected fault.
    pub fn clear_faults(&self) {
        self.faults.lock().unwrap().clear();
    }

    /// POSTs `manifest` to `collection`, asserting success; returns the stored object.
    pub async fn create_raw(&self, collection: &str, manifest: Value) -> Value {
        let r = post(&self.server, collection, manifest).await;
        assert_eq!(r.code, 201, "create in {collection}: {}", r.body);
        r.body
    }

    /// Creates the object `identity` names (its UID is ignored) with references to `owners`
    /// (upstream `createObjectInClient`); returns its identity with the UID the server gave it.
    pub async fn create(&self, identity: &Identity, owners: &[&Identity]) -> Identity {
        let mut manifest = json!({"apiVersion": &*identity.api_version, "kind": &*identity.kind, "metadata": {"name": &*identity.name}});
        if !owners.is_empty() {
            manifest["metadata"]["ownerReferences"] = Value::Array(owners.iter().map(|o| owner_ref_json(o)).collect());
        }
        let pod_spec = json!({"containers": [{"name": "c", "image": "busybox"}]});
        match &*identity.kind {
            "Pod" => manifest["spec"] = pod_spec,
            // Upstream's test client validates nothing; the API server wants a workload's
            // selector to match its template, and the template to have a container.
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" => {
                let labels = json!({"app": &*identity.name});
                manifest["spec"] =
                    json!({"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": pod_spec}});
            }
            "ReplicationController" => {
                let labels = json!({"app": &*identity.name});
                manifest["spec"] = json!({"selector": labels, "template": {"metadata": {"labels": labels}, "spec": pod_spec}});
            }
            _ => {}
        }
        let stored = self.create_raw(&collection_path(identity), manifest).await;
        let uid = stored["metadata"]["uid"].as_str().expect("a uid");
        Identity { uid: uid.into(), ..identity.clone() }
    }

    /// Deletes the object `identity` names from the server (upstream `deleteObjectFromClient`).
    pub async fn delete_object(&self, identity: &Identity) {
        let r = delete(&self.server, &object_path(identity), Value::Null).await;
        assert_eq!(r.code, 200, "delete {identity}: {}", r.body);
    }

    /// The `OwnerRefInvalidNamespace` events recorded since the last call, formatted as
    /// upstream's fake recorder with `IncludeObject` formats them.
    async fn take_events(&self) -> Vec<String> {
        let list = get(&self.server, "/api/v1/events?fieldSelector=reason%3DOwnerRefInvalidNamespace").await;
        assert_eq!(list.code, 200, "{}", list.body);
        let mut seen = self.seen_events.lock().unwrap();
        let mut events = Vec::new();
        for e in list.body["items"].as_array().into_iter().flatten() {
            if seen.insert(e["metadata"]["name"].as_str().unwrap_or_default().to_string()) {
                let o = &e["involvedObject"];
                // As upstream `reportInvalidNamespaceOwnerRef` records it: in the dependent's
                // namespace (`default` when cluster-scoped), from the collector's component.
                let namespace = if str_of(&o["namespace"]).is_empty() { "default" } else { str_of(&o["namespace"]) };
                assert_eq!(str_of(&e["metadata"]["namespace"]), namespace, "event namespace: {e}");
                assert_eq!(str_of(&e["source"]["component"]), "garbage-collector-controller", "event source: {e}");
                events.push(format!(
                    "{} {} {} involvedObject{{kind={},apiVersion={}}}",
                    str_of(&e["type"]),
                    str_of(&e["reason"]),
                    str_of(&e["message"]),
                    str_of(&o["kind"]),
                    str_of(&o["apiVersion"])
                ));
            }
        }
        events
    }

    /// Asserts the collector's state as upstream's `assertState` does: events and calls since
    /// the last assertion, graph nodes (count, coordinates, virtual flag, owners), pending graph
    /// changes, both queues in order, and the absent-owner cache; and that owners and
    /// dependents agree (upstream `verifyGraphInvariants`).
    pub async fn assert_state(&self, step: &str, expected: State) {
        assert_eq!(self.take_events().await, expected.events, "{step}: events");
        assert_eq!(self.take_calls(), expected.client_actions, "{step}: client actions");
        self.assert_graph(step, &expected.graph_nodes);
        let changes: Vec<Change> = self.gc.pending_graph_changes().iter().map(Change::of).collect();
        assert_eq!(changes, expected.pending_graph_changes, "{step}: pending graph changes");
        assert_eq!(self.gc.pending_attempt_to_delete(), expected.pending_attempt_to_delete, "{step}: attemptToDelete");
        assert_eq!(self.gc.pending_attempt_to_orphan(), expected.pending_attempt_to_orphan, "{step}: attemptToOrphan");
        let mut absent = self.gc.collector().lock_builder().absent_owners.entries();
        absent.sort();
        let mut want = expected.absent_owner_cache;
        want.sort();
        assert_eq!(absent, want, "{step}: absentOwnerCache");
    }

    fn assert_graph(&self, step: &str, expected: &[ExpectedNode]) {
        let builder = self.gc.collector().lock_builder();
        let graph = &builder.graph;
        assert_eq!(
            graph.len(),
            expected.len(),
            "{step}: node count: {:?}",
            graph.nodes().map(|n| n.identity().to_string()).collect::<Vec<_>>()
        );
        for want in expected {
            let n = graph.get(&want.identity.uid).unwrap_or_else(|| panic!("{step}: no node for {}", want.identity));
            assert_eq!(n.identity(), want.identity, "{step}: identity");
            assert_eq!(n.virtual_node(), want.virtual_node, "{step}: {} virtual", want.identity);
            let owners: Vec<Identity> = n.owners().map(|r| Identity::from_ref(&r, &"".into())).collect();
            let want_owners: Vec<Identity> = want.owners.iter().map(|o| o.in_namespace("".into())).collect();
            assert_eq!(owners, want_owners, "{step}: {} owners", want.identity);
        }
        if let Err(e) = graph.check_invariants() {
            panic!("{step}: {e}");
        }
    }
}

fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// A client for the collector: the server's router with each request marked as the collector's.
fn collector_client(server: &ApiServer) -> kube::Client {
    let service = tower::ServiceBuilder::new()
        .map_request(|mut r: http::Request<kube::client::Body>| {
            r.headers_mut().insert(CALLER, HeaderValue::from_static("collector"));
            r
        })
        .service(server.router());
    kube::Client::new(service, "default")
}

/// The plural of the kinds the scenarios use.
fn plural(kind: &str) -> String {
    match kind {
        "Deployment" | "Pod" | "Node" | "Secret" | "Role" | "Widget" | "Namespace" => format!("{}s", kind.to_lowercase()),
        "ReplicationController" => "replicationcontrollers".into(),
        other => panic!("no plural known for {other}"),
    }
}

/// The collection an identity's object lives in.
pub fn collection_path(identity: &Identity) -> String {
    let prefix = if identity.api_version.contains('/') { "/apis" } else { "/api" };
    let ns = if identity.namespace.is_empty() { String::new() } else { format!("/namespaces/{}", identity.namespace) };
    format!("{prefix}/{}{ns}/{}", identity.api_version, plural(&identity.kind))
}

/// The path of an identity's object.
pub fn object_path(identity: &Identity) -> String {
    format!("{}/{}", collection_path(identity), identity.name)
}

/// An ownerReference to `owner` as JSON.
pub fn owner_ref_json(owner: &Identity) -> Value {
    json!({"apiVersion": &*owner.api_version, "kind": &*owner.kind, "name": &*owner.name, "uid": owner.uid})
}

/// Upstream `makeID`.
pub fn make_id(api_version: &str, kind: &str, namespace: &str, name: &str, uid: &str) -> Identity {
    Identity { api_version: api_version.into(), kind: kind.into(), namespace: namespace.into(), name: name.into(), uid: uid.into() }
}

/// A reference to `owner`'s coordinates.
pub fn owner_ref(owner: &Identity) -> OwnerRef {
    OwnerRef {
        api_version: owner.api_version.clone(),
        kind: owner.kind.clone(),
        name: owner.name.clone(),
        uid: owner.uid.clone(),
        controller: None,
        block_owner_deletion: None,
    }
}

fn event(event_type: EventType, virtual_event: bool, identity: &Identity, owners: &[&Identity]) -> GraphEvent {
    GraphEvent {
        event_type,
        virtual_event,
        object: ObjectMeta { owners: owners.iter().map(|o| owner_ref(o)).collect(), ..ObjectMeta::of(identity) },
        old: None,
        api_version: identity.api_version.clone(),
        kind: identity.kind.clone(),
    }
}

/// Upstream `makeAddEvent`: an informer add of `identity` referencing `owners`.
pub fn make_add_event(identity: &Identity, owners: &[&Identity]) -> GraphEvent {
    event(EventType::Add, false, identity, owners)
}

/// Upstream `makeDeleteEvent`: an informer delete of `identity`.
pub fn make_delete_event(identity: &Identity, owners: &[&Identity]) -> GraphEvent {
    event(EventType::Delete, false, identity, owners)
}

/// Upstream `makeVirtualDeleteEvent`.
pub fn make_virtual_delete_event(identity: &Identity) -> Change {
    Change::of(&GraphEvent::virtual_delete(identity))
}

/// A pending graph change as the scenarios compare it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// Add, update or delete.
    pub event_type: EventType,
    /// Sent by the collector rather than a monitor.
    pub virtual_event: bool,
    /// The coordinates the event reports.
    pub identity: Identity,
    /// The object's references.
    pub owners: Vec<OwnerRef>,
}

impl Change {
    /// The parts of `e` a scenario compares.
    pub fn of(e: &GraphEvent) -> Self {
        Self { event_type: e.event_type, virtual_event: e.virtual_event, identity: e.identity(), owners: e.object.owners.clone() }
    }
}

/// A graph node as a scenario expects it (upstream `makeNode`).
#[derive(Clone, Debug)]
pub struct ExpectedNode {
    identity: Identity,
    virtual_node: bool,
    owners: Vec<Identity>,
}

/// An observed node referencing `owners`.
pub fn node(identity: &Identity, owners: &[&Identity]) -> ExpectedNode {
    ExpectedNode { identity: identity.clone(), virtual_node: false, owners: owners.iter().map(|o| (*o).clone()).collect() }
}

/// A virtual node.
pub fn virtual_node(identity: &Identity) -> ExpectedNode {
    ExpectedNode { identity: identity.clone(), virtual_node: true, owners: vec![] }
}

/// A queued observed node.
pub fn queued(identity: &Identity) -> QueuedNode {
    QueuedNode { identity: identity.clone(), virtual_node: false }
}

/// A queued virtual node.
pub fn queued_virtual(identity: &Identity) -> QueuedNode {
    QueuedNode { identity: identity.clone(), virtual_node: true }
}

/// Upstream's `state`: what [`Harness::assert_state`] expects; empty fields expect nothing.
#[derive(Debug, Default)]
pub struct State {
    /// Events recorded since the last assertion.
    pub events: Vec<String>,
    /// Collector requests since the last assertion.
    pub client_actions: Vec<String>,
    /// Every node in the graph.
    pub graph_nodes: Vec<ExpectedNode>,
    /// Graph changes waiting, oldest first.
    pub pending_graph_changes: Vec<Change>,
    /// The attemptToDelete queue in order.
    pub pending_attempt_to_delete: Vec<QueuedNode>,
    /// The attemptToOrphan queue in order.
    pub pending_attempt_to_orphan: Vec<QueuedNode>,
    /// The absent-owner cache, in any order.
    pub absent_owner_cache: Vec<Identity>,
}

impl Harness {
    /// Processes `count` attemptToDelete items, failing when the queue runs dry (upstream
    /// `processAttemptToDelete`).
    pub async fn process_attempt_to_delete(&self, count: usize) {
        for i in 0..count {
            assert!(self.gc.process_next_attempt_to_delete().await.is_some(), "expected at least {count} queued items, got {i}");
        }
    }

    /// Applies `count` pending graph changes, failing when none is left (upstream
    /// `processPendingGraphChanges`).
    pub async fn process_pending_graph_changes(&self, count: usize) {
        for i in 0..count {
            assert!(self.gc.process_pending_graph_change().await.is_some(), "expected at least {count} pending changes, got {i}");
        }
    }

    /// Applies an informer event at once (upstream `processEvent`, which requires that no
    /// graph change is pending).
    pub async fn process_event(&self, event: GraphEvent) {
        assert!(self.gc.pending_graph_changes().is_empty(), "graph changes pending; process them before processEvent");
        self.gc.process_graph_event(&event).await;
    }
}

/// `GET` of an identity's object, as recorded.
pub fn get_call(identity: &Identity) -> String {
    format!("GET {}", object_path(identity))
}

/// `DELETE` of an identity's object, as recorded.
pub fn delete_call(identity: &Identity) -> String {
    format!("DELETE {}", object_path(identity))
}

/// Waits until `condition` holds, failing after ten seconds (for positive assertions only).
pub async fn eventually(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while !condition() {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
