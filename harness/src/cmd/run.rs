//! `kubegc run`: run scenarios against a backend and report.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use kubegc_harness::backend::Backend;
use kubegc_harness::backend::fake::FakeBackend;
use kubegc_harness::backend::kubeconfig::KubeconfigBackend;
use kubegc_harness::runner::{RunOptions, run as run_features};

/// Where scenarios run.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The in-process fake apiserver with the reference garbage collector.
    Fake,
    /// The cluster of a kubeconfig (its own garbage collector does the work).
    Kubeconfig,
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
    /// Feature files or directories (repeatable).
    #[arg(long = "features", default_value = "features")]
    pub features: Vec<PathBuf>,
    /// Tag expression selecting scenarios, e.g. '@upstream and not @slow'.
    #[arg(long)]
    pub tags: Option<String>,
    /// Scenarios run at once.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Stop at the first failing scenario.
    #[arg(long)]
    pub fail_fast: bool,
    /// On a cluster: seconds negative assertions wait before checking.
    #[arg(long, default_value_t = 5)]
    pub hold_seconds: u64,
    /// On a cluster: seconds positive assertions may wait.
    #[arg(long, default_value_t = 60)]
    pub timeout_seconds: u64,
}

/// Runs the scenarios; `Ok(false)` when any failed.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    for path in &args.features {
        anyhow::ensure!(path.exists(), "no feature files at {}", path.display());
    }
    let tags = args.tags.as_deref().map(str::parse).transpose().map_err(|e| anyhow::anyhow!("invalid --tags expression: {e:?}"))?;
    let backend: Arc<dyn Backend> = match args.target {
        Target::Fake => Arc::new(FakeBackend::start()),
        Target::Kubeconfig => {
            let path = match args.kubeconfig {
                Some(p) => p,
                None => default_kubeconfig().context("no --kubeconfig given and no default kubeconfig found")?,
            };
            let hold = Duration::from_secs(args.hold_seconds);
            Arc::new(KubeconfigBackend::connect(&path, hold, Duration::from_secs(args.timeout_seconds)).await?)
        }
    };
    let options = RunOptions { features: args.features, tags, concurrency: args.concurrency, fail_fast: args.fail_fast };
    Ok(!run_features(backend, options).await.failed)
}

fn default_kubeconfig() -> Option<PathBuf> {
    std::env::var_os("KUBECONFIG")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".kube/config")))
        .filter(|p| p.exists())
}
