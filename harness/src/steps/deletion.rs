//! Steps that delete (one object with a propagation policy, raw DeleteOptions or query
//! parameters; a collection; several at once; the scenario's namespace) or remove a finalizer,
//! and check what deletion left: an object gone (eventually), still there or terminating with
//! given finalizers, its deletionTimestamp and grace period, objects counted by name pattern.
//!
//! Every negative check ("still exists", "is terminating") first waits for the collector to
//! settle, never for a fixed time.

use cucumber::gherkin::Step;
use cucumber::{then, when};
use kube::api::{Api, ListParams, Patch, PatchParams};
use serde_json::{Value, json};

use super::support::{collection_url, explained, fetch, glob, list, lookup, matching, record, send, settled};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

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

fn finalizers_of(v: &Value) -> Vec<String> {
    v["metadata"]["finalizers"].as_array().map(|a| a.iter().filter_map(|f| f.as_str().map(String::from)).collect()).unwrap_or_default()
}

/// `Then ConfigMap "child" is gone` (waits up to the backend's timeout).
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" is gone$"#)]
async fn gone(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    let result = gone_check(&mut *world, kind, name).await;
    explained(world, result).await
}

async fn gone_check(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    let api = world.object_api(&kind, &name).await?;
    world
        .poll(&format!("{kind} {name:?} to be gone"), || {
            let api = api.clone();
            let name = name.clone();
            async move { lookup(&api, &name).await.map(|o| o.is_none()).map_err(|e| e.to_string()) }
        })
        .await
}

/// `Then ConfigMap "child" still exists` (checked once the collector has settled), not being
/// deleted.
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" still exists$"#)]
async fn still_exists(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    let result = still_exists_check(&mut *world, kind, name, None).await;
    explained(world, result).await
}

/// `Then ConfigMap "x" still exists with finalizers "orphan"`: not being deleted, and with
/// exactly these finalizers (after settling).
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" still exists with finalizers "([^"]*)"$"#)]
async fn still_exists_with(world: &mut KubeWorld, kind: String, name: String, finalizers: String) -> StepResult {
    let result = still_exists_check(&mut *world, kind, name, Some(finalizers)).await;
    explained(world, result).await
}

async fn still_exists_check(world: &mut KubeWorld, kind: String, name: String, finalizers: Option<String>) -> StepResult {
    settled(world).await?;
    match fetch(world, &kind, &name).await? {
        Some(o) if o.metadata.deletion_timestamp.is_some() => Err(format!("{kind} {name:?} exists but is being deleted")),
        Some(o) => match finalizers.map(|f| list(&f)) {
            Some(want) if o.metadata.finalizers.clone().unwrap_or_default() != want => {
                Err(format!("{kind} {name:?} has finalizers {:?}, expected {want:?}", o.metadata.finalizers.unwrap_or_default()))
            }
            _ => Ok(()),
        },
        None => Err(format!("{kind} {name:?} was deleted")),
    }
}

/// `Then ConfigMap "owner" is terminating with finalizers "foregroundDeletion"` (after settling,
/// and waited for where settling is only a hold time).
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" is terminating with finalizers "([^"]*)"$"#)]
async fn terminating(world: &mut KubeWorld, kind: String, name: String, finalizers: String) -> StepResult {
    let result = terminating_check(&mut *world, kind, name, finalizers).await;
    explained(world, result).await
}

async fn terminating_check(world: &mut KubeWorld, kind: String, name: String, finalizers: String) -> StepResult {
    settled(world).await?;
    let api = world.object_api(&kind, &name).await?;
    let want = list(&finalizers);
    // Settled is exact on the fake; on a cluster reached by kubeconfig it is a hold time, which a
    // collector working down a long foreground chain on a busy machine can outlast, so the state
    // is waited for (up to the backend's timeout) before the last failure is reported.
    let last = std::cell::RefCell::new(Ok(()));
    let waited = world
        .poll(&format!("{kind} {name:?} to be terminating"), || async {
            let o = lookup(&api, &name).await.map_err(|e| format!("cannot get {kind} {name:?}: {e}"))?;
            let now = match o {
                None => Err(format!("{kind} {name:?} is gone")),
                Some(o) if o.metadata.deletion_timestamp.is_none() => Err(format!("{kind} {name:?} has no deletionTimestamp")),
                Some(o) => match o.metadata.finalizers.unwrap_or_default() {
                    have if have != want => Err(format!("{kind} {name:?} has finalizers {have:?}, expected {want:?}")),
                    _ => Ok(()),
                },
            };
            let done = now.is_ok();
            *last.borrow_mut() = now;
            Ok(done)
        })
        .await;
    waited.or_else(|_| last.into_inner())
}

/// `Then Pod "web" is terminating with a grace period of 30 seconds`: its deletionTimestamp
/// lies that far ahead and `deletionGracePeriodSeconds` says so (after settling).
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" is terminating with a grace period of ((?-u:\d)+) seconds?$"#)]
async fn terminating_gracefully(world: &mut KubeWorld, kind: String, name: String, grace: i64) -> StepResult {
    let result = terminating_gracefully_check(&mut *world, kind, name, grace).await;
    explained(world, result).await
}

async fn terminating_gracefully_check(world: &mut KubeWorld, kind: String, name: String, grace: i64) -> StepResult {
    // Time is read before settling, which may take a while on a busy machine and is not part
    // of how far ahead the deletion was set.
    let now = k8s_openapi::jiff::Timestamp::now();
    settled(world).await?;
    let o = fetch(world, &kind, &name).await?.ok_or(format!("{kind} {name:?} is gone"))?;
    let ts = o.metadata.deletion_timestamp.ok_or(format!("{kind} {name:?} has no deletionTimestamp"))?;
    let have = o.metadata.deletion_grace_period_seconds;
    if have != Some(grace) {
        return Err(format!("{kind} {name:?} has deletionGracePeriodSeconds {have:?}, expected {grace}"));
    }
    let ahead = (ts.0.as_millisecond() - now.as_millisecond()) as f64 / 1000.0;
    if !(grace as f64 - 5.0..=grace as f64 + 1.0).contains(&ahead) {
        return Err(format!("{kind} {name:?} has deletionTimestamp {}, {ahead:.1}s from now, expected about {grace}s", ts.0));
    }
    Ok(())
}

/// `Then ConfigMap "held" was marked for deletion less than 5 seconds ago`: the age of its
/// deletionTimestamp (after settling) when the scenario's last DELETE, if of this object, was
/// answered, else at the step: the steps between a DELETE and this check take longer on a
/// loaded machine, and what is judged is the time the deletion was stamped with.
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" was marked for deletion less than ((?-u:\d)+) seconds? ago$"#)]
async fn marked_ago(world: &mut KubeWorld, kind: String, name: String, seconds: i64) -> StepResult {
    let result = marked_ago_check(&mut *world, kind, name, seconds).await;
    explained(world, result).await
}

async fn marked_ago_check(world: &mut KubeWorld, kind: String, name: String, seconds: i64) -> StepResult {
    // As above: the age is the deletion's at the step (or its DELETE), not after settling.
    let deleted_here = world.last_deleted.as_ref().is_some_and(|(k, n)| *k == kind && *n == name);
    let now = world.last_deleted_at.filter(|_| deleted_here).unwrap_or_else(k8s_openapi::jiff::Timestamp::now);
    settled(world).await?;
    let o = fetch(world, &kind, &name).await?.ok_or(format!("{kind} {name:?} is gone"))?;
    let ts = o.metadata.deletion_timestamp.ok_or(format!("{kind} {name:?} has no deletionTimestamp"))?;
    let age = (now.as_millisecond() - ts.0.as_millisecond()) as f64 / 1000.0;
    if !(-1.0..seconds as f64).contains(&age) {
        return Err(format!("{kind} {name:?} was marked for deletion at {} ({age:.1}s ago), expected less than {seconds}s ago", ts.0));
    }
    Ok(())
}

/// `Then ConfigMap "held" still has the deletionTimestamp of its first deletion`: the one the
/// first DELETE that kept the object answered with (after settling).
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" still has the deletionTimestamp of its first deletion$"#)]
async fn first_deletion_kept(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    let result = async {
        let first =
            world.first_deletions.get(&(kind.clone(), name.clone())).cloned().ok_or(format!("no DELETE has kept {kind} {name:?}"))?;
        settled(world).await?;
        let o = fetch(world, &kind, &name).await?.ok_or(format!("{kind} {name:?} is gone"))?;
        let ts = o.metadata.deletion_timestamp.ok_or(format!("{kind} {name:?} has no deletionTimestamp"))?;
        let now = serde_json::to_value(&ts).map_err(|e| e.to_string())?;
        let now = now.as_str().unwrap_or_default();
        if now != first {
            return Err(format!("{kind} {name:?} has deletionTimestamp {now}, its first deletion gave it {first}"));
        }
        Ok(())
    }
    .await;
    explained(world, result).await
}

/// The namespace's current state, `None` once it is gone.
async fn namespace_object(world: &mut KubeWorld) -> Result<Option<k8s_openapi::api::core::v1::Namespace>, String> {
    let ns = world.namespace().await?;
    let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(world.client());
    api.get_opt(&ns).await.map_err(|e| format!("cannot read the namespace: {e}"))
}

/// `Then the namespace is gone` (waits up to the backend's timeout).
#[then(regex = r"^the namespace is gone$")]
async fn namespace_gone(world: &mut KubeWorld) -> StepResult {
    let ns = world.namespace().await?;
    let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(world.client());
    let result = world
        .poll("the namespace to be gone", || {
            let (api, ns) = (api.clone(), ns.clone());
            async move { api.get_opt(&ns).await.map(|o| o.is_none()).map_err(|e| e.to_string()) }
        })
        .await;
    explained(world, result).await
}

/// `Then the namespace is terminating with finalizers "orphan"`: the namespace has a
/// deletionTimestamp and these `metadata.finalizers` (after settling).
#[then(regex = r#"^the namespace is terminating with finalizers "([^"]*)"$"#)]
async fn namespace_terminating(world: &mut KubeWorld, finalizers: String) -> StepResult {
    let result = async {
        settled(world).await?;
        let ns = namespace_object(world).await?.ok_or("the namespace is gone")?;
        if ns.metadata.deletion_timestamp.is_none() {
            return Err("the namespace has no deletionTimestamp".to_string());
        }
        let have = ns.metadata.finalizers.unwrap_or_default();
        if have != list(&finalizers) {
            return Err(format!("the namespace has finalizers {have:?}, expected {:?}", list(&finalizers)));
        }
        Ok(())
    }
    .await;
    explained(world, result).await
}

/// `Then the delete kept the object with finalizers "foo.com/x, orphan"`: the API server's
/// answer to the last DELETE was the object, kept with a deletionTimestamp and exactly these
/// finalizers (what the API server decided, before any collector acted on it).
#[then(regex = r#"^the delete kept the object with finalizers "([^"]*)"$"#)]
async fn delete_kept(world: &mut KubeWorld, finalizers: String) -> StepResult {
    let result = match (&world.last_error, &world.last_response) {
        (Some(e), _) => Err(format!("the delete failed with {} {}: {}", e.code, e.reason, e.message)),
        (None, Some((_, body))) if body["kind"] == "Status" => Err(format!("the delete removed the object: {body}")),
        (None, Some((_, body))) if body["metadata"]["deletionTimestamp"].is_null() => {
            Err(format!("the object kept has no deletionTimestamp: {body}"))
        }
        (None, Some((_, body))) if finalizers_of(body) != list(&finalizers) => {
            Err(format!("the object was kept with finalizers {:?}, expected {:?}", finalizers_of(body), list(&finalizers)))
        }
        (None, Some(_)) => Ok(()),
        (None, None) => Err("no delete was answered".into()),
    };
    explained(world, result).await
}

/// `Then the delete removed the object at once`: the API server answered the last DELETE with
/// a `Success` status (or, for kinds that return the deleted object, an object with no
/// finalizers left), and a read right after finds no such object: nothing was left for a
/// collector to do.
#[then(regex = r"^the delete removed the object at once$")]
async fn delete_removed(world: &mut KubeWorld) -> StepResult {
    let result = delete_removed_check(&mut *world).await;
    explained(world, result).await
}

async fn delete_removed_check(world: &mut KubeWorld) -> StepResult {
    let answer = match (&world.last_error, &world.last_response) {
        (Some(e), _) => Err(format!("the delete failed with {} {}: {}", e.code, e.reason, e.message)),
        (None, Some((_, body))) if body["kind"] == "Status" && body["status"] == "Success" => Ok(()),
        (None, Some((_, body)))
            if body["kind"] != "Status"
                && finalizers_of(body).is_empty()
                && body["metadata"]["deletionGracePeriodSeconds"].as_i64().unwrap_or(0) == 0 =>
        {
            Ok(())
        }
        (None, Some((_, body))) => Err(format!("the delete kept the object, with finalizers {:?}: {body}", finalizers_of(body))),
        (None, None) => Err("no delete was answered".into()),
    };
    answer?;
    let (kind, name) = world.last_deleted.clone().ok_or("no DELETE was sent")?;
    match fetch(world, &kind, &name).await? {
        None => Ok(()),
        Some(o) => Err(format!("{kind} {name:?} is still there after the DELETE (deletionTimestamp {:?})", o.metadata.deletion_timestamp)),
    }
}

/// `Then 30 Pods named "c1-*" still exist`: after settling, exactly that many objects of the
/// kind match the name pattern (`*` for any text), and none is being deleted.
#[then(regex = r#"^((?-u:\d)+) ((?-u:\w)+?)s named "([^"]+)" still exist$"#)]
async fn count_exist(world: &mut KubeWorld, count: usize, kind: String, pattern: String) -> StepResult {
    let result = async {
        settled(world).await?;
        let found = matching(world, &kind, &pattern).await?;
        let deleting = found.iter().filter(|o| o.metadata.deletion_timestamp.is_some()).count();
        if found.len() != count || deleting > 0 {
            return Err(format!("{} {kind}s named {pattern:?} exist ({deleting} being deleted), expected {count}", found.len()));
        }
        Ok(())
    }
    .await;
    explained(world, result).await
}

/// `Then every ReplicationController named "c*" is gone` (eventually no object of the kind
/// matches the name pattern).
#[then(regex = r#"^every ((?-u:\w)+?) named "([^"]+)" is gone$"#)]
async fn all_gone(world: &mut KubeWorld, kind: String, pattern: String) -> StepResult {
    let (api, _, _) = match world.api(&kind).await {
        Ok(a) => a,
        Err(e) => return explained(world, Err(e)).await,
    };
    let result = world
        .poll(&format!("every {kind} named {pattern:?} to be gone"), || {
            let (api, pattern) = (api.clone(), pattern.clone());
            async move {
                let listed = api.list_metadata(&ListParams::default()).await.map_err(|e| e.to_string())?;
                Ok(!listed.items.iter().any(|o| glob(&pattern, o.metadata.name.as_deref().unwrap_or(""))))
            }
        })
        .await;
    explained(world, result).await
}
