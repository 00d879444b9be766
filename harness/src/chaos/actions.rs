//! What a chaos run does to a cluster, through an ordinary client that faults never touch:
//! the custom resource definitions and namespaces, the objects, the plan's actions, the
//! finalizers released at the end, and the end state read back.

use std::collections::BTreeMap;
use std::time::Duration;

use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams, PropagationPolicy};
use serde_json::json;

use crate::chaos::model::Found;
use crate::chaos::plan::{Action, FINALIZER, GROUP, Kind, Plan, Policy, Target};

/// The API of the plan's object `index`.
fn api(client: &kube::Client, plan: &Plan, index: usize) -> Api<DynamicObject> {
    let object = &plan.objects[index];
    let resource = object.kind.resource();
    match &object.namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    }
}

/// Whether `e` is the API's answer with status `code`.
fn is_status(e: &kube::Error, code: u16) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == code)
}

/// Creates the definitions of the custom kinds (unless they exist) and waits until they are
/// served, then creates the plan's namespaces.
pub async fn prepare(client: &kube::Client, plan: &Plan) -> anyhow::Result<()> {
    let crds: Api<DynamicObject> = Api::all_with(client.clone(), &crd_resource());
    for kind in Kind::ALL.into_iter().filter(|k| k.custom()) {
        let r = kind.resource();
        let scope = if kind.namespaced() { "Namespaced" } else { "Cluster" };
        let definition: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{}.{GROUP}", r.plural)},
            "spec": {"group": GROUP, "scope": scope,
                "names": {"plural": r.plural, "singular": r.kind.to_lowercase(), "kind": r.kind},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]},
        }))?;
        match crds.create(&PostParams::default(), &definition).await {
            Err(e) if is_status(&e, 409) => {}
            other => drop(other?),
        }
        let served: Api<DynamicObject> = Api::all_with(client.clone(), &r);
        let mut tries = 0;
        while let Err(e) = served.list(&Default::default()).await {
            tries += 1;
            anyhow::ensure!(tries < 300, "{} is not served after a minute: {e}", r.plural);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    let namespaces: Api<DynamicObject> =
        Api::all_with(client.clone(), &kube::api::ApiResource::erase::<k8s_openapi::api::core::v1::Namespace>(&()));
    for ns in &plan.namespaces {
        let namespace: DynamicObject = serde_json::from_value(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))?;
        namespaces.create(&PostParams::default(), &namespace).await?;
    }
    Ok(())
}

fn crd_resource() -> kube::api::ApiResource {
    kube::api::ApiResource {
        group: "apiextensions.k8s.io".into(),
        version: "v1".into(),
        api_version: "apiextensions.k8s.io/v1".into(),
        kind: "CustomResourceDefinition".into(),
        plural: "customresourcedefinitions".into(),
    }
}

/// Creates the plan's objects, owners first; returns the uids they got.
pub async fn create(client: &kube::Client, plan: &Plan) -> anyhow::Result<Vec<String>> {
    let mut uids: Vec<String> = Vec::with_capacity(plan.objects.len());
    for (index, object) in plan.objects.iter().enumerate() {
        let references: Vec<_> = object
            .references
            .iter()
            .map(|r| {
                let (kind, name, uid) = match &r.target {
                    Target::Object(o) => (plan.objects[*o].kind, plan.objects[*o].name.clone(), uids[*o].clone()),
                    Target::StaleUid(o, uid) => (plan.objects[*o].kind, plan.objects[*o].name.clone(), uid.clone()),
                    Target::Ghost { kind, name, uid } => (*kind, name.clone(), uid.clone()),
                };
                let resource = kind.resource();
                json!({"apiVersion": resource.api_version, "kind": resource.kind, "name": name, "uid": uid, "blockOwnerDeletion": r.blocking})
            })
            .collect();
        let resource = object.kind.resource();
        let finalizers: Vec<&str> = if object.finalizer { vec![FINALIZER] } else { vec![] };
        let body: DynamicObject = serde_json::from_value(json!({
            "apiVersion": resource.api_version, "kind": resource.kind,
            "metadata": {"name": object.name, "ownerReferences": references, "finalizers": finalizers},
        }))?;
        let created = api(client, plan, index).create(&PostParams::default(), &body).await?;
        uids.push(created.metadata.uid.unwrap_or_default());
    }
    Ok(uids)
}

/// Makes one action. An object already gone, or a finalizer refused to an object being deleted,
/// is what a burst of deletions meets, not a failure.
pub async fn act(client: &kube::Client, plan: &Plan, action: Action) -> anyhow::Result<()> {
    let api = api(client, plan, action.object());
    let name = &plan.objects[action.object()].name;
    let result = match action {
        Action::Delete(_, policy) => {
            let propagation_policy = match policy {
                Policy::Orphan => Some(PropagationPolicy::Orphan),
                Policy::Background => Some(PropagationPolicy::Background),
                Policy::Foreground => Some(PropagationPolicy::Foreground),
                Policy::Default => None,
            };
            api.delete(name, &DeleteParams { propagation_policy, ..DeleteParams::default() }).await.map(drop)
        }
        Action::AddFinalizer(_) => change_finalizer(&api, name, true).await,
        Action::RemoveFinalizer(_) => change_finalizer(&api, name, false).await,
    };
    match result {
        Err(e) if is_status(&e, 404) || (matches!(action, Action::AddFinalizer(_)) && is_status(&e, 422)) => Ok(()),
        other => Ok(other?),
    }
}

/// Adds or removes [`FINALIZER`], on the object's current resourceVersion, again on conflict.
async fn change_finalizer(api: &Api<DynamicObject>, name: &str, add: bool) -> Result<(), kube::Error> {
    loop {
        let object = api.get(name).await?;
        let mut finalizers = object.metadata.finalizers.clone().unwrap_or_default();
        let had = finalizers.iter().any(|f| f == FINALIZER);
        if had == add {
            return Ok(());
        }
        finalizers.retain(|f| f != FINALIZER);
        if add {
            finalizers.push(FINALIZER.into());
        }
        let patch = json!({"metadata": {"finalizers": finalizers, "resourceVersion": object.metadata.resource_version}});
        match api.patch(name, &PatchParams::default(), &Patch::Merge(&patch)).await {
            Err(e) if is_status(&e, 409) => continue,
            other => return other.map(drop),
        }
    }
}

/// Removes [`FINALIZER`] from every object of the plan that still holds it.
pub async fn release(client: &kube::Client, plan: &Plan) -> anyhow::Result<()> {
    for index in 0..plan.objects.len() {
        act(client, plan, Action::RemoveFinalizer(index)).await?;
    }
    Ok(())
}

/// What exists now of the objects created with `uids`, by index.
pub async fn observe(client: &kube::Client, plan: &Plan, uids: &[String]) -> anyhow::Result<BTreeMap<usize, Found>> {
    let mut found = BTreeMap::new();
    for (index, object) in plan.objects.iter().enumerate() {
        let Some(now) = api(client, plan, index).get_opt(&object.name).await? else { continue };
        if now.metadata.uid.as_deref() != Some(uids[index].as_str()) {
            continue;
        }
        let owner_uids = now.metadata.owner_references.unwrap_or_default().into_iter().map(|r| r.uid).collect();
        let finalizers = now.metadata.finalizers.unwrap_or_default();
        found.insert(index, Found { owner_uids, finalizers, deleting: now.metadata.deletion_timestamp.is_some() });
    }
    Ok(found)
}

/// Deletes what the run left behind: its namespaces and its cluster-scoped objects (for targets
/// that several runs share).
pub async fn clean_up(client: &kube::Client, plan: &Plan) -> anyhow::Result<()> {
    release(client, plan).await?;
    for (index, object) in plan.objects.iter().enumerate() {
        if object.namespace.is_none() {
            act(client, plan, Action::Delete(index, Policy::Background)).await?;
        }
    }
    let namespaces: Api<DynamicObject> =
        Api::all_with(client.clone(), &kube::api::ApiResource::erase::<k8s_openapi::api::core::v1::Namespace>(&()));
    for ns in &plan.namespaces {
        match namespaces.delete(ns, &DeleteParams::default()).await {
            Err(e) if is_status(&e, 404) => {}
            other => drop(other?),
        }
    }
    Ok(())
}
