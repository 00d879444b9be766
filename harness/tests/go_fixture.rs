//! The Go helper of `go/kubegctest`: its example tests, run by `go test` with client-go, pass —
//! against `kubegc serve` (`kubegctest.Start(t)`, `server.Settle`: a Deployment's pods run and
//! go with it, a thousand dependents are collected by the time `Settle` returns), and the
//! envtest recipe (controller-runtime's envtest with the pinned release's etcd and
//! kube-apiserver, and `kubegctest.StartGC`: a foreground deletion completes). `go` (1.26 or
//! newer) must be on PATH; its modules come from the module proxy.

use std::path::Path;
use std::process::Command;

use kubegc_control_plane::build::{Component, Upstream};

#[test]
fn the_go_helper_s_examples_pass() {
    let upstream = Upstream::locate();
    upstream.ensure(&[Component::Etcd, Component::KubeApiserver]).unwrap_or_else(|e| panic!("{e:#}"));
    let assets = upstream.binary(Component::KubeApiserver).parent().unwrap().to_path_buf();
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("../go");
    let out = Command::new("go")
        .args(["test", "-count=1", "-v", "./..."])
        .current_dir(&module)
        .env("KUBEGC", env!("CARGO_BIN_EXE_kubegc"))
        .env("KUBEBUILDER_ASSETS", &assets)
        .output()
        .unwrap_or_else(|e| panic!("this test needs `go` (1.26 or newer) on PATH: {e}"));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "go test failed:\n{stdout}\n{stderr}");
    for test in [
        "TestADeploymentRunsItsPodsAndTakesThemWhenDeleted",
        "TestAThousandDependentsAreCollectedBeforeSettleReturns",
        "TestEnvtestCollectsGarbageWithKubegcGC",
    ] {
        assert!(stdout.contains(&format!("--- PASS: {test}")), "{test} did not pass:\n{stdout}");
    }
}
