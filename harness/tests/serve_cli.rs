//! `kubegc serve` as a command: what it does with its address, its exit codes, and the
//! kubeconfig it leaves (none, once it has stopped).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn kubegc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kubegc"))
}

/// A host name is looked up (`localhost:0`); on SIGTERM the server stops with exit 0 and
/// removes its kubeconfig, which would otherwise point at a port no one listens on. A second
/// server on the same port exits 1 (a failure, not a usage error); an address that cannot be
/// read exits 2. Its log, written to a pipe, has no terminal colours.
#[test]
fn addresses_exit_codes_and_the_kubeconfig_left_behind() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let mut first = kubegc()
        .args(["serve", "--addr", "localhost:0", "--nodes", "0", "--kubeconfig"])
        .arg(&kubeconfig)
        .env("KUBEGC_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(first.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("no URL in {line:?}"));
    let addr = url.trim_start_matches("http://");
    assert!(kubeconfig.exists(), "the kubeconfig is written before the server says where it listens");

    let second = kubegc().args(["serve", "--addr", addr, "--kubeconfig"]).arg(dir.path().join("second")).output().unwrap();
    assert_eq!(second.status.code(), Some(1), "{second:?}");
    assert!(String::from_utf8_lossy(&second.stderr).contains(&format!("cannot listen on {addr}")), "{second:?}");

    let unreadable = kubegc().args(["serve", "--addr", "nonsense"]).output().unwrap();
    assert_eq!(unreadable.status.code(), Some(2), "{unreadable:?}");

    let killed = Command::new("kill").args(["-TERM", &first.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let stopped = first.wait_with_output().unwrap();
    assert_eq!(stopped.status.code(), Some(0));
    assert!(!kubeconfig.exists(), "the kubeconfig is removed when the server stops");
    let log = String::from_utf8_lossy(&stopped.stderr);
    assert!(log.contains(" INFO "), "{log}");
    assert!(!log.contains('\u{1b}'), "colours in a log written to a pipe: {log:?}");
}
