//! Helpers shared by the integration tests: an in-process server, raw HTTP requests through
//! its router, and object builders.

#![allow(dead_code)]

use axum::body::Body;
use http::{Method, Request};
use http_body_util::BodyExt;
use kubegc::apiserver::ApiServer;
use serde_json::{Value, json};
use tower::ServiceExt;

/// A raw response: status code and JSON body (or `Value::Null` when the body is not JSON).
pub struct Raw {
    pub code: u16,
    pub body: Value,
}

/// Sends one request through the server's router, without a socket.
pub async fn raw(server: &ApiServer, method: Method, uri: &str, content_type: Option<&str>, body: impl Into<Body>) -> Raw {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    let resp = server.router().oneshot(req.body(body.into()).unwrap()).await.unwrap();
    let code = resp.status().as_u16();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    Raw { code, body: serde_json::from_slice(&bytes).unwrap_or(Value::Null) }
}

/// POST a JSON object.
pub async fn post(server: &ApiServer, uri: &str, body: Value) -> Raw {
    raw(server, Method::POST, uri, Some("application/json"), body.to_string()).await
}

/// DELETE with a JSON `DeleteOptions` body (or none when `options` is null).
pub async fn delete(server: &ApiServer, uri: &str, options: Value) -> Raw {
    let body = if options.is_null() { String::new() } else { options.to_string() };
    raw(server, Method::DELETE, uri, Some("application/json"), body).await
}

/// GET.
pub async fn get(server: &ApiServer, uri: &str) -> Raw {
    raw(server, Method::GET, uri, None, Body::empty()).await
}

/// PUT a JSON object.
pub async fn put(server: &ApiServer, uri: &str, body: Value) -> Raw {
    raw(server, Method::PUT, uri, Some("application/json"), body.to_string()).await
}

/// PATCH with a content type.
pub async fn patch(server: &ApiServer, uri: &str, content_type: &str, body: Value) -> Raw {
    raw(server, Method::PATCH, uri, Some(content_type), body.to_string()).await
}

/// A ConfigMap manifest with optional finalizers.
pub fn configmap(name: &str, finalizers: &[&str]) -> Value {
    let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}});
    if !finalizers.is_empty() {
        cm["metadata"]["finalizers"] = json!(finalizers);
    }
    cm
}

/// The path of a ConfigMap (or the collection when `name` is empty) in `default`.
pub fn cm_path(name: &str) -> String {
    if name.is_empty() { "/api/v1/namespaces/default/configmaps".into() } else { format!("/api/v1/namespaces/default/configmaps/{name}") }
}

/// Creates a ConfigMap in `default`, asserting success; returns the stored object.
pub async fn create_cm(server: &ApiServer, name: &str, finalizers: &[&str]) -> Value {
    let r = post(server, &cm_path(""), configmap(name, finalizers)).await;
    assert_eq!(r.code, 201, "create {name}: {}", r.body);
    r.body
}

/// A string list at `v[key]`.
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect()).unwrap_or_default()
}
