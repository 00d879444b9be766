//! Chaos on the fake API server with the reference collector: every run on a runtime of its
//! own, one thread and virtual time (sleeps, back-offs and slow answers cost no wall time), with
//! uids drawn from the seed. Nothing else in the run chooses an order by chance, so a seed is a
//! reproduction: the same requests in the same order, the same faults, the same end state.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use kubegc::apiserver::ids::Ids;
use kubegc::apiserver::{self, ApiServer};
use kubegc::clock::Clock;
use kubegc::gc::{self, GarbageCollector};

use crate::chaos::faults::Faults;
use crate::chaos::model::Verdict;
use crate::chaos::plan::Plan;
use crate::chaos::{Bench, Outcome, Report, play};

/// A fake API server and the reference collector, killed and restarted at will.
struct FakeBench {
    server: ApiServer,
    config: gc::Config,
    collector: Option<GarbageCollector>,
}

impl Bench for FakeBench {
    fn client(&self) -> kube::Client {
        self.server.client()
    }

    async fn start_collector(&mut self, faults: &Arc<Faults>) -> anyhow::Result<()> {
        let client = kube::Client::new(faults.wrap(self.server.router()), "default");
        self.collector = Some(GarbageCollector::start(client, self.config.clone()));
        Ok(())
    }

    async fn kill_collector(&mut self) {
        self.collector = None;
    }

    async fn settle(&mut self, _: &Plan, _: &[String]) -> anyhow::Result<Result<(), String>> {
        let limit = self.settle_limit();
        let start = tokio::time::Instant::now();
        let gc = self.collector.as_ref().ok_or_else(|| anyhow::anyhow!("no collector runs"))?;
        loop {
            let s = gc.settled_with(|g, r| self.server.resource_revision(g, r));
            if s.settled && s.retrying == 0 && self.server.controllers_idle() {
                return Ok(Ok(()));
            }
            if start.elapsed() > limit {
                return Ok(Err(s.pending.join("; ")));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The instant a run's virtual clock starts at: any fixed one will do.
const EPOCH: i64 = 1_767_225_600;

/// Runs `plan` on a fresh fake API server with the reference collector configured by `config`.
pub fn run(plan: &Plan, config: &gc::Config) -> anyhow::Result<Outcome> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build()?;
    runtime.block_on(async {
        let start = chrono::DateTime::from_timestamp(EPOCH, 0).expect("a valid instant");
        let server = ApiServer::with_config(apiserver::Config {
            clock: Clock::virtual_at(start),
            ids: Ids::seeded(plan.seed),
            ..apiserver::Config::default()
        });
        let mut bench = FakeBench { server, config: config.clone(), collector: None };
        play(&mut bench, plan).await
    })
}

/// What to run on the fake.
#[derive(Clone, Debug)]
pub struct Options {
    /// Runs.
    pub runs: u64,
    /// Seed of the first run; run `i` has seed `seed + i`.
    pub seed: u64,
    /// Runs made at once, each on a thread of its own.
    pub jobs: usize,
    /// How the collector runs (a mutant, to show that chaos catches it).
    pub config: gc::Config,
    /// Whether to shrink the plans of failing runs.
    pub shrink: bool,
    /// Whether to print progress on standard error.
    pub progress: bool,
}

/// Makes the runs, `jobs` at a time, and shrinks the failing ones.
pub fn run_many(options: &Options) -> anyhow::Result<Report> {
    let started = Instant::now();
    let next = AtomicU64::new(0);
    let (tx, rx) = mpsc::channel();
    let error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let mut report = Report::default();
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            let tx = tx.clone();
            let (next, error) = (&next, &error);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= options.runs {
                        return;
                    }
                    let seed = options.seed.wrapping_add(i);
                    match run(&Plan::draw(seed), &options.config) {
                        Ok(outcome) => drop(tx.send((seed, outcome))),
                        Err(e) => {
                            *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.context(format!("seed {seed}")));
                            next.store(options.runs, Ordering::SeqCst);
                        }
                    }
                }
            });
        }
        drop(tx);
        let mut last_print = Instant::now();
        for (seed, outcome) in rx {
            report.add(seed, &outcome);
            if options.progress && (last_print.elapsed() > Duration::from_secs(5) || report.runs == options.runs) {
                eprintln!(
                    "chaos: {}/{} runs, {} violating the model, {:.0?}",
                    report.runs,
                    options.runs,
                    report.failures.len(),
                    started.elapsed()
                );
                last_print = Instant::now();
            }
        }
    });
    if let Some(e) = error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    report.failures.sort_by_key(|f| f.seed);
    if options.shrink {
        for failure in &mut report.failures {
            if options.progress {
                eprintln!("chaos: shrinking seed {}", failure.seed);
            }
            failure.shrunk = Some(shrink(Plan::draw(failure.seed), failure.verdict.clone(), &options.config)?);
        }
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

/// The most runs one shrinking may make.
const SHRINK_BUDGET: usize = 3_000;

/// The smallest plan found, one simplification at a time, that still breaks the model, with
/// its verdict.
pub fn shrink(mut plan: Plan, mut verdict: Verdict, config: &gc::Config) -> anyhow::Result<(Plan, Verdict)> {
    let mut budget = SHRINK_BUDGET;
    'simpler: loop {
        for candidate in plan.simpler() {
            if budget == 0 {
                break 'simpler;
            }
            budget -= 1;
            let outcome = run(&candidate, config)?;
            if !outcome.verdict.passed() {
                (plan, verdict) = (candidate, outcome.verdict);
                continue 'simpler;
            }
        }
        break;
    }
    Ok((plan, verdict))
}
