//! `kubegc kubelet-diff`: seeded random nodes through the kubelet model and through the
//! kubelet's own code (kubegc's kubelet driver), compared observation by observation after
//! every step. The first case where they disagree is shrunk (steps, arrivals, containers,
//! sandboxes, logs, pods and faults dropped while the disagreement stays) and described.
//!
//! With a mutant, the model side runs that mutant: a mutant the random nodes never tell apart
//! from the kubelet is one the differential check cannot see.

pub mod case;
pub mod generate;
pub mod observe;
pub mod shrink;

use std::fmt::Write as _;
use std::path::Path;

use kubegc::kubelet::mutant::Mutant;
use serde_json::Value;

use case::Case;
use observe::{Observation, differences, trace};

/// Where the two sides of a case first part.
#[derive(Clone, Debug)]
pub struct Disagreement {
    /// The case (shrunk, once [`shrink::shrink`] has run).
    pub case: Case,
    /// The index of the first observation that differs.
    pub at: usize,
    /// Its step.
    pub step: String,
    /// The differing fields: path, the model's value, upstream's value.
    pub fields: Vec<(String, Value, Value)>,
    /// Why a side could not carry out the step, if one could not: the model's, upstream's.
    pub failures: (Option<String>, Option<String>),
}

/// Runs `case` through the model (with `mutant`) and through upstream's code; the first
/// disagreement, if any.
pub fn compare(case: &Case, driver: &Path, mutant: Option<Mutant>) -> Result<Option<Disagreement>, String> {
    let model = trace(case, case.world(None, mutant)?);
    compare_with(case, &model, &upstream(case, driver)?)
}

/// The model's and upstream's observations of `case`.
pub fn traces(case: &Case, driver: &Path) -> Result<(Vec<Observation>, Vec<Observation>), String> {
    Ok((trace(case, case.world(None, None)?), upstream(case, driver)?))
}

/// Upstream's observations of `case`.
pub fn upstream(case: &Case, driver: &Path) -> Result<Vec<Observation>, String> {
    Ok(trace(case, case.world(Some(driver), None)?))
}

/// Compares the model's observations of `case` with upstream's.
pub fn compare_with(case: &Case, model: &[Observation], upstream: &[Observation]) -> Result<Option<Disagreement>, String> {
    for (at, (ours, theirs)) in model.iter().zip(upstream).enumerate() {
        let fields = differences(&ours.seen, &theirs.seen);
        if !fields.is_empty() || ours.failure.is_some() != theirs.failure.is_some() {
            return Ok(Some(Disagreement {
                case: case.clone(),
                at,
                step: ours.step.clone(),
                fields,
                failures: (ours.failure.clone(), theirs.failure.clone()),
            }));
        }
    }
    if model.len() != upstream.len() {
        return Err(format!("the sides observed {} and {} steps without failing apart", model.len(), upstream.len()));
    }
    Ok(None)
}

impl Disagreement {
    /// The disagreement as the command prints it: the case, the step, the differing fields.
    pub fn report(&self) -> String {
        let mut out = format!("seed {}: the model and the kubelet's own code disagree\n\n", self.case.seed);
        for line in self.case.describe().lines() {
            let _ = writeln!(out, "  {line}");
        }
        let _ = writeln!(out, "\nafter step {} ({}):", self.at + 1, self.step);
        let (ours, theirs) = &self.failures;
        if ours.is_some() || theirs.is_some() {
            let _ = writeln!(out, "  the model: {}", ours.as_deref().unwrap_or("carried it out"));
            let _ = writeln!(out, "  upstream:  {}", theirs.as_deref().unwrap_or("carried it out"));
        }
        for (path, model, upstream) in &self.fields {
            let _ = writeln!(out, "  {path}\n    the model: {model}\n    upstream:  {upstream}");
        }
        out
    }
}

/// What `kubegc kubelet-diff` does.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many cases.
    pub runs: u64,
    /// The first case's seed; case `i` has seed `seed + i`.
    pub seed: u64,
    /// The kubelet driver.
    pub driver: std::path::PathBuf,
    /// Cases made at once.
    pub jobs: usize,
    /// Progress on standard error.
    pub progress: bool,
}

/// What the cases came to.
#[derive(Debug, Default)]
pub struct Report {
    /// Cases compared.
    pub runs: u64,
    /// Observations compared: one per arrival or step of each case, each side's against the
    /// other's.
    pub observations: u64,
    /// The disagreement of the lowest seed, shrunk.
    pub disagreement: Option<Disagreement>,
}

/// Runs the cases of `options.seed` on through both sides; stops at the first disagreement
/// (the one of the lowest seed, whatever the jobs' timing), and shrinks it.
pub fn run(options: &Options) -> Result<Report, String> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let observations = AtomicU64::new(0);
    let found: Mutex<Option<Disagreement>> = Mutex::new(None);
    let fault: Mutex<Option<String>> = Mutex::new(None);
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| {
                while !stop.load(Ordering::SeqCst) {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= options.runs {
                        break;
                    }
                    let case = generate::case(options.seed.wrapping_add(i));
                    let result = upstream(&case, &options.driver).and_then(|theirs| {
                        observations.fetch_add(theirs.len() as u64, Ordering::Relaxed);
                        compare_with(&case, &trace(&case, case.world(None, None)?), &theirs)
                    });
                    match result {
                        Ok(None) => {}
                        Ok(Some(d)) => {
                            stop.store(true, Ordering::SeqCst);
                            let mut slot = found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                            if slot.as_ref().is_none_or(|f| f.case.seed > d.case.seed) {
                                *slot = Some(d);
                            }
                        }
                        Err(e) => {
                            stop.store(true, Ordering::SeqCst);
                            *fault.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(format!("seed {}: {e}", case.seed));
                        }
                    }
                    if options.progress && (i + 1).is_multiple_of(500) {
                        eprintln!("kubelet-diff: {} cases in {:.0} s", i + 1, started.elapsed().as_secs_f64());
                    }
                }
            });
        }
    });
    if let Some(e) = fault.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
        return Err(e);
    }
    let found = found.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let runs = match &found {
        Some(d) => d.case.seed.wrapping_sub(options.seed) + 1,
        None => options.runs,
    };
    let disagreement = match found {
        Some(d) => {
            if options.progress {
                eprintln!("kubelet-diff: seed {} disagrees; shrinking", d.case.seed);
            }
            Some(shrink::shrink(d, &options.driver, None)?)
        }
        None => None,
    };
    Ok(Report { runs, observations: observations.into_inner(), disagreement })
}

/// For each mutant, the first seed from `options.seed` on where the model running it disagrees
/// with the kubelet's own code (`None`: none of the cases); upstream runs each case once.
pub fn mutants(options: &Options, mutants: &[Mutant]) -> Result<Vec<(Mutant, Option<u64>)>, String> {
    let mut caught: Vec<(Mutant, Option<u64>)> = mutants.iter().map(|m| (*m, None)).collect();
    for i in 0..options.runs {
        if caught.iter().all(|(_, seed)| seed.is_some()) {
            break;
        }
        let case = generate::case(options.seed.wrapping_add(i));
        let theirs = upstream(&case, &options.driver)?;
        // A case the model itself disagrees on tells nothing of its mutants.
        if let Some(d) = compare_with(&case, &trace(&case, case.world(None, None)?), &theirs)? {
            return Err(format!("the model itself disagrees with upstream:\n{}", d.report()));
        }
        for (mutant, seed) in caught.iter_mut().filter(|(_, seed)| seed.is_none()) {
            if compare_with(&case, &trace(&case, case.world(None, Some(*mutant))?), &theirs)?.is_some() {
                *seed = Some(case.seed);
            }
        }
        if options.progress && (i + 1).is_multiple_of(200) {
            let left = caught.iter().filter(|(_, s)| s.is_none()).count();
            eprintln!("kubelet-diff: {} cases, {left} mutants not yet told apart", i + 1);
        }
    }
    Ok(caught)
}
