//! The kubelet specification on the kubelet's own code: `kubegc run --kubelet upstream` builds
//! kubegc's kubelet driver from the pinned upstream module and runs every `@kubelet` scenario
//! through it.

use std::process::Command;

#[test]
fn kubelet_scenarios_pass_on_upstream_kubelet_code() {
    let out = Command::new(env!("CARGO_BIN_EXE_kubegc"))
        .args(["run", "--kubelet", "upstream", "--tags", "@kubelet"])
        .env("CI", "true")
        .output()
        .expect("kubegc runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "kubelet scenarios failed on upstream's code:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let summary = regex::Regex::new(r"(?m)^(\d+) scenarios \((\d+) passed\)$").expect("valid");
    let counts = summary.captures(&stdout).unwrap_or_else(|| panic!("no summary with every scenario passed:\n{stdout}"));
    assert!(counts[1] == counts[2] && &counts[1] != "0", "scenarios did not all run and pass:\n{stdout}");
}
