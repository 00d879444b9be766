//! Backends: where scenarios run. Each gives a scenario a client, a way to judge that the
//! garbage collector has settled (so that "still exists" never sleeps on the fake), and the
//! timeout for "eventually" assertions.

pub mod external;
pub mod fake;
#[cfg(feature = "k3s")]
pub mod k3s;
pub mod kubeconfig;
pub mod upstream;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use futures::future::BoxFuture;
use kubegc_control_plane::control_plane::HollowNodes;

/// How often kube-controller-manager's garbage collector re-reads discovery to watch new
/// kinds (hard-wired in its start-up: 30 s), and a little more.
pub const DISCOVERY_RESYNC: Duration = Duration::from_secs(31);

/// A place to run scenarios.
pub trait Backend: Send + Sync + std::fmt::Debug {
    /// A short name for reports (`fake`, `kubeconfig`).
    fn name(&self) -> &str;
    /// A client for the backend's API server.
    fn client(&self) -> kube::Client;
    /// Resolves when the garbage collector has caught up with every change made so far, or
    /// fails with what it is still waiting for.
    fn settle(&self) -> BoxFuture<'_, Result<(), String>>;
    /// How long an "eventually" assertion waits.
    fn eventually_timeout(&self) -> Duration;
    /// Whether a scenario with these tags can run here; `Err` says why not.
    fn can_run(&self, tags: &[String]) -> Result<(), String>;
    /// How long after a kind is defined the garbage collector may still not watch it: none
    /// where settling says so; elsewhere a collector's discovery resync period
    /// ([`DISCOVERY_RESYNC`] for kube-controller-manager's).
    fn new_kind_delay(&self) -> Duration {
        DISCOVERY_RESYNC
    }
    /// Resolves, with why, when the backend can no longer judge any scenario (a collector
    /// run as a process of its own exited); never, by default.
    fn stopped(&self) -> BoxFuture<'_, String> {
        Box::pin(futures::future::pending())
    }
    /// A kubeconfig file for the backend's API server, when it is served over TCP (programs of
    /// their own, such as Kubernetes' e2e tests, reach it through it).
    fn kubeconfig(&self) -> Option<&std::path::Path> {
        None
    }
    /// What the garbage collector is still doing, for failure messages (empty when unknown).
    fn diagnostics(&self) -> String {
        String::new()
    }
    /// Whether [`Backend::own_cluster`] can give a scenario controllers configured for it
    /// (scenarios tagged `@own-cluster` need it).
    fn gives_own_clusters(&self) -> bool {
        false
    }
    /// Whether time passes on a virtual clock, so that hours pass at once (scenarios tagged
    /// `@virtual-clock` need it).
    fn has_virtual_clock(&self) -> bool {
        false
    }
    /// Whether the cluster outlives the run, others using it before and after (a kubeconfig's,
    /// kind's): then each scenario takes away everything it made, finalizers and all, so that
    /// no later run finds its names taken. A cluster the run started goes with it.
    fn outlives_run(&self) -> bool {
        false
    }
    /// Whether [`Backend::settle`] returns once everything set going has happened (the fake
    /// tracks its collector, controllers and nodes), so that what is read after it is final.
    /// Elsewhere settling is a hold, and a field that kubelets and controllers are still
    /// moving is read until it has the value asked for.
    fn settles_exactly(&self) -> bool {
        false
    }
    /// Controllers configured as `spec` says, for one scenario: on the fake a cluster of its
    /// own on a virtual clock; on a control plane a controller manager of its own.
    fn own_cluster(&self, _spec: &OwnCluster) -> BoxFuture<'_, Result<Own, String>> {
        Box::pin(async { Err(format!("the {} backend cannot give a scenario controllers of its own", self.name())) })
    }
    /// Says that the cloud machine of Node `node` is now `instance`: a machine gone or shut
    /// down runs no kubelet, and the cloud's node lifecycle controller acts on what the cloud
    /// says.
    fn set_instance(&self, _node: &str, _instance: kubegc::cloud::Instance) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async {
            Err(format!("the {} backend has no cloud a scenario controls (the fake and --target upstream have)", self.name()))
        })
    }
    /// Lets `by` pass: a virtual clock moves, otherwise real time passes (up to
    /// [`REAL_TIME_LIMIT`]).
    fn let_time_pass(&self, by: Duration) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            if by > REAL_TIME_LIMIT {
                return Err(format!(
                    "{by:?} is too long to wait for in real time (at most {REAL_TIME_LIMIT:?}); the scenario needs a virtual clock"
                ));
            }
            tokio::time::sleep(by).await;
            Ok(())
        })
    }
}

/// The longest a step may let real time pass.
pub const REAL_TIME_LIMIT: Duration = Duration::from_secs(180);

/// What a scenario asks of controllers of its own (`Given a cluster of its own ...`); what it
/// leaves unset keeps kube-controller-manager's default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnCluster {
    /// How many terminated pods the pod garbage collector keeps
    /// (`--terminated-pod-gc-threshold`).
    pub terminated_pod_threshold: Option<i64>,
    /// How many nodes that run pods the cluster has (on the fake, node agents and a
    /// scheduler); none: as the shared cluster.
    pub nodes: usize,
    /// What the nodes' disks hold, as the fake's kubelet model sees them; none: its defaults.
    pub disks: Option<kubegc::workloads::nodes::kubelet::NodeDisks>,
}

impl OwnCluster {
    /// The kube-controller-manager `--controllers` list that runs the controllers set here;
    /// empty when nothing is set (the shared controller manager does the rest).
    pub fn controllers(&self) -> Vec<&'static str> {
        let mut controllers = Vec::new();
        if self.terminated_pod_threshold.is_some() {
            controllers.push("pod-garbage-collector-controller");
        }
        controllers
    }

    /// The kube-controller-manager flags that set them so.
    pub fn controller_manager_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if let Some(threshold) = self.terminated_pod_threshold {
            flags.push(format!("--terminated-pod-gc-threshold={threshold}"));
        }
        flags
    }

    /// The reference cleanup controllers of `base` set so.
    pub fn cleanup_config(&self, base: kubegc::cleanup::Config) -> kubegc::cleanup::Config {
        let mut config = base;
        if let (Some(threshold), Some(pod_gc)) = (self.terminated_pod_threshold, config.pod_gc.as_mut()) {
            pod_gc.threshold = threshold;
        }
        config
    }
}

/// What [`Backend::own_cluster`] gives a scenario.
pub enum Own {
    /// A backend of its own, in place of the shared one.
    Backend(Arc<dyn Backend>),
    /// Controllers of its own beside the shared backend, running until this is dropped.
    Guard(Box<dyn std::any::Any + Send + Sync>),
}

/// Whether `backend` can run a scenario with `tags`: what it says itself, and whether it has
/// what `@own-cluster` and `@virtual-clock` ask for.
pub fn can_run(backend: &dyn Backend, tags: &[String]) -> Result<(), String> {
    backend.can_run(tags)?;
    let tagged = |name: &str| tags.iter().any(|t| t == name);
    if tagged("own-cluster") && !backend.gives_own_clusters() {
        return Err("@own-cluster scenarios need controllers configured for them (the fake or --target upstream)".into());
    }
    if tagged("virtual-clock") && !backend.has_virtual_clock() {
        return Err("@virtual-clock scenarios let hours pass, which only the fake's virtual clock can do".into());
    }
    Ok(())
}

/// `count` hollow nodes for the upstream control plane that ask kubegc itself what a
/// container's command does (`kubegc program`).
pub fn hollow_nodes(count: usize) -> anyhow::Result<HollowNodes> {
    let programs = std::env::current_exe().context("cannot find kubegc itself, which hollow nodes ask what a command does")?;
    Ok(HollowNodes { count, programs })
}
