//! The upstream Kubernetes garbage-collector integration tests
//! (`test/integration/garbagecollector`) and e2e tests
//! (`test/e2e/apimachinery/garbage_collector.go`), one test each, run against the fake apiserver
//! with the reference collector and named after the upstream test.
//!
//! No controllers run in the fake apiserver. Where an upstream case relies on one (a
//! ReplicationController, Deployment or CronJob creating pods, ReplicaSets or Jobs), the test
//! plays that controller's part: it creates the dependents itself, with the controller
//! reference (`controller: true`, `blockOwnerDeletion: true`) the real controller would set.
//! Pods are never scheduled, so a DELETE removes them at once unless finalizers hold them.
//!
//! Positive outcomes are checked once the collector has settled (and again, until a deadline,
//! while retried work waits out a back-off); negative ones ("still exists") right after
//! settling, never after a fixed sleep. Where upstream sleeps (15 s, 30 s) to show that
//! something stays, settling is the equivalent.

mod gc_e2e_support;
mod support;

use std::time::Duration;

use gc_e2e_support::*;
use kubegc::gc::Config;
use serde_json::{Value, json};

/// `orphanDependents: false`: background propagation (upstream `getNonOrphanOptions`).
fn non_orphan() -> Value {
    json!({"orphanDependents": false})
}

/// `propagationPolicy: Foreground` (upstream `getForegroundOptions`).
fn foreground() -> Value {
    json!({"propagationPolicy": "Foreground"})
}

// ---------------------------------------------------------------------------------------
// Integration tests (test/integration/garbagecollector)
// ---------------------------------------------------------------------------------------

/// Upstream's `toBeDeletedRC` and `remainingRC`: two RCs, `test.rc.1` and `test.rc.2`.
async fn two_rcs(env: &Env, ns: &str) -> (Value, Value) {
    (env.create(RCS, ns, rc("test.rc.1", 0)).await, env.create(RCS, ns, rc("test.rc.2", 0)).await)
}

/// TestCascadingDeletion: deleting RC1 with `orphanDependents=false` (a v1 RC would otherwise
/// orphan) takes RC1 out of the graph and collects pod A, owned by RC1 only. Pod B, also owned
/// by the surviving RC2, stays (losing its dangling reference, as upstream `attemptToDeleteItem`
/// strips it); pod C has no owner and stays.
#[tokio::test]
async fn test_cascading_deletion() {
    let ns = "gc-cascading-deletion";
    let env = Env::start(ns).await;
    let (to_delete, remaining) = two_rcs(&env, ns).await;
    env.create(PODS, ns, owned_by(pod("test.pod.1"), [owner_ref(&to_delete)])).await;
    env.create(PODS, ns, owned_by(pod("test.pod.3"), [owner_ref(&to_delete), owner_ref(&remaining)])).await;
    env.create(PODS, ns, pod("test.pod.2")).await;

    env.delete(RCS, ns, "test.rc.1", non_orphan()).await;
    env.eventually("RC1 leaves the graph and pod A is collected", async || {
        !env.gc().graph_has_uid(uid(&to_delete)) && !env.exists(PODS, ns, "test.pod.1").await
    })
    .await;
    assert!(env.exists(PODS, ns, "test.pod.2").await, "the pod without owners stays");
    let b = env.must_get(PODS, ns, "test.pod.3").await;
    assert_eq!(owner_uids(&b), [uid(&remaining)], "the pod with a solid owner stays, without the dangling reference");
    assert_eq!(env.names(RCS, ns).await, ["test.rc.2"]);
}

/// TestCreateWithNonExistentOwner: a pod referring to an RC that never existed
/// (UID "doesn't matter") is collected: its virtual owner is verified absent.
#[tokio::test]
async fn test_create_with_non_existent_owner() {
    let ns = "gc-non-existing-owner";
    let env = Env::start(ns).await;
    let ghost = raw_ref("v1", "ReplicationController", "test.rc.1", "doesn't matter");
    env.create(PODS, ns, owned_by(pod("test.pod.1"), [ghost])).await;
    env.eventually("the pod is collected", async || !env.exists(PODS, ns, "test.pod.1").await).await;
}

/// One collection of TestStressingCascadingDeletion: the RC's initial finalizers, the
/// DeleteOptions it is deleted with, and whether its pods survive.
struct Collection {
    finalizers: &'static [&'static str],
    options: Value,
    pods_remain: bool,
}

/// The five collections of upstream `TestStressingCascadingDeletion`.
fn stress_collections() -> [Collection; 5] {
    [
        // No finalizers, no options: the v1 RC default policy orphans.
        Collection { finalizers: &[], options: Value::Null, pods_remain: true },
        // Created with the orphan finalizer, no options.
        Collection { finalizers: &["orphan"], options: Value::Null, pods_remain: true },
        // Created with the orphan finalizer, deleted with orphanDependents=false: background.
        Collection { finalizers: &["orphan"], options: non_orphan(), pods_remain: false },
        // No finalizers, orphanDependents=true.
        Collection { finalizers: &[], options: json!({"orphanDependents": true}), pods_remain: true },
        // No finalizers, propagationPolicy=Orphan.
        Collection { finalizers: &[], options: json!({"propagationPolicy": "Orphan"}), pods_remain: true },
    ]
}

/// TestStressingCascadingDeletion, at full size: 10 times five collections of one RC
/// and three pods, every RC deleted concurrently once the collector has observed the pods.
/// No RC remains and none is left in the graph; the 120 pods of collections 1, 2, 4 and 5 are
/// orphaned (collection 1 by the RC v1 default policy), collection 3's pods are collected.
#[tokio::test]
async fn test_stressing_cascading_deletion() {
    const COPIES: usize = 10;
    const PODS_PER_RC: usize = 3;
    let ns = "gc-stressing-cascading-deletion";
    let env = Env::start(ns).await;
    let collections = stress_collections();
    // The RC at index k belongs to collection k % 5.
    let rcs: Vec<Value> = (0..COPIES)
        .flat_map(|i| collections.iter().enumerate().map(move |(c, col)| (c, i, col)))
        .map(|(c, i, col)| with_finalizers(rc(&format!("test.rc.collection{}-{i}", c + 1), 0), col.finalizers))
        .collect();
    let rcs = env.create_all(RCS, ns, rcs).await;
    let pods: Vec<Value> = rcs
        .iter()
        .flat_map(|r| {
            let pod_base = name(r).replace("test.rc.", "test.pod.");
            (0..PODS_PER_RC).map(move |j| owned_by(pod(&format!("{pod_base}-{j}")), [owner_ref(r)]))
        })
        .collect();
    env.create_all(PODS, ns, pods).await;
    // Upstream waits until the graph has the pods of the orphaning collections (the orphan race,
    // #26120).
    env.settle().await;

    let deletes = rcs.iter().enumerate().map(|(k, r)| env.delete(RCS, ns, name(r), collections[k % collections.len()].options.clone()));
    futures::future::join_all(deletes).await;
    let remaining = COPIES * PODS_PER_RC * collections.iter().filter(|c| c.pods_remain).count();
    env.eventually("no RC left and 120 pods remain", async || {
        env.list(RCS, ns).await.is_empty() && env.list(PODS, ns).await.len() == remaining
    })
    .await;
    for p in env.list(PODS, ns).await {
        assert!(!name(&p).contains("collection3-"), "collection 3's pods are collected: {}", name(&p));
        assert!(owner_uids(&p).is_empty(), "orphaned pods lose their reference: {p}");
    }
    for r in &rcs {
        assert!(!env.gc().graph_has_uid(uid(r)), "{} is gone from the graph", name(r));
    }
}

/// TestOrphaning: an RC with three pods the collector has observed, deleted with
/// `orphanDependents=true`: the RC goes, the pods stay with empty ownerReferences.
#[tokio::test]
async fn test_orphaning() {
    let ns = "gc-orphaning";
    let env = Env::start(ns).await;
    let owner = env.create(RCS, ns, rc("test.rc.1", 0)).await;
    let pods = (0..3).map(|i| owned_by(pod(&format!("test.pod.1{i}")), [owner_ref(&owner)])).collect();
    let pods = env.create_all(PODS, ns, pods).await;
    env.settle().await;
    assert!(pods.iter().all(|p| env.gc().graph_has_uid(uid(p))), "the graph has the pods before the owner is deleted");

    env.delete(RCS, ns, "test.rc.1", json!({"orphanDependents": true})).await;
    env.eventually("the RC is deleted", async || env.list(RCS, ns).await.is_empty()).await;
    let left = env.list(PODS, ns).await;
    assert_eq!(left.len(), 3);
    assert!(left.iter().all(|p| owner_uids(p).is_empty()), "orphaned: {left:?}");
}

/// TestSolidOwnerDoesNotBlockWaitingOwner: a pod owned by RC1 (blocking) and RC2; RC1
/// deleted in the foreground is fully deleted, and the pod survives with only RC2's reference.
#[tokio::test]
async fn test_solid_owner_does_not_block_waiting_owner() {
    let ns = "gc-foreground1";
    let env = Env::start(ns).await;
    let (waiting, solid) = two_rcs(&env, ns).await;
    env.create(PODS, ns, owned_by(pod("pod"), [blocking_ref(&waiting, true), owner_ref(&solid)])).await;

    env.delete(RCS, ns, "test.rc.1", foreground()).await;
    env.eventually("RC1 is deleted", async || !env.exists(RCS, ns, "test.rc.1").await).await;
    let p = env.must_get(PODS, ns, "pod").await;
    assert_eq!(owner_uids(&p), [uid(&solid)], "only RC2's reference is left");
}

/// TestNonBlockingOwnerRefDoesNotBlock: pods whose references to the RC do not block
/// (unset, false), each held by the finalizer `x/y`: the RC deleted in the foreground goes
/// although both pods linger, being deleted but stuck on their finalizer.
#[tokio::test]
async fn test_non_blocking_owner_ref_does_not_block() {
    let ns = "gc-foreground2";
    let env = Env::start(ns).await;
    let owner = env.create(RCS, ns, rc("test.rc.1", 0)).await;
    env.create(PODS, ns, with_finalizers(owned_by(pod("pod1"), [owner_ref(&owner)]), &["x/y"])).await;
    env.create(PODS, ns, with_finalizers(owned_by(pod("pod2"), [blocking_ref(&owner, false)]), &["x/y"])).await;

    env.delete(RCS, ns, "test.rc.1", foreground()).await;
    env.eventually("the RC is deleted and its pods are being deleted", async || {
        !env.exists(RCS, ns, "test.rc.1").await && env.list(PODS, ns).await.iter().all(terminating)
    })
    .await;
    assert_eq!(env.names(PODS, ns).await, ["pod1", "pod2"], "both pods are still listed");
}

/// Deletes `name` in the foreground and waits until the collector has stripped
/// `foregroundDeletion` again, leaving only the pod's own finalizer.
async fn delete_foreground_until_only_user_finalizer(env: &Env, ns: &str, name: &str) {
    let deleting = env.delete(PODS, ns, name, foreground()).await;
    assert_eq!(finalizers(&deleting), ["x/y", "foregroundDeletion"], "the DELETE adds foregroundDeletion");
    env.eventually("only x/y is left", async || finalizers(&env.must_get(PODS, ns, name).await) == ["x/y"]).await;
}

/// TestDoubleDeletionWithFinalizer: an ownerless, unscheduled pod held by `x/y` and
/// deleted in the foreground twice: each time the collector removes `foregroundDeletion`
/// (nothing blocks), leaving `x/y`; removing that with a JSON patch deletes the pod.
#[tokio::test]
async fn test_double_deletion_with_finalizer() {
    let ns = "gc-double-foreground";
    let env = Env::start(ns).await;
    env.create(PODS, ns, with_finalizers(pod("lucy"), &["x/y"])).await;
    delete_foreground_until_only_user_finalizer(&env, ns, "lucy").await;
    delete_foreground_until_only_user_finalizer(&env, ns, "lucy").await;
    env.patch(PODS, ns, "lucy", "application/json-patch+json", json!([{"op": "remove", "path": "/metadata/finalizers"}])).await;
    env.eventually("the pod is gone", async || !env.exists(PODS, ns, "lucy").await).await;
}

/// TestBlockingOwnerRefDoesBlock: a pod with a blocking reference to the RC, held by
/// `x/y`, observed by a collector started afterwards: the RC deleted in the foreground stays
/// (with `foregroundDeletion`) and the pod remains (being deleted, held by `x/y`). Upstream
/// sleeps 15 s; settling is the equivalent here.
#[tokio::test]
async fn test_blocking_owner_ref_does_block() {
    let mut env = Env::without_collector(Default::default());
    let ns = "foo";
    env.create_namespace(ns).await;
    let owner = env.create(RCS, ns, rc("test.rc.1", 0)).await;
    env.create(PODS, ns, with_finalizers(owned_by(pod("pod"), [blocking_ref(&owner, true)]), &["x/y"])).await;
    env.start_collector();
    env.settle().await;

    env.delete(RCS, ns, "test.rc.1", foreground()).await;
    env.settle().await;
    let blocked = env.must_get(RCS, ns, "test.rc.1").await;
    assert!(terminating(&blocked) && finalizers(&blocked) == ["foregroundDeletion"], "still waiting for its pod: {blocked}");
    let held = env.list(PODS, ns).await;
    assert_eq!(held.len(), 1, "the pod remains");
    assert!(terminating(&held[0]), "the collector did act: it deleted the pod, which its finalizer holds (A.7)");
}

/// A namespaced custom resource for the CRD tests.
const WIDGETS: Kind = Kind { api_version: "mygroup.example.com/v1beta1", kind: "Widget", plural: "widgets", namespaced: true };

/// Deletes `owner` in the foreground and expects both it and `dependent` to be gone.
async fn foreground_delete_takes(env: &Env, ns: &str, owner: (Kind, &str), dependent: (Kind, &str)) {
    env.delete(owner.0, ns, owner.1, foreground()).await;
    env.eventually(&format!("{} is deleted", owner.1), async || !env.exists(owner.0, ns, owner.1).await).await;
    assert!(!env.exists(dependent.0, ns, dependent.1).await, "{} is deleted with its owner", dependent.1);
}

/// Creates `owner` and `dependent`, a plain reference to the owner on the dependent; returns
/// the owner.
async fn owner_and_dependent(env: &Env, ns: &str, owner: (Kind, &str), dependent: (Kind, &str)) -> Value {
    let stored = env.create(owner.0, ns, owner.0.object(owner.1)).await;
    env.create_owned(dependent.0, ns, dependent.1, [owner_ref(&stored)]).await;
    stored
}

/// A started collector and fake apiserver with namespace `ns` and the CRD of [`WIDGETS`].
async fn widgets_env(ns: &str) -> Env {
    let env = Env::start(ns).await;
    env.install_crd(WIDGETS).await;
    env
}

/// TestCustomResourceCascadingDeletion: a custom-resource owner deleted in the
/// foreground takes its custom-resource dependent with it.
#[tokio::test]
async fn test_custom_resource_cascading_deletion() {
    let ns = "crd-cascading";
    let env = widgets_env(ns).await;
    owner_and_dependent(&env, ns, (WIDGETS, "owner"), (WIDGETS, "dependent")).await;
    foreground_delete_takes(&env, ns, (WIDGETS, "owner"), (WIDGETS, "dependent")).await;
}

/// TestMixedRelationships: a custom resource owning a ConfigMap and a ConfigMap
/// owning a custom resource; each owner deleted in the foreground goes with its dependent.
#[tokio::test]
async fn test_mixed_relationships() {
    let ns = "crd-mixed";
    let env = widgets_env(ns).await;
    owner_and_dependent(&env, ns, (WIDGETS, "custom-owner"), (CONFIGMAPS, "core-dependent")).await;
    owner_and_dependent(&env, ns, (CONFIGMAPS, "core-owner"), (WIDGETS, "custom-dependent")).await;
    foreground_delete_takes(&env, ns, (WIDGETS, "custom-owner"), (CONFIGMAPS, "core-dependent")).await;
    foreground_delete_takes(&env, ns, (CONFIGMAPS, "core-owner"), (WIDGETS, "custom-dependent")).await;
}

/// One pass of TestCRDDeletionCascading: a custom-resource owner of a ConfigMap; deleting the
/// CRD removes the owner (the CRD cleanup finalizer), and then the collector the ConfigMap.
async fn crd_deletion_pass(env: &Env, ns: &str) {
    env.install_crd(WIDGETS).await;
    let owner = owner_and_dependent(env, ns, (WIDGETS, "owner"), (CONFIGMAPS, "dependent")).await;
    env.settle().await;
    assert!(env.observed(uid(&owner)), "the collector has seen the owner through its monitor");

    env.delete(CRDS, "", name(&crd(WIDGETS)), Value::Null).await;
    env.eventually("the CRD, its owner and the ConfigMap are deleted", async || {
        !env.exists(CRDS, "", name(&crd(WIDGETS))).await && !env.exists(CONFIGMAPS, ns, "dependent").await
    })
    .await;
}

/// TestCRDDeletionCascading: deleting a CRD cascades to its custom resources and from
/// them to a core dependent; after the same CRD is created again, a second pass works too (the
/// collector monitors the re-added resource).
#[tokio::test]
async fn test_crd_deletion_cascading() {
    let ns = "crd-mixed";
    let env = Env::start(ns).await;
    crd_deletion_pass(&env, ns).await;
    crd_deletion_pass(&env, ns).await;
}

/// The OwnerRefInvalidNamespace event the collector records for `child` in namespace `ns`,
/// whose reference `v1/Pod invalid` carries the UID of an owner living in another namespace
/// (upstream `reportInvalidNamespaceOwnerRef`).
fn expect_invalid_namespace_event(events: &[Value], ns: &str, child: &str, owner_uid: &str) {
    let message = format!("ownerRef [v1/Pod, namespace: {ns}, name: invalid, uid: {owner_uid}] does not exist in namespace \"{ns}\"");
    let found = events.iter().any(|e| {
        e["involvedObject"]["name"] == child
            && e["involvedObject"]["kind"] == "Secret"
            && e["type"] == "Warning"
            && e["source"]["component"] == "garbage-collector-controller"
            && e["message"] == message.as_str()
    });
    assert!(found, "an OwnerRefInvalidNamespace event for {child} ({message}) among {events:#?}");
}

/// TestCrossNamespaceReferencesWithWatchCache and ...WithoutWatchCache (the fake
/// has no watch cache, so the two variants are the same test here). A ConfigMap "parent" in
/// namespace b with 10 valid Secret children; in namespace a, children whose references carry
/// the parent's UID under other coordinates (`v1/Pod invalid`), created before the collector
/// starts (a controller-manager restart). The children with only that reference are deleted,
/// each with a Warning OwnerRefInvalidNamespace event; the valid children and the parent's
/// node stay; a bad child created once the collector runs is deleted too. (The children that
/// also carry 25 unmappable references are not checked, as upstream does not: an unmappable
/// reference keeps its child forever: upstream retries a `restMappingError` without end.)
#[tokio::test]
async fn test_cross_namespace_references() {
    const WORKERS: usize = 5;
    let (a, b) = ("a", "b");
    let mut env = Env::without_collector(Default::default());
    env.create_namespace(b).await;
    let parent = env.create(CONFIGMAPS, b, CONFIGMAPS.object("parent")).await;
    let mut valid_ref = owner_ref(&parent);
    valid_ref["controller"] = json!(false);
    env.create_all(SECRETS, b, (0..10).map(|i| owned_by(SECRETS.object(&format!("child-{i}")), [valid_ref.clone()])).collect()).await;
    env.create_namespace(a).await;
    let mut bad_ref = raw_ref("v1", "Pod", "invalid", uid(&parent));
    bad_ref["controller"] = json!(false);
    let mut invalid_refs: Vec<Value> =
        (0..25).map(|i| raw_ref("test/v1", &format!("invalid{i}"), "invalid", &format!("invalid-{i}"))).collect();
    invalid_refs.push(bad_ref.clone());
    let single_bad = json!({"single-bad-reference": "true"});
    for i in 0..WORKERS {
        env.create_owned(CONFIGMAPS, a, &format!("invalid-child-{i}"), invalid_refs.clone()).await;
        env.create_owned(SECRETS, a, &format!("invalid-child-a-{i}"), invalid_refs.clone()).await;
        let child = with_labels(SECRETS.object(&format!("invalid-child-b-{i}")), single_bad.clone());
        env.create(SECRETS, a, owned_by(child, [bad_ref.clone()])).await;
    }
    env.start_collector();

    let selector = "labelSelector=single-bad-reference%3Dtrue";
    env.eventually("the invalid children are deleted", async || env.list_with(SECRETS, a, selector).await.is_empty()).await;
    assert_eq!(env.list(SECRETS, b).await.len(), 10, "the valid children stay");
    assert!(env.gc().graph_has_uid(uid(&parent)), "the parent is still in the graph");
    let events = env.list_with(EVENTS, a, "fieldSelector=reason%3DOwnerRefInvalidNamespace").await;
    for i in 0..WORKERS {
        expect_invalid_namespace_event(&events, a, &format!("invalid-child-b-{i}"), uid(&parent));
    }

    env.create_owned(SECRETS, a, "invalid-child-c", [bad_ref]).await;
    env.eventually("the late invalid child is deleted", async || !env.exists(SECRETS, a, "invalid-child-c").await).await;
    let events = env.list_with(EVENTS, a, "fieldSelector=reason%3DOwnerRefInvalidNamespace").await;
    expect_invalid_namespace_event(&events, a, "invalid-child-c", uid(&parent));
}

/// TestCascadingDeleteOnCRDConversionFailure, named `test_cascade_with_a_broken_monitor`:
/// a custom resource is stored at v1beta1, then its CRD makes v1 the storage version and asks
/// for a conversion webhook that does not run (a service that does not exist), so the
/// collector, started afterwards as upstream's is, can neither list nor watch the resource at
/// the version it monitors. With that monitor failing, a simple cascading deletion of core
/// objects still happens once the collector's wait for the initial lists has timed out (here
/// shortened from kube-controller-manager's 30 s), and the broken monitor is still not synced
/// afterwards.
#[tokio::test]
async fn test_cascade_with_a_broken_monitor() {
    let mut env = Env::without_collector(Default::default());
    let ns = "gc-cache-sync-fail";
    env.create_namespace(ns).await;
    let mut definition = crd(WIDGETS);
    let schema = definition["spec"]["versions"][0]["schema"].clone();
    definition["spec"]["versions"] = json!([{"name": "v1beta1", "served": true, "storage": true, "schema": schema},
        {"name": "v1", "served": true, "storage": false, "schema": schema}]);
    env.create(CRDS, "", definition.clone()).await;
    env.create(WIDGETS, ns, WIDGETS.object("test")).await;
    definition["spec"]["versions"][0]["storage"] = json!(false);
    definition["spec"]["versions"][1]["storage"] = json!(true);
    definition["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
        "clientConfig": {"service": {"namespace": "bar", "name": "foo", "path": "/foo"}}}});
    let path = CRDS.path("", name(&definition));
    definition["metadata"]["resourceVersion"] = support::get(&env.server, &path).await.body["metadata"]["resourceVersion"].clone();
    let r = support::put(&env.server, &path, definition.clone()).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let v1 = Kind { api_version: "mygroup.example.com/v1", ..WIDGETS };
    let r = support::get(&env.server, &v1.collection(ns)).await;
    assert_eq!(
        (r.code, r.body["message"].as_str()),
        (
            500,
            Some(
                "conversion webhook for mygroup.example.com/v1beta1, Kind=Widget failed: Post \"https://foo.bar.svc:443/foo?timeout=30s\": service \"foo\" not found"
            )
        )
    );

    env.start_collector_with(Config { initial_sync_timeout: Duration::from_secs(1), ..Config::default() });
    env.blind_to(WIDGETS);
    env.wait_for_monitor(WIDGETS, FAILING).await;
    let owner = env.create(RCS, ns, rc("test.rc.1", 0)).await;
    env.create(PODS, ns, owned_by(pod("test.pod.1"), [owner_ref(&owner)])).await;
    env.delete(RCS, ns, "test.rc.1", non_orphan()).await;
    env.eventually("the RC leaves the graph and its pod is collected", async || {
        !env.gc().graph_has_uid(uid(&owner)) && !env.exists(PODS, ns, "test.pod.1").await
    })
    .await;
    assert_eq!(env.monitor_phase(WIDGETS), Some(FAILING), "the broken monitor is still not synced");
}

/// TestClusterScopedOwners: namespaced ConfigMaps owned by cluster-scoped
/// PersistentVolumes while the collector cannot see PVs (upstream delays PV watch responses by
/// 30 s; the fault-injection hook can only fail requests, so here every PV watch fails after
/// the initial, empty list), so owners must be looked up with live GETs. `cm-missing`, whose PV
/// does not exist, is deleted; `cm-valid`, whose PV exists, stays; `cm-invalid`, whose owner
/// kind is not served, stays.
#[tokio::test]
async fn test_cluster_scoped_owners() {
    let mut env = Env::with_config(failing("PV watch withheld", |p| PVS.is_watch(p)));
    env.blind_to(PVS);
    env.wait_for_monitor(PVS, SYNCED).await;
    let ns = "gc-cluster-scope-deletion";
    env.create_namespace(ns).await;

    let mut pv = PVS.object("pv-valid");
    pv["spec"] = json!({"hostPath": {"path": "/foo"}, "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteMany"]});
    let pv = env.create(PVS, "", pv).await;
    env.create_owned(CONFIGMAPS, ns, "cm-valid", [owner_ref(&pv)]).await;
    let missing = with_labels(CONFIGMAPS.object("cm-missing"), json!({"missing": "true"}));
    env.create(CONFIGMAPS, ns, owned_by(missing, [raw_ref("v1", "PersistentVolume", "missing-name", "missing-uid")])).await;
    let invalid = owned_by(CONFIGMAPS.object("cm-invalid"), [raw_ref("unknown.group/v1", "UnknownType", "invalid-name", "invalid-uid")]);
    env.create(CONFIGMAPS, ns, invalid).await;

    env.eventually("cm-missing is deleted", async || !env.exists(CONFIGMAPS, ns, "cm-missing").await).await;
    assert!(env.exists(CONFIGMAPS, ns, "cm-invalid").await, "a child of an unmappable owner is kept");
    assert!(env.exists(CONFIGMAPS, ns, "cm-valid").await, "a child of an existing PV is kept");
    assert!(!env.observed(uid(&pv)), "the collector never saw the PV through its monitor");
}

// ---------------------------------------------------------------------------------------
// e2e tests (test/e2e/apimachinery/garbage_collector.go, "Garbage collector")
// ---------------------------------------------------------------------------------------

/// The namespace the e2e tests run in (upstream: a fresh `gc-*`).
const GC_NS: &str = "gc";

/// A started collector and fake apiserver with the e2e namespace.
async fn e2e_env() -> Env {
    Env::start(GC_NS).await
}

/// An RC with `replicas` pods, created as the RC controller would; returns the RC once the
/// collector has observed everything (upstream waits for the replicas).
async fn rc_with_pods(env: &Env, name: &str, replicas: u32) -> Value {
    let owner = env.create(RCS, GC_NS, rc(name, replicas)).await;
    env.create_controlled_pods(GC_NS, &owner, replicas as usize).await;
    env.settle().await;
    owner
}

/// Whether the e2e namespace holds no objects of any of `kinds`.
async fn none_left(env: &Env, kinds: &[Kind]) -> bool {
    for kind in kinds {
        if !env.list(*kind, GC_NS).await.is_empty() {
            return false;
        }
    }
    true
}

/// "should delete pods created by rc when not orphaning" (Conformance): an RC with 2
/// pods deleted with Background and a UID precondition leaves no RC and no pod.
#[tokio::test]
async fn e2e_should_delete_pods_created_by_rc_when_not_orphaning() {
    let env = e2e_env().await;
    let owner = rc_with_pods(&env, "simpletest.rc", 2).await;
    env.delete(RCS, GC_NS, "simpletest.rc", policy_with_uid("Background", &owner)).await;
    env.eventually("no RC and no pod left", async || none_left(&env, &[RCS, PODS]).await).await;
}

/// Deletes the RC with `options` and expects all its `replicas` pods to stay.
async fn rc_deletion_orphans_pods(options: impl Fn(&Value) -> Value, replicas: u32) {
    let env = e2e_env().await;
    let owner = rc_with_pods(&env, "simpletest.rc", replicas).await;
    env.delete(RCS, GC_NS, "simpletest.rc", options(&owner)).await;
    env.eventually("the RC is deleted", async || env.list(RCS, GC_NS).await.is_empty()).await;
    assert_eq!(env.list(PODS, GC_NS).await.len(), replicas as usize, "every pod stays");
}

/// "should orphan pods created by rc if delete options say so" (Conformance): an RC
/// with 10 pods (the lower bound of upstream's 10-100) deleted with Orphan and a UID
/// precondition is deleted, and every pod stays.
#[tokio::test]
async fn e2e_should_orphan_pods_created_by_rc_if_delete_options_say_so() {
    rc_deletion_orphans_pods(|owner| policy_with_uid("Orphan", owner), 10).await;
}

/// "should orphan pods created by rc if deleteOptions.OrphanDependents is nil": an RC
/// with 2 pods deleted with only a UID precondition: the v1 RC default policy orphans, so every
/// pod stays.
#[tokio::test]
async fn e2e_should_orphan_pods_created_by_rc_if_delete_options_orphan_dependents_is_nil() {
    rc_deletion_orphans_pods(|owner| json!({"preconditions": {"uid": uid(owner)}}), 2).await;
}

/// A Deployment with a ReplicaSet and its 2 pods, created as the Deployment and ReplicaSet
/// controllers would; returned once the collector has observed everything.
async fn deployment_with_replica_set(env: &Env) -> Value {
    let deployment = env.create(DEPLOYMENTS, GC_NS, apps_workload(DEPLOYMENTS, "simpletest.deployment", 2)).await;
    let rs = env.create_controlled(REPLICASETS, GC_NS, &deployment, apps_workload(REPLICASETS, "simpletest.deployment-5d4f8c", 2)).await;
    env.create_controlled_pods(GC_NS, &rs, 2).await;
    env.settle().await;
    deployment
}

/// "should delete RS created by deployment when not orphaning" (Conformance): the
/// Deployment deleted with Background and a UID precondition leaves no Deployment, ReplicaSet
/// or pod.
#[tokio::test]
async fn e2e_should_delete_rs_created_by_deployment_when_not_orphaning() {
    let env = e2e_env().await;
    let deployment = deployment_with_replica_set(&env).await;
    env.delete(DEPLOYMENTS, GC_NS, "simpletest.deployment", policy_with_uid("Background", &deployment)).await;
    env.eventually("nothing left", async || none_left(&env, &[DEPLOYMENTS, REPLICASETS, PODS]).await).await;
}

/// "should orphan RS created by deployment when deleteOptions.PropagationPolicy is Orphan"
/// (Conformance): the Deployment goes; one ReplicaSet, without a controller reference,
/// and its 2 pods remain.
#[tokio::test]
async fn e2e_should_orphan_rs_created_by_deployment_when_propagation_policy_is_orphan() {
    let env = e2e_env().await;
    let deployment = deployment_with_replica_set(&env).await;
    env.delete(DEPLOYMENTS, GC_NS, "simpletest.deployment", policy_with_uid("Orphan", &deployment)).await;
    env.eventually("the Deployment is deleted", async || env.list(DEPLOYMENTS, GC_NS).await.is_empty()).await;
    let sets = env.list(REPLICASETS, GC_NS).await;
    assert_eq!(sets.len(), 1);
    assert!(owner_uids(&sets[0]).is_empty(), "the ReplicaSet has no controller reference: {}", sets[0]);
    assert_eq!(env.list(PODS, GC_NS).await.len(), 2);
}

/// "should keep the rc around until all its pods are deleted if the deleteOptions says so"
/// (Conformance): an RC with 10 pods deleted with Foreground and a UID precondition;
/// watched without settling, at the first moment the RC is gone no pod is left.
#[tokio::test]
async fn e2e_should_keep_the_rc_around_until_all_its_pods_are_deleted() {
    let env = e2e_env().await;
    let owner = rc_with_pods(&env, "simpletest.rc", 10).await;
    env.delete(RCS, GC_NS, "simpletest.rc", policy_with_uid("Foreground", &owner)).await;
    env.first_moment("the RC is gone", async || !env.exists(RCS, GC_NS, "simpletest.rc").await).await;
    assert_eq!(env.list(PODS, GC_NS).await, Vec::<Value>::new(), "no pod outlives the RC");
}

/// "should not delete dependents that have both valid owner and owner that's waiting for
/// dependents to be deleted" (Conformance): RC1 with 10 pods, half of which get an
/// extra (non-blocking) reference to RC2 by strategic merge patch; RC1 deleted in the
/// foreground goes, and exactly those 5 pods remain, not being deleted, each with one
/// reference (RC1's removed).
#[tokio::test]
async fn e2e_should_not_delete_dependents_that_have_both_valid_owner_and_owner_waiting() {
    const REPLICAS: u32 = 10;
    let env = e2e_env().await;
    let rc1 = env.create(RCS, GC_NS, rc("simpletest-rc-to-be-deleted", REPLICAS)).await;
    let rc2 = env.create(RCS, GC_NS, rc("simpletest-rc-to-stay", 0)).await;
    let pods = env.create_controlled_pods(GC_NS, &rc1, REPLICAS as usize).await;
    let add_rc2 = json!({"metadata": {"ownerReferences": [owner_ref(&rc2)]}});
    for p in &pods[..pods.len() / 2] {
        env.patch(PODS, GC_NS, name(p), "application/strategic-merge-patch+json", add_rc2.clone()).await;
    }
    env.settle().await;

    env.delete(RCS, GC_NS, name(&rc1), policy_with_uid("Foreground", &rc1)).await;
    env.eventually("RC1 is deleted", async || !env.exists(RCS, GC_NS, name(&rc1)).await).await;
    let left = env.list(PODS, GC_NS).await;
    assert_eq!(left.len(), pods.len() / 2);
    for p in &left {
        assert!(!terminating(p), "not being deleted: {p}");
        assert_eq!(owner_uids(p), [uid(&rc2)], "only RC2's reference is left: {p}");
    }
}

/// "should not be blocked by dependency circle" (Conformance): pods patched so that
/// pod1 → pod3, pod2 → pod1, pod3 → pod2 (controller and blockOwnerDeletion true); deleting
/// pod1 in the foreground with a UID precondition deletes all three.
#[tokio::test]
async fn e2e_should_not_be_blocked_by_dependency_circle() {
    let env = e2e_env().await;
    let pods = env.create_all(PODS, GC_NS, ["pod1", "pod2", "pod3"].map(pod).to_vec()).await;
    for (dependent, owner) in [(0, 2), (1, 0), (2, 1)] {
        let add_owner = json!({"metadata": {"ownerReferences": [controller_ref(&pods[owner])]}});
        env.patch(PODS, GC_NS, name(&pods[dependent]), "application/strategic-merge-patch+json", add_owner).await;
    }
    env.delete(PODS, GC_NS, "pod1", policy_with_uid("Foreground", &pods[0])).await;
    env.eventually("every pod is deleted", async || none_left(&env, &[PODS]).await).await;
}

/// A cluster-scoped custom resource for the e2e CRD tests.
const GADGETS: Kind = Kind { api_version: "mygroup.example.com/v1beta1", kind: "Gadget", plural: "gadgets", namespaced: false };

/// A cluster-scoped CRD with an owner and a dependent custom resource.
async fn gadget_owner_and_dependent(env: &Env) -> Value {
    env.install_crd(GADGETS).await;
    owner_and_dependent(env, "", (GADGETS, "owner"), (GADGETS, "dependent")).await
}

/// "should support cascading deletion of custom resources": a cluster-scoped owner
/// deleted with Background; a canary deleted in the foreground signals the collector knows the
/// type (upstream's canary poll GETs the dependent's name by mistake; this one waits for the
/// canary). The dependent is deleted and the owner is gone.
#[tokio::test]
async fn e2e_should_support_cascading_deletion_of_custom_resources() {
    let env = e2e_env().await;
    gadget_owner_and_dependent(&env).await;
    env.delete(GADGETS, "", "owner", json!({"propagationPolicy": "Background"})).await;
    env.create(GADGETS, "", GADGETS.object("canary")).await;
    env.delete(GADGETS, "", "canary", foreground()).await;
    env.eventually("the canary's foreground deletion completes", async || !env.exists(GADGETS, "", "canary").await).await;
    env.eventually("the dependent is deleted", async || !env.exists(GADGETS, "", "dependent").await).await;
    assert!(!env.exists(GADGETS, "", "owner").await, "the owner is gone");
}

/// "should support orphan deletion of custom resources": a cluster-scoped owner deleted with
/// Orphan is gone, and its dependent stays (upstream `orphanDependents` strips its reference,
/// through the JSON merge patch fallback custom resources need).
#[tokio::test]
async fn e2e_should_support_orphan_deletion_of_custom_resources() {
    let env = e2e_env().await;
    gadget_owner_and_dependent(&env).await;
    env.settle().await;
    env.delete(GADGETS, "", "owner", json!({"propagationPolicy": "Orphan"})).await;
    env.eventually("the owner is deleted", async || !env.exists(GADGETS, "", "owner").await).await;
    let dependent = env.must_get(GADGETS, "", "dependent").await;
    assert!(owner_uids(&dependent).is_empty(), "orphaned: {dependent}");
}

/// "should delete jobs and pods created by cronjob": a CronJob with a Job and its pod
/// (created as the CronJob and Job controllers would) deleted with Background leaves no
/// CronJob, Job or pod.
#[tokio::test]
async fn e2e_should_delete_jobs_and_pods_created_by_cronjob() {
    let env = e2e_env().await;
    let cron = env.create(CRONJOBS, GC_NS, cron_job("simple", "*/1 * * * ?")).await;
    let job = env.create_controlled(JOBS, GC_NS, &cron, job("simple-28000000")).await;
    env.create_controlled_pods(GC_NS, &job, 1).await;
    env.delete(CRONJOBS, GC_NS, "simple", json!({"propagationPolicy": "Background"})).await;
    env.eventually("no CronJob, Job or pod left", async || none_left(&env, &[CRONJOBS, JOBS, PODS]).await).await;
}
