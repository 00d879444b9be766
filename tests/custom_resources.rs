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
    // The create accepts no names; the apiserver's naming and establishing controllers do.
    assert_eq!(r.body["status"]["conditions"], Value::Null);
    assert_eq!(r.body["status"]["acceptedNames"], json!({"plural": "", "kind": ""}));
    server.run_controllers();
    let r = get(&server, &format!("{CRDS}/widgets.example.com")).await;
    assert_eq!(r.body["status"]["conditions"][1]["type"], "Established");
    assert_eq!(r.body["status"]["conditions"][1]["status"], "True");
    assert_eq!(r.body["status"]["acceptedNames"]["listKind"], "WidgetList");
    assert_eq!(r.body["metadata"]["managedFields"][0]["manager"], "kube-apiserver");

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
    assert_eq!(r.body["status"]["conditions"][2]["reason"], "InstanceDeletionPending");
    assert_eq!(r.body["metadata"]["generation"], 1, "the mark is not a change of spec");
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
    assert_eq!((r.code, r.body["kind"].as_str()), (200, Some("Status")), "a removed custom resource is answered with a Status");
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

/// `gadgets.example.com` served at v1 and v2, stored at `storage`, converting with `strategy`
/// (a webhook: a service that does not exist).
fn two_version_gadgets(storage: &str, strategy: &str) -> Value {
    let mut definition = crd("gadgets", "Gadget", "Namespaced");
    let v1 = definition["spec"]["versions"][0].clone();
    let version = |name: &str| json!({"name": name, "storage": name == storage, "served": true, "schema": v1["schema"]});
    definition["spec"]["versions"] = json!([version("v1"), version("v2")]);
    definition["spec"]["conversion"] = match strategy {
        "Webhook" => json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
            "clientConfig": {"service": {"namespace": "default", "name": "no-such-webhook", "path": "/convert"}}}}),
        _ => json!({"strategy": strategy}),
    };
    definition
}

const GADGETS_V1: &str = "/apis/example.com/v1/namespaces/default/gadgets";
const GADGETS_V2: &str = "/apis/example.com/v2/namespaces/default/gadgets";

fn gadget(version: &str, name: &str) -> Value {
    json!({"apiVersion": format!("example.com/{version}"), "kind": "Gadget", "metadata": {"name": name}})
}

/// Updates the gadgets' definition, asserting success (at the stored version: a definition's
/// update must name one).
async fn redefine_gadgets(server: &ApiServer, definition: Value) {
    let path = format!("{CRDS}/gadgets.example.com");
    let mut definition = definition;
    server.run_controllers();
    definition["metadata"]["resourceVersion"] = get(server, &path).await.body["metadata"]["resourceVersion"].clone();
    let r = put(server, &path, definition).await;
    assert_eq!(r.code, 200, "{}", r.body);
}

/// A server with Gadget "old" stored at v1, whose definition has since moved the storage
/// version to v2 through a conversion webhook that does not run.
async fn old_gadget_behind_a_webhook() -> ApiServer {
    let server = ApiServer::new();
    assert_eq!(post(&server, CRDS, two_version_gadgets("v1", "None")).await.code, 201);
    assert_eq!(post(&server, GADGETS_V1, gadget("v1", "old")).await.code, 201);
    redefine_gadgets(&server, two_version_gadgets("v2", "Webhook")).await;
    server
}

#[tokio::test]
async fn a_conversion_webhook_needs_review_versions_and_a_client_config() {
    let server = ApiServer::new();
    let mut definition = two_version_gadgets("v1", "Webhook");
    definition["spec"]["conversion"]["webhook"]["conversionReviewVersions"] = json!([]);
    let r = post(&server, CRDS, definition).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (422, Some("Invalid")), "{}", r.body);
    assert_eq!(r.body["details"]["causes"][0]["field"], "spec.conversion.webhook.conversionReviewVersions");

    let mut definition = two_version_gadgets("v1", "Webhook");
    definition["spec"]["conversion"]["webhook"]["clientConfig"] = json!({});
    assert_eq!(post(&server, CRDS, definition).await.code, 422);
    let mut definition = two_version_gadgets("v1", "Webhook");
    definition["spec"]["conversion"]["webhook"]["clientConfig"]["url"] = json!("https://hook.example.com/convert");
    assert_eq!(post(&server, CRDS, definition).await.code, 422, "a url and a service");
    assert_eq!(post(&server, CRDS, two_version_gadgets("v1", "Magic")).await.code, 422);

    let r = post(&server, CRDS, two_version_gadgets("v1", "None")).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let mut definition = two_version_gadgets("v2", "Webhook");
    definition["spec"]["conversion"]["webhook"] = json!({"conversionReviewVersions": ["v1"]});
    server.run_controllers();
    let path = format!("{CRDS}/gadgets.example.com");
    definition["metadata"]["resourceVersion"] = get(&server, &path).await.body["metadata"]["resourceVersion"].clone();
    let r = put(&server, &path, definition).await;
    assert_eq!(r.code, 422, "an update is validated too: {}", r.body);
    assert!(r.body["message"].as_str().unwrap_or("").contains("clientConfig"), "{}", r.body);
}

/// The fake API server calls no conversion webhook: once the storage version moves to v2
/// through a webhook, an object stored at v1 can be read only at v1, and a write at v1 fails,
/// each as kube-apiserver answers when the webhook's service does not exist (500, no reason).
/// Without the webhook again, every version reads every object.
#[tokio::test]
async fn a_conversion_webhook_that_cannot_be_called_fails_every_conversion() {
    let server = old_gadget_behind_a_webhook().await;

    let message = "conversion webhook for example.com/v1, Kind=Gadget failed: \
        Post \"https://no-such-webhook.default.svc:443/convert?timeout=30s\": service \"no-such-webhook\" not found";
    let r = get(&server, GADGETS_V2).await;
    assert_eq!(r.code, 500);
    assert_eq!(r.body, json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "code": 500}));
    assert_eq!(get(&server, &format!("{GADGETS_V2}/old")).await.code, 500);
    assert_eq!(get(&server, &format!("{GADGETS_V2}?as=PartialObjectMetadataList")).await.code, 500, "metadata too");
    let r = get(&server, &format!("{GADGETS_V1}/old")).await;
    assert_eq!((r.code, r.body["apiVersion"].as_str()), (200, Some("example.com/v1")), "no conversion, no webhook");

    let r = post(&server, GADGETS_V1, gadget("v1", "new")).await;
    assert_eq!(r.code, 500, "a write at v1 converts to the storage version: {}", r.body);
    assert!(r.body["message"].as_str().unwrap().starts_with("conversion webhook for example.com/v1, Kind=Gadget failed: "));
    assert_eq!(post(&server, GADGETS_V2, gadget("v2", "new")).await.code, 201);
    let r = get(&server, &format!("{GADGETS_V1}/new")).await;
    assert_eq!(r.code, 500);
    assert!(r.body["message"].as_str().unwrap().starts_with("conversion webhook for example.com/v2, Kind=Gadget failed: "));
    let r = patch(&server, &format!("{GADGETS_V2}/old"), "application/merge-patch+json", json!({"metadata": {"labels": {"a": "b"}}})).await;
    assert_eq!(r.code, 500);
    assert_eq!(delete(&server, &format!("{GADGETS_V2}/old"), Value::Null).await.code, 500);

    let mut by_url = two_version_gadgets("v2", "Webhook");
    by_url["spec"]["conversion"]["webhook"]["clientConfig"] = json!({"url": "https://hook.example.com/convert"});
    redefine_gadgets(&server, by_url).await;
    let r = get(&server, GADGETS_V2).await;
    assert_eq!(
        r.body["message"],
        "conversion webhook for example.com/v1, Kind=Gadget failed: \
         Post \"https://hook.example.com/convert?timeout=30s\": dial tcp: connect: connection refused"
    );

    redefine_gadgets(&server, two_version_gadgets("v2", "None")).await;
    for path in [GADGETS_V1, GADGETS_V2] {
        let r = get(&server, path).await;
        assert_eq!(r.code, 200, "{}", r.body);
        assert_eq!(r.body["items"].as_array().unwrap().len(), 2);
    }
}

/// A watch that meets an object it cannot convert sends an ERROR event with the `Status` and
/// ends; a watch ends too when the definition changes how its resource is served.
#[tokio::test]
async fn watches_end_at_a_failed_conversion_and_at_a_new_definition() {
    use std::time::Duration;

    use futures::TryStreamExt;
    use kube::api::{WatchEvent, WatchParams};

    let server = ApiServer::new();
    assert_eq!(post(&server, CRDS, two_version_gadgets("v1", "None")).await.code, 201);
    assert_eq!(post(&server, GADGETS_V1, gadget("v1", "old")).await.code, 201);
    let gadgets = |version: &str| {
        let mut r = resource("Gadget", "gadgets");
        r.version = version.into();
        r.api_version = format!("example.com/{version}");
        Api::<DynamicObject>::namespaced_with(server.client(), "default", &r)
    };
    let watch = async |version: &str, rv: &str| gadgets(version).watch(&WatchParams::default().disable_bookmarks(), rv).await.unwrap();
    let until_end = async |stream| -> Vec<WatchEvent<DynamicObject>> {
        tokio::time::timeout(Duration::from_secs(10), TryStreamExt::try_collect(stream)).await.expect("the watch ends").unwrap()
    };

    // A live watch at v2 ends, without an event, when the definition moves the storage version.
    let live = watch("v2", &server.revision().to_string()).await;
    redefine_gadgets(&server, two_version_gadgets("v2", "Webhook")).await;
    assert!(until_end(live).await.is_empty(), "ended without an event");

    // From the start: the v2 object is sent, then the v1 object cannot be: ERROR, and the end.
    assert_eq!(post(&server, GADGETS_V2, gadget("v2", "new")).await.code, 201);
    let events = until_end(watch("v2", "0").await).await;
    assert!(
        matches!(&events[..], [WatchEvent::Added(o), WatchEvent::Error(e)]
            if o.metadata.name.as_deref() == Some("new") && e.code == 500 && e.message.starts_with("conversion webhook for example.com/v1")),
        "{events:?}"
    );

    // Live: a v1 watch meets an object written at v2.
    let live = watch("v1", &server.revision().to_string()).await;
    assert_eq!(post(&server, GADGETS_V2, gadget("v2", "newer")).await.code, 201);
    let events = until_end(live).await;
    assert!(matches!(&events[..], [WatchEvent::Error(e)] if e.message.starts_with("conversion webhook for example.com/v2")), "{events:?}");
}

/// Deleting a definition whose objects cannot be converted to its storage version: the cleanup
/// cannot delete them (upstream's would hang too) and tries again later, without error, until
/// the conversion works again.
#[tokio::test]
async fn a_definition_whose_objects_cannot_be_converted_waits_to_be_deleted() {
    let server = old_gadget_behind_a_webhook().await;
    let path = format!("{CRDS}/gadgets.example.com");
    assert_eq!(delete(&server, &path, Value::Null).await.code, 200);
    for _ in 0..3 {
        server.run_controllers();
    }
    let r = get(&server, &path).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["customresourcecleanup.apiextensions.k8s.io"], "{}", r.body);
    assert_eq!(get(&server, &format!("{GADGETS_V1}/old")).await.code, 200, "still there");

    let mut definition = two_version_gadgets("v2", "None");
    definition["metadata"] = r.body["metadata"].clone();
    redefine_gadgets(&server, definition).await;
    server.run_controllers();
    server.run_controllers();
    assert_eq!(get(&server, &path).await.code, 404);
}
