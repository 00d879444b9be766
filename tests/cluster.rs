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
