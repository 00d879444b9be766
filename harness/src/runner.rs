//! Runs feature files against a backend with cucumber. Each kind of scenario has a world of its
//! own ([`crate::world`]): the files are parsed once, and each kind's scenarios run in a
//! cucumber run of their own, one kind after the other, into one console report (ending in one
//! summary) and one JUnit report. Each scenario gets a fresh world, bound to the backend;
//! scenarios the backend cannot run are left out and listed.

use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use cucumber::gherkin::Feature;
use cucumber::gherkin::tagexpr::TagOperation;
use cucumber::tag::Ext as _;
use cucumber::{Event, Parser, Writer, WriterExt, event, parser, writer};
use futures::{FutureExt, StreamExt, stream};

use crate::backend::Backend;
use crate::features;
use crate::world::Scenario;
use crate::world::api::KubeWorld;
use crate::world::kubelet::KubeletWorld;

/// What to run and how.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Feature files or directories.
    pub features: Vec<PathBuf>,
    /// A tag expression (`@upstream and not @slow`) scenarios must match.
    pub tags: Option<TagOperation>,
    /// Scenarios run at once.
    pub concurrency: usize,
    /// Stop at the first failure.
    pub fail_fast: bool,
    /// Also write a JUnit XML report here.
    pub junit: Option<PathBuf>,
    /// Colour the console output.
    pub color: bool,
    /// Run only scenarios with these names (all when `None`); in an outline's name, each
    /// `<placeholder>` matches whatever an example put there.
    pub names: Option<Vec<String>>,
    /// The kubelet driver (`upstream/cmd/kubegc-kubelet-driver/`) that runs `@kubelet`
    /// scenarios on upstream's kubelet code; the kubelet model runs them when `None`.
    pub kubelet_driver: Option<PathBuf>,
}

/// The outcome of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Whether any step failed or a feature file did not parse.
    pub failed: bool,
    /// Scenarios that ran.
    pub scenarios: usize,
}

/// A scenario name as a pattern: literal, except that each `<placeholder>` of an outline's
/// name matches any text.
fn name_pattern(name: &str) -> regex::Regex {
    let placeholder = regex::Regex::new(r"<[^>]*>").expect("valid");
    let mut pattern = String::from("^");
    let mut last = 0;
    for m in placeholder.find_iter(name) {
        pattern.push_str(&regex::escape(&name[last..m.start()]));
        pattern.push_str(".*");
        last = m.end();
    }
    pattern.push_str(&regex::escape(&name[last..]));
    pattern.push('$');
    regex::Regex::new(&pattern).expect("escaped pattern")
}

/// The features of `paths`, parsed as cucumber parses them (a directory's `*.feature` files in
/// name order); a file that does not parse is an error in the list, for a run to report.
async fn parse(paths: &[PathBuf]) -> Vec<parser::Result<Feature>> {
    let mut features = Vec::new();
    for path in paths {
        features.extend(parser::Basic::new().parse(path, parser::basic::Cli::default()).collect::<Vec<_>>().await);
    }
    features
}

/// The features with scenarios of world `W`'s kind, and with `errors` also the files that did
/// not parse.
fn of_kind<W: Scenario>(parsed: &[parser::Result<Feature>], errors: bool) -> Vec<parser::Result<Feature>> {
    let has_kind = |feature: &Feature| features::scenarios(feature).any(|scenario| W::runs(&features::tags(feature, scenario)));
    parsed.iter().filter(|f| f.as_ref().map_or(errors, has_kind)).cloned().collect()
}

/// A cucumber parser handing over features parsed already, so that each run gets its kind's.
struct Parsed;

impl Parser<Vec<parser::Result<Feature>>> for Parsed {
    type Cli = cucumber::cli::Empty;
    type Output = stream::Iter<std::vec::IntoIter<parser::Result<Feature>>>;

    fn parse(self, features: Vec<parser::Result<Feature>>, _: Self::Cli) -> Self::Output {
        stream::iter(features)
    }
}

/// The console report: one summarized [`writer::Basic`] writer that the run of each kind of
/// scenario feeds in turn. The runs' `Finished` events are held back, so that one summary,
/// counting every kind, ends the report ([`Console::finish`]).
#[derive(Clone)]
struct Console(Rc<futures::lock::Mutex<Summarized>>);

/// Cucumber's plain console writer, ending in a summary.
type Summarized = writer::Summarize<writer::Basic<Box<dyn Write>>>;

impl Console {
    fn new(out: Box<dyn Write>, color: bool) -> Self {
        let coloring = if color { writer::Coloring::Auto } else { writer::Coloring::Never };
        Self(Rc::new(futures::lock::Mutex::new(writer::Basic::raw(out, coloring, 0).summarized())))
    }

    /// Whether a step failed or a feature file did not parse so far.
    async fn failed(&self) -> bool {
        // The statistics are the same whichever kind's world is named: they count events.
        let summary = self.0.lock().await;
        writer::Stats::<KubeWorld>::execution_has_failed(&*summary) || writer::Stats::<KubeWorld>::parsing_errors(&*summary) > 0
    }

    /// Ends the report with the summary of every run.
    async fn finish(&self) {
        // `Finished` carries no world: any kind's will do.
        let finished: Event<event::Cucumber<KubeWorld>> = Event::new(event::Cucumber::Finished);
        self.0.lock().await.handle_event(Ok(finished), &writer::basic::Cli::default()).await;
    }
}

impl<W: cucumber::World + std::fmt::Debug> Writer<W> for Console {
    type Cli = writer::basic::Cli;

    async fn handle_event(&mut self, event: parser::Result<Event<event::Cucumber<W>>>, cli: &Self::Cli) {
        if !matches!(event.as_deref(), Ok(event::Cucumber::Finished)) {
            self.0.lock().await.handle_event(event, cli).await;
        }
    }
}

/// A `Write` into memory, kept after the writer owning it is gone (for a run's JUnit report).
#[derive(Clone, Default)]
struct Buffer(Rc<RefCell<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One JUnit report holding the test suites of the runs' reports, numbered anew in order.
fn merged_junit(reports: &[String]) -> String {
    let suites: String = reports
        .iter()
        .filter_map(|r| r.split_once("<testsuites>").and_then(|(_, rest)| rest.rsplit_once("</testsuites>")).map(|(suites, _)| suites))
        .collect();
    let mut pieces = suites.split("<testsuite id=\"");
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites>");
    out.push_str(pieces.next().unwrap_or_default());
    for (id, piece) in pieces.enumerate() {
        let rest = piece.split_once('"').map_or(piece, |(_, rest)| rest);
        out.push_str(&format!("<testsuite id=\"{id}\"{}", stable_names(rest)));
    }
    out.push_str("</testsuites>");
    out
}

/// A test suite (from its attributes on) under stable names. Cucumber names a suite
/// `Feature: <name>: <path>` and a testcase `<Rule: r: >Scenario: <title>: <path>:<line>:<column>`;
/// here the path becomes the feature file's own name and the line and column go, so that a
/// scenario keeps its name wherever the files are and whatever moves above it. A title a
/// feature has more than once (an outline whose title names none of its placeholders) is
/// numbered ` (1)`, ` (2)`, … in line order. Each testcase's `classname` is its feature's name,
/// as CI systems group them and as cucumber-jvm writes them. The text is XML-escaped already.
fn stable_names(suite: &str) -> String {
    let mut pieces = suite.split("<testcase name=\"");
    let (before, name, after) = attribute(pieces.next().unwrap_or_default(), "name");
    let (feature, renamed) = match name.strip_prefix("Feature: ").and_then(|feature| feature.rsplit_once(": ")) {
        Some((feature, path)) => (feature, format!("Feature: {feature}: {}", file_name(path))),
        None => (name, name.to_string()),
    };
    let mut out = format!("{before}{renamed}{after}");
    let cases: Vec<(&str, &str)> = pieces.map(|case| case.split_once('"').unwrap_or((case, ""))).collect();
    let located: Vec<(&str, &str, u32)> = cases.iter().map(|(name, _)| location(name)).collect();
    for (i, ((_, rest), (title, file, line))) in cases.iter().zip(&located).enumerate() {
        let mut earlier = located.iter().filter(|(t, _, l)| t == title && l < line).count();
        earlier += located[..i].iter().filter(|(t, _, l)| t == title && l == line).count();
        let twice = located.iter().filter(|(t, _, _)| t == title).count() > 1;
        let number = if twice { format!(" ({})", earlier + 1) } else { String::new() };
        let file = if file.is_empty() { String::new() } else { format!(": {file}") };
        out.push_str(&format!("<testcase name=\"{title}{number}{file}\" classname=\"{feature}\"{rest}"));
    }
    out
}

/// The text before an XML attribute's value, the value, and the text after it.
fn attribute<'a>(element: &'a str, name: &str) -> (&'a str, &'a str, &'a str) {
    let marker = format!(" {name}=\"");
    let Some(start) = element.find(&marker).map(|i| i + marker.len()) else {
        return (element, "", "");
    };
    let end = element[start..].find('"').map_or(element.len(), |i| start + i);
    (&element[..start], &element[start..end], &element[end..])
}

/// A cucumber testcase name's title (everything before its location), feature file name and
/// line; a name without a location is all title.
fn location(name: &str) -> (&str, &str, u32) {
    let parsed = name.rsplit_once(": ").and_then(|(title, location)| {
        let mut parts = location.rsplitn(3, ':');
        let (_column, line, path) = (parts.next()?, parts.next()?.parse().ok()?, parts.next()?);
        Some((title, file_name(path), line))
    });
    parsed.unwrap_or((name, "", 0))
}

/// The last component of a path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// What the runs of every kind of scenario share.
struct Runs<'a> {
    backend: &'a Arc<dyn Backend>,
    options: &'a RunOptions,
    console: Console,
    /// Scenarios run so far.
    ran: Arc<AtomicUsize>,
}

impl Runs<'_> {
    /// Runs the scenarios of world `W`'s kind among `features`; returns the run's JUnit report.
    async fn run<W: Scenario>(&self, features: Vec<parser::Result<Feature>>) -> String {
        let options = self.options;
        let junit = Buffer::default();
        let (for_world, backend) = (self.backend.clone(), self.backend.clone());
        let binding = crate::world::Binding { kubelet_driver: options.kubelet_driver.clone() };
        let tags = options.tags.clone();
        let names: Option<Vec<regex::Regex>> = options.names.as_ref().map(|names| names.iter().map(|n| name_pattern(n)).collect());
        let counter = self.ran.clone();
        // The default parser's input type is replaced at once, by that of the features parsed here.
        let cucumber = W::cucumber::<PathBuf>()
            .with_parser(Parsed)
            .max_concurrent_scenarios(options.concurrency.max(1))
            .before(move |feature, _, _, world| {
                world.bind(&for_world, feature, &binding);
                async {}.boxed_local()
            })
            .after(|_, _, _, _, world| {
                async move {
                    if let Some(world) = world {
                        world.cleanup().await;
                    }
                }
                .boxed_local()
            })
            .with_writer(self.console.clone().tee::<W, _>(writer::JUnit::for_tee(junit.clone(), 0)).normalized())
            .with_cli(cucumber::cli::Opts::<_, _, _, cucumber::cli::Empty>::default())
            // A step no definition matches is reported as skipped: it fails the scenario, so a
            // misspelt step never passes by accident. (Scenarios a backend cannot run are
            // filtered out below and never start.)
            .fail_on_skipped();
        let cucumber = if options.fail_fast { cucumber.fail_fast() } else { cucumber };
        cucumber
            .filter_run(features, move |feature, _, scenario| {
                let t = features::tags(feature, scenario);
                if !W::runs(&t)
                    || !tags.as_ref().is_none_or(|expr| expr.eval(t.iter()))
                    || !names.as_ref().is_none_or(|n| n.iter().any(|re| re.is_match(&scenario.name)))
                {
                    return false;
                }
                match crate::backend::can_run(backend.as_ref(), &t) {
                    Ok(()) => {
                        counter.fetch_add(1, Ordering::Relaxed);
                        true
                    }
                    Err(why) => {
                        println!("skipped on {}: {} ({why})", backend.name(), scenario.name);
                        false
                    }
                }
            })
            .await;
        String::from_utf8_lossy(&junit.0.borrow()).into_owned()
    }
}

/// Runs the features on `backend`, writing the console report to `console`.
pub async fn run_to(backend: Arc<dyn Backend>, options: RunOptions, console: Box<dyn Write>) -> std::io::Result<Outcome> {
    let features = parse(&options.features).await;
    let kubelet = of_kind::<KubeletWorld>(&features, false);
    let runs = Runs { backend: &backend, options: &options, console: Console::new(console, options.color), ran: Arc::default() };
    // Scenarios on an API server run first, and report the files that did not parse; with no
    // kubelet scenario either, their run is still the one that reports nothing ran.
    let api = of_kind::<KubeWorld>(&features, true);
    let mut reports = Vec::new();
    if !api.is_empty() || kubelet.is_empty() {
        reports.push(runs.run::<KubeWorld>(api).await);
    }
    // With --fail-fast, a failure among the scenarios on an API server ends the run there.
    let stopped = options.fail_fast && runs.console.failed().await;
    if !stopped && !kubelet.is_empty() {
        reports.push(runs.run::<KubeletWorld>(kubelet).await);
    }
    runs.console.finish().await;
    if let Some(path) = &options.junit {
        std::fs::write(path, merged_junit(&reports))?;
    }
    Ok(Outcome { failed: runs.console.failed().await, scenarios: runs.ran.load(Ordering::Relaxed) })
}

/// Runs the features on `backend`, reporting to stdout.
pub async fn run(backend: Arc<dyn Backend>, options: RunOptions) -> std::io::Result<Outcome> {
    run_to(backend, options, Box::new(std::io::stdout())).await
}

#[cfg(test)]
mod tests {
    #[test]
    fn merged_junit_numbers_the_suites_of_every_run_in_order_and_names_each_testcase_s_feature() {
        let head = r#"<?xml version="1.0" encoding="utf-8"?>"#;
        let api =
            format!(r#"{head}<testsuites><testsuite id="0" name="Feature: A: f.feature"><testcase name="x"/></testsuite></testsuites>"#);
        let kubelet =
            format!(r#"{head}<testsuites><testsuite id="0" name="b"></testsuite><testsuite id="1" name="c"></testsuite></testsuites>"#);
        let empty = format!("{head}<testsuites/>");
        assert_eq!(
            super::merged_junit(&[api, empty, kubelet]),
            format!(
                r#"{head}<testsuites><testsuite id="0" name="Feature: A: f.feature"><testcase name="x" classname="A"/></testsuite><testsuite id="1" name="b"></testsuite><testsuite id="2" name="c"></testsuite></testsuites>"#
            )
        );
    }

    #[test]
    fn testcase_names_keep_the_file_name_but_no_directory_or_line_and_number_a_repeated_title() {
        let suite = concat!(
            r#" name="Feature: Orphaning: work/x/features/orphan.feature" tests="3">"#,
            r#"<testcase name="Scenario: Keeps it: work/x/features/orphan.feature:30:5" time="1"/>"#,
            r#"<testcase name="Rule: r: Scenario: A: b: work/x/features/orphan.feature:12:3" time="1"/>"#,
            r#"<testcase name="Scenario: Keeps it: work/x/features/orphan.feature:29:5" time="1"/>"#,
        );
        assert_eq!(
            super::stable_names(suite),
            concat!(
                r#" name="Feature: Orphaning: orphan.feature" tests="3">"#,
                r#"<testcase name="Scenario: Keeps it (2): orphan.feature" classname="Orphaning" time="1"/>"#,
                r#"<testcase name="Rule: r: Scenario: A: b: orphan.feature" classname="Orphaning" time="1"/>"#,
                r#"<testcase name="Scenario: Keeps it (1): orphan.feature" classname="Orphaning" time="1"/>"#,
            )
        );
    }
}
