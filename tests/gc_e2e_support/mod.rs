//! Helpers for `tests/gc_integration.rs`: a fake apiserver with the reference collector, a
//! "settled" wait that never sleeps a fixed time, paths and manifests for the kinds the upstream
//! cases use, ownerReferences, fault injection, and the part of the workload controllers
//! (ReplicationController, Deployment, CronJob) the fake apiserver does not run.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use kubegc::apiserver::status::ApiError;
use kubegc::apiserver::{ApiServer, Config as ServerConfig};
use kubegc::gc::monitors::phase;
use kubegc::gc::{Config, GarbageCollector};
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::support::{delete, get, patch, post};

/// How long the collector may take to settle, or an expected outcome to appear.
const DEADLINE: Duration = Duration::from_secs(20);

/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(5);

/// A resource as the tests address it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// `group/version`, or `v1` for the core group.
    pub api_version: &'static str,
    /// The kind.
    pub kind: &'static str,
    /// The resource (plural).
    pub plural: &'static str,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
}

impl Kind {
    /// The API group ("" for core).
    pub fn group(&self) -> &'static str {
        self.api_version.rsplit_once('/').map_or("", |(group, _)| group)
    }

    fn base(&self) -> String {
        if self.group().is_empty() { format!("/api/{}", self.api_version) } else { format!("/apis/{}", self.api_version) }
    }

    /// The collection path in `ns` (every namespace when `ns` is empty or the kind is
    /// cluster-scoped).
    pub fn collection(&self, ns: &str) -> String {
        if self.namespaced && !ns.is_empty() {
            format!("{}/namespaces/{ns}/{}", self.base(), self.plural)
        } else {
            format!("{}/{}", self.base(), self.plural)
        }
    }

    /// The path of one object.
    pub fn path(&self, ns: &str, name: &str) -> String {
        format!("{}/{name}", self.collection(ns))
    }

    /// A bare manifest: apiVersion, kind and name.
    pub fn object(&self, name: &str) -> Value {
        json!({"apiVersion": self.api_version, "kind": self.kind, "metadata": {"name": name}})
    }

    /// Whether a request lists or watches this resource (any namespace).
    pub fn is_list_or_watch(&self, parts: &http::request::Parts) -> bool {
        let path = parts.uri.path();
        parts.method == http::Method::GET && path.starts_with(&self.base()) && path.ends_with(&format!("/{}", self.plural))
    }

    /// Whether a request watches this resource.
    pub fn is_watch(&self, parts: &http::request::Parts) -> bool {
        let watch = parts.uri.query().is_some_and(|q| q.split('&').any(|p| p == "watch=true" || p == "watch=1"));
        watch && self.is_list_or_watch(parts)
    }
}

/// Core pods.
pub const PODS: Kind = Kind { api_version: "v1", kind: "Pod", plural: "pods", namespaced: true };
/// Core ReplicationControllers.
pub const RCS: Kind = Kind { api_version: "v1", kind: "ReplicationController", plural: "replicationcontrollers", namespaced: true };
/// Core ConfigMaps.
pub const CONFIGMAPS: Kind = Kind { api_version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true };
/// Core Secrets.
pub const SECRETS: Kind = Kind { api_version: "v1", kind: "Secret", plural: "secrets", namespaced: true };
/// Core Events.
pub const EVENTS: Kind = Kind { api_version: "v1", kind: "Event", plural: "events", namespaced: true };
/// Core ServiceAccounts.
pub const SERVICE_ACCOUNTS: Kind = Kind { api_version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true };
/// Core Namespaces.
pub const NAMESPACES: Kind = Kind { api_version: "v1", kind: "Namespace", plural: "namespaces", namespaced: false };
/// Core PersistentVolumes (cluster-scoped).
pub const PVS: Kind = Kind { api_version: "v1", kind: "PersistentVolume", plural: "persistentvolumes", namespaced: false };
/// apps/v1 Deployments.
pub const DEPLOYMENTS: Kind = Kind { api_version: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true };
/// apps/v1 ReplicaSets.
pub const REPLICASETS: Kind = Kind { api_version: "apps/v1", kind: "ReplicaSet", plural: "replicasets", namespaced: true };
/// batch/v1 Jobs.
pub const JOBS: Kind = Kind { api_version: "batch/v1", kind: "Job", plural: "jobs", namespaced: true };
/// batch/v1 CronJobs.
pub const CRONJOBS: Kind = Kind { api_version: "batch/v1", kind: "CronJob", plural: "cronjobs", namespaced: true };
/// CustomResourceDefinitions.
pub const CRDS: Kind = Kind {
    api_version: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    namespaced: false,
};

/// A fake apiserver and (once started) the reference collector watching it.
pub struct Env {
    /// The fake apiserver.
    pub server: ApiServer,
    gc: Option<GarbageCollector>,
    /// Resources whose watches the test breaks on purpose: their monitors cannot catch up, so
    /// settling does not wait for them.
    blind: Vec<Kind>,
}

impl Env {
    /// A default fake apiserver with the collector running.
    pub fn new() -> Self {
        Self::with_config(ServerConfig::default())
    }

    /// A default fake apiserver with the collector running and namespace `ns` created.
    pub async fn start(ns: &str) -> Self {
        let env = Self::new();
        env.create_namespace(ns).await;
        env
    }

    /// A fake apiserver configured by `config`, with the collector running.
    pub fn with_config(config: ServerConfig) -> Self {
        let mut env = Self::without_collector(config);
        env.start_collector();
        env
    }

    /// A fake apiserver whose collector is started later ([`Env::start_collector`]), as
    /// upstream tests do to simulate a kube-controller-manager restart.
    pub fn without_collector(config: ServerConfig) -> Self {
        Self { server: ApiServer::with_config(config), gc: None, blind: Vec::new() }
    }

    /// Starts the reference collector with its default configuration.
    pub fn start_collector(&mut self) {
        self.start_collector_with(Config::default());
    }

    /// Starts the reference collector configured so.
    pub fn start_collector_with(&mut self, config: Config) {
        self.gc = Some(GarbageCollector::start(self.server.client(), config));
    }

    /// The running collector.
    pub fn gc(&self) -> &GarbageCollector {
        self.gc.as_ref().expect("the collector is running")
    }

    /// Settling stops waiting for the monitor of `kind` (its watches are broken on purpose).
    pub fn blind_to(&mut self, kind: Kind) {
        self.blind.push(kind);
    }

    /// Waits until the collector has seen every write and has no work ready or in process,
    /// the simulated controllers have nothing left to do, and no write happened meanwhile.
    pub async fn settle(&self) {
        let gc = self.gc();
        let deadline = Instant::now() + DEADLINE;
        loop {
            self.server.run_controllers();
            let before = self.server.revision();
            let status = gc.settled_with(|group, resource| {
                let blind = self.blind.iter().any(|k| k.group() == group && k.plural == resource);
                if blind { 0 } else { self.server.resource_revision(group, resource) }
            });
            if status.settled && self.server.revision() == before {
                return;
            }
            assert!(Instant::now() < deadline, "the collector did not settle: {:?}", status.pending);
            tokio::time::sleep(POLL).await;
        }
    }

    /// A positive assertion: settles, checks, and tries again (work waiting out a back-off
    /// does not hold up settling) until `check` holds or the deadline passes.
    pub async fn eventually(&self, what: &str, check: impl AsyncFn() -> bool) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            self.settle().await;
            if check().await {
                return;
            }
            assert!(Instant::now() < deadline, "not true after settling: {what}");
            tokio::time::sleep(POLL).await;
        }
    }

    /// Polls `check` without settling, to catch the first moment it holds.
    pub async fn first_moment(&self, what: &str, check: impl AsyncFn() -> bool) {
        let deadline = Instant::now() + DEADLINE;
        while !check().await {
            assert!(Instant::now() < deadline, "never true: {what}");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// The phase of the collector's monitor for `kind` ([`phase`]), if it has one.
    pub fn monitor_phase(&self, kind: Kind) -> Option<u8> {
        let monitors = self.gc().collector().monitors.lock().unwrap_or_else(|p| p.into_inner());
        monitors.get(&(kind.group().to_string(), kind.plural.to_string())).map(|m| m.status.phase.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Waits until the collector runs a monitor for `kind` in phase `wanted`.
    pub async fn wait_for_monitor(&self, kind: Kind, wanted: u8) {
        self.first_moment(&format!("the {} monitor reaches phase {wanted}", kind.plural), async || {
            self.monitor_phase(kind) == Some(wanted)
        })
        .await;
    }

    /// Whether the collector's graph has an observed (not virtual) node for `uid`.
    pub fn observed(&self, uid: &str) -> bool {
        self.gc().collector().lock_builder().graph.get(&uid.into()).is_some_and(|n| n.is_observed())
    }

    /// Creates a namespace and its `default` ServiceAccount, which its pods name, as upstream's
    /// integration tests do for a server with no service account controller
    /// (`createNamespaceOrDie`, kubernetes test/integration/garbagecollector).
    pub async fn create_namespace(&self, name: &str) {
        self.create(NAMESPACES, "", NAMESPACES.object(name)).await;
        self.create(SERVICE_ACCOUNTS, name, SERVICE_ACCOUNTS.object("default")).await;
    }

    /// Creates `object` of `kind` in `ns`, asserting success; returns the stored object.
    pub async fn create(&self, kind: Kind, ns: &str, object: Value) -> Value {
        let r = post(&self.server, &kind.collection(ns), object).await;
        assert_eq!(r.code, 201, "create {}: {}", kind.kind, r.body);
        r.body
    }

    /// Creates a bare object of `kind` named `name` in `ns` with these ownerReferences.
    pub async fn create_owned(&self, kind: Kind, ns: &str, name: &str, refs: impl IntoIterator<Item = Value>) -> Value {
        self.create(kind, ns, owned_by(kind.object(name), refs)).await
    }

    /// Creates each object of `kind` in `ns`, concurrently.
    pub async fn create_all(&self, kind: Kind, ns: &str, objects: Vec<Value>) -> Vec<Value> {
        futures::future::join_all(objects.into_iter().map(|o| self.create(kind, ns, o))).await
    }

    /// The object, or `None` when it does not exist.
    pub async fn get(&self, kind: Kind, ns: &str, name: &str) -> Option<Value> {
        let r = get(&self.server, &kind.path(ns, name)).await;
        match r.code {
            200 => Some(r.body),
            404 => None,
            code => panic!("get {} {name}: {code} {}", kind.kind, r.body),
        }
    }

    /// The object, which must exist.
    pub async fn must_get(&self, kind: Kind, ns: &str, name: &str) -> Value {
        self.get(kind, ns, name).await.unwrap_or_else(|| panic!("{} {ns}/{name} should exist", kind.kind))
    }

    /// Whether the object exists.
    pub async fn exists(&self, kind: Kind, ns: &str, name: &str) -> bool {
        self.get(kind, ns, name).await.is_some()
    }

    /// The objects of `kind` in `ns`, filtered by `query` (e.g. a selector) when not empty.
    pub async fn list_with(&self, kind: Kind, ns: &str, query: &str) -> Vec<Value> {
        let uri = if query.is_empty() { kind.collection(ns) } else { format!("{}?{query}", kind.collection(ns)) };
        let r = get(&self.server, &uri).await;
        assert_eq!(r.code, 200, "list {uri}: {}", r.body);
        r.body["items"].as_array().cloned().unwrap_or_default()
    }

    /// The objects of `kind` in `ns`.
    pub async fn list(&self, kind: Kind, ns: &str) -> Vec<Value> {
        self.list_with(kind, ns, "").await
    }

    /// The names of the objects of `kind` in `ns`, sorted.
    pub async fn names(&self, kind: Kind, ns: &str) -> Vec<String> {
        let mut names: Vec<String> = self.list(kind, ns).await.iter().map(|o| name(o).to_string()).collect();
        names.sort();
        names
    }

    /// Sends DELETE with `options` (`Value::Null` for no body), asserting 200 or 202.
    pub async fn delete(&self, kind: Kind, ns: &str, name: &str, options: Value) -> Value {
        let r = delete(&self.server, &kind.path(ns, name), options).await;
        assert!(r.code == 200 || r.code == 202, "delete {} {name}: {} {}", kind.kind, r.code, r.body);
        r.body
    }

    /// Sends a PATCH of `content_type`, asserting success; returns the patched object.
    pub async fn patch(&self, kind: Kind, ns: &str, name: &str, content_type: &str, body: Value) -> Value {
        let r = patch(&self.server, &kind.path(ns, name), content_type, body).await;
        assert_eq!(r.code, 200, "patch {} {name}: {}", kind.kind, r.body);
        r.body
    }

    /// Plays a workload controller: creates `object` of `kind` in `ns` with a controller
    /// reference to `owner` (`controller` and `blockOwnerDeletion` true, as the
    /// ReplicationController, ReplicaSet, Deployment, Job and CronJob controllers set them).
    pub async fn create_controlled(&self, kind: Kind, ns: &str, owner: &Value, object: Value) -> Value {
        self.create(kind, ns, owned_by(object, [controller_ref(owner)])).await
    }

    /// Plays a ReplicationController, ReplicaSet or Job controller: creates `count` pods from
    /// `owner`'s pod template, named `<owner>-<i>`, each controlled by `owner`.
    pub async fn create_controlled_pods(&self, ns: &str, owner: &Value, count: usize) -> Vec<Value> {
        let labels = owner["spec"]["template"]["metadata"]["labels"].clone();
        let pods = (0..count).map(|i| owned_by(with_labels(pod(&format!("{}-{i}", name(owner))), labels.clone()), [controller_ref(owner)]));
        self.create_all(PODS, ns, pods.collect()).await
    }

    /// Creates a CustomResourceDefinition serving `kind` and waits until the collector
    /// monitors it (upstream waits a discovery resync period).
    pub async fn install_crd(&self, kind: Kind) -> Value {
        let definition = self.create(CRDS, "", crd(kind)).await;
        self.settle().await;
        assert!(self.monitor_phase(kind).is_some(), "the collector monitors {}", kind.plural);
        definition
    }
}

/// The object's UID.
pub fn uid(object: &Value) -> &str {
    object["metadata"]["uid"].as_str().expect("a stored object has a uid")
}

/// The object's name.
pub fn name(object: &Value) -> &str {
    object["metadata"]["name"].as_str().expect("an object has a name")
}

/// The UIDs the object's ownerReferences point at.
pub fn owner_uids(object: &Value) -> Vec<String> {
    let refs = object["metadata"]["ownerReferences"].as_array().cloned().unwrap_or_default();
    refs.iter().filter_map(|r| r["uid"].as_str().map(String::from)).collect()
}

/// Whether the object has a deletionTimestamp.
pub fn terminating(object: &Value) -> bool {
    !object["metadata"]["deletionTimestamp"].is_null()
}

/// The object's finalizers.
pub fn finalizers(object: &Value) -> Vec<String> {
    crate::support::strings(&object["metadata"]["finalizers"])
}

/// A plain ownerReference to a stored `owner` (no `controller`, no `blockOwnerDeletion`), as
/// the upstream integration tests write them.
pub fn owner_ref(owner: &Value) -> Value {
    json!({"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": name(owner), "uid": uid(owner)})
}

/// An ownerReference to `owner` with `blockOwnerDeletion: block`.
pub fn blocking_ref(owner: &Value, block: bool) -> Value {
    let mut r = owner_ref(owner);
    r["blockOwnerDeletion"] = json!(block);
    r
}

/// The reference a workload controller sets on what it creates.
pub fn controller_ref(owner: &Value) -> Value {
    let mut r = blocking_ref(owner, true);
    r["controller"] = json!(true);
    r
}

/// A reference made of raw coordinates (for owners that do not exist or are not what the
/// reference claims).
pub fn raw_ref(api_version: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid})
}

/// `object` with these ownerReferences added.
pub fn owned_by(mut object: Value, refs: impl IntoIterator<Item = Value>) -> Value {
    let mut all = object["metadata"]["ownerReferences"].as_array().cloned().unwrap_or_default();
    all.extend(refs);
    object["metadata"]["ownerReferences"] = json!(all);
    object
}

/// `object` with these finalizers.
pub fn with_finalizers(mut object: Value, finalizers: &[&str]) -> Value {
    object["metadata"]["finalizers"] = json!(finalizers);
    object
}

/// `object` with these labels.
pub fn with_labels(mut object: Value, labels: Value) -> Value {
    object["metadata"]["labels"] = labels;
    object
}

/// A pod spec with one container and no grace period (as the e2e pod templates have). The pod is
/// never scheduled, so a DELETE removes it at once unless finalizers hold it.
fn pod_spec() -> Value {
    json!({"terminationGracePeriodSeconds": 0, "containers": [{"name": "nginx", "image": "nginx"}]})
}

/// A pod template labelled `labels`.
fn pod_template(labels: &Value) -> Value {
    json!({"metadata": {"labels": labels}, "spec": pod_spec()})
}

/// An unscheduled pod.
pub fn pod(name: &str) -> Value {
    let mut p = PODS.object(name);
    p["spec"] = pod_spec();
    p
}

/// A ReplicationController of `replicas` pods labelled `app: <name>`.
pub fn rc(name: &str, replicas: u32) -> Value {
    let labels = json!({"app": name});
    let mut rc = RCS.object(name);
    rc["spec"] = json!({"replicas": replicas, "selector": labels, "template": pod_template(&labels)});
    rc
}

/// An apps/v1 workload (Deployment or ReplicaSet) of `replicas` pods labelled `app: <name>`.
pub fn apps_workload(kind: Kind, name: &str, replicas: u32) -> Value {
    let labels = json!({"app": name});
    let mut w = kind.object(name);
    w["spec"] = json!({"replicas": replicas, "selector": {"matchLabels": labels}, "template": pod_template(&labels)});
    w
}

/// A Job running one pod.
pub fn job(name: &str) -> Value {
    let labels = json!({"job-name": name});
    let mut j = JOBS.object(name);
    j["spec"] = json!({"parallelism": 1, "completions": 1, "template": pod_template(&labels)});
    j["spec"]["template"]["spec"]["restartPolicy"] = json!("OnFailure");
    j
}

/// A CronJob on `schedule` whose jobs run one pod.
pub fn cron_job(name: &str, schedule: &str) -> Value {
    let mut cj = CRONJOBS.object(name);
    cj["spec"] = json!({"schedule": schedule, "jobTemplate": {"spec": job(name)["spec"].clone()}});
    cj
}

/// A CustomResourceDefinition serving `kind` at one version, with any content allowed.
pub fn crd(kind: Kind) -> Value {
    let (group, version) = kind.api_version.rsplit_once('/').expect("a custom resource has a group");
    let mut definition = CRDS.object(&format!("{}.{group}", kind.plural));
    definition["spec"] = json!({
        "group": group,
        "scope": if kind.namespaced { "Namespaced" } else { "Cluster" },
        "names": {"plural": kind.plural, "singular": kind.kind.to_lowercase(), "kind": kind.kind},
        "versions": [{"name": version, "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}],
    });
    definition
}

/// DeleteOptions with a propagation policy and a UID precondition, as the e2e tests send.
pub fn policy_with_uid(policy: &str, object: &Value) -> Value {
    json!({"propagationPolicy": policy, "preconditions": {"uid": uid(object)}})
}

/// A server configuration whose apiserver answers every request `fails` selects with `500
/// InternalError: <why>` (the fault-injection hook).
pub fn failing(why: &'static str, fails: impl Fn(&http::request::Parts) -> bool + Send + Sync + 'static) -> ServerConfig {
    ServerConfig { interceptor: Some(Arc::new(move |parts| fails(parts).then(|| ApiError::internal(why)))), ..ServerConfig::default() }
}

/// The phase of a monitor that has listed.
pub const SYNCED: u8 = phase::SYNCED;
/// The phase of a monitor whose list keeps failing.
pub const FAILING: u8 = phase::FAILING;
