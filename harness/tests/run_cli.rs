//! `kubegc run` end to end: on the fake backend, on a cluster reached through a kubeconfig
//! (here `kubegc serve`, the same code path as kind), with an external collector, with no
//! collector (it must fail), its JUnit report, and its exit codes.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::Served;

fn kubegc(args: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    Command::new(env!("CARGO_BIN_EXE_kubegc")).args(args).current_dir(root).env("CI", "true").output().unwrap()
}

fn summary(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains("scenarios (") || l.contains("steps (")).collect();
    format!("{}\n{}", lines.join("\n"), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn run_on_the_fake_backend_passes() {
    let out = kubegc(&["run"]);
    assert!(out.status.success(), "{}", summary(&out));
    assert!(summary(&out).contains("passed)"));
}

#[test]
fn run_against_kubegc_serve_through_a_kubeconfig_passes() {
    let served = Served::start();
    let kubeconfig = served.kubeconfig();
    let out = kubegc(&["run", "--target", "kubeconfig", "--kubeconfig", kubeconfig.to_str().unwrap(), "--hold-seconds", "1"]);
    assert!(out.status.success(), "{}\n{}", summary(&out), String::from_utf8_lossy(&out.stdout));
}

#[test]
fn run_with_the_reference_collector_as_an_external_one_passes() {
    let command = format!("{} gc --kubeconfig {{kubeconfig}}", env!("CARGO_BIN_EXE_kubegc"));
    // An external collector's state is unknown, so negative assertions wait a hold time; three
    // seconds leave the separate process room to catch up on a loaded machine.
    let args = ["run", "--gc", "external", "--gc-command", &command, "--hold-seconds", "3"];
    let out = kubegc(&args);
    assert!(out.status.success(), "{}\n{}", summary(&out), String::from_utf8_lossy(&out.stdout));
}

#[test]
fn run_without_a_collector_fails() {
    let out = kubegc(&["run", "--gc", "none", "--features", "features/background.feature"]);
    assert_eq!(out.status.code(), Some(1), "{}", summary(&out));
}

#[test]
fn an_undefined_step_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let feature = dir.path().join("misspelt.feature");
    let text = "Feature: A misspelt step\n\n  Scenario: A step no definition matches\n    Given a step that no definition matches at all\n";
    std::fs::write(&feature, text).unwrap();
    let report = dir.path().join("junit.xml");
    let out = kubegc(&["run", "--features", feature.to_str().unwrap(), "--junit", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", summary(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 scenario (1 failed)"), "{stdout}");
    let xml = std::fs::read_to_string(&report).unwrap();
    assert!(xml.contains("<failure"), "the JUnit report names the failure: {xml}");
}

#[test]
fn junit_report_has_one_testcase_per_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("junit.xml");
    let out = kubegc(&["run", "--junit", report.to_str().unwrap()]);
    assert!(out.status.success(), "{}", summary(&out));
    let xml = std::fs::read_to_string(&report).unwrap();
    assert!(xml.starts_with("<?xml"));
    // One testcase per scenario run (each example of an outline is a scenario).
    let stdout = String::from_utf8_lossy(&out.stdout);
    let ran: usize = stdout
        .lines()
        .find_map(|l| l.split(" scenarios (").next().filter(|_| l.contains(" scenarios (")).and_then(|n| n.trim().parse().ok()))
        .expect("a summary line");
    assert_eq!(xml.matches("<testcase ").count(), ran, "one testcase per scenario");
    assert_eq!(xml.matches("<testsuite ").count(), xml.matches("</testsuite>").count());
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(kubegc(&["run", "--target", "nowhere"]).status.code(), Some(2));
    assert_eq!(kubegc(&["run", "--features", "no/such/dir"]).status.code(), Some(2));
    assert_eq!(kubegc(&["run", "--gc-command", "x"]).status.code(), Some(2));
    let unknown = kubegc(&["run", "--apiserver-mutant", "help"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("ignore-preconditions"), "{}", summary(&unknown));
    assert_eq!(kubegc(&["run", "--target", "kubeconfig", "--apiserver-mutant", "ignore-dry-run"]).status.code(), Some(2));
    if !cfg!(feature = "k3s") {
        let k3s = kubegc(&["run", "--target", "k3s"]);
        assert_eq!(k3s.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&k3s.stderr).contains("--features k3s"), "{}", summary(&k3s));
    }
}
