//! Garbage collector benchmarks (run with `cargo bench --bench gc`):
//!
//! 1. `memory`: graph memory per node with 1,000,000 objects in the graph (a counting allocator
//!    measures the bytes the graph builder holds), beside the bytes of the UID and name strings
//!    the objects' events carry;
//! 2. `startup`: building the graph from the initial list of 1,000,000 objects (the events the
//!    monitors send for it, through `GraphBuilder::process`): objects per second;
//! 3. `cascade`: background cascade of a 111,111-object tree (fan-out 10, depth 5) through the
//!    in-process fake apiserver: deletions per second, and the wall time as a ratio to a baseline
//!    measured in the same run (see [`api_baseline`]);
//! 4. `foreground`: foreground deletion of a 10,000-deep chain of blocking references: wall time,
//!    and its ratio to the same baseline for the chain;
//! 5. `upstream`: background cascade of a 1,111-object tree on the real API server, by the
//!    upstream collector and by the reference one at the same client rate limits: wall times and
//!    their ratio (see [`upstream`]).
//!
//! A rate or a time means little on a machine of another speed; the ratios are what to compare
//! between machines and runs.
//!
//! Arguments choose sections by name (`cargo bench --bench gc -- memory startup`); without any,
//! all run. Sizes can be lowered for a quick look: `KUBEGC_BENCH_SCALE=0.1 cargo bench --bench gc`.

mod support;
mod upstream;

use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};

use axum::body::Body;
use http::Request;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta as ListedMeta, OwnerReference};
use kube::api::{Api, ApiResource, DeleteParams, WatchEvent, WatchParams};
use kubegc::apiserver::{ApiServer, Config as ServerConfig};
use kubegc::gc::events::{EventType, GraphEvent};
use kubegc::gc::graph_builder::GraphBuilder;
use kubegc::gc::monitors::observed;
use kubegc::gc::operations::object_meta;
use kubegc::gc::rest_mapper::Mapping;
use kubegc::gc::{Config, GarbageCollector};
use serde_json::{Value, json};
use support::{Counting, scale};
use tower::ServiceExt;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The UID of object `i`: a random version 4 UUID as an API server assigns, the same every run.
fn uid(i: usize) -> String {
    let mix = |mut x: u64| {
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    };
    let bits = u128::from(mix(2 * i as u64 + 1)) << 64 | u128::from(mix(2 * i as u64 + 2));
    uuid::Builder::from_random_bytes(bits.to_be_bytes()).into_uuid().to_string()
}

/// Object `i` of the tree as a list returns it: a ConfigMap owned by `(i - 1) / 10`, but for the
/// first.
fn listed(i: usize) -> ListedMeta {
    let owner = |p: usize| OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: format!("cm-{p}"),
        uid: uid(p),
        controller: Some(true),
        block_owner_deletion: Some(true),
    };
    ListedMeta {
        name: Some(format!("cm-{i}")),
        namespace: Some("default".into()),
        uid: Some(uid(i)),
        resource_version: Some((i + 1).to_string()),
        owner_references: (i > 0).then(|| vec![owner((i - 1) / 10)]),
        ..ListedMeta::default()
    }
}

/// The events the ConfigMap monitor sends for an initial list of the tree of `n` objects.
fn initial_list(n: usize) -> impl Iterator<Item = GraphEvent> {
    let mapping = Mapping { resource: ApiResource::erase::<ConfigMap>(&()), namespaced: true };
    (0..n).map(move |i| observed(&mapping, EventType::Add, object_meta(&listed(i)), None))
}

/// Graph memory: the bytes the builder holds once it has the initial list of `n` objects, each
/// event made just before it is processed and dropped after.
fn graph_memory(n: usize) {
    let before = support::reset_peak();
    let mut builder = GraphBuilder::new(500);
    let mut strings = 0;
    for event in initial_list(n) {
        strings += event.object.uid.to_string().len() + event.object.name.len();
        strings += event.object.owners.iter().map(|r| r.uid.to_string().len() + r.name.len()).sum::<usize>();
        builder.process(&event);
    }
    let bytes = support::live() - before;
    let peak = support::peak() - before;
    println!(
        "graph memory: {n} nodes, {:.1} MiB, {:.0} bytes per node (their UID and name strings, and their owners': {:.0} bytes per node); at most {:.0} bytes per node while building",
        bytes as f64 / 1048576.0,
        bytes as f64 / n as f64,
        strings as f64 / n as f64,
        peak as f64 / n as f64
    );
    drop(builder);
}

/// Start-up: the time the builder takes to build the graph from the initial list of `n`
/// objects, the events made beforehand.
fn startup(n: usize) {
    let events: Vec<GraphEvent> = initial_list(n).collect();
    let mut builder = GraphBuilder::new(500);
    let start = Instant::now();
    for event in &events {
        builder.process(event);
    }
    let elapsed = start.elapsed();
    assert_eq!(builder.graph.len(), n);
    println!("start-up: {n} objects in {:.2} s: {:.0} objects/s", elapsed.as_secs_f64(), n as f64 / elapsed.as_secs_f64());
}

async fn request(server: &ApiServer, method: &str, uri: &str, body: Value) -> (u16, Value) {
    let req =
        Request::builder().method(method).uri(uri).header("content-type", "application/json").body(Body::from(body.to_string())).unwrap();
    let resp = server.router().oneshot(req).await.unwrap();
    let code = resp.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(resp.into_body()).await.unwrap().to_bytes();
    (code, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

const CMS: &str = "/api/v1/namespaces/default/configmaps";

async fn create(server: &ApiServer, name: &str, owner: Option<&(String, String)>) -> (String, String) {
    let mut cm = json!({"metadata": {"name": name}});
    if let Some((oname, ouid)) = owner {
        cm["metadata"]["ownerReferences"] =
            json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": oname, "uid": ouid, "blockOwnerDeletion": true}]);
    }
    let (code, body) = request(server, "POST", CMS, cm).await;
    assert_eq!(code, 201, "{body}");
    (name.to_string(), body["metadata"]["uid"].as_str().unwrap().to_string())
}

async fn settle(server: &ApiServer, gc: &GarbageCollector, limit: Duration) {
    let start = Instant::now();
    loop {
        let s = gc.settled_with(|g, r| server.resource_revision(g, r));
        if s.settled {
            return;
        }
        assert!(start.elapsed() < limit, "not settled after {limit:?}: {:?}", s.pending.iter().take(5).collect::<Vec<_>>());
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn count(server: &ApiServer) -> usize {
    server.lock().store.list("", "configmaps", Some("default"), None).count()
}

/// A server as the benchmarks run it: bookmarks rare enough not to count.
fn bench_server() -> ApiServer {
    ApiServer::with_config(ServerConfig { bookmark_interval: Duration::from_secs(60), ..ServerConfig::default() })
}

fn start() -> (ApiServer, GarbageCollector) {
    let server = bench_server();
    let gc = GarbageCollector::start(server.client(), Config::default());
    (server, gc)
}

/// The API server's own cost of what a collector does at the least for each object it deletes:
/// one GET, one DELETE, and the watch event that tells of the deletion, for every object of
/// `names`, as many at a time as the collector has workers, on a server without a collector
/// (so nothing else runs). The wall time until the last event has arrived.
async fn api_baseline(server: &ApiServer, names: &[String]) -> Duration {
    let api: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let mut events = api.watch(&WatchParams::default(), &server.revision().to_string()).await.unwrap().boxed();
    let start = Instant::now();
    let deletes = futures::stream::iter(names).for_each_concurrent(Config::default().workers, |name| {
        let api = api.clone();
        async move {
            api.get(name).await.unwrap();
            api.delete(name, &DeleteParams::default()).await.unwrap();
        }
    });
    let told = async {
        let mut deleted = 0;
        while deleted < names.len() {
            match events.try_next().await.unwrap() {
                Some(WatchEvent::Deleted(_)) => deleted += 1,
                Some(_) => {}
                None => panic!("the watch ended before every deletion was told"),
            }
        }
    };
    futures::join!(deletes, told);
    let elapsed = start.elapsed();
    assert_eq!(count(server), 0, "the baseline deleted every object");
    elapsed
}

/// How `collected` compares with the baseline of the same objects, as the benchmarks print it.
fn against_baseline(collected: Duration, baseline: Duration) -> String {
    format!(
        "{:.2}x the API server's own GET, DELETE and watch event per object ({:.2} s, {} at a time)",
        collected.as_secs_f64() / baseline.as_secs_f64(),
        baseline.as_secs_f64(),
        Config::default().workers
    )
}

/// A tree with fan-out 10 and `levels` levels below `root`; the names of all its objects.
async fn tree(server: &ApiServer, levels: u32) -> Vec<String> {
    let mut level = vec![create(server, "root", None).await];
    let mut names = vec!["root".to_string()];
    for _ in 0..levels {
        let mut next = Vec::with_capacity(level.len() * 10);
        for parent in &level {
            for k in 0..10 {
                next.push(create(server, &format!("{}-{k}", parent.0), Some(parent)).await);
            }
        }
        names.extend(next.iter().map(|(name, _)| name.clone()));
        level = next;
    }
    names
}

/// A chain `c0 <- c1 <- ... <- c{n-1}` with blocking references; the names of its objects.
async fn chain(server: &ApiServer, n: usize) -> Vec<String> {
    let mut prev = create(server, "c0", None).await;
    let mut names = vec![prev.0.clone()];
    for i in 1..n {
        prev = create(server, &format!("c{i}"), Some(&prev)).await;
        names.push(prev.0.clone());
    }
    names
}

/// Deletes `root` with `policy` and waits for the collector to finish: the wall time.
async fn collect(server: &ApiServer, gc: &GarbageCollector, root: &str, policy: &str) -> Duration {
    settle(server, gc, Duration::from_secs(600)).await;
    let start = Instant::now();
    let (code, _) = request(server, "DELETE", &format!("{CMS}/{root}"), json!({"propagationPolicy": policy})).await;
    assert_eq!(code, 200);
    settle(server, gc, Duration::from_secs(600)).await;
    let elapsed = start.elapsed();
    assert_eq!(count(server), 0, "every object is collected");
    elapsed
}

/// Background cascade of a tree with fan-out 10 and `levels` levels below the root.
async fn background_cascade(levels: u32) {
    let (server, gc) = start();
    let total = tree(&server, levels).await.len();
    let elapsed = collect(&server, &gc, "root", "Background").await;
    let baseline_server = bench_server();
    let names = tree(&baseline_server, levels).await;
    let baseline = api_baseline(&baseline_server, &names).await;
    println!(
        "background cascade: {total} objects (fan-out 10, depth {levels}) in {:.2} s: {:.0} deletions/s; {}",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        against_baseline(elapsed, baseline)
    );
}

/// Foreground deletion of a chain of `n` objects with blocking references.
async fn foreground_chain(n: usize) {
    let (server, gc) = start();
    chain(&server, n).await;
    let elapsed = collect(&server, &gc, "c0", "Foreground").await;
    let baseline_server = bench_server();
    let names = chain(&baseline_server, n).await;
    let baseline = api_baseline(&baseline_server, &names).await;
    println!("foreground chain: {n} deep in {:.2} s; {}", elapsed.as_secs_f64(), against_baseline(elapsed, baseline));
}

/// Whether to run the section `name`: every section when no section is named.
fn selected(name: &str) -> bool {
    let named: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    named.is_empty() || named.iter().any(|n| n == name)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    if selected("memory") {
        graph_memory(scale(1_000_000));
    }
    if selected("startup") {
        startup(scale(1_000_000));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        if selected("cascade") {
            let levels = if scale(100_000) >= 100_000 { 5 } else { 4 };
            background_cascade(levels).await;
        }
        if selected("foreground") {
            foreground_chain(scale(10_000)).await;
        }
        if selected("upstream") {
            let upstream_levels = (scale(1_000) as f64).log10().round() as u32;
            upstream::compare(upstream_levels).await.unwrap_or_else(|e| panic!("upstream comparison: {e:#}"));
        }
    });
}
