//! Mutation test of the kubelet specification: the `@kubelet` scenarios are run once against the
//! reference kubelet model, where all must pass, and once against each deliberately wrong model
//! ([`kubegc::kubelet::mutant::Mutant`], selected by `KUBEGC_KUBELET_MUTANT` in a separate
//! `kubegc run`). Every mutant must make at least one scenario fail, and every scenario must
//! fail under at least one mutant — so no scenario is decoration and no mutant is invisible.
//! The mutants change the model only; the scenarios and steps are the same in every run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use kubegc::kubelet::mutant::Mutant;
use kubegc_harness::junit::{self, Verdicts, short};

/// Runs the `@kubelet` scenarios with `mutant` (none: the reference model) and reads the
/// verdicts from the JUnit report.
fn run(mutant: Option<Mutant>, dir: &Path) -> Verdicts {
    let report: PathBuf = dir.join(format!("{}.xml", mutant.map_or("reference", Mutant::name)));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut command = Command::new(env!("CARGO_BIN_EXE_kubegc"));
    command.args(["run", "--tags", "@kubelet", "--concurrency", "4", "--junit"]).arg(&report);
    for file in kubelet_features(&root) {
        command.arg("--features").arg(file);
    }
    let out = command
        .current_dir(&root)
        .env("CI", "true")
        .env(kubegc_harness::world::kubelet::MUTANT_ENV, mutant.map_or("", Mutant::name))
        .output()
        .expect("kubegc runs");
    let xml =
        std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("no JUnit report ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    let verdicts = junit::verdicts(&xml);
    assert!(!verdicts.is_empty(), "no scenarios ran: {}", String::from_utf8_lossy(&out.stdout));
    verdicts
}

/// The kubelet feature files (`features/kubelet_*.feature`), so that other topics' files play
/// no part in the verdicts.
fn kubelet_features(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("features"))
        .expect("features/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("kubelet_") && n.ends_with(".feature")))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no kubelet feature files");
    files
}

#[test]
fn every_kubelet_scenario_catches_a_mutant_and_every_mutant_is_caught() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reference = run(None, dir.path());
    let failing: Vec<&String> = reference.iter().filter(|(_, failed)| **failed).map(|(n, _)| n).collect();
    assert!(failing.is_empty(), "the reference model must pass every kubelet scenario; failing: {failing:#?}");

    let mut killed_by: BTreeMap<String, Vec<Mutant>> = reference.keys().map(|n| (n.clone(), Vec::new())).collect();
    let mut kills: BTreeMap<Mutant, BTreeSet<String>> = BTreeMap::new();
    let results: Vec<(Mutant, Verdicts)> = std::thread::scope(|scope| {
        Mutant::ALL
            .chunks(Mutant::ALL.len().div_ceil(3))
            .map(|chunk| scope.spawn(|| chunk.iter().map(|m| (*m, run(Some(*m), dir.path()))).collect::<Vec<_>>()))
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|h| h.join().expect("mutant runs"))
            .collect()
    });
    for (mutant, verdicts) in results {
        let (ran, expected): (BTreeSet<&String>, BTreeSet<&String>) = (verdicts.keys().collect(), reference.keys().collect());
        assert!(ran == expected, "{mutant}: other scenarios ran: {:?}", ran.symmetric_difference(&expected).collect::<Vec<_>>());
        let failed: BTreeSet<String> = verdicts.into_iter().filter(|(_, failed)| *failed).map(|(n, _)| n).collect();
        for name in &failed {
            killed_by.entry(name.clone()).or_default().push(mutant);
        }
        kills.insert(mutant, failed);
    }

    println!("{} kubelet scenarios, {} mutants", reference.len(), Mutant::ALL.len());
    for (mutant, failed) in &kills {
        println!(
            "{mutant:>40}: caught by {} scenarios, e.g. {:?}",
            failed.len(),
            failed.iter().next().map(|n| short(n)).unwrap_or_default()
        );
    }
    for (name, mutants) in &killed_by {
        println!("{:>3} mutants catch {}", mutants.len(), short(name));
    }
    let invisible: Vec<&Mutant> = kills.iter().filter(|(_, failed)| failed.is_empty()).map(|(m, _)| m).collect();
    let decorative: Vec<String> = killed_by.iter().filter(|(_, m)| m.is_empty()).map(|(n, _)| n.clone()).collect();
    assert!(invisible.is_empty(), "mutants no scenario notices: {invisible:?}");
    assert!(decorative.is_empty(), "scenarios no mutant makes fail: {decorative:#?}");
}
