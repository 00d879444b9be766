//! The feature files: where the specification is when no `--features` is given, and reading
//! feature files without running them (for `kubegc list`, `kubegc coverage` and checking that a
//! tag expression selects something).

use std::path::{Path, PathBuf};

use anyhow::Context;
use cucumber::gherkin::{Feature, GherkinEnv, Scenario};

/// The environment variable naming the feature files or directory used when no `--features`
/// is given.
pub const FEATURES_VAR: &str = "KUBEGC_FEATURES";

/// The specification's own `features/` directory, as this binary was built from it: found
/// from the crate's directory at compile time, so that `kubegc` works from any directory.
fn built_from() -> PathBuf {
    // The harness crate sits in the workspace's root directory, beside `features/`.
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("..")).join("features")
}

/// The feature files or directories to read: `given` if any, else `$KUBEGC_FEATURES`, else the
/// specification this binary was built from.
pub fn or_default(given: Vec<PathBuf>) -> Vec<PathBuf> {
    if !given.is_empty() {
        return given;
    }
    match std::env::var_os(FEATURES_VAR) {
        Some(path) if !path.is_empty() => vec![PathBuf::from(path)],
        _ => vec![built_from()],
    }
}

/// Fails, naming the path, when a feature file or directory does not exist.
pub fn ensure_exist(paths: &[PathBuf]) -> anyhow::Result<()> {
    for path in paths {
        anyhow::ensure!(path.exists(), "no feature files at {}", path.display());
    }
    Ok(())
}

/// The feature files at `path`: the file itself, or a directory's `*.feature` files in name
/// order.
pub fn files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
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

/// The features at `paths`, parsed (each with its `path`); a file that does not parse is an
/// error naming it.
pub fn read(paths: &[PathBuf]) -> anyhow::Result<Vec<Feature>> {
    let mut features = Vec::new();
    for path in paths {
        for file in files(path).with_context(|| format!("cannot read {}", path.display()))? {
            features.push(Feature::parse_path(&file, GherkinEnv::default()).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?);
        }
    }
    Ok(features)
}

/// Every scenario of a feature, those inside rules included.
pub fn scenarios(feature: &Feature) -> impl Iterator<Item = &Scenario> {
    feature.scenarios.iter().chain(feature.rules.iter().flat_map(|r| r.scenarios.iter()))
}

/// The tags a scenario carries, its feature's and its own (without `@`).
pub fn tags(feature: &Feature, scenario: &Scenario) -> Vec<String> {
    feature.tags.iter().chain(&scenario.tags).cloned().collect()
}
