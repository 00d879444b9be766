//! `kubegc kubelet-diff`: seeded random nodes through the kubelet model and the kubelet's own
//! code (kubegc's kubelet driver, built from `upstream/` on first use) must agree after every
//! step; and the same random nodes must tell every mutant of the model apart from the kubelet's
//! code, so that agreement means something.

use std::process::Command;

/// Runs `kubegc kubelet-diff` with `args`; its standard output, and whether it exited 0.
fn kubelet_diff(args: &[&str]) -> (String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubegc")).arg("kubelet-diff").args(args).env("CI", "true").output().expect("kubegc runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    }
    (stdout, out.status.success())
}

#[test]
fn random_nodes_agree_with_the_kubelets_own_code_and_tell_every_mutant_apart() {
    let (stdout, agreed) = kubelet_diff(&["--runs", "300", "--seed", "1"]);
    assert!(agreed, "the model and the kubelet's own code disagree:\n{stdout}");
    assert!(stdout.contains("300 random nodes from seed 1") && stdout.contains(": 0 disagreements"), "unexpected summary:\n{stdout}");

    let (stdout, all_told_apart) = kubelet_diff(&["--mutants", "--runs", "3000", "--seed", "1"]);
    assert!(all_told_apart, "some mutant of the model was never told apart from the kubelet's own code:\n{stdout}");
    let summary = regex::Regex::new(r"(?m)^(\d+) mutants, (\d+) told apart from the kubelet's own code, 0 not").expect("valid");
    let counts = summary.captures(&stdout).unwrap_or_else(|| panic!("no summary:\n{stdout}"));
    assert!(counts[1] == counts[2] && &counts[1] != "0", "{stdout}");
}
