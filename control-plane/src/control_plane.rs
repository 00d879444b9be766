//! The real control plane on loopback: etcd, kube-apiserver and kube-controller-manager as
//! built from the pinned module, configured as a kubeadm cluster is (Node and RBAC
//! authorization, the default admission plugins, each controller with its own service account).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use base64::Engine;
use tracing::instrument::WithSubscriber;

use super::build::{Component, Upstream};
use super::pki;
use super::process::Process;

/// What `--controllers` a real cluster runs: every controller enabled by default.
pub const DEFAULT_CONTROLLERS: &str = "*";

/// `--controllers` for the garbage collector alone.
pub const GARBAGE_COLLECTOR_ONLY: &str = "garbage-collector-controller";

/// `--controllers` for everything a cluster runs but its garbage collector (for another in
/// its place).
pub const ALL_BUT_GARBAGE_COLLECTOR: &str = "*,-garbage-collector-controller";

/// The controller manager's client rate limit (requests per second; upstream's default is 20).
pub const CONTROLLER_QPS: u32 = 500;

/// The controller manager's client rate limit and garbage collector workers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// `--kube-api-qps`: requests per second of each client (upstream's default is 20).
    pub qps: f32,
    /// `--kube-api-burst`: requests a client may make at once (upstream's default is 30).
    pub burst: u32,
    /// `--concurrent-gc-syncs`: the garbage collector's workers (upstream's default is 20).
    pub gc_syncs: u32,
}

impl Tuning {
    /// kube-controller-manager's own defaults: 20 requests/s, bursts of 30, 20 collector workers.
    pub const UPSTREAM_DEFAULTS: Tuning = Tuning { qps: 20.0, burst: 30, gc_syncs: 20 };
}

impl Default for Tuning {
    /// [`CONTROLLER_QPS`] with twice that burst, and upstream's 20 garbage collector workers.
    fn default() -> Self {
        Self { qps: CONTROLLER_QPS as f32, burst: 2 * CONTROLLER_QPS, gc_syncs: 20 }
    }
}

/// How long the API server may take to become ready.
const READY_TIMEOUT: Duration = Duration::from_secs(120);

/// The address range of Services (kubeadm's default).
const SERVICE_CIDR: &str = "10.96.0.0/12";

/// The name of the cloud node lifecycle controller's process.
const CLOUD_CONTROLLER: &str = "kubegc-cloud-controller";

/// How long hollow nodes may take to register and become Ready.
const NODES_READY_TIMEOUT: Duration = Duration::from_secs(120);

/// Nodes to run beside a control plane: the real scheduler, and hollow nodes (the release's
/// kubelet on a fake container runtime, [`Component::HollowNode`]) named `node-1` … `node-N`.
#[derive(Clone, Debug)]
pub struct HollowNodes {
    /// How many nodes.
    pub count: usize,
    /// The program that says what a container's command does, run as `PROGRAM program --
    /// ARGV…` (kubegc itself).
    pub programs: PathBuf,
}

/// A running control plane; everything stops, and its files go, when it is dropped.
#[derive(Debug)]
pub struct ControlPlane {
    /// In start order; stopped in reverse.
    processes: Vec<Process>,
    /// The admin kubeconfig (user `kubegc-admin` in `system:masters`).
    kubeconfig: PathBuf,
    /// Certificates, tokens, kubeconfigs, etcd's data and the logs.
    dir: tempfile::TempDir,
}

impl ControlPlane {
    /// Builds what is missing, starts etcd, the API server and (unless `controllers` is empty)
    /// the controller manager with those controllers, and returns once the API server is ready
    /// and the garbage collector (if it runs) has synced its monitors.
    pub async fn start(upstream: &Upstream, controllers: &str) -> anyhow::Result<Self> {
        Self::start_with_nodes(upstream, controllers, None).await
    }

    /// As [`ControlPlane::start`], then with `nodes`: starts the scheduler and the hollow nodes,
    /// each under its own identity (`system:kube-scheduler`; `system:node:NAME` in
    /// `system:nodes`, which the Node authorizer serves), and returns once every node is Ready.
    pub async fn start_with_nodes(upstream: &Upstream, controllers: &str, nodes: Option<&HollowNodes>) -> anyhow::Result<Self> {
        let mut components = vec![Component::Etcd, Component::KubeApiserver, Component::KubeControllerManager];
        let nodes = nodes.filter(|n| n.count > 0);
        if nodes.is_some() {
            components.extend([Component::KubeScheduler, Component::HollowNode, Component::CloudController]);
        }
        let build = upstream.clone();
        tokio::task::spawn_blocking(move || build.ensure(&components)).await??;
        let dir = tempfile::Builder::new().prefix("kubegc-upstream-").tempdir()?;
        let path = &dir.path().to_path_buf();
        std::fs::create_dir_all(path.join("logs"))?;
        pki::write(path)?;
        let [etcd_port, etcd_peer_port, api_port] = free_ports()?;
        let server = format!("https://127.0.0.1:{api_port}");
        // Every identity: a file name for its kubeconfig, the user and its groups.
        let mut identities = vec![
            ("admin".to_string(), "kubegc-admin".to_string(), "system:masters"),
            ("controller-manager".into(), "system:kube-controller-manager".into(), ""),
            ("scheduler".into(), "system:kube-scheduler".into(), ""),
        ];
        identities
            .extend((1..=nodes.map_or(0, |n| n.count)).map(|i| (node_name(i), format!("system:node:{}", node_name(i)), "system:nodes")));
        let mut tokens = String::new();
        for (file, user, groups) in &identities {
            let token = uuid::Uuid::new_v4().simple().to_string();
            let groups = if groups.is_empty() { String::new() } else { format!(",\"{groups}\"") };
            tokens.push_str(&format!("{token},{user},{user}{groups}\n"));
            write_kubeconfig(&path.join(format!("{file}.kubeconfig")), &server, &path.join("ca.crt"), user, &token)?;
        }
        std::fs::write(path.join("tokens.csv"), tokens)?;
        let kubeconfig = path.join("admin.kubeconfig");

        let mut plane = Self { processes: Vec::new(), kubeconfig, dir };
        let logs = path.join("logs");
        plane.processes.push(Process::spawn(
            "etcd",
            &upstream.binary(Component::Etcd),
            &etcd_args(path, etcd_port, etcd_peer_port),
            &logs,
        )?);
        plane.processes.push(Process::spawn(
            "kube-apiserver",
            &upstream.binary(Component::KubeApiserver),
            &apiserver_args(path, etcd_port, api_port),
            &logs,
        )?);
        plane.wait_ready().await?;
        if !controllers.is_empty() {
            let kcm = ControllerManager::args(&path.join("controller-manager.kubeconfig"), controllers, Tuning::default(), Some(path));
            plane.processes.push(Process::spawn(
                "kube-controller-manager",
                &upstream.binary(Component::KubeControllerManager),
                &kcm,
                &logs,
            )?);
            if runs_garbage_collector(controllers) {
                wait_for_gc_sync(plane.processes.last_mut().expect("just started")).await?;
            }
        }
        if let Some(nodes) = nodes {
            plane.start_nodes(upstream, nodes).await?;
        }
        Ok(plane)
    }

    /// Starts the scheduler and `nodes`, and waits until every node is Ready.
    async fn start_nodes(&mut self, upstream: &Upstream, nodes: &HollowNodes) -> anyhow::Result<()> {
        let path = self.dir.path().to_path_buf();
        let logs = path.join("logs");
        let [scheduler_port] = free_ports()?;
        let scheduler = [
            format!("--kubeconfig={}", path.join("scheduler.kubeconfig").display()),
            "--leader-elect=false".into(),
            "--bind-address=127.0.0.1".into(),
            format!("--secure-port={scheduler_port}"),
        ];
        self.processes.push(Process::spawn("kube-scheduler", &upstream.binary(Component::KubeScheduler), &scheduler, &logs)?);
        for i in 1..=nodes.count {
            let name = node_name(i);
            let [port] = free_ports()?;
            let args = [
                format!("--kubeconfig={}", path.join(format!("{name}.kubeconfig")).display()),
                format!("--name={name}"),
                format!("--port={port}"),
                format!("--programs={}", nodes.programs.display()),
            ];
            self.processes.push(Process::spawn(name, &upstream.binary(Component::HollowNode), &args, &logs)?);
        }
        let cloud = [format!("--kubeconfig={}", self.kubeconfig.display()), format!("--cloud-file={}", self.cloud_file().display())];
        self.processes.push(Process::spawn(CLOUD_CONTROLLER, &upstream.binary(Component::CloudController), &cloud, &logs)?);
        self.wait_nodes_ready(nodes.count).await
    }

    /// The file the cloud controller's fake cloud reads: `{"instances": {"node-1": "gone"}}`
    /// (a node it does not name runs).
    fn cloud_file(&self) -> PathBuf {
        self.dir.path().join("cloud.json")
    }

    /// Says that the machine of hollow node `node` is now `instance` (`running`, `shutdown` or
    /// `gone`) to the cloud controller's fake cloud; a machine that is not running freezes its
    /// hollow node's kubelet, which then neither reports nor renews its Lease.
    pub fn set_instance(&mut self, node: &str, instance: &str) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.processes.iter().any(|p| p.name() == CLOUD_CONTROLLER),
            "this control plane runs no cloud controller (it has no hollow nodes)"
        );
        let path = self.cloud_file();
        let mut cloud: serde_json::Value = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)?,
            Err(_) => serde_json::json!({"instances": {}}),
        };
        cloud["instances"][node] = serde_json::json!(instance);
        let written = path.with_extension("json.new");
        std::fs::write(&written, serde_json::to_vec(&cloud)?)?;
        std::fs::rename(&written, &path)?;
        if instance != "running" {
            if let Some(kubelet) = self.processes.iter_mut().find(|p| p.name() == node) {
                kubelet.freeze();
            }
        }
        Ok(())
    }

    /// Polls the Nodes until `count` of them are Ready, failing if a component exits.
    async fn wait_nodes_ready(&mut self, count: usize) -> anyhow::Result<()> {
        let nodes: kube::Api<k8s_openapi::api::core::v1::Node> = kube::Api::all(self.admin_client().await?);
        let started = Instant::now();
        loop {
            self.check_running()?;
            let ready = nodes.list(&Default::default()).await.map_or(0, |list| {
                let conditions = list.items.into_iter().filter_map(|n| n.status?.conditions);
                conditions.filter(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True")).count()
            });
            if ready >= count {
                return Ok(());
            }
            if started.elapsed() > NODES_READY_TIMEOUT {
                bail!(
                    "{ready} of {count} hollow nodes are Ready after {} s; logs in {}",
                    NODES_READY_TIMEOUT.as_secs(),
                    self.log_dir().display()
                );
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// A client of the admin kubeconfig.
    async fn admin_client(&self) -> anyhow::Result<kube::Client> {
        let config =
            kube::Config::from_custom_kubeconfig(kube::config::Kubeconfig::read_from(&self.kubeconfig)?, &Default::default()).await?;
        Ok(kube::Client::try_from(config)?)
    }

    /// The admin kubeconfig.
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// Where the components' logs are.
    pub fn log_dir(&self) -> PathBuf {
        self.dir.path().join("logs")
    }

    /// Fails if a component has exited.
    pub fn check_running(&mut self) -> anyhow::Result<()> {
        self.processes.iter_mut().try_for_each(Process::check_running)
    }

    /// Polls the API server's `/readyz` until it answers ok, failing if a component exits.
    async fn wait_ready(&mut self) -> anyhow::Result<()> {
        let client = self.admin_client().await?;
        let started = Instant::now();
        loop {
            self.check_running()?;
            let request = http::Request::get("/readyz").body(Vec::new())?;
            // The client logs every refused connection and 500 as an error; these are expected.
            match client.request_text(request).with_subscriber(tracing::subscriber::NoSubscriber::default()).await {
                Ok(body) if body.trim() == "ok" => return Ok(()),
                result if started.elapsed() > READY_TIMEOUT => {
                    bail!(
                        "kube-apiserver is not ready after {} s ({result:?}); logs in {}",
                        READY_TIMEOUT.as_secs(),
                        self.log_dir().display()
                    )
                }
                _ => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        }
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        while let Some(mut p) = self.processes.pop() {
            p.stop(Duration::from_secs(10));
        }
    }
}

/// The upstream kube-controller-manager on its own, against any API server.
#[derive(Debug)]
pub struct ControllerManager {
    process: Process,
    _logs: tempfile::TempDir,
}

impl ControllerManager {
    /// Starts the controller manager with `controllers` against the cluster of `kubeconfig`
    /// (every controller under the kubeconfig's own identity), and returns once the garbage
    /// collector, if it is one of them, has synced its monitors.
    pub async fn start(upstream: &Upstream, kubeconfig: &Path, controllers: &str) -> anyhow::Result<Self> {
        Self::start_with(upstream, kubeconfig, controllers, Tuning::default()).await
    }

    /// As [`ControllerManager::start`], with the client rate limit and garbage collector
    /// workers of `tuning`.
    pub async fn start_with(upstream: &Upstream, kubeconfig: &Path, controllers: &str, tuning: Tuning) -> anyhow::Result<Self> {
        let mut kcm = Self::spawn(upstream, kubeconfig, controllers, tuning).await?;
        if runs_garbage_collector(controllers) {
            wait_for_gc_sync(&mut kcm.process).await?;
        }
        Ok(kcm)
    }

    /// As [`ControllerManager::start_with`], but returns as soon as the process runs, without
    /// waiting for the garbage collector's sync (behind injected faults it may take long, and
    /// a collector killed before it syncs is what a cold restart may meet).
    pub async fn spawn(upstream: &Upstream, kubeconfig: &Path, controllers: &str, tuning: Tuning) -> anyhow::Result<Self> {
        Self::spawn_with_flags(upstream, kubeconfig, controllers, tuning, &[]).await
    }

    /// As [`ControllerManager::spawn`], with more command-line `flags` (controllers' settings,
    /// such as `--terminated-pod-gc-threshold=5`).
    pub async fn spawn_with_flags(
        upstream: &Upstream,
        kubeconfig: &Path,
        controllers: &str,
        tuning: Tuning,
        flags: &[String],
    ) -> anyhow::Result<Self> {
        let build = upstream.clone();
        tokio::task::spawn_blocking(move || build.ensure(&[Component::KubeControllerManager])).await??;
        let logs = tempfile::Builder::new().prefix("kubegc-kcm-").tempdir()?;
        let mut args = Self::args(kubeconfig, controllers, tuning, None);
        args.extend_from_slice(flags);
        let process = Process::spawn("kube-controller-manager", &upstream.binary(Component::KubeControllerManager), &args, logs.path())?;
        Ok(Self { process, _logs: logs })
    }

    /// Kills the controller manager at once (SIGKILL right after SIGTERM, no grace), as a
    /// crash would.
    pub fn kill(mut self) {
        self.process.stop(Duration::ZERO);
    }

    /// Fails if the controller manager has exited.
    pub fn check_running(&mut self) -> anyhow::Result<()> {
        self.process.check_running()
    }

    /// The command line; with `pki` (a control plane's own directory), controllers use their own
    /// service accounts and the cluster CA signs and is published, as on a kubeadm cluster.
    fn args(kubeconfig: &Path, controllers: &str, tuning: Tuning, pki: Option<&Path>) -> Vec<String> {
        let mut args = vec![
            format!("--kubeconfig={}", kubeconfig.display()),
            format!("--controllers={controllers}"),
            "--leader-elect=false".into(),
            "--secure-port=0".into(),
            // Each controller's client is limited to 20 requests/s by default. On loopback that
            // only queues work: the namespace controller needs about a hundred requests per
            // namespace, so a specification run's namespaces would wait minutes for it (hence
            // the higher default tuning).
            format!("--kube-api-qps={}", tuning.qps),
            format!("--kube-api-burst={}", tuning.burst),
            format!("--concurrent-gc-syncs={}", tuning.gc_syncs),
        ];
        match pki {
            Some(dir) => args.extend([
                "--use-service-account-credentials=true".into(),
                format!("--service-account-private-key-file={}", dir.join("sa.key").display()),
                format!("--root-ca-file={}", dir.join("ca.crt").display()),
                format!("--cluster-signing-cert-file={}", dir.join("ca.crt").display()),
                format!("--cluster-signing-key-file={}", dir.join("ca.key").display()),
                format!("--service-cluster-ip-range={SERVICE_CIDR}"),
            ]),
            None => args.push("--use-service-account-credentials=false".into()),
        }
        args
    }
}

/// Whether a `--controllers` list turns the garbage collector on.
fn runs_garbage_collector(controllers: &str) -> bool {
    let items: Vec<&str> = controllers.split(',').map(str::trim).collect();
    let named = |n: &str| items.contains(&n);
    let off = named("-garbage-collector-controller") || named("-garbagecollector");
    !off && (named("*") || named("garbage-collector-controller") || named("garbagecollector"))
}

/// Waits until the controller manager's garbage collector says it proceeds to collect (after
/// its monitors synced, or after its initial sync timeout).
async fn wait_for_gc_sync(kcm: &mut Process) -> anyhow::Result<()> {
    let started = Instant::now();
    while !kcm.logged("Proceeding to collect garbage") {
        kcm.check_running()?;
        if started.elapsed() > READY_TIMEOUT {
            bail!("the garbage collector has not started after {} s:\n{}", READY_TIMEOUT.as_secs(), kcm.log_tail(20));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(())
}

fn etcd_args(dir: &Path, port: u16, peer_port: u16) -> Vec<String> {
    vec![
        "--name=kubegc".into(),
        format!("--data-dir={}", dir.join("etcd").display()),
        format!("--listen-client-urls=http://127.0.0.1:{port}"),
        format!("--advertise-client-urls=http://127.0.0.1:{port}"),
        format!("--listen-peer-urls=http://127.0.0.1:{peer_port}"),
        format!("--initial-advertise-peer-urls=http://127.0.0.1:{peer_port}"),
        format!("--initial-cluster=kubegc=http://127.0.0.1:{peer_port}"),
        // Scratch data: durability is not worth a fsync per write.
        "--unsafe-no-fsync=true".into(),
        "--log-level=warn".into(),
    ]
}

fn apiserver_args(dir: &Path, etcd_port: u16, port: u16) -> Vec<String> {
    let file = |name: &str| dir.join(name).display().to_string();
    vec![
        format!("--etcd-servers=http://127.0.0.1:{etcd_port}"),
        "--bind-address=127.0.0.1".into(),
        "--advertise-address=127.0.0.1".into(),
        // The endpoint reconciler refuses loopback addresses; nothing runs in-cluster to need it.
        "--endpoint-reconciler-type=none".into(),
        format!("--secure-port={port}"),
        format!("--cert-dir={}", file("certs")),
        format!("--tls-cert-file={}", file("apiserver.crt")),
        format!("--tls-private-key-file={}", file("apiserver.key")),
        format!("--client-ca-file={}", file("ca.crt")),
        format!("--token-auth-file={}", file("tokens.csv")),
        "--authorization-mode=Node,RBAC".into(),
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
        format!("--service-account-key-file={}", file("sa.pub")),
        format!("--service-account-signing-key-file={}", file("sa.key")),
        format!("--service-cluster-ip-range={SERVICE_CIDR}"),
        "--profiling=false".into(),
        // As clusters run it (kubeadm and kind set it): privileged containers are allowed.
        "--allow-privileged=true".into(),
    ]
}

/// The name of the `i`-th node (from 1), as the fake names its nodes too.
fn node_name(i: usize) -> String {
    format!("node-{i}")
}

/// A kubeconfig for `user` (by bearer token) at `server`, trusting the cluster CA.
fn write_kubeconfig(path: &Path, server: &str, ca: &Path, user: &str, token: &str) -> anyhow::Result<()> {
    let ca = base64::engine::general_purpose::STANDARD.encode(std::fs::read(ca)?);
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: upstream\n  cluster:\n    server: {server}\n    certificate-authority-data: {ca}\nusers:\n- name: {user}\n  user:\n    token: {token}\ncontexts:\n- name: upstream\n  context:\n    cluster: upstream\n    user: {user}\ncurrent-context: upstream\n"
    );
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `N` distinct free loopback ports.
fn free_ports<const N: usize>() -> anyhow::Result<[u16; N]> {
    let listeners: Vec<TcpListener> = (0..N).map(|_| TcpListener::bind("127.0.0.1:0")).collect::<Result<_, _>>()?;
    let ports: Vec<u16> = listeners.iter().map(|l| l.local_addr().map(|a| a.port())).collect::<Result<_, _>>()?;
    Ok(ports.try_into().expect("N ports"))
}
