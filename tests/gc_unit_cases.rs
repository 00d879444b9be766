//! Upstream's garbage-collector unit tests that need an API server (of `garbagecollector_test.go`,
//! `graph_builder_test.go` and `graph_builder_leak_test.go`), against the fake apiserver with the
//! collector stepped by hand.
//! The pure cases live beside the code: `TestProcessEvent` in `gc::graph_builder`,
//! `TestDeleteOwnerRefPatch` and `TestUnblockOwnerReference` in `gc::patch`,
//! `TestGetDeletableResources/no error` in `gc::rest_mapper`, `TestGetAlternateOwnerIdentity` in
//! `gc::graph`.

mod gc_support;
mod support;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use gc_support::*;
use http::Method;
use http::request::Parts;
use kube::api::ApiResource;
use kubegc::apiserver::status::{ApiError, QualifiedResource};
use kubegc::gc::collector::{AttemptError, Collector};
use kubegc::gc::graph::Node;
use kubegc::gc::monitors::{MonitorStatus, phase};
use kubegc::gc::rest_mapper::{DiscoveryError, Mapping, RestMapper, discover};
use kubegc::gc::{Config, GarbageCollector};
use serde_json::{Value, json};

/// The monitored resources, as `plural.group`.
fn monitored(collector: &Collector) -> BTreeSet<String> {
    collector.monitors.lock().unwrap().keys().map(|(group, plural)| format!("{plural}.{group}")).collect()
}

/// The status of the monitor of `plural.group`, kept alive only by the monitor and the caller.
fn monitor_status(collector: &Collector, group: &str, plural: &str) -> Arc<MonitorStatus> {
    collector.monitors.lock().unwrap()[&(group.to_string(), plural.to_string())].status.clone()
}

/// Whether a monitor's task is gone: only the caller still holds its status.
fn stopped(status: &Arc<MonitorStatus>) -> bool {
    Arc::strong_count(status) == 1
}

fn mapping(collector: &Collector, api_version: &str, kind: &str) -> Mapping {
    collector.mapper.read().unwrap().mapping(api_version, kind).expect("served")
}

/// A fault answering `method path` with `error`.
fn fail(method: Method, path: &'static str, error: ApiError) -> impl Fn(&Parts) -> Option<ApiError> + Send + Sync + 'static {
    move |p: &Parts| (p.method == method && p.uri.path() == path).then(|| error.clone())
}

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

fn widgets_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    })
}

async fn serve_widgets(h: &Harness) {
    h.create_raw(CRDS, widgets_crd()).await;
}

/// Deletes the widgets CRD and lets the fake apiserver's CRD finalizer remove it.
async fn stop_serving_widgets(h: &Harness) {
    let r = support::delete(&h.server, &format!("{CRDS}/widgets.example.com"), Value::Null).await;
    assert_eq!(r.code, 200, "{}", r.body);
    h.server.run_controllers();
    assert_eq!(support::get(&h.server, &format!("{CRDS}/widgets.example.com")).await.code, 404);
}

/// Upstream `TestAttemptToDeleteItem`: a virtual node for a pod whose owner is gone is verified
/// and deleted.
#[tokio::test]
async fn test_attempt_to_delete_item() {
    let h = Harness::new(Config::default()).await;
    let owner1 = make_id("v1", "ReplicationController", "ns1", "owner1", "123");
    // Upstream's pod is named ToBeDeletedPod; object names are lower case here.
    let pod = h.create(&make_id("v1", "Pod", "ns1", "tobedeletedpod", ""), &[&owner1]).await;
    // Owners are left empty: the attempt must read them from the server.
    let item = Node::virtual_owner(pod.clone());
    h.gc.collector().attempt_to_delete_item(&item).await.expect("deleted");
    let calls: BTreeSet<String> = h.take_calls().into_iter().collect();
    assert_eq!(calls, BTreeSet::from([get_call(&owner1), delete_call(&pod), get_call(&pod)]));
    assert!(h.gc.collector().lock_builder().graph.is_empty(), "an attempt does not add the item to the graph");
}

/// Upstream `TestAbsentOwnerCache`: owners verified absent are cached by full coordinates in an
/// LRU (here of 2).
#[tokio::test]
async fn test_absent_owner_cache() {
    let h = Harness::new(Config { absent_cache_capacity: 2, ..Config::default() }).await;
    let rc = |n: &str, uid: &str| make_id("v1", "ReplicationController", "ns1", n, uid);
    let (rc1, rc2, rc3) = (rc("rc1", "1"), rc("rc2", "2"), rc("rc3", "3"));
    let mut pods = Vec::new();
    for (name, owner) in [("rc1pod1", &rc1), ("rc2pod1", &rc2), ("rc1pod2", &rc1), ("rc3pod1", &rc3)] {
        pods.push(h.create(&make_id("v1", "Pod", "ns1", name, ""), &[owner]).await);
    }
    h.take_calls();
    for pod in &pods {
        // Upstream `podToGCNode`: an observed node without owners.
        let item = Node { virtual_node: false, ..Node::virtual_owner(pod.clone()) };
        h.gc.collector().attempt_to_delete_item(&item).await.expect("deleted");
    }
    // rc1 was cached by the first pod, promoted by the third, so rc2 is evicted by rc3.
    let cached = h.gc.collector().lock_builder().absent_owners.entries();
    assert_eq!(cached, [rc3, rc1.clone()], "most recently used first");
    let rc1_gets = h.take_calls().iter().filter(|c| **c == get_call(&rc1)).count();
    assert_eq!(rc1_gets, 1, "the second pod of rc1 is decided from the cache");
}

/// Upstream `TestOrphanDependentsFailure`: a failed orphaning patch fails the pass with the
/// server's conflict.
#[tokio::test]
async fn test_orphan_dependents_failure() {
    let h = Harness::new(Config::default()).await;
    h.inject(fail(
        Method::PATCH,
        "/api/v1/namespaces/ns1/pods/pod",
        ApiError::conflict_modified(QualifiedResource { group: "", resource: "pods" }, "pod"),
    ));
    let dependent = make_id("v1", "Pod", "ns1", "pod", "");
    let err = h.gc.collector().orphan_dependents(&"owner-uid".into(), &[dependent]).await.expect_err("the patch conflicts");
    match err {
        AttemptError::Api(kube::Error::Api(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (409, "Conflict"), "{status:?}");
        }
        other => panic!("expected the server's conflict, got {other:?}"),
    }
}

/// The deletable resources a discovery pass finds, as `group/version/plural`.
fn deletable(lists: &[kubegc::gc::rest_mapper::GroupVersionResources]) -> BTreeSet<String> {
    RestMapper::from_lists(lists).deletable().iter().map(|m| format!("{}/{}", m.resource.api_version, m.resource.plural)).collect()
}

/// Upstream `TestGetDeletableResources/no error` against the fake apiserver: every built-in kind
/// with delete, list and watch is deletable, subresources are not kinds, and nothing failed.
#[tokio::test]
async fn test_get_deletable_resources_no_error_against_the_fake_apiserver() {
    let h = Harness::new(Config::default()).await;
    let found = discover(&h.server.client()).await;
    assert!(found.error.is_none(), "{:?}", found.error);
    let deletable = deletable(&found.lists);
    for r in ["v1/pods", "v1/nodes", "apps/v1/deployments", "rbac.authorization.k8s.io/v1/roles"] {
        assert!(deletable.contains(r), "{r} in {deletable:?}");
    }
    assert!(!deletable.iter().any(|r| r.ends_with("/status")), "{deletable:?}");
}

/// Upstream `TestGetDeletableResources/nonspecific failure, includes usable results`: a failing
/// group version leaves the others usable; the error passes through. (Upstream distinguishes a
/// "nonspecific" error from a group-discovery error; discovery here reads each group version on
/// its own, so an internal error on one is a group failure.)
#[tokio::test]
async fn test_get_deletable_resources_nonspecific_failure_includes_usable_results() {
    let h = Harness::new(Config::default()).await;
    h.inject(fail(Method::GET, "/api/v1", ApiError::internal("internal error")));
    let found = discover(&h.server.client()).await;
    let deletable = deletable(&found.lists);
    assert!(deletable.contains("apps/v1/deployments") && !deletable.contains("v1/pods"), "{deletable:?}");
    let failed = found.error.as_ref().and_then(DiscoveryError::failed_group_versions).expect("a partial failure");
    assert_eq!(failed.keys().collect::<Vec<_>>(), ["v1"]);
    assert!(failed["v1"].contains("internal error"), "{failed:?}");
}

/// Upstream `TestGetDeletableResources/partial discovery failure, includes usable results`: a
/// group version whose discovery fails is reported with the usable results.
#[tokio::test]
async fn test_get_deletable_resources_partial_discovery_failure_includes_usable_results() {
    let h = Harness::new(Config::default()).await;
    h.inject(fail(Method::GET, "/apis/apps/v1", ApiError::internal("discovery failure")));
    let found = discover(&h.server.client()).await;
    let deletable = deletable(&found.lists);
    assert!(deletable.contains("v1/pods") && !deletable.contains("apps/v1/deployments"), "{deletable:?}");
    let error = found.error.expect("a partial failure");
    assert_eq!(error.failed_group_versions().map(|f| f.keys().cloned().collect::<Vec<_>>()), Some(vec!["apps/v1".to_string()]));
    assert!(error.to_string().starts_with("unable to retrieve the complete list of server APIs: apps/v1: "), "{error}");
}

/// A group version that answers 404 (its definition deleted between the list of groups and the
/// read) serves nothing: it is neither usable nor failed, so the graph does not wait for it.
#[tokio::test]
async fn a_group_version_gone_during_discovery_is_not_a_failure() {
    let h = Harness::new(Config::default()).await;
    h.inject(fail(Method::GET, "/apis/apps/v1", ApiError::not_found_path()));
    let found = discover(&h.server.client()).await;
    assert!(found.error.is_none(), "{:?}", found.error);
    let deletable = deletable(&found.lists);
    assert!(deletable.contains("v1/pods") && !deletable.contains("apps/v1/deployments"), "{deletable:?}");
}

/// Upstream `TestGetDeletableResources/discovery failure, no results`: when the groups cannot be
/// listed, nothing is deletable and the error is returned.
#[tokio::test]
async fn test_get_deletable_resources_discovery_failure_no_results() {
    let h = Harness::new(Config::default()).await;
    h.inject(fail(Method::GET, "/apis", ApiError::internal("internal error")));
    let found = discover(&h.server.client()).await;
    assert!(found.lists.is_empty());
    assert!(matches!(found.error, Some(DiscoveryError::Groups(_))), "{:?}", found.error);
}

/// Upstream `TestGarbageCollectorConstruction`: syncing monitors starts and stops them; a
/// resource nobody serves still gets a monitor (it keeps failing to list). Upstream repeats the
/// checks after `Run`; a manual collector has no `Run`, and a started one resyncs on its own, so
/// only the first half is here.
#[tokio::test]
async fn test_garbage_collector_construction() {
    let h = Harness::new(Config::default()).await;
    let collector = h.gc.collector();
    assert!(monitored(collector).is_empty());
    let pods = mapping(collector, "v1", "Pod");
    let unknown = Mapping {
        resource: ApiResource {
            group: "tpr.io".into(),
            version: "v1".into(),
            api_version: "tpr.io/v1".into(),
            kind: "Unknown".into(),
            plural: "unknown".into(),
        },
        namespaced: true,
    };
    collector.sync_monitors(vec![pods.clone(), unknown], |_| false);
    assert_eq!(monitored(collector), BTreeSet::from(["pods.".to_string(), "unknown.tpr.io".to_string()]));
    collector.sync_monitors(vec![pods], |_| false);
    assert_eq!(monitored(collector), BTreeSet::from(["pods.".to_string()]));
}

/// Upstream `TestGarbageCollectorSync`, in discovery rounds stepped by hand (so "Sync never
/// blocks" is not in question): a failed discovery changes no monitor and counts a sync error; a
/// resource whose list fails gets a monitor that keeps the collector unsynced until the list
/// succeeds; a partial failure keeps the synced monitors of the failed group and still adds new
/// resources. Upstream swaps deployments for secrets in its fake discovery; here a custom
/// resource comes and goes.
#[tokio::test]
async fn test_garbage_collector_sync() {
    let h = Harness::new(Config::default()).await;
    let collector = h.gc.collector();
    let widgets_list = || fail(Method::GET, "/apis/example.com/v1/widgets", ApiError::not_found_path());

    h.gc.resync_monitors().await.expect("initial discovery");
    let initial = monitored(collector);
    assert!(initial.contains("pods.") && initial.contains("deployments.apps") && !initial.contains("events."), "{initial:?}");
    eventually("the initial monitors have synced", || collector.monitors_synced()).await;

    // Discovery fails: no monitor changes, a sync error is counted.
    h.inject(fail(Method::GET, "/apis", ApiError::internal("error calling discovery")));
    assert!(matches!(h.gc.resync_monitors().await, Err(DiscoveryError::Groups(_))));
    assert_eq!(monitored(collector), initial);
    assert_eq!(collector.metrics.resource_sync_errors.get(), 1);
    h.clear_faults();
    h.gc.resync_monitors().await.expect("recovered");
    assert_eq!(monitored(collector), initial);

    // A resource that cannot be listed: monitored, never synced.
    h.inject(widgets_list());
    serve_widgets(&h).await;
    h.gc.resync_monitors().await.expect("discovery");
    let with_widgets: BTreeSet<String> = initial.iter().cloned().chain(["widgets.example.com".to_string()]).collect();
    assert_eq!(monitored(collector), with_widgets);
    let widgets = monitor_status(collector, "example.com", "widgets");
    eventually("the widgets monitor fails to list", || widgets.phase.load(Ordering::SeqCst) == phase::FAILING).await;
    assert!(!collector.monitors_synced());

    // Back to normal: the unsyncable monitor goes.
    stop_serving_widgets(&h).await;
    h.gc.resync_monitors().await.expect("discovery");
    assert_eq!(monitored(collector), initial);

    // Partial failure of apps/v1 while widgets are served again: the synced apps monitors stay.
    h.inject(fail(Method::GET, "/apis/apps/v1", ApiError::internal(":-/")));
    serve_widgets(&h).await;
    h.gc.resync_monitors().await.expect("a partial failure still resyncs");
    assert_eq!(monitored(collector), with_widgets);
    assert!(mapping(collector, "apps/v1", "Deployment").namespaced, "mappings of the failed group are kept");

    // Back to normal: the unsyncable monitor goes again.
    h.clear_faults();
    h.inject(widgets_list());
    stop_serving_widgets(&h).await;
    h.gc.resync_monitors().await.expect("discovery");
    assert_eq!(monitored(collector), initial);

    // Not synced while widgets cannot be listed; synced once they can.
    serve_widgets(&h).await;
    h.gc.resync_monitors().await.expect("discovery");
    assert_eq!(monitored(collector), with_widgets);
    let widgets = monitor_status(collector, "example.com", "widgets");
    eventually("the widgets monitor fails to list", || widgets.phase.load(Ordering::SeqCst) == phase::FAILING).await;
    assert!(!collector.monitors_synced());
    h.clear_faults();
    eventually("every monitor has synced", || collector.monitors_synced()).await;
}

/// Upstream `TestGraphBuilderLeak/run`: a started collector, once dropped, leaves no task
/// behind: its monitors stop and nothing holds its state any more.
#[tokio::test]
async fn test_graph_builder_leak_run() {
    let server = kubegc::apiserver::ApiServer::new();
    let gc = GarbageCollector::start(server.client(), Config { workers: 1, ..Config::default() });
    eventually("the monitors have synced", || gc.collector().monitors_synced()).await;
    let pods = monitor_status(gc.collector(), "", "pods");
    let state = Arc::downgrade(gc.collector());
    drop(gc);
    eventually("the pods monitor has stopped", || stopped(&pods)).await;
    eventually("the collector's state is freed", || state.upgrade().is_none()).await;
}

/// Upstream `TestGraphBuilderLeak/shutdown`: a collector that never ran, dropped, stops the
/// monitors it had started.
#[tokio::test]
async fn test_graph_builder_leak_shutdown() {
    let h = Harness::new(Config::default()).await;
    h.gc.resync_monitors().await.expect("discovery");
    let pods = monitor_status(h.gc.collector(), "", "pods");
    let state = Arc::downgrade(h.gc.collector());
    drop(h);
    eventually("the pods monitor has stopped", || stopped(&pods)).await;
    eventually("the collector's state is freed", || state.upgrade().is_none()).await;
}

/// Upstream `TestGraphBuilder_SyncMonitorsLeak`: a monitor dropped by a sync stops; the others
/// keep running.
#[tokio::test]
async fn test_graph_builder_sync_monitors_leak() {
    let h = Harness::new(Config::default()).await;
    let collector = h.gc.collector();
    let (pods, configmaps) = (mapping(collector, "v1", "Pod"), mapping(collector, "v1", "ConfigMap"));
    collector.sync_monitors(vec![pods.clone()], |_| false);
    collector.sync_monitors(vec![pods.clone(), configmaps], |_| false);
    let pods_status = monitor_status(collector, "", "pods");
    let configmaps_status = monitor_status(collector, "", "configmaps");
    collector.sync_monitors(vec![pods], |_| false);
    eventually("the configmaps monitor has stopped", || stopped(&configmaps_status)).await;
    assert!(!stopped(&pods_status), "the pods monitor still runs");
}

/// Upstream `TestSyncMonitorsRemovesEventHandlerOnResourceRemoval` (#114066): a resource added
/// and removed three times leaves no monitor running.
#[tokio::test]
async fn test_sync_monitors_removes_event_handler_on_resource_removal() {
    let h = Harness::new(Config::default()).await;
    let collector = h.gc.collector();
    let mut statuses = Vec::new();
    for _ in 0..3 {
        serve_widgets(&h).await;
        h.gc.resync_monitors().await.expect("discovery");
        statuses.push(monitor_status(collector, "example.com", "widgets"));
        stop_serving_widgets(&h).await;
        h.gc.resync_monitors().await.expect("discovery");
        assert!(!monitored(collector).contains("widgets.example.com"));
    }
    eventually("every widgets monitor has stopped", || statuses.iter().all(stopped)).await;
}

/// Upstream `TestStopMonitorsRemovesEventHandlers`: stopping the collector's monitors stops each
/// one and empties the set.
#[tokio::test]
async fn test_stop_monitors_removes_event_handlers() {
    let h = Harness::new(Config::default()).await;
    let collector = h.gc.collector().clone();
    collector.sync_monitors(vec![mapping(&collector, "v1", "Pod")], |_| false);
    let pods = monitor_status(&collector, "", "pods");
    drop(h);
    assert!(monitored(&collector).is_empty());
    eventually("the pods monitor has stopped", || stopped(&pods)).await;
}
