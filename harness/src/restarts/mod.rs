//! The restart loop: the reference collector killed and restarted cold, again and again, around
//! Orphan, Background and Foreground deletions, and the outcome judged by an independent rule.
//!
//! Each run is one seed: a fresh fake apiserver, a random [`Forest`] of owners and dependents
//! over several resources, and a few collector *lives*. Every life starts a new collector (an
//! empty graph, empty queues) behind a [`Faults`] proxy armed afresh, makes some of the
//! deletions just before the start and others after a random number of the collector's
//! requests, and kills the collector at another random point by dropping it (its tasks are
//! aborted wherever they are, as a SIGKILL would stop a `kubegc gc` process). Deletions whose
//! point comes after the kill are made while no collector runs. Last, a collector with no faults
//! runs until it has settled, and the forest is judged: nothing a correct collector keeps may be
//! gone, orphaned dependents must have lost the reference, and everything else must be
//! collected.
//!
//! - [`forest`]: the objects, the deletions, and the rule.
//! - [`faults`]: the fault-injecting proxy and request counter.

pub mod faults;
pub mod forest;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures::StreamExt;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, PostParams};
use kubegc::apiserver::ApiServer;
use kubegc::gc::{Config, GarbageCollector};

use crate::backend::Backend;
use crate::backend::fake::FakeBackend;
use crate::restarts::faults::Faults;
use crate::restarts::forest::{Fate, Forest};

/// The namespace a run's forest grows in.
const NAMESPACE: &str = "restarts";

/// The latest point, in requests of one life, at which a deletion is made or the collector is
/// killed; a discovery and every monitor's first list take about a hundred.
const LATEST_POINT: u64 = 400;

/// How long a life may go on without reaching its next point (a collector that has settled, or
/// that waits for a list held back, makes no more requests).
const LIFE_LIMIT: Duration = Duration::from_secs(5);

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Runs (each a fresh apiserver and forest).
    pub runs: u64,
    /// Seed of the first run; run `i` uses `seed + i`.
    pub seed: u64,
    /// Collector lives killed in each run, before the last, undisturbed one.
    pub lives: u32,
    /// Runs made at once (each on its own fake apiserver; most of a run's time is spent in the
    /// collectors' back-off, not on a CPU).
    pub jobs: usize,
}

/// What the runs found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Runs made.
    pub runs: u64,
    /// Collectors started and killed cold.
    pub kills: u64,
    /// Deletions made, by propagation policy.
    pub deletions: BTreeMap<&'static str, u64>,
    /// Objects judged.
    pub checked: u64,
    /// Deletions a correct collector would not have made, and references it would not have
    /// left or removed, each with its seed.
    pub violations: Vec<String>,
    /// Objects not collected although they should have been, and runs whose last collector did
    /// not settle, each with its seed.
    pub uncollected: Vec<String>,
    /// Wall time.
    pub elapsed: Duration,
}

impl Report {
    /// Adds another report's numbers and problems to this one's.
    fn absorb(&mut self, other: Report) {
        self.runs += other.runs;
        self.kills += other.kills;
        for (policy, n) in other.deletions {
            *self.deletions.entry(policy).or_default() += n;
        }
        self.checked += other.checked;
        self.violations.extend(other.violations);
        self.uncollected.extend(other.uncollected);
    }

    /// Whether every run ended as a correct collector would have left it.
    pub fn passed(&self) -> bool {
        self.violations.is_empty() && self.uncollected.is_empty()
    }

    /// The numbers, one line, then each problem on its own line.
    pub fn summary(&self) -> String {
        let deletions: Vec<String> = self.deletions.iter().map(|(policy, n)| format!("{n} {policy}")).collect();
        let mut text = format!(
            "{} runs, {} collectors killed cold, deletions: {} ({}), {} objects checked, {} violations, {} not collected, {:.1?}",
            self.runs,
            self.kills,
            self.deletions.values().sum::<u64>(),
            deletions.join(", "),
            self.checked,
            self.violations.len(),
            self.uncollected.len(),
            self.elapsed,
        );
        for problem in self.violations.iter().chain(&self.uncollected) {
            text.push_str(&format!("\n  {problem}"));
        }
        text
    }
}

/// Makes `options.runs` runs, `options.jobs` at a time. Must be called inside a multi-threaded
/// Tokio runtime.
pub async fn run(options: &Options) -> anyhow::Result<Report> {
    let start = Instant::now();
    let seeds = (0..options.runs).map(|i| options.seed.wrapping_add(i));
    let mut runs = futures::stream::iter(seeds).map(|seed| one_run(seed, options.lives)).buffer_unordered(options.jobs.max(1));
    let mut report = Report::default();
    while let Some(one) = runs.next().await {
        report.absorb(one?);
    }
    report.elapsed = start.elapsed();
    Ok(report)
}

/// A deletion and when it is made.
#[derive(Clone, Copy, Debug)]
struct Deletion {
    root: usize,
    fate: Fate,
    /// The life it is made in.
    life: u32,
    /// After this many of the life's requests; `None`: just before the life's collector starts.
    point: Option<u64>,
}

/// One run of seed `seed`, as a report of its own.
async fn one_run(seed: u64, lives: u32) -> anyhow::Result<Report> {
    let mut report = Report { runs: 1, ..Report::default() };
    let report = &mut report;
    let mut rng = fastrand::Rng::with_seed(seed);
    let server = ApiServer::new();
    let client = server.client();
    let namespace: Namespace = serde_json::from_value(serde_json::json!({"metadata": {"name": NAMESPACE}}))?;
    Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &namespace).await?;
    let mut forest = Forest::grow(&mut rng);
    forest.plant(&client, NAMESPACE).await?;
    let mut schedule: Vec<Deletion> = forest
        .deletions()
        .into_iter()
        .map(|(root, fate)| Deletion { root, fate, life: rng.u32(..lives.max(1)), point: rng.bool().then(|| rng.u64(..LATEST_POINT)) })
        .collect();
    schedule.sort_by_key(|d| (d.life, d.point));
    let faults = Faults::new(rng.u64(..));
    let collector_client = faults.client(&server);
    let mut pending = schedule.into_iter().peekable();
    for life in 0..lives {
        while let Some(d) = pending.next_if(|d| d.life == life && d.point.is_none()) {
            delete(&forest, &client, d, report).await?;
        }
        faults.arm(&mut rng, &forest::resources());
        let gc = GarbageCollector::start(collector_client.clone(), Config::default());
        let kill_point = rng.u64(..LATEST_POINT);
        while let Some(d) = pending.next_if(|d| d.life == life && d.point.is_some_and(|p| p < kill_point)) {
            reach(&faults, &gc, &server, d.point.unwrap_or_default()).await;
            delete(&forest, &client, d, report).await?;
        }
        reach(&faults, &gc, &server, kill_point).await;
        drop(gc);
        report.kills += 1;
        while let Some(d) = pending.next_if(|d| d.life == life) {
            delete(&forest, &client, d, report).await?;
        }
    }
    for d in pending {
        delete(&forest, &client, d, report).await?;
    }
    faults.disarm();
    let last = FakeBackend::start(server.clone());
    if let Err(why) = last.settle().await {
        report.uncollected.push(format!("seed {seed}: {why}"));
    }
    let verdict = forest.judge(&client, NAMESPACE).await?;
    report.checked += verdict.checked as u64;
    report.violations.extend(verdict.violations.into_iter().map(|v| format!("seed {seed}: {v}")));
    report.uncollected.extend(verdict.uncollected.into_iter().map(|v| format!("seed {seed}: {v}")));
    Ok(std::mem::take(report))
}

async fn delete(forest: &Forest, client: &kube::Client, d: Deletion, report: &mut Report) -> anyhow::Result<()> {
    forest.delete(client, NAMESPACE, d.root, d.fate).await?;
    *report.deletions.entry(d.fate.name()).or_default() += 1;
    Ok(())
}

/// Waits until the life has made `point` requests, or its collector has settled, or
/// [`LIFE_LIMIT`] has passed.
async fn reach(faults: &Faults, gc: &GarbageCollector, server: &ApiServer, point: u64) {
    let start = Instant::now();
    while faults.requests() < point && start.elapsed() < LIFE_LIMIT {
        if gc.settled_with(|g, r| server.resource_revision(g, r)).settled {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}
