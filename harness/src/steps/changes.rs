//! When steps: deletions (with a propagation policy, raw DeleteOptions, query parameters, as a
//! collection, several at once), deletion of the scenario's namespace or of a custom kind,
//! creations whose refusal the scenario checks, finalizer removal, and patches.
//!
//! Requests are sent as raw HTTP, so that a step can check what the API server answered: the
//! status code and body of a success (`world.last_response`) or the `Status` of a failure
//! (`world.last_error`).

use cucumber::gherkin::Step;
use cucumber::{given, when};
use kube::api::{ApiResource, Patch, PatchParams};
use kube::core::Status;
use serde_json::{Value, json};

use super::support::{Crd, glob, list, manifest_with, try_create};
use crate::world::StepResult;
use crate::world::api::KubeWorld;
use crate::world::cleanup::no_webhook;

/// Sends `method url` with an optional JSON body; returns the status code and the body.
async fn send(client: &kube::Client, method: http::Method, url: &str, body: Option<String>) -> Result<(u16, Value), String> {
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
fn record(world: &mut KubeWorld, (code, body): (u16, Value)) {
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

/// DELETE `kind/name` with `body` (none: no body at all) and `query` (e.g. `?dryRun=All`).
async fn delete(world: &mut KubeWorld, kind: &str, name: &str, body: Option<String>, query: &str) -> StepResult {
    let api = world.object_api(kind, name).await?;
    let url = format!("{}/{name}{query}", api.resource_url());
    let outcome =
        send(&world.client(), http::Method::DELETE, &url, body).await.map_err(|e| format!("cannot delete {kind} {name:?}: {e}"))?;
    if outcome.0 < 300
        && let Some(ts) = outcome.1["metadata"]["deletionTimestamp"].as_str()
    {
        world.first_deletions.entry((kind.to_string(), name.to_string())).or_insert_with(|| ts.to_string());
    }
    record(world, outcome);
    world.last_deleted = Some((kind.to_string(), name.to_string()));
    world.last_deleted_at = Some(k8s_openapi::jiff::Timestamp::now());
    Ok(())
}

/// DeleteOptions from a step's text: `${Kind/name}` stands for a uid and `${resourceVersion}`
/// for the current resourceVersion of the object being deleted.
async fn options(world: &mut KubeWorld, kind: &str, name: &str, text: &str) -> Result<String, String> {
    let mut text = text.to_string();
    if text.contains("${resourceVersion}") {
        let api = world.object_api(kind, name).await?;
        let current = api.get_metadata(name).await.map_err(|e| format!("cannot read {kind} {name:?}: {e}"))?;
        text = text.replace("${resourceVersion}", &current.metadata.resource_version.unwrap_or_default());
    }
    let text = world.resolve_uids(&text)?;
    serde_json::from_str::<Value>(&text).map_err(|e| format!("bad DeleteOptions {text:?}: {e}"))?;
    Ok(text)
}

fn policy_body(policy: &str) -> String {
    json!({"propagationPolicy": policy}).to_string()
}

/// `When ConfigMap "owner" is deleted` (empty DeleteOptions: the resource's default policy).
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is deleted$"#)]
async fn deleted(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    delete(world, &kind, &name, Some("{}".into()), "").await
}

/// `When ConfigMap "owner" is deleted without a body`: no DeleteOptions at all, so the server
/// reads them from the (empty) query (upstream's "nil options" as a client can send them).
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is deleted without a body$"#)]
async fn deleted_without_body(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    delete(world, &kind, &name, None, "").await
}

/// `When ConfigMap "owner" is deleted with propagation policy Foreground`.
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is deleted with propagation policy (Foreground|Background|Orphan)$"#)]
async fn deleted_with_policy(world: &mut KubeWorld, kind: String, name: String, policy: String) -> StepResult {
    delete(world, &kind, &name, Some(policy_body(&policy)), "").await
}

/// `When ConfigMap "owner" is deleted with options:` and a JSON DeleteOptions doc string, sent
/// as is (so that `orphanDependents` and invalid combinations reach the server); `${Kind/name}`
/// stands for a uid, `${resourceVersion}` for the object's current resourceVersion.
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is deleted with options:$"#)]
async fn deleted_with_options(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let text = step.docstring.as_ref().ok_or("the step needs a doc string with DeleteOptions")?;
    let body = options(world, &kind, &name, text).await?;
    delete(world, &kind, &name, Some(body), "").await
}

/// `When ConfigMap "owner" is deleted with options '{"orphanDependents": true}'`: the same, on
/// one line (for Scenario Outlines).
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is deleted with options '(.*)'$"#)]
async fn deleted_with_inline_options(world: &mut KubeWorld, kind: String, name: String, text: String) -> StepResult {
    let body = options(world, &kind, &name, &text).await?;
    delete(world, &kind, &name, Some(body), "").await
}

/// `When ConfigMap "owner" is deleted with query "propagationPolicy=Foreground"`: no body, the
/// options in the query string.
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is deleted with query "([^"]*)"$"#)]
async fn deleted_with_query(world: &mut KubeWorld, kind: String, name: String, query: String) -> StepResult {
    delete(world, &kind, &name, None, &format!("?{query}")).await
}

/// The path of the scenario's namespace.
async fn namespace_url(world: &mut KubeWorld) -> Result<String, String> {
    Ok(format!("/api/v1/namespaces/{}", world.namespace().await?))
}

/// `When the namespace is deleted` (optionally `with propagation policy Orphan`): the
/// scenario's own namespace.
#[when(regex = r"^the namespace is deleted(?: with propagation policy (Foreground|Background|Orphan))?$")]
async fn namespace_deleted(world: &mut KubeWorld, policy: String) -> StepResult {
    let url = namespace_url(world).await?;
    let body = if policy.is_empty() { "{}".to_string() } else { policy_body(&policy) };
    let outcome = send(&world.client(), http::Method::DELETE, &url, Some(body)).await?;
    record(world, outcome);
    Ok(())
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

/// The collection URL of `kind` in the scenario namespace (or cluster-wide).
async fn collection_url(world: &mut KubeWorld, kind: &str) -> Result<String, String> {
    Ok(world.api(kind).await?.0.resource_url().to_string())
}

/// `When all Gadgets are listed`: one LIST of the kind in the scenario's namespace (all of a
/// cluster-scoped kind); the answer or the refusal is recorded.
#[when(regex = r"^all ((?-u:\w)+?)s are listed$")]
async fn listed(world: &mut KubeWorld, kind: String) -> StepResult {
    let url = collection_url(world, &kind).await?;
    let outcome = send(&world.client(), http::Method::GET, &url, None).await.map_err(|e| format!("cannot list {kind}s: {e}"))?;
    record(world, outcome);
    Ok(())
}

/// `When Gadget "old" is read`: one GET of the object; the answer or the refusal is recorded.
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is read$"#)]
async fn read(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    let url = format!("{}/{name}", collection_url(world, &kind).await?);
    let outcome = send(&world.client(), http::Method::GET, &url, None).await.map_err(|e| format!("cannot read {kind} {name:?}: {e}"))?;
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

/// `When all ConfigMaps are deleted as a collection` (optionally ` with options '{...}'`,
/// ` with label selector "a=b"`): one DELETE on the collection of the scenario namespace.
#[when(regex = r#"^all ((?-u:\w)+?)s are deleted as a collection(?: with label selector "([^"]*)")?(?: with options '(.*)')?$"#)]
async fn collection_deleted(world: &mut KubeWorld, kind: String, selector: String, opts: String) -> StepResult {
    let mut url = collection_url(world, &kind).await?;
    if !selector.is_empty() {
        url = format!("{url}?labelSelector={}", form_urlencoded::byte_serialize(selector.as_bytes()).collect::<String>());
    }
    let body = if opts.is_empty() { "{}".to_string() } else { world.resolve_uids(&opts)? };
    let outcome = send(&world.client(), http::Method::DELETE, &url, Some(body)).await?;
    record(world, outcome);
    Ok(())
}

/// `When all ConfigMaps are deleted as a collection by two clients at once`: two concurrent
/// DELETEs on the collection; the step fails unless both succeed.
#[when(regex = r"^all ((?-u:\w)+?)s are deleted as a collection by two clients at once$")]
async fn collection_deleted_twice(world: &mut KubeWorld, kind: String) -> StepResult {
    let url = collection_url(world, &kind).await?;
    let client = world.client();
    let (a, b) = tokio::join!(
        send(&client, http::Method::DELETE, &url, Some("{}".into())),
        send(&client, http::Method::DELETE, &url, Some("{}".into()))
    );
    for outcome in [a?, b?] {
        record(world, outcome);
        if let Some(e) = &world.last_error {
            return Err(format!("a collection delete failed with {} {}: {}", e.code, e.reason, e.message));
        }
    }
    Ok(())
}

/// `When these deletions happen at once:` with a table of `kind | names | options`: every
/// object of the kind whose name matches the `names` pattern (`*` for any text) is deleted, all
/// rows' deletions concurrently; `options` is a JSON DeleteOptions, `none` for no body. The
/// step fails unless every deletion succeeds.
#[when(regex = r"^these deletions happen at once:$")]
async fn deletions_at_once(world: &mut KubeWorld, step: &Step) -> StepResult {
    let table = step.table.as_ref().ok_or("the step needs a table")?;
    let header = &table.rows[0];
    let col = |row: &Vec<String>, name: &str| header.iter().position(|h| h == name).and_then(|i| row.get(i)).cloned().unwrap_or_default();
    let mut requests = Vec::new();
    for row in &table.rows[1..] {
        let (kind, pattern, opts) = (col(row, "kind"), col(row, "names"), col(row, "options"));
        let (api, _, _) = world.api(&kind).await?;
        let listed = api.list_metadata(&Default::default()).await.map_err(|e| format!("cannot list {kind}s: {e}"))?;
        let body = if opts.trim() == "none" || opts.trim().is_empty() { None } else { Some(world.resolve_uids(&opts)?) };
        for item in listed.items {
            let name = item.metadata.name.unwrap_or_default();
            if glob(&pattern, &name) {
                requests.push((format!("{}/{name}", api.resource_url()), body.clone()));
            }
        }
    }
    let client = world.client();
    world.settled = false;
    let outcomes =
        futures::future::join_all(requests.iter().map(|(url, body)| send(&client, http::Method::DELETE, url, body.clone()))).await;
    for ((url, _), outcome) in requests.iter().zip(outcomes) {
        let (code, body) = outcome?;
        if code >= 400 {
            return Err(format!("DELETE {url} failed with {code}: {body}"));
        }
    }
    Ok(())
}

/// `When a ConfigMap named "again" is created` (optionally ` with finalizers "a/b"`): unlike
/// the Given step, a refusal is recorded for `Then the request fails ...` instead of failing.
#[when(regex = r#"^an? ((?-u:\w)+) named "([^"]+)" is created(?: with finalizers? "([^"]*)")?$"#)]
async fn created(world: &mut KubeWorld, kind: String, name: String, finalizers: String) -> StepResult {
    let body = manifest_with(world, &kind, &name, vec![], list(&finalizers)).await?;
    try_create(world, &kind, &name, body).await
}

/// `When a ConfigMap named "child" is created with owner references:` and a JSON list of
/// references (`${Kind/name}` stands for a uid); a refusal is recorded, not a failure.
#[when(regex = r#"^an? ((?-u:\w)+) named "([^"]+)" is created with owner references:$"#)]
async fn created_with_owners(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let text = step.docstring.as_ref().ok_or("the step needs a doc string with a JSON list of owner references")?;
    let refs: Vec<Value> = serde_json::from_str(&world.resolve_uids(text)?).map_err(|e| format!("bad owner references: {e}"))?;
    let body = manifest_with(world, &kind, &name, refs, vec![]).await?;
    try_create(world, &kind, &name, body).await
}

/// `When the finalizer "example.com/hold" is removed from ConfigMap "owner"` (a merge patch
/// conditional on the resourceVersion read just before; read again and retried when a
/// controller wrote the object in between, as a client's read-modify-write does).
#[when(regex = r#"^the finalizer "([^"]+)" is removed from ((?-u:\w)+) "([^"]+)"$"#)]
async fn remove_finalizer(world: &mut KubeWorld, finalizer: String, kind: String, name: String) -> StepResult {
    let api = world.object_api(&kind, &name).await?;
    world.settled = false;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let current = api.get(&name).await.map_err(|e| e.to_string())?;
        let remaining: Vec<String> = current.metadata.finalizers.unwrap_or_default().into_iter().filter(|f| *f != finalizer).collect();
        let patch = json!({"metadata": {"resourceVersion": current.metadata.resource_version, "finalizers": remaining}});
        match api.patch(&name, &PatchParams::default(), &Patch::Merge(patch)).await {
            Err(kube::Error::Api(e)) if e.code == 409 && attempt < 5 => continue,
            result => return result.map(drop).map_err(|e| e.to_string()),
        }
    }
}

/// `When ConfigMap "child" is patched with a merge patch:` (or `a strategic patch`, `a JSON
/// patch`, `an apply patch` — server-side apply by the field manager `kubegc-harness`) and a
/// JSON doc string, in which `${Kind/name}` stands for the uid of an object of the scenario; a
/// refusal is recorded for `Then the request fails ...`.
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is patched with an? (merge|strategic|JSON|apply) patch:$"#)]
async fn patched(world: &mut KubeWorld, kind: String, name: String, patch_type: String, step: &Step) -> StepResult {
    let text = step.docstring.as_ref().ok_or("the step needs a doc string with the patch")?;
    let body: Value = serde_json::from_str(&world.resolve_uids(text)?).map_err(|e| format!("bad patch: {e}"))?;
    let api = world.object_api(&kind, &name).await?;
    world.settled = false;
    let result = match patch_type.as_str() {
        "merge" => api.patch(&name, &PatchParams::default(), &Patch::Merge(body)).await,
        "strategic" => api.patch(&name, &PatchParams::default(), &Patch::Strategic(body)).await,
        "apply" => api.patch(&name, &PatchParams::apply("kubegc-harness"), &Patch::Apply(body)).await,
        _ => {
            let p: json_patch::Patch = serde_json::from_value(body).map_err(|e| e.to_string())?;
            api.patch(&name, &PatchParams::default(), &Patch::<()>::Json(p)).await
        }
    };
    match result {
        Ok(o) => {
            world.last_error = None;
            world.last_response = Some((200, serde_json::to_value(&o).unwrap_or_default()));
        }
        Err(kube::Error::Api(e)) => {
            world.last_error = Some(*e);
            world.last_response = None;
        }
        Err(e) => return Err(e.to_string()),
    }
    Ok(())
}

/// `When a second has gone by`: a second passes, and a little more on a real clock (for rules
/// about timestamps, which the API server writes with a resolution of one second).
#[given(regex = r"^a second has gone by$")]
#[when(regex = r"^a second has gone by$")]
async fn a_second(world: &mut KubeWorld) -> StepResult {
    world.backend().let_time_pass(std::time::Duration::from_millis(1100)).await
}
