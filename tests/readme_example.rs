//! The Rust example of README.md ("In a Rust test, with no socket"), kept here word for word
//! between the markers and run as a test; `the_readme_shows_this_example` fails when the README
//! no longer shows it.

// README example begins
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, PostParams};

#[tokio::test]
async fn a_foreground_delete_takes_the_dependent_first() {
    let cluster = kubegc::Cluster::start(); // no socket: the client calls the server in process
    let cms: Api<ConfigMap> = Api::default_namespaced(cluster.client());
    let owner: ConfigMap = serde_json::from_value(serde_json::json!({"metadata": {"name": "owner"}})).unwrap();
    let uid = cms.create(&PostParams::default(), &owner).await.unwrap().metadata.uid.unwrap();
    let dependent: ConfigMap = serde_json::from_value(serde_json::json!({"metadata": {"name": "dependent",
        "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid}]}}))
    .unwrap();
    cms.create(&PostParams::default(), &dependent).await.unwrap();

    cms.delete("owner", &DeleteParams::foreground()).await.unwrap();
    cluster.settle().await; // the collector has done everything it owes
    assert!(cms.get_opt("owner").await.unwrap().is_none());
    assert!(cms.get_opt("dependent").await.unwrap().is_none());
}
// README example ends

#[test]
fn the_readme_shows_this_example() {
    let source = include_str!("readme_example.rs");
    let example = source.split("// README example begins\n").nth(1).and_then(|rest| rest.split("// README example ends").next());
    let block = format!("```rust\n{}```", example.expect("the markers are in place"));
    assert!(include_str!("../README.md").contains(&block), "README.md's Rust example is no longer tests/readme_example.rs's:\n{block}");
}
