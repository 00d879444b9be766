//! The specification judged by mutants in process (`kubegc mutants`): every mutant of the API
//! server, the reference collector, the cleanup controllers and the workload controllers makes
//! at least one scenario fail. Kept apart from the
//! external-process mutants (`mutants.rs`) so that the two heavy runs do not share the machine.

use std::path::Path;
use std::process::Command;

/// The specification against every mutant API server, collector, cleanup controller and
/// workload controller, in process: each mutant
/// must make at least one scenario fail (`kubegc mutants` exits 1 otherwise, or when the
/// reference run fails a scenario). Each mutant's run stops at its first failing scenario
/// (`--first-catch`): the full matrix of which scenarios catch which mutant is
/// `kubegc mutants` without it.
#[test]
fn every_mutant_api_server_and_collector_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("mutants.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_kubegc"))
        .args(["mutants", "--first-catch", "--report"])
        .arg(&report)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .env("CI", "true")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let written = std::fs::read_to_string(&report).unwrap();
    assert!(written.contains("apiserver/ignore-preconditions: caught by"), "{written}");
    assert!(written.contains("workloads/statefulset-when-scaled-ignored: caught by"), "{written}");
    println!("{written}");
}
