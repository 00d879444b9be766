//! The random differential (see `kubegc_harness::fuzz::differential`): the fuzzer's seeded
//! requests sent to the fake and to the upstream API server of the pinned release (started
//! here, with no controller manager), every answer compared.

use kubegc::apiserver::mutant::Mutant;
use kubegc_harness::fuzz::differential::{Options, run};

/// Every difference the first 3,000 requests of seed 1 show is one `deviations.tsv` documents.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_thousand_random_requests_show_no_undocumented_difference() {
    let report = run(&Options { requests: 3_000, seed: 1, keep_going: true, ..Options::default() }).await.unwrap();
    println!("{}{}", report.triage(), report.summary());
    assert!(report.agrees(), "undocumented differences:\n{}", report.triage());
}

/// A fake that removes objects whose finalizers are pending differs from upstream in more
/// answers, and in classes the plain fake does not show.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fake_that_removes_objects_despite_finalizers_is_caught() {
    let options = Options { requests: 400, seed: 1, keep_going: true, ..Options::default() };
    let plain = run(&options).await.unwrap();
    let broken = run(&Options { mutant: Some(Mutant::RemoveDespiteFinalizers), ..options }).await.unwrap();
    let caught: Vec<&String> = broken.classes.keys().filter(|class| !plain.classes.contains_key(*class)).collect();
    assert!(
        broken.differing > plain.differing && !caught.is_empty(),
        "the mutant went unnoticed: {} differing answers against {}\n{}",
        broken.differing,
        plain.differing,
        broken.triage()
    );
}
