//! The Go helper of `go/kubegctest` (`kubegctest.Start(t)`, `server.Settle`): its example
//! tests, run by `go test` against `kubegc serve` with client-go, pass — a Deployment's pods run
//! and go with it, and a thousand dependents are collected by the time `Settle` returns.
//! `go` (1.26 or newer) must be on PATH; its modules come from the module proxy.

use std::path::Path;
use std::process::Command;

#[test]
fn the_go_helper_s_examples_pass() {
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("../go");
    let out = Command::new("go")
        .args(["test", "-count=1", "./..."])
        .current_dir(&module)
        .env("KUBEGC", env!("CARGO_BIN_EXE_kubegc"))
        .output()
        .unwrap_or_else(|e| panic!("this test needs `go` (1.26 or newer) on PATH: {e}"));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "go test failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("ok  \tgithub.com/kubegc/kubegc/go/kubegctest"), "{stdout}");
}
