//! `kubegc chaos` on the fake: a few hundred seeded runs keep to the model, a seed replays
//! exactly, the seeds that once broke the model stay fixed, and collectors that break a rule are
//! caught and shrunk to a small plan. Ten thousand runs: `kubegc chaos --runs 10000`.

use kubegc::gc::Config;
use kubegc::gc::mutant::Mutant;
use kubegc_harness::chaos::fake::{self, Options};
use kubegc_harness::chaos::plan::Plan;

fn options(runs: u64, seed: u64, mutant: Option<Mutant>) -> Options {
    Options { runs, seed, jobs: 2, config: Config { mutant, ..Config::default() }, shrink: true, progress: false }
}

#[test]
fn three_hundred_seeded_runs_keep_to_the_model() {
    let report = fake::run_many(&options(300, 1, None)).expect("runs");
    println!("{}", report.summary());
    assert!(report.passed(), "{}", report.summary());
    // The runs did what they claim: every kind of fault, deletion and a restart.
    for fault in ["500 refusal", "429 throttle", "409 conflict", "lost response", "slow answer", "cut watch", "410 on resume"] {
        assert!(report.faults.get(fault).is_some_and(|n| *n > 0), "no {fault} injected: {}", report.summary());
    }
    for policy in ["orphan", "background", "foreground", "default"] {
        assert!(report.deletions.get(policy).is_some_and(|n| *n > 0), "no {policy} deletion: {}", report.summary());
    }
    assert!(report.restarts > 0 && report.finalizer_changes > 0, "{}", report.summary());
}

#[test]
fn a_seed_replays_exactly() {
    let config = Config::default();
    let mut fingerprints = Vec::new();
    for seed in 1..=20 {
        let plan = Plan::draw(seed);
        assert_eq!(plan, Plan::draw(seed), "seed {seed} draws the same plan");
        let (a, b) = (fake::run(&plan, &config).expect("run"), fake::run(&plan, &config).expect("run"));
        assert_eq!((a.fingerprint, &a.verdict, &a.faults), (b.fingerprint, &b.verdict, &b.faults), "seed {seed}");
        fingerprints.push(a.fingerprint);
    }
    fingerprints.sort();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), 20, "every seed is a different run");
}

/// Seeds whose runs once broke the model, each for an upstream rule the first model missed:
/// 55, orphaning strips a reference by uid even when it does not resolve (a cross-namespace
/// one); 980, a cluster-scoped object whose namespaced references orphaning stripped is
/// processed again; 1549, a collector started cold leaves a non-blocking dependent of an owner
/// that waits for ever unprocessed.
#[test]
fn seeds_that_once_broke_the_model_keep_to_it() {
    for seed in [55, 980, 1549] {
        let outcome = fake::run(&Plan::draw(seed), &Config::default()).expect("run");
        assert!(outcome.verdict.passed(), "seed {seed}: {:?}", outcome.verdict);
    }
}

/// The first seed from 1 whose run breaks the model with `mutant`, if any among `seeds`.
fn first_failure(mutant: Mutant, seeds: u64) -> Option<(u64, kubegc_harness::chaos::model::Verdict)> {
    let config = Config { mutant: Some(mutant), ..Config::default() };
    (1..=seeds).find_map(|seed| {
        let verdict = fake::run(&Plan::draw(seed), &config).expect("run").verdict;
        (!verdict.passed()).then_some((seed, verdict))
    })
}

#[test]
fn collectors_that_break_a_rule_are_caught() {
    let caught: Vec<(Mutant, &str)> = vec![
        (Mutant::NeverOrphan, "safety"),
        (Mutant::DeleteDespiteSolidOwner, "safety"),
        (Mutant::IgnoreCrossNamespaceRule, "liveness"),
        (Mutant::OwnerByNameOnly, "liveness"),
        (Mutant::KeepDanglingDependents, "liveness"),
    ];
    for (mutant, kind) in caught {
        let (seed, verdict) = first_failure(mutant, 100).unwrap_or_else(|| panic!("{mutant} not caught in 100 seeds"));
        let lines = if kind == "safety" { &verdict.safety } else { &verdict.liveness };
        assert!(!lines.is_empty(), "{mutant} (seed {seed}) breaks {kind}: {verdict:?}");
        println!("{mutant}: caught by seed {seed}: {}", lines[0]);
    }
}

#[test]
fn a_failing_run_is_shrunk_to_a_small_plan_that_still_fails() {
    let report = fake::run_many(&options(40, 1, Some(Mutant::NeverOrphan))).expect("runs");
    let failure = report.failures.first().expect("never-orphan is caught in 40 seeds");
    let (plan, verdict) = failure.shrunk.as_ref().expect("shrunk");
    println!("{}", report.summary());
    assert!(plan.objects.len() <= 3 && plan.steps.len() <= 2, "shrunk to:\n{plan}");
    let config = Config { mutant: Some(Mutant::NeverOrphan), ..Config::default() };
    assert_eq!(&fake::run(plan, &config).expect("run").verdict, verdict, "the shrunk plan fails the same way again");
    assert!(fake::run(plan, &Config::default()).expect("run").verdict.passed(), "and only with the broken collector");
}
