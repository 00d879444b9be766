//! `kubegc restarts`: the reference collector killed and restarted cold, again and again, around
//! Orphan, Background and Foreground deletions; see [`kubegc_harness::restarts`].

use kubegc_harness::restarts::{self, Options};

/// Arguments of `kubegc restarts`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Runs, each a fresh fake apiserver and a random forest of owners and dependents.
    #[arg(long, default_value_t = 100)]
    pub runs: u64,
    /// Seed of the first run (run `i` uses `seed + i`, so a failing seed can be run alone).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Collectors killed cold in each run, before the last one that is left to settle.
    #[arg(long, default_value_t = 4)]
    pub lives: u32,
    /// Runs made at once.
    #[arg(long, default_value_t = 8)]
    pub jobs: usize,
}

/// Makes the runs and prints the numbers; `Ok(false)` when a collector deleted something a
/// correct one keeps, or left something it should have collected.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    let report = restarts::run(&Options { runs: args.runs, seed: args.seed, lives: args.lives, jobs: args.jobs }).await?;
    println!("{}", report.summary());
    Ok(report.passed())
}
