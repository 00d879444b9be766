//! Finding the manifests: every YAML and JSON file under the corpus directories of the pinned
//! modules, split into documents (multi-document YAML, the items of a `List`), each kept when
//! the fake serves its apiVersion and kind, else skipped and counted by reason.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use kubegc::apiserver::catalogue::{Catalogue, ResourceInfo};
use serde_json::Value;

/// The corpus: a module (as `go mod download` names it, its version the one `upstream/go.mod`
/// selects) and the directories of it whose files are read.
pub const SOURCES: &[(&str, &[&str])] =
    &[("k8s.io/kubernetes", &["test/e2e/testing-manifests", "test/fixtures", "hack/testdata"]), ("k8s.io/kubectl", &["testdata"])];

/// One document of a file whose kind the fake serves.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// Its file, relative to the module cache (`k8s.io/kubernetes@v1.37.2/test/...`), and its
    /// document's position (`#2`, `#2.1` for an item of a `List`) when the file holds several.
    pub origin: String,
    /// The object, as written.
    pub object: Value,
    /// The resource the fake serves it as.
    pub resource: Arc<ResourceInfo>,
    /// The version of its apiVersion.
    pub version: String,
}

/// What was found.
#[derive(Debug, Default)]
pub struct Corpus {
    /// Files read.
    pub files: u64,
    /// Documents found in them (a `List` counts its items).
    pub documents: u64,
    /// The documents kept.
    pub kept: Vec<Manifest>,
    /// Documents (or, for `templated` and `unreadable`, files) skipped, by reason.
    pub skipped: BTreeMap<String, u64>,
}

impl Corpus {
    /// Reads every `.yaml`, `.yml` and `.json` file under `dir` (and every such file's
    /// template, `.yaml.in`), in name order, naming each by its path under `root` prefixed with
    /// `label`.
    pub fn read_dir(&mut self, label: &str, root: &Path, dir: &Path, catalogue: &Catalogue) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                self.read_dir(label, root, &path, catalogue)?;
                continue;
            }
            let file = entry.file_name().to_string_lossy().trim_end_matches(".in").to_string();
            let is_manifest = [".yaml", ".yml", ".json"].iter().any(|e| file.ends_with(e));
            if !is_manifest {
                continue;
            }
            let within = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            match std::fs::read_to_string(&path) {
                Ok(text) => self.read_file(&format!("{label}/{within}"), &text, catalogue),
                Err(_) => self.skip("unreadable file"),
            }
        }
        Ok(())
    }

    /// Reads one file's text; `origin` names it.
    pub fn read_file(&mut self, origin: &str, text: &str, catalogue: &Catalogue) {
        self.files += 1;
        if text.contains("{{") {
            self.skip("templated file");
            return;
        }
        let documents = if origin.trim_end_matches(".in").ends_with(".json") {
            match serde_json::from_str::<Value>(text) {
                Ok(value) => vec![Ok(value)],
                Err(_) => vec![Err(())],
            }
        } else {
            yaml_documents(text).into_iter().map(|d| serde_saphyr::from_str::<Value>(&d).map_err(|_| ())).collect()
        };
        let documents: Vec<_> = documents.into_iter().filter(|d| !matches!(d, Ok(Value::Null))).collect();
        let several = documents.len() > 1;
        for (i, document) in documents.into_iter().enumerate() {
            let at = if several { format!("{origin}#{}", i + 1) } else { origin.to_string() };
            match document {
                Ok(value) => self.read_document(&at, value, catalogue),
                Err(()) => {
                    self.documents += 1;
                    self.skip("not YAML or JSON");
                }
            }
        }
    }

    /// One document: a `List`'s items one by one, anything else kept or skipped.
    fn read_document(&mut self, origin: &str, value: Value, catalogue: &Catalogue) {
        let kind = value["kind"].as_str().unwrap_or_default().to_string();
        if kind.ends_with("List")
            && let Some(items) = value["items"].as_array()
        {
            for (i, item) in items.iter().enumerate() {
                self.read_document(&format!("{origin}.{}", i + 1), item.clone(), catalogue);
            }
            return;
        }
        self.documents += 1;
        let api_version = value["apiVersion"].as_str().unwrap_or_default().to_string();
        if kind.is_empty() || api_version.is_empty() || !value.is_object() {
            self.skip("not an object (no apiVersion or kind)");
            return;
        }
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", &api_version));
        match catalogue.by_kind(group, &kind).filter(|r| r.serves(version)) {
            Some(resource) => {
                self.kept.push(Manifest { origin: origin.to_string(), object: value, resource, version: version.to_string() })
            }
            None => self.skip(&format!("not served: {api_version} {kind}")),
        }
    }

    fn skip(&mut self, reason: &str) {
        *self.skipped.entry(reason.to_string()).or_default() += 1;
    }
}

/// The documents of a YAML stream, split at `---` lines.
fn yaml_documents(text: &str) -> Vec<String> {
    let mut documents = vec![String::new()];
    for line in text.lines() {
        if line == "---" || line.starts_with("--- ") {
            documents.push(String::new());
        } else if let Some(last) = documents.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    documents.into_iter().filter(|d| d.lines().any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(origin: &str, text: &str) -> Corpus {
        let mut corpus = Corpus::default();
        corpus.read_file(origin, text, &Catalogue::new());
        corpus
    }

    #[test]
    fn a_multi_document_file_is_split_and_each_document_named() {
        let corpus = read(
            "m/a.yaml",
            "# comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: b\n---\n",
        );
        assert_eq!((corpus.files, corpus.documents), (1, 2));
        let kept: Vec<(&str, &str)> = corpus.kept.iter().map(|m| (m.origin.as_str(), m.resource.plural.as_str())).collect();
        assert_eq!(kept, [("m/a.yaml#1", "configmaps"), ("m/a.yaml#2", "deployments")]);
        assert!(corpus.skipped.is_empty(), "{:?}", corpus.skipped);
    }

    #[test]
    fn a_list_is_split_into_its_items() {
        let corpus = read(
            "m/list.json",
            r#"{"apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}},
                {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]}"#,
        );
        let kept: Vec<(&str, &str)> = corpus.kept.iter().map(|m| (m.origin.as_str(), m.resource.kind.as_str())).collect();
        assert_eq!(kept, [("m/list.json.1", "Service"), ("m/list.json.2", "Pod")]);
        assert_eq!(corpus.documents, 2);
    }

    #[test]
    fn templates_unserved_kinds_and_non_objects_are_skipped_by_reason() {
        let mut corpus = Corpus::default();
        let catalogue = Catalogue::new();
        corpus.read_file("m/t.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{.Name}}\n", &catalogue);
        corpus.read_file(
            "m/u.yaml",
            "apiVersion: storage.k8s.io/v1\nkind: StorageClass\n---\napiVersion: apps/v1beta1\nkind: Deployment\n",
            &catalogue,
        );
        corpus.read_file("m/v.yaml", "just: a map\n", &catalogue);
        corpus.read_file("m/w.json", "{not json", &catalogue);
        assert!(corpus.kept.is_empty());
        assert_eq!(corpus.files, 4);
        let skipped: Vec<(&str, u64)> = corpus.skipped.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            skipped,
            [
                ("not YAML or JSON", 1),
                ("not an object (no apiVersion or kind)", 1),
                ("not served: apps/v1beta1 Deployment", 1),
                ("not served: storage.k8s.io/v1 StorageClass", 1),
                ("templated file", 1),
            ]
        );
    }
}
