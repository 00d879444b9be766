//! The fake API server fuzzed (see `kubegc_harness::fuzz`): a fixed number of seeded requests
//! break no invariant. The long run is `kubegc fuzz --requests 1000000`.

use kubegc_harness::fuzz::{Options, run};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_thousand_fuzzed_requests_break_no_invariant() {
    let report = run(&Options { requests: 20_000, seed: 1, per_server: 1_000 }, |_| {}).await;
    println!("{}", report.summary());
    if let Some(violation) = &report.violation {
        panic!("{violation}");
    }
}
