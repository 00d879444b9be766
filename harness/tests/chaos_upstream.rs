//! `kubegc chaos --target upstream`: kube-controller-manager's own garbage collector on the real
//! control plane of the pinned release (built from `upstream/` on first use, minutes on 2
//! cores, as for the other upstream tests), its traffic through the fault proxy, killed and
//! restarted cold, judged by the same model as the reference collector on the fake.

use kubegc_harness::chaos::plan::Plan;
use kubegc_harness::chaos::upstream::{Options, run_many};

/// Seeds whose plans have faults and kills (checked below, so that a change to how plans are
/// drawn cannot quietly make this test tame).
const SEEDS: std::ops::Range<u64> = 1..6;

#[test]
fn upstreams_collector_keeps_to_the_model_through_faults_and_restarts() {
    let plans: Vec<Plan> = SEEDS.map(Plan::draw).collect();
    assert!(plans.iter().any(|p| !p.kills.is_empty()), "no plan of seeds {SEEDS:?} kills the collector");
    assert!(plans.iter().any(|p| p.rates.refuse + p.rates.cut_watch > 0), "no plan of seeds {SEEDS:?} has faults");

    let options = Options { runs: SEEDS.end - SEEDS.start, seed: SEEDS.start, progress: true };
    let report = run_many(&options).unwrap_or_else(|e| panic!("the upstream chaos runs did not complete: {e:#}"));
    let summary = report.summary();
    println!("{summary}");
    assert_eq!(report.runs, options.runs, "{summary}");
    assert!(report.passed(), "upstream's collector broke the model (a bug in the model, see harness/src/chaos/model.rs):\n{summary}");
    // The proxy is in the path of kube-controller-manager's requests, and the kills reach it.
    assert!(report.faults.values().sum::<u64>() > 0, "no fault reached kube-controller-manager:\n{summary}");
    assert!(report.restarts > 0, "kube-controller-manager was never restarted:\n{summary}");
}
