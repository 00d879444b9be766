//! `kubegc run`: run scenarios against a backend and report.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use kubegc::apiserver::ApiServer;
use kubegc::apiserver::mutant::Mutant as ApiServerMutant;
use kubegc_harness::backend::Backend;
use kubegc_harness::backend::external::ExternalGcBackend;
use kubegc_harness::backend::fake::{FakeBackend, Recipe};
use kubegc_harness::backend::kubeconfig::KubeconfigBackend;
use kubegc_harness::backend::upstream::{self, Collector};
use kubegc_harness::runner::{RunOptions, run as run_features};
use kubegc_harness::{features, tags};

/// Where scenarios run.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The in-process fake apiserver (with the reference garbage collector unless `--gc` says
    /// otherwise).
    Fake,
    /// The real control plane (etcd, kube-apiserver, kube-controller-manager) of the pinned
    /// release, built from `upstream/` and run on loopback (with its own garbage collector
    /// unless `--gc` says otherwise).
    Upstream,
    /// The cluster of a kubeconfig (its own garbage collector does the work).
    Kubeconfig,
    /// A kind cluster made from `ci/kind.yaml` (reused if it exists), through the kind CLI.
    Kind,
    /// A k3s cluster in a container, removed afterwards (needs a Docker engine and a kubegc
    /// built with `--features k3s`).
    K3s,
}

/// Which garbage collector works on the fake or upstream backend.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcChoice {
    /// kubegc's reference collector, in process.
    Reference,
    /// The real one: kube-controller-manager's garbage collector, built from `upstream/`.
    Upstream,
    /// None: only the apiserver's half of deletion (most scenarios then fail, showing which
    /// behaviour needs a collector).
    None,
    /// A third party's collector, started with `--gc-command` against the target's API server
    /// (the fake one served on a loopback port).
    External,
}

/// What acts on the fake node of `@kubelet` scenarios.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum KubeletChoice {
    /// kubegc's model of the kubelet (`kubegc::kubelet`), in process.
    Reference,
    /// The kubelet's own code of the pinned release, through kubegc's kubelet driver built
    /// from `upstream/` (built first if need be, which takes minutes the first time).
    Upstream,
}

/// Arguments of `kubegc run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Backend to run on.
    #[arg(long, value_enum, default_value_t = Target::Fake)]
    pub target: Target,
    /// Kubeconfig for `--target kubeconfig` (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long)]
    pub kubeconfig: Option<PathBuf>,
    /// Garbage collector for `--target fake` (default: reference) or `--target upstream`
    /// (default: upstream); other clusters bring their own.
    #[arg(long, value_enum)]
    pub gc: Option<GcChoice>,
    /// With `--gc external`: the command starting the collector (run by `sh -c`);
    /// `{kubeconfig}` is replaced by the path of a kubeconfig for the target's API server.
    /// Example: `kubegc gc --kubeconfig {kubeconfig}`. If it exits, the run fails at once
    /// (exit 1) with its exit status and the last lines of its stderr.
    #[arg(long)]
    pub gc_command: Option<String>,
    /// Feature files or directories (repeatable; default: $KUBEGC_FEATURES, else the
    /// specification built into kubegc).
    #[arg(long = "features")]
    pub features: Vec<PathBuf>,
    /// Tag expression selecting scenarios, e.g. '@foreground and not @fake-only'; one that
    /// selects no scenario is an error (exit 2).
    #[arg(long)]
    pub tags: Option<String>,
    /// Scenarios run at once.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Stop at the first failing scenario.
    #[arg(long)]
    pub fail_fast: bool,
    /// Also write a JUnit XML report (one testcase per scenario) to this file.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// On a cluster or with an external collector: seconds negative assertions wait before
    /// checking.
    #[arg(long, default_value_t = 3)]
    pub hold_seconds: u64,
    /// On a cluster: seconds positive assertions may wait.
    #[arg(long, default_value_t = 60)]
    pub timeout_seconds: u64,
    /// Run the fake apiserver with one deliberately broken rule, to see which scenarios catch
    /// it (`--target fake` only). `kubegc run --apiserver-mutant help` lists them.
    #[arg(long, value_name = "MUTANT")]
    pub apiserver_mutant: Option<ApiServerMutant>,
    /// The reference cleanup controllers to run on the fake (`--target fake` only), as
    /// kube-controller-manager's `--controllers` lists them: `*` for every one, a name to add
    /// one, `-name` to leave one out, "" for none (see `kubegc serve --help` for the names).
    #[arg(long, default_value = "*", value_parser = kubegc::cleanup::Config::select)]
    pub cleanup: kubegc::cleanup::Config,
    /// What runs the `@kubelet` scenarios' node: kubegc's kubelet model, or the kubelet's own
    /// garbage collection code (the other scenarios are not affected).
    #[arg(long, value_enum, default_value_t = KubeletChoice::Reference)]
    pub kubelet: KubeletChoice,
}

/// Runs the scenarios; `Ok(false)` when any failed.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    let paths = features::or_default(args.features)?;
    features::ensure_exist(&paths)?;
    let tags = args.tags.as_deref().map(|expr| tags::selecting(expr, &paths)).transpose()?;
    let hold = Duration::from_secs(args.hold_seconds);
    let timeout = Duration::from_secs(args.timeout_seconds);
    anyhow::ensure!(args.gc_command.is_none() || args.gc == Some(GcChoice::External), "--gc-command needs --gc external");
    anyhow::ensure!(
        matches!(args.target, Target::Fake | Target::Upstream) || args.gc.is_none(),
        "--gc applies to --target fake and upstream; other clusters bring their own collector"
    );
    anyhow::ensure!(args.target == Target::Fake || args.apiserver_mutant.is_none(), "--apiserver-mutant applies to --target fake only");
    anyhow::ensure!(
        args.target == Target::Fake || args.cleanup.selected() == kubegc::cleanup::Config::names(),
        "--cleanup applies to --target fake only; other clusters bring their own controllers"
    );
    let gc_command = || args.gc_command.clone().context("--gc external needs --gc-command");
    let server = || ApiServer::with_config(kubegc::apiserver::Config { mutant: args.apiserver_mutant, ..Default::default() });
    let backend: Arc<dyn Backend> = match (args.target, args.gc) {
        (Target::Fake, None | Some(GcChoice::Reference | GcChoice::None)) => {
            let collector = (args.gc != Some(GcChoice::None)).then(kubegc::gc::Config::default);
            let recipe = Recipe { server_mutant: args.apiserver_mutant, collector, cleanup: args.cleanup.clone(), workload_mutant: None };
            Arc::new(FakeBackend::from_recipe(server(), recipe))
        }
        (Target::Fake, Some(GcChoice::External)) => Arc::new(ExternalGcBackend::start(server(), &gc_command()?, hold, timeout).await?),
        (Target::Fake, Some(GcChoice::Upstream)) => Arc::new(ExternalGcBackend::start_upstream(server(), hold, timeout).await?),
        (Target::Upstream, gc) => {
            let collector = match gc {
                None | Some(GcChoice::Upstream) => Collector::Upstream,
                Some(GcChoice::Reference) => Collector::Reference,
                Some(GcChoice::None) => Collector::None,
                Some(GcChoice::External) => Collector::External(gc_command()?),
            };
            Arc::new(upstream::start(collector, 0, hold, timeout).await?)
        }
        (Target::Kind, _) => {
            let kubeconfig = kind_cluster().await?;
            Arc::new(KubeconfigBackend::connect(kubeconfig.path(), hold, timeout).await?)
        }
        (Target::K3s, _) => k3s_backend(hold, timeout).await?,
        (Target::Kubeconfig, _) => {
            let path = match args.kubeconfig {
                Some(p) => p,
                None => default_kubeconfig().context("no --kubeconfig given and no default kubeconfig found")?,
            };
            Arc::new(KubeconfigBackend::connect(&path, hold, timeout).await?)
        }
    };
    let kubelet_driver = match args.kubelet {
        KubeletChoice::Reference => None,
        KubeletChoice::Upstream => Some(
            tokio::task::spawn_blocking(kubegc_control_plane::build::kubelet_driver).await?.context("cannot build the kubelet driver")?,
        ),
    };
    let color = std::io::IsTerminal::is_terminal(&std::io::stdout()) && std::env::var_os("CI").is_none();
    let options = RunOptions {
        features: paths,
        tags,
        concurrency: args.concurrency,
        fail_fast: args.fail_fast,
        junit: args.junit,
        color,
        names: None,
        kubelet_driver,
    };
    // A collector that exits fails the run at once, rather than every scenario left by its
    // own timeout.
    let outcome = tokio::select! {
        outcome = run_features(backend.clone(), options) => outcome.context("cannot run the features")?,
        why = backend.stopped() => {
            eprintln!("kubegc: the run failed at once: {why}");
            return Ok(false);
        }
    };
    Ok(!outcome.failed)
}

/// A k3s cluster in a container, as a kubeconfig backend.
#[cfg(feature = "k3s")]
async fn k3s_backend(hold: Duration, timeout: Duration) -> anyhow::Result<Arc<dyn Backend>> {
    Ok(Arc::new(kubegc_harness::backend::k3s::start(hold, timeout).await?))
}

/// Without the `k3s` feature: says how to get it.
#[cfg(not(feature = "k3s"))]
async fn k3s_backend(_hold: Duration, _timeout: Duration) -> anyhow::Result<Arc<dyn Backend>> {
    anyhow::bail!("this kubegc was built without the k3s backend; build it with `cargo build --release -p kubegc-harness --features k3s`")
}

/// The name of the kind cluster in `ci/kind.yaml`.
const KIND_CLUSTER: &str = "kubegc";

/// Creates the kind cluster of `ci/kind.yaml` unless it exists; returns its kubeconfig.
async fn kind_cluster() -> anyhow::Result<tempfile::NamedTempFile> {
    use tokio::process::Command;
    let clusters = Command::new("kind").args(["get", "clusters"]).output().await.context("the kind CLI is not installed")?;
    let exists = String::from_utf8_lossy(&clusters.stdout).lines().any(|l| l.trim() == KIND_CLUSTER);
    if !exists {
        println!("creating kind cluster {KIND_CLUSTER} from ci/kind.yaml");
        let status = Command::new("kind").args(["create", "cluster", "--name", KIND_CLUSTER, "--config", "ci/kind.yaml"]).status().await?;
        anyhow::ensure!(status.success(), "kind create cluster failed ({status})");
    }
    let out = Command::new("kind").args(["get", "kubeconfig", "--name", KIND_CLUSTER]).output().await?;
    anyhow::ensure!(out.status.success(), "kind get kubeconfig failed: {}", String::from_utf8_lossy(&out.stderr));
    let mut file = tempfile::NamedTempFile::new()?;
    std::io::Write::write_all(&mut file, &out.stdout)?;
    Ok(file)
}

/// `$KUBECONFIG`, else `~/.kube/config`, if it exists.
pub fn default_kubeconfig() -> Option<PathBuf> {
    std::env::var_os("KUBECONFIG")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".kube/config")))
        .filter(|p| p.exists())
}
