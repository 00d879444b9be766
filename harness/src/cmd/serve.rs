//! `kubegc serve`: the fake apiserver on a TCP port, with a kubeconfig for kubectl, and by
//! default the reference garbage collector and the workload controllers running against it
//! (a [`kubegc::Cluster`]), and the settle endpoint ([`crate::settle_route`]) that tells a test
//! when they are done.
//!
//! On loopback the API is plain HTTP that asks no credentials. On any other address it is
//! HTTPS only ([`tls`]), and every request needs the run's bearer token ([`bearer_token`]);
//! `--insecure` serves plain HTTP there too.

mod bearer_token;
mod tls;

use anyhow::Context;
use axum::Router;
use kubegc::Cluster;
use kubegc::apiserver::kubeconfig::{kubeconfig_yaml, secured_kubeconfig_yaml};
use std::fmt::Debug;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::{debug_routes, settle_route};
use bearer_token::BearerToken;

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
    /// picks a free port). On loopback (127.0.0.0/8, ::1) the API is plain HTTP and asks no
    /// credentials. On any other address it is HTTPS only, with a certificate authority and a
    /// bearer token made for the run and written into the kubeconfig; a request without the
    /// token gets 401 Unauthorized (unless --insecure).
    #[arg(long, default_value = "127.0.0.1:6443")]
    pub addr: String,
    /// Serve plain HTTP without a token on any address, as on loopback: anyone who can reach
    /// the address can read, change and delete everything served.
    #[arg(long)]
    pub insecure: bool,
    /// Where to write the kubeconfig for clients (readable by its owner only when it holds a
    /// token); removed when the server stops.
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
    let gc_name = if cluster.collector().is_some() { "reference" } else { "none" };
    let workloads = if args.no_workloads { "off" } else { "on" };
    let about = format!("kubeconfig: {}, gc: {gc_name}, workload controllers: {workloads}, nodes: {nodes}", args.kubeconfig.display());
    if args.insecure {
        eprintln!(
            "kubegc: warning: --insecure: plain HTTP without authentication on {addr}: anyone who can reach this address can read, change and delete everything served"
        );
    }
    let served = if addr.ip().is_loopback() || args.insecure {
        let url = format!("http://{addr}");
        write_kubeconfig(&args.kubeconfig, &kubeconfig_yaml(&url), false)?;
        println!("kubegc apiserver listening on {url} ({about})");
        serve_until_stopped(listener, router).await
    } else {
        let identity = tls::ServingIdentity::generate(addr.ip())?;
        let token = BearerToken::random();
        let url = format!("https://{}", tls::client_address(addr));
        write_kubeconfig(&args.kubeconfig, &secured_kubeconfig_yaml(&url, identity.ca_pem(), token.as_str()), true)?;
        println!("kubegc apiserver listening on {addr}, https only, with the bearer token in the kubeconfig: {url} ({about})");
        let listener = identity.listener(listener).context("cannot serve TLS")?;
        serve_until_stopped(listener, token.guard(router)).await
    };
    // A kubeconfig pointing at a port no one listens on any more would only mislead.
    let _ = std::fs::remove_file(&args.kubeconfig);
    served.context("serving the API")?;
    Ok(true)
}

/// Serves `router` on `listener` until Ctrl-C or SIGTERM.
async fn serve_until_stopped<L>(listener: L, router: Router) -> std::io::Result<()>
where
    L: axum::serve::Listener,
    L::Addr: Debug,
{
    axum::serve(listener, router).with_graceful_shutdown(crate::shutdown_signal()).await
}

/// Writes `yaml` to `path`; a `private` one (it holds a token) readable and writable by its
/// owner only, whatever mode the file had.
fn write_kubeconfig(path: &Path, yaml: &str, private: bool) -> anyhow::Result<()> {
    let write = || -> std::io::Result<()> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(path)?;
        #[cfg(unix)]
        if private {
            // `mode` applies to a new file only.
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        file.write_all(yaml.as_bytes())
    };
    write().with_context(|| format!("cannot write kubeconfig {}", path.display()))
}
