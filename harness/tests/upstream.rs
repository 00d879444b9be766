//! The whole specification on the real control plane: etcd, kube-apiserver and
//! kube-controller-manager of the pinned release, built from `upstream/` (the first run builds
//! them, minutes on 2 cores) and run on loopback with upstream's own garbage collector. Every
//! scenario that is not `@fake-only` must pass, but for those listed in
//! `features/upstream-pending.tsv` with what upstream does differently.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use kubegc_harness::junit::verdicts;

/// The titles listed in `features/upstream-pending.tsv`.
fn pending(root: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(root.join("features/upstream-pending.tsv")).expect("features/upstream-pending.tsv");
    let lines = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    lines
        .map(|l| {
            let (title, why) = l.split_once('\t').unwrap_or_else(|| panic!("no reason given for {l:?}"));
            assert!(!why.trim().is_empty(), "no reason given for {title:?}");
            title.to_string()
        })
        .collect()
}

/// A scenario's title from its normalised testcase name (`Scenario: <title>: <file>:<l>:<c>`).
fn title(testcase: &str) -> String {
    let without_location = testcase.rsplit_once(": ").map_or(testcase, |(t, _)| t);
    let short = without_location.rsplit("Scenario: ").next().unwrap_or(without_location);
    short.rsplit("Scenario Outline: ").next().unwrap_or(short).to_string()
}

#[test]
fn the_specification_passes_on_the_upstream_control_plane() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace");
    let report = tempfile::NamedTempFile::new().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kubegc"))
        // "Eventually" waits up to two minutes: a pod bound to a node that does not exist goes
        // only through the pod garbage collector (40 s quarantine, every 20 s).
        .args(["run", "--target", "upstream", "--timeout-seconds", "120", "--junit"])
        .arg(report.path())
        .current_dir(root)
        .env("CI", "true")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary: Vec<&str> = stdout.lines().filter(|l| l.contains("scenarios (") || l.starts_with("skipped on")).collect();
    let context = format!("{}\n{}", summary.join("\n"), String::from_utf8_lossy(&out.stderr));
    let verdicts = verdicts(&std::fs::read_to_string(report.path()).unwrap_or_default());
    assert!(verdicts.len() > 200, "too few scenarios ran on the upstream control plane:\n{context}");
    let pending = pending(root);
    let failed: BTreeSet<String> = verdicts.iter().filter(|(_, failed)| **failed).map(|(name, _)| title(name)).collect();
    let unexpected: Vec<&String> = failed.difference(&pending).collect();
    assert!(unexpected.is_empty(), "scenarios failed on the upstream control plane: {unexpected:#?}\n{context}\n{stdout}");
    let titles: BTreeSet<String> = verdicts.keys().map(|n| title(n)).collect();
    let unknown: Vec<&String> = pending.difference(&titles).collect();
    assert!(unknown.is_empty(), "features/upstream-pending.tsv names scenarios that did not run: {unknown:#?}");
    let now_passing: Vec<&String> = pending.difference(&failed).collect();
    println!(
        "{} scenarios ran on the upstream control plane: {} passed, {} listed as pending failed; pending but passed this time: {now_passing:#?}",
        verdicts.len(),
        verdicts.values().filter(|f| !**f).count(),
        failed.len()
    );
}
