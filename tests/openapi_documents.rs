//! The fake's built-in OpenAPI v3 documents (`src/apiserver/openapi/built_in.json.zst`) are
//! those the pinned kube-apiserver serves, byte for byte: for every path of the groups the fake
//! serves, the fake's index names the same `?hash=` as upstream's. Run with
//! `KUBEGC_WRITE_OPENAPI=1` to write the file again from the pinned kube-apiserver (then run the
//! test once more to see it pass).

use std::collections::BTreeMap;

use axum::body::Body;
use http::Request;
use http_body_util::BodyExt;
use kubegc::apiserver::ApiServer;
use kubegc_control_plane::control_plane::ALL_BUT_GARBAGE_COLLECTOR;
use kubegc_control_plane::shared;
use serde_json::Value;
use tower::ServiceExt;

const ARCHIVE: &str = "src/apiserver/openapi/built_in.json.zst";

async fn fake_get(server: &ApiServer, path: &str) -> Vec<u8> {
    let request = Request::get(path).body(Body::empty()).unwrap();
    let response = server.router().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200, "GET {path} on the fake");
    response.into_body().collect().await.unwrap().to_bytes().to_vec()
}

async fn upstream_get(client: &kube::Client, path: &str) -> Vec<u8> {
    let request = Request::get(path).body(Vec::new()).unwrap();
    client.request_text(request).await.unwrap_or_else(|e| panic!("GET {path} upstream: {e}")).into_bytes()
}

/// The index's `serverRelativeURL` by path.
fn urls(index: &[u8]) -> BTreeMap<String, String> {
    let index: Value = serde_json::from_slice(index).unwrap();
    let paths = index["paths"].as_object().unwrap();
    paths.iter().map(|(path, entry)| (path.clone(), entry["serverRelativeURL"].as_str().unwrap().to_string())).collect()
}

/// The paths of the document a server serving the fake's discovery publishes: `api`, `apis`,
/// `version`, and each group and group version.
async fn served_paths(fake: &ApiServer) -> Vec<String> {
    let mut paths = vec!["api".to_string(), "apis".into(), "version".into()];
    let core: Value = serde_json::from_slice(&fake_get(fake, "/api").await).unwrap();
    for version in core["versions"].as_array().unwrap() {
        paths.push(format!("api/{}", version.as_str().unwrap()));
    }
    let groups: Value = serde_json::from_slice(&fake_get(fake, "/apis").await).unwrap();
    for group in groups["groups"].as_array().unwrap() {
        let name = group["name"].as_str().unwrap();
        paths.push(format!("apis/{name}"));
        for version in group["versions"].as_array().unwrap() {
            paths.push(format!("apis/{}", version["groupVersion"].as_str().unwrap()));
        }
    }
    paths.sort();
    paths
}

#[tokio::test]
async fn the_built_in_documents_are_those_the_pinned_release_serves() {
    let kubeconfig =
        tokio::task::spawn_blocking(|| shared::kubeconfig(ALL_BUT_GARBAGE_COLLECTOR)).await.unwrap().unwrap_or_else(|e| panic!("{e:#}"));
    let kubeconfig = kube::config::Kubeconfig::read_from(kubeconfig).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await.unwrap();
    let client = kube::Client::try_from(config).unwrap();
    let fake = ApiServer::new();

    let paths = served_paths(&fake).await;
    let upstream = urls(&upstream_get(&client, "/openapi/v3").await);
    let expected: BTreeMap<String, String> = paths
        .iter()
        .map(|path| {
            let url = upstream.get(path).unwrap_or_else(|| panic!("the fake serves {path}, which upstream does not publish"));
            (path.clone(), url.clone())
        })
        .collect();

    if std::env::var_os("KUBEGC_WRITE_OPENAPI").is_some() {
        let mut documents = BTreeMap::new();
        for path in &paths {
            let text = String::from_utf8(upstream_get(&client, &format!("/openapi/v3/{path}")).await).unwrap();
            documents.insert(path.clone(), text);
        }
        let compressed = zstd::encode_all(serde_json::to_vec(&documents).unwrap().as_slice(), 19).unwrap();
        std::fs::write(format!("{}/{ARCHIVE}", env!("CARGO_MANIFEST_DIR")), compressed).unwrap();
        eprintln!("wrote {ARCHIVE} ({} documents); run the test again to check it", documents.len());
        return;
    }

    let served = urls(&fake_get(&fake, "/openapi/v3").await);
    assert_eq!(
        served, expected,
        "{ARCHIVE} is not what the pinned kube-apiserver serves: write it again with \
         `KUBEGC_WRITE_OPENAPI=1 cargo test --test openapi_documents`"
    );
}
