//! Running upstream e2e tests: each test in a process of its own of the e2e binary (one test's
//! panic in a goroutine of its own aborts the whole Ginkgo process, and most of a
//! garbage-collection test's time is waiting, so several run at once), `[Serial]` tests after
//! the others and one at a time, as Ginkgo itself orders them.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context;
use futures::StreamExt;

use crate::e2e::report::{self, Outcome, Verdict};

/// How to run the e2e binary against one cluster.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The e2e test binary.
    pub binary: PathBuf,
    /// The cluster's kubeconfig.
    pub kubeconfig: PathBuf,
    /// How many schedulable nodes the cluster has, when kubegc made them (the framework's
    /// `--num-nodes`).
    pub nodes: Option<usize>,
    /// Where each test's output and report go.
    pub logs: PathBuf,
    /// Tests run at once (`[Serial]` ones always alone).
    pub concurrency: usize,
    /// How long one test may take before it is stopped and counted as failed.
    pub time_limit: Duration,
}

/// Words in a test's name that make it run alone.
const ALONE: [&str; 2] = ["[Serial]", "[Disruptive]"];

/// How long after its own time limit a test's process is killed, if Ginkgo has not stopped it.
const KILL_GRACE: Duration = Duration::from_secs(60);

impl Runner {
    /// The flags of the e2e framework for a cluster with no cloud provider, no kubelet and no
    /// system pods to wait for.
    fn framework_flags(&self) -> Vec<String> {
        let mut flags = vec![
            format!("--kubeconfig={}", self.kubeconfig.display()),
            "--provider=skeleton".into(),
            "--e2e-verify-service-account=false".into(),
            "--allowed-not-ready-nodes=-1".into(),
            "--disable-log-dump".into(),
            "--ginkgo.no-color".into(),
        ];
        if let Some(n) = self.nodes {
            flags.push(format!("--num-nodes={n}"));
        }
        flags
    }

    /// The full text of every test the binary has (a Ginkgo dry run).
    pub async fn list(&self) -> anyhow::Result<Vec<String>> {
        std::fs::create_dir_all(&self.logs).with_context(|| format!("cannot create {}", self.logs.display()))?;
        let json = self.logs.join("dry-run.json");
        let output = tokio::process::Command::new(&self.binary)
            .args(self.framework_flags())
            .args(["--ginkgo.dry-run".to_string(), format!("--ginkgo.json-report={}", json.display())])
            .stdin(Stdio::null())
            .output()
            .await
            .with_context(|| format!("cannot run {}", self.binary.display()))?;
        let read = report::read(&json).with_context(|| {
            format!("the e2e binary's dry run wrote no report ({}): {}", output.status, String::from_utf8_lossy(&output.stderr))
        })?;
        Ok(read.states.into_iter().map(|(name, _)| name).collect())
    }

    /// Runs `names` and returns their outcomes in the order given; `done` is told of each as
    /// it ends.
    pub async fn run(&self, names: &[String], mut done: impl FnMut(&Outcome)) -> anyhow::Result<Vec<Outcome>> {
        std::fs::create_dir_all(&self.logs).with_context(|| format!("cannot create {}", self.logs.display()))?;
        let (alone, together): (Vec<_>, Vec<_>) = names.iter().enumerate().partition(|(_, n)| ALONE.iter().any(|w| n.contains(w)));
        let mut outcomes: Vec<Option<Outcome>> = vec![None; names.len()];
        let mut running = futures::stream::iter(together)
            .map(|(i, name)| async move { (i, self.run_one(i, name).await) })
            .buffer_unordered(self.concurrency.max(1));
        while let Some((i, outcome)) = running.next().await {
            done(&outcome);
            outcomes[i] = Some(outcome);
        }
        for (i, name) in alone {
            let outcome = self.run_one(i, name).await;
            done(&outcome);
            outcomes[i] = Some(outcome);
        }
        Ok(outcomes.into_iter().flatten().collect())
    }

    /// Runs one test in a process of its own and judges it from its report.
    async fn run_one(&self, index: usize, name: &str) -> Outcome {
        let log = self.logs.join(format!("{:02}-{}.log", index + 1, slug(name)));
        let json = self.logs.join(format!("{:02}.json", index + 1));
        let started = Instant::now();
        let exit = self.spawn(name, &log, &json).await;
        let took = started.elapsed();
        let (verdict, reason, location) = match (&exit, report::read(&json)) {
            (_, Ok(read)) => read.verdict(name, &exit),
            (Err(why), Err(_)) => (Verdict::Error, why.clone(), String::new()),
            (Ok(status), Err(e)) => (Verdict::Error, format!("the e2e binary exited ({status}) without a report: {e:#}"), String::new()),
        };
        Outcome { name: name.to_string(), verdict, reason, location, took, log }
    }

    /// Runs the binary on the one test `name`; `Err` says why it did not exit by itself.
    async fn spawn(&self, name: &str, log: &Path, json: &Path) -> Result<std::process::ExitStatus, String> {
        let output = std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
        let errors = output.try_clone().map_err(|e| e.to_string())?;
        let mut child = tokio::process::Command::new(&self.binary)
            .args(self.framework_flags())
            .arg(format!("--ginkgo.focus={}$", regex::escape(name)))
            .arg(format!("--ginkgo.json-report={}", json.display()))
            .arg(format!("--ginkgo.timeout={}s", self.time_limit.as_secs()))
            .stdin(Stdio::null())
            .stdout(output)
            .stderr(errors)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", self.binary.display()))?;
        match tokio::time::timeout(self.time_limit + KILL_GRACE, child.wait()).await {
            Ok(status) => status.map_err(|e| e.to_string()),
            Err(_) => {
                let _ = child.kill().await;
                Err(format!("killed: still running {:?} after its time limit", KILL_GRACE))
            }
        }
    }
}

/// A test's name as a short file name.
fn slug(name: &str) -> String {
    let words: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let joined = words.split('-').filter(|w| !w.is_empty()).collect::<Vec<_>>().join("-");
    joined.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_slug_is_short_and_plain() {
        assert_eq!(
            super::slug("[sig-api-machinery] Garbage collector should x [Conformance]"),
            "sig-api-machinery-garbage-collector-should-x-conformance"
        );
    }
}
