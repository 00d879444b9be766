//! Helpers shared by the integration tests: an in-process server or the upstream control plane,
//! raw HTTP requests to either, and object builders.

#![allow(dead_code)]

use axum::body::Body;
use http::{Method, Request};
use http_body_util::BodyExt;
use kubegc::apiserver::ApiServer;
use kubegc::apiserver::protobuf;
use kubegc_control_plane::control_plane::ALL_BUT_GARBAGE_COLLECTOR;
use kubegc_control_plane::shared;
use serde_json::{Value, json};
use tower::ServiceExt;

/// Defines, for each named `async fn(Server)`, one test on the fake API server (in `fake::`) and
/// one on the upstream control plane (in `upstream::`, see [`Server::upstream`]).
#[allow(unused_macros)]
macro_rules! on_both_servers {
    ($($name:ident),* $(,)?) => {
        mod fake {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::support::Server::fake()).await
            })*
        }
        mod upstream {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::support::Server::upstream().await).await
            })*
        }
    };
}
#[allow(unused_imports)]
pub(crate) use on_both_servers;

/// Where a test's requests go: paths name the namespace `default`, which is the fake's, or the
/// test's own namespace on the shared upstream control plane.
#[derive(Clone)]
pub enum Server {
    /// The in-process fake API server.
    Fake(ApiServer),
    /// The upstream control plane (every controller but the garbage collector, as the fake has
    /// none), through a client whose default namespace is the test's.
    Upstream { client: kube::Client, namespace: String },
}

impl Server {
    /// A fresh in-process fake API server.
    pub fn fake() -> Self {
        Self::Fake(with_default_account(ApiServer::new()))
    }

    /// A fresh namespace on this process's upstream control plane (started, and built, on first
    /// use), with a client whose default namespace it is.
    pub async fn upstream() -> Self {
        let kubeconfig = tokio::task::spawn_blocking(|| shared::kubeconfig(ALL_BUT_GARBAGE_COLLECTOR))
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("{e:#}"));
        let kubeconfig = kube::config::Kubeconfig::read_from(kubeconfig).unwrap();
        let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await.unwrap();
        let admin = kube::Client::try_from(config.clone()).unwrap();
        let namespace = shared::namespace(&admin, "rules").await.unwrap_or_else(|e| panic!("{e:#}"));
        config.default_namespace = namespace.clone();
        let client = kube::Client::try_from(config).unwrap();
        Self::Upstream { client, namespace }
    }

    /// A `kube::Client` whose default namespace is the one paths call `default`.
    pub fn client(&self) -> kube::Client {
        match self {
            Self::Fake(server) => server.client(),
            Self::Upstream { client, .. } => client.clone(),
        }
    }

    /// The namespace paths call `default`.
    pub fn namespace(&self) -> &str {
        match self {
            Self::Fake(_) => "default",
            Self::Upstream { namespace, .. } => namespace,
        }
    }

    /// The fake API server; panics on the upstream one (for fake-only tests).
    pub fn fake_server(&self) -> &ApiServer {
        match self {
            Self::Fake(server) => server,
            Self::Upstream { .. } => panic!("a fake-only test ran on the upstream control plane"),
        }
    }
}

/// Something requests can be sent to.
pub trait Target {
    /// Sends one request and returns the answer.
    fn send(&self, request: Request<Body>) -> impl Future<Output = Raw>;
}

impl Target for ApiServer {
    async fn send(&self, request: Request<Body>) -> Raw {
        let (parts, body) = self.router().oneshot(request).await.unwrap().into_parts();
        Raw::read(parts.status.as_u16(), &parts.headers, body.collect().await.unwrap().to_bytes().as_ref())
    }
}

impl Target for Server {
    async fn send(&self, request: Request<Body>) -> Raw {
        let (client, namespace) = match self {
            Self::Fake(server) => return server.send(request).await,
            Self::Upstream { client, namespace } => (client, namespace),
        };
        let (mut parts, body) = request.into_parts();
        let uri = parts.uri.to_string().replace("/namespaces/default/", &format!("/namespaces/{namespace}/"));
        parts.uri = uri.parse().unwrap();
        let bytes = body.collect().await.unwrap().to_bytes().to_vec();
        let resp = client.send(Request::from_parts(parts, kube::client::Body::from(bytes))).await.unwrap();
        let (code, headers) = (resp.status().as_u16(), resp.headers().clone());
        Raw::read(code, &headers, resp.into_body().collect().await.unwrap().to_bytes().as_ref())
    }
}

/// A raw response: status code, JSON body (or `Value::Null` when the body is not JSON; a
/// protobuf body is read with the protobuf decoder of request bodies, k8s-pb's types, and a
/// protobuf watch stream, or a JSON one of more than one line, as the array of its events) and the
/// text of each Warning header.
pub struct Raw {
    pub code: u16,
    pub body: Value,
    pub warnings: Vec<String>,
    /// The body as sent.
    pub bytes: Vec<u8>,
}

impl Raw {
    fn read(code: u16, headers: &http::HeaderMap, bytes: &[u8]) -> Self {
        let content_type = headers.get("content-type").and_then(|t| t.to_str().ok()).unwrap_or("");
        let body = if protobuf::is_protobuf(content_type) && content_type.contains("stream=watch") {
            protobuf::decode_watch(bytes).map_or(Value::Null, Value::Array)
        } else if protobuf::is_protobuf(content_type) {
            protobuf::decode(bytes).unwrap_or(Value::Null)
        } else {
            // A JSON watch stream of more than one event is the array of its lines.
            let lines = || {
                String::from_utf8_lossy(bytes)
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(serde_json::from_str)
                    .collect::<serde_json::Result<Vec<Value>>>()
                    .ok()
                    .filter(|events| events.len() > 1)
                    .map(Value::Array)
            };
            serde_json::from_slice(bytes).ok().or_else(lines).unwrap_or(Value::Null)
        };
        let warnings = headers
            .get_all("warning")
            .iter()
            .filter_map(|w| w.to_str().ok())
            .map(|w| w.strip_prefix("299 - ").map_or(w, |t| t.trim_matches('"')).to_string())
            .collect();
        Self { code, body, warnings, bytes: bytes.to_vec() }
    }
}

/// `server` with the `default` ServiceAccount of namespace `default`, which the service account
/// controller of the upstream side makes (the fake alone runs none) and every pod names unless
/// it names another.
pub fn with_default_account(server: ApiServer) -> ApiServer {
    {
        let mut storage = server.lock();
        let accounts = storage.scope("", "v1", "serviceaccounts", Some("default".into())).unwrap();
        storage.create(&accounts, json!({"metadata": {"name": "default"}}), Default::default()).unwrap();
    }
    server
}

/// Sends one request (to the fake: through its router, without a socket).
pub async fn raw(server: &impl Target, method: Method, uri: &str, content_type: Option<&str>, body: impl Into<Body>) -> Raw {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    server.send(req.body(body.into()).unwrap()).await
}

/// POST a JSON object.
pub async fn post(server: &impl Target, uri: &str, body: Value) -> Raw {
    raw(server, Method::POST, uri, Some("application/json"), body.to_string()).await
}

/// DELETE with a JSON `DeleteOptions` body (or none when `options` is null).
pub async fn delete(server: &impl Target, uri: &str, options: Value) -> Raw {
    let body = if options.is_null() { String::new() } else { options.to_string() };
    raw(server, Method::DELETE, uri, Some("application/json"), body).await
}

/// GET.
pub async fn get(server: &impl Target, uri: &str) -> Raw {
    raw(server, Method::GET, uri, None, Body::empty()).await
}

/// PUT a JSON object.
pub async fn put(server: &impl Target, uri: &str, body: Value) -> Raw {
    raw(server, Method::PUT, uri, Some("application/json"), body.to_string()).await
}

/// PATCH with a content type.
pub async fn patch(server: &impl Target, uri: &str, content_type: &str, body: Value) -> Raw {
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
pub async fn create_cm(server: &impl Target, name: &str, finalizers: &[&str]) -> Value {
    let r = post(server, &cm_path(""), configmap(name, finalizers)).await;
    assert_eq!(r.code, 201, "create {name}: {}", r.body);
    r.body
}

/// A string list at `v[key]`.
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect()).unwrap_or_default()
}
