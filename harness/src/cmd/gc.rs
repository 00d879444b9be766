//! `kubegc gc`: the reference garbage collector alone, against any cluster.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kubegc::gc::{Config, GarbageCollector};

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
    let kubeconfig =
        Kubeconfig::read_from(&args.kubeconfig).with_context(|| format!("cannot read kubeconfig {}", args.kubeconfig.display()))?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await.context("invalid kubeconfig")?;
    let cluster = config.cluster_url.clone();
    let client = kube::Client::try_from(config).context("cannot build a client")?;
    client.apiserver_version().await.with_context(|| format!("cannot reach the API server at {cluster}"))?;
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
