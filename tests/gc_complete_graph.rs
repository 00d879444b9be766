//! Decisions that read an object's dependents from the graph wait until the graph is complete
//! (`kubegc::gc::cache_sync`), stepped by hand: the monitors list and watch for real, and the
//! test applies their graph changes and processes the queues one item at a time, while the
//! list of Secrets, where the dependent lives, is refused.

mod gc_support;
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use gc_support::*;
use http::request::Parts;
use kubegc::apiserver::status::ApiError;
use kubegc::gc::Config;
use kubegc::gc::collector::{Collector, Outcome, Stage};
use kubegc::gc::graph::Identity;
use kubegc::gc::monitors::{MonitorStatus, phase};
use serde_json::json;

const SECRETS_LIST: &str = "/api/v1/secrets";

fn status(collector: &Collector, plural: &str) -> Arc<MonitorStatus> {
    collector.monitors.lock().unwrap()[&(String::new(), plural.to_string())].status.clone()
}

/// Waits (without a fixed sleep) until `check` holds.
async fn until(what: &str, check: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while !check() {
        assert!(tokio::time::Instant::now() < deadline, "never true: {what}");
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
}

/// Applies every pending graph change.
async fn apply_pending(h: &Harness) {
    while h.gc.process_pending_graph_change().await.is_some() {}
}

/// A ReplicationController owner and a Secret dependent (blocking) in `ns1`; the owner deleted
/// with `policy` while the collector monitors ReplicationControllers (listed, applied) and
/// Secrets (whose list is refused).
async fn owner_deleted_while_secrets_cannot_be_listed(policy: &str) -> (Harness, Identity, Identity) {
    let h = Harness::new(Config::default()).await;
    let owner = h.create(&make_id("v1", "ReplicationController", "ns1", "owner", ""), &[]).await;
    let mut dependent = make_id("v1", "Secret", "ns1", "dependent", "");
    let mut manifest = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "dependent"}});
    let mut reference = owner_ref_json(&owner);
    reference["blockOwnerDeletion"] = json!(true);
    manifest["metadata"]["ownerReferences"] = json!([reference]);
    let stored = h.create_raw(&collection_path(&dependent), manifest).await;
    dependent.uid = stored["metadata"]["uid"].as_str().unwrap().into();
    let r = support::delete(&h.server, &object_path(&owner), json!({"propagationPolicy": policy})).await;
    assert_eq!(r.code, 200, "{}", r.body);

    h.inject(|p: &Parts| {
        (p.uri.path() == SECRETS_LIST && !p.uri.query().unwrap_or("").contains("watch")).then(|| ApiError::internal("held back"))
    });
    let collector = h.gc.collector();
    let mapping = |kind| collector.mapper.read().unwrap().mapping("v1", kind).unwrap();
    collector.sync_monitors(vec![mapping("ReplicationController"), mapping("Secret")], |_| false);
    let (owners, secrets) = (status(collector, "replicationcontrollers"), status(collector, "secrets"));
    until("ReplicationControllers are listed and Secrets are refused", || {
        owners.phase.load(Ordering::SeqCst) == phase::SYNCED && secrets.phase.load(Ordering::SeqCst) == phase::FAILING
    })
    .await;
    apply_pending(&h).await;
    assert!(owners.in_graph.load(Ordering::SeqCst), "the ReplicationControllers list is in the graph");
    assert_eq!(
        collector.graph_incomplete(),
        ["the initial list of secrets (last attempt: 500 InternalError: Internal error occurred: held back)"]
    );
    (h, owner, dependent)
}

/// Lets the Secrets list through and applies it: the graph is complete.
async fn let_secrets_be_listed(h: &Harness) {
    h.clear_faults();
    let secrets = status(h.gc.collector(), "secrets");
    until("Secrets are listed", || secrets.phase.load(Ordering::SeqCst) == phase::SYNCED).await;
    apply_pending(h).await;
    assert!(h.gc.collector().graph_incomplete().is_empty(), "{:?}", h.gc.collector().graph_incomplete());
}

/// An owner deleted with Orphan is not orphaned while a list is missing from the graph: its
/// item is held aside (not retried), and goes back on attemptToOrphan once the list is in;
/// then the dependent loses the reference and the owner goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orphaning_waits_for_every_initial_list() {
    let (h, owner, dependent) = owner_deleted_while_secrets_cannot_be_listed("Orphan").await;
    assert_eq!(h.gc.pending_attempt_to_orphan(), [queued(&owner)]);
    let (_, outcome) = h.gc.process_next_attempt_to_orphan().await.expect("queued");
    assert_eq!(outcome, Outcome::Hold);
    assert!(h.gc.pending_attempt_to_orphan().is_empty());
    let held: Vec<Stage> = h.gc.collector().held.items().into_iter().map(|(stage, _)| stage).collect();
    assert_eq!(held, [Stage::AttemptToOrphan]);

    let_secrets_be_listed(&h).await;
    assert!(h.gc.collector().held.items().is_empty(), "released");
    assert_eq!(h.gc.pending_attempt_to_orphan(), [queued(&owner)]);
    let (_, outcome) = h.gc.process_next_attempt_to_orphan().await.expect("queued");
    assert_eq!(outcome, Outcome::Forget);
    let secret = support::get(&h.server, &object_path(&dependent)).await;
    assert_eq!(secret.body["metadata"]["ownerReferences"], json!(null), "orphaned: {}", secret.body);
    assert_eq!(support::get(&h.server, &object_path(&owner)).await.code, 404, "the owner is gone");
}

/// An owner deleted in the foreground keeps its `foregroundDeletion` finalizer while a list is
/// missing from the graph, even though the graph shows no blocking dependent; once the list is
/// in, the blocking dependent is deleted first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreground_deletion_waits_for_every_initial_list() {
    let (h, owner, dependent) = owner_deleted_while_secrets_cannot_be_listed("Foreground").await;
    assert_eq!(h.gc.pending_attempt_to_delete(), [queued(&owner)]);
    let (_, outcome) = h.gc.process_next_attempt_to_delete().await.expect("queued");
    assert_eq!(outcome, Outcome::Hold);
    let stored = support::get(&h.server, &object_path(&owner)).await;
    assert_eq!(stored.body["metadata"]["finalizers"], json!(["foregroundDeletion"]), "{}", stored.body);

    let_secrets_be_listed(&h).await;
    assert!(h.gc.pending_attempt_to_delete().contains(&queued(&owner)), "released");
    while h.gc.process_next_attempt_to_delete().await.is_some() {
        apply_pending(&h).await;
        if support::get(&h.server, &object_path(&dependent)).await.code == 404 {
            break;
        }
    }
    assert_eq!(support::get(&h.server, &object_path(&dependent)).await.code, 404, "the blocking dependent goes first");
}
