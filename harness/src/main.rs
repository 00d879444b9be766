//! `kubegc`: the command-line entry to kubegc.
//!
//! - `kubegc serve`: run the fake apiserver (and by default the reference garbage collector)
//!   on a TCP port and write a kubeconfig for it.
//! - `kubegc gc`: run the reference garbage collector against any cluster.
//! - `kubegc settle`: wait until a `kubegc serve` has settled.
//! - `kubegc run`: run the specification's scenarios against a backend.
//! - `kubegc list`: list the scenarios and their tags.
//! - `kubegc chaos`: random graphs, deletions, faults and cold restarts thrown at the collector.
//! - `kubegc fuzz`: the fake API server fuzzed with seeded requests, judged by invariants.
//! - `kubegc corpus`: the pinned modules' test manifests sent to the fake API server and to
//!   the upstream kube-apiserver, the answers compared.
//! - `kubegc kubelet-diff`: random nodes through the kubelet model and the kubelet's own code.
//! - `kubegc coverage`: which upstream test cases the scenarios cover.
//! - `kubegc steps`: the step reference, generated from the step definitions.
//! - `kubegc upstream`: build and run the real control plane from the pinned Go module.
//! - `kubegc e2e`: Kubernetes' own e2e tests of the pinned release against a target.

mod cmd;
mod debug_routes;
mod settle_route;

use clap::{Parser, Subcommand};

/// kubegc: an executable specification of Kubernetes garbage collection.
#[derive(Parser, Debug)]
#[command(name = "kubegc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the fake Kubernetes API server until interrupted, with a kubeconfig for it (removed
    /// on exit): plain HTTP on loopback, HTTPS with a bearer token on any other address; exit 1
    /// if it cannot listen, 2 on usage errors.
    Serve(cmd::serve::Args),
    /// Run the reference garbage collector against a cluster until interrupted.
    Gc(cmd::gc::Args),
    /// Wait until a `kubegc serve` has settled (its collector and controllers have nothing left
    /// to do); exit 0 if it did, 1 if not within the timeout, 2 on usage errors.
    Settle(cmd::settle::Args),
    /// Run scenarios against a backend; exit 0 if all pass, 1 if any fails, 2 on usage errors.
    Run(cmd::run::Args),
    /// List the scenarios of the feature files, with their tags.
    List(cmd::list::Args),
    /// Run the specification against every mutant (of the API server, the collector, the cleanup
    /// and the workload controllers) and report which scenarios catch which; exit 0 if every
    /// mutant is caught, 1 if not.
    Mutants(cmd::mutants::Args),
    /// Throw seeded random object graphs, bursts of deletions and finalizer changes, faults
    /// (5xx, 429, conflicts, lost answers, slow answers, cut watches, 410 on resume) and cold
    /// restarts at a garbage collector (the reference one on the fake API server, or
    /// kube-controller-manager's on the real control plane), and judge every end state by an
    /// independent model; exit 0 if no run breaks it, 1 if one does, printing its seed (and, on
    /// the fake, a shrunk plan).
    Chaos(cmd::chaos::Args),
    /// Fuzz the fake API server in-process with seeded requests (paths, verbs, queries, content
    /// types, bodies); exit 0 if no answer breaks an invariant (no panic, no unexpected 5xx,
    /// every error a Status, a refused request changes nothing, a write changes only what it
    /// names), 1 at the first that does, printing its seed, index and request. With
    /// `--differential`, send them to the fake and to the upstream kube-apiserver side by side and
    /// compare the answers; exit 1 at an undocumented difference, printed shrunk with a replay
    /// command (or, with `--keep-going`, every class of differences with a count and an example).
    Fuzz(cmd::fuzz::Args),
    /// Send the test manifests and fixtures of the pinned modules (k8s.io/kubernetes'
    /// test/e2e/testing-manifests, test/fixtures and hack/testdata, k8s.io/kubectl's testdata,
    /// read from the Go module cache) whose kind the fake serves to the fake and to the
    /// upstream kube-apiserver (with etcd, no controller manager; built first if missing), each
    /// created with dryRun=All, created, read, listed, updated, patched (JSON, merge,
    /// strategic, apply), deleted with dryRun=All and deleted, and compare the answers as
    /// `fuzz --differential` does; print the counts (files, manifests kept, skipped by reason,
    /// requests compared, answers with undocumented differences) after every class of
    /// differences with a count and an example; exit 1 if an answer differs in a way
    /// tests/differential/deviations.tsv does not document.
    Corpus(cmd::corpus::Args),
    /// Run seeded random nodes (images, containers, pods, disks, faults, configurations, eviction
    /// settings, and steps on them) through the kubelet model and through the kubelet's own code
    /// of the pinned release (kubegc's kubelet driver, built first if missing), comparing
    /// everything seen after every step; exit 0 if they agree, 1 at the first disagreement,
    /// printed shrunk.
    KubeletDiff(cmd::kubelet_diff::Args),
    /// Which upstream test cases the scenarios cover, per category, and why the others are not.
    Coverage(cmd::coverage::Args),
    /// Print what a container's command does on kubegc's nodes (the fake's node agents and the
    /// upstream control plane's hollow nodes), as JSON: `kubegc program -- sleep 5`.
    Program(cmd::program::Args),
    /// Print every step phrase (with placeholders, or `--regex` for the regular expressions)
    /// with an example.
    Steps(cmd::steps::Args),
    /// Build the real Kubernetes pieces (etcd, kube-apiserver, kube-controller-manager,
    /// kubectl) from the pinned Go module, or run the real control plane.
    Upstream(cmd::upstream::Args),
    /// Run Kubernetes' own end-to-end tests of the pinned release (built from `upstream/e2e/`
    /// on first use) against a target, one selection at a time (`gc`, `deletion`); exit 0 if
    /// every test passes or skips itself, 1 if one fails or cannot be judged, 2 on usage errors.
    E2e(cmd::e2e::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // `chaos` injects faults and `fuzz` sends nonsense on purpose: warnings about them are
    // noise there.
    let default_filter = if matches!(cli.command, Command::Chaos(_) | Command::Fuzz(_) | Command::Corpus(_)) { "off" } else { "warn" };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("KUBEGC_LOG").unwrap_or_else(|_| default_filter.into()))
        .with_writer(std::io::stderr)
        // Colours only for a terminal: a log written to a file or a CI log keeps plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let result = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => cmd::serve::run(args).await,
            Command::Gc(args) => cmd::gc::run(args).await.map(|()| true),
            Command::Settle(args) => cmd::settle::run(args).await,
            Command::Run(args) => cmd::run::run(args).await,
            Command::List(args) => cmd::list::run(args).map(|()| true),
            Command::Program(args) => cmd::program::run(args).map(|()| true),
            Command::Mutants(args) => cmd::mutants::run(args).await,
            Command::Chaos(args) => tokio::task::block_in_place(|| cmd::chaos::run(args)),
            Command::Fuzz(args) => cmd::fuzz::run(args).await,
            Command::Corpus(args) => cmd::corpus::run(args).await,
            Command::KubeletDiff(args) => tokio::task::block_in_place(|| cmd::kubelet_diff::run(args)),
            Command::Coverage(args) => cmd::coverage::run(args),
            Command::Upstream(args) => cmd::upstream::run(args).await.map(|()| true),
            Command::E2e(args) => cmd::e2e::run(args).await,
            Command::Steps(args) => {
                cmd::steps::run(args);
                Ok(true)
            }
        }
    });
    match result {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::from(1),
        Err(e) => {
            eprintln!("kubegc: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
