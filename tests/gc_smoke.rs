//! The reference collector against the in-process fake apiserver: the three propagation
//! policies end to end.

mod support;

use std::time::Duration;

use kubegc::apiserver::ApiServer;
use kubegc::gc::{Config, GarbageCollector};
use serde_json::{Value, json};
use support::*;

async fn settle(server: &ApiServer, gc: &GarbageCollector) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let s = gc.settled_with(|g, r| server.resource_revision(g, r));
        if s.settled {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "not settled: {:?}", s.pending);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn owned(name: &str, owner: &Value, block: bool) -> Value {
    let mut cm = configmap(name, &[]);
    cm["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"], "blockOwnerDeletion": block}]);
    cm
}

#[tokio::test]
async fn background_foreground_and_orphan() {
    let server = ApiServer::new();
    let gc = GarbageCollector::start(server.client(), Config::default());
    for (policy, survives) in [("Background", false), ("Foreground", false), ("Orphan", true)] {
        let owner = create_cm(&server, &format!("owner-{policy}").to_lowercase(), &[]).await;
        let dep = post(&server, &cm_path(""), owned(&format!("dep-{policy}").to_lowercase(), &owner, true)).await;
        assert_eq!(dep.code, 201);
        settle(&server, &gc).await;
        let r = delete(&server, &cm_path(owner["metadata"]["name"].as_str().unwrap()), json!({"propagationPolicy": policy})).await;
        assert_eq!(r.code, 200);
        settle(&server, &gc).await;
        let owner_now = get(&server, &cm_path(owner["metadata"]["name"].as_str().unwrap())).await;
        assert_eq!(owner_now.code, 404, "{policy}: owner gone: {}", owner_now.body);
        let dep_now = get(&server, &cm_path(dep.body["metadata"]["name"].as_str().unwrap())).await;
        assert_eq!(dep_now.code == 200, survives, "{policy}: dependent {}", dep_now.body);
        if survives {
            assert!(dep_now.body["metadata"]["ownerReferences"].is_null(), "orphaned: {}", dep_now.body);
        }
    }
    let missing =
        post(&server, &cm_path(""), owned("ghost-child", &json!({"metadata": {"name": "ghost", "uid": "no-such-uid"}}), false)).await;
    assert_eq!(missing.code, 201);
    settle(&server, &gc).await;
    assert_eq!(get(&server, &cm_path("ghost-child")).await.code, 404, "a dependent of a never-existing owner is collected");
}
