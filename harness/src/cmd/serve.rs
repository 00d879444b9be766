//! `kubegc serve`: the fake apiserver on a TCP port, with a kubeconfig for kubectl.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use kubegc::apiserver::{ApiServer, kubeconfig::kubeconfig_yaml};

/// Which garbage collector runs beside the served apiserver.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcChoice {
    /// No garbage collector: only the apiserver's half of deletion (finalizers, deletionTimestamp).
    None,
}

/// Arguments of `kubegc serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:6443")]
    pub addr: SocketAddr,
    /// Where to write the kubeconfig for clients.
    #[arg(long, default_value = "kubegc.kubeconfig")]
    pub kubeconfig: PathBuf,
    /// Garbage collector to run beside the apiserver.
    #[arg(long, value_enum, default_value_t = GcChoice::None)]
    pub gc: GcChoice,
}

/// Runs the server until Ctrl-C or SIGTERM.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let server = ApiServer::new();
    let (addr, handle) = server.serve(args.addr).await.with_context(|| format!("cannot listen on {}", args.addr))?;
    let url = format!("http://{addr}");
    std::fs::write(&args.kubeconfig, kubeconfig_yaml(&url))
        .with_context(|| format!("cannot write kubeconfig {}", args.kubeconfig.display()))?;
    println!("kubegc apiserver listening on {url} (kubeconfig: {}, gc: {:?})", args.kubeconfig.display(), args.gc);
    shutdown_signal().await;
    handle.abort();
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
