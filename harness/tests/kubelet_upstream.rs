//! The kubelet specification on the kubelet's own code: `kubegc run --kubelet upstream` builds
//! kubegc's kubelet driver from the pinned upstream module and runs `@kubelet` scenarios through
//! it. The features listed here are those the driver carries out in full.

use std::path::Path;
use std::process::Command;

/// Kubelet features whose every scenario runs on upstream's code.
const DRIVEN: &[&str] = &["features/kubelet_config.feature", "features/kubelet_image_gc.feature", "features/kubelet_container_gc.feature"];

#[test]
fn kubelet_scenarios_pass_on_upstream_kubelet_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut command = Command::new(env!("CARGO_BIN_EXE_kubegc"));
    command.args(["run", "--kubelet", "upstream", "--tags", "@kubelet"]);
    for feature in DRIVEN {
        command.arg("--features").arg(root.join(feature));
    }
    let out = command.env("CI", "true").output().expect("kubegc runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "kubelet scenarios failed on upstream's code:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let summary = regex::Regex::new(r"(?m)^(\d+) scenarios \((\d+) passed\)$").expect("valid");
    let counts = summary.captures(&stdout).unwrap_or_else(|| panic!("no summary with every scenario passed:\n{stdout}"));
    assert!(counts[1] == counts[2] && &counts[1] != "0", "scenarios did not all run and pass:\n{stdout}");
}
