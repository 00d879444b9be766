//! The world of scenarios on an API server: its backend, its namespaces, the objects it
//! created (so that steps name objects and the world supplies their uids), and the last
//! answers; and what steps look up through it (resources, objects' APIs, uids) or wait for.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use kube::api::{Api, ApiResource, DynamicObject, PostParams};
use kube::core::Status;
use serde_json::{Value, json};

use super::StepResult;
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

/// The world of a scenario on an API server.
#[derive(cucumber::World, Default)]
pub struct KubeWorld {
    /// Where the scenario runs (set by the runner before the first step).
    pub backend: Option<Arc<dyn Backend>>,
    /// The directory of the scenario's feature file (set by the runner before the first step):
    /// the files a scenario names, such as fixtures, are relative to it.
    pub feature_dir: Option<std::path::PathBuf>,
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
    /// When the API server answered the last DELETE step.
    pub last_deleted_at: Option<k8s_openapi::jiff::Timestamp>,
    /// Namespaces whose `default` ServiceAccount a pod's creation has waited for.
    pub accounts_seen: std::collections::HashSet<String>,
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
    /// Whether the scenario asked for nodes that run pods (`a cluster of its own with 1 node`).
    pub on_nodes: bool,
    /// Controllers of the scenario's own beside the backend (a controller manager started for
    /// it), stopped when the scenario ends.
    pub guards: Vec<Box<dyn std::any::Any + Send + Sync>>,
    /// The backend's client, made once: making one builds the fake API server's router.
    client: std::sync::OnceLock<kube::Client>,
    /// Discovery, refreshed when a kind is not found (a CRD may have just been created).
    discovery: Option<Arc<Vec<(ApiResource, bool)>>>,
}

impl std::fmt::Debug for KubeWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubeWorld").field("namespace", &self.namespace).field("objects", &self.objects.keys().collect::<Vec<_>>()).finish()
    }
}

impl KubeWorld {
    /// The backend.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        self.backend.as_ref().expect("the runner sets the backend before the first step")
    }

    /// Runs the rest of the scenario on `backend` (a cluster of its own), before it has
    /// made anything.
    pub fn use_backend(&mut self, backend: Arc<dyn Backend>) -> StepResult {
        if self.namespace.is_some() || !self.objects.is_empty() {
            return Err("a cluster of its own must come before the scenario makes anything".into());
        }
        self.backend = Some(backend);
        self.client = std::sync::OnceLock::new();
        self.discovery = None;
        Ok(())
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
            let served = self.discovery.as_ref().expect("just set");
            let mut found: Vec<&(ApiResource, bool)> = served.iter().filter(|(r, _)| r.kind == kind).collect();
            found.sort_by_key(|(r, _)| match r.group.as_str() {
                "" => 0,
                "apps" => 1,
                "events.k8s.io" => 3,
                _ => 2,
            });
            if let Some(first) = found.into_iter().next() {
                return Ok(first.clone());
            }
        }
        Err(format!("no served resource has kind {kind}"))
    }

    /// Every served resource (no subresources) and whether it is namespaced, as discovery
    /// last found them.
    pub async fn served(&mut self) -> Result<Arc<Vec<(ApiResource, bool)>>, String> {
        if self.discovery.is_none() {
            self.discovery = Some(Arc::new(self.discover().await?));
        }
        Ok(self.discovery.clone().expect("just set"))
    }

    /// Every served resource (no subresources) and whether it is namespaced: per group, each
    /// kind at the first version that serves it, the preferred version first. A group that
    /// answers 404 is left out: another scenario may delete a CRD between the group list and
    /// the group's resource list (kube's `Discovery` fails the whole run then).
    async fn discover(&self) -> Result<Vec<(ApiResource, bool)>, String> {
        let client = self.client();
        let failed = |e: kube::Error| format!("discovery failed: {e}");
        let mut groups: Vec<(String, Vec<String>)> = vec![(String::new(), client.list_core_api_versions().await.map_err(failed)?.versions)];
        for group in client.list_api_groups().await.map_err(failed)?.groups {
            let preferred = group.preferred_version.map(|v| v.group_version);
            let mut versions: Vec<String> = group.versions.into_iter().map(|v| v.group_version).collect();
            versions.sort_by_key(|v| Some(v) != preferred.as_ref());
            groups.push((group.name, versions));
        }
        let mut served = Vec::new();
        for (group, versions) in groups {
            let mut kinds = std::collections::HashSet::new();
            for group_version in versions {
                let listed = if group.is_empty() {
                    client.list_core_api_resources(&group_version).await
                } else {
                    client.list_api_group_resources(&group_version).await
                };
                let list = match listed {
                    Ok(list) => list,
                    Err(kube::Error::Api(status)) if status.code == 404 => continue,
                    Err(e) => return Err(failed(e)),
                };
                let version = group_version.rsplit('/').next().unwrap_or_default().to_string();
                for r in list.resources.into_iter().filter(|r| !r.name.contains('/')) {
                    if kinds.insert(r.kind.clone()) {
                        let resource = ApiResource {
                            group: group.clone(),
                            version: version.clone(),
                            api_version: group_version.clone(),
                            kind: r.kind,
                            plural: r.name,
                        };
                        served.push((resource, r.namespaced));
                    }
                }
            }
        }
        Ok(served)
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

    /// The uid of `kind/name`: an object the scenario created, or else a missing owner's
    /// made-up uid.
    pub fn uid_of(&self, kind: &str, name: &str) -> Result<String, String> {
        match self.created(kind, name) {
            Ok(c) => Ok(c.uid.clone()),
            Err(e) => self.missing_owners.get(name).cloned().ok_or(e),
        }
    }

    /// `text` with `${Kind/name}` replaced by the uid of that object (created earlier, or a
    /// missing owner of that name), `${namespace}` and `${other namespace}` by the scenario's
    /// namespaces.
    pub fn resolve_uids(&self, text: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            let end = rest[start..].find('}').ok_or("unterminated ${...}")? + start;
            let inner = &rest[start + 2..end];
            out.push_str(&rest[..start]);
            match inner {
                "namespace" => out.push_str(self.namespace.as_deref().ok_or("the scenario has no namespace yet")?),
                "other namespace" => out.push_str(self.other_namespace.as_deref().ok_or("the scenario has no other namespace yet")?),
                _ => {
                    let (kind, name) = inner.split_once('/').ok_or(format!("{:?} is not ${{Kind/name}}", &rest[start..=end]))?;
                    out.push_str(&self.uid_of(kind, name)?);
                }
            }
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// The API through which `kind/name` is reached: where the scenario created it (its
    /// namespace, possibly the other one), else the scenario namespace (or cluster-wide).
    pub async fn object_api(&mut self, kind: &str, name: &str) -> Result<Api<DynamicObject>, String> {
        if let Ok(c) = self.created(kind, name)
            && kind != "CustomResourceDefinition"
        {
            let c = c.clone();
            return Ok(if c.namespace.is_empty() {
                Api::all_with(self.client(), &c.resource)
            } else {
                Api::namespaced_with(self.client(), &c.namespace, &c.resource)
            });
        }
        Ok(self.api(kind).await?.0)
    }

    /// Polls `check` until it returns `Ok(true)` or the backend's timeout passes, first every
    /// 2 ms and then less often (up to every 20 ms): most changes a scenario waits for take a
    /// few milliseconds on the fake backend.
    pub async fn poll<F, Fut>(&self, what: &str, mut check: F) -> StepResult
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<bool, String>>,
    {
        let deadline = tokio::time::Instant::now() + self.backend().eventually_timeout();
        let mut pause = Duration::from_millis(2);
        loop {
            if check().await? {
                return Ok(());
            }
            if tokio::time::Instant::now() > deadline {
                return Err(format!("timed out waiting for {what}"));
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}
