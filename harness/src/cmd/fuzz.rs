//! `kubegc fuzz`: the fake API server fuzzed with seeded requests; see [`kubegc_harness::fuzz`].
//! With `--differential`, the same requests go to the upstream API server too and the answers
//! are compared; see [`kubegc_harness::fuzz::differential`].

use std::collections::BTreeSet;

use kubegc::apiserver::mutant::Mutant as ApiServerMutant;
use kubegc_harness::fuzz::differential::{self, Report};
use kubegc_harness::fuzz::generate::Generator;
use kubegc_harness::fuzz::{self, Options};

/// Arguments of `kubegc fuzz`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Requests to send in all (a fresh server every `--per-server` of them).
    #[arg(long, default_value_t = 10_000)]
    pub requests: u64,
    /// Seed of the first server's requests; server `i` uses `seed + i`, so the seed a violation
    /// prints replays it alone. With `--differential`, the seed of the one sequence.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Requests sent to one server before a fresh one starts (its state grows with them); not
    /// with `--differential`, which sends every request to one pair of servers.
    #[arg(long, default_value_t = 1_000)]
    pub per_server: u64,
    /// Send every request to the fake and to the upstream kube-apiserver of the pinned release
    /// (with etcd, no controller manager; built first if missing) and compare the answers:
    /// code, reason, message, causes, the object (uids, resourceVersions, timestamps and
    /// generated suffixes masked), Warning headers and watch events. Stops at the first
    /// difference that `tests/differential/deviations.tsv` does not document, shrinks the
    /// requests before it and prints them with the command that replays them; exit 1 if one is
    /// found.
    #[arg(long)]
    pub differential: bool,
    /// With `--differential`: send only these requests of the seed's sequence (indices from 0,
    /// comma-separated), as a shrunk case prints them, and report every difference they show.
    #[arg(long, value_delimiter = ',', requires = "differential")]
    pub only: Option<Vec<u64>>,
    /// With `--differential`: do not stop at the first difference; send every request and
    /// print each class of differences (request shape and field) once, with a count and one
    /// example (request, fake answer, upstream answer), the most frequent first.
    #[arg(long, requires = "differential")]
    pub keep_going: bool,
    /// With `--differential`: run the fake with one deliberately broken rule (`kubegc run
    /// --apiserver-mutant help` lists them), to see the differential catch it.
    #[arg(long, value_name = "MUTANT", requires = "differential")]
    pub apiserver_mutant: Option<ApiServerMutant>,
    /// With `--differential`: after every request, read this list path (such as
    /// `/apis/events.k8s.io/v1/namespaces/default/events`) from both servers and print each
    /// request after which what one lists and the other does not changes — where the two
    /// servers' states part.
    #[arg(long, value_name = "PATH", requires = "differential")]
    pub probe: Option<String>,
    /// Print the seed's first `--requests` requests, numbered as `--only` counts them and named
    /// as `--differential` first sends them, and exit without sending any.
    #[arg(long, conflicts_with_all = ["only", "keep_going", "apiserver_mutant", "probe"])]
    pub print: bool,
}

/// Sends the requests, printing progress about every ten seconds; `Ok(false)` at the first
/// broken invariant, printed with its seed, index and request. With `--differential`,
/// `Ok(false)` if an undocumented difference was seen.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    if args.print {
        let mut generator = Generator::salted(args.seed, differential::FIRST_SALT);
        for index in 0..args.requests {
            println!("#{index}: {}\n", generator.next_request());
        }
        return Ok(true);
    }
    if args.differential {
        return run_differential(args).await;
    }
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

async fn run_differential(args: Args) -> anyhow::Result<bool> {
    let options = differential::Options {
        requests: args.requests,
        seed: args.seed,
        only: args.only.map(|only| only.into_iter().collect::<BTreeSet<u64>>()),
        keep_going: args.keep_going,
        mutant: args.apiserver_mutant,
        probe: args.probe,
    };
    let report: Report = differential::run(&options).await?;
    if options.keep_going || options.only.is_some() {
        print!("{}", report.triage());
    }
    if let Some(shrunk) = &report.shrunk {
        let list: Vec<String> = shrunk.indices.iter().map(u64::to_string).collect();
        println!("the fake and upstream differ (shrunk to {} request(s) of seed {}):\n", shrunk.indices.len(), args.seed);
        for (index, request) in shrunk.indices.iter().zip(&shrunk.requests) {
            println!("#{index}: {request}\n");
        }
        let found = &shrunk.last;
        println!("#{}: fake {}; upstream {}", found.index, found.fake, found.upstream);
        for difference in found.undocumented() {
            let (fake, upstream) = difference.shown();
            println!("  {}: fake {fake} / upstream {upstream}", difference.field);
        }
        let mutant = args.apiserver_mutant.map(|m| format!(" --apiserver-mutant {m}")).unwrap_or_default();
        println!("replay: kubegc fuzz --differential --seed {} --only {}{mutant}", args.seed, list.join(","));
    }
    println!("{}", report.summary());
    Ok(report.agrees())
}
