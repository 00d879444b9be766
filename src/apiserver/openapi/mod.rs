//! OpenAPI v3 as kube-apiserver publishes it: an index (`/openapi/v3`) naming one document per
//! path with the SHA-512 of its bytes, and the documents.
//!
//! The built-in documents are the pinned release's own, byte for byte: `built_in.json.zst` holds
//! what its kube-apiserver serves at every path of the groups the fake serves (`api`, `api/v1`,
//! `apis`, `apis/{group}`, `apis/{group}/{version}`, `version`). `tests/openapi_documents.rs`
//! checks them against the pinned kube-apiserver and writes them again when asked. They are
//! what `kubectl explain` and kubectl's client-side validation read; they describe a group
//! version as upstream serves it, so they name the few subresources the fake does not serve
//! (`pods/exec`, `pods/log`, …) too.
//!
//! A custom resource's group version has a document of the fake's own making: the PATCH
//! operation of each kind with its `x-kubernetes-group-version-kind` and its `fieldValidation`
//! parameter, which kubectl reads to learn that the server validates fields itself (upstream
//! builds the whole document from the definition's schema, `apiextensions-apiserver`
//! `pkg/controller/openapi/builder`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use bytes::Bytes;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha512};

use crate::apiserver::catalogue::Catalogue;

/// One document and the hash its URL carries.
#[derive(Clone, Debug)]
pub struct Document {
    /// The JSON text served.
    pub bytes: Bytes,
    /// The upper-case hex SHA-512 of `bytes`, as kube-openapi's `handler3` computes its ETag.
    pub hash: String,
}

impl Document {
    fn new(bytes: Bytes) -> Self {
        let hash = format!("{:X}", Sha512::digest(&bytes));
        Self { bytes, hash }
    }
}

/// The pinned release's documents by path (`api/v1`), read once.
static BUILT_IN: LazyLock<BTreeMap<String, Document>> = LazyLock::new(|| {
    let text = zstd::decode_all(&include_bytes!("built_in.json.zst")[..]).expect("the built-in OpenAPI documents decompress");
    let documents: BTreeMap<String, String> = serde_json::from_slice(&text).expect("the built-in OpenAPI documents are a JSON object");
    documents.into_iter().map(|(path, text)| (path, Document::new(Bytes::from(text)))).collect()
});

/// Every kind the pinned release's documents give a schema of, by group and version.
static KINDS: LazyLock<BTreeMap<String, BTreeMap<String, BTreeSet<String>>>> = LazyLock::new(|| {
    let mut kinds: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for document in BUILT_IN.values() {
        let document: Value = serde_json::from_slice(&document.bytes).expect("a built-in OpenAPI document is JSON");
        let schemas = document["components"]["schemas"].as_object().into_iter().flat_map(Map::values);
        for gvk in schemas.filter_map(|schema| schema["x-kubernetes-group-version-kind"].as_array()).flatten() {
            let part = |name: &str| gvk[name].as_str().unwrap_or_default().to_string();
            kinds.entry(part("group")).or_default().entry(part("version")).or_default().insert(part("kind"));
        }
    }
    kinds
});

/// Whether the pinned release publishes a schema of `kind` in `group`'s `version`: each of its
/// objects, their lists and the few option kinds an operation reads from a body.
pub fn has_kind(group: &str, version: &str, kind: &str) -> bool {
    KINDS.get(group).and_then(|versions| versions.get(version)).is_some_and(|kinds| kinds.contains(kind))
}

/// Whether the pinned release publishes schemas in `group`'s `version`.
pub fn has_group_version(group: &str, version: &str) -> bool {
    KINDS.get(group).is_some_and(|versions| versions.contains_key(version))
}

fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() { format!("api/{version}") } else { format!("apis/{group}/{version}") }
}

/// The paths the index may list: the fixed ones, each served group's, each served version's.
fn candidate_paths(catalogue: &Catalogue) -> Vec<String> {
    let mut paths: Vec<String> = ["api", "apis", "version"].map(String::from).to_vec();
    for (group, versions) in catalogue.groups() {
        paths.push(format!("apis/{group}"));
        paths.extend(versions.iter().map(|v| gv_path(&group, v)));
    }
    paths
}

/// `/openapi/v3`: each path's `serverRelativeURL`, with its document's hash.
pub fn index(catalogue: &Catalogue) -> Value {
    let paths: Map<String, Value> = candidate_paths(catalogue)
        .into_iter()
        .filter_map(|path| {
            let url = format!("/openapi/v3/{path}?hash={}", document(catalogue, &path)?.hash);
            Some((path, json!({"serverRelativeURL": url})))
        })
        .collect();
    json!({"paths": paths})
}

/// The document at `path` (`api/v1`, `apis/apps/v1`, …), if the index lists it: the pinned
/// release's for a path it publishes and the server serves, the fake's for a custom resource's
/// group version.
pub fn document(catalogue: &Catalogue, path: &str) -> Option<Document> {
    if ["api", "apis", "version"].contains(&path) {
        return BUILT_IN.get(path).cloned();
    }
    catalogue.groups().into_iter().find_map(|(group, versions)| {
        if path == format!("apis/{group}") {
            return BUILT_IN.get(path).cloned();
        }
        let version = versions.iter().find(|v| gv_path(&group, v) == path)?;
        BUILT_IN.get(path).cloned().or_else(|| custom_group_version(catalogue, &group, version))
    })
}

/// The fake's document of a group version the pinned release does not publish: a custom
/// resource's.
fn custom_group_version(catalogue: &Catalogue, group: &str, version: &str) -> Option<Document> {
    let mut paths = Map::new();
    for r in catalogue.all().filter(|r| r.group == group && r.serves(version)) {
        let prefix = format!("/{}", gv_path(group, version));
        let item = if r.namespaced {
            format!("{prefix}/namespaces/{{namespace}}/{}/{{name}}", r.plural)
        } else {
            format!("{prefix}/{}/{{name}}", r.plural)
        };
        let gvk = json!({"group": group, "version": version, "kind": r.kind});
        let content: Map<String, Value> = ["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"]
            .iter()
            .map(|t| (t.to_string(), json!({"schema": {"type": "object"}})))
            .collect();
        paths.insert(
            item,
            json!({"patch": {
                "operationId": format!("patch{}", r.kind),
                "x-kubernetes-action": "patch",
                "x-kubernetes-group-version-kind": gvk,
                "parameters": [
                    {"name": "dryRun", "in": "query", "schema": {"type": "string"}},
                    {"name": "fieldManager", "in": "query", "schema": {"type": "string"}},
                    {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}},
                ],
                "requestBody": {"content": content},
                "responses": {"200": {"description": "OK"}},
            }}),
        );
    }
    if paths.is_empty() {
        return None;
    }
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
        "paths": paths,
        "components": {"schemas": {}},
    });
    Some(Document::new(Bytes::from(document.to_string())))
}
