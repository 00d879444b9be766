//! The collector's start and restart: it acts only on a graph built from complete initial lists
//! (upstream waits for its monitors' caches to sync before it starts its workers), and it waits
//! out an API server that is not ready yet instead of giving up.

mod gc_e2e_support;
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use gc_e2e_support::*;
use kubegc::apiserver::Config as ServerConfig;
use kubegc::apiserver::faults::RefuseFirst;
use kubegc::apiserver::status::ApiError;
use serde_json::json;

/// The dependents of the deleted owner, by kind, and how many of each.
const DEPENDENTS: [(Kind, usize); 3] = [(CONFIGMAPS, 8), (SECRETS, 8), (PODS, 8)];

/// Kubernetes issue 88097's class of race, opened wide: an owner is deleted with
/// `propagationPolicy: Orphan` while no collector runs; then a collector starts, and while it
/// lists everything else its list of ConfigMaps is refused. A collector that orphans before it
/// has listed every resource sees only some of the dependents, removes the owner's `orphan`
/// finalizer, and the ConfigMaps, still pointing at an owner that is gone, are collected with
/// everything below them. Every dependent must survive with the reference removed, and while
/// the list is refused the settled check must say what the collector waits for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_orphan_deletion_just_before_a_start_orphans_every_dependent() {
    let hold = Arc::new(AtomicBool::new(true));
    let held = hold.clone();
    let mut env = Env::without_collector(failing("ConfigMaps list held back", move |p| {
        held.load(Ordering::SeqCst) && CONFIGMAPS.is_list_or_watch(p) && !CONFIGMAPS.is_watch(p)
    }));
    let ns = "gc-orphan-at-start";
    env.create_namespace(ns).await;
    let owner = env.create(RCS, ns, rc("owner", 0)).await;
    for (kind, count) in DEPENDENTS {
        for i in 0..count {
            let name = format!("dependent-{i}");
            let object = if kind == PODS { pod(&name) } else { kind.object(&name) };
            let dependent = env.create(kind, ns, owned_by(object, [owner_ref(&owner)])).await;
            if kind == CONFIGMAPS {
                env.create_owned(SECRETS, ns, &format!("grandchild-{i}"), [owner_ref(&dependent)]).await;
            }
        }
    }
    env.delete(RCS, ns, "owner", json!({"propagationPolicy": "Orphan"})).await;

    env.start_collector();
    let waits_for_configmaps = || {
        let state = env.gc().settled_with(|group, resource| env.server.resource_revision(group, resource));
        let named = state.pending.iter().any(|p| p.contains("initial list of configmaps"));
        (!state.settled && named).then_some(state.pending)
    };
    env.first_moment("the collector waits for the ConfigMaps list, or orphans without it", async || {
        waits_for_configmaps().is_some() || !env.exists(RCS, ns, "owner").await
    })
    .await;
    let said = waits_for_configmaps();
    hold.store(false, Ordering::SeqCst);

    env.eventually("the owner is gone", async || !env.exists(RCS, ns, "owner").await).await;
    let mut lost = Vec::new();
    for (kind, count) in DEPENDENTS {
        for i in 0..count {
            match env.get(kind, ns, &format!("dependent-{i}")).await {
                None => lost.push(format!("{} dependent-{i} deleted", kind.kind)),
                Some(d) if !owner_uids(&d).is_empty() => lost.push(format!("{} dependent-{i} still has {:?}", kind.kind, owner_uids(&d))),
                Some(_) => {}
            }
        }
    }
    for i in 0..DEPENDENTS[0].1 {
        if !env.exists(SECRETS, ns, &format!("grandchild-{i}")).await {
            lost.push(format!("Secret grandchild-{i} deleted"));
        }
    }
    assert!(lost.is_empty(), "the Orphan deletion did not orphan every dependent: {lost:?}");
    assert!(said.is_some(), "while the ConfigMaps list was refused, the settled check named neither it nor the waiting work");
}

/// A collector started against an API server whose first answers to every request are `500`
/// and `429` (discovery, every resource's list) waits them out with back-off, and collects as
/// soon as the answers come: a dependent whose owner is gone goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_start_against_an_api_server_answering_5xx_first() {
    let faults = RefuseFirst::new([ApiError::internal("injected: starting up"), ApiError::too_many_requests("injected: overloaded")]);
    let config = ServerConfig { interceptor: Some(faults.interceptor()), ..ServerConfig::default() };
    let mut env = Env::without_collector(config);
    let ns = "gc-start-on-5xx";
    env.create_namespace(ns).await;
    let owner = env.create(CONFIGMAPS, ns, CONFIGMAPS.object("owner")).await;
    env.create_owned(CONFIGMAPS, ns, "child", [owner_ref(&owner)]).await;
    env.delete(CONFIGMAPS, ns, "owner", json!({"propagationPolicy": "Background"})).await;

    faults.arm(true);
    env.start_collector();
    // Settling needs no request; the check's own requests must not meet the faults.
    env.eventually("the child of the deleted owner is collected", async || {
        faults.arm(false);
        !env.exists(CONFIGMAPS, ns, "child").await
    })
    .await;
    let refused = faults.all_refused();
    assert!(faults.refused("/apis") >= 2, "discovery was refused first: {refused:?}");
    assert!(faults.refused("/api/v1/configmaps") >= 2, "the ConfigMaps list was refused first: {refused:?}");
}
