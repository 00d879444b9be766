//! The kubeconfig backend: any cluster (kind, a real one, or `kubegc serve`), whose own garbage
//! collector does the work. Nothing can tell from outside that a collector has settled, so
//! "settled" is a hold time.

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::future::BoxFuture;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kubegc_control_plane::build::Upstream;
use kubegc_control_plane::control_plane::{ControlPlane, ControllerManager, DEFAULT_CONTROLLERS, Tuning};

use crate::backend::external::{Collector, exit_of};
use crate::backend::{Backend, Own, OwnCluster};

/// A cluster reached through a kubeconfig.
pub struct KubeconfigBackend {
    client: kube::Client,
    /// The name in reports (`kubeconfig` unless told otherwise).
    name: &'static str,
    hold: Duration,
    timeout: Duration,
    /// A collector run as a process of its own, whose exit ends the run (stopped before what
    /// `keep` holds, as fields drop in order).
    collector: Option<Box<dyn Collector>>,
    /// The upstream build and an admin kubeconfig, when scenarios may start controller
    /// managers of their own (on the upstream control plane).
    controller_managers: Option<(Upstream, PathBuf)>,
    /// The kubeconfig file it was connected with, if any.
    path: Option<PathBuf>,
    /// What must live as long as the backend (the container of a k3s cluster).
    keep: Option<Box<dyn std::any::Any + Send + Sync>>,
    /// The control plane of a scenario's own cluster with nodes, whose cloud it controls.
    plane: Option<std::sync::Mutex<ControlPlane>>,
}

impl std::fmt::Debug for KubeconfigBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubeconfigBackend").field("hold", &self.hold).field("timeout", &self.timeout).finish()
    }
}

impl KubeconfigBackend {
    /// Connects with the kubeconfig's current context; `hold` is how long negative assertions
    /// wait, `timeout` how long positive ones may.
    pub async fn connect(path: &Path, hold: Duration, timeout: Duration) -> anyhow::Result<Self> {
        use anyhow::Context;
        let kubeconfig = Kubeconfig::read_from(path).with_context(|| format!("cannot read kubeconfig {}", path.display()))?;
        Ok(Self { path: Some(path.to_path_buf()), ..Self::from_kubeconfig(kubeconfig, hold, timeout).await? })
    }

    /// As [`KubeconfigBackend::connect`], with a kubeconfig already read.
    pub async fn from_kubeconfig(kubeconfig: Kubeconfig, hold: Duration, timeout: Duration) -> anyhow::Result<Self> {
        use anyhow::Context;
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await.context("invalid kubeconfig")?;
        let client = kube::Client::try_from(config).context("cannot build a client")?;
        client.apiserver_version().await.context("cannot reach the API server")?;
        Ok(Self {
            client,
            name: "kubeconfig",
            hold,
            timeout,
            collector: None,
            controller_managers: None,
            path: None,
            keep: None,
            plane: None,
        })
    }

    /// The same backend, called `name` in reports.
    pub fn named(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// The same backend, with `collector` doing the garbage collection: the backend stops
    /// when it exits.
    pub fn watching(mut self, collector: impl Collector + 'static) -> Self {
        self.collector = Some(Box::new(collector));
        self
    }

    /// The same backend, letting scenarios start controller managers of their own from
    /// `upstream` with the admin `kubeconfig`.
    pub fn starting_controller_managers(mut self, upstream: Upstream, kubeconfig: PathBuf) -> Self {
        self.controller_managers = Some((upstream, kubeconfig));
        self
    }

    /// The same backend, keeping `guard` (for example the cluster's container) alive as long
    /// as itself.
    pub fn keeping(mut self, guard: impl std::any::Any + Send + Sync) -> Self {
        self.keep = Some(Box::new(guard));
        self
    }

    /// The same backend, running on `plane` of its own (which lives as long as it does).
    fn owning(mut self, plane: ControlPlane) -> Self {
        self.plane = Some(std::sync::Mutex::new(plane));
        self
    }
}

impl KubeconfigBackend {
    /// A control plane of the scenario's own from `upstream` with `spec`'s nodes — the real
    /// scheduler and hollow nodes — and every default controller (the garbage collector
    /// kube-controller-manager's own, whichever this backend runs).
    async fn with_nodes(&self, upstream: &Upstream, spec: &OwnCluster) -> Result<KubeconfigBackend, String> {
        if !spec.controllers().is_empty() {
            return Err("a cluster of its own with nodes cannot also set controllers on the upstream control plane yet".into());
        }
        let nodes = crate::backend::hollow_nodes(spec.nodes).map_err(|e| format!("{e:#}"))?;
        let plane = ControlPlane::start_with_nodes(upstream, DEFAULT_CONTROLLERS, Some(&nodes))
            .await
            .map_err(|e| format!("cannot start a control plane with {} hollow nodes: {e:#}", spec.nodes))?;
        let backend = KubeconfigBackend::connect(plane.kubeconfig(), self.hold, self.timeout).await.map_err(|e| format!("{e:#}"))?;
        let kubeconfig = plane.kubeconfig().to_path_buf();
        Ok(backend.named(self.name).starting_controller_managers(upstream.clone(), kubeconfig).owning(plane))
    }
}

impl Backend for KubeconfigBackend {
    fn name(&self) -> &str {
        self.name
    }

    fn client(&self) -> kube::Client {
        self.client.clone()
    }

    fn kubeconfig(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn settle(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            tokio::time::sleep(self.hold).await;
            Ok(())
        })
    }

    fn eventually_timeout(&self) -> Duration {
        self.timeout
    }

    fn outlives_run(&self) -> bool {
        // A cluster the run started (a control plane, a container) goes with it.
        self.keep.is_none() && self.plane.is_none()
    }

    fn stopped(&self) -> BoxFuture<'_, String> {
        match &self.collector {
            Some(collector) => Box::pin(exit_of(&**collector)),
            None => Box::pin(futures::future::pending()),
        }
    }

    fn gives_own_clusters(&self) -> bool {
        self.controller_managers.is_some()
    }

    fn own_cluster(&self, spec: &OwnCluster) -> BoxFuture<'_, Result<Own, String>> {
        let spec = spec.clone();
        Box::pin(async move {
            let (upstream, kubeconfig) = self.controller_managers.as_ref().ok_or("no controller manager can be started here")?;
            if spec.disks.is_some() {
                return Err("the nodes' disks are those of the fake's kubelet model (scenarios that set them are @fake-only)".into());
            }
            if spec.nodes > 0 {
                return self.with_nodes(upstream, &spec).await.map(|backend| Own::Backend(std::sync::Arc::new(backend)));
            }
            let controllers = spec.controllers();
            if controllers.is_empty() {
                return Ok(Own::Guard(Box::new(())));
            }
            let flags = spec.controller_manager_flags();
            let kcm = ControllerManager::spawn_with_flags(upstream, kubeconfig, &controllers.join(","), Tuning::default(), &flags)
                .await
                .map_err(|e| format!("cannot start a controller manager with {}: {e:#}", flags.join(" ")))?;
            Ok(Own::Guard(Box::new(kcm)))
        })
    }

    fn set_instance(&self, node: &str, instance: kubegc::cloud::Instance) -> BoxFuture<'_, Result<(), String>> {
        let result = match &self.plane {
            Some(plane) => {
                let state = serde_json::to_value(instance).unwrap_or_default();
                let mut plane = plane.lock().unwrap_or_else(|e| e.into_inner());
                plane.set_instance(node, state.as_str().unwrap_or("running")).map_err(|e| format!("{e:#}"))
            }
            None => Err("only a cluster of its own with nodes has a cloud a scenario controls here".into()),
        };
        Box::pin(async move { result })
    }

    fn can_run(&self, tags: &[String]) -> Result<(), String> {
        if tags.iter().any(|t| t == "kubelet") {
            Err("@kubelet scenarios run on the reference kubelet model, which only the fake backend hosts".into())
        } else if tags.iter().any(|t| t == "fake-only") {
            Err("@fake-only scenarios need the fake backend".into())
        } else {
            Ok(())
        }
    }
}
