//! Requests the API server fuzzer (`kubegc fuzz`) found answered unlike upstream, each named
//! with the seed that found it; every one is checked against the real API server too.

mod support;

use axum::body::Body;
use http::Method;
use serde_json::json;
use support::*;

on_both_servers!(
    across_namespaces_only_list_and_watch_are_served,
    unroutable_paths_under_served_groups_are_a_not_found_status,
    a_path_with_a_doubled_leading_slash_is_the_mux_plain_not_found,
    discovery_paths_refuse_other_methods_and_the_mux_serves_any,
);

/// Seed 7: `DELETE /api/v1/configmaps` removed every ConfigMap of every namespace.
async fn across_namespaces_only_list_and_watch_are_served(server: Server) {
    create_cm(&server, "kept", &[]).await;
    let r = delete(&server, "/api/v1/configmaps", json!({"kind": "DeleteOptions", "apiVersion": "v1"})).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{}", r.body);
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": server.namespace()}});
    let r = post(&server, "/api/v1/configmaps", body).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{}", r.body);
    assert_eq!(get(&server, &cm_path("kept")).await.code, 200);
    assert_eq!(get(&server, "/api/v1/configmaps").await.code, 200);
}

/// Seeds 4, 6 and 9: paths under a served group that name no resource got the mux's plain text.
async fn unroutable_paths_under_served_groups_are_a_not_found_status(server: Server) {
    for path in [
        "/apis/batch/v1//jobs",
        "/apis/apps/v1/namespaces/default/deployments/b/./ephemeralcontainers",
        "/apis/apps/v2/namespaces/default/deployments/c/status/binding",
    ] {
        let r = get(&server, path).await;
        assert_eq!((r.code, r.body["kind"].as_str(), r.body["reason"].as_str()), (404, Some("Status"), Some("NotFound")), "{path}");
    }
}

/// Found beside seed 1: `//api/v1/namespaces` was served as `/api/v1/namespaces`.
async fn a_path_with_a_doubled_leading_slash_is_the_mux_plain_not_found(server: Server) {
    let r = get(&server, "//api/v1/namespaces").await;
    assert_eq!((r.code, r.body.is_null()), (404, true), "{}", r.body);
}

/// Seeds 1, 2, 3 and 5: other methods on discovery, OpenAPI and health paths got an empty 405.
async fn discovery_paths_refuse_other_methods_and_the_mux_serves_any(server: Server) {
    for (method, path) in
        [(Method::POST, "/version"), (Method::DELETE, "/api"), (Method::PUT, "/api/v1"), (Method::DELETE, "/apis/apps/v1")]
    {
        let r = raw(&server, method.clone(), path, None, Body::empty()).await;
        assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{method} {path}");
    }
    for (method, path) in
        [(Method::POST, "/apis"), (Method::POST, "/apis/apps"), (Method::DELETE, "/openapi/v3"), (Method::POST, "/healthz")]
    {
        assert_eq!(raw(&server, method.clone(), path, None, Body::empty()).await.code, 200, "{method} {path}");
    }
}

/// Seed 9 (a Pod whose `spec` is an array), seed 243 (a Job whose `spec` is a number) and seed
/// 1494 (a Namespace whose `spec` is a number) made the server panic while it defaulted them. Upstream refuses them with 400 (they do not
/// decode), and so does the fake.
#[tokio::test]
async fn a_spec_of_the_wrong_type_does_not_panic_the_server() {
    let server = Server::fake();
    for (path, object) in [
        ("/api/v1/namespaces/default/pods", json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": ["x"]})),
        ("/apis/batch/v1/namespaces/default/jobs", json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": -1})),
        ("/api/v1/namespaces", json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}, "spec": 1e308})),
    ] {
        let r = post(&server, path, object).await;
        assert_eq!(r.code, 400, "{path}: {}", r.body);
    }
    let r = get(&server, "/api/v1/namespaces/default/configmaps").await;
    assert_eq!(r.code, 200, "the server still serves");
}
