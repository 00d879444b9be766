//! Runs feature files against a backend with cucumber: each scenario gets a fresh world bound
//! to the backend and its own namespace (deleted afterwards); scenarios the backend cannot run
//! are left out and listed. Results go to a console writer and, when asked, a JUnit report.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use cucumber::gherkin::tagexpr::TagOperation;
use cucumber::tag::Ext as _;
use cucumber::writer::Stats as _;
use cucumber::{World, WriterExt, writer};
use futures::FutureExt;

use crate::backend::Backend;
use crate::world::api::KubeWorld;

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
}

/// The outcome of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Whether any step failed or a feature file did not parse.
    pub failed: bool,
    /// Scenarios that ran.
    pub scenarios: usize,
}

fn tags_of(feature: &cucumber::gherkin::Feature, scenario: &cucumber::gherkin::Scenario) -> Vec<String> {
    feature.tags.iter().chain(&scenario.tags).cloned().collect()
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

/// The feature files at `path`: the file itself, or a directory's `*.feature` files in name
/// order.
pub fn feature_files(path: &std::path::Path) -> std::io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "feature"))
        .collect();
    files.sort();
    Ok(files)
}

/// One directory holding every requested feature file (copied), so that one cucumber run — and
/// one JUnit report — covers them all.
fn gather(features: &[PathBuf]) -> std::io::Result<(PathBuf, Option<tempfile::TempDir>)> {
    if let [single] = features {
        return Ok((single.clone(), None));
    }
    let dir = tempfile::tempdir()?;
    let mut n = 0;
    for path in features {
        for file in feature_files(path)? {
            n += 1;
            let name = format!("{n:04}-{}", file.file_name().and_then(|f| f.to_str()).unwrap_or("x.feature"));
            std::fs::copy(&file, dir.path().join(name))?;
        }
    }
    Ok((dir.path().to_path_buf(), Some(dir)))
}

/// Runs the features on `backend`, writing the console report to `console`.
pub async fn run_to(backend: Arc<dyn Backend>, options: RunOptions, console: Box<dyn Write>) -> std::io::Result<Outcome> {
    let (path, _keep) = gather(&options.features)?;
    let junit: Box<dyn Write> = match &options.junit {
        Some(p) => Box::new(std::fs::File::create(p)?),
        None => Box::new(std::io::sink()),
    };
    let coloring = if options.color { writer::Coloring::Auto } else { writer::Coloring::Never };
    let for_world = backend.clone();
    let tags = options.tags.clone();
    let names: Option<Vec<regex::Regex>> = options.names.as_ref().map(|names| names.iter().map(|n| name_pattern(n)).collect());
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = ran.clone();
    let cucumber = KubeWorld::cucumber()
        .max_concurrent_scenarios(options.concurrency.max(1))
        .before(move |_, _, _, world| {
            world.backend = Some(for_world.clone());
            async {}.boxed_local()
        })
        .after(|_, _, _, _, world| {
            async move {
                if let Some(world) = world {
                    crate::world::cleanup::cleanup(world).await;
                }
            }
            .boxed_local()
        })
        .with_writer(
            writer::Basic::raw(console, coloring, 0).summarized().tee::<KubeWorld, _>(writer::JUnit::for_tee(junit, 0)).normalized(),
        )
        .with_cli(cucumber::cli::Opts::<_, _, _, cucumber::cli::Empty>::default());
    let cucumber = if options.fail_fast { cucumber.fail_fast() } else { cucumber };
    let result = cucumber
        .filter_run(path, move |feature, _, scenario| {
            let t = tags_of(feature, scenario);
            if !tags.as_ref().is_none_or(|expr| expr.eval(t.iter()))
                || !names.as_ref().is_none_or(|n| n.iter().any(|re| re.is_match(&scenario.name)))
            {
                return false;
            }
            match backend.can_run(&t) {
                Ok(()) => {
                    counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    true
                }
                Err(why) => {
                    println!("skipped on {}: {} ({why})", backend.name(), scenario.name);
                    false
                }
            }
        })
        .await;
    let failed = result.execution_has_failed() || result.parsing_errors() > 0;
    Ok(Outcome { failed, scenarios: ran.load(std::sync::atomic::Ordering::Relaxed) })
}

/// Runs the features on `backend`, reporting to stdout.
pub async fn run(backend: Arc<dyn Backend>, options: RunOptions) -> std::io::Result<Outcome> {
    run_to(backend, options, Box::new(std::io::stdout())).await
}
