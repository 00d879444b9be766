//! Then steps: an object is gone (eventually), still exists (once the collector has settled),
//! is terminating with given finalizers, has given owners; an event was recorded; a request
//! failed with a given status.

use cucumber::then;
use kube::api::{Api, ListParams};
use kube::core::DynamicObject;

use crate::steps::list;
use crate::world::{KubeWorld, StepResult};

async fn fetch(world: &mut KubeWorld, kind: &str, name: &str) -> Result<Option<DynamicObject>, String> {
    let (api, _, _) = world.api(kind).await?;
    api.get_opt(name).await.map_err(|e| format!("cannot get {kind} {name:?}: {e}"))
}

async fn settled(world: &KubeWorld) -> StepResult {
    world.backend().settle().await
}

/// Turns a failed check into a failure message that explains the scenario's state.
async fn explained(world: &mut KubeWorld, result: StepResult) -> StepResult {
    match result {
        Ok(()) => Ok(()),
        Err(failure) => Err(world.explain(failure).await),
    }
}

/// `Then ConfigMap "child" is gone` (waits up to the backend's timeout).
#[then(regex = r#"^(\w+) "([^"]+)" is gone$"#)]
async fn gone(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    let result = gone_check(&mut *world, kind, name).await;
    explained(world, result).await
}

async fn gone_check(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    let (api, _, _) = world.api(&kind).await?;
    world
        .eventually(&format!("{kind} {name:?} to be gone"), || {
            let api = api.clone();
            let name = name.clone();
            async move { api.get_opt(&name).await.map(|o| o.is_none()).map_err(|e| e.to_string()) }
        })
        .await
}

/// `Then ConfigMap "child" still exists` (checked once the collector has settled).
#[then(regex = r#"^(\w+) "([^"]+)" still exists$"#)]
async fn still_exists(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    let result = still_exists_check(&mut *world, kind, name).await;
    explained(world, result).await
}

async fn still_exists_check(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    settled(world).await?;
    match fetch(world, &kind, &name).await? {
        Some(o) if o.metadata.deletion_timestamp.is_none() => Ok(()),
        Some(_) => Err(format!("{kind} {name:?} exists but is being deleted")),
        None => Err(format!("{kind} {name:?} was deleted")),
    }
}

/// `Then ConfigMap "owner" is terminating with finalizers "foregroundDeletion"` (after settling).
#[then(regex = r#"^(\w+) "([^"]+)" is terminating with finalizers "([^"]*)"$"#)]
async fn terminating(world: &mut KubeWorld, kind: String, name: String, finalizers: String) -> StepResult {
    let result = terminating_check(&mut *world, kind, name, finalizers).await;
    explained(world, result).await
}

async fn terminating_check(world: &mut KubeWorld, kind: String, name: String, finalizers: String) -> StepResult {
    settled(world).await?;
    let o = fetch(world, &kind, &name).await?.ok_or(format!("{kind} {name:?} is gone"))?;
    if o.metadata.deletion_timestamp.is_none() {
        return Err(format!("{kind} {name:?} has no deletionTimestamp"));
    }
    let have = o.metadata.finalizers.unwrap_or_default();
    if have != list(&finalizers) {
        return Err(format!("{kind} {name:?} has finalizers {have:?}, expected {:?}", list(&finalizers)));
    }
    Ok(())
}

/// `Then ConfigMap "child" has owner references to "a, b"` (names; `""` for none), after settling.
#[then(regex = r#"^(\w+) "([^"]+)" has owner references to "([^"]*)"$"#)]
async fn owners(world: &mut KubeWorld, kind: String, name: String, expected: String) -> StepResult {
    let result = owners_check(&mut *world, kind, name, expected).await;
    explained(world, result).await
}

async fn owners_check(world: &mut KubeWorld, kind: String, name: String, expected: String) -> StepResult {
    settled(world).await?;
    let o = fetch(world, &kind, &name).await?.ok_or(format!("{kind} {name:?} is gone"))?;
    let have: Vec<String> = o.metadata.owner_references.unwrap_or_default().into_iter().map(|r| r.name).collect();
    if have != list(&expected) {
        return Err(format!("{kind} {name:?} has owner references to {have:?}, expected {:?}", list(&expected)));
    }
    Ok(())
}

/// `Then an event with reason "OwnerRefInvalidNamespace" was recorded for ConfigMap "child"`.
#[then(regex = r#"^an event with reason "([^"]+)" was recorded for (\w+) "([^"]+)"$"#)]
async fn event_recorded(world: &mut KubeWorld, reason: String, kind: String, name: String) -> StepResult {
    let result = event_recorded_check(&mut *world, reason, kind, name).await;
    explained(world, result).await
}

async fn event_recorded_check(world: &mut KubeWorld, reason: String, kind: String, name: String) -> StepResult {
    let created = world.created(&kind, &name)?.clone();
    let namespace = if created.namespace.is_empty() { "default".to_string() } else { created.namespace.clone() };
    let events: Api<k8s_openapi::api::core::v1::Event> = Api::namespaced(world.client(), &namespace);
    let selector = format!("reason={reason},involvedObject.name={name}");
    world
        .eventually(&format!("an event {reason} for {kind} {name:?}"), || {
            let (events, selector) = (events.clone(), selector.clone());
            async move { events.list(&ListParams::default().fields(&selector)).await.map(|l| !l.items.is_empty()).map_err(|e| e.to_string()) }
        })
        .await
}

/// `Then the request fails with status 409 and reason Conflict`.
#[then(regex = r"^the request fails with status (\d+) and reason (\w+)$")]
async fn request_failed(world: &mut KubeWorld, code: u16, reason: String) -> StepResult {
    let result = request_failed_check(&mut *world, code, reason).await;
    explained(world, result).await
}

async fn request_failed_check(world: &mut KubeWorld, code: u16, reason: String) -> StepResult {
    match &world.last_error {
        Some(e) if e.code == code && e.reason == reason => Ok(()),
        Some(e) => Err(format!("the request failed with {} {}: {}", e.code, e.reason, e.message)),
        None => Err("the last request succeeded".into()),
    }
}
