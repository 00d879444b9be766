//! `kubegc gc`: the reference garbage collector alone, against any cluster. It waits out an API
//! server that is not answering yet (`5xx`, `429`, connection refused), saying so in its log,
//! and exits 2 only on usage errors: an unreadable kubeconfig, a server that refuses its
//! credentials.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use kubegc::gc::queue::Backoff;
use kubegc::gc::retry::{Delays, describe, is_transient};
use kubegc::gc::{Config, GarbageCollector};
use kubegc::rate_limit::{self, RateLimit};

use crate::debug_routes;

/// Arguments of `kubegc gc`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Kubeconfig of the cluster to collect garbage in (its current context is used).
    #[arg(long)]
    pub kubeconfig: PathBuf,
    /// Workers for each of the attemptToDelete and attemptToOrphan queues.
    #[arg(long, default_value_t = 20)]
    pub workers: usize,
    /// Limit the client as kube-controller-manager's flag limits its garbage collector's: to
    /// twice this many requests per second (its default is 20); without it, requests are not
    /// limited.
    #[arg(long)]
    pub kube_api_qps: Option<f32>,
    /// Requests the limited client may make at once (with `--kube-api-qps`).
    #[arg(long, default_value_t = 30, requires = "kube_api_qps")]
    pub kube_api_burst: u32,
    /// Break one rule on purpose, to check that a specification catches it: one of
    /// ignore-block-owner-deletion, never-orphan, delete-despite-solid-owner,
    /// ignore-cross-namespace-rule, never-break-cycles. Never for real use.
    #[arg(long)]
    pub mutant: Option<kubegc::gc::mutant::Mutant>,
    /// Serve the dependency graph and counters on this address
    /// (`/debug/controllers/garbagecollector/graph`, `/metrics`).
    #[arg(long)]
    pub debug_addr: Option<SocketAddr>,
}

/// Runs the collector until Ctrl-C or SIGTERM.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let config = super::kube_config(&args.kubeconfig).await?;
    let cluster = config.cluster_url.clone();
    let limit = args.kube_api_qps.map(|qps| RateLimit::garbage_collector(qps, args.kube_api_burst)).transpose()?;
    let client = rate_limit::client(config, limit.as_ref()).context("cannot build a client")?;
    tokio::select! {
        reached = wait_for_api_server(&client, &cluster) => reached?,
        () = crate::shutdown_signal() => return Ok(()),
    }
    let gc = Arc::new(GarbageCollector::start(client, Config { workers: args.workers.max(1), mutant: args.mutant, ..Config::default() }));
    if let Some(addr) = args.debug_addr {
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
        let router = debug_routes::router(gc.clone());
        tokio::spawn(async move { axum::serve(listener, router).await });
    }
    match args.mutant {
        Some(m) => println!("kubegc MUTANT garbage collector ({}) running against {cluster}", m.name()),
        None => println!("kubegc reference garbage collector running against {cluster}"),
    }
    crate::shutdown_signal().await;
    Ok(())
}

/// Asks for the server's version until it answers, waiting out transient failures with
/// back-off; fails at once on any other answer (`401`, `403`: no retry will cure those).
async fn wait_for_api_server(client: &kube::Client, cluster: &http::Uri) -> anyhow::Result<()> {
    let mut delays = Delays::new(Backoff { base: std::time::Duration::from_millis(100), max: std::time::Duration::from_secs(10) });
    loop {
        match client.apiserver_version().await {
            Ok(_) => return Ok(()),
            Err(e) if is_transient(&e) => {
                let delay = delays.next_delay();
                tracing::warn!(error = %describe(&e), "waiting for the API server at {cluster}; retrying in {delay:?}");
                tokio::time::sleep(delay).await;
            }
            Err(e) => return Err(e).with_context(|| format!("the API server at {cluster} refused the collector")),
        }
    }
}
