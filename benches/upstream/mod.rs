//! The background cascade on the real API server (the pinned release, built from `upstream/`),
//! collected by the upstream garbage collector (kube-controller-manager running only
//! `garbage-collector-controller`) and by the reference one, at the same client rate limit and
//! with as many workers (`--concurrent-gc-syncs`, `Config::workers`): once at
//! kube-controller-manager's defaults (`--kube-api-qps=20 --kube-api-burst=30`, which give its
//! garbage collector's client 40 requests/s; the reference's client gets the same through
//! [`RateLimit::garbage_collector`]), once unthrottled.
//!
//! One control plane (etcd and the API server, no controller manager) serves every run. Each
//! run starts its collector, builds its own tree in a fresh namespace, deletes the root with
//! `propagationPolicy: Background`, and is timed until a list of the tree's ConfigMaps comes
//! back empty; its collector stops before the next run starts.
//!
//! Before the deletion each collector must have seen the whole tree, and be done with its
//! start. The reference's ConfigMap monitor is waited for until it has observed the last
//! creation and nothing is queued. kube-controller-manager tells nothing of the kind without a
//! secure port. Then both get a quiet period: kube-controller-manager's watches deliver a
//! thousand events in far less, and the reference's watches, opened after its initial lists,
//! wait for tokens of its one client too (about 60 on this API server, a second and a half at
//! 40 a second), which must not hold up the cascade.
//!
//! Not quite alike: the reference's one client also carries its discovery, lists and watches,
//! which upstream sends through other clients, each with a limit of its own; during the cascade
//! that is a discovery round (a few requests) every 30 s.

mod tree;

use std::time::{Duration, Instant};

use kube::config::{KubeConfigOptions, Kubeconfig};
use kubegc::gc::{Config, GarbageCollector};
use kubegc::rate_limit::{self, RateLimit};
use kubegc_control_plane::build::Upstream;
use kubegc_control_plane::control_plane::{ControlPlane, ControllerManager, GARBAGE_COLLECTOR_ONLY, Tuning};

use tree::Tree;

/// How long a collector is given, once it has seen a tree, to be done with its start.
const QUIET: Duration = Duration::from_secs(5);

/// How long a collector may take to catch up, or to collect a tree.
const LIMIT: Duration = Duration::from_secs(1800);

/// A client rate limit both collectors run at.
struct Limits {
    /// How the lines name it.
    name: String,
    /// How the namespaces name it.
    slug: &'static str,
    /// kube-controller-manager's flags.
    upstream: Tuning,
    /// The reference collector's client limit, if any.
    reference: Option<RateLimit>,
}

impl Limits {
    /// kube-controller-manager's defaults, for both.
    fn defaults() -> anyhow::Result<Self> {
        let t = Tuning::UPSTREAM_DEFAULTS;
        let reference = RateLimit::garbage_collector(t.qps, t.burst)?;
        Ok(Self { name: format!("qps {} burst {}", t.qps, t.burst), slug: "defaults", upstream: t, reference: Some(reference) })
    }

    /// For kube-controller-manager a limit far beyond what it can send; none for the reference.
    fn unthrottled() -> Self {
        let upstream = Tuning { qps: 1_000_000.0, burst: 1_000_000, ..Tuning::UPSTREAM_DEFAULTS };
        Self { name: "unthrottled".into(), slug: "unthrottled", upstream, reference: None }
    }
}

/// A running collector.
enum Running {
    /// kube-controller-manager with only its garbage collector.
    Upstream(ControllerManager),
    /// The reference collector, in this process.
    Reference(GarbageCollector),
}

impl Running {
    /// Waits until it has seen every object of `tree` (as far as can be told), and a quiet
    /// period more.
    async fn wait_until_seen(&mut self, tree: &Tree) -> anyhow::Result<()> {
        if let Running::Reference(gc) = self {
            let started = Instant::now();
            loop {
                let settled = gc.settled_with(|group, resource| match (group, resource) {
                    ("", "configmaps") => tree.last_revision,
                    _ => 0,
                });
                if settled.settled {
                    break;
                }
                anyhow::ensure!(started.elapsed() < LIMIT, "the reference collector has not caught up: {:?}", settled.pending);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        tokio::time::sleep(QUIET).await;
        self.check_running()
    }

    /// Fails if the collector has stopped.
    fn check_running(&mut self) -> anyhow::Result<()> {
        match self {
            Running::Upstream(kcm) => kcm.check_running(),
            Running::Reference(_) => Ok(()),
        }
    }
}

/// Times both collectors at both limits on trees of fan-out 10 and `levels` levels below the
/// root; skipped, saying why, where Go is missing.
pub async fn compare(levels: u32) -> anyhow::Result<()> {
    if let Err(e) = std::process::Command::new("go").arg("version").output() {
        println!("upstream comparison skipped: cannot run `go` ({e}); Go 1.26 or newer builds the upstream control plane");
        return Ok(());
    }
    let upstream = Upstream::locate();
    let plane = ControlPlane::start(&upstream, "").await?;
    let kubeconfig = Kubeconfig::read_from(plane.kubeconfig())?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    let admin = kube::Client::try_from(config.clone())?;
    for limits in [Limits::defaults()?, Limits::unthrottled()] {
        let kcm = ControllerManager::start_with(&upstream, plane.kubeconfig(), GARBAGE_COLLECTOR_ONLY, limits.upstream).await?;
        let (upstream_time, objects) = cascade(&admin, Running::Upstream(kcm), &format!("upstream-{}", limits.slug), levels).await?;
        let client = rate_limit::client(config.clone(), limits.reference.as_ref())?;
        let gc = GarbageCollector::start(client, Config { workers: limits.upstream.gc_syncs as usize, ..Config::default() });
        let (reference_time, _) = cascade(&admin, Running::Reference(gc), &format!("reference-{}", limits.slug), levels).await?;
        println!(
            "upstream API server, {}, {objects} objects: upstream collector {:.1} s, reference collector {:.1} s (reference/upstream {:.2})",
            limits.name,
            upstream_time.as_secs_f64(),
            reference_time.as_secs_f64(),
            reference_time.as_secs_f64() / upstream_time.as_secs_f64()
        );
    }
    Ok(())
}

/// One run: a tree in namespace `cascade-{name}`, seen by `collector`, deleted at the root and
/// collected; the time from the deletion to an empty list, and the tree's size. The collector
/// stops at the end.
async fn cascade(admin: &kube::Client, mut collector: Running, name: &str, levels: u32) -> anyhow::Result<(Duration, usize)> {
    let tree = Tree::create(admin, &format!("cascade-{name}"), levels).await?;
    collector.wait_until_seen(&tree).await?;
    let started = Instant::now();
    tree.delete_root().await?;
    while !tree.is_gone().await? {
        collector.check_running()?;
        anyhow::ensure!(started.elapsed() < LIMIT, "the tree in {} is not collected after {LIMIT:?}", tree.namespace);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed();
    drop(collector);
    Ok((elapsed, tree.objects))
}
