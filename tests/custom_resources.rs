//! CustomResourceDefinitions add served resources at run time, and take their objects with them
//! when they go.

mod support;

use kube::api::{Api, ApiResource, DynamicObject, PostParams};
use kube::discovery::Discovery;
use kubegc::apiserver::ApiServer;
use serde_json::{Value, json};
use support::*;

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

fn crd(plural: &str, kind: &str, scope: &str) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.example.com")},
        "spec": {"group": "example.com", "scope": scope,
            "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind, "shortNames": [&plural[..2]]},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    })
}

fn resource(kind: &str, plural: &str) -> ApiResource {
    ApiResource {
        group: "example.com".into(),
        version: "v1".into(),
        api_version: "example.com/v1".into(),
        kind: kind.into(),
        plural: plural.into(),
    }
}

#[tokio::test]
async fn crd_serves_a_resource_and_its_deletion_removes_the_objects() {
    let server = ApiServer::new();
    let r = post(&server, CRDS, crd("widgets", "Widget", "Namespaced")).await;
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(r.body["status"]["conditions"][1]["type"], "Established");

    let discovery = Discovery::new(server.client()).run().await.unwrap();
    let (found, _) = discovery.resolve_gvk(&kube::api::GroupVersionKind::gvk("example.com", "v1", "Widget")).expect("discovered");
    assert_eq!(found.plural, "widgets");

    let ar = resource("Widget", "widgets");
    let widgets: Api<DynamicObject> = Api::namespaced_with(server.client(), "default", &ar);
    let w: DynamicObject =
        serde_json::from_value(json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 3}}))
            .unwrap();
    widgets.create(&PostParams::default(), &w).await.unwrap();
    let mut held = w.clone();
    held.metadata.name = Some("w2".into());
    held.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    widgets.create(&PostParams::default(), &held).await.unwrap();

    let r = delete(&server, &format!("{CRDS}/widgets.example.com"), Value::Null).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["customresourcecleanup.apiextensions.k8s.io"]);
    server.run_controllers();
    assert!(matches!(widgets.get("w1").await.unwrap_err(), kube::Error::Api(s) if s.code == 404));
    assert!(widgets.get("w2").await.unwrap().metadata.deletion_timestamp.is_some(), "held by its finalizer");
    assert_eq!(get(&server, &format!("{CRDS}/widgets.example.com")).await.code, 200, "the CRD waits for its objects");

    let r = patch(
        &server,
        "/apis/example.com/v1/namespaces/default/widgets/w2",
        "application/merge-patch+json",
        json!({"metadata": {"finalizers": null}}),
    )
    .await;
    assert_eq!(r.code, 200);
    server.run_controllers();
    assert_eq!(get(&server, &format!("{CRDS}/widgets.example.com")).await.code, 404);
    assert_eq!(get(&server, "/apis/example.com/v1/namespaces/default/widgets").await.code, 404, "no longer served");
}

#[tokio::test]
async fn cluster_scoped_custom_resources() {
    let server = ApiServer::new();
    assert_eq!(post(&server, CRDS, crd("clusterthings", "ClusterThing", "Cluster")).await.code, 201);
    let r = post(
        &server,
        "/apis/example.com/v1/clusterthings",
        json!({"apiVersion": "example.com/v1", "kind": "ClusterThing", "metadata": {"name": "t"}}),
    )
    .await;
    assert_eq!(r.code, 201, "{}", r.body);
    assert!(r.body["metadata"]["namespace"].is_null());
    let r = delete(&server, "/apis/example.com/v1/clusterthings/t", Value::Null).await;
    assert_eq!((r.code, r.body["kind"].as_str()), (200, Some("ClusterThing")), "custom resources return the deleted object");
}

#[tokio::test]
async fn custom_resources_refuse_strategic_merge_patch() {
    let server = ApiServer::new();
    assert_eq!(post(&server, CRDS, crd("gadgets", "Gadget", "Namespaced")).await.code, 201);
    let path = "/apis/example.com/v1/namespaces/default/gadgets";
    assert_eq!(post(&server, path, json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}})).await.code, 201);
    let r =
        patch(&server, &format!("{path}/g"), "application/strategic-merge-patch+json", json!({"metadata": {"labels": {"a": "b"}}})).await;
    assert_eq!(r.code, 415);
    let r = patch(&server, &format!("{path}/g"), "application/merge-patch+json", json!({"metadata": {"labels": {"a": "b"}}})).await;
    assert_eq!(r.code, 200);
}

#[tokio::test]
async fn invalid_crds_are_refused() {
    let server = ApiServer::new();
    let mut bad = crd("things", "Thing", "Namespaced");
    bad["metadata"]["name"] = json!("wrong.example.com");
    let r = post(&server, CRDS, bad).await;
    assert_eq!(r.code, 422);
    let mut no_storage = crd("things", "Thing", "Namespaced");
    no_storage["spec"]["versions"][0]["storage"] = json!(false);
    assert_eq!(post(&server, CRDS, no_storage).await.code, 422);
    assert_eq!(get(&server, "/apis/example.com/v1/namespaces/default/things").await.code, 404);
}
