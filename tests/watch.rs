//! Watches through a real `kube::Client`: resumption from a resourceVersion without
//! duplicates or gaps, bookmarks, `410 Gone` for compacted history, and a
//! `kube::runtime::watcher` that reconnects after failures and converges.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kubegc::apiserver::{ApiServer, Config};
use serde_json::json;

fn cm(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": {"k": "v"}})).unwrap()
}

fn rv_of(cm: &ConfigMap) -> u64 {
    cm.metadata.resource_version.as_deref().unwrap().parse().unwrap()
}

#[tokio::test]
async fn watch_resumes_from_a_resource_version_without_duplicates_or_gaps() {
    let server = ApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &cm("a")).await.unwrap();
    api.create(&PostParams::default(), &cm("b")).await.unwrap();
    let from = api.list(&Default::default()).await.unwrap().metadata.resource_version.unwrap();
    api.create(&PostParams::default(), &cm("c")).await.unwrap();
    api.patch("a", &PatchParams::default(), &Patch::Merge(json!({"data": {"k": "w"}}))).await.unwrap();
    api.delete("b", &DeleteParams::default()).await.unwrap();

    let mut stream = api.watch(&WatchParams::default().timeout(5).disable_bookmarks(), &from).await.unwrap().boxed();
    let mut seen = Vec::new();
    let mut last_rv = from.parse::<u64>().unwrap();
    while seen.len() < 4 {
        if seen.len() == 3 {
            // One more write while the watch is live.
            api.create(&PostParams::default(), &cm("d")).await.unwrap();
        }
        let (kind, obj) = match stream.try_next().await.unwrap().unwrap() {
            WatchEvent::Added(o) => ("ADDED", o),
            WatchEvent::Modified(o) => ("MODIFIED", o),
            WatchEvent::Deleted(o) => ("DELETED", o),
            other => panic!("unexpected {other:?}"),
        };
        assert!(rv_of(&obj) > last_rv, "resourceVersions increase strictly");
        last_rv = rv_of(&obj);
        seen.push(format!("{kind} {}", obj.metadata.name.unwrap()));
    }
    assert_eq!(seen, ["ADDED c", "MODIFIED a", "DELETED b", "ADDED d"]);
}

#[tokio::test]
async fn bookmarks_carry_the_latest_resource_version() {
    let server = ApiServer::with_config(Config { bookmark_interval: Duration::from_millis(50), ..Config::default() });
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = api.create(&PostParams::default(), &cm("a")).await.unwrap();
    let rv = created.metadata.resource_version.unwrap();
    let mut stream = api.watch(&WatchParams::default().timeout(5), &rv).await.unwrap().boxed();
    // A write elsewhere (another resource) still advances the bookmark's resourceVersion.
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}});
    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::default_namespaced(server.client());
    secrets.create(&PostParams::default(), &serde_json::from_value(secret).unwrap()).await.unwrap();
    let want = server.revision();
    loop {
        match stream.try_next().await.unwrap().unwrap() {
            WatchEvent::Bookmark(b) if b.metadata.resource_version.parse::<u64>().unwrap() >= want => break,
            WatchEvent::Bookmark(_) => continue,
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[tokio::test]
async fn watch_from_compacted_history_is_gone() {
    let server = ApiServer::with_config(Config { history_limit: 3, ..Config::default() });
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let first = api.create(&PostParams::default(), &cm("first")).await.unwrap();
    for i in 0..10 {
        api.create(&PostParams::default(), &cm(&format!("n{i}"))).await.unwrap();
    }
    let mut stream =
        api.watch(&WatchParams::default().timeout(5), first.metadata.resource_version.as_deref().unwrap()).await.unwrap().boxed();
    match stream.try_next().await.unwrap().unwrap() {
        WatchEvent::Error(e) => {
            assert_eq!(e.code, 410);
            assert!(e.message.contains("too old resource version"), "{}", e.message);
        }
        other => panic!("expected 410, got {other:?}"),
    }
}

#[tokio::test]
async fn watcher_reconnects_relists_after_gone_and_converges() {
    let lists = Arc::new(AtomicUsize::new(0));
    let count = lists.clone();
    let interceptor: kubegc::apiserver::Interceptor = Arc::new(move |parts: &http::request::Parts| {
        let query = parts.uri.query().unwrap_or("");
        if parts.method == http::Method::GET && !query.contains("watch=") && parts.uri.path().ends_with("/configmaps") {
            count.fetch_add(1, Ordering::SeqCst);
        }
        None
    });
    // Little history, and no bookmarks to move the watcher's resourceVersion forward.
    let config =
        Config { history_limit: 5, bookmark_interval: Duration::from_secs(3600), interceptor: Some(interceptor), ..Config::default() };
    let server = ApiServer::with_config(config);
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for name in ["a", "b", "c"] {
        api.create(&PostParams::default(), &cm(name)).await.unwrap();
    }
    let (reader, writer) = reflector::store();
    // Each watch ends after a second; the watcher then resumes from the last resourceVersion it saw.
    let stream = reflector(writer, watcher(api.clone(), watcher::Config::default().timeout(1))).default_backoff().applied_objects();
    let task = tokio::spawn(async move { stream.for_each(|_| async {}).await });
    reader.wait_until_ready().await.unwrap();
    assert_eq!(lists.load(Ordering::SeqCst), 1);

    // Changes the watcher sees live...
    api.delete("a", &DeleteParams::default()).await.unwrap();
    api.create(&PostParams::default(), &cm("d")).await.unwrap();
    // ...then writes elsewhere that push its resourceVersion out of the retained history.
    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::default_namespaced(server.client());
    for i in 0..10 {
        let s = json!({"metadata": {"name": format!("s{i}")}});
        secrets.create(&PostParams::default(), &serde_json::from_value(s).unwrap()).await.unwrap();
    }

    let names = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let mut names: Vec<String> = reader.state().iter().map(|c| c.metadata.name.clone().unwrap()).collect();
            names.sort();
            if lists.load(Ordering::SeqCst) >= 2 && names == ["b", "c", "d"] {
                return names;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the watcher relists after 410 Gone and converges");
    assert_eq!(names, ["b", "c", "d"]);
    task.abort();
}

#[tokio::test]
async fn a_watch_of_one_object_sees_only_that_object() {
    let server = ApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for name in ["a", "b"] {
        api.create(&PostParams::default(), &cm(name)).await.unwrap();
    }
    let get = |uri: &str| {
        let request = http::Request::get(uri).body(kube::client::Body::empty()).unwrap();
        let client = server.client();
        async move {
            let response = client.send(request).await.unwrap();
            let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
            String::from_utf8_lossy(&body).into_owned()
        }
    };
    // The legacy path names one object; a field selector given as well is combined with it.
    let stream = get("/api/v1/watch/namespaces/default/configmaps/a?timeoutSeconds=1&fieldSelector=metadata.namespace%3Ddefault").await;
    let names: Vec<String> = stream
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["object"]["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["a"]);
    // `watch` is a list option: on the path of one object it is ignored, and the answer is
    // the object, as kube-apiserver's request info makes only a nameless GET a watch.
    let got: serde_json::Value =
        serde_json::from_str(&get("/api/v1/namespaces/default/configmaps/a?watch=true&timeoutSeconds=1").await).unwrap();
    assert_eq!((got["kind"].as_str(), got["metadata"]["name"].as_str()), (Some("ConfigMap"), Some("a")));
}
