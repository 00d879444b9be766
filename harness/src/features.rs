//! The feature files: where the specification is when no `--features` is given, and reading
//! feature files without running them (for `kubegc list`, `kubegc coverage` and checking that a
//! tag expression selects something).

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use cucumber::gherkin::{Feature, GherkinEnv, Scenario};

/// The environment variable naming the feature files or directory used when no `--features`
/// is given.
pub const FEATURES_VAR: &str = "KUBEGC_FEATURES";

/// The specification this binary was built with: each file of the workspace's `features/`
/// (feature files, README, list of upstream cases) and `fixtures/` directories, by its path
/// from the workspace's root, with its text.
const EMBEDDED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/specification.rs"));

/// The embedded specification as files a reader can open (reports name them), returning its
/// `features/` directory. They are written into the user's cache (`$XDG_CACHE_HOME`, else
/// `~/.cache`, else the temporary directory), in a directory named after this version and the
/// contents; a file that differs from the embedded text is written beside its place and renamed
/// into it, so that a concurrent run never reads half of one.
fn embedded() -> anyhow::Result<PathBuf> {
    let mut hasher = std::hash::DefaultHasher::new();
    EMBEDDED.hash(&mut hasher);
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|home| !home.is_empty()).map(|home| Path::new(&home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = cache.join("kubegc").join(format!("specification-{}-{:016x}", env!("CARGO_PKG_VERSION"), hasher.finish()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {} for the specification", dir.display()))?;
    for (name, text) in EMBEDDED {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(*text) {
            continue;
        }
        let parent = path.parent().unwrap_or(&dir);
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        let mut file = tempfile::NamedTempFile::new_in(parent).with_context(|| format!("cannot write into {}", parent.display()))?;
        file.write_all(text.as_bytes()).and_then(|()| file.flush()).with_context(|| format!("cannot write {}", path.display()))?;
        file.persist(&path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(dir.join("features"))
}

/// The feature files or directories to read: `given` if any, else `$KUBEGC_FEATURES`, else the
/// specification built into this binary, so that `kubegc` works from any directory with
/// nothing around it.
pub fn or_default(given: Vec<PathBuf>) -> anyhow::Result<Vec<PathBuf>> {
    if !given.is_empty() {
        return Ok(given);
    }
    match std::env::var_os(FEATURES_VAR) {
        Some(path) if !path.is_empty() => Ok(vec![PathBuf::from(path)]),
        _ => Ok(vec![embedded()?]),
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
