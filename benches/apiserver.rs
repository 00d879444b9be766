//! Throughput of the fake apiserver: create, get and delete of ConfigMaps, in-process (the
//! router as a tower service, no socket) and over TCP (HTTP/1.1 on loopback), each beside a
//! bare axum echo handler measured in the same run on the same transport, so the ratio shows
//! what the apiserver's own work costs. Run with `cargo bench --bench apiserver`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::routing::post;
use http::{Request, Response};
use http_body_util::BodyExt;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kubegc::apiserver::{ApiServer, Config};
use tower::ServiceExt;

/// How many requests each measurement makes, and how many run at once.
const OPS: usize = 20_000;
const CONCURRENCY: usize = 16;

/// Where requests go.
#[derive(Clone)]
enum Transport {
    InProcess(Router),
    Tcp(Client<HttpConnector, Body>, String),
}

impl Transport {
    async fn send(&self, req: Request<Body>) -> (u16, Bytes) {
        let resp: Response<Body> = match self {
            Transport::InProcess(router) => router.clone().oneshot(req).await.unwrap(),
            Transport::Tcp(client, base) => {
                let (mut parts, body) = req.into_parts();
                parts.uri = format!("{base}{}", parts.uri).parse().unwrap();
                let resp = client.request(Request::from_parts(parts, body)).await.unwrap();
                resp.map(Body::new)
            }
        };
        let status = resp.status().as_u16();
        (status, resp.into_body().collect().await.unwrap().to_bytes())
    }
}

fn configmap_body(i: usize) -> String {
    format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"cm-{i}"}},"data":{{"k":"v"}}}}"#)
}

fn request(method: &str, uri: String, body: String) -> Request<Body> {
    Request::builder().method(method).uri(uri).header("content-type", "application/json").body(Body::from(body)).unwrap()
}

/// Runs `OPS` requests made by `make`, `CONCURRENCY` at a time; returns requests per second.
async fn measure(transport: &Transport, expect: u16, make: impl Fn(usize) -> Request<Body> + Send + Sync + 'static) -> f64 {
    let make = Arc::new(make);
    let start = Instant::now();
    let tasks: Vec<_> = (0..CONCURRENCY)
        .map(|worker| {
            let (transport, make) = (transport.clone(), make.clone());
            tokio::spawn(async move {
                for i in (worker..OPS).step_by(CONCURRENCY) {
                    let (status, body) = transport.send(make(i)).await;
                    assert_eq!(status, expect, "{}", String::from_utf8_lossy(&body));
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    OPS as f64 / start.elapsed().as_secs_f64()
}

async fn run(name: &str, api: Transport, echo: Transport) {
    let path = "/api/v1/namespaces/default/configmaps";
    let echo_rate = measure(&echo, 200, |i| request("POST", "/echo".into(), configmap_body(i))).await;
    let create = measure(&api, 201, move |i| request("POST", path.into(), configmap_body(i))).await;
    let get = measure(&api, 200, move |i| request("GET", format!("{path}/cm-{i}"), String::new())).await;
    let delete = measure(&api, 200, move |i| request("DELETE", format!("{path}/cm-{i}"), String::new())).await;
    println!("{name:<11} {:>12.0} {:>12.0} {:>12.0} {:>12.0}", echo_rate, create, get, delete);
    println!("{:<11} {:>12} {:>12.2} {:>12.2} {:>12.2}", "  / echo", "1.00", create / echo_rate, get / echo_rate, delete / echo_rate);
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

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` asks for a list; there is nothing to run as a test.
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        println!("{OPS} requests per column, {CONCURRENCY} concurrent; requests per second");
        println!("{:<11} {:>12} {:>12} {:>12} {:>12}", "transport", "echo", "create", "get", "delete");
        let config = || Config { bookmark_interval: Duration::from_secs(60), ..Config::default() };

        let server = ApiServer::with_config(config());
        run("in-process", Transport::InProcess(server.router()), Transport::InProcess(echo_router())).await;

        let server = ApiServer::with_config(config());
        let client: Client<HttpConnector, Body> = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(CONCURRENCY).build_http();
        let api = Transport::Tcp(client.clone(), serve(server.router()).await);
        let echo = Transport::Tcp(client, serve(echo_router()).await);
        run("tcp", api, echo).await;
    });
}
