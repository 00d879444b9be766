//! `kubegc chaos`: random object graphs, bursts of deletions, faults and cold restarts thrown at
//! a garbage collector, the end state judged by an independent model; see
//! [`kubegc_harness::chaos`].

use kubegc::gc::mutant::Mutant;
use kubegc_harness::chaos::{fake, upstream};

/// Where the collector under chaos runs.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// The reference collector on the in-process fake API server, on virtual time: a seed
    /// replays exactly, and failing plans are shrunk.
    #[default]
    Fake,
    /// kube-controller-manager's garbage collector on the real control plane built from
    /// `upstream/` (built first if missing), its traffic through the same fault proxy, killed
    /// and restarted as a process; runs are sequential, in real time, and not shrunk.
    Upstream,
}

/// Arguments of `kubegc chaos`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The collector to throw chaos at.
    #[arg(long, value_enum, default_value_t = Target::Fake)]
    pub target: Target,
    /// Runs, each a fresh cluster state, object graph, burst of deletions, faults and restarts.
    #[arg(long, default_value_t = 100)]
    pub runs: u64,
    /// Seed of the first run; run `i` has seed `seed + i`, so `--seed S --runs 1` replays the
    /// run of seed S alone (exactly, on the fake).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Runs made at once on the fake [default: the number of CPUs]; upstream runs one at a time.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Do not shrink the plans of runs that break the model (shrinking re-runs simpler plans
    /// until none of them fails; on the fake only).
    #[arg(long)]
    pub no_shrink: bool,
    /// Run the reference collector with this rule broken, to show that chaos catches it (on the
    /// fake only).
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
    let report = match args.target {
        Target::Fake => {
            let config = kubegc::gc::Config { mutant: args.mutant, ..kubegc::gc::Config::default() };
            let options = fake::Options { runs: args.runs, seed: args.seed, jobs, config, shrink: !args.no_shrink, progress: true };
            fake::run_many(&options)?
        }
        Target::Upstream => {
            anyhow::ensure!(args.mutant.is_none(), "--mutant breaks the reference collector: it works with --target fake only");
            upstream::run_many(&upstream::Options { runs: args.runs, seed: args.seed, progress: true })?
        }
    };
    println!("{}", report.summary());
    if args.target == Target::Upstream && !report.passed() {
        println!("(upstream runs are not shrunk: read a failing seed's plan with --show-plan --seed S --runs 1)");
    }
    Ok(report.passed())
}
