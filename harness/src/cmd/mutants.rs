//! `kubegc mutants`: runs the specification on the fake backend against every mutant API
//! server, collector, cleanup controller and workload controller and reports which scenarios
//! catch which mutant.

use std::path::PathBuf;

use anyhow::Context;
use futures::StreamExt;
use kubegc_harness::mutation::{self, Matrix, Mutant, verdicts};
use kubegc_harness::runner::RunOptions;
use kubegc_harness::{features, junit, tags};

/// Arguments of `kubegc mutants`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Feature files or directories (repeatable; default: $KUBEGC_FEATURES, else the
    /// specification built into kubegc).
    #[arg(long = "features")]
    pub features: Vec<PathBuf>,
    /// Tag expression selecting scenarios (the kubelet model has its own mutants); one that
    /// selects no scenario is an error (exit 2).
    #[arg(long, default_value = "not @kubelet")]
    pub tags: String,
    /// Only the mutants whose name (`apiserver/ignore-preconditions`, `gc/never-orphan`,
    /// `cleanup/pod-gc-newest-first`, `workloads/cronjob-keeps-one-more`) starts with this
    /// (repeatable; `apiserver`, `gc`, `cleanup` or `workloads` for a whole family).
    #[arg(long)]
    pub only: Vec<String>,
    /// Scenarios run at once (most of a mutant's failing scenarios just wait).
    #[arg(long, default_value_t = 32)]
    pub concurrency: usize,
    /// Mutants judged at once (each on its own fake API server).
    #[arg(long, default_value_t = 3)]
    pub jobs: usize,
    /// Also write the report to this file.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Stop each mutant's run at the first scenario that fails under it: every mutant is still
    /// judged (caught or not), in a fraction of the time, but the report names only the
    /// scenarios that failed before the run stopped and cannot list the scenarios no mutant
    /// makes fail.
    #[arg(long)]
    pub first_catch: bool,
}

/// Runs the reference and each mutant; `Ok(false)` when the reference fails a scenario or a
/// mutant goes unnoticed.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    let paths = features::or_default(args.features)?;
    features::ensure_exist(&paths)?;
    let tags = tags::selecting(&args.tags, &paths)?;
    let mutants: Vec<Mutant> = Mutant::all()
        .into_iter()
        .filter(|m| args.only.is_empty() || args.only.iter().any(|o| m.to_string().starts_with(o.as_str())))
        .collect();
    anyhow::ensure!(!mutants.is_empty(), "--only selects no mutant; the mutants are: {}", names(&Mutant::all()));
    let options = RunOptions {
        features: paths,
        tags: Some(tags),
        concurrency: args.concurrency,
        fail_fast: false,
        junit: None,
        color: false,
        names: None,
        kubelet_driver: None,
    };
    let reference = mutation::report(None, &options).await.context("the reference run")?;
    let mut matrix = Matrix { reference: junit::verdicts(&reference), ..Matrix::default() };
    anyhow::ensure!(!matrix.reference.is_empty(), "no scenario matches");
    println!("reference: {} scenarios, {} failed", matrix.reference.len(), matrix.reference_failures().len());
    let failures = junit::failures(&reference);
    if !failures.is_empty() {
        // A mutant's verdicts mean nothing beside a reference that fails: stop here.
        for (scenario, message) in &failures {
            println!("the reference fails {}: {message}", junit::short(scenario));
        }
        return Ok(false);
    }
    let runs = futures::stream::iter(mutants.iter().copied())
        .map(|mutant| {
            let options = RunOptions { fail_fast: args.first_catch, ..options.clone() };
            async move { (mutant, verdicts(Some(mutant), &options).await) }
        })
        .buffer_unordered(args.jobs.max(1));
    futures::pin_mut!(runs);
    let mut done = 0;
    while let Some((mutant, verdicts)) = runs.next().await {
        let verdicts = verdicts.with_context(|| format!("the run against {mutant}"))?;
        matrix.add(mutant, &verdicts);
        done += 1;
        println!("[{done}/{}] {mutant}: caught by {} scenario(s)", mutants.len(), matrix.caught[&mutant].len());
    }
    let report = matrix.render(!args.first_catch);
    println!("\n{report}");
    if let Some(path) = &args.report {
        std::fs::write(path, &report).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let survivors = matrix.survivors();
    if !survivors.is_empty() {
        println!("mutants no scenario catches: {}", names(&survivors));
    }
    Ok(survivors.is_empty())
}

fn names(mutants: &[Mutant]) -> String {
    mutants.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}
