//! `kubegc::Cluster`'s parts can be turned off: without the workload controllers a Deployment
//! makes nothing, as on an API server with no controller manager.

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use kube::api::{Api, ListParams, PostParams};

#[tokio::test]
async fn without_workload_controllers_a_deployment_makes_nothing() {
    let cluster = kubegc::Cluster::builder().without_workloads().start();
    let deployments: Api<Deployment> = Api::default_namespaced(cluster.client());
    let web = serde_json::json!({"metadata": {"name": "web"}, "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
    deployments.create(&PostParams::default(), &serde_json::from_value(web).unwrap()).await.unwrap();
    cluster.settle().await;
    let sets: Api<ReplicaSet> = Api::default_namespaced(cluster.client());
    assert!(sets.list(&ListParams::default()).await.unwrap().items.is_empty());
}

/// A stored object the controllers' typed lists cannot read (here `containerPort: "x"`, which an
/// older fake or a path that is not validated may have left) stops no controller: the others'
/// objects are synced, and each unreadable object gets one Warning Event, not one per pass.
#[tokio::test]
async fn objects_the_controllers_cannot_read_are_skipped_and_reported_once() {
    use k8s_openapi::api::core::v1::{Event, Pod};
    use kubegc::apiserver::storage::store::ObjectKey;
    use serde_json::json;

    let cluster = kubegc::Cluster::start();
    let template = |port: serde_json::Value| json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx", "ports": [{"containerPort": port}]}]}});
    let broken_deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "broken", "namespace": "default", "uid": "uid-broken-deployment", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "broken"}}, "template": template(json!("x"))}});
    let mut broken_pod = template(json!("x"));
    broken_pod["apiVersion"] = json!("v1");
    broken_pod["kind"] = json!("Pod");
    broken_pod["metadata"] =
        json!({"name": "broken", "namespace": "default", "uid": "uid-broken-pod", "creationTimestamp": "2026-01-01T00:00:00Z"});
    {
        let mut storage = cluster.server().lock();
        storage.commit(ObjectKey::new("apps", "deployments", "default", "broken"), broken_deployment);
        storage.commit(ObjectKey::new("", "pods", "default", "broken"), broken_pod);
    }

    let deployments: Api<Deployment> = Api::default_namespaced(cluster.client());
    let web = json!({"metadata": {"name": "web"}, "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template(json!(80))}});
    deployments.create(&PostParams::default(), &serde_json::from_value(web).unwrap()).await.unwrap();
    cluster.settle().await;
    let sets: Api<ReplicaSet> = Api::default_namespaced(cluster.client());
    let made = sets.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(made.len(), 1, "the readable Deployment has its ReplicaSet");
    let pods: Api<Pod> = Api::default_namespaced(cluster.client());
    let web_pods = pods.list_metadata(&ListParams::default().labels("app=web")).await.unwrap().items;
    assert_eq!(web_pods.len(), 2, "the two Pods of the ReplicaSet");

    let warnings = || async {
        let events: Api<Event> = Api::default_namespaced(cluster.client());
        let mut about: Vec<(String, String, String)> = events
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter(|e| e.reason.as_deref() == Some("FailedSync"))
            .map(|e| (e.involved_object.uid.unwrap_or_default(), e.type_.unwrap_or_default(), e.message.unwrap_or_default()))
            .collect();
        about.sort();
        about
    };
    let first = warnings().await;
    assert!(first.iter().any(|(uid, kind, message)| uid == "uid-broken-deployment"
        && kind == "Warning"
        && message.starts_with("cannot read Deployment default/broken: ")));
    assert!(first.iter().any(|(uid, _, _)| uid == "uid-broken-pod"));
    assert!(first.iter().all(|(uid, _, _)| uid.starts_with("uid-broken-")), "{first:?}");

    // More passes, more settling: the same objects are not reported again.
    deployments.patch("web", &kube::api::PatchParams::default(), &kube::api::Patch::Merge(json!({"spec": {"replicas": 1}}))).await.unwrap();
    cluster.settle().await;
    assert_eq!(warnings().await, first, "each unreadable object is reported once");

    // The collector reads metadata only, and collects as ever.
    deployments.delete("web", &kube::api::DeleteParams::foreground()).await.unwrap();
    cluster.settle().await;
    assert!(deployments.get_opt("web").await.unwrap().is_none());
    assert!(sets.list(&ListParams::default()).await.unwrap().items.is_empty());
    let left = pods.list_metadata(&ListParams::default()).await.unwrap().items;
    assert_eq!(left.iter().map(|p| p.metadata.name.clone().unwrap_or_default()).collect::<Vec<_>>(), ["broken"]);
}
