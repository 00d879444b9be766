//! `kubegc serve` or the upstream control plane, started by a test, and kubectl run against it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Defines, for each named `fn(On)`, one test against `kubegc serve` (in `fake::`) and one
/// against the upstream control plane (in `upstream::`).
#[allow(unused_macros)]
macro_rules! on_both_servers {
    ($($name:ident),* $(,)?) => {
        mod fake {
            $(#[test]
            fn $name() {
                super::$name(super::support::On::Fake)
            })*
        }
        mod upstream {
            $(#[test]
            fn $name() {
                super::$name(super::support::On::Upstream)
            })*
        }
    };
}
#[allow(unused_imports)]
pub(crate) use on_both_servers;

/// Which API server a test's kubectl talks to.
#[derive(Clone, Copy, Debug)]
pub enum On {
    /// `kubegc serve`, one per test.
    Fake,
    /// The upstream control plane shared by the test process, in a namespace of the test's own
    /// (kubectl's default namespace).
    Upstream,
}

impl On {
    /// A server with a garbage collector (the reference one on the fake, the real one upstream).
    pub fn start(self) -> Served {
        self.start_with_gc("reference")
    }

    /// A server with `gc` (`reference` or `none`) as its collector; upstream, any collector
    /// but `none` is upstream's own.
    pub fn start_with_gc(self, gc: &str) -> Served {
        match self {
            Self::Fake => Served::start_with_gc(gc),
            Self::Upstream => Served::upstream(gc != "none"),
        }
    }
}

/// A server for one test; a `kubegc serve` is stopped on drop.
pub struct Served {
    child: Option<Child>,
    /// Holds the kubeconfig and files the test writes.
    pub dir: tempfile::TempDir,
}

impl Served {
    /// `kubegc serve` with the reference garbage collector.
    pub fn start() -> Self {
        Self::start_with_gc("reference")
    }

    /// `kubegc serve --gc <gc>`.
    pub fn start_with_gc(gc: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = dir.path().join("kubeconfig");
        let mut child = Command::new(env!("CARGO_BIN_EXE_kubegc"))
            .args(["serve", "--addr", "127.0.0.1:0", "--gc", gc, "--kubeconfig"])
            .arg(&kubeconfig)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert!(line.contains("listening on http://127.0.0.1:") && line.contains(&format!("gc: {gc}")), "unexpected first line: {line}");
        Self { child: Some(child), dir }
    }

    /// A fresh namespace on the upstream control plane shared by this test process (with its
    /// garbage collector or without), and a kubeconfig whose default namespace it is.
    pub fn upstream(garbage_collector: bool) -> Self {
        use kubegc_control_plane::control_plane::{ALL_BUT_GARBAGE_COLLECTOR, DEFAULT_CONTROLLERS};
        static NAMESPACES: AtomicUsize = AtomicUsize::new(0);
        let controllers = if garbage_collector { DEFAULT_CONTROLLERS } else { ALL_BUT_GARBAGE_COLLECTOR };
        let shared = kubegc_control_plane::shared::kubeconfig(controllers).unwrap_or_else(|e| panic!("{e:#}"));
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(shared, dir.path().join("kubeconfig")).unwrap();
        let served = Self { child: None, dir };
        let namespace = format!("kubectl-{}-{}", std::process::id(), NAMESPACES.fetch_add(1, Ordering::Relaxed));
        served.ok(&["create", "namespace", &namespace]);
        served.ok(&["config", "set-context", "--current", "--namespace", &namespace]);
        // Until the service-account controller has made `default`, every Pod is refused.
        served.eventually("the namespace's default ServiceAccount", |s| s.exists("serviceaccount", "default"));
        served
    }

    /// The kubeconfig `kubegc serve` wrote.
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// kubectl against the server, to run.
    pub fn kubectl_command(&self) -> Command {
        let mut command = Command::new(kubectl());
        command.env("KUBECONFIG", self.kubeconfig());
        command
    }

    /// Runs kubectl against the server.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        self.kubectl_command().args(args).output().expect("kubectl runs")
    }

    /// Runs kubectl, asserting success and no warning; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.kubectl(args);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "kubectl {args:?} failed:\n{stdout}\n{stderr}");
        assert!(!stderr.contains("Warning") && !stderr.contains("error"), "kubectl {args:?} warned:\n{stderr}");
        stdout.into_owned()
    }

    /// `kubectl ... -o json`, parsed.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        serde_json::from_str(&self.ok(&all)).unwrap()
    }

    /// Writes `yaml` to a file named `name` and runs `kubectl <verb> -f` on it.
    pub fn apply_file(&self, verb: &str, name: &str, yaml: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, yaml).unwrap();
        self.ok(&[verb, "-f", path.to_str().unwrap()])
    }

    /// The uid of an object.
    pub fn uid(&self, kind: &str, name: &str) -> String {
        self.ok(&["get", kind, name, "-o", "jsonpath={.metadata.uid}"])
    }

    /// Whether an object exists.
    pub fn exists(&self, kind: &str, name: &str) -> bool {
        self.kubectl(&["get", kind, name]).status.success()
    }

    /// Polls until `cond` holds (at most 20 s).
    pub fn eventually(&self, what: &str, cond: impl Fn(&Self) -> bool) {
        let start = Instant::now();
        while !cond(self) {
            assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// kubectl of the pinned upstream release, built (once, for every test) from `upstream/`.
pub fn kubectl() -> &'static PathBuf {
    static KUBECTL: OnceLock<PathBuf> = OnceLock::new();
    KUBECTL.get_or_init(|| kubegc_control_plane::build::kubectl().unwrap_or_else(|e| panic!("cannot build kubectl: {e:#}")))
}

/// A string list in a JSON value.
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

/// The `python` of a virtual environment named `name` under Cargo's target directory, with
/// `packages` installed from PyPI; made once per set of packages (under a lock: tests run at
/// once). `python3` (3.9 or newer, with `venv`) must be on PATH, and the test fails saying so
/// when it is not.
pub fn python_with(name: &str, packages: &[&str]) -> PathBuf {
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let lock = std::fs::File::create(tmp.join(format!("{name}.lock"))).unwrap();
    lock.lock().unwrap();
    let venv = tmp.join(name);
    let python = venv.join("bin").join("python");
    let marker = venv.join(format!("{}.installed", packages.join("+")));
    if marker.exists() {
        return python;
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .unwrap_or_else(|e| panic!("this test needs `python3` (3.9 or newer, with the venv module) on PATH: {e}"));
    assert!(made.success(), "`python3 -m venv {}` failed: install Python's venv module", venv.display());
    let pip = Command::new(&python).args(["-m", "pip", "install", "--quiet"]).args(packages).status().expect("pip runs");
    assert!(pip.success(), "`pip install {}` failed: the test installs them from PyPI", packages.join(" "));
    std::fs::write(&marker, "").unwrap();
    python
}
