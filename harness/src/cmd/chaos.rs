//! `kubegc chaos`: random object graphs, bursts of deletions, faults and cold restarts thrown at
//! a garbage collector, the end state judged by an independent model; see
//! [`kubegc_harness::chaos`].

use kubegc::gc::mutant::Mutant;
use kubegc_harness::chaos::fake::{self, Options};

/// Arguments of `kubegc chaos`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Runs, each a fresh cluster state, object graph, burst of deletions, faults and restarts.
    #[arg(long, default_value_t = 100)]
    pub runs: u64,
    /// Seed of the first run; run `i` has seed `seed + i`, so `--seed S --runs 1` replays the
    /// run of seed S alone (exactly, on the fake).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Runs made at once [default: the number of CPUs].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Do not shrink the plans of runs that break the model (shrinking re-runs simpler plans
    /// until none of them fails).
    #[arg(long)]
    pub no_shrink: bool,
    /// Run the reference collector with this rule broken, to show that chaos catches it.
    #[arg(long, value_name = "MUTANT")]
    pub mutant: Option<Mutant>,
    /// Print the plan of each run before making it (with `--runs 1`, to read a replay).
    #[arg(long)]
    pub show_plan: bool,
}

/// Makes the runs and prints the numbers and every failure with its seed and shrunk plan;
/// `Ok(false)` when any run broke the model.
pub fn run(args: Args) -> anyhow::Result<bool> {
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if args.show_plan {
        for i in 0..args.runs {
            println!("seed {}:\n{}", args.seed.wrapping_add(i), kubegc_harness::chaos::plan::Plan::draw(args.seed.wrapping_add(i)));
        }
    }
    let config = kubegc::gc::Config { mutant: args.mutant, ..kubegc::gc::Config::default() };
    let options = Options { runs: args.runs, seed: args.seed, jobs, config, shrink: !args.no_shrink, progress: true };
    let report = fake::run_many(&options)?;
    println!("{}", report.summary());
    Ok(report.passed())
}
