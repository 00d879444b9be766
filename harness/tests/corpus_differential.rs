//! The corpus differential (see `kubegc_harness::corpus`): the pinned modules' test manifests
//! sent to the fake and to the upstream API server of the pinned release (started here, with no
//! controller manager), every answer compared.

use kubegc::apiserver::mutant::Mutant;
use kubegc_harness::corpus::{Options, run};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_corpus_shows_no_undocumented_difference() {
    let report = run(&Options::default()).await.unwrap();
    println!("{}{}", report.report.triage(), report.summary());
    assert!(report.report.agrees(), "undocumented differences:\n{}", report.report.triage());
}

/// A fake that answers a DELETE with the object where upstream answers with a Status (and the
/// other way round) disagrees, in classes of DELETE answers the plain fake does not show.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fake_that_swaps_delete_answers_is_caught() {
    let options = Options { limit: Some(20), ..Options::default() };
    let plain = run(&options).await.unwrap();
    let broken = run(&Options { mutant: Some(Mutant::SwapDeleteAnswers), ..options }).await.unwrap();
    let caught: Vec<&String> = broken.report.classes.keys().filter(|class| !plain.report.classes.contains_key(*class)).collect();
    println!("classes only the mutant shows: {caught:#?}");
    assert!(
        !broken.report.agrees() && caught.iter().any(|class| class.starts_with("DELETE ")),
        "the mutant went unnoticed: no class of DELETE answers that the plain fake does not show\n{}",
        broken.report.triage()
    );
}
