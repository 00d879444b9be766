//! Judging the specification with mutants: the scenarios run on the fake backend once as they
//! are and once per deliberately broken rule of the API server
//! ([`kubegc::apiserver::mutant`]), of the reference collector ([`kubegc::gc::mutant`]), of a
//! cleanup controller ([`kubegc::cleanup::mutant`]) or of a workload controller
//! ([`kubegc::workloads::mutant`]). A
//! mutant no scenario notices is a rule the specification does not pin down; a scenario no
//! mutant makes fail is one whose breakage nothing here demonstrates (it may still guard a rule
//! no mutant breaks). The kubelet model has its own mutants, selected per process (see
//! [`crate::world::kubelet`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use kubegc::apiserver::{ApiServer, Config as ServerConfig, mutant::Mutant as ServerMutant};
use kubegc::cleanup::mutant::Mutant as CleanupMutant;
use kubegc::gc::{Config as GcConfig, mutant::Mutant as GcMutant};
use kubegc::workloads::mutant::Mutant as WorkloadMutant;

use crate::backend::Backend;
use crate::backend::fake::{FakeBackend, Recipe};
use crate::junit::{self, Verdicts};
use crate::runner::{RunOptions, run_to};

/// One deliberately broken rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mutant {
    /// A rule of the API server's half of deletion.
    ApiServer(ServerMutant),
    /// A rule of the garbage collector.
    Collector(GcMutant),
    /// A rule of a cleanup controller.
    Cleanup(CleanupMutant),
    /// A rule of a workload controller.
    Workload(WorkloadMutant),
}

impl std::fmt::Display for Mutant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ApiServer(m) => write!(f, "apiserver/{m}"),
            Self::Collector(m) => write!(f, "gc/{m}"),
            Self::Cleanup(m) => write!(f, "cleanup/{m}"),
            Self::Workload(m) => write!(f, "workloads/{m}"),
        }
    }
}

impl Mutant {
    /// Every API server mutant, then every collector mutant, then every cleanup controller's,
    /// then every workload controller's.
    pub fn all() -> Vec<Mutant> {
        let server = ServerMutant::ALL.iter().map(|m| Self::ApiServer(*m));
        let collector = GcMutant::ALL.iter().map(|m| Self::Collector(*m));
        let cleanup = CleanupMutant::ALL.iter().map(|m| Self::Cleanup(*m));
        server.chain(collector).chain(cleanup).chain(WorkloadMutant::ALL.iter().map(|m| Self::Workload(*m))).collect()
    }
}

/// How long "eventually" assertions wait in a mutation run, the reference included: a mutant
/// makes many scenarios wait in vain, and the reference run (which must pass within the same
/// time) shows the time suffices.
const EVENTUALLY: Duration = Duration::from_secs(5);

/// Runs the scenarios of `options` on a fresh fake backend broken by `mutant` (none: the
/// reference) and returns each scenario's verdict. Console output is discarded.
pub async fn verdicts(mutant: Option<Mutant>, options: &RunOptions) -> std::io::Result<Verdicts> {
    Ok(junit::verdicts(&report(mutant, options).await?))
}

/// Runs the scenarios as [`verdicts`] does and returns the run's JUnit report.
pub async fn report(mutant: Option<Mutant>, options: &RunOptions) -> std::io::Result<String> {
    let server_mutant = match mutant {
        Some(Mutant::ApiServer(m)) => Some(m),
        _ => None,
    };
    let gc_mutant = match mutant {
        Some(Mutant::Collector(m)) => Some(m),
        _ => None,
    };
    let cleanup_mutant = match mutant {
        Some(Mutant::Cleanup(m)) => Some(m),
        _ => None,
    };
    let workload_mutant = match mutant {
        Some(Mutant::Workload(m)) => Some(m),
        _ => None,
    };
    let server = ApiServer::with_config(ServerConfig { mutant: server_mutant, ..ServerConfig::default() });
    let cleanup = kubegc::cleanup::Config { mutant: cleanup_mutant, ..Default::default() };
    let collector = Some(GcConfig { mutant: gc_mutant, ..GcConfig::default() });
    let recipe = Recipe { server_mutant, collector, cleanup, workload_mutant };
    let backend = FakeBackend::from_recipe(server, recipe).with_eventually_timeout(EVENTUALLY);
    // The collector's and the controllers' start (discovery, first lists) is not charged to
    // the first scenarios' short "eventually": they start on a settled cluster. A mutant that
    // never settles is judged by its scenarios all the same.
    let _ = backend.settle().await;
    let report = tempfile::NamedTempFile::new()?;
    let options = RunOptions { junit: Some(report.path().to_path_buf()), color: false, ..options.clone() };
    run_to(Arc::new(backend), options, Box::new(std::io::sink())).await?;
    std::fs::read_to_string(report.path())
}

/// Which scenarios each mutant made fail, against a reference run.
#[derive(Clone, Debug, Default)]
pub struct Matrix {
    /// The scenarios of the reference run and whether each failed there.
    pub reference: Verdicts,
    /// For each mutant, the scenarios that failed under it.
    pub caught: BTreeMap<Mutant, BTreeSet<String>>,
}

impl Matrix {
    /// Records a mutant's run.
    pub fn add(&mut self, mutant: Mutant, verdicts: &Verdicts) {
        self.caught.insert(mutant, verdicts.iter().filter(|(_, failed)| **failed).map(|(name, _)| name.clone()).collect());
    }

    /// Scenarios that failed without any mutant.
    pub fn reference_failures(&self) -> Vec<&str> {
        self.reference.iter().filter(|(_, failed)| **failed).map(|(name, _)| name.as_str()).collect()
    }

    /// Mutants no scenario caught.
    pub fn survivors(&self) -> Vec<Mutant> {
        self.caught.iter().filter(|(_, caught)| caught.is_empty()).map(|(m, _)| *m).collect()
    }

    /// The mutants each scenario of the reference run catches (an empty list for none).
    pub fn by_scenario(&self) -> BTreeMap<&str, Vec<Mutant>> {
        let mut out: BTreeMap<&str, Vec<Mutant>> = self.reference.keys().map(|n| (n.as_str(), Vec::new())).collect();
        for (mutant, caught) in &self.caught {
            for name in caught {
                out.entry(name.as_str()).or_default().push(*mutant);
            }
        }
        out
    }

    /// The report: per mutant the scenarios that catch it, then (with `complete`, when every
    /// mutant ran every scenario) the scenarios no mutant makes fail.
    pub fn render(&self, complete: bool) -> String {
        let mut out = String::new();
        for (mutant, caught) in &self.caught {
            out.push_str(&format!("{mutant}: caught by {} scenario(s)\n", caught.len()));
            for name in caught {
                out.push_str(&format!("    {}\n", junit::short(name)));
            }
        }
        if !complete {
            return out;
        }
        let uncaught: Vec<&str> = self.by_scenario().into_iter().filter(|(_, m)| m.is_empty()).map(|(n, _)| n).collect();
        out.push_str(&format!(
            "{} of {} scenarios fail under at least one mutant; {} under none:\n",
            self.reference.len() - uncaught.len(),
            self.reference.len(),
            uncaught.len()
        ));
        for name in uncaught {
            out.push_str(&format!("    {}\n", junit::short(name)));
        }
        out
    }
}
