//! A controller author's test, as the README shows it: a garbage-collecting API server in a
//! few lines, the textbook cascade (Deployment → ReplicaSet → Pods) deleted in the foreground,
//! and an orphaning delete that leaves the ReplicaSet and its Pods behind.

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, ListParams, PostParams};

fn web() -> Deployment {
    serde_json::from_value(serde_json::json!({"metadata": {"name": "web"}, "spec": {"replicas": 2,
        "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}))
    .unwrap()
}

#[tokio::test]
async fn a_deployment_cascades_in_the_foreground_and_orphans_on_request() {
    let cluster = kubegc::Cluster::start();
    let (deployments, sets, pods): (Api<Deployment>, Api<ReplicaSet>, Api<Pod>) =
        (Api::default_namespaced(cluster.client()), Api::default_namespaced(cluster.client()), Api::default_namespaced(cluster.client()));
    let all = ListParams::default();
    deployments.create(&PostParams::default(), &web()).await.unwrap();
    cluster.settle().await;
    let rs = sets.list(&all).await.unwrap().items.remove(0);
    assert_eq!(rs.metadata.owner_references.unwrap()[0].name, "web");
    assert_eq!(pods.list(&all).await.unwrap().items.len(), 2);

    deployments.delete("web", &DeleteParams::foreground()).await.unwrap();
    cluster.settle().await;
    assert!(sets.list(&all).await.unwrap().items.is_empty() && pods.list(&all).await.unwrap().items.is_empty());

    deployments.create(&PostParams::default(), &web()).await.unwrap();
    cluster.settle().await;
    deployments.delete("web", &DeleteParams::orphan()).await.unwrap();
    cluster.settle().await;
    let orphaned = sets.list(&all).await.unwrap().items;
    assert!(orphaned.len() == 1 && orphaned[0].metadata.owner_references.as_deref().unwrap_or_default().is_empty());
    assert_eq!(pods.list(&all).await.unwrap().items.len(), 2, "the orphaned ReplicaSet keeps its Pods");
}
