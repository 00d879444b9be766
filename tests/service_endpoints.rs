//! The endpoints, EndpointSlice, mirroring and service account controllers that
//! `kubegc::Cluster` runs: a Service gets its endpoints and loses them with it, hand-written
//! Endpoints are mirrored into slices, and every namespace has its `default` account.

use k8s_openapi::api::core::v1::{Endpoints, Namespace, Service, ServiceAccount};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use serde_json::json;

fn of<K: serde::de::DeserializeOwned>(value: serde_json::Value) -> K {
    serde_json::from_value(value).unwrap()
}

async fn slices_of(cluster: &kubegc::Cluster, service: &str) -> Vec<EndpointSlice> {
    let slices: Api<EndpointSlice> = Api::default_namespaced(cluster.client());
    slices.list(&ListParams::default().labels(&format!("kubernetes.io/service-name={service}"))).await.unwrap().items
}

#[tokio::test]
async fn a_service_with_a_selector_has_endpoints_and_slices_until_it_goes() {
    let cluster = kubegc::Cluster::start();
    let services: Api<Service> = Api::default_namespaced(cluster.client());
    let svc = json!({"metadata": {"name": "empty"}, "spec": {"selector": {"app": "none"}, "ports": [{"name": "example", "port": 80}]}});
    services.create(&PostParams::default(), &of(svc)).await.unwrap();
    cluster.settle().await;
    let endpoints: Api<Endpoints> = Api::default_namespaced(cluster.client());
    let made = endpoints.get("empty").await.unwrap();
    assert_eq!(made.subsets, None);
    assert_eq!(made.metadata.labels.unwrap()["endpoints.kubernetes.io/managed-by"], "endpoint-controller");
    let slices = slices_of(&cluster, "empty").await;
    assert!(!slices.is_empty());
    for slice in &slices {
        assert_eq!(slice.metadata.labels.as_ref().unwrap()["endpointslice.kubernetes.io/managed-by"], "endpointslice-controller.k8s.io");
        // No endpoints: stored as protobuf, the empty list reads back as null, as on a cluster.
        assert_eq!(slice.endpoints, None);
        assert_eq!(slice.metadata.owner_references.as_ref().unwrap()[0].kind, "Service");
    }

    services.delete("empty", &DeleteParams::default()).await.unwrap();
    cluster.settle().await;
    assert!(endpoints.get_opt("empty").await.unwrap().is_none());
    assert!(slices_of(&cluster, "empty").await.is_empty());
}

#[tokio::test]
async fn custom_endpoints_are_mirrored_through_create_update_and_delete() {
    let cluster = kubegc::Cluster::start();
    let services: Api<Service> = Api::default_namespaced(cluster.client());
    let svc = json!({"metadata": {"name": "custom"}, "spec": {"ports": [{"name": "example", "port": 80}]}});
    services.create(&PostParams::default(), &of(svc)).await.unwrap();
    let endpoints: Api<Endpoints> = Api::default_namespaced(cluster.client());
    let custom = |ip: &str| json!({"metadata": {"name": "custom"}, "subsets": [{"ports": [{"port": 80}], "addresses": [{"ip": ip}]}]});
    endpoints.create(&PostParams::default(), &of(custom("10.1.2.3"))).await.unwrap();
    cluster.settle().await;
    let mirrored = |slices: Vec<EndpointSlice>| -> Vec<(Vec<String>, Option<i32>)> {
        let addresses = |s: &EndpointSlice| s.endpoints.iter().flatten().flat_map(|e| e.addresses.clone()).collect();
        slices.iter().map(|s| (addresses(s), s.ports.as_deref().unwrap_or_default()[0].port)).collect()
    };
    assert_eq!(mirrored(slices_of(&cluster, "custom").await), [(vec!["10.1.2.3".to_string()], Some(80))]);

    let mut changed: Endpoints = of(custom("10.2.3.4"));
    changed.metadata.resource_version = endpoints.get("custom").await.unwrap().metadata.resource_version;
    endpoints.replace("custom", &PostParams::default(), &changed).await.unwrap();
    cluster.settle().await;
    assert_eq!(mirrored(slices_of(&cluster, "custom").await), [(vec!["10.2.3.4".to_string()], Some(80))]);

    endpoints.delete("custom", &DeleteParams::default()).await.unwrap();
    cluster.settle().await;
    assert!(slices_of(&cluster, "custom").await.is_empty());
    assert!(services.get_opt("custom").await.unwrap().is_some());
}

#[tokio::test]
async fn every_namespace_has_a_default_service_account_made_again_when_deleted() {
    let cluster = kubegc::Cluster::start();
    let namespaces: Api<Namespace> = Api::all(cluster.client());
    namespaces.create(&PostParams::default(), &of(json!({"metadata": {"name": "team"}}))).await.unwrap();
    cluster.settle().await;
    let accounts: Api<ServiceAccount> = Api::namespaced(cluster.client(), "team");
    let first = accounts.get("default").await.unwrap();
    accounts.delete("default", &DeleteParams::default()).await.unwrap();
    cluster.settle().await;
    let again = accounts.get("default").await.unwrap();
    assert_ne!(again.metadata.uid, first.metadata.uid);
}
