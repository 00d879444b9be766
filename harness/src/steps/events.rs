//! Steps on Events: one recorded (or not) for an object, by reason or with given fields,
//! and Events written through `events.k8s.io/v1` as the API server's event expiry sees them.
//!
//! "No event" first waits for the collector to settle, never for a fixed time.

use cucumber::gherkin::Step;
use cucumber::{given, then};
use kube::api::{Api, ApiResource, DynamicObject, ListParams, PostParams};
use serde_json::{Value, json};

use super::support::{at, explained, settled, show};
use crate::world::StepResult;
use crate::world::api::{Created, KubeWorld};

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

/// `Given an events.k8s.io Event named "e"`: an Event written through `events.k8s.io/v1`
/// (stored with core Events), about a ConfigMap of the same name.
#[given(regex = r#"^an events\.k8s\.io Event named "([^"]+)"$"#)]
async fn new_event(world: &mut KubeWorld, name: String) -> StepResult {
    let namespace = world.namespace().await?;
    let resource = ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk("events.k8s.io", "v1", "Event"));
    let api: Api<DynamicObject> = Api::namespaced_with(world.client(), &namespace, &resource);
    let body = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name},
        "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "kubegc.io/scenario", "reportingInstance": "kubegc",
        "action": "Checked", "reason": "KubegcExample", "type": "Normal", "note": "an event made by a kubegc scenario",
        "regarding": {"apiVersion": "v1", "kind": "ConfigMap", "namespace": namespace, "name": name}});
    let object: DynamicObject = serde_json::from_value(body).map_err(|e| e.to_string())?;
    world.settled = false;
    let created = api.create(&PostParams::default(), &object).await.map_err(|e| format!("cannot create Event {name:?}: {e}"))?;
    let (core, _) = world.resource("Event").await?;
    world.objects.insert(("Event".into(), name), Created { resource: core, namespace, uid: created.metadata.uid.unwrap_or_default() });
    Ok(())
}
