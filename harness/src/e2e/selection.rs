//! Selections: named lists of upstream e2e tests, one YAML file each under
//! `upstream/e2e/selections/`. Each test is named by its full text as the e2e binary prints it
//! (`[sig-api-machinery] Garbage collector should ... [Conformance]`) and says why it is in;
//! the tests of the same kind left out say why not.
//!
//! ```yaml
//! about: What the selection judges.
//! tests:
//!   - name: "[sig-api-machinery] Garbage collector should not be blocked by dependency circle [Conformance]"
//!     why: owners that own each other are deleted together
//! excluded:
//!   - name: "[sig-apps] Job should remove pods when job is deleted"
//!     why: waits for the Job's pods to run, which needs a container runtime
//! ```

use std::path::{Path, PathBuf};

use anyhow::Context;

/// A selection of upstream e2e tests.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    /// What the selection judges.
    pub about: String,
    /// The tests it runs.
    pub tests: Vec<Entry>,
    /// Tests of the same kind it leaves out.
    #[serde(default)]
    pub excluded: Vec<Entry>,
}

/// One test of a selection, or one left out, and why.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The test's full text.
    pub name: String,
    /// Why it is in (or out).
    pub why: String,
}

/// The directory of the named selections: `e2e/selections/` of the Go module in `upstream/`.
pub fn dir() -> PathBuf {
    kubegc_control_plane::build::Upstream::locate().source().join("e2e/selections")
}

/// The names of the selections in [`dir`], sorted.
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".yaml").map(str::to_string))
        .collect();
    names.sort();
    names
}

impl Selection {
    /// The selection `name` (a file of [`dir`]) or the selection file at the path `name`.
    pub fn load(name: &str) -> anyhow::Result<Self> {
        let path = if name.ends_with(".yaml") || name.contains('/') {
            PathBuf::from(name)
        } else {
            let path = dir().join(format!("{name}.yaml"));
            anyhow::ensure!(path.exists(), "there is no selection {name:?}; the selections are: {}", names().join(", "));
            path
        };
        Self::read(&path)
    }

    /// Reads and checks a selection file.
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read selection {}", path.display()))?;
        let selection: Self = serde_saphyr::from_str(&text).with_context(|| format!("cannot read selection {}", path.display()))?;
        anyhow::ensure!(!selection.tests.is_empty(), "selection {} lists no test", path.display());
        let mut seen = std::collections::HashSet::new();
        for entry in selection.tests.iter().chain(&selection.excluded) {
            anyhow::ensure!(seen.insert(entry.name.as_str()), "selection {} names {:?} twice", path.display(), entry.name);
            anyhow::ensure!(!entry.why.trim().is_empty(), "selection {} does not say why of {:?}", path.display(), entry.name);
        }
        Ok(selection)
    }

    /// The names of the tests it runs.
    pub fn names(&self) -> Vec<String> {
        self.tests.iter().map(|t| t.name.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_selection_of_the_repository_reads() {
        let names = names();
        assert!(names.contains(&"gc".to_string()), "{names:?}");
        for name in names {
            Selection::load(&name).unwrap();
        }
    }

    #[test]
    fn a_test_named_twice_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("twice.yaml");
        std::fs::write(&path, "about: x\ntests:\n  - {name: a, why: b}\nexcluded:\n  - {name: a, why: c}\n").unwrap();
        let err = Selection::read(&path).unwrap_err();
        assert!(format!("{err:#}").contains("twice"), "{err:#}");
    }
}
