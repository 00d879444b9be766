//! `kubegc run` end to end: on the fake backend, on a cluster reached through a kubeconfig
//! (here `kubegc serve`, the same code path as kind), with an external collector, with no
//! collector (it must fail), its JUnit report, and its exit codes.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::Served;

fn kubegc(args: &[&str]) -> Output {
    kubegc_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join(".."), args)
}

/// `kubegc` run from `dir`.
fn kubegc_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubegc")).args(args).current_dir(dir).env("CI", "true").env_remove("KUBEGC_FEATURES").output().unwrap()
}

/// A directory holding one feature file with `text`, named `name`.
fn feature_dir(name: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    dir
}

/// The run's totals, each failed step with its scenario and message, and stderr: what a failed
/// run's assertion shows first, before the whole report.
fn summary(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let totals: Vec<&str> = stdout.lines().filter(|l| l.contains("scenarios (") || l.contains("steps (")).collect();
    let mut failures = Vec::new();
    let mut scenario = "";
    let mut in_failure = false;
    for line in stdout.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("Scenario") {
            scenario = line;
            in_failure = false;
        } else if trimmed.starts_with('✘') {
            failures.push(scenario);
            in_failure = true;
        } else if trimmed.starts_with('✔') || trimmed.starts_with("Feature") {
            in_failure = false;
        }
        if in_failure {
            failures.push(line);
        }
    }
    format!("{}\n{}\n{}", totals.join("\n"), failures.join("\n"), String::from_utf8_lossy(&out.stderr))
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

/// On a cluster that outlives the run (here `kubegc serve` with no collector, where many of
/// these scenarios fail and leave finalizers, cluster-scoped objects and Leases behind), each
/// scenario takes away what it made: a second run judges every scenario as the first did, and
/// the cluster holds what it held before.
#[test]
fn runs_on_a_shared_cluster_leave_nothing_behind_and_agree() {
    let served = Served::start_with_gc("none");
    let kubeconfig = served.kubeconfig();
    let resources = served.ok(&["api-resources", "--verbs=list", "-o", "name"]).lines().collect::<Vec<_>>().join(",");
    let listing = r#"jsonpath={range .items[*]}{.kind}/{.metadata.namespace}/{.metadata.name}{"\n"}{end}"#;
    let inventory = || served.ok(&["get", &resources, "--all-namespaces", "-o", listing]);
    let before = inventory();
    let report = served.dir.path().join("junit.xml");
    let run = || {
        let args = ["run", "--target", "kubeconfig", "--kubeconfig", kubeconfig.to_str().unwrap(), "--hold-seconds", "1"];
        let features = ["--features", "features/cluster_scope.feature", "--features", "features/leases.feature"];
        let out = kubegc(&[&args[..], &features, &["--timeout-seconds", "5", "--junit", report.to_str().unwrap()]].concat());
        kubegc_harness::junit::verdicts(&std::fs::read_to_string(&report).unwrap_or_else(|_| panic!("no report: {}", summary(&out))))
    };
    let first = run();
    assert!(first.values().any(|failed| *failed) && first.values().any(|failed| !*failed), "{first:#?}");
    let second = run();
    let differ: Vec<_> = first.iter().filter(|(name, failed)| second.get(*name) != Some(failed)).collect();
    assert!(differ.is_empty() && first.len() == second.len(), "the second run judged otherwise: {differ:#?}");
    assert_eq!(inventory(), before, "the runs left objects behind");
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
    // CI systems group testcases by classname: the feature's name.
    assert_eq!(xml.matches("\" classname=\"").count(), ran, "a classname on every testcase");
    assert!(xml.contains(r#"" classname="Foreground cascading deletion" time="#), "{}", &xml[..2000.min(xml.len())]);
    assert_eq!(xml.matches("<testsuite ").count(), xml.matches("</testsuite>").count());
    // Names a scenario keeps wherever the files are and whatever moves above it: its title and
    // feature file, no directory and no line; unique, outlines' repeated titles numbered.
    let names: Vec<&str> = xml.split("<testcase name=\"").skip(1).filter_map(|case| case.split('"').next()).collect();
    assert!(names.contains(&"Scenario: The owner is kept until its blocking dependents are gone: foreground.feature"), "{names:?}");
    let stable = regex::Regex::new(r": [\w.-]+\.feature$").unwrap();
    assert!(names.iter().all(|name| stable.is_match(name)), "{names:?}");
    assert_eq!(names.iter().collect::<std::collections::BTreeSet<_>>().len(), names.len(), "names repeat: {names:?}");
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

#[test]
fn a_tag_expression_selecting_nothing_exits_2_naming_it() {
    for command in ["run", "list", "mutants"] {
        let out = kubegc(&[command, "--tags", "@no-such-topic"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", summary(&out));
        assert_eq!(stderr.trim_end().lines().count(), 1, "{command}: not one line: {stderr}");
        assert!(stderr.contains("\"@no-such-topic\" selects no scenario"), "{command}: {stderr}");
        assert!(stderr.contains("kubegc list") && stderr.contains("@foreground"), "{command}: no hint: {stderr}");
    }
}

#[test]
fn a_tag_expression_that_does_not_parse_is_one_readable_line() {
    for command in ["run", "list", "mutants"] {
        for expr in ["@a and (", "@upstream(TestOrphaning)"] {
            let out = kubegc(&[command, "--tags", expr]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {expr}: {}", summary(&out));
            assert_eq!(stderr.trim_end().lines().count(), 1, "{command} {expr}: not one line: {stderr}");
            assert!(stderr.contains(&format!("invalid --tags expression {expr:?}")), "{command}: {stderr}");
            assert!(!stderr.contains("ParseError") && !stderr.contains("LineCol"), "a parser debug dump: {stderr}");
        }
    }
}

#[test]
fn an_installed_kubegc_runs_the_specification_from_an_empty_directory() {
    // As `cargo install` leaves it: the binary alone, somewhere else, run from an empty
    // directory, with a cache of its own where it writes out the specification it carries.
    let installed = tempfile::tempdir().unwrap();
    let binary = installed.path().join("kubegc");
    std::fs::copy(env!("CARGO_BIN_EXE_kubegc"), &binary).unwrap();
    let (empty, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let kubegc = |args: &[&str]| {
        let mut command = Command::new(&binary);
        command.args(args).current_dir(empty.path()).env("CI", "true").env("XDG_CACHE_HOME", cache.path());
        command.env_remove("KUBEGC_FEATURES").env_remove("KUBEGC_UPSTREAM_SRC").output().unwrap()
    };
    let list = kubegc(&["list"]);
    assert!(list.status.success(), "{}", summary(&list));
    let listed = String::from_utf8_lossy(&list.stdout);
    let written = cache.path().join("kubegc");
    assert!(listed.lines().all(|line| line.starts_with(written.to_str().unwrap())), "not the files it carries: {listed}");
    assert!(listed.contains("/features/foreground.feature: "), "{listed}");
    // The propagation policies load fixtures, found relative to their feature file.
    let run = kubegc(&["run", "--tags", "@propagation-policies"]);
    assert!(run.status.success(), "{}\n{}", summary(&run), String::from_utf8_lossy(&run.stdout));
    let coverage = kubegc(&["coverage", "--strict"]);
    assert!(coverage.status.success(), "{}", summary(&coverage));
    assert!(String::from_utf8_lossy(&coverage.stdout).contains("TestOrphaning"), "{}", summary(&coverage));
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0, "kubegc wrote into the directory it ran from");
}

#[test]
fn kubegc_features_names_the_default_feature_files() {
    let dir = feature_dir("mine.feature", "@orphan\nFeature: Mine\n\n  Scenario: Only mine\n    Given a ConfigMap named \"owner\"\n");
    let out =
        Command::new(env!("CARGO_BIN_EXE_kubegc")).arg("list").current_dir(dir.path()).env("KUBEGC_FEATURES", dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", summary(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.contains("mine.feature: Only mine  @orphan"), "{stdout}");
}

#[test]
fn fixtures_are_found_relative_to_the_feature_file() {
    let dir = feature_dir(
        "fixture.feature",
        "@orphan\nFeature: A fixture beside me\n\n  Scenario: Loaded\n    Given the objects in \"fixtures/one.yaml\"\n    Then ConfigMap \"from-fixture\" still exists\n",
    );
    std::fs::create_dir(dir.path().join("fixtures")).unwrap();
    std::fs::write(dir.path().join("fixtures/one.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-fixture\n").unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = kubegc_in(elsewhere.path(), &["run", "--features", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}\n{}", summary(&out), String::from_utf8_lossy(&out.stdout));
}

#[test]
fn coverage_of_other_features_needs_no_list_of_upstream_cases() {
    let text = "@orphan\nFeature: Mine\n\n  @upstream(TestOrphaning)\n  Scenario: Mine orphans\n    Given a ConfigMap named \"owner\"\n";
    let dir = feature_dir("mine.feature", text);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = kubegc_in(elsewhere.path(), &["coverage", "--features", dir.path().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", summary(&out));
    assert!(stdout.contains("No upstream-cases.tsv beside"), "{stdout}");
    assert!(stdout.contains("@upstream(TestOrphaning)\n                    on mine.feature: Mine orphans"), "{stdout}");
    // With a list beside the features, it is read.
    std::fs::write(dir.path().join("upstream-cases.tsv"), "1\tC.4\tgc\tTestOrphaning\t\tyes\t\n").unwrap();
    let out = kubegc_in(elsewhere.path(), &["coverage", "--strict", "--features", dir.path().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", summary(&out));
    assert!(stdout.contains("Total: 1 of 1 cases covered"), "{stdout}");
}

#[test]
fn an_external_collector_that_exits_fails_the_run_at_once() {
    let command = "echo first words >&2; for i in $(seq 1 30); do echo complaint $i >&2; done; exit 3";
    let started = std::time::Instant::now();
    let out = kubegc(&["run", "--tags", "@foreground", "--gc", "external", "--gc-command", command, "--timeout-seconds", "60"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", summary(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "the run waited for scenarios' timeouts: {:?}", started.elapsed());
    let (_, report) = stderr.split_once("the run failed at once: ").unwrap_or_else(|| panic!("no failure message: {stderr}"));
    assert!(report.contains("exit status: 3"), "{report}");
    let tail: Vec<&str> = report.lines().skip(1).map(str::trim).collect();
    let expected: Vec<String> = (11..=30).map(|i| format!("complaint {i}")).collect();
    assert_eq!(tail, expected, "the last 20 lines of its stderr: {report}");
}

#[test]
fn steps_prints_phrases_and_with_regex_the_regular_expressions() {
    let phrases = kubegc(&["steps"]);
    let text = String::from_utf8_lossy(&phrases.stdout);
    assert!(phrases.status.success(), "{}", summary(&phrases));
    assert!(text.contains(r#"When  <Kind> "<name>" is deleted with propagation policy <Foreground|Background|Orphan>"#), "{text}");
    assert!(!text.contains("(?-u:"), "{text}");
    let regex = kubegc(&["steps", "--regex"]);
    let text = String::from_utf8_lossy(&regex.stdout);
    assert!(regex.status.success(), "{}", summary(&regex));
    assert!(text.contains(r#"When  ((?-u:\w)+) "([^"]+)" is deleted with propagation policy (Foreground|Background|Orphan)"#), "{text}");
}
