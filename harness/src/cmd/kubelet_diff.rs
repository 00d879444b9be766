//! `kubegc kubelet-diff`: seeded random nodes through the kubelet model and the kubelet's own
//! code, compared after every step; see [`kubegc_harness::kubelet_diff`].

use anyhow::Context;
use kubegc::kubelet::mutant::Mutant;
use kubegc_harness::kubelet_diff::{self, Options};

/// Arguments of `kubegc kubelet-diff`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// How many random nodes.
    #[arg(long, default_value_t = 1000)]
    pub runs: u64,
    /// Seed of the first node; node `i` has seed `seed + i`, so `--seed S --runs 1` replays
    /// node S alone.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Nodes compared at once [default: the number of CPUs]; `--mutants` takes one at a time.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Instead of the model, judge each of its mutants (all, or those named): print the first
    /// seed where each disagrees with the kubelet's own code; exit 1 if one never does.
    #[arg(long, value_name = "MUTANT", num_args = 0.., value_delimiter = ',')]
    pub mutants: Option<Vec<Mutant>>,
    /// Print the random node of each seed, without running it.
    #[arg(long)]
    pub show: bool,
    /// Print everything each side saw after each step of the first seed's node (not shrunk).
    #[arg(long)]
    pub trace: bool,
}

/// Compares the nodes and prints the result; `Ok(false)` on a disagreement (or a mutant the
/// nodes never tell apart).
pub fn run(args: Args) -> anyhow::Result<bool> {
    if args.show {
        for i in 0..args.runs {
            let case = kubelet_diff::generate::case(args.seed.wrapping_add(i));
            println!("seed {}:\n{}\n", case.seed, case.describe());
        }
        return Ok(true);
    }
    eprintln!("kubelet-diff: building (or finding) the kubelet driver");
    let driver = kubegc_control_plane::build::kubelet_driver().context("cannot build the kubelet driver")?;
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let options = Options { runs: args.runs, seed: args.seed, driver, jobs, progress: true };
    let started = std::time::Instant::now();
    if args.trace {
        let case = kubelet_diff::generate::case(args.seed);
        let (model, upstream) = kubelet_diff::traces(&case, &options.driver).map_err(anyhow::Error::msg)?;
        println!("seed {}:\n{}\n", case.seed, case.describe());
        for (side, trace) in [("the model", model), ("upstream", upstream)] {
            for (i, o) in trace.iter().enumerate() {
                println!("{side}, after step {} ({}): {}", i + 1, o.step, o.failure.as_deref().unwrap_or("carried out"));
                println!("  {}", o.seen);
            }
        }
        return Ok(true);
    }
    if let Some(named) = args.mutants {
        let mutants = if named.is_empty() { Mutant::ALL.to_vec() } else { named };
        let caught = kubelet_diff::mutants(&options, &mutants).map_err(anyhow::Error::msg)?;
        for (mutant, seed) in &caught {
            match seed {
                Some(seed) => println!("{mutant:<40} disagrees with upstream at seed {seed}"),
                None => println!("{mutant:<40} NOT told apart from upstream in {} nodes", args.runs),
            }
        }
        let missed = caught.iter().filter(|(_, s)| s.is_none()).count();
        println!(
            "{} mutants, {} told apart from the kubelet's own code, {missed} not ({:.1} s)",
            caught.len(),
            caught.len() - missed,
            started.elapsed().as_secs_f64()
        );
        return Ok(missed == 0);
    }
    let report = kubelet_diff::run(&options).map_err(anyhow::Error::msg)?;
    if let Some(d) = &report.disagreement {
        println!("{}", d.report());
    }
    println!(
        "{} random nodes from seed {}, {} observations compared: {} ({:.1} s)",
        report.runs,
        args.seed,
        report.observations,
        if report.disagreement.is_some() { "1 disagreement" } else { "0 disagreements" },
        started.elapsed().as_secs_f64()
    );
    Ok(report.disagreement.is_none())
}
