//! Deleting what a scenario made on an API server, once it has run.

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, Patch};
use serde_json::{Value, json};

use super::api::KubeWorld;

/// Deletes the scenario's namespaces and custom resource definitions (first turning off any
/// conversion webhook that does not run, without which their objects could not go), then stops
/// the controllers started for it.
pub(super) async fn cleanup(world: &mut KubeWorld) {
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

/// A CRD's `spec.conversion` without a webhook, as a merge patch writes it (dropping any
/// webhook settings, which only the `Webhook` strategy may have).
pub fn no_webhook() -> Value {
    json!({"strategy": "None", "webhook": null})
}
