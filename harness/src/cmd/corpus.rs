//! `kubegc corpus`: the test manifests of the pinned modules sent to the fake and to the
//! upstream API server, the answers compared; see [`kubegc_harness::corpus`].

use kubegc::apiserver::mutant::Mutant as ApiServerMutant;
use kubegc_harness::corpus::{self, Options};

/// Arguments of `kubegc corpus`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Send only the first this many manifests kept.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Run the fake with one deliberately broken rule (`kubegc run --apiserver-mutant help`
    /// lists them), to see the comparison catch it.
    #[arg(long, value_name = "MUTANT")]
    pub apiserver_mutant: Option<ApiServerMutant>,
}

/// Runs the corpus and prints every class of differences (request shape and field) once, with
/// a count and one example (manifest file, request, fake answer, upstream answer), the
/// undocumented and most frequent first, then the counts; `Ok(false)` if an answer differs in a way
/// `tests/differential/deviations.tsv` does not document.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    let report = corpus::run(&Options { limit: args.limit, mutant: args.apiserver_mutant }).await?;
    print!("{}", report.report.triage());
    println!("{}", report.summary());
    Ok(report.report.agrees())
}
