//! The upstream backend: the real control plane built from `upstream/` (etcd, kube-apiserver
//! and kube-controller-manager of the pinned release) on loopback, with its own garbage
//! collector or another one in its place. Scenarios reach it as any cluster, through a
//! kubeconfig, so "settled" is a hold time.

use std::sync::Arc;
use std::time::Duration;

use kubegc::gc::GarbageCollector;

use crate::backend::external::CommandCollector;
use crate::backend::kubeconfig::KubeconfigBackend;
use crate::backend::{Backend, hollow_nodes};
use kubegc_control_plane::build::Upstream;
use kubegc_control_plane::control_plane::{ALL_BUT_GARBAGE_COLLECTOR, ControlPlane, DEFAULT_CONTROLLERS};

/// The garbage collector that works on the upstream control plane.
#[derive(Clone, Debug)]
pub enum Collector {
    /// The controller manager's own.
    Upstream,
    /// kubegc's reference collector, in this process.
    Reference,
    /// None: every other controller runs, but owner references are never followed.
    None,
    /// A third party's, started from this command line with `{kubeconfig}` replaced by an
    /// admin kubeconfig.
    External(String),
}

/// Starts the control plane with every default controller, the garbage collector being
/// `collector`, and `nodes` hollow nodes that run pods (with the scheduler; none without it);
/// everything stops when the backend is dropped.
pub async fn start(collector: Collector, nodes: usize, hold: Duration, timeout: Duration) -> anyhow::Result<KubeconfigBackend> {
    let controllers = match collector {
        Collector::Upstream => DEFAULT_CONTROLLERS,
        _ => ALL_BUT_GARBAGE_COLLECTOR,
    };
    let upstream = Upstream::locate();
    let plane = ControlPlane::start_with_nodes(&upstream, controllers, Some(&hollow_nodes(nodes)?)).await?;
    let backend = KubeconfigBackend::connect(plane.kubeconfig(), hold, timeout)
        .await?
        .named("upstream")
        .starting_controller_managers(upstream, plane.kubeconfig().to_path_buf());
    // The collector stops before the control plane it works on.
    Ok(match collector {
        Collector::Upstream | Collector::None => backend.keeping(plane),
        Collector::Reference => {
            let gc = Arc::new(GarbageCollector::start(backend.client(), kubegc::gc::Config::default()));
            backend.keeping((gc, plane))
        }
        Collector::External(command) => {
            let gc = CommandCollector::start(&command, plane.kubeconfig())?;
            backend.watching(gc).keeping(plane)
        }
    })
}
