//! The reference collector killed and restarted cold around Orphan, Background and Foreground
//! deletions never deletes what a correct collector keeps (see `kubegc_harness::restarts`).
//! A short loop always runs; the long one is `cargo test -p kubegc-harness --release --test
//! restarts -- --ignored`, with `KUBEGC_RESTART_RUNS` runs (default 1,000), or `kubegc restarts
//! --runs 1000`.

use kubegc_harness::restarts::{Options, run};

async fn restarts(runs: u64) {
    let report = run(&Options { runs, seed: 1, lives: 4, jobs: 8 }).await.expect("the runs could be made");
    println!("{}", report.summary());
    assert!(report.passed(), "{}", report.summary());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_cold_restarts_delete_nothing_a_correct_collector_keeps() {
    restarts(20).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: a thousand runs; run with --ignored (in release mode)"]
async fn a_thousand_cold_restarts_delete_nothing_a_correct_collector_keeps() {
    let runs = std::env::var("KUBEGC_RESTART_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(1000);
    restarts(runs).await;
}
