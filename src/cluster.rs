//! The front door for tests: the fake API server with the reference garbage collector, the
//! workload controllers and the cleanup controllers running against it, as a cluster has them,
//! a way to wait until they have caught up, and, on a virtual clock, a way to let time pass.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::api::{Api, DeleteParams, PostParams};
//!
//! let cluster = kubegc::Cluster::start();
//! let cms: Api<ConfigMap> = Api::default_namespaced(cluster.client());
//! let owner = cms.create(&PostParams::default(), &serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "owner"}})).unwrap()).await.unwrap();
//! let reference = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
//!     "uid": owner.metadata.uid});
//! cms.create(&PostParams::default(), &serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "dependent", "ownerReferences": [reference]}})).unwrap()).await.unwrap();
//! cms.delete("owner", &DeleteParams::background()).await.unwrap();
//! cluster.settle().await; // the collector has seen the deletion and deleted the dependent
//! assert!(cms.get_opt("dependent").await.unwrap().is_none());
//! # }
//! ```

use std::sync::Arc;
use std::time::Duration;

use crate::activity::Settling;
use crate::apiserver::{ApiServer, Config};
use crate::cleanup::Cleanup;
use crate::cloud::Cloud;
use crate::gc::GarbageCollector;
use crate::workloads::Workloads;
use crate::workloads::nodes::Agents;
use crate::workloads::nodes::kubelet::NodeDisks;

/// How long [`Cluster::settle`] waits before it panics with what is still pending.
const SETTLE_LIMIT: Duration = Duration::from_secs(60);

/// How often [`Cluster::try_settle`] looks again when no part of the cluster has said that it
/// finished a step: a safety net, as every part raises its [`Activity`](crate::activity::Activity) when it does.
const RECHECK: Duration = Duration::from_millis(20);

/// The fake API server, and the controllers running against it as ordinary clients: the
/// reference garbage collector, the workload controllers (each on unless turned off with
/// [`Builder`]) and the cleanup controllers (as [`crate::cleanup::Config`] says). Dropping it
/// stops the controllers.
#[derive(Debug)]
pub struct Cluster {
    server: ApiServer,
    collector: Option<Arc<GarbageCollector>>,
    workloads: Option<Workloads>,
    cleanup: Cleanup,
    cloud: Cloud,
}

/// How to start a [`Cluster`]; every part is on unless turned off.
#[derive(Debug, Default)]
#[must_use]
pub struct Builder {
    server: Option<ApiServer>,
    collector: Option<crate::gc::Config>,
    no_collector: bool,
    no_workloads: bool,
    nodes: usize,
    node_disks: NodeDisks,
    cleanup: Option<crate::cleanup::Config>,
    workload_mutant: Option<crate::workloads::mutant::Mutant>,
}

impl Builder {
    /// Runs the controllers against `server` instead of a new server with the default
    /// configuration (for a virtual clock, an interceptor or a mutant: see [`Config`]).
    pub fn server(mut self, server: ApiServer) -> Self {
        self.server = Some(server);
        self
    }

    /// Starts a new server with `config`.
    pub fn server_config(self, config: Config) -> Self {
        self.server(ApiServer::with_config(config))
    }

    /// Configures the garbage collector (resync period, a mutant, ...).
    pub fn collector_config(mut self, config: crate::gc::Config) -> Self {
        self.collector = Some(config);
        self
    }

    /// No garbage collector: only the API server's half of deletion, for a collector of your own.
    pub fn without_collector(mut self) -> Self {
        self.no_collector = true;
        self
    }

    /// No workload controllers: Deployments, ReplicaSets, ReplicationControllers and Jobs make
    /// nothing, as on an API server with no controller manager.
    pub fn without_workloads(mut self) -> Self {
        self.no_workloads = true;
        self
    }

    /// Runs `count` nodes (`node-1`, `node-2`, …) that run pods: a scheduler binds pods to
    /// them and a node agent on each takes its pods through their lives as a kubelet reports
    /// them (see [`crate::workloads::nodes`]). None by default, as on a control plane without
    /// kubelets. They are part of the workload controllers, and do not run without them.
    pub fn nodes(mut self, count: usize) -> Self {
        self.nodes = count;
        self
    }

    /// What the nodes' disks hold: their size and the images' sizes (see
    /// [`crate::workloads::nodes::kubelet`]); by default 100 GiB, and 100 MiB an image.
    pub fn node_disks(mut self, disks: NodeDisks) -> Self {
        self.node_disks = disks;
        self
    }

    /// Configures the cleanup controllers (which run, their thresholds, a mutant); by default
    /// every one runs with kube-controller-manager's defaults, on the server's clock.
    pub fn cleanup_config(mut self, config: crate::cleanup::Config) -> Self {
        self.cleanup = Some(config);
        self
    }

    /// Breaks one rule of the workload controllers (only to judge a specification: see
    /// [`crate::workloads::mutant`]).
    pub fn workload_mutant(mut self, mutant: Option<crate::workloads::mutant::Mutant>) -> Self {
        self.workload_mutant = mutant;
        self
    }

    /// Starts the cluster. Must be called inside a Tokio runtime.
    pub fn start(self) -> Cluster {
        let server = self.server.unwrap_or_default();
        let collector =
            (!self.no_collector).then(|| Arc::new(GarbageCollector::start(server.client(), self.collector.unwrap_or_default())));
        let cloud = Cloud::new();
        let agents = Agents::new(self.nodes).with_disks(self.node_disks).with_cloud(cloud.clone());
        let workloads =
            (!self.no_workloads).then(|| Workloads::start(server.client(), server.clock().clone(), agents, self.workload_mutant));
        let cleanup = Cleanup::start(server.client(), server.clock().clone(), self.cleanup.unwrap_or_default(), &cloud);
        Cluster { server, collector, workloads, cleanup, cloud }
    }
}

impl Cluster {
    /// A new server with the garbage collector and the workload controllers running. Must be
    /// called inside a Tokio runtime.
    pub fn start() -> Self {
        Self::builder().start()
    }

    /// A cluster with some parts turned off or configured.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// A `kube::Client` to the server, with no socket (default namespace `default`).
    pub fn client(&self) -> kube::Client {
        self.server.client()
    }

    /// The API server (to serve it on a port, inspect it, or advance its clock).
    pub fn server(&self) -> &ApiServer {
        &self.server
    }

    /// The fake cloud whose machines back the cluster's Nodes: say there that a machine is
    /// gone or shut down, and its node agent stops and the cloud node lifecycle controller acts.
    pub fn cloud(&self) -> &Cloud {
        &self.cloud
    }

    /// The garbage collector, unless it was turned off.
    pub fn collector(&self) -> Option<&Arc<GarbageCollector>> {
        self.collector.as_ref()
    }

    /// What keeps the cluster from being settled; empty when the garbage collector has seen
    /// every write and has nothing queued, the workload controllers have nothing to write, the
    /// cleanup controllers have seen what they watch and no moment they wait for has come, and
    /// the API server's own controllers (namespaces, CRDs, the node agent) are idle.
    pub fn pending(&self) -> Vec<String> {
        let revision_of = |group: &str, resource: &str| self.server.resource_revision(group, resource);
        self.parts().flat_map(|part| part.pending(&revision_of)).collect()
    }

    /// Waits until the cluster is settled (see [`Cluster::pending`]), or `limit` has passed:
    /// then the error says what is still pending. It looks again whenever a part of the
    /// cluster raises its [`Activity`](crate::activity::Activity) (every part does after each step that may leave it
    /// settled), and at least every [`RECHECK`].
    pub async fn try_settle(&self, limit: Duration) -> Result<(), String> {
        let start = tokio::time::Instant::now();
        loop {
            let steps = futures::future::select_all(self.parts().map(|part| part.activity().armed()));
            let pending = self.pending();
            if pending.is_empty() {
                return Ok(());
            }
            if start.elapsed() > limit {
                return Err(format!("the cluster did not settle within {limit:?}: {}", pending.join("; ")));
            }
            tokio::select! {
                _ = steps => {}
                () = tokio::time::sleep(RECHECK) => {}
            }
        }
    }

    /// Every running part, each asked the same way whether it has settled.
    fn parts(&self) -> impl Iterator<Item = &dyn Settling> {
        [
            self.collector.as_deref().map(|gc| gc as &dyn Settling),
            self.workloads.as_ref().map(|w| w as &dyn Settling),
            Some(&self.cleanup as &dyn Settling),
            Some(&self.server as &dyn Settling),
        ]
        .into_iter()
        .flatten()
    }

    /// Lets `by` pass on the server's virtual clock as it would pass in a cluster: the clock
    /// stops at every moment a cleanup controller waits for, and at every moment a pod on a
    /// node starts or stops a container, and the cluster settles there (within `limit` each
    /// time), so a periodic controller makes each of its passes and a pod's end is seen when
    /// it comes.
    ///
    /// # Errors
    /// When the clock is the system clock, or the cluster does not settle.
    pub async fn advance(&self, by: chrono::Duration, limit: Duration) -> Result<(), String> {
        let clock = self.server.clock();
        if !clock.is_virtual() {
            return Err("the cluster runs on the system clock; only a virtual clock can be advanced".into());
        }
        let end = clock.now() + by;
        self.try_settle(limit).await?;
        while let Some(due) = self.due().filter(|due| *due < end && *due > clock.now()) {
            clock.advance(due - clock.now());
            self.try_settle(limit).await?;
        }
        clock.advance(end - clock.now());
        self.try_settle(limit).await
    }

    /// The next moment a part of the cluster waits for by the clock: a cleanup controller's
    /// next pass, a pod's next change.
    fn due(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        let pods = self.workloads.as_ref().and_then(Workloads::due);
        crate::clock::earliest(self.cleanup.due(), pods)
    }

    /// Waits until the garbage collector and the controllers have seen every change and have
    /// nothing left to do, so that what a test reads next is the outcome.
    ///
    /// # Panics
    /// After a minute without settling, with what is still pending.
    pub async fn settle(&self) {
        if let Err(e) = self.try_settle(SETTLE_LIMIT).await {
            panic!("{e}");
        }
    }
}
