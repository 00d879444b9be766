//! `kubegc serve`: the fake apiserver on a TCP port, with a kubeconfig for kubectl, and by
//! default the reference garbage collector and the workload controllers running against it
//! (a [`kubegc::Cluster`]), and the settle endpoint ([`crate::settle_route`]) that tells a test
//! when they are done.

use anyhow::Context;
use kubegc::Cluster;
use kubegc::apiserver::kubeconfig::kubeconfig_yaml;
use std::io::ErrorKind;
use std::path::PathBuf;
use std::sync::Arc;

use crate::{debug_routes, settle_route};

/// Which garbage collector runs beside the served apiserver.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcChoice {
    /// kubegc's reference garbage collector, as a client of the served API.
    Reference,
    /// None: only the apiserver's half of deletion (finalizers, deletionTimestamp); bring
    /// your own collector (see `kubegc gc`).
    None,
}

/// Arguments of `kubegc serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on, `host:port` (a name such as `localhost` is looked up; port 0
    /// picks a free port).
    #[arg(long, default_value = "127.0.0.1:6443")]
    pub addr: String,
    /// Where to write the kubeconfig for clients.
    #[arg(long, default_value = "kubegc.kubeconfig")]
    pub kubeconfig: PathBuf,
    /// Garbage collector to run beside the apiserver.
    #[arg(long, value_enum, default_value_t = GcChoice::Reference)]
    pub gc: GcChoice,
    /// Run no workload controllers: Deployments, ReplicaSets, ReplicationControllers and Jobs
    /// then make no ReplicaSets or Pods, and no namespace gets its `default` ServiceAccount,
    /// without which a pod is refused (403), as on an API server with no controller manager.
    #[arg(long)]
    pub no_workloads: bool,
    /// How many nodes that run pods to start (`node-1`, `node-2`, …): a scheduler binds pods to
    /// them and a node agent on each runs its pods as a kubelet reports them (a container's
    /// command says what it does: `sleep N`, `true`, `false`, `sh -c` scripts of those; anything
    /// else runs until stopped). 0 for none: pods then stay Pending, as on a control plane
    /// without kubelets. Nodes need the workload controllers; the default is 1, or 0 with
    /// --no-workloads.
    #[arg(long)]
    pub nodes: Option<usize>,
    /// The cleanup controllers to run, as kube-controller-manager's `--controllers` lists them:
    /// `*` for every one, a name to add one, `-name` to leave one out, "" for none (names:
    /// pod-garbage-collector-controller, ttl-after-finished-controller,
    /// certificatesigningrequest-cleaner-controller, persistentvolume-binder-controller,
    /// persistentvolumeclaim-protection-controller, persistentvolume-protection-controller,
    /// apiserver-identity-lease-gc).
    #[arg(long, default_value = "*", value_parser = kubegc::cleanup::Config::select)]
    pub cleanup: kubegc::cleanup::Config,
}

/// Runs the server until Ctrl-C or SIGTERM, then removes the kubeconfig it wrote; `Ok(false)`
/// (exit 1) when the address is in use, not this machine's or not permitted: a failure, not a
/// usage error (an address that cannot be read or looked up is one).
pub async fn run(args: Args) -> anyhow::Result<bool> {
    let mut cluster = Cluster::builder();
    if args.gc == GcChoice::None {
        cluster = cluster.without_collector();
    }
    if args.no_workloads {
        anyhow::ensure!(args.nodes.unwrap_or(0) == 0, "--nodes needs the workload controllers, which --no-workloads turns off");
        cluster = cluster.without_workloads();
    }
    let nodes = args.nodes.unwrap_or(if args.no_workloads { 0 } else { 1 });
    cluster = cluster.nodes(nodes);
    let cluster = Arc::new(cluster.cleanup_config(args.cleanup).start());
    let mut router = cluster.server().router().merge(settle_route::router(cluster.clone()));
    if let Some(gc) = cluster.collector() {
        router = router.merge(debug_routes::router(gc.clone()));
    }
    let listener = match tokio::net::TcpListener::bind(&args.addr).await {
        Ok(listener) => listener,
        Err(e) if matches!(e.kind(), ErrorKind::AddrInUse | ErrorKind::AddrNotAvailable | ErrorKind::PermissionDenied) => {
            eprintln!("kubegc: cannot listen on {}: {e}", args.addr);
            return Ok(false);
        }
        Err(e) => anyhow::bail!("--addr {}: {e}", args.addr),
    };
    let addr = listener.local_addr()?;
    cluster.server().lock().advertise(addr);
    let url = format!("http://{addr}");
    std::fs::write(&args.kubeconfig, kubeconfig_yaml(&url))
        .with_context(|| format!("cannot write kubeconfig {}", args.kubeconfig.display()))?;
    let gc_name = if cluster.collector().is_some() { "reference" } else { "none" };
    let workloads = if args.no_workloads { "off" } else { "on" };
    println!(
        "kubegc apiserver listening on {url} (kubeconfig: {}, gc: {gc_name}, workload controllers: {workloads}, nodes: {nodes})",
        args.kubeconfig.display(),
    );
    let served = axum::serve(listener, router).with_graceful_shutdown(crate::shutdown_signal()).await;
    // A kubeconfig pointing at a port no one listens on any more would only mislead.
    let _ = std::fs::remove_file(&args.kubeconfig);
    served.context("serving the API")?;
    Ok(true)
}
