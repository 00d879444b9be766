//! Kubernetes' own e2e tests of the pinned release (`kubegc e2e`, the binary built from
//! `upstream/e2e/` on first use) pass on the fake with the reference collector and on the
//! upstream control plane with its own (and a hollow node that runs pods): the
//! garbage-collection ones (`gc`) and the other deletion and cleanup ones (`deletion`). Every
//! test of a selection must pass: a skip, a failure or a test the harness could not judge fails
//! this.

use std::path::Path;
use std::process::Command;

use kubegc_harness::junit::verdicts;

fn e2e(selection: &str, target: &str, tests: usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace");
    let report = tempfile::NamedTempFile::new().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kubegc"))
        .args(["e2e", "--selection", selection, "--target", target, "--junit"])
        .arg(report.path())
        .current_dir(root)
        .env("CI", "true")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let context = format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let xml = std::fs::read_to_string(report.path()).unwrap_or_default();
    let verdicts = verdicts(&xml);
    assert_eq!(verdicts.len(), tests, "the {selection} selection has {tests} tests:\n{context}");
    assert!(!xml.contains("<skipped"), "a test skipped itself:\n{context}");
    assert!(
        verdicts.values().all(|failed| !failed) && out.status.success(),
        "upstream's {selection} e2e tests failed on {target}:\n{context}"
    );
    println!("{context}");
}

#[test]
fn upstream_s_gc_e2e_tests_pass_on_the_fake() {
    e2e("gc", "fake", 11);
}

#[test]
fn upstream_s_gc_e2e_tests_pass_on_the_upstream_control_plane() {
    e2e("gc", "upstream", 11);
}

#[test]
fn upstream_s_deletion_e2e_tests_pass_on_the_fake() {
    e2e("deletion", "fake", 58);
}

#[test]
fn upstream_s_deletion_e2e_tests_pass_on_the_upstream_control_plane() {
    e2e("deletion", "upstream", 58);
}
