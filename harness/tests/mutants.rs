//! Third-party mode judges collectors: the specification, run with `--gc external` against
//! deliberately broken collectors (`kubegc gc --mutant ...`), fails for every one of them. Each
//! mutant breaks one rule; the scenarios that catch it are listed in the failure report.

use std::path::Path;
use std::process::Command;

/// Runs the whole specification with `kubegc gc --mutant <mutant>` as the external collector;
/// returns the exit code and the names of the failing scenarios.
fn run_against(mutant: &str) -> (Option<i32>, Vec<String>) {
    let bin = env!("CARGO_BIN_EXE_kubegc");
    let command = format!("{bin} gc --kubeconfig {{kubeconfig}} --mutant {mutant}");
    let out = Command::new(bin)
        .args(["run", "--gc", "external", "--gc-command", &command, "--hold-seconds", "1", "--timeout-seconds", "5", "--concurrency", "16"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .env("CI", "true")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut scenario = String::new();
    let mut failing = Vec::new();
    for line in stdout.lines() {
        if let Some(name) = line.trim_start().strip_prefix("Scenario: ").or_else(|| line.trim_start().strip_prefix("Scenario Outline: ")) {
            scenario = name.to_string();
        }
        if line.contains('✘') && failing.last() != Some(&scenario) {
            failing.push(scenario.clone());
        }
    }
    (out.status.code(), failing)
}

#[test]
fn every_mutant_collector_fails_the_specification() {
    const MUTANTS: [&str; 5] =
        ["ignore-block-owner-deletion", "never-orphan", "delete-despite-solid-owner", "ignore-cross-namespace-rule", "never-break-cycles"];
    let handles: Vec<_> = MUTANTS.into_iter().map(|m| (m, std::thread::spawn(move || run_against(m)))).collect();
    let mut report = Vec::new();
    for (mutant, handle) in handles {
        let (code, failing) = handle.join().unwrap();
        report.push(format!("{mutant}: exit {code:?}, caught by {failing:?}"));
        assert_eq!(code, Some(1), "the specification passed against the {mutant} mutant");
        assert!(!failing.is_empty(), "{mutant}: no failing scenario named");
    }
    println!("{}", report.join("\n"));
}
