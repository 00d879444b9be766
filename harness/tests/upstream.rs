//! The whole specification on the real control plane: etcd, kube-apiserver and
//! kube-controller-manager of the pinned release, built from `upstream/` (the first run builds
//! them, minutes on 2 cores) and run on loopback with upstream's own garbage collector. Every
//! scenario that is not `@fake-only` must pass.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use kubegc_harness::junit::verdicts;

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
    let failed: BTreeSet<String> = verdicts.iter().filter(|(_, failed)| **failed).map(|(name, _)| title(name)).collect();
    assert!(failed.is_empty(), "scenarios failed on the upstream control plane: {failed:#?}\n{context}\n{stdout}");
    println!("{} scenarios passed on the upstream control plane\n{context}", verdicts.len());
}
