//! `kubegc e2e`: Kubernetes' own end-to-end tests of the pinned release against a target, as
//! `kubegc run` runs the scenarios.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use kubegc::apiserver::ApiServer;
use kubegc_harness::backend::Backend;
use kubegc_harness::backend::external::{self, ExternalGcBackend, Served};
use kubegc_harness::backend::kubeconfig::KubeconfigBackend;
use kubegc_harness::backend::upstream::{self, Collector};
use kubegc_harness::e2e::nodes::Nodes;
use kubegc_harness::e2e::report::{self, Outcome, Verdict};
use kubegc_harness::e2e::runner::Runner;
use kubegc_harness::e2e::selection::Selection;

use crate::cmd::run::GcChoice;

/// Where the tests run.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The fake API server served on a loopback port, with the workload and cleanup
    /// controllers (and the reference garbage collector unless `--gc` says otherwise).
    Fake,
    /// The real control plane of the pinned release on loopback (with its own garbage
    /// collector unless `--gc` says otherwise).
    Upstream,
    /// The cluster of a kubeconfig, with its own collector and nodes.
    Kubeconfig,
}

/// Arguments of `kubegc e2e`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The selection to run: a name (`gc`, `deletion`: files of `upstream/e2e/selections/`)
    /// or the path of a selection file.
    #[arg(long, default_value = "gc")]
    pub selection: String,
    /// Run only the selection's tests whose name this regular expression matches.
    #[arg(long)]
    pub focus: Option<String>,
    /// Where the tests run.
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
    /// Example: `kubegc gc --kubeconfig {kubeconfig}`. If it exits, the run fails at once.
    #[arg(long)]
    pub gc_command: Option<String>,
    /// Nodes to start: on the fake, nodes whose agents run pods; on upstream, hollow nodes (the
    /// kubelet's own code on a fake container runtime) with the real scheduler; with `--gc
    /// external` or `upstream` on the fake, and on a kubeconfig's cluster, Node objects kept
    /// Ready by a heartbeat, which run no pods (default: 1, and 0 on a kubeconfig's cluster,
    /// whose own nodes serve).
    #[arg(long)]
    pub nodes: Option<usize>,
    /// Tests run at once (`[Serial]` ones run alone, after the others).
    #[arg(long, default_value_t = 6)]
    pub concurrency: usize,
    /// Seconds one test may take before it is stopped and counted as failed.
    #[arg(long, default_value_t = 600)]
    pub test_timeout_seconds: u64,
    /// Also write a JUnit XML report (one testcase per test) to this file.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Directory for each test's output and Ginkgo report (default: a temporary directory,
    /// kept and named when a test does not pass).
    #[arg(long)]
    pub logs: Option<PathBuf>,
    /// Print the selection (its tests, and the tests it leaves out, with why) and exit.
    #[arg(long)]
    pub list: bool,
}

/// Runs the selection; `Ok(false)` when a test failed or could not be judged.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    let selection = Selection::load(&args.selection)?;
    if args.list {
        print_selection(&selection);
        return Ok(true);
    }
    anyhow::ensure!(args.gc_command.is_none() || args.gc == Some(GcChoice::External), "--gc-command needs --gc external");
    anyhow::ensure!(
        args.target != Target::Kubeconfig || args.gc.is_none(),
        "--gc applies to --target fake and upstream; other clusters bring their own collector"
    );
    let focus = args.focus.as_deref().map(regex::Regex::new).transpose().context("invalid --focus")?;
    let names: Vec<String> = selection.names().into_iter().filter(|n| focus.as_ref().is_none_or(|f| f.is_match(n))).collect();
    anyhow::ensure!(!names.is_empty(), "--focus selects none of the selection's {} tests", selection.tests.len());

    let binary = tokio::task::spawn_blocking(kubegc_control_plane::build::e2e_tests).await?.context("cannot build the e2e tests")?;
    let release = kubegc_control_plane::build::Upstream::locate().release()?;
    let logs_dir = match &args.logs {
        Some(dir) => Logs::Kept(dir.clone()),
        None => Logs::Temporary(tempfile::Builder::new().prefix("kubegc-e2e-").tempdir()?),
    };
    let node_count = args.nodes.unwrap_or(if args.target == Target::Kubeconfig { 0 } else { 1 });
    let target = start(&args, node_count).await?;
    let heartbeat = match node_count {
        n if n > 0 && !target.runs_pods() => {
            Some(Nodes::start(target.client(), n, &release).await.context("cannot make the nodes the e2e tests need")?)
        }
        _ => None,
    };
    let runner = Runner {
        binary,
        kubeconfig: target.kubeconfig().to_path_buf(),
        nodes: (node_count > 0).then_some(node_count),
        logs: logs_dir.path().to_path_buf(),
        concurrency: args.concurrency,
        time_limit: Duration::from_secs(args.test_timeout_seconds),
    };
    check_names(&runner, &selection).await?;
    let label = target_label(&args);
    println!(
        "kubegc e2e: {} of Kubernetes {release}'s e2e tests ({}) on {label}, {} at a time",
        names.len(),
        args.selection,
        args.concurrency
    );
    let started = Instant::now();
    let outcomes = tokio::select! {
        outcomes = runner.run(&names, print_outcome) => outcomes?,
        why = target.stopped() => anyhow::bail!("the run stopped at once: {why}"),
    };
    drop(heartbeat);
    let count = |v: Verdict| outcomes.iter().filter(|o| o.verdict == v).count();
    let (passed, failed, skipped, errors) =
        (count(Verdict::Passed), count(Verdict::Failed), count(Verdict::Skipped), count(Verdict::Error));
    println!(
        "kubegc e2e: {passed} passed, {failed} failed, {skipped} skipped, {errors} not judged (harness errors) of {} on {label} in {} s",
        outcomes.len(),
        started.elapsed().as_secs()
    );
    if let Some(path) = &args.junit {
        report::write_junit(path, &format!("kubegc e2e {} on {label}", args.selection), &outcomes)?;
    }
    let ok = failed == 0 && errors == 0;
    if !ok || args.logs.is_some() {
        println!("kubegc e2e: each test's output and Ginkgo report are in {}", logs_dir.keep().display());
    }
    Ok(ok)
}

/// Prints one test's outcome as it ends: the verdict, the time and, unless it passed, the
/// reason in one line.
fn print_outcome(outcome: &Outcome) {
    let took = outcome.took.as_secs();
    match outcome.verdict {
        Verdict::Passed => println!("{} ({took} s) {}", outcome.verdict.label(), outcome.name),
        _ => println!(
            "{} ({took} s) {}\n    {}{}",
            outcome.verdict.label(),
            outcome.name,
            if outcome.location.is_empty() { String::new() } else { format!("{}: ", outcome.location) },
            outcome.one_line_reason(400)
        ),
    }
}

fn print_selection(selection: &Selection) {
    println!("{}\n", selection.about.trim());
    println!("Tests ({}):", selection.tests.len());
    for t in &selection.tests {
        println!("  {}\n      {}", t.name, t.why.trim());
    }
    if !selection.excluded.is_empty() {
        println!("\nLeft out ({}):", selection.excluded.len());
        for t in &selection.excluded {
            println!("  {}\n      {}", t.name, t.why.trim());
        }
    }
}

/// Fails, naming them, when tests of the selection (run or left out) are not in the e2e
/// binary: a selection names the pinned release's tests exactly.
async fn check_names(runner: &Runner, selection: &Selection) -> anyhow::Result<()> {
    let known: std::collections::HashSet<String> = runner.list().await?.into_iter().collect();
    let unknown: Vec<&str> =
        selection.tests.iter().chain(&selection.excluded).map(|t| t.name.as_str()).filter(|n| !known.contains(*n)).collect();
    anyhow::ensure!(
        unknown.is_empty(),
        "the selection names tests that the e2e binary of the pinned release does not have:\n  {}",
        unknown.join("\n  ")
    );
    Ok(())
}

fn target_label(args: &Args) -> String {
    match (args.target, args.gc) {
        (Target::Kubeconfig, _) => "the kubeconfig's cluster".into(),
        (Target::Fake, None) => "the fake (reference gc)".into(),
        (Target::Upstream, None) => "upstream (upstream gc)".into(),
        (target, Some(gc)) => format!("{} ({} gc)", format!("{target:?}").to_lowercase(), format!("{gc:?}").to_lowercase()),
    }
}

/// Where test logs go.
enum Logs {
    /// A directory the user named.
    Kept(PathBuf),
    /// A temporary one, removed unless kept.
    Temporary(tempfile::TempDir),
}

impl Logs {
    fn path(&self) -> &Path {
        match self {
            Logs::Kept(p) => p,
            Logs::Temporary(d) => d.path(),
        }
    }

    /// The directory, no longer removed at exit.
    fn keep(self) -> PathBuf {
        match self {
            Logs::Kept(p) => p,
            Logs::Temporary(d) => d.keep(),
        }
    }
}

/// A running target with a kubeconfig file for it.
enum Running {
    /// The fake, served, with its controllers in this process.
    Fake { cluster: kubegc::Cluster, served: Served },
    /// A backend that serves itself over TCP (the fake with a collector outside this
    /// process, the upstream control plane, a kubeconfig's cluster); `runs_pods` when kubegc
    /// started it with nodes that run pods.
    Backend { backend: Arc<dyn Backend>, runs_pods: bool },
}

impl Running {
    fn kubeconfig(&self) -> &Path {
        match self {
            Running::Fake { served, .. } => &served.kubeconfig,
            Running::Backend { backend, .. } => backend.kubeconfig().expect("backends started for the e2e tests are served over TCP"),
        }
    }

    fn client(&self) -> kube::Client {
        match self {
            Running::Fake { cluster, .. } => cluster.client(),
            Running::Backend { backend, .. } => backend.client(),
        }
    }

    /// Whether kubegc started the target with nodes that run pods (its own node agents, or
    /// hollow nodes), so that no heartbeat needs to keep Node objects Ready.
    fn runs_pods(&self) -> bool {
        match self {
            Running::Fake { .. } => true,
            Running::Backend { runs_pods, .. } => *runs_pods,
        }
    }

    /// Resolves, with why, when the target can no longer judge a test (a collector run as a
    /// process of its own exited).
    async fn stopped(&self) -> String {
        match self {
            Running::Fake { .. } => futures::future::pending().await,
            Running::Backend { backend, .. } => backend.stopped().await,
        }
    }
}

/// Starts the target `args` name, on the fake and upstream with `nodes` nodes that run pods
/// (none with a collector of `--gc external` or `upstream` on the fake).
async fn start(args: &Args, nodes: usize) -> anyhow::Result<Running> {
    // The e2e tests wait by themselves: these only matter to kubegc's own scenarios.
    let (hold, timeout) = (Duration::from_secs(3), Duration::from_secs(60));
    let gc_command = || args.gc_command.clone().context("--gc external needs --gc-command");
    Ok(match (args.target, args.gc) {
        (Target::Fake, None | Some(GcChoice::Reference | GcChoice::None)) => {
            let mut builder = kubegc::Cluster::builder().nodes(nodes);
            if args.gc == Some(GcChoice::None) {
                builder = builder.without_collector();
            }
            let cluster = builder.start();
            let served = external::serve(cluster.server()).await?;
            Running::Fake { cluster, served }
        }
        (Target::Fake, Some(GcChoice::External)) => {
            let backend = Arc::new(ExternalGcBackend::start(ApiServer::new(), &gc_command()?, hold, timeout).await?);
            Running::Backend { backend, runs_pods: false }
        }
        (Target::Fake, Some(GcChoice::Upstream)) => {
            let backend = Arc::new(ExternalGcBackend::start_upstream(ApiServer::new(), hold, timeout).await?);
            Running::Backend { backend, runs_pods: false }
        }
        (Target::Upstream, gc) => {
            let collector = match gc {
                None | Some(GcChoice::Upstream) => Collector::Upstream,
                Some(GcChoice::Reference) => Collector::Reference,
                Some(GcChoice::None) => Collector::None,
                Some(GcChoice::External) => Collector::External(gc_command()?),
            };
            Running::Backend { backend: Arc::new(upstream::start(collector, nodes, hold, timeout).await?), runs_pods: true }
        }
        (Target::Kubeconfig, _) => {
            let path = match &args.kubeconfig {
                Some(p) => p.clone(),
                None => crate::cmd::run::default_kubeconfig().context("no --kubeconfig given and no default kubeconfig found")?,
            };
            Running::Backend { backend: Arc::new(KubeconfigBackend::connect(&path, hold, timeout).await?), runs_pods: false }
        }
    })
}
