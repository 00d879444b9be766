//! Then steps: an object is gone (eventually), still exists (once the collector has settled),
//! is terminating with given finalizers, has given owners or field values; an event was (or
//! was not) recorded; a request failed or succeeded, and what the API server answered; counts
//! of objects by name pattern; what a watch saw.
//!
//! Every negative check ("still exists", "is terminating", "has owner references", "no
//! event") first waits for the collector to settle, never for a fixed time.

use cucumber::gherkin::Step;
use cucumber::{given, then};
use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, WatchEvent, WatchParams};
use kube::core::DynamicObject;
use serde_json::Value;

use super::support::{glob, list, settled};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

async fn fetch(world: &mut KubeWorld, kind: &str, name: &str) -> Result<Option<DynamicObject>, String> {
    let api = world.object_api(kind, name).await?;
    lookup(&api, name).await.map_err(|e| format!("cannot get {kind} {name:?}: {e}"))
}

/// Reads `kind` `name` after settling and judges it with `judge`: once where settling is exact;
/// elsewhere, where a controller may still be making or moving it (a StatefulSet's claims, a
/// kubelet's status), every 200 ms until `judge` passes or the backend's timeout does, the last
/// complaint then the error.
async fn read_until<F>(world: &mut KubeWorld, kind: &str, name: &str, mut judge: F) -> StepResult
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
async fn lookup(api: &Api<DynamicObject>, name: &str) -> Result<Option<DynamicObject>, kube::Error> {
    match api.get(name).await {
        Ok(object) => Ok(Some(object)),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(None),
        Err(e) => Err(e),
    }
}

/// Turns a failed check into a failure message that explains the scenario's state.
async fn explained(world: &mut KubeWorld, result: StepResult) -> StepResult {
    match result {
        Ok(()) => Ok(()),
        Err(failure) => Err(world.explain(failure).await),
    }
}

/// The value at a dotted path (`metadata.finalizers.0`) of a JSON document; a key with dots
/// in it goes in brackets (`metadata.labels[apps.kubernetes.io/pod-index]`).
fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    segments(path).into_iter().try_fold(v, |v, key| match v {
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => v.get(key),
    })
}

/// The keys of a path as [`at`] reads it.
fn segments(path: &str) -> Vec<&str> {
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
fn show(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "unset".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
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

/// `Then ConfigMap "child" has owner references to "a, b"` (names; `""` for none), after settling
/// (where settling is only a hold, read until it has them or the backend's timeout passes).
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" has owner references to "([^"]*)"$"#)]
async fn owners(world: &mut KubeWorld, kind: String, name: String, expected: String) -> StepResult {
    let result = owners_check(&mut *world, kind, name, expected).await;
    explained(world, result).await
}

async fn owners_check(world: &mut KubeWorld, kind: String, name: String, expected: String) -> StepResult {
    read_until(world, &kind, &name, |o| {
        let have: Vec<String> = o.metadata.owner_references.unwrap_or_default().into_iter().map(|r| r.name).collect();
        if have != list(&expected) {
            return Err(format!("{kind} {name:?} has owner references to {have:?}, expected {:?}", list(&expected)));
        }
        Ok(())
    })
    .await
}

/// `Then ConfigMap "b" has owner references:` and a table whose header names fields of an
/// ownerReference (`name`, `kind`, `apiVersion`, `blockOwnerDeletion`, `controller`), one row
/// per reference in order; `unset` for a field that is absent. Checked after settling (where
/// settling is only a hold, read until it has them or the backend's timeout passes).
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" has owner references:$"#)]
async fn owner_table(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let result = owner_table_check(&mut *world, kind, name, step).await;
    explained(world, result).await
}

async fn owner_table_check(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let table = step.table.as_ref().ok_or("the step needs a table")?;
    let header = &table.rows[0];
    let want: Vec<Vec<String>> = table.rows[1..].to_vec();
    read_until(world, &kind, &name, |o| {
        let o = serde_json::to_value(&o).map_err(|e| e.to_string())?;
        let refs = o["metadata"]["ownerReferences"].as_array().cloned().unwrap_or_default();
        let have: Vec<Vec<String>> = refs.iter().map(|r| header.iter().map(|h| show(r.get(h.as_str()))).collect()).collect();
        if have != want {
            return Err(format!("{kind} {name:?} has owner references ({}) {have:?}, expected {want:?}", header.join(", ")));
        }
        Ok(())
    })
    .await
}

/// `Then ConfigMap "held" has "metadata.deletionGracePeriodSeconds" set to "0"`: a field at a
/// dotted path (a key with dots in brackets), after settling (`unset` for an absent field;
/// `${Kind/name}` for a uid); where
/// settling is only a hold, read until it has that value or the backend's timeout passes.
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" has "([^"]+)" set to "([^"]*)"$"#)]
async fn field(world: &mut KubeWorld, kind: String, name: String, path: String, value: String) -> StepResult {
    let result = field_check(&mut *world, kind, name, path, value).await;
    explained(world, result).await
}

async fn field_check(world: &mut KubeWorld, kind: String, name: String, path: String, value: String) -> StepResult {
    let want = world.resolve_uids(&value)?;
    read_until(world, &kind, &name, |o| {
        let o = serde_json::to_value(&o).map_err(|e| e.to_string())?;
        let have = show(at(&o, &path));
        if have != want {
            return Err(format!("{kind} {name:?} has {path} = {have:?}, expected {want:?}"));
        }
        Ok(())
    })
    .await
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

/// The events recorded for `kind/name` (in its namespace, or `default` when cluster-scoped).
async fn events_for(world: &mut KubeWorld, kind: &str, name: &str) -> Result<(Api<k8s_openapi::api::core::v1::Event>, String), String> {
    // A Node's (its kubelet registered it) are in `default`, as every cluster-scoped object's.
    let namespace = match world.created(kind, name) {
        Err(_) if kind == "Node" => String::new(),
        created => created?.namespace.clone(),
    };
    let namespace = if namespace.is_empty() { "default".to_string() } else { namespace };
    Ok((Api::namespaced(world.client(), &namespace), format!("involvedObject.name={name}")))
}

/// `Then an event with reason "OwnerRefInvalidNamespace" was recorded for ConfigMap "child"`.
#[then(regex = r#"^an event with reason "([^"]+)" was recorded for ((?-u:\w)+) "([^"]+)"$"#)]
async fn event_recorded(world: &mut KubeWorld, reason: String, kind: String, name: String) -> StepResult {
    let result = event_recorded_check(&mut *world, reason, kind, name).await;
    explained(world, result).await
}

async fn event_recorded_check(world: &mut KubeWorld, reason: String, kind: String, name: String) -> StepResult {
    let (events, selector) = events_for(world, &kind, &name).await?;
    let selector = format!("reason={reason},{selector}");
    world.poll(&format!("an event {reason} for {kind} {name:?}"), || {
        let (events, selector) = (events.clone(), selector.clone());
        async move { events.list(&ListParams::default().fields(&selector)).await.map(|l| !l.items.is_empty()).map_err(|e| e.to_string()) }
    })
    .await
}

/// `Then an event was recorded for ConfigMap "child" with:` and a table of `field | value`
/// (dotted paths of the Event: `type`, `reason`, `message`, `source.component`,
/// `involvedObject.uid`, ...; `${Kind/name}` and `${namespace}` are replaced): eventually, one
/// event about the object has all of them.
#[then(regex = r#"^an event was recorded for ((?-u:\w)+) "([^"]+)" with:$"#)]
async fn event_with(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let result = event_with_check(&mut *world, kind, name, step).await;
    explained(world, result).await
}

async fn event_with_check(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let table = step.table.as_ref().ok_or("the step needs a table of field | value")?;
    let mut wanted = Vec::new();
    for row in &table.rows {
        let [path, value] = row.as_slice() else { return Err(format!("a row {row:?} is not field | value")) };
        wanted.push((path.clone(), world.resolve_uids(value)?));
    }
    let (events, selector) = events_for(world, &kind, &name).await?;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let result = world
        .poll(&format!("an event for {kind} {name:?} with {wanted:?}"), || {
            let (events, selector, wanted, seen) = (events.clone(), selector.clone(), wanted.clone(), seen.clone());
            async move {
                let listed = events.list(&ListParams::default().fields(&selector)).await.map_err(|e| e.to_string())?;
                let listed: Vec<Value> = listed.items.iter().filter_map(|e| serde_json::to_value(e).ok()).collect();
                let found = listed.iter().any(|e| wanted.iter().all(|(path, value)| show(at(e, path)) == *value));
                *seen.lock().unwrap_or_else(|p| p.into_inner()) = listed;
                Ok(found)
            }
        })
        .await;
    result.map_err(|e| {
        let seen = seen.lock().unwrap_or_else(|p| p.into_inner());
        let shown: Vec<String> =
            seen.iter().map(|e| wanted.iter().map(|(p, _)| format!("{p}={:?}", show(at(e, p)))).collect::<Vec<_>>().join(", ")).collect();
        format!("{e}; events about it: {shown:?}")
    })
}

/// `Then no event with reason "OwnerRefInvalidNamespace" was recorded for ConfigMap "child"`
/// (checked once the collector has settled).
#[then(regex = r#"^no event with reason "([^"]+)" was recorded for ((?-u:\w)+) "([^"]+)"$"#)]
async fn no_event(world: &mut KubeWorld, reason: String, kind: String, name: String) -> StepResult {
    let result = async {
        settled(world).await?;
        let (events, selector) = events_for(world, &kind, &name).await?;
        let listed = events.list(&ListParams::default().fields(&format!("reason={reason},{selector}"))).await.map_err(|e| e.to_string())?;
        match listed.items.first() {
            None => Ok(()),
            Some(e) => Err(format!("an event {reason} was recorded for {kind} {name:?}: {:?}", e.message)),
        }
    }
    .await;
    explained(world, result).await
}

/// `Then the request fails with status 409 and reason Conflict` (or just `with status 500`,
/// for errors the server has no reason for).
#[then(regex = r"^the request fails with status ((?-u:\d)+)(?: and reason ((?-u:\w)+))?$")]
async fn request_failed(world: &mut KubeWorld, code: u16, reason: String) -> StepResult {
    let result = request_failed_check(&mut *world, code, reason).await;
    explained(world, result).await
}

async fn request_failed_check(world: &mut KubeWorld, code: u16, reason: String) -> StepResult {
    match &world.last_error {
        Some(e) if e.code == code && (reason.is_empty() || e.reason == reason) => Ok(()),
        Some(e) => Err(format!("the request failed with {} {}: {}", e.code, e.reason, e.message)),
        None => Err("the last request succeeded".into()),
    }
}

/// `Then the failure says "does not match the UID in record"`: the last failure's message
/// contains the text (`\"` for a quote; `${Kind/name}` stands for a uid).
#[then(regex = r#"^the failure says "(.*)"$"#)]
async fn failure_says(world: &mut KubeWorld, text: String) -> StepResult {
    let text = text.replace("\\\"", "\"");
    let result = match (&world.last_error, world.resolve_uids(&text)) {
        (_, Err(e)) => Err(e),
        (Some(e), Ok(text)) if e.message.contains(&text) => Ok(()),
        (Some(e), Ok(text)) => Err(format!("the failure says {:?}, not {text:?}", e.message)),
        (None, _) => Err("the last request succeeded".into()),
    };
    explained(world, result).await
}

/// `Then the request succeeds` (optionally `with status 202`).
#[then(regex = r"^the request succeeds(?: with status ((?-u:\d)+))?$")]
async fn request_succeeded(world: &mut KubeWorld, code: String) -> StepResult {
    let result = match (&world.last_error, &world.last_response) {
        (Some(e), _) => Err(format!("the request failed with {} {}: {}", e.code, e.reason, e.message)),
        (None, Some((have, _))) if !code.is_empty() && have.to_string() != code => {
            Err(format!("the request succeeded with status {have}, not {code}"))
        }
        _ => Ok(()),
    };
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

/// `Then the response has "details.kind" set to "configmaps"`: a field of the last successful
/// answer, at a dotted path (`unset` for an absent field; `${Kind/name}` for a uid).
#[then(regex = r#"^the response has "([^"]+)" set to "([^"]*)"$"#)]
async fn response_field(world: &mut KubeWorld, path: String, value: String) -> StepResult {
    let result = match (&world.last_response, world.resolve_uids(&value)) {
        (_, Err(e)) => Err(e),
        (Some((_, body)), Ok(want)) if show(at(body, &path)) == want => Ok(()),
        (Some((_, body)), Ok(want)) => Err(format!("the response has {path} = {:?}, expected {want:?}: {body}", show(at(body, &path)))),
        (None, _) => Err("no request was answered with success".into()),
    };
    explained(world, result).await
}

/// `Then the response lists "a, b"`: the names of the items of the last answer (a list), in
/// any order.
#[then(regex = r#"^the response lists "([^"]*)"$"#)]
async fn response_lists(world: &mut KubeWorld, names: String) -> StepResult {
    let result = match &world.last_response {
        Some((_, body)) => {
            let mut have: Vec<String> =
                body["items"].as_array().into_iter().flatten().filter_map(|i| i["metadata"]["name"].as_str().map(String::from)).collect();
            let mut want = list(&names);
            have.sort();
            want.sort();
            if have == want { Ok(()) } else { Err(format!("the response lists {have:?}, expected {want:?}")) }
        }
        None => Err("no request was answered with success".into()),
    };
    explained(world, result).await
}

/// The objects of `kind` in the scenario namespace (or cluster-wide) whose names match `pattern`.
async fn matching(world: &mut KubeWorld, kind: &str, pattern: &str) -> Result<Vec<kube::core::PartialObjectMeta<DynamicObject>>, String> {
    let (api, _, _) = world.api(kind).await?;
    let listed = api.list_metadata(&ListParams::default()).await.map_err(|e| format!("cannot list {kind}s: {e}"))?;
    Ok(listed.items.into_iter().filter(|o| glob(pattern, o.metadata.name.as_deref().unwrap_or(""))).collect())
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

/// `Then every Pod named "c1-*" has owner references to ""` (after settling; at least one
/// object must match).
#[then(regex = r#"^every ((?-u:\w)+?) named "([^"]+)" has owner references to "([^"]*)"$"#)]
async fn all_owned_by(world: &mut KubeWorld, kind: String, pattern: String, expected: String) -> StepResult {
    let result = async {
        settled(world).await?;
        let found = matching(world, &kind, &pattern).await?;
        if found.is_empty() {
            return Err(format!("no {kind} is named {pattern:?}"));
        }
        for o in found {
            let have: Vec<String> = o.metadata.owner_references.unwrap_or_default().into_iter().map(|r| r.name).collect();
            if have != list(&expected) {
                return Err(format!("{kind} {:?} has owner references to {have:?}, expected {:?}", o.metadata.name, list(&expected)));
            }
        }
        Ok(())
    }
    .await;
    explained(world, result).await
}

/// `Then every Pod named "web-*" is Running and Ready on a node` (or `is Succeeded on a node`,
/// `on node "node-1"`): after settling, at least one pod matches, and each is in that phase,
/// bound to a node (that one, if named) and, if said, has a true `Ready` condition.
#[given(regex = r#"^every Pod named "([^"]+)" is (Pending|Running|Succeeded|Failed)( and Ready)? on (?:a node|node "([^"]+)")$"#)]
#[then(regex = r#"^every Pod named "([^"]+)" is (Pending|Running|Succeeded|Failed)( and Ready)? on (?:a node|node "([^"]+)")$"#)]
async fn all_pods_running(world: &mut KubeWorld, pattern: String, phase: String, ready: String, on: String) -> StepResult {
    let result = async {
        settled(world).await?;
        let namespace = world.namespace().await?;
        let pods: Api<Pod> = Api::namespaced(world.client(), &namespace);
        let listed = pods.list(&ListParams::default()).await.map_err(|e| format!("cannot list Pods: {e}"))?;
        let found: Vec<&Pod> = listed.items.iter().filter(|p| glob(&pattern, p.metadata.name.as_deref().unwrap_or(""))).collect();
        if found.is_empty() {
            return Err(format!("no Pod is named {pattern:?}"));
        }
        for pod in found {
            let name = pod.metadata.name.as_deref().unwrap_or_default();
            let status = pod.status.clone().unwrap_or_default();
            let node = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).unwrap_or_default();
            let is_ready = status.conditions.unwrap_or_default().iter().any(|c| c.type_ == "Ready" && c.status == "True");
            let have = status.phase.unwrap_or_default();
            if have != phase || node.is_empty() || (!on.is_empty() && node != on) || (!ready.is_empty() && !is_ready) {
                let place = if on.is_empty() { "a node".to_string() } else { format!("node {on:?}") };
                return Err(format!("Pod {name:?} is {have} (Ready: {is_ready}) on node {node:?}, expected {phase}{ready} on {place}"));
            }
        }
        Ok(())
    }
    .await;
    explained(world, result).await
}

/// `Then a Pod named "filler-*" has "status.reason" set to "Evicted"`: after settling, some
/// pod so named has that value at the dotted path (read until one has, up to the backend's
/// timeout, where settling is only a hold).
#[then(regex = r#"^a Pod named "([^"]+)" has "([^"]+)" set to "([^"]*)"$"#)]
async fn some_pod_field(world: &mut KubeWorld, pattern: String, path: String, value: String) -> StepResult {
    let result = async {
        settled(world).await?;
        let namespace = world.namespace().await?;
        let pods: Api<Pod> = Api::namespaced(world.client(), &namespace);
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let found = world
            .poll(&format!("a Pod named {pattern:?} with {path} = {value:?}"), || {
                let (pods, pattern, path, value, seen) = (pods.clone(), pattern.clone(), path.clone(), value.clone(), seen.clone());
                async move {
                    let listed = pods.list(&ListParams::default()).await.map_err(|e| format!("cannot list Pods: {e}"))?;
                    let named: Vec<Value> = listed
                        .items
                        .iter()
                        .filter(|p| glob(&pattern, p.metadata.name.as_deref().unwrap_or("")))
                        .filter_map(|p| serde_json::to_value(p).ok())
                        .collect();
                    let values: Vec<String> = named.iter().map(|p| show(at(p, &path))).collect();
                    let found = values.contains(&value);
                    *seen.lock().unwrap_or_else(|p| p.into_inner()) = values;
                    Ok(found)
                }
            })
            .await;
        found.map_err(|e| format!("{e}; the Pods so named have {path} = {:?}", seen.lock().unwrap_or_else(|p| p.into_inner())))
    }
    .await;
    explained(world, result).await
}

/// `Then the watch on ConfigMaps saw ConfigMap "old" deleted`: reading the kind's watch from
/// where `Given a watch on ConfigMaps` started, a DELETED event for the object arrives.
#[then(regex = r#"^the watch on ((?-u:\w)+?)s saw ((?-u:\w)+) "([^"]+)" deleted$"#)]
async fn watch_saw_deleted(world: &mut KubeWorld, watched: String, kind: String, name: String) -> StepResult {
    let result = async {
        let from = world.watches.get(&watched).cloned().ok_or(format!("no watch on {watched}s was started"))?;
        let (api, _, _) = world.api(&kind).await?;
        let timeout = world.backend().eventually_timeout();
        let params = WatchParams::default().timeout(timeout.as_secs().max(1) as u32);
        let stream = api.watch(&params, &from).await.map_err(|e| format!("cannot watch {kind}s: {e}"))?;
        let mut stream = Box::pin(stream);
        let seen = tokio::time::timeout(timeout, async {
            while let Some(event) = stream.next().await {
                if let Ok(WatchEvent::Deleted(o)) = event
                    && o.metadata.name.as_deref() == Some(name.as_str())
                {
                    return true;
                }
            }
            false
        })
        .await
        .unwrap_or(false);
        if seen { Ok(()) } else { Err(format!("the watch on {watched}s from resourceVersion {from} saw no DELETED event for {name:?}")) }
    }
    .await;
    explained(world, result).await
}

#[cfg(test)]
mod tests {
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
