//! `kubegc chaos`: seeded runs that throw random object graphs, bursts of deletions, faults and
//! cold restarts at a garbage collector, and judge the end state by an independent model.
//!
//! A run is one seed. Its [`plan`] (objects, owner references, actions, kills, fault rates) is
//! drawn from the seed alone. The run creates the objects, starts a collector whose traffic
//! passes through the [`faults`] proxy, makes the plan's deletions and finalizer changes at
//! their moments while the collector is killed and restarted cold at its own, then turns the
//! faults off, removes the finalizers the run still holds, waits until the collector has
//! nothing left to do, and judges what is left by the [`model`].
//!
//! - On the fake ([`fake`]) a run has a runtime of its own: one thread and virtual time, a
//!   seeded source of uids, and a collector whose every choice of order is fixed, so a seed is
//!   a reproduction. A failing plan is shrunk there, by re-running simpler plans.
//! - On the upstream control plane ([`upstream`]) the collector is kube-controller-manager's,
//!   its traffic through the same proxy, killed and restarted as a process.
//!
//! Files: [`plan`] (what a run does, drawn from its seed, and its simplifications), [`faults`]
//! (the proxy), [`actions`] (the run's own requests), [`model`] (the independent judge),
//! [`fake`] and [`upstream`] (the two benches), and this module (one run, [`play`], and the
//! report of many).

pub mod actions;
pub mod fake;
pub mod faults;
pub mod model;
pub mod plan;
pub mod upstream;

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::chaos::faults::Faults;
use crate::chaos::model::Verdict;
use crate::chaos::plan::{Action, Plan};

/// What one run did and found.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The model's verdict.
    pub verdict: Verdict,
    /// Objects created.
    pub objects: u64,
    /// Deletions made, by propagation policy.
    pub deletions: BTreeMap<&'static str, u64>,
    /// Finalizers added or removed during the burst.
    pub finalizer_changes: u64,
    /// Faults injected, by kind.
    pub faults: BTreeMap<&'static str, u64>,
    /// Collectors killed and restarted cold.
    pub restarts: u64,
    /// A hash of the collector's traffic, request by request with the status of each answer:
    /// the same for every run of a seed on the fake.
    pub fingerprint: u64,
}

/// The collector a run works with, on some cluster.
pub trait Bench {
    /// A client for the run's own requests, which faults never touch.
    fn client(&self) -> kube::Client;

    /// Starts a collector cold, its traffic through `faults`.
    fn start_collector(&mut self, faults: &std::sync::Arc<Faults>) -> impl Future<Output = anyhow::Result<()>>;

    /// Kills the running collector.
    fn kill_collector(&mut self) -> impl Future<Output = ()>;

    /// Waits, up to [`Bench::settle_limit`], until the collector has nothing left to do for the
    /// plan's objects (created with `uids`); `Err` says what is still pending when the limit
    /// passes.
    fn settle(&mut self, plan: &Plan, uids: &[String]) -> impl Future<Output = anyhow::Result<Result<(), String>>>;

    /// How long a run may take to come to rest once its burst is over.
    fn settle_limit(&self) -> Duration {
        SETTLE_LIMIT
    }
}

/// How long a run may take to come to rest once its burst is over, unless the bench says
/// otherwise (virtual time on the fake).
pub const SETTLE_LIMIT: Duration = Duration::from_secs(600);

/// Plays `plan` on `bench`: objects, burst, kills, release, settle, judge.
pub async fn play<B: Bench>(bench: &mut B, plan: &Plan) -> anyhow::Result<Outcome> {
    let client = bench.client();
    let faults = Faults::new(plan.seed);
    let resources: Vec<_> = plan.kinds().into_iter().map(|k| k.resource()).collect();
    let mut rng = fastrand::Rng::with_seed(plan.seed.rotate_left(32));
    let mut outcome = Outcome { objects: plan.objects.len() as u64, ..Outcome::default() };
    actions::prepare(&client, plan).await?;
    let start_collector = async |bench: &mut B, rng: &mut fastrand::Rng| {
        faults.arm(rng, &resources, plan.rates);
        bench.start_collector(&faults).await
    };
    if plan.collector_first {
        start_collector(bench, &mut rng).await?;
    }
    let uids = actions::create(&client, plan).await?;
    if !plan.collector_first {
        start_collector(bench, &mut rng).await?;
    }
    let start = Instant::now();
    let mut timeline: Vec<(Duration, Moment)> = plan.steps.iter().map(|s| (s.at, Moment::Act(s.action))).collect();
    for k in &plan.kills {
        timeline.push((k.at, Moment::Kill));
        timeline.push((k.at + k.down, Moment::Start));
    }
    // Stable: a kill and a start at the same moment stay in order.
    timeline.sort_by_key(|(at, _)| *at);
    let mut running = true;
    for (at, moment) in timeline {
        tokio::time::sleep_until(start + at).await;
        match moment {
            Moment::Act(action) => {
                actions::act(&client, plan, action).await?;
                match action {
                    Action::Delete(_, policy) => *outcome.deletions.entry(policy.name()).or_default() += 1,
                    _ => outcome.finalizer_changes += 1,
                }
            }
            Moment::Kill if running => {
                bench.kill_collector().await;
                outcome.restarts += 1;
                running = false;
            }
            Moment::Start if !running => {
                start_collector(bench, &mut rng).await?;
                running = true;
            }
            Moment::Kill | Moment::Start => {}
        }
    }
    if !running {
        start_collector(bench, &mut rng).await?;
    }
    faults.disarm();
    actions::release(&client, plan).await?;
    let settled = bench.settle(plan, &uids).await?;
    let found = actions::observe(&client, plan, &uids).await?;
    outcome.verdict = model::judge(plan, &uids, &found);
    if let Err(pending) = settled {
        outcome.verdict.liveness.push(format!("the collector did not come to rest within {:?}: {pending}", bench.settle_limit()));
    }
    outcome.faults = faults.injected();
    outcome.fingerprint = faults.fingerprint();
    Ok(outcome)
}

/// Something that happens at a moment of the burst.
#[derive(Clone, Copy, Debug)]
enum Moment {
    Act(Action),
    Kill,
    Start,
}

/// What many runs did and found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Runs made.
    pub runs: u64,
    /// Objects created.
    pub objects: u64,
    /// Deletions made, by propagation policy.
    pub deletions: BTreeMap<&'static str, u64>,
    /// Finalizers added or removed during bursts.
    pub finalizer_changes: u64,
    /// Faults injected, by kind.
    pub faults: BTreeMap<&'static str, u64>,
    /// Cold restarts.
    pub restarts: u64,
    /// The runs that broke the model.
    pub failures: Vec<Failure>,
    /// The runs' traffic fingerprints combined, whatever order the runs finished in: the same
    /// for the same seeds on the fake.
    pub fingerprint: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// A run that broke the model.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its seed.
    pub seed: u64,
    /// What broke.
    pub verdict: Verdict,
    /// The smallest plan found that still breaks the model, when the target can shrink.
    pub shrunk: Option<(Plan, Verdict)>,
}

impl Report {
    /// Adds one run's numbers.
    pub fn add(&mut self, seed: u64, outcome: &Outcome) {
        self.runs += 1;
        self.objects += outcome.objects;
        for (k, n) in &outcome.deletions {
            *self.deletions.entry(k).or_default() += n;
        }
        self.finalizer_changes += outcome.finalizer_changes;
        for (k, n) in &outcome.faults {
            *self.faults.entry(k).or_default() += n;
        }
        self.restarts += outcome.restarts;
        self.fingerprint = self.fingerprint.wrapping_add(outcome.fingerprint.rotate_left((seed % 64) as u32) ^ seed);
        if !outcome.verdict.passed() {
            self.failures.push(Failure { seed, verdict: outcome.verdict.clone(), shrunk: None });
        }
    }

    /// Whether every run kept to the model.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// The numbers on a few lines, then each failure with its seed and how to replay it.
    pub fn summary(&self) -> String {
        let list = |m: &BTreeMap<&'static str, u64>| m.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", ");
        let mut text = format!(
            "{} runs, {} violating the model, {:.1?}\n  {} objects; {} deletions ({}); {} finalizer changes\n  {} collector restarts; {} faults injected ({})\n  traffic fingerprint {:016x}",
            self.runs,
            self.failures.len(),
            self.elapsed,
            self.objects,
            self.deletions.values().sum::<u64>(),
            list(&self.deletions),
            self.finalizer_changes,
            self.restarts,
            self.faults.values().sum::<u64>(),
            list(&self.faults),
            self.fingerprint,
        );
        for f in &self.failures {
            text.push_str(&format!("\nseed {} broke the model (replay: kubegc chaos --seed {} --runs 1):", f.seed, f.seed));
            for line in f.verdict.safety.iter().map(|l| ("safety", l)).chain(f.verdict.liveness.iter().map(|l| ("liveness", l))) {
                text.push_str(&format!("\n  {}: {}", line.0, line.1));
            }
            if let Some((plan, verdict)) = &f.shrunk {
                text.push_str("\n  shrunk to:\n");
                text.push_str(&indent(&plan.to_string(), "    "));
                for line in verdict.safety.iter().chain(&verdict.liveness) {
                    text.push_str(&format!("\n    => {line}"));
                }
            }
        }
        text
    }
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}")).collect::<Vec<_>>().join("\n")
}
