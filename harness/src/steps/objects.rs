//! Given steps that create objects: by kind and name, with owners, blocking references,
//! finalizers, in the scenario namespace or cluster-scoped.

use cucumber::gherkin::Step;
use cucumber::given;
use kube::api::{ApiResource, DynamicObject, PostParams};
use serde_json::{Value, json};

use crate::steps::list;
use crate::world::{Created, KubeWorld, StepResult};

/// A minimal valid manifest for `kind` (workloads with zero replicas, pods that stop at once),
/// so that a real cluster's controllers add nothing to the scenario.
fn manifest(kind: &str, resource: &ApiResource, name: &str) -> Value {
    let template = json!({"metadata": {"labels": {"kubegc.io/object": name}},
        "spec": {"terminationGracePeriodSeconds": 0, "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}});
    let selector = json!({"matchLabels": {"kubegc.io/object": name}});
    let mut m = json!({"apiVersion": resource.api_version, "kind": kind, "metadata": {"name": name}});
    match (resource.group.as_str(), kind) {
        ("", "Pod") => m["spec"] = template["spec"].clone(),
        ("", "ReplicationController") => {
            m["spec"] = json!({"replicas": 0, "selector": {"kubegc.io/object": name}, "template": template});
        }
        ("apps", "ReplicaSet" | "Deployment" | "StatefulSet") => {
            m["spec"] = json!({"replicas": 0, "selector": selector, "template": template});
        }
        ("batch", "Job") => {
            m["spec"] =
                json!({"suspend": true, "template": {"spec": {"restartPolicy": "Never", "containers": template["spec"]["containers"]}}})
        }
        ("rbac.authorization.k8s.io", "ClusterRole" | "Role") => m["rules"] = json!([]),
        _ => {}
    }
    m
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
    let (api, resource, namespace) = if other_namespace {
        let (resource, _) = world.resource(kind).await?;
        let ns = world.other_namespace().await?;
        (kube::Api::namespaced_with(world.client(), &ns, &resource), resource, ns)
    } else {
        world.api(kind).await?
    };
    let mut body = manifest(kind, &resource, name);
    if !owners.is_empty() {
        body["metadata"]["ownerReferences"] = json!(owners);
    }
    if !finalizers.is_empty() {
        body["metadata"]["finalizers"] = json!(finalizers);
    }
    let object: DynamicObject = serde_json::from_value(body).map_err(|e| e.to_string())?;
    let created = api.create(&PostParams::default(), &object).await.map_err(|e| format!("cannot create {kind} {name:?}: {e}"))?;
    let uid = created.metadata.uid.unwrap_or_default();
    world.objects.insert((kind.to_string(), name.to_string()), Created { resource, namespace, uid });
    Ok(())
}

/// Creates `kind/name` in the scenario namespace.
pub async fn create(world: &mut KubeWorld, kind: &str, name: &str, owners: Vec<Value>, finalizers: Vec<String>) -> StepResult {
    create_in(world, kind, name, owners, finalizers, false).await
}

/// Replaces `${Kind/name}` in `text` with the uid of that object, created earlier.
pub(crate) fn resolve_uids(world: &KubeWorld, text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let end = rest[start..].find('}').ok_or("unterminated ${...}")? + start;
        let (kind, name) = rest[start + 2..end].split_once('/').ok_or(format!("{:?} is not ${{Kind/name}}", &rest[start..=end]))?;
        out.push_str(&rest[..start]);
        out.push_str(&world.created(kind, name)?.uid);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `Given the objects in "fixtures/deployment-chain.yaml"`: every document of the file, in
/// order, in the scenario namespace; `${Kind/name}` stands for the uid of an earlier object.
#[given(regex = r#"^the objects in "([^"]+)"$"#)]
async fn from_fixture(world: &mut KubeWorld, path: String) -> StepResult {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join(&path)).map_err(|e| format!("cannot read {path}: {e}"))?;
    for document in serde_yaml::Deserializer::from_str(&text) {
        let value: Value = serde::Deserialize::deserialize(document).map_err(|e| format!("{path}: {e}"))?;
        if value.is_null() {
            continue;
        }
        let value: Value = serde_json::from_str(&resolve_uids(world, &value.to_string())?).map_err(|e| e.to_string())?;
        let kind = value["kind"].as_str().ok_or(format!("{path}: a document has no kind"))?.to_string();
        let name = value["metadata"]["name"].as_str().ok_or(format!("{path}: a {kind} has no name"))?.to_string();
        let (api, resource, namespace) = world.api(&kind).await?;
        let object: DynamicObject = serde_json::from_value(value).map_err(|e| e.to_string())?;
        let created = api.create(&PostParams::default(), &object).await.map_err(|e| format!("cannot create {kind} {name:?}: {e}"))?;
        world.objects.insert((kind, name), Created { resource, namespace, uid: created.metadata.uid.unwrap_or_default() });
    }
    Ok(())
}

/// `Given a ConfigMap named "parent" in another namespace`.
#[given(regex = r#"^an? (\w+) named "([^"]+)" in another namespace$"#)]
async fn in_other_namespace(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    create_in(world, &kind, &name, vec![], vec![], true).await
}

/// `Given a custom resource kind "Widget"` (namespaced) or `a cluster-scoped custom resource
/// kind "Gadget"`: a CustomResourceDefinition under a group of the scenario's own.
#[given(regex = r#"^an? (cluster-scoped )?custom resource kind "(\w+)"$"#)]
async fn custom_kind(world: &mut KubeWorld, cluster: String, kind: String) -> StepResult {
    let group = format!("s{}.kubegc.example", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let plural = format!("{}s", kind.to_lowercase());
    let scope = if cluster.is_empty() { "Namespaced" } else { "Cluster" };
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {"group": group, "scope": scope, "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    });
    let crd: k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition =
        serde_json::from_value(crd).map_err(|e| e.to_string())?;
    let api: kube::Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        kube::Api::all(world.client());
    let created = api.create(&PostParams::default(), &crd).await.map_err(|e| format!("cannot create the CRD: {e}"))?;
    let resource =
        ApiResource { group: group.clone(), version: "v1".into(), api_version: format!("{group}/v1"), kind: kind.clone(), plural };
    world.custom_kinds.insert(kind.clone(), (resource.clone(), cluster.is_empty()));
    let crd_resource =
        ApiResource::erase::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>(&());
    let name = created.metadata.name.unwrap_or_default();
    world.objects.insert(
        ("CustomResourceDefinition".into(), kind),
        Created { resource: crd_resource, namespace: String::new(), uid: created.metadata.uid.unwrap_or_default() },
    );
    // Wait until the new resource is served.
    let dynamic: kube::Api<DynamicObject> = kube::Api::all_with(world.client(), &resource);
    world
        .eventually(&format!("the custom resource {name} to be served"), || {
            let dynamic = dynamic.clone();
            async move { Ok(dynamic.list(&Default::default()).await.is_ok()) }
        })
        .await
}

/// `Given a ConfigMap named "owner"`.
#[given(regex = r#"^an? (\w+) named "([^"]+)"$"#)]
async fn plain(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    create(world, &kind, &name, vec![], vec![]).await
}

/// `Given a ConfigMap named "owner" with finalizers "example.com/hold"`.
#[given(regex = r#"^an? (\w+) named "([^"]+)" with finalizers? "([^"]*)"$"#)]
async fn with_finalizers(world: &mut KubeWorld, kind: String, name: String, finalizers: String) -> StepResult {
    create(world, &kind, &name, vec![], list(&finalizers)).await
}

/// `Given a Pod named "child" owned by ConfigMap "owner"` (optionally `with blockOwnerDeletion`).
#[given(regex = r#"^an? (\w+) named "([^"]+)" owned by (\w+) "([^"]+)"( with blockOwnerDeletion)?$"#)]
async fn owned(world: &mut KubeWorld, kind: String, name: String, owner_kind: String, owner: String, block: String) -> StepResult {
    let r = world.owner_ref(&owner_kind, &owner, !block.is_empty())?;
    create(world, &kind, &name, vec![r], vec![]).await
}

/// `Given a ConfigMap named "child" owned by a missing v1 ConfigMap "ghost"`: a reference to an
/// owner that never existed (a made-up uid).
#[given(regex = r#"^an? (\w+) named "([^"]+)" owned by a missing (\S+) (\w+) "([^"]+)"$"#)]
async fn owned_by_missing(
    world: &mut KubeWorld,
    kind: String,
    name: String,
    api_version: String,
    owner_kind: String,
    owner: String,
) -> StepResult {
    let r = json!({"apiVersion": api_version, "kind": owner_kind, "name": owner, "uid": uuid::Uuid::new_v4().to_string()});
    create(world, &kind, &name, vec![r], vec![]).await
}

/// `Given the following objects:` with a table of `kind | name | owners | blocking | finalizers`.
/// `owners` lists `Kind/name` of objects created earlier in the table or scenario; `blocking`
/// is `yes` for blockOwnerDeletion on every reference.
#[given(regex = r"^the following objects:$")]
async fn table(world: &mut KubeWorld, step: &Step) -> StepResult {
    let table = step.table.as_ref().ok_or("the step needs a table")?;
    let header = &table.rows[0];
    let col = |row: &Vec<String>, name: &str| header.iter().position(|h| h == name).and_then(|i| row.get(i)).cloned().unwrap_or_default();
    for row in &table.rows[1..] {
        let block = matches!(col(row, "blocking").as_str(), "yes" | "true");
        let mut owners = Vec::new();
        for owner in list(&col(row, "owners")) {
            let (kind, name) = owner.split_once('/').ok_or(format!("owner {owner:?} is not Kind/name"))?;
            owners.push(world.owner_ref(kind, name, block)?);
        }
        create(world, &col(row, "kind"), &col(row, "name"), owners, list(&col(row, "finalizers"))).await?;
    }
    Ok(())
}
