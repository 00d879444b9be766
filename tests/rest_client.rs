//! The fake apiserver through a real `kube::Client` in-process (no socket), and through raw
//! requests for the error paths a client library would refuse to produce.

mod support;

use axum::body::Body;
use http::Method;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::core::PartialObjectMeta;
use kubegc::apiserver::ApiServer;
use serde_json::json;
use support::*;

// Every test but those that need the fake's own switches runs on both servers.
on_both_servers!(
    crud_through_kube_client,
    pagination_returns_every_item_once,
    label_and_field_selectors,
    status_subresource_is_separate_from_the_main_resource,
    namespace_lifecycle_through_kube_client,
    malformed_json_is_bad_request_and_changes_nothing,
    unknown_resources_and_paths_are_not_found,
    wrong_method_is_method_not_allowed,
    unsupported_media_types_are_refused,
    oversized_bodies_are_refused,
    invalid_names_and_fields_are_unprocessable,
    body_kind_and_namespace_must_match_the_url,
    table_representation_for_kubectl_get,
    version_is_served_with_and_without_a_trailing_slash,
);

fn cm(name: &str, labels: &[(&str, &str)]) -> ConfigMap {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": labels.iter().cloned().collect::<std::collections::BTreeMap<_, _>>()},
        "data": {"k": "v"},
    }))
    .unwrap()
}

async fn crud_through_kube_client(server: Server) {
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = api.create(&PostParams::default(), &cm("a", &[])).await.unwrap();
    let uid = created.metadata.uid.clone().unwrap();
    assert!(created.metadata.creation_timestamp.is_some());

    let got = api.get("a").await.unwrap();
    assert_eq!(got.metadata.uid.as_deref(), Some(uid.as_str()));

    let mut changed = got.clone();
    changed.data = Some([("k".to_string(), "w".to_string())].into());
    let replaced = api.replace("a", &PostParams::default(), &changed).await.unwrap();
    assert_ne!(replaced.metadata.resource_version, got.metadata.resource_version);

    // A write with the old resourceVersion conflicts.
    let err = api.replace("a", &PostParams::default(), &changed).await.unwrap_err();
    assert!(matches!(err, kube::Error::Api(ref s) if s.code == 409 && s.reason == "Conflict"), "{err:?}");

    let merged = api.patch("a", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"labels": {"x": "y"}}}))).await.unwrap();
    assert_eq!(merged.metadata.labels.unwrap()["x"], "y");
    let strategic =
        api.patch("a", &PatchParams::default(), &Patch::Strategic(json!({"metadata": {"finalizers": ["example.com/a"]}}))).await.unwrap();
    assert_eq!(strategic.metadata.finalizers.unwrap(), ["example.com/a"]);
    let json_patch: json_patch::Patch = serde_json::from_value(json!([{"op": "remove", "path": "/metadata/finalizers"}])).unwrap();
    let patched = api.patch("a", &PatchParams::default(), &Patch::<()>::Json(json_patch)).await.unwrap();
    assert!(patched.metadata.finalizers.is_none());

    let deleted = api.delete("a", &DeleteParams::default()).await.unwrap();
    assert!(deleted.is_right(), "a ConfigMap delete answers with a Status");
    assert!(matches!(api.get("a").await.unwrap_err(), kube::Error::Api(s) if s.code == 404));
}

async fn pagination_returns_every_item_once(server: Server) {
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for i in 0..7 {
        api.create(&PostParams::default(), &cm(&format!("cm-{i}"), &[("set", "page")])).await.unwrap();
    }
    let mut names = Vec::new();
    let mut params = ListParams::default().labels("set=page").limit(3);
    let mut pages = 0;
    loop {
        let page = api.list(&params).await.unwrap();
        pages += 1;
        if pages == 1 {
            // With a selector the storage cannot count what is left without reading it.
            assert_eq!(page.metadata.remaining_item_count, None);
        }
        names.extend(page.items.into_iter().map(|c| c.metadata.name.unwrap()));
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => params = params.continue_token(&token),
            _ => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names, (0..7).map(|i| format!("cm-{i}")).collect::<Vec<_>>());

    // Without one it counts (every namespace on a cluster also holds kube-root-ca.crt).
    let all = api.list(&ListParams::default()).await.unwrap().items.len() as i64;
    let first = api.list(&ListParams::default().limit(3)).await.unwrap();
    assert_eq!(first.metadata.remaining_item_count, Some(all - 3));
}

async fn label_and_field_selectors(server: Server) {
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &cm("web", &[("tier", "front")])).await.unwrap();
    api.create(&PostParams::default(), &cm("db", &[("tier", "back")])).await.unwrap();
    let front = api.list(&ListParams::default().labels("tier in (front),!legacy")).await.unwrap();
    assert_eq!(front.items.len(), 1);
    let by_name = api.list(&ListParams::default().fields("metadata.name=db")).await.unwrap();
    assert_eq!(by_name.items[0].metadata.name.as_deref(), Some("db"));
    let err = api.list(&ListParams::default().fields("spec.nodeName=x")).await.unwrap_err();
    let only = "\"spec.nodeName\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"";
    assert!(matches!(err, kube::Error::Api(ref s) if s.code == 400 && s.message == only), "{err:?}");
}

#[tokio::test]
async fn metadata_only_get_list_and_watch() {
    use futures::{StreamExt, TryStreamExt};
    let server = ApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &cm("m", &[])).await.unwrap();
    let meta: PartialObjectMeta<ConfigMap> = api.get_metadata("m").await.unwrap();
    assert_eq!(meta.metadata.name.as_deref(), Some("m"));
    let list = api.list_metadata(&ListParams::default()).await.unwrap();
    assert_eq!(list.items.len(), 1);
    let rv = list.metadata.resource_version.unwrap();
    let mut stream = api.watch_metadata(&kube::api::WatchParams::default().timeout(5), &rv).await.unwrap().boxed();
    api.delete("m", &DeleteParams::default()).await.unwrap();
    let event = stream.try_next().await.unwrap().unwrap();
    assert!(matches!(event, kube::api::WatchEvent::Deleted(ref o) if o.metadata.name.as_deref() == Some("m")), "{event:?}");
}

async fn status_subresource_is_separate_from_the_main_resource(server: Server) {
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    let pod: Pod =
        serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}})).unwrap();
    let created = pods.create(&PostParams::default(), &pod).await.unwrap();
    assert_eq!(created.status.as_ref().unwrap().phase.as_deref(), Some("Pending"));
    let status = pods.patch_status("p", &PatchParams::default(), &Patch::Merge(json!({"status": {"phase": "Running"}}))).await.unwrap();
    assert_eq!(status.status.unwrap().phase.as_deref(), Some("Running"));
    let main = pods.patch("p", &PatchParams::default(), &Patch::Merge(json!({"status": {"phase": "Failed"}}))).await.unwrap();
    assert_eq!(main.status.unwrap().phase.as_deref(), Some("Running"), "the main resource ignores status");
}

async fn namespace_lifecycle_through_kube_client(server: Server) {
    let client = server.client();
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let missing: Api<ConfigMap> = Api::namespaced(client.clone(), "nowhere");
    let err = missing.create(&PostParams::default(), &cm("x", &[])).await.unwrap_err();
    assert!(matches!(err, kube::Error::Api(s) if s.code == 404 && s.message == "namespaces \"nowhere\" not found"));

    namespaces.create(&PostParams::default(), &serde_json::from_value(json!({"metadata": {"name": "t"}})).unwrap()).await.unwrap();
    let inside: Api<ConfigMap> = Api::namespaced(client.clone(), "t");
    inside.create(&PostParams::default(), &cm("plain", &[])).await.unwrap();
    let mut held = cm("held", &[]);
    held.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    inside.create(&PostParams::default(), &held).await.unwrap();

    namespaces.delete("t", &DeleteParams::default()).await.unwrap();
    let ns = namespaces.get("t").await.unwrap();
    assert_eq!(ns.status.unwrap().phase.as_deref(), Some("Terminating"));
    let err = inside.create(&PostParams::default(), &cm("late", &[])).await.unwrap_err();
    assert!(matches!(err, kube::Error::Api(ref s) if s.code == 403 && s.reason == "Forbidden"), "{err:?}");

    // The namespace controller (simulated on the fake) deletes what the namespace holds.
    until(|| async { inside.get_opt("plain").await.unwrap().is_none() }).await;
    assert!(inside.get("held").await.unwrap().metadata.deletion_timestamp.is_some());
    assert!(namespaces.get("t").await.is_ok(), "the namespace waits for its last object");

    inside.patch("held", &PatchParams::default(), &Patch::Merge(json!({"metadata": {"finalizers": null}}))).await.unwrap();
    until(|| async { namespaces.get_opt("t").await.unwrap().is_none() }).await;
}

/// Polls `done` until it holds (at most a minute: the upstream namespace controller backs off
/// while a finalizer holds an object).
async fn until<F: Future<Output = bool>>(done: impl Fn() -> F) {
    let start = std::time::Instant::now();
    while !done().await {
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "still not done after a minute");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

// ---------- errors, as raw requests ----------

async fn malformed_json_is_bad_request_and_changes_nothing(server: Server) {
    create_cm(&server, "x", &[]).await;
    let r = raw(&server, Method::POST, &cm_path(""), Some("application/json"), "{not json").await;
    assert_eq!((r.code, r.body["reason"].as_str()), (400, Some("BadRequest")));
    let r = raw(&server, Method::PUT, &cm_path("x"), Some("application/json"), "[1,2]").await;
    assert_eq!(r.code, 400);
    let r = raw(&server, Method::PATCH, &cm_path("x"), Some("application/merge-patch+json"), "{\"data\": ").await;
    assert_eq!(r.code, 400);
    assert_eq!(get(&server, &cm_path("x")).await.body["data"]["k"], "v");
}

async fn unknown_resources_and_paths_are_not_found(server: Server) {
    // Under /api and a served group, a Status; elsewhere the mux's plain "404 page not found".
    for path in ["/api/v1/namespaces/default/widgets", "/apis/apps/v9/deployments", "/api/v2/pods"] {
        let r = get(&server, path).await;
        assert_eq!((r.code, r.body["kind"].as_str(), r.body["details"].clone()), (404, Some("Status"), json!({})), "{path}");
    }
    for path in ["/apis/nope.io/v1/things", "/apis/nope.io", "/nothing"] {
        let r = get(&server, path).await;
        assert_eq!((r.code, &r.body), (404, &serde_json::Value::Null), "{path}: not JSON");
    }
}

/// The Python client's `VersionApi().get_code()` asks for `/version/`.
async fn version_is_served_with_and_without_a_trailing_slash(server: Server) {
    for path in ["/version", "/version/"] {
        let r = get(&server, path).await;
        assert_eq!(r.code, 200, "{path}: {:?}", r.body);
        // What kube-apiserver of the pinned release, built with its version, says of itself
        // (the fake says the same, but for the build it describes: Go's version and compiler).
        let said = |field: &str| r.body[field].as_str().unwrap_or("").to_string();
        let fields = ["major", "minor", "emulationMajor", "emulationMinor", "minCompatibilityMajor", "minCompatibilityMinor"];
        assert_eq!(fields.map(said), ["1", "37", "1", "37", "1", "36"], "{path}: {:?}", r.body);
        assert_eq!((said("gitVersion"), said("gitTreeState")), ("v1.37.2".to_string(), "clean".to_string()), "{path}");
        assert_eq!(said("buildDate"), "1970-01-01T00:00:00Z", "{path}");
    }
}

async fn wrong_method_is_method_not_allowed(server: Server) {
    let r = raw(&server, Method::PUT, &cm_path(""), Some("application/json"), "{}").await;
    assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")));
    let r = raw(&server, Method::POST, &cm_path("x"), Some("application/json"), "{}").await;
    assert_eq!(r.code, 405);
}

async fn unsupported_media_types_are_refused(server: Server) {
    create_cm(&server, "x", &[]).await;
    let r = raw(&server, Method::POST, &cm_path(""), Some("text/plain"), "hello").await;
    assert_eq!((r.code, r.body["reason"].as_str()), (415, Some("UnsupportedMediaType")));
    let r = raw(&server, Method::PATCH, &cm_path("x"), Some("application/json"), "{}").await;
    assert_eq!(r.code, 415, "PATCH needs a patch media type");
    let r = raw(&server, Method::GET, &cm_path("x"), None, Body::empty()).await;
    assert_eq!(r.code, 200);
}

async fn oversized_bodies_are_refused(server: Server) {
    let big = "x".repeat(3 * 1024 * 1024 + 1);
    let body = json!({"metadata": {"name": "big"}, "data": {"k": big}}).to_string();
    let r = raw(&server, Method::POST, &cm_path(""), Some("application/json"), body).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (413, Some("RequestEntityTooLarge")));
    assert_eq!(get(&server, &cm_path("big")).await.code, 404);
}

async fn invalid_names_and_fields_are_unprocessable(server: Server) {
    let r = post(&server, &cm_path(""), json!({"metadata": {"name": "Not_Valid"}})).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (422, Some("Invalid")));
    assert_eq!(r.body["details"]["causes"][0]["field"], "metadata.name");
    let r = post(&server, &cm_path(""), json!({"metadata": {}})).await;
    assert_eq!(r.code, 422);
    assert!(r.body["message"].as_str().unwrap().contains("name or generateName is required"));
    let r = post(&server, &cm_path(""), json!({"metadata": {"name": "x", "labels": {"bad key!": "v"}}})).await;
    assert_eq!(r.code, 422);
    let r = post(&server, "/api/v1/namespaces/default/pods", json!({"metadata": {"name": "p"}, "spec": {}})).await;
    assert_eq!(r.code, 422, "a pod needs containers");
}

async fn body_kind_and_namespace_must_match_the_url(server: Server) {
    let r = post(&server, &cm_path(""), json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}})).await;
    assert_eq!(r.code, 400);
    let r = post(&server, &cm_path(""), json!({"metadata": {"name": "x", "namespace": "other"}})).await;
    assert_eq!(r.code, 400);
    let r = post(&server, &cm_path(""), json!({"metadata": {"generateName": "gen-"}})).await;
    assert_eq!(r.code, 201);
    assert!(r.body["metadata"]["name"].as_str().unwrap().starts_with("gen-"));
}

async fn table_representation_for_kubectl_get(server: Server) {
    create_cm(&server, "t", &[]).await;
    let req = http::Request::get(cm_path(""))
        .header("accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
        .body(Body::empty())
        .unwrap();
    let body = server.send(req).await.body;
    assert_eq!(body["kind"], "Table");
    assert_eq!(body["columnDefinitions"][0]["name"], "Name");
    // Every namespace on a cluster also holds kube-root-ca.crt.
    let row = body["rows"].as_array().unwrap().iter().find(|r| r["cells"][0] == "t").expect("a row for t");
    assert_eq!(row["object"]["kind"], "PartialObjectMetadata");
}
