//! The fake apiserver's speed, each figure beside a baseline measured in the same run so that
//! the ratio means something on a noisy machine. Run with `cargo bench --bench apiserver`, or
//! name sections to run only those: `cargo bench --bench apiserver -- requests list watch`.
//!
//! - `requests`: create, get and delete of ConfigMaps, 16 clients at once, in-process (the
//!   router as a tower service, no socket) and over TCP (HTTP/1.1 on loopback), beside a bare
//!   axum echo handler on the same transport; each verb's cost is the wall time per request.
//! - `list`: one list of 100,000 ConfigMaps in-process, beside serializing the same stored
//!   objects into a buffer (the least any list must do), and the most memory the list held at
//!   once beyond the store, beside the size of its body (a list that copies every object first
//!   holds several times its body).
//! - `watch`: 1,000 watchers of ConfigMaps while 1,000 are created; every watcher must receive
//!   every event (none dropped); the cost per event delivered, beside the cost per create with
//!   no watcher.
//!
//! Sizes can be lowered for a quick look: `KUBEGC_BENCH_SCALE=0.1`.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::routing::post;
use futures::StreamExt;
use http::{Request, Response};
use http_body_util::BodyExt;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kubegc::apiserver::{ApiServer, Config};
use support::{Counting, scale};
use tower::ServiceExt;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// How many clients send requests at once.
const CONCURRENCY: usize = 16;

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

/// Where requests go.
#[derive(Clone)]
enum Transport {
    InProcess(Router),
    Tcp(Client<HttpConnector, Body>, String),
}

impl Transport {
    async fn send(&self, req: Request<Body>) -> (u16, Bytes) {
        let resp = self.response(req).await;
        let status = resp.status().as_u16();
        (status, resp.into_body().collect().await.unwrap().to_bytes())
    }

    async fn response(&self, req: Request<Body>) -> Response<Body> {
        match self {
            Transport::InProcess(router) => router.clone().oneshot(req).await.unwrap(),
            Transport::Tcp(client, base) => {
                let (mut parts, body) = req.into_parts();
                parts.uri = format!("{base}{}", parts.uri).parse().unwrap();
                client.request(Request::from_parts(parts, body)).await.unwrap().map(Body::new)
            }
        }
    }
}

fn configmap_body(i: usize) -> String {
    format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"cm-{i}"}},"data":{{"k":"v"}}}}"#)
}

fn request(method: &str, uri: String, body: String) -> Request<Body> {
    Request::builder().method(method).uri(uri).header("content-type", "application/json").body(Body::from(body)).unwrap()
}

/// Runs `ops` requests made by `make`, [`CONCURRENCY`] at a time; returns the wall time per
/// request.
async fn measure(
    transport: &Transport,
    ops: usize,
    expect: u16,
    make: impl Fn(usize) -> Request<Body> + Send + Sync + 'static,
) -> Duration {
    let make = Arc::new(make);
    let start = Instant::now();
    let tasks: Vec<_> = (0..CONCURRENCY)
        .map(|worker| {
            let (transport, make) = (transport.clone(), make.clone());
            tokio::spawn(async move {
                for i in (worker..ops).step_by(CONCURRENCY) {
                    let (status, body) = transport.send(make(i)).await;
                    assert_eq!(status, expect, "{}", String::from_utf8_lossy(&body));
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    start.elapsed() / ops as u32
}

fn micros(d: Duration) -> String {
    format!("{:.2} µs", d.as_secs_f64() * 1e6)
}

async fn requests_on(name: &str, api: Transport, echo: Transport) {
    let ops = scale(20_000);
    let echo = measure(&echo, ops, 200, |i| request("POST", "/echo".into(), configmap_body(i))).await;
    let create = measure(&api, ops, 201, |i| request("POST", CONFIGMAPS.into(), configmap_body(i))).await;
    let get = measure(&api, ops, 200, |i| request("GET", format!("{CONFIGMAPS}/cm-{i}"), String::new())).await;
    let delete = measure(&api, ops, 200, |i| request("DELETE", format!("{CONFIGMAPS}/cm-{i}"), String::new())).await;
    let ratio = |d: Duration| format!("{:.1}", d.as_secs_f64() / echo.as_secs_f64());
    println!("{name:<11} {:>12} {:>12} {:>12} {:>12}", micros(echo), micros(create), micros(get), micros(delete));
    println!("{:<11} {:>12} {:>12} {:>12} {:>12}", "  × echo", "1.0", ratio(create), ratio(get), ratio(delete));
}

fn echo_router() -> Router {
    Router::new().route("/echo", post(|body: Bytes| async move { body }))
}

async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}")
}

fn server() -> ApiServer {
    ApiServer::with_config(Config { bookmark_interval: Duration::from_secs(60), ..Config::default() })
}

/// Create, get and delete, in-process and over TCP.
async fn requests() {
    println!("requests: {} per column, {CONCURRENCY} clients at once; wall time per request", scale(20_000));
    println!("{:<11} {:>12} {:>12} {:>12} {:>12}", "transport", "echo", "create", "get", "delete");
    requests_on("in-process", Transport::InProcess(server().router()), Transport::InProcess(echo_router())).await;
    let client: Client<HttpConnector, Body> = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(CONCURRENCY).build_http();
    let api = Transport::Tcp(client.clone(), serve(server().router()).await);
    let echo = Transport::Tcp(client, serve(echo_router()).await);
    requests_on("tcp", api, echo).await;
}

/// `n` ConfigMaps, created through the router.
async fn populated(n: usize) -> (ApiServer, Transport) {
    let server = server();
    let api = Transport::InProcess(server.router());
    measure(&api, n, 201, |i| request("POST", CONFIGMAPS.into(), configmap_body(i))).await;
    (server, api)
}

/// What every listed ConfigMap's name starts with.
const NAME: &[u8] = b"\"name\":\"cm-";

/// One list of 100,000 objects: its time and memory beside encoding the stored objects.
async fn list() {
    let n = scale(100_000);
    let (server, api) = populated(n).await;
    let start = Instant::now();
    let mut encoded = Vec::new();
    for (_, object) in server.lock().store.list("", "configmaps", Some("default"), None) {
        serde_json::to_writer(&mut encoded, &**object).unwrap();
    }
    let baseline = start.elapsed();
    drop(encoded);

    let before = support::reset_peak();
    let start = Instant::now();
    let response = api.response(request("GET", CONFIGMAPS.into(), String::new())).await;
    let mut body = response.into_body().into_data_stream();
    let (mut bytes, mut items, mut carry) = (0, 0, Vec::new());
    while let Some(chunk) = body.next().await {
        let chunk = chunk.unwrap();
        bytes += chunk.len();
        // A name may straddle two chunks: look at the end of the last one too.
        carry.extend_from_slice(&chunk[..chunk.len().min(NAME.len())]);
        items += carry.windows(NAME.len()).filter(|w| *w == NAME).count() + chunk.windows(NAME.len()).filter(|w| *w == NAME).count();
        carry = chunk[chunk.len().saturating_sub(NAME.len() - 1)..].to_vec();
    }
    let elapsed = start.elapsed();
    let held = support::peak().saturating_sub(before);
    assert!(items >= n, "the list has every object: {items} of {n} names seen");
    println!(
        "list: {n} objects, {:.1} MiB, in {:.1} ms ({:.1} × encoding them alone); held at most {:.1} MiB ({:.2} × its body)",
        bytes as f64 / 1048576.0,
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_secs_f64() / baseline.as_secs_f64(),
        held as f64 / 1048576.0,
        held as f64 / bytes as f64
    );
}

/// 1,000 watchers while 1,000 objects are created: every event reaches every watcher.
async fn watch() {
    let (watchers, writes) = (scale(1_000), scale(1_000));
    let delete = |i| request("DELETE", format!("{CONFIGMAPS}/cm-{i}"), String::new());
    let (server, api) = populated(writes).await;
    let quiet = measure(&api, writes, 200, delete).await;
    measure(&api, writes, 201, |i| request("POST", CONFIGMAPS.into(), configmap_body(i))).await;
    let revision = server.revision();
    let mut streams = Vec::with_capacity(watchers);
    for _ in 0..watchers {
        let uri = format!("{CONFIGMAPS}?watch=true&resourceVersion={revision}");
        let response = api.response(request("GET", uri, String::new())).await;
        assert_eq!(response.status(), 200);
        streams.push(response.into_body().into_data_stream());
    }
    let start = Instant::now();
    let readers: Vec<_> = streams
        .into_iter()
        .map(|mut stream| {
            tokio::spawn(async move {
                let mut lines = 0;
                while lines < writes {
                    let chunk = stream.next().await.expect("the watch stays open").unwrap();
                    assert!(!chunk.windows(7).any(|w| w == b"\"ERROR\""), "a watcher fell behind: {}", String::from_utf8_lossy(&chunk));
                    lines += chunk.iter().filter(|b| **b == b'\n').count();
                }
                lines
            })
        })
        .collect();
    measure(&api, writes, 200, delete).await;
    let mut delivered = 0;
    for r in readers {
        delivered += r.await.unwrap();
    }
    let elapsed = start.elapsed();
    assert_eq!(delivered, watchers * writes, "every watcher got every event");
    let per_event = elapsed / delivered as u32;
    println!(
        "watch: {watchers} watchers × {writes} deletions, all delivered in {:.1} ms: {} per event delivered ({:.2} × a deletion with no watcher, {})",
        elapsed.as_secs_f64() * 1e3,
        micros(per_event),
        per_event.as_secs_f64() / quiet.as_secs_f64(),
        micros(quiet)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` asks for a list; there is nothing to run as a test.
    }
    let wanted = |section: &str| args.is_empty() || args.iter().any(|a| a == section);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        if wanted("requests") {
            requests().await;
        }
        if wanted("list") {
            list().await;
        }
        if wanted("watch") {
            watch().await;
        }
    });
}
