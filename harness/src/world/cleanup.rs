//! Deleting what a scenario made on an API server, once it has run.

use k8s_openapi::api::core::v1::{Event, Namespace};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, Preconditions};
use serde_json::{Value, json};

use super::api::KubeWorld;

/// Deletes the scenario's namespaces and custom resource definitions (first turning off any
/// conversion webhook that does not run, without which their objects could not go), on a
/// cluster that outlives the run everything else it made too ([`leave_nothing`]), then stops
/// the controllers started for it.
pub(super) async fn cleanup(world: &mut KubeWorld) {
    if world.backend().outlives_run() {
        leave_nothing(world).await;
    }
    let crds: Api<CustomResourceDefinition> = Api::all(world.client());
    for kind in std::mem::take(&mut world.conversion_webhooks) {
        if let Some((resource, _)) = world.custom_kinds.get(&kind) {
            let patch = json!({"spec": {"conversion": no_webhook()}});
            let _ = crds.patch(&format!("{}.{}", resource.plural, resource.group), &Default::default(), &Patch::Merge(&patch)).await;
        }
    }
    let namespaces: Api<Namespace> = Api::all(world.client());
    for ns in [world.namespace.take(), world.other_namespace.take()].into_iter().flatten() {
        let _ = namespaces.delete(&ns, &DeleteParams::background()).await;
    }
    for (resource, _) in world.custom_kinds.values() {
        let _ = crds.delete(&format!("{}.{}", resource.plural, resource.group), &DeleteParams::background()).await;
    }
    world.guards.clear();
}

/// Takes the finalizers off everything in the scenario's namespaces (without a collector, or
/// after a failed step, a `foregroundDeletion`, an `orphan` or a scenario's own finalizer would
/// keep an object, and its namespace, forever) and deletes what the scenario made outside them
/// (ClusterRoles, PersistentVolumes, Nodes, a Lease in `kube-node-lease`, …) with the Events
/// about it: on a cluster that outlives the run, the next run then finds none of its names
/// taken. An object goes only while it is the one the scenario made (a uid precondition),
/// never one another run made since under the same name.
async fn leave_nothing(world: &mut KubeWorld) {
    let namespaces: Vec<String> = [&world.namespace, &world.other_namespace].into_iter().flatten().cloned().collect();
    let served = world.served().await.unwrap_or_default();
    for namespace in &namespaces {
        for (resource, _) in served.iter().filter(|(_, namespaced)| *namespaced) {
            let api: Api<DynamicObject> = Api::namespaced_with(world.client(), namespace, resource);
            let Ok(list) = api.list(&ListParams::default()).await else { continue };
            for object in &list.items {
                if let (Some(name), Some(uid)) = (&object.metadata.name, &object.metadata.uid) {
                    unfinalize(&api, name, uid, object).await;
                }
            }
        }
    }
    let events: Api<Event> = Api::all(world.client());
    for ((_, name), created) in world.objects.iter().filter(|(_, created)| !namespaces.contains(&created.namespace)) {
        let api: Api<DynamicObject> = if created.namespace.is_empty() {
            Api::all_with(world.client(), &created.resource)
        } else {
            Api::namespaced_with(world.client(), &created.namespace, &created.resource)
        };
        if let Ok(Some(object)) = api.get_opt(name).await {
            unfinalize(&api, name, &created.uid, &object).await;
            let preconditions = Preconditions { uid: Some(created.uid.clone()), resource_version: None };
            let _ = api.delete(name, &DeleteParams { preconditions: Some(preconditions), ..DeleteParams::background() }).await;
        }
        let about = ListParams::default().fields(&format!("involvedObject.uid={}", created.uid));
        for event in events.list(&about).await.map(|list| list.items).unwrap_or_default() {
            if let (Some(namespace), Some(event)) = (&event.metadata.namespace, &event.metadata.name) {
                let _ = Api::<Event>::namespaced(world.client(), namespace).delete(event, &DeleteParams::default()).await;
            }
        }
    }
}

/// Takes the finalizers off `object` (named `name`) if it has any and is still `uid`.
async fn unfinalize(api: &Api<DynamicObject>, name: &str, uid: &str, object: &DynamicObject) {
    if object.metadata.uid.as_deref() == Some(uid) && object.metadata.finalizers.as_ref().is_some_and(|f| !f.is_empty()) {
        let patch = json!({"metadata": {"uid": uid, "finalizers": null}});
        let _ = api.patch(name, &PatchParams::default(), &Patch::Merge(&patch)).await;
    }
}

/// A CRD's `spec.conversion` without a webhook, as a merge patch writes it (dropping any
/// webhook settings, which only the `Webhook` strategy may have).
pub fn no_webhook() -> Value {
    json!({"strategy": "None", "webhook": null})
}
