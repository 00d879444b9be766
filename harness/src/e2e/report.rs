//! What the e2e binary reports of a test (Ginkgo's JSON report, `--ginkgo.json-report`), the
//! verdict kubegc draws from it, and the JUnit file of a run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

/// The verdict on one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It ran and passed.
    Passed,
    /// It ran and failed (including a timeout or a panic inside the test).
    Failed,
    /// The test skipped itself (the cluster lacks something it needs).
    Skipped,
    /// It could not be judged: the binary did not report it (it crashed, or was killed at the
    /// time limit), or the suite around it failed. Counts as a failure.
    Error,
}

impl Verdict {
    /// How it is printed.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Passed => "PASS",
            Verdict::Failed => "FAIL",
            Verdict::Skipped => "SKIP",
            Verdict::Error => "ERROR",
        }
    }
}

/// One test's outcome.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The test's full text.
    pub name: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Why it failed, skipped or could not be judged (empty when it passed): the failure's
    /// whole message.
    pub reason: String,
    /// Where the failure was raised (`file:line`), when known.
    pub location: String,
    /// How long its process ran.
    pub took: Duration,
    /// The process's output.
    pub log: PathBuf,
}

impl Outcome {
    /// The reason in one line, at most `width` characters.
    pub fn one_line_reason(&self, width: usize) -> String {
        let line = self.reason.split_whitespace().collect::<Vec<_>>().join(" ");
        match line.char_indices().nth(width) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line,
        }
    }
}

/// Ginkgo's report of a suite run (the parts kubegc reads).
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct SuiteReport {
    #[serde(default)]
    spec_reports: Vec<SpecReport>,
}

/// Ginkgo's report of one spec, or of a suite-level node such as `SynchronizedBeforeSuite`.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct SpecReport {
    #[serde(default)]
    container_hierarchy_texts: Option<Vec<String>>,
    #[serde(default)]
    leaf_node_type: String,
    #[serde(default)]
    leaf_node_text: String,
    state: String,
    #[serde(default)]
    failure: Option<Failure>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Failure {
    #[serde(default)]
    message: String,
    #[serde(default)]
    location: Option<Location>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Location {
    #[serde(default)]
    file_name: String,
    #[serde(default)]
    line_number: u32,
}

impl SpecReport {
    fn full_text(&self) -> String {
        let mut parts: Vec<&str> = self.container_hierarchy_texts.iter().flatten().map(String::as_str).collect();
        parts.push(&self.leaf_node_text);
        parts.join(" ")
    }

    fn is_test(&self) -> bool {
        self.leaf_node_type == "It"
    }

    fn failure(&self) -> (String, String) {
        let Some(f) = &self.failure else { return (String::new(), String::new()) };
        let location = f.location.as_ref().map(|l| format!("{}:{}", l.file_name, l.line_number)).unwrap_or_default();
        (f.message.clone(), location)
    }
}

/// What a JSON report says of the tests in it.
#[derive(Debug)]
pub struct Read {
    /// Every test's full text and state (`passed`, `failed`, `skipped`, ...), as Ginkgo names
    /// them.
    pub states: Vec<(String, String)>,
    reports: Vec<SpecReport>,
}

/// Reads a Ginkgo JSON report.
pub fn read(path: &Path) -> anyhow::Result<Read> {
    let text = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let suites: Vec<SuiteReport> = serde_json::from_slice(&text).with_context(|| format!("cannot parse {}", path.display()))?;
    let reports: Vec<SpecReport> = suites.into_iter().flat_map(|s| s.spec_reports).collect();
    let states = reports.iter().filter(|r| r.is_test()).map(|r| (r.full_text(), r.state.clone())).collect();
    Ok(Read { states, reports })
}

impl Read {
    /// The verdict on `name`, with its reason and location, given that the process exited as
    /// `exit` says (`Err` with why when it did not exit by itself).
    pub fn verdict(&self, name: &str, exit: &Result<std::process::ExitStatus, String>) -> (Verdict, String, String) {
        // A failure outside the test (a suite-level node) leaves the test unjudged.
        let suite_failure = self.reports.iter().find(|r| !r.is_test() && is_failure(&r.state));
        let Some(test) = self.reports.iter().find(|r| r.is_test() && r.full_text() == name) else {
            return (Verdict::Error, "the e2e binary does not have this test".into(), String::new());
        };
        let (message, location) = test.failure();
        match test.state.as_str() {
            "passed" => match (suite_failure, exit) {
                (Some(node), _) => {
                    let (message, location) = node.failure();
                    (Verdict::Error, format!("the test passed but the suite's {} failed: {message}", node.leaf_node_type), location)
                }
                (None, Ok(status)) if status.success() => (Verdict::Passed, String::new(), String::new()),
                (None, Ok(status)) => (Verdict::Error, format!("the test passed but the e2e binary exited with {status}"), String::new()),
                (None, Err(why)) => (Verdict::Error, why.clone(), String::new()),
            },
            "skipped" | "pending" if message.is_empty() => {
                let why = match suite_failure {
                    Some(node) => format!("the suite's {} failed: {}", node.leaf_node_type, node.failure().0),
                    None => "the e2e binary did not run it (its name did not select it)".into(),
                };
                (Verdict::Error, why, location)
            }
            "skipped" | "pending" => (Verdict::Skipped, message, location),
            state => (Verdict::Failed, if message.is_empty() { format!("the test ended {state}") } else { message }, location),
        }
    }
}

fn is_failure(state: &str) -> bool {
    !matches!(state, "passed" | "skipped" | "pending")
}

/// Writes a JUnit report of `outcomes` as the suite `suite`.
pub fn write_junit(path: &Path, suite: &str, outcomes: &[Outcome]) -> anyhow::Result<()> {
    use junit_report::{Duration as Took, ReportBuilder, TestCase, TestSuiteBuilder};
    let cases = outcomes.iter().map(|o| {
        let took = Took::try_from(o.took).unwrap_or(Took::ZERO);
        let mut case = match o.verdict {
            Verdict::Passed => TestCase::success(&o.name, took),
            Verdict::Failed => TestCase::failure(&o.name, took, "failure", &format!("{} {}", o.location, o.one_line_reason(300))),
            Verdict::Error => TestCase::error(&o.name, took, "error", &o.one_line_reason(300)),
            Verdict::Skipped => TestCase::skipped(&o.name),
        };
        case.set_classname("kubernetes-e2e");
        if o.verdict != Verdict::Passed {
            case.set_system_out(&o.reason);
        }
        case
    });
    let report = ReportBuilder::new().add_testsuite(TestSuiteBuilder::new(suite).add_testcases(cases).build()).build();
    let file = std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    report.write_xml(std::io::BufWriter::new(file)).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    fn report(json: &str) -> Read {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, json).unwrap();
        read(&path).unwrap()
    }

    const NAME: &str = "[sig-x] Thing should work";

    fn spec(state: &str, failure: &str) -> String {
        format!(
            r#"{{"ContainerHierarchyTexts":["[sig-x] Thing"],"LeafNodeType":"It","LeafNodeText":"should work","State":"{state}"{failure}}}"#
        )
    }

    #[test]
    fn a_passing_test_passes_only_if_the_binary_exits_0() {
        let r = report(&format!(r#"[{{"SpecReports":[{}]}}]"#, spec("passed", "")));
        assert_eq!(r.verdict(NAME, &Ok(std::process::ExitStatus::from_raw(0))).0, Verdict::Passed);
        assert_eq!(r.verdict(NAME, &Ok(std::process::ExitStatus::from_raw(256))).0, Verdict::Error);
        assert_eq!(r.verdict(NAME, &Err("killed after 10 min".into())).0, Verdict::Error);
    }

    #[test]
    fn a_failure_gives_its_message_and_location() {
        let failure = r#","Failure":{"Message":"expected 0\n got 1","Location":{"FileName":"gc.go","LineNumber":12}}"#;
        let r = report(&format!(r#"[{{"SpecReports":[{}]}}]"#, spec("failed", failure)));
        let (verdict, reason, location) = r.verdict(NAME, &Ok(std::process::ExitStatus::from_raw(256)));
        assert_eq!((verdict, reason.as_str(), location.as_str()), (Verdict::Failed, "expected 0\n got 1", "gc.go:12"));
    }

    #[test]
    fn a_test_not_run_or_missing_is_an_error_and_a_self_skip_is_a_skip() {
        let r = report(&format!(r#"[{{"SpecReports":[{}]}}]"#, spec("skipped", "")));
        assert_eq!(r.verdict(NAME, &Ok(std::process::ExitStatus::from_raw(0))).0, Verdict::Error);
        assert_eq!(r.verdict("[sig-x] Other", &Ok(std::process::ExitStatus::from_raw(0))).0, Verdict::Error);
        let r = report(&format!(r#"[{{"SpecReports":[{}]}}]"#, spec("skipped", r#","Failure":{"Message":"no cloud"}"#)));
        assert_eq!(r.verdict(NAME, &Ok(std::process::ExitStatus::from_raw(0))).0, Verdict::Skipped);
    }

    #[test]
    fn a_failed_suite_node_makes_a_passed_test_an_error() {
        let node = r#"{"LeafNodeType":"SynchronizedAfterSuite","State":"failed","Failure":{"Message":"cleanup failed"}}"#;
        let r = report(&format!(r#"[{{"SpecReports":[{},{node}]}}]"#, spec("passed", "")));
        let (verdict, reason, _) = r.verdict(NAME, &Ok(std::process::ExitStatus::from_raw(0)));
        assert_eq!(verdict, Verdict::Error);
        assert!(reason.contains("cleanup failed"), "{reason}");
    }

    #[test]
    fn junit_names_each_test_and_its_verdict() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("junit.xml");
        let outcome = |name: &str, verdict| Outcome {
            name: name.into(),
            verdict,
            reason: "why".into(),
            location: String::new(),
            took: Duration::from_secs(1),
            log: PathBuf::new(),
        };
        write_junit(&path, "gc", &[outcome("a <b>", Verdict::Passed), outcome("c", Verdict::Failed)]).unwrap();
        let verdicts = crate::junit::verdicts(&std::fs::read_to_string(&path).unwrap());
        assert_eq!(verdicts.get("a <b>"), Some(&false));
        assert_eq!(verdicts.get("c"), Some(&true));
    }
}
