//! `kubegc corpus`: manifests written by others — the test manifests and fixtures of the
//! pinned modules ([`manifests::SOURCES`]), read from the Go module cache — sent to the fake API
//! server and to the upstream kube-apiserver side by side, every answer compared.
//!
//! It reuses the random differential's machinery ([`crate::fuzz::differential`]): its
//! [`Pair`] of servers, its comparison and masking, its classes and its documented
//! differences (the `fuzz` rules of `tests/differential/deviations.tsv`, which match a
//! request's shape and a difference's field whatever made the request).
//!
//! Each kept manifest gets a namespace of its own (`corpus-<n>`, with its `default`
//! ServiceAccount) that a namespaced object is moved into; a cluster-scoped object's name gets
//! the suffix `-c<n>` so that no two manifests meet (a CustomResourceDefinition's name, which
//! must be `<plural>.<group>`, is kept). Then [`steps`] sends the same sequence for each:
//! create with `dryRun=All`, create, get, list, update, patch (JSON, merge, strategic, apply),
//! delete with `dryRun=All`, delete.
//!
//! - [`manifests`]: finding the manifests and keeping those the fake serves.

pub mod manifests;

use std::time::{Duration, Instant};

use kubegc::apiserver::catalogue::Catalogue;
use kubegc::apiserver::mutant::Mutant;
use kubegc_control_plane::build::Upstream;
use serde_json::{Value, json};

use crate::corpus::manifests::{Corpus, Manifest, SOURCES};
use crate::fuzz::differential::{Pair, Report, classify};
use crate::fuzz::generate::{FuzzRequest, service_account};
use crate::fuzz::invariants::Answer;
use crate::fuzz::send;

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Send only the first this many kept manifests.
    pub limit: Option<usize>,
    /// Run the fake with this deliberately broken rule.
    pub mutant: Option<Mutant>,
}

/// What a run found.
#[derive(Debug)]
pub struct CorpusReport {
    /// The manifests found (their objects dropped once sent).
    pub corpus: Corpus,
    /// Manifests sent.
    pub sent: u64,
    /// The answers compared, as the random differential reports them.
    pub report: Report,
}

impl CorpusReport {
    /// The counts: files, documents, kept and skipped by reason, then the comparison's.
    pub fn summary(&self) -> String {
        let skipped: u64 = self.corpus.skipped.values().sum();
        let mut out = format!(
            "{} files, {} documents: {} manifests kept ({} sent), {} skipped:\n",
            self.corpus.files,
            self.corpus.documents,
            self.corpus.kept.len(),
            self.sent,
            skipped
        );
        let mut reasons: Vec<(&String, &u64)> = self.corpus.skipped.iter().collect();
        reasons.sort_by_key(|(reason, count)| (std::cmp::Reverse(**count), (*reason).clone()));
        for (reason, count) in reasons {
            out.push_str(&format!("  {count:>5} {reason}\n"));
        }
        out.push_str(&self.report.summary());
        out
    }
}

/// The label the update and patches set.
const LABEL: &str = "kubegc-corpus";

/// The field manager of the apply.
const MANAGER: &str = "kubegc-corpus";

/// Finds the corpus in the module cache (downloading a module that is not there).
pub fn find() -> anyhow::Result<Corpus> {
    let upstream = Upstream::locate();
    let catalogue = Catalogue::new();
    let mut corpus = Corpus::default();
    for (module, dirs) in SOURCES {
        let root = upstream.module_dir(module)?;
        let version = root.file_name().and_then(|n| n.to_str()).and_then(|n| n.rsplit_once('@')).map_or("", |(_, v)| v);
        let label = format!("{module}@{version}");
        for dir in *dirs {
            corpus.read_dir(&label, &root, &root.join(dir), &catalogue)?;
        }
    }
    Ok(corpus)
}

/// Finds the corpus and sends it to a fresh pair of servers, printing progress on stderr.
pub async fn run(options: &Options) -> anyhow::Result<CorpusReport> {
    let started = Instant::now();
    let mut corpus = find()?;
    eprintln!("corpus: {} files, {} manifests kept; starting the servers", corpus.files, corpus.kept.len());
    let pair = Pair::start(options.mutant).await?;
    let mut report = Report::default();
    let manifests = std::mem::take(&mut corpus.kept);
    let chosen = &manifests[..options.limit.unwrap_or(usize::MAX).min(manifests.len())];
    let mut last = Instant::now();
    let mut index = 0;
    for (n, manifest) in chosen.iter().enumerate() {
        send_manifest(&pair, n, manifest, &mut index, &mut report).await?;
        if last.elapsed() >= Duration::from_secs(10) || n + 1 == chosen.len() {
            last = Instant::now();
            report.elapsed = started.elapsed();
            eprintln!("corpus: {}/{} manifests, {}", n + 1, chosen.len(), report.summary());
        }
    }
    let sent = chosen.len() as u64;
    corpus.kept = manifests;
    report.elapsed = started.elapsed();
    Ok(CorpusReport { corpus, sent, report })
}

/// Sends manifest `n`'s steps, counting each compared answer in `report` (`index` numbers the
/// requests of the run).
async fn send_manifest(pair: &Pair, n: usize, manifest: &Manifest, index: &mut u64, report: &mut Report) -> anyhow::Result<()> {
    let namespace = format!("corpus-{n}");
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
    pair.setup(&request("POST", "/api/v1/namespaces".into(), "application/json", &ns), false).await?;
    pair.setup(&service_account(&namespace), false).await?;
    let object = placed(manifest, n, &namespace);
    let name = object["metadata"]["name"].as_str().unwrap_or_default().to_string();
    let collection = collection_path(manifest, &namespace);
    let item = format!("{collection}/{name}");
    for step in steps(&object, &collection, &item) {
        let (to_fake, step) = match step {
            Step::Send(request) => (request.clone(), request),
            Step::Update => {
                let get = request("GET", item.clone(), "", &Value::Null);
                let fake = send(pair.fake(), &get).await.ok();
                let upstream = pair.upstream().send(&get, false).await.ok();
                (update(fake, &object, &item), update(upstream, &object, &item))
            }
        };
        let found = pair.compare_each(*index, &to_fake, &step).await;
        *index += 1;
        if manifest.resource.plural == "customresourcedefinitions" && step.method != "GET" {
            let (group, plural) =
                (object["spec"]["group"].as_str().unwrap_or(""), object["spec"]["names"]["plural"].as_str().unwrap_or(""));
            let version = object["spec"]["versions"][0]["name"].as_str().unwrap_or("v1");
            pair.settle_definition(&name, &format!("/apis/{group}/{version}/{plural}")).await;
        }
        let Some(mut found) = found else {
            report.unanswered += 1;
            continue;
        };
        found.origin = Some(manifest.origin.clone());
        report.count(&found);
        classify(&mut report.classes, &found);
    }
    Ok(())
}

/// A request of the sequence, or the update, whose body each server's stored object makes.
enum Step {
    Send(FuzzRequest),
    Update,
}

/// The requests sent for `object`, stored at `item` in `collection`.
fn steps(object: &Value, collection: &str, item: &str) -> Vec<Step> {
    let labelled = |kind: &str| {
        let mut object = object.clone();
        object["metadata"]["labels"][LABEL] = json!(kind);
        object
    };
    let json_patch = json!([{"op": "add", "path": format!("/metadata/labels/{LABEL}"), "value": "json"}]);
    let merge_patch = json!({"metadata": {"labels": {LABEL: "merge"}}});
    vec![
        Step::Send(request("POST", format!("{collection}?dryRun=All"), "application/json", object)),
        Step::Send(request("POST", collection.into(), "application/json", object)),
        Step::Send(request("GET", item.into(), "", &Value::Null)),
        Step::Send(request("GET", collection.into(), "", &Value::Null)),
        Step::Update,
        Step::Send(request("PATCH", item.into(), "application/json-patch+json", &json_patch)),
        Step::Send(request("PATCH", item.into(), "application/merge-patch+json", &merge_patch)),
        Step::Send(request("PATCH", item.into(), "application/strategic-merge-patch+json", &labelled("strategic"))),
        Step::Send(request("PATCH", format!("{item}?fieldManager={MANAGER}&force=true"), "application/apply-patch+yaml", object)),
        Step::Send(request("DELETE", format!("{item}?dryRun=All"), "", &Value::Null)),
        Step::Send(request("DELETE", item.into(), "", &Value::Null)),
    ]
}

/// The update sent to one server: the object it stores (or, if it has none, the manifest)
/// with a label added, without its uid, resourceVersion, creation time and managed fields.
/// Each server updates its own object, so that what only one server chose (a generated volume
/// name, an allocated address) is kept, as a client's read-modify-write keeps it.
fn update(stored: Option<Answer>, object: &Value, item: &str) -> FuzzRequest {
    let mut body = match stored {
        Some(answer) if answer.code == 200 => serde_json::from_slice(&answer.body).unwrap_or_else(|_| object.clone()),
        _ => object.clone(),
    };
    if let Some(metadata) = body.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in ["uid", "resourceVersion", "creationTimestamp", "managedFields"] {
            metadata.remove(field);
        }
    }
    body["metadata"]["labels"][LABEL] = json!("update");
    request("PUT", item.into(), "application/json", &body)
}

/// The manifest's object as sent: moved into `namespace`, or, if cluster-scoped, renamed apart;
/// named `corpus-<n>` (after its `generateName` if it has one) if it has no name.
fn placed(manifest: &Manifest, n: usize, namespace: &str) -> Value {
    let mut object = manifest.object.clone();
    if !object["metadata"].is_object() {
        object["metadata"] = json!({});
    }
    let metadata = &mut object["metadata"];
    let name = match (metadata["name"].as_str(), metadata["generateName"].as_str()) {
        (Some(name), _) if !name.is_empty() => name.to_string(),
        (_, Some(prefix)) => format!("{prefix}corpus-{n}"),
        _ => format!("corpus-{n}"),
    };
    let resource = &manifest.resource;
    metadata["name"] =
        if resource.namespaced || resource.plural == "customresourcedefinitions" { json!(name) } else { json!(format!("{name}-c{n}")) };
    if resource.namespaced {
        metadata["namespace"] = json!(namespace);
    }
    object
}

/// The path of the manifest's collection in `namespace` (if namespaced).
fn collection_path(manifest: &Manifest, namespace: &str) -> String {
    let resource = &manifest.resource;
    let base = if resource.group.is_empty() {
        format!("/api/{}", manifest.version)
    } else {
        format!("/apis/{}/{}", resource.group, manifest.version)
    };
    if resource.namespaced { format!("{base}/namespaces/{namespace}/{}", resource.plural) } else { format!("{base}/{}", resource.plural) }
}

/// A request with `body` as JSON (none when `Null`).
fn request(method: &str, uri: String, content_type: &str, body: &Value) -> FuzzRequest {
    FuzzRequest {
        method: method.into(),
        uri,
        content_type: (!content_type.is_empty()).then(|| content_type.to_string()),
        accept: None,
        body: if body.is_null() { vec![] } else { body.to_string().into_bytes() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(text: &str) -> Manifest {
        let mut corpus = Corpus::default();
        corpus.read_file("m/x.yaml", text, &Catalogue::new());
        corpus.kept.remove(0)
    }

    #[test]
    fn a_namespaced_object_moves_into_the_test_namespace_and_a_cluster_scoped_one_is_renamed() {
        let pod = manifest("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: elsewhere\n");
        let object = placed(&pod, 3, "corpus-3");
        assert_eq!(object["metadata"], json!({"name": "p", "namespace": "corpus-3"}));
        assert_eq!(collection_path(&pod, "corpus-3"), "/api/v1/namespaces/corpus-3/pods");
        let role = manifest("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  generateName: r-\n");
        let object = placed(&role, 4, "corpus-4");
        assert_eq!(object["metadata"]["name"], "r-corpus-4-c4");
        assert_eq!(collection_path(&role, "corpus-4"), "/apis/rbac.authorization.k8s.io/v1/clusterroles");
    }

    #[test]
    fn every_manifest_gets_the_same_eleven_steps() {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
        let shapes: Vec<String> = steps(&object, "/c", "/c/a")
            .into_iter()
            .map(|s| match s {
                Step::Send(r) => format!("{} {} {}", r.method, r.uri, r.content_type.unwrap_or_default()),
                Step::Update => "update".into(),
            })
            .collect();
        assert_eq!(shapes.len(), 11);
        assert_eq!(shapes[0], "POST /c?dryRun=All application/json");
        assert_eq!(shapes[8], "PATCH /c/a?fieldManager=kubegc-corpus&force=true application/apply-patch+yaml");
    }
}
