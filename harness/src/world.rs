//! One scenario's state: its backend, its namespace, the objects it created (so that steps
//! name objects and the world supplies their uids), and the last failed request.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use kube::api::{Api, ApiResource, DynamicObject, PostParams};
use kube::core::Status;
use kube::discovery::{Discovery, Scope};
use serde_json::{Value, json};

use crate::backend::Backend;

/// What the world remembers of an object it created.
#[derive(Clone, Debug)]
pub struct Created {
    /// Its resource.
    pub resource: ApiResource,
    /// Namespace, empty for cluster-scoped objects.
    pub namespace: String,
    /// Its uid.
    pub uid: String,
}

/// The scenario's state.
#[derive(cucumber::World, Default)]
pub struct KubeWorld {
    /// Where the scenario runs (set by the runner before the first step).
    pub backend: Option<Arc<dyn Backend>>,
    /// The scenario's own namespace, created on first use.
    pub namespace: Option<String>,
    /// Objects created by the scenario, by `(kind, name)`.
    pub objects: HashMap<(String, String), Created>,
    /// The error of the last request that failed, for "the request fails with ..." steps.
    pub last_error: Option<Status>,
    /// A second namespace, for cross-namespace scenarios.
    pub other_namespace: Option<String>,
    /// Custom kinds defined by the scenario (each under a group of its own).
    pub custom_kinds: HashMap<String, (ApiResource, bool)>,
    /// Custom kinds whose definition asks for a conversion webhook that does not run: cleanup
    /// turns it off first, or neither their objects nor the namespace holding them could go.
    pub conversion_webhooks: std::collections::HashSet<String>,
    /// The HTTP status and body of the last request that succeeded, for steps that check what
    /// the API server answered (the object it kept, or the `Status` of a removal).
    pub last_response: Option<(u16, Value)>,
    /// The object of the last DELETE step, as `(kind, name)`.
    pub last_deleted: Option<(String, String)>,
    /// The deletionTimestamp each object got from the first DELETE that kept it, by
    /// `(kind, name)`.
    pub first_deletions: HashMap<(String, String), String>,
    /// Made-up uids of owners that never existed, by name: a name used twice means one uid.
    pub missing_owners: HashMap<String, String>,
    /// The resourceVersion from which each kind's watch (`Given a watch on ConfigMaps`) reads.
    pub watches: HashMap<String, String>,
    /// Whether the collector has settled since the scenario last changed anything: then a
    /// negative check need not wait for it again.
    pub settled: bool,
    /// The backend's client, made once: making one builds the fake API server's router.
    client: std::sync::OnceLock<kube::Client>,
    /// The fake node of a `@kubelet` scenario (the reference kubelet model), created on first use.
    pub node: Option<crate::steps::kubelet::NodeState>,
    /// Discovery, refreshed when a kind is not found (a CRD may have just been created).
    discovery: Option<Arc<Discovery>>,
}

impl std::fmt::Debug for KubeWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubeWorld").field("namespace", &self.namespace).field("objects", &self.objects.keys().collect::<Vec<_>>()).finish()
    }
}

/// The result type of steps: a failure message explains what went wrong.
pub type StepResult = Result<(), String>;

impl KubeWorld {
    /// The backend.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        self.backend.as_ref().expect("the runner sets the backend before the first step")
    }

    /// A client.
    pub fn client(&self) -> kube::Client {
        self.client.get_or_init(|| self.backend().client()).clone()
    }

    /// The scenario's namespace, created on first use with a unique name.
    pub async fn namespace(&mut self) -> Result<String, String> {
        if let Some(ns) = &self.namespace {
            return Ok(ns.clone());
        }
        let name = self.create_namespace().await?;
        self.namespace = Some(name.clone());
        Ok(name)
    }

    /// The scenario's second namespace, created on first use.
    pub async fn other_namespace(&mut self) -> Result<String, String> {
        if let Some(ns) = &self.other_namespace {
            return Ok(ns.clone());
        }
        let name = self.create_namespace().await?;
        self.other_namespace = Some(name.clone());
        Ok(name)
    }

    async fn create_namespace(&self) -> Result<String, String> {
        let name = format!("kubegc-{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
        let ns: k8s_openapi::api::core::v1::Namespace = serde_json::from_value(json!({"metadata": {"name": name}})).expect("valid");
        Api::all(self.client()).create(&PostParams::default(), &ns).await.map_err(|e| format!("cannot create namespace {name}: {e}"))?;
        Ok(name)
    }

    /// The resource serving `kind` (e.g. `ConfigMap`, `ReplicaSet`, a custom kind), and whether
    /// it is namespaced. Prefers the core group, then `apps`, then any.
    pub async fn resource(&mut self, kind: &str) -> Result<(ApiResource, bool), String> {
        if let Some(custom) = self.custom_kinds.get(kind) {
            return Ok(custom.clone());
        }
        for refresh in [false, true] {
            if refresh || self.discovery.is_none() {
                self.discovery = Some(Arc::new(self.discover().await?));
            }
            let discovery = self.discovery.as_ref().expect("just set");
            let mut found: Vec<(ApiResource, bool)> = discovery
                .groups()
                .flat_map(|g| g.recommended_resources())
                .filter(|(r, _)| r.kind == kind)
                .map(|(r, caps)| (r, caps.scope == Scope::Namespaced))
                .collect();
            found.sort_by_key(|(r, _)| match r.group.as_str() {
                "" => 0,
                "apps" => 1,
                "events.k8s.io" => 3,
                _ => 2,
            });
            if let Some(first) = found.into_iter().next() {
                return Ok(first);
            }
        }
        Err(format!("no served resource has kind {kind}"))
    }

    /// Runs discovery, retrying a few times: another scenario may delete a CRD between the
    /// group list and the group's resource list.
    async fn discover(&self) -> Result<Discovery, String> {
        let mut last = String::new();
        for _ in 0..5 {
            match Discovery::new(self.client()).run().await {
                Ok(d) => return Ok(d),
                Err(e) => last = e.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Err(format!("discovery failed: {last}"))
    }

    /// An API for `kind`, in the scenario namespace when namespaced.
    pub async fn api(&mut self, kind: &str) -> Result<(Api<DynamicObject>, ApiResource, String), String> {
        let (resource, namespaced) = self.resource(kind).await?;
        if namespaced {
            let ns = self.namespace().await?;
            Ok((Api::namespaced_with(self.client(), &ns, &resource), resource, ns))
        } else {
            Ok((Api::all_with(self.client(), &resource), resource, String::new()))
        }
    }

    /// The object `kind/name` created by the scenario.
    pub fn created(&self, kind: &str, name: &str) -> Result<&Created, String> {
        self.objects.get(&(kind.to_string(), name.to_string())).ok_or_else(|| format!("the scenario created no {kind} named {name:?}"))
    }

    /// An ownerReference to `kind/name` (created by the scenario).
    pub fn owner_ref(&self, kind: &str, name: &str, block: bool) -> Result<Value, String> {
        let c = self.created(kind, name)?;
        Ok(json!({"apiVersion": c.resource.api_version, "kind": kind, "name": name, "uid": c.uid, "blockOwnerDeletion": block}))
    }

    /// `failure`, followed by what a person needs to see why: the scenario's objects with their
    /// owners, finalizers and deletionTimestamp, recent events, and what the collector is doing.
    pub async fn explain(&mut self, failure: String) -> String {
        let mut out = format!("{failure}\n  objects of this scenario:");
        let mut names: Vec<(String, String)> = self.objects.keys().cloned().collect();
        names.sort();
        for (kind, name) in names {
            let c = self.objects[&(kind.clone(), name.clone())].clone();
            let api: Api<DynamicObject> = if c.namespace.is_empty() {
                Api::all_with(self.client(), &c.resource)
            } else {
                Api::namespaced_with(self.client(), &c.namespace, &c.resource)
            };
            let line = match api.get_opt(&name).await {
                Ok(Some(o)) => {
                    let owners: Vec<String> = o
                        .metadata
                        .owner_references
                        .unwrap_or_default()
                        .iter()
                        .map(|r| format!("{}/{}{}", r.kind, r.name, if r.block_owner_deletion == Some(true) { " (blocking)" } else { "" }))
                        .collect();
                    let deleting = o.metadata.deletion_timestamp.map(|t| format!(", deletionTimestamp {}", t.0)).unwrap_or_default();
                    format!("owners {owners:?}, finalizers {:?}{deleting}", o.metadata.finalizers.unwrap_or_default())
                }
                Ok(None) => "gone".into(),
                Err(e) => format!("cannot read: {e}"),
            };
            out.push_str(&format!("\n    {kind} {name:?}: {line}"));
        }
        if let Some(ns) = self.namespace.clone() {
            let events: Api<k8s_openapi::api::core::v1::Event> = Api::namespaced(self.client(), &ns);
            if let Ok(list) = events.list(&Default::default()).await {
                out.push_str("\n  events:");
                for e in list.items.iter().rev().take(10) {
                    let o = &e.involved_object;
                    out.push_str(&format!(
                        "\n    {} {} {}/{}: {}",
                        e.type_.as_deref().unwrap_or(""),
                        e.reason.as_deref().unwrap_or(""),
                        o.kind.as_deref().unwrap_or(""),
                        o.name.as_deref().unwrap_or(""),
                        e.message.as_deref().unwrap_or("")
                    ));
                }
            }
        }
        let diagnostics = self.backend().diagnostics();
        if !diagnostics.is_empty() {
            out.push_str(&format!("\n  {diagnostics}"));
        }
        out
    }
}
