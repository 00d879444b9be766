//! `kubegc upstream`: build the real Kubernetes pieces from `upstream/` and run the real
//! control plane.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use kubegc_control_plane::build::{Component, Upstream};
use kubegc_control_plane::control_plane::{ControlPlane, DEFAULT_CONTROLLERS, HollowNodes};

/// Arguments of `kubegc upstream`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Build etcd, kube-apiserver, kube-controller-manager, kubectl, kube-scheduler, the hollow
    /// node, the cloud node lifecycle controller and the kubelet driver of the pinned release (or
    /// find them built), and print where they are.
    Build,
    /// Run the real control plane (etcd, kube-apiserver, kube-controller-manager) on loopback
    /// until interrupted, with an admin kubeconfig for any client; with nodes, also
    /// kube-scheduler, hollow nodes that run pods, and the cloud node lifecycle controller
    /// (over a fake cloud in which every node's machine runs).
    Serve(ServeArgs),
}

/// Arguments of `kubegc upstream serve`.
#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// Where to write the admin kubeconfig.
    #[arg(long, default_value = "upstream.kubeconfig")]
    kubeconfig: PathBuf,
    /// The controller manager's `--controllers`: `*` is every controller a cluster runs by
    /// default; `garbage-collector-controller,namespace-controller` runs just those; an empty
    /// list runs no controller manager at all.
    #[arg(long, default_value = DEFAULT_CONTROLLERS)]
    controllers: String,
    /// Hollow nodes to run (`node-1` … `node-N`): the release's kubelet on a fake container
    /// runtime, whose containers exit as `kubegc program` says, pods bound to them by
    /// kube-scheduler, beside the cloud node lifecycle controller. 0 runs none of them.
    #[arg(long, default_value_t = 1)]
    nodes: usize,
}

/// Runs the subcommand.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let upstream = Upstream::locate();
    match args.command {
        Command::Build => {
            let build = upstream.clone();
            tokio::task::spawn_blocking(move || build.ensure(&Component::ALL)).await??;
            println!("Kubernetes {}:", upstream.release()?);
            for c in Component::ALL {
                println!("  {}", upstream.binary(c).display());
            }
            Ok(())
        }
        Command::Serve(serve) => {
            let nodes = HollowNodes { count: serve.nodes, programs: std::env::current_exe()? };
            let mut plane = ControlPlane::start_with_nodes(&upstream, &serve.controllers, Some(&nodes)).await?;
            std::fs::copy(plane.kubeconfig(), &serve.kubeconfig)
                .with_context(|| format!("cannot write kubeconfig {}", serve.kubeconfig.display()))?;
            let server = kube::config::Kubeconfig::read_from(plane.kubeconfig())?
                .clusters
                .first()
                .and_then(|c| c.cluster.as_ref()?.server.clone())
                .unwrap_or_default();
            println!(
                "upstream Kubernetes {} listening on {server} (kubeconfig: {}, controllers: {}, nodes: {}, logs: {})",
                upstream.release()?,
                serve.kubeconfig.display(),
                if serve.controllers.is_empty() { "none" } else { &serve.controllers },
                serve.nodes,
                plane.log_dir().display()
            );
            let mut ticks = tokio::time::interval(Duration::from_secs(1));
            let shutdown = crate::shutdown_signal();
            tokio::pin!(shutdown);
            loop {
                tokio::select! {
                    _ = &mut shutdown => return Ok(()),
                    _ = ticks.tick() => plane.check_running()?,
                }
            }
        }
    }
}
