//! Steps on custom resource kinds: a CustomResourceDefinition under a group of the
//! scenario's own (namespaced or cluster-scoped, at one or more versions), defined again,
//! deleted, and made to convert through a webhook that is not running, and back.

use cucumber::{given, when};
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use super::support::{Crd, list, record, send};
use crate::world::StepResult;
use crate::world::api::{Created, KubeWorld};
use crate::world::cleanup::no_webhook;

/// The CustomResourceDefinition of `kind` under `group`, serving `versions` (the first stored).
fn definition(kind: &str, group: &str, cluster: bool, versions: &[String]) -> Value {
    let plural = format!("{}s", kind.to_lowercase());
    let scope = if cluster { "Cluster" } else { "Namespaced" };
    let versions: Vec<Value> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            json!({"name": v, "served": true, "storage": i == 0,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
        })
        .collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {"group": group, "scope": scope, "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind},
            "versions": versions}
    })
}

/// Creates the definition and waits until its resource is served.
async fn define(world: &mut KubeWorld, kind: &str, group: &str, cluster: bool, versions: &[String]) -> StepResult {
    let crd: Crd = serde_json::from_value(definition(kind, group, cluster, versions)).map_err(|e| e.to_string())?;
    let api: Api<Crd> = Api::all(world.client());
    world.settled = false;
    let created = api.create(&PostParams::default(), &crd).await.map_err(|e| format!("cannot create the CRD: {e}"))?;
    let plural = format!("{}s", kind.to_lowercase());
    let resource = ApiResource {
        group: group.to_string(),
        version: versions[0].clone(),
        api_version: format!("{group}/{}", versions[0]),
        kind: kind.to_string(),
        plural,
    };
    world.custom_kinds.insert(kind.to_string(), (resource.clone(), !cluster));
    let name = created.metadata.name.unwrap_or_default();
    world.objects.insert(
        ("CustomResourceDefinition".into(), kind.to_string()),
        Created { resource: ApiResource::erase::<Crd>(&()), namespace: String::new(), uid: created.metadata.uid.unwrap_or_default() },
    );
    let dynamic: Api<DynamicObject> = Api::all_with(world.client(), &resource);
    world
        .poll(&format!("the custom resource {name} to be served"), || {
            let dynamic = dynamic.clone();
            async move { Ok(dynamic.list(&Default::default()).await.is_ok()) }
        })
        .await?;
    // A collector starts watching a new kind at its next discovery resync; until then it
    // knows nothing of the kind's objects.
    tokio::time::sleep(world.backend().new_kind_delay()).await;
    Ok(())
}

/// `Given a custom resource kind "Widget"` (namespaced), `a cluster-scoped custom resource
/// kind "Gadget"`, or `a custom resource kind "Widget" served at versions "v1, v1beta1"` (the
/// first stored and preferred): a CustomResourceDefinition under a group of the scenario's own.
#[given(regex = r#"^an? (cluster-scoped )?custom resource kind "((?-u:\w)+)"(?: served at versions "([^"]+)")?$"#)]
async fn custom_kind(world: &mut KubeWorld, cluster: String, kind: String, versions: String) -> StepResult {
    let group = format!("s{}.kubegc.example", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let versions = if versions.is_empty() { vec!["v1".to_string()] } else { list(&versions) };
    define(world, &kind, &group, !cluster.is_empty(), &versions).await
}

/// `Given the custom resource kind "Widget" is defined again`: once its deleted definition is
/// gone, the same CustomResourceDefinition (same group, names and scope) is created anew.
#[given(regex = r#"^the custom resource kind "((?-u:\w)+)" is defined again$"#)]
async fn custom_kind_again(world: &mut KubeWorld, kind: String) -> StepResult {
    let (resource, namespaced) = world.custom_kinds.get(&kind).cloned().ok_or(format!("the scenario defined no custom kind {kind}"))?;
    let api: Api<Crd> = Api::all(world.client());
    let name = format!("{}.{}", resource.plural, resource.group);
    world
        .poll(&format!("the old definition {name} to be gone"), || {
            let (api, name) = (api.clone(), name.clone());
            async move { api.get_opt(&name).await.map(|o| o.is_none()).map_err(|e| e.to_string()) }
        })
        .await?;
    define(world, &kind, &resource.group, !namespaced, std::slice::from_ref(&resource.version)).await
}

/// `When the custom resource kind "Widget" is deleted`: its CustomResourceDefinition is deleted
/// (the API server then deletes every Widget before the definition goes).
#[when(regex = r#"^the custom resource kind "((?-u:\w)+)" is deleted$"#)]
async fn custom_kind_deleted(world: &mut KubeWorld, kind: String) -> StepResult {
    let (resource, _) = world.custom_kinds.get(&kind).cloned().ok_or(format!("the scenario defined no custom kind {kind}"))?;
    let url = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{}.{}", resource.plural, resource.group);
    let outcome = send(&world.client(), http::Method::DELETE, &url, Some("{}".into())).await?;
    record(world, outcome);
    Ok(())
}

/// `When the custom resource kind "Gadget" stores version "v2" through a conversion webhook that
/// is not running`: its definition makes that version the storage version and asks for a
/// conversion webhook, a service of the scenario's namespace that does not exist; later
/// requests for the kind are made at that version. Objects stored at another version can then
/// be read at it only through the webhook, which fails. The step waits until the API server
/// converts so.
#[when(regex = r#"^the custom resource kind "((?-u:\w)+)" stores version "((?-u:\w)+)" through a conversion webhook that is not running$"#)]
async fn conversion_webhook(world: &mut KubeWorld, kind: String, version: String) -> StepResult {
    let namespace = world.namespace().await?;
    let webhook = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
        "clientConfig": {"service": {"namespace": namespace, "name": "kubegc-no-such-webhook", "path": "/convert"}}}});
    change_definition(world, &kind, Some(&version), webhook).await?;
    world.conversion_webhooks.insert(kind);
    Ok(())
}

/// `When the custom resource kind "Gadget" converts without a webhook again`: its definition's
/// conversion strategy is `None` (only `apiVersion` changes between versions). The step waits
/// until the API server converts so.
#[when(regex = r#"^the custom resource kind "((?-u:\w)+)" converts without a webhook again$"#)]
async fn conversion_none(world: &mut KubeWorld, kind: String) -> StepResult {
    change_definition(world, &kind, None, no_webhook()).await?;
    world.conversion_webhooks.remove(&kind);
    Ok(())
}

/// Sets the conversion of the scenario's custom kind (and, when given, its storage version)
/// with one merge patch of its definition, then waits until it is in force.
async fn change_definition(world: &mut KubeWorld, kind: &str, storage: Option<&str>, conversion: Value) -> StepResult {
    let (mut resource, namespaced) = world.custom_kinds.get(kind).cloned().ok_or(format!("the scenario defined no custom kind {kind}"))?;
    let api: kube::Api<Crd> = kube::Api::all(world.client());
    let name = format!("{}.{}", resource.plural, resource.group);
    let mut crd = api.get(&name).await.map_err(|e| format!("cannot read the CRD {name}: {e}"))?;
    let webhook = conversion["strategy"] == "Webhook";
    let mut patch = json!({"spec": {"conversion": conversion}});
    if let Some(storage) = storage {
        if !crd.spec.versions.iter().any(|v| v.name == storage) {
            return Err(format!("{kind} is not served at {storage}"));
        }
        for v in &mut crd.spec.versions {
            v.storage = v.name == storage;
        }
        patch["spec"]["versions"] = serde_json::to_value(&crd.spec.versions).map_err(|e| e.to_string())?;
        resource.version = storage.to_string();
        resource.api_version = format!("{}/{storage}", resource.group);
    }
    api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await.map_err(|e| format!("cannot update the CRD {name}: {e}"))?;
    world.custom_kinds.insert(kind.to_string(), (resource.clone(), namespaced));
    world.settled = false;
    let other = crd.spec.versions.iter().find(|v| v.served && v.name != resource.version).map(|v| v.name.clone());
    match other {
        Some(other) => conversion_in_force(world, &resource, namespaced, &other, webhook).await,
        None => Ok(()),
    }
}

/// Waits until the API server converts objects of `resource` (whose storage version is
/// `resource.version`) through a webhook, or without one: a dry-run create at the `other`
/// served version needs a conversion to the storage version, which fails while the unreachable
/// webhook is in force and succeeds without it. A real API server switches a definition's
/// storage a moment after the update; the fake one at once.
async fn conversion_in_force(world: &mut KubeWorld, resource: &ApiResource, namespaced: bool, other: &str, webhook: bool) -> StepResult {
    let namespace = if namespaced { format!("/namespaces/{}", world.namespace().await?) } else { String::new() };
    let url = format!("/apis/{}/{other}{namespace}/{}?dryRun=All", resource.group, resource.plural);
    let probe = json!({"apiVersion": format!("{}/{other}", resource.group), "kind": resource.kind,
        "metadata": {"generateName": "kubegc-probe-"}})
    .to_string();
    let client = world.client();
    let what = format!("{} to convert {}", resource.kind, if webhook { "through the webhook" } else { "without a webhook" });
    world
        .poll(&what, || {
            let (client, url, probe) = (client.clone(), url.clone(), probe.clone());
            async move {
                let (code, body) = send(&client, http::Method::POST, &url, Some(probe)).await?;
                let refused = code >= 500 && body["message"].as_str().is_some_and(|m| m.starts_with("conversion webhook for"));
                match code {
                    _ if refused => Ok(webhook),
                    200..=299 => Ok(!webhook),
                    _ => Err(format!("a dry-run create at {other} failed with {code}: {body}")),
                }
            }
        })
        .await
}
