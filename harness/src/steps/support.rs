//! What the steps on an API server share: reading lists and name patterns in steps; making
//! objects (minimal manifests, created where the scenario wants them, their uids remembered);
//! sending a request as raw HTTP and keeping its answer; reading an object until a check
//! accepts it, and a field of it by path.

use kube::api::{Api, ApiResource, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::core::Status;
use serde_json::{Value, json};

use crate::world::StepResult;
use crate::world::api::{Created, KubeWorld};

/// A custom resource definition.
pub type Crd = k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// Waits for the collector and the controllers to settle, unless they have since the
/// scenario's last change.
pub async fn settled(world: &mut KubeWorld) -> StepResult {
    if !world.settled {
        world.backend().settle().await?;
        world.settled = true;
    }
    Ok(())
}

/// A comma-separated list in a step (`"a, b"`), trimmed; empty for `""`.
pub fn list(s: &str) -> Vec<String> {
    s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(String::from).collect()
}

/// Whether `name` matches `pattern`, in which `*` stands for any text.
pub fn glob(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.starts_with(head) && {
                let rest = &name[head.len()..];
                (0..=rest.len()).any(|i| rest.is_char_boundary(i) && glob(tail, &rest[i..]))
            }
        }
    }
}

/// The scheduler a plain pod asks for, which no cluster runs: the pod stays unscheduled on any
/// cluster, as a pod on a control plane without nodes does.
const NO_SCHEDULER: &str = "kubegc-no-scheduler";

/// Makes the pods of `pod_spec` unscheduled on any cluster ([`NO_SCHEDULER`]) unless the
/// scenario asked for nodes that run pods: a scenario written for a control plane without
/// nodes then judges alike on one with them (kind's, `kubegc serve`'s).
pub fn unscheduled_without_nodes(world: &KubeWorld, pod_spec: &mut Value) {
    if !world.on_nodes {
        pod_spec["schedulerName"] = json!(NO_SCHEDULER);
    }
}

/// A minimal valid manifest for `kind` (workloads with zero replicas, pods that no scheduler
/// takes and that stop at once), so that a real cluster's controllers and nodes add nothing to
/// the scenario.
fn manifest(kind: &str, resource: &ApiResource, name: &str) -> Value {
    let template = json!({"metadata": {"labels": {"kubegc.io/object": name}},
        "spec": {"terminationGracePeriodSeconds": 0, "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}});
    let selector = json!({"matchLabels": {"kubegc.io/object": name}});
    let mut m = json!({"apiVersion": resource.api_version, "kind": kind, "metadata": {"name": name}});
    match (resource.group.as_str(), kind) {
        ("", "Pod") => {
            m["spec"] = template["spec"].clone();
            m["spec"]["schedulerName"] = json!(NO_SCHEDULER);
        }
        ("", "ReplicationController") => {
            m["spec"] = json!({"replicas": 0, "selector": {"kubegc.io/object": name}, "template": template});
        }
        ("", "Service") => m["spec"] = json!({"ports": [{"port": 80}]}),
        ("", "PersistentVolume") => {
            m["spec"] = json!({"capacity": {"storage": "1Mi"}, "accessModes": ["ReadWriteOnce"],
                "persistentVolumeReclaimPolicy": "Retain", "hostPath": {"path": "/tmp/kubegc"}})
        }
        ("", "PersistentVolumeClaim") => {
            m["spec"] = json!({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}}})
        }
        ("", "Event") => {
            m["involvedObject"] = json!({"kind": "ConfigMap", "name": name, "apiVersion": "v1"});
            m["reason"] = json!("KubegcExample");
            m["message"] = json!("an event made by a kubegc scenario");
            m["type"] = json!("Normal");
        }
        ("apps", "ReplicaSet" | "Deployment" | "StatefulSet") => {
            m["spec"] = json!({"replicas": 0, "selector": selector, "template": template});
        }
        ("apps", "DaemonSet") => m["spec"] = json!({"selector": selector, "template": template}),
        ("apps", "ControllerRevision") => {
            m["revision"] = json!(1);
            m["data"] = json!({"kubegc.io/object": name});
        }
        ("batch", "Job") => {
            m["spec"] =
                json!({"suspend": true, "template": {"spec": {"restartPolicy": "Never", "containers": template["spec"]["containers"]}}})
        }
        ("batch", "CronJob") => {
            m["spec"] = json!({"schedule": "0 0 1 1 *", "suspend": true, "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "Never", "containers": template["spec"]["containers"]}}}}})
        }
        ("rbac.authorization.k8s.io", "ClusterRole" | "Role") => m["rules"] = json!([]),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding" | "RoleBinding") => {
            m["roleRef"] = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"});
            m["subjects"] = json!([{"kind": "ServiceAccount", "name": "default", "namespace": "default"}]);
        }
        _ => {}
    }
    m
}

/// Creates `body` (a manifest of `kind/name`) in the scenario namespace, the other one when
/// `other_namespace`, or cluster-wide for cluster-scoped kinds, and remembers its uid.
pub async fn create_body(world: &mut KubeWorld, kind: &str, name: &str, body: Value, other_namespace: bool) -> Result<(), kube::Error> {
    let (api, resource, namespace) = match target(world, kind, other_namespace).await {
        Ok(t) => t,
        Err(e) => return Err(kube::Error::Service(e.into())),
    };
    let mut body = body;
    if kind == "Event" && body["involvedObject"].is_object() {
        // The API server wants an Event's involved object in the Event's own namespace.
        body["involvedObject"]["namespace"] = json!(namespace);
    }
    let object: DynamicObject = serde_json::from_value(body).map_err(kube::Error::SerdeError)?;
    if kind == "Pod" {
        default_account(world, &namespace).await;
    }
    world.settled = false;
    let created = api.create(&PostParams::default(), &object).await?;
    let uid = created.metadata.uid.clone().unwrap_or_default();
    world.objects.insert((kind.to_string(), name.to_string()), Created { resource, namespace, uid });
    world.last_response = Some((201, serde_json::to_value(&created).unwrap_or_default()));
    Ok(())
}

/// Waits, once per namespace and at most the backend's timeout, for the `default`
/// ServiceAccount of `namespace`, as Kubernetes' e2e framework does before a test makes pods
/// (`WaitForDefaultServiceAccountInNamespace`, test/e2e/framework/util.go): admission refuses a
/// pod while its namespace has none, and the service account controller makes it only some time
/// after the namespace, later on a loaded machine. When it does not come, the create says why.
async fn default_account(world: &mut KubeWorld, namespace: &str) {
    if !world.accounts_seen.insert(namespace.to_string()) {
        return;
    }
    let api: Api<k8s_openapi::api::core::v1::ServiceAccount> = Api::namespaced(world.client(), namespace);
    let deadline = tokio::time::Instant::now() + world.backend().eventually_timeout();
    while !matches!(api.get_opt("default").await, Ok(Some(_))) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The API, resource and namespace an object of `kind` is created in.
async fn target(world: &mut KubeWorld, kind: &str, other_namespace: bool) -> Result<(Api<DynamicObject>, ApiResource, String), String> {
    if other_namespace {
        let (resource, namespaced) = world.resource(kind).await?;
        if !namespaced {
            return Err(format!("{kind} is cluster-scoped: it cannot be in another namespace"));
        }
        let ns = world.other_namespace().await?;
        Ok((Api::namespaced_with(world.client(), &ns, &resource), resource, ns))
    } else {
        world.api(kind).await
    }
}

/// The manifest of `kind/name` with the given owner references and finalizers.
pub async fn manifest_with(
    world: &mut KubeWorld,
    kind: &str,
    name: &str,
    owners: Vec<Value>,
    finalizers: Vec<String>,
) -> Result<Value, String> {
    let (resource, _) = world.resource(kind).await?;
    let mut body = manifest(kind, &resource, name);
    if !owners.is_empty() {
        body["metadata"]["ownerReferences"] = json!(owners);
    }
    if !finalizers.is_empty() {
        body["metadata"]["finalizers"] = json!(finalizers);
    }
    Ok(body)
}

/// Creates `kind/name` from `body`, recording a refusal as the last error instead of failing
/// (for `When ... is created` steps whose outcome the scenario checks).
pub async fn try_create(world: &mut KubeWorld, kind: &str, name: &str, body: Value) -> StepResult {
    match create_body(world, kind, name, body, false).await {
        Ok(()) => {
            world.last_error = None;
            Ok(())
        }
        Err(kube::Error::Api(e)) => {
            world.last_error = Some(*e);
            world.last_response = None;
            Ok(())
        }
        Err(e) => Err(format!("cannot create {kind} {name:?}: {e}")),
    }
}

/// Creates `kind/name` with the given owner references and finalizers, in the scenario
/// namespace (or the other one when `other_namespace`).
pub async fn create_in(
    world: &mut KubeWorld,
    kind: &str,
    name: &str,
    owners: Vec<Value>,
    finalizers: Vec<String>,
    other_namespace: bool,
) -> StepResult {
    let body = manifest_with(world, kind, name, owners, finalizers).await?;
    create_body(world, kind, name, body, other_namespace).await.map_err(|e| format!("cannot create {kind} {name:?}: {e}"))
}

/// Creates `kind/name` in the scenario namespace.
pub async fn create(world: &mut KubeWorld, kind: &str, name: &str, owners: Vec<Value>, finalizers: Vec<String>) -> StepResult {
    create_in(world, kind, name, owners, finalizers, false).await
}

/// Sends `method url` with an optional JSON body; returns the status code and the body.
pub async fn send(client: &kube::Client, method: http::Method, url: &str, body: Option<String>) -> Result<(u16, Value), String> {
    let mut request = http::Request::builder().method(method).uri(url);
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let request = request.body(kube::client::Body::from(body.unwrap_or_default().into_bytes())).map_err(|e| e.to_string())?;
    let response = client.send(request).await.map_err(|e| format!("{url}: {e}"))?;
    let code = response.status().as_u16();
    let bytes = response.into_body().collect_bytes().await.map_err(|e| e.to_string())?;
    let value = if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap_or(Value::Null) };
    Ok((code, value))
}

/// Records the outcome of a request: a success in `last_response`, a failure in `last_error`.
pub fn record(world: &mut KubeWorld, (code, body): (u16, Value)) {
    world.settled = false;
    if code >= 400 {
        let status: Status =
            serde_json::from_value(body.clone()).unwrap_or_else(|_| Status { code, message: body.to_string(), ..Status::default() });
        world.last_error = Some(status);
        world.last_response = None;
    } else {
        world.last_error = None;
        world.last_response = Some((code, body));
    }
}

/// The collection URL of `kind` in the scenario namespace (or cluster-wide).
pub async fn collection_url(world: &mut KubeWorld, kind: &str) -> Result<String, String> {
    Ok(world.api(kind).await?.0.resource_url().to_string())
}

pub async fn fetch(world: &mut KubeWorld, kind: &str, name: &str) -> Result<Option<DynamicObject>, String> {
    let api = world.object_api(kind, name).await?;
    lookup(&api, name).await.map_err(|e| format!("cannot get {kind} {name:?}: {e}"))
}

/// Reads `kind` `name` after settling and judges it with `judge`: once where settling is exact;
/// elsewhere, where a controller may still be making or moving it (a StatefulSet's claims, a
/// kubelet's status), every 200 ms until `judge` passes or the backend's timeout does, the last
/// complaint then the error.
pub async fn read_until<F>(world: &mut KubeWorld, kind: &str, name: &str, mut judge: F) -> StepResult
where
    F: FnMut(DynamicObject) -> StepResult,
{
    settled(world).await?;
    let deadline = tokio::time::Instant::now() + world.backend().eventually_timeout();
    loop {
        let verdict = fetch(world, kind, name).await?.ok_or(format!("{kind} {name:?} is gone")).and_then(&mut judge);
        if verdict.is_ok() || world.backend().settles_exactly() || tokio::time::Instant::now() > deadline {
            return verdict;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// An object, `None` when it is not found or (a plain 404 page) its kind is no longer served.
pub async fn lookup(api: &Api<DynamicObject>, name: &str) -> Result<Option<DynamicObject>, kube::Error> {
    match api.get(name).await {
        Ok(object) => Ok(Some(object)),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(None),
        Err(e) => Err(e),
    }
}

/// Turns a failed check into a failure message that explains the scenario's state.
pub async fn explained(world: &mut KubeWorld, result: StepResult) -> StepResult {
    match result {
        Ok(()) => Ok(()),
        Err(failure) => Err(world.explain(failure).await),
    }
}

/// The value at a dotted path (`metadata.finalizers.0`) of a JSON document; a key with dots
/// in it goes in brackets (`metadata.labels[apps.kubernetes.io/pod-index]`).
pub fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    segments(path).into_iter().try_fold(v, |v, key| match v {
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => v.get(key),
    })
}

/// The keys of a path as [`at`] reads it.
pub fn segments(path: &str) -> Vec<&str> {
    let mut keys = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        let (key, after) = match rest.strip_prefix('[') {
            Some(bracketed) => bracketed.split_once(']').unwrap_or((bracketed, "")),
            None => rest.split_at(rest.find(['.', '[']).unwrap_or(rest.len())),
        };
        keys.push(key);
        rest = after.strip_prefix('.').unwrap_or(after);
    }
    keys
}

/// A JSON value as a step writes it: strings bare, `unset` for a missing field or null.
pub fn show(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "unset".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The objects of `kind` in the scenario namespace (or cluster-wide) whose names match `pattern`.
pub async fn matching(
    world: &mut KubeWorld,
    kind: &str,
    pattern: &str,
) -> Result<Vec<kube::core::PartialObjectMeta<DynamicObject>>, String> {
    let (api, _, _) = world.api(kind).await?;
    let listed = api.list_metadata(&ListParams::default()).await.map_err(|e| format!("cannot list {kind}s: {e}"))?;
    Ok(listed.items.into_iter().filter(|o| glob(pattern, o.metadata.name.as_deref().unwrap_or(""))).collect())
}

/// Merges `patch` into the status of `kind/name`.
pub async fn patch_status(world: &mut KubeWorld, kind: &str, name: &str, patch: serde_json::Value) -> StepResult {
    let (api, _, _) = world.api(kind).await?;
    world.settled = false;
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| format!("cannot set the status of {kind} {name:?}: {e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn glob_matches_stars() {
        assert!(super::glob("c1-*", "c1-3-2"));
        assert!(!super::glob("c1-*", "c10-3"));
        assert!(super::glob("*-2", "c1-3-2"));
        assert!(super::glob("exact", "exact"));
        assert!(!super::glob("exact", "exactly"));
    }

    #[test]
    fn a_path_reads_bracketed_keys_whole() {
        assert_eq!(
            super::segments("metadata.labels[apps.kubernetes.io/pod-index]"),
            ["metadata", "labels", "apps.kubernetes.io/pod-index"]
        );
        assert_eq!(super::segments("a[b.c].d.0"), ["a", "b.c", "d", "0"]);
        assert_eq!(super::segments("spec.volumes.0.name"), ["spec", "volumes", "0", "name"]);
    }
}
