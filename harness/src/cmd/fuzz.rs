//! `kubegc fuzz`: the fake API server fuzzed with seeded requests; see [`kubegc_harness::fuzz`].

use kubegc_harness::fuzz::{self, Options};

/// Arguments of `kubegc fuzz`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Requests to send in all (a fresh server every `--per-server` of them).
    #[arg(long, default_value_t = 10_000)]
    pub requests: u64,
    /// Seed of the first server's requests; server `i` uses `seed + i`, so the seed a violation
    /// prints replays it alone.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Requests sent to one server before a fresh one starts (its state grows with them).
    #[arg(long, default_value_t = 1_000)]
    pub per_server: u64,
}

/// Sends the requests, printing progress about every ten seconds; `Ok(false)` at the first
/// broken invariant, printed with its seed, index and request.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    let options = Options { requests: args.requests, seed: args.seed, per_server: args.per_server };
    let mut last = std::time::Duration::ZERO;
    let report = fuzz::run(&options, |report| {
        if report.elapsed >= last + std::time::Duration::from_secs(10) {
            last = report.elapsed;
            eprintln!("{}", report.summary());
        }
    })
    .await;
    if let Some(violation) = &report.violation {
        println!("{violation}");
    }
    println!("{}", report.summary());
    Ok(report.violation.is_none())
}
