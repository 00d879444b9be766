//! The fake API server held to the real one at the wire: one recorded sequence of requests
//! (creates, patches, deletes with combinations of DeleteOptions and finalizers, deletecollection,
//! bad inputs) goes to both, and every answer is compared on what garbage collection reads —
//! status code, `reason`, `message`, the returned kind, finalizers, deletionTimestamp,
//! deletionGracePeriodSeconds, ownerReferences and generation.
//!
//! A difference fails the test unless `tests/differential/deviations.tsv` lists it with its
//! reason; a listed deviation that no longer happens fails it too, so the file stays true.
//! The count is printed and written to `target/differential.txt` (CI shows it).

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use http::Method;
use kubegc::apiserver::mutant::Mutant;
use kubegc::apiserver::{ApiServer, Config};
use serde_json::{Value, json};
use support::{Server, raw};

/// One request of a case; `$UID` in its body or path stands for the uid of the case's first
/// created object, `$RV` for the resourceVersion of the case's latest answer that had one.
struct Step {
    method: Method,
    path: String,
    content_type: &'static str,
    body: Value,
}

/// A named sequence of requests on objects of its own.
struct Case {
    name: String,
    steps: Vec<Step>,
}

fn step(method: Method, path: impl Into<String>, body: Value) -> Step {
    let content_type = if method == Method::PATCH { "application/merge-patch+json" } else { "application/json" };
    Step { method, path: path.into(), content_type, body }
}

fn strategic(path: String, body: Value) -> Step {
    Step { method: Method::PATCH, path, content_type: "application/strategic-merge-patch+json", body }
}

const CMS: &str = "/api/v1/namespaces/default/configmaps";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn configmap(name: &str, finalizers: &[&str]) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "finalizers": finalizers}, "data": {"k": "v"}})
}

fn pod(name: &str, node: Option<&str>, finalizers: &[&str]) -> Value {
    let mut p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "finalizers": finalizers},
        "spec": {"terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "image": "i"}]}});
    if let Some(node) = node {
        p["spec"]["nodeName"] = json!(node);
    }
    p
}

/// How a delete's policy and finalizers are chosen (upstream
/// `deletionFinalizersForGarbageCollection`), on a ConfigMap: every pre-set finalizer list with
/// every option set, then a second, background delete of the object being deleted and a read of
/// what is left.
fn configmap_deletes() -> Vec<Case> {
    let finalizer_sets: [&[&str]; 5] = [&[], &["orphan"], &["foregroundDeletion"], &["example.com/hold"], &["example.com/hold", "orphan"]];
    let options = [
        Value::Null,
        json!({}),
        json!({"propagationPolicy": "Orphan"}),
        json!({"propagationPolicy": "Background"}),
        json!({"propagationPolicy": "Foreground"}),
        json!({"propagationPolicy": "Sideways"}),
        json!({"orphanDependents": true}),
        json!({"orphanDependents": false}),
        json!({"orphanDependents": true, "propagationPolicy": "Orphan"}),
        json!({"dryRun": ["All"], "propagationPolicy": "Foreground"}),
        json!({"dryRun": ["Some"]}),
        json!({"preconditions": {"uid": "$UID"}, "propagationPolicy": "Foreground"}),
        json!({"preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}}),
        json!({"preconditions": {"resourceVersion": "$RV"}, "propagationPolicy": "Orphan"}),
        json!({"preconditions": {"resourceVersion": "1"}}),
        json!({"gracePeriodSeconds": 0}),
        json!({"gracePeriodSeconds": 30, "propagationPolicy": "Foreground"}),
        json!({"gracePeriodSeconds": -1}),
    ];
    let mut cases = Vec::new();
    for (f, finalizers) in finalizer_sets.iter().enumerate() {
        for (o, options) in options.iter().enumerate() {
            let name = format!("cm-{f}-{o}");
            let path = format!("{CMS}/{name}");
            cases.push(Case {
                name: format!("ConfigMap with finalizers {finalizers:?} deleted with {options}"),
                steps: vec![
                    step(Method::POST, CMS, configmap(&name, finalizers)),
                    step(Method::DELETE, &path, options.clone()),
                    step(Method::GET, &path, Value::Null),
                    step(Method::DELETE, &path, json!({"propagationPolicy": "Background"})),
                    step(Method::GET, &path, Value::Null),
                ],
            });
        }
    }
    cases
}

/// Upstream `DefaultGarbageCollectionPolicy`: each kind's default policy, deleted with no
/// options and with Foreground.
fn default_policies() -> Vec<Case> {
    let spec = json!({"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
        "spec": {"serviceAccountName": "kubegc-no-such-account", "containers": [{"name": "c", "image": "i"}]}}});
    let kinds = [
        (
            "/api/v1/namespaces/default/replicationcontrollers",
            json!({"apiVersion": "v1", "kind": "ReplicationController",
            "spec": {"replicas": 0, "selector": {"a": "b"}, "template": spec["template"].clone()}}),
        ),
        (
            "/apis/apps/v1/namespaces/default/replicasets",
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "spec": {"replicas": 0, "selector": spec["selector"].clone(), "template": spec["template"].clone()}}),
        ),
        (
            "/apis/apps/v1/namespaces/default/deployments",
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 0, "paused": true, "selector": spec["selector"].clone(), "template": spec["template"].clone()}}),
        ),
        (
            "/apis/batch/v1/namespaces/default/jobs",
            json!({"apiVersion": "batch/v1", "kind": "Job", "spec": {"suspend": true,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}),
        ),
        ("/api/v1/namespaces/default/secrets", json!({"apiVersion": "v1", "kind": "Secret"})),
    ];
    let mut cases = Vec::new();
    for (path, object) in kinds {
        for (o, options) in [Value::Null, json!({"propagationPolicy": "Foreground"})].into_iter().enumerate() {
            let kind = object["kind"].as_str().unwrap();
            let name = format!("{}-{o}", kind.to_lowercase());
            let mut object = object.clone();
            object["metadata"] = json!({"name": name, "finalizers": ["example.com/hold"]});
            let item = format!("{path}/{name}");
            cases.push(Case {
                name: format!("{kind} held by a finalizer, deleted with {options}"),
                steps: vec![
                    step(Method::POST, path, object),
                    step(Method::DELETE, &item, options),
                    step(Method::PATCH, &item, json!({"metadata": {"finalizers": null}})),
                    step(Method::GET, &item, Value::Null),
                ],
            });
        }
    }
    cases
}

/// Pods: grace periods (upstream `CheckGracefulDelete`), deletes again, and what a delete returns.
fn pod_deletes() -> Vec<Case> {
    let mut cases = Vec::new();
    let graces = [Value::Null, json!({"gracePeriodSeconds": 0}), json!({"gracePeriodSeconds": 10}), json!({"gracePeriodSeconds": -5})];
    for (node, node_name) in [(None, "unscheduled"), (Some("kubegc-no-such-node"), "scheduled")] {
        for (finalizers, held) in [(&[][..], "free"), (&["example.com/hold"][..], "held")] {
            for (g, options) in graces.iter().enumerate() {
                let name = format!("pod-{node_name}-{held}-{g}");
                let path = format!("{PODS}/{name}");
                cases.push(Case {
                    name: format!("{node_name} Pod ({held}) deleted with {options}, then again with 5 s and Foreground"),
                    steps: vec![
                        step(Method::POST, PODS, pod(&name, node, finalizers)),
                        step(Method::DELETE, &path, options.clone()),
                        step(Method::DELETE, &path, json!({"gracePeriodSeconds": 5, "propagationPolicy": "Foreground"})),
                        step(Method::PATCH, &path, json!({"metadata": {"finalizers": null}})),
                    ],
                });
            }
        }
    }
    cases.push(Case {
        name: "a resourceVersion precondition on an unscheduled Pod".into(),
        steps: vec![
            step(Method::POST, PODS, pod("pod-rv", None, &[])),
            step(Method::DELETE, format!("{PODS}/pod-rv"), json!({"preconditions": {"resourceVersion": "$RV"}})),
        ],
    });
    cases
}

/// Updates of terminating objects, creates over them, deletecollection, ownerReference
/// validation, and bad requests.
fn updates_collections_and_bad_input() -> Vec<Case> {
    let owner =
        |api_version: &str, kind: &str, name: &str, uid: &str| json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid});
    let mut cases = vec![
        Case {
            name: "updates of a terminating ConfigMap".into(),
            steps: vec![
                step(Method::POST, CMS, configmap("upd", &["example.com/hold"])),
                step(Method::DELETE, format!("{CMS}/upd"), Value::Null),
                step(Method::PATCH, format!("{CMS}/upd"), json!({"metadata": {"finalizers": ["example.com/hold", "example.com/new"]}})),
                step(Method::PATCH, format!("{CMS}/upd"), json!({"metadata": {"deletionTimestamp": null}})),
                step(Method::PATCH, format!("{CMS}/upd"), json!({"metadata": {"deletionGracePeriodSeconds": 5}})),
                step(Method::PATCH, format!("{CMS}/upd"), json!({"metadata": {"finalizers": ["orphan", "foregroundDeletion"]}})),
                step(Method::DELETE, format!("{CMS}/upd"), json!({"propagationPolicy": "Orphan"})),
                step(
                    Method::PUT,
                    format!("{CMS}/upd"),
                    json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "upd", "resourceVersion": "$RV", "finalizers": []}}),
                ),
                step(Method::GET, format!("{CMS}/upd"), Value::Null),
                step(Method::POST, CMS, configmap("upd", &[])),
            ],
        },
        Case {
            name: "strategic merge patches of finalizers and owner references".into(),
            steps: vec![
                step(Method::POST, CMS, configmap("smp", &["x.io/a", "x.io/b", "x.io/c"])),
                strategic(format!("{CMS}/smp"), json!({"metadata": {"finalizers": ["x.io/d", "x.io/b"]}})),
                strategic(format!("{CMS}/smp"), json!({"metadata": {"finalizers": ["x.io/c", "x.io/x", "x.io/a", "x.io/y"]}})),
                strategic(format!("{CMS}/smp"), json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["x.io/x", "x.io/y"]}})),
                strategic(format!("{CMS}/smp"), json!({"metadata": {"ownerReferences": [owner("v1", "ConfigMap", "one", "u1")]}})),
                strategic(format!("{CMS}/smp"), json!({"metadata": {"ownerReferences": [owner("v1", "ConfigMap", "two", "u2")]}})),
                strategic(format!("{CMS}/smp"), json!({"metadata": {"ownerReferences": [{"$patch": "delete", "uid": "u1"}]}})),
                strategic(format!("{CMS}/smp"), json!({"metadata": {"finalizers": [], "ownerReferences": [{"$patch": "replace"}]}})),
            ],
        },
        Case {
            name: "a deletionTimestamp set on a live object".into(),
            steps: vec![
                step(Method::POST, CMS, configmap("live", &[])),
                step(Method::PATCH, format!("{CMS}/live"), json!({"metadata": {"deletionTimestamp": "2030-01-01T00:00:00Z"}})),
            ],
        },
        Case {
            name: "creating over a terminating object".into(),
            steps: vec![
                step(Method::POST, CMS, configmap("again", &["example.com/hold"])),
                step(Method::DELETE, format!("{CMS}/again"), Value::Null),
                step(Method::POST, CMS, configmap("again", &[])),
            ],
        },
        Case {
            name: "deletecollection with a label selector".into(),
            steps: vec![
                step(Method::POST, CMS, json!({"metadata": {"name": "dc-a", "labels": {"dc": "yes"}}})),
                step(Method::POST, CMS, json!({"metadata": {"name": "dc-b", "labels": {"dc": "yes"}, "finalizers": ["example.com/hold"]}})),
                step(Method::POST, CMS, json!({"metadata": {"name": "dc-c", "labels": {"dc": "no"}}})),
                step(Method::DELETE, format!("{CMS}?labelSelector=dc%3Dyes"), json!({"propagationPolicy": "Foreground"})),
                step(Method::GET, format!("{CMS}/dc-a"), Value::Null),
                step(Method::GET, format!("{CMS}/dc-b"), Value::Null),
                step(Method::GET, format!("{CMS}/dc-c"), Value::Null),
            ],
        },
        Case {
            name: "deletecollection of namespaces".into(),
            steps: vec![step(Method::DELETE, "/api/v1/namespaces?labelSelector=kubegc%3Dnone", Value::Null)],
        },
        Case {
            name: "malformed and mismatched bodies".into(),
            steps: vec![
                Step { method: Method::POST, path: CMS.into(), content_type: "application/json", body: json!("{not json") },
                Step { method: Method::POST, path: CMS.into(), content_type: "text/plain", body: json!("hello") },
                step(Method::POST, CMS, json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "kind"}})),
                step(Method::POST, CMS, json!({"metadata": {}})),
                step(Method::POST, CMS, json!({"metadata": {"name": "Not_Valid"}})),
                step(Method::POST, CMS, configmap("fin", &["has space"])),
                step(Method::POST, CMS, configmap("fin", &["a/b/c"])),
                step(Method::POST, CMS, configmap("fin", &["orphan", "foregroundDeletion"])),
                step(Method::PUT, format!("{CMS}/missing"), configmap("other", &[])),
                step(Method::DELETE, format!("{CMS}/missing"), Value::Null),
                step(Method::POST, CMS, configmap("fin", &["hold"])),
            ],
        },
    ];
    let refs = [
        ("no apiVersion", json!([owner("", "ConfigMap", "o", "u")])),
        ("an unparsable apiVersion", json!([owner("apps/", "ReplicaSet", "o", "u")])),
        ("no kind", json!([owner("v1", "", "o", "u")])),
        ("no name", json!([owner("v1", "ConfigMap", "", "u")])),
        ("no uid", json!([owner("v1", "ConfigMap", "o", "")])),
        ("a v1 Event owner", json!([owner("v1", "Event", "e", "u")])),
        ("an events.k8s.io Event owner", json!([owner("events.k8s.io/v1", "Event", "e", "u")])),
        ("an owner that never existed", json!([owner("third.party.io/v9", "Imaginary", "ghost", "no-such-uid")])),
        (
            "two controllers",
            json!([
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "1", "controller": true},
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "2", "controller": true}]),
        ),
    ];
    for (i, (what, refs)) in refs.into_iter().enumerate() {
        let name = format!("refs-{i}");
        let mut object = configmap(&name, &[]);
        object["metadata"]["ownerReferences"] = refs.clone();
        cases.push(Case {
            name: format!("owner references with {what}, on create and on update"),
            steps: vec![
                step(Method::POST, CMS, object),
                step(Method::POST, CMS, configmap(&format!("{name}-later"), &[])),
                step(Method::PATCH, format!("{CMS}/{name}-later"), json!({"metadata": {"ownerReferences": refs}})),
            ],
        });
    }
    cases
}

/// What garbage collection reads of one answer.
fn view(code: u16, body: &Value) -> BTreeMap<&'static str, Value> {
    let meta = &body["metadata"];
    let mut v = BTreeMap::from([
        ("code", json!(code)),
        ("reason", body["reason"].clone()),
        ("message", body["message"].clone()),
        ("kind", body["kind"].clone()),
        ("finalizers", meta["finalizers"].clone()),
        ("deletionTimestamp", json!(meta["deletionTimestamp"].is_string())),
        ("deletionGracePeriodSeconds", meta["deletionGracePeriodSeconds"].clone()),
        ("ownerReferences", meta["ownerReferences"].clone()),
        ("generation", meta["generation"].clone()),
    ]);
    if let Some(items) = body["items"].as_array() {
        let items: Vec<Value> = items
            .iter()
            .map(|i| json!([i["metadata"]["name"], i["metadata"]["finalizers"], i["metadata"]["deletionTimestamp"].is_string()]))
            .collect();
        v.insert("items", json!(items));
    }
    v
}

/// Runs every case on one server: the answers' views, messages with the server's own uids,
/// resourceVersions and namespace replaced by placeholders.
async fn answers(server: &Server, cases: &[Case]) -> Vec<Vec<BTreeMap<&'static str, Value>>> {
    let mut all = Vec::new();
    for case in cases {
        let (mut uid, mut rv, mut seen) = (String::new(), String::new(), BTreeSet::new());
        let mut views = Vec::new();
        for s in &case.steps {
            let fill = |text: &str| text.replace("$UID", &uid).replace("$RV", &rv);
            let path = fill(&s.path);
            let body = match &s.body {
                Value::Null => String::new(),
                Value::String(text) => text.clone(),
                other => fill(&other.to_string()),
            };
            let r = raw(server, s.method.clone(), &path, Some(s.content_type), body).await;
            if let Some(u) = r.body["metadata"]["uid"].as_str() {
                if uid.is_empty() {
                    uid = u.to_string();
                }
                seen.insert(u.to_string());
            }
            if let Some(v) = r.body["metadata"]["resourceVersion"].as_str().filter(|v| !v.is_empty()) {
                rv = v.to_string();
                seen.insert(v.to_string());
            }
            views.push((r.code, r.body));
        }
        let normalise = |message: &str| {
            let mut m = message.replace(&format!("/{}/", server.namespace()), "/default/").replace(server.namespace(), "default");
            for token in &seen {
                m = mask_id(&m, token);
            }
            m
        };
        all.push(
            views
                .into_iter()
                .map(|(code, body)| {
                    let mut v = view(code, &body);
                    if let Some(m) = body["message"].as_str() {
                        v.insert("message", json!(normalise(m)));
                    }
                    v
                })
                .collect(),
        );
    }
    all
}

/// Replaces whole-word occurrences of `token` (a uid or resourceVersion) by `<id>`.
fn mask_id(text: &str, token: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(token) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + token.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-');
        out.push_str(&rest[..at]);
        out.push_str(if word(before) || word(after) { token } else { "<id>" });
        rest = &rest[at + token.len()..];
    }
    out.push_str(rest);
    out
}

/// `tests/differential/deviations.tsv`: (case, step, field) → why. Its `fuzz` lines are rules
/// for the random differential (`kubegc fuzz --differential`), not cases of this one.
fn deviations() -> BTreeMap<(String, usize, String), String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/differential/deviations.tsv");
    let text = std::fs::read_to_string(path).expect("tests/differential/deviations.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty() && !l.starts_with("fuzz\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() == 4 && !f[3].trim().is_empty(), "a deviation is case<TAB>step<TAB>field<TAB>why: {l:?}");
            ((f[0].to_string(), f[1].parse().expect("a step number"), f[2].to_string()), f[3].to_string())
        })
        .collect()
}

#[tokio::test]
async fn the_fake_answers_as_the_upstream_api_server_does() {
    let cases: Vec<Case> =
        [configmap_deletes(), default_policies(), pod_deletes(), updates_collections_and_bad_input()].into_iter().flatten().collect();
    let requests: usize = cases.iter().map(|c| c.steps.len()).sum();
    let fake = answers(&Server::fake(), &cases).await;
    let upstream = answers(&Server::upstream().await, &cases).await;

    // The check tells a broken fake apart: one that ignores delete preconditions differs.
    let broken = ApiServer::with_config(Config { mutant: Some(Mutant::IgnorePreconditions), ..Config::default() });
    let broken = answers(&Server::Fake(broken), &cases).await;
    assert_ne!(broken, upstream, "a fake that ignores preconditions answers as upstream does");

    let documented = deviations();
    let mut report = String::new();
    let mut found = BTreeSet::new();
    for ((case, fake), upstream) in cases.iter().zip(&fake).zip(&upstream) {
        for (i, (f, u)) in fake.iter().zip(upstream).enumerate() {
            let fields: BTreeSet<&&str> = f.keys().chain(u.keys()).collect();
            for field in fields {
                let (fv, uv) = (f.get(*field).unwrap_or(&Value::Null), u.get(*field).unwrap_or(&Value::Null));
                if fv != uv {
                    let key = (case.name.clone(), i + 1, field.to_string());
                    let mark = if documented.contains_key(&key) { "documented" } else { "NEW" };
                    let _ = writeln!(report, "{mark}: {} / step {} / {field}: fake {fv}, upstream {uv}", case.name, i + 1);
                    found.insert(key);
                }
            }
        }
    }
    let undocumented: Vec<_> = found.iter().filter(|k| !documented.contains_key(*k)).collect();
    let stale: Vec<_> = documented.keys().filter(|k| !found.contains(*k)).collect();
    let summary = format!(
        "differential check: {} cases, {requests} requests to each server, {} differences ({} documented in tests/differential/deviations.tsv)",
        cases.len(),
        found.len(),
        found.len() - undocumented.len()
    );
    let out = concat!(env!("CARGO_MANIFEST_DIR"), "/target/differential.txt");
    let _ = std::fs::write(out, format!("{summary}\n{report}"));
    println!("{summary}\n{report}");
    assert!(undocumented.is_empty(), "{summary}\nundocumented differences:\n{report}");
    assert!(stale.is_empty(), "deviations that no longer happen (remove them): {stale:#?}");
}
