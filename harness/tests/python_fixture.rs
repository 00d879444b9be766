//! The pytest fixture of `python/` (`pip install ./python`): its example tests, run by pytest
//! against `kubegc serve` with the official Kubernetes Python client, pass — a Deployment's
//! pods run and go with it, and a thousand dependents are collected by the time `settle()`
//! returns.

mod support;

use std::path::Path;
use std::process::Command;

/// What the fixture's environment holds besides the fixture: the client release the other
/// Python test pins, pytest, and setuptools to build the fixture with.
const PACKAGES: [&str; 3] = ["kubernetes==37.0.2", "pytest==9.2.0", "setuptools==80.9.0"];

#[test]
fn the_python_fixture_s_examples_pass() {
    let python = support::python_with("python-fixture", &PACKAGES);
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python");
    // The fixture itself is installed afresh every run (it is small, and may have changed).
    let installed = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--force-reinstall"])
        .arg(&package)
        .status()
        .expect("pip runs");
    assert!(installed.success(), "`pip install ./python` failed");
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(package.join("tests"))
        .env("KUBEGC", env!("CARGO_BIN_EXE_kubegc"))
        .output()
        .expect("pytest runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pytest failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("2 passed"), "{stdout}");
}
