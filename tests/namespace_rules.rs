//! What every namespace is and holds, on the fake as on the upstream control plane: the
//! namespaces admission never lets go, the `kubernetes.io/metadata.name` label, and the
//! `kube-root-ca.crt` ConfigMap kube-controller-manager's root CA publisher gives each.

mod support;

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use serde_json::{Value, json};
use support::*;

on_both_servers!(
    the_initial_namespaces_may_not_be_deleted,
    every_namespace_is_labelled_with_its_name,
    the_initial_namespaces_are_there_and_active,
);

async fn the_initial_namespaces_may_not_be_deleted(server: Server) {
    for name in ["default", "kube-system", "kube-public"] {
        let uri = format!("/api/v1/namespaces/{name}");
        for options in [Value::Null, json!({"dryRun": ["All"]}), json!({"propagationPolicy": "Foreground"})] {
            let r = delete(&server, &uri, options.clone()).await;
            assert_eq!(r.code, 403, "{name} {options}: {}", r.body);
            assert_eq!(r.body["reason"], "Forbidden");
            assert_eq!(r.body["message"], format!("namespaces \"{name}\" is forbidden: this namespace may not be deleted"));
            assert_eq!(r.body["details"], json!({"name": name, "kind": "namespaces"}));
        }
        let r = get(&server, &uri).await;
        assert_eq!((r.code, r.body["status"]["phase"].as_str()), (200, Some("Active")), "{name}");
        assert!(r.body["metadata"]["deletionTimestamp"].is_null(), "{name}");
    }
}

async fn the_initial_namespaces_are_there_and_active(server: Server) {
    for name in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        let r = get(&server, &format!("/api/v1/namespaces/{name}")).await;
        assert_eq!(r.code, 200, "{name}");
        assert_eq!(r.body["status"]["phase"], "Active", "{name}");
        assert_eq!(r.body["spec"]["finalizers"], json!(["kubernetes"]), "{name}");
        assert_eq!(r.body["metadata"]["labels"], json!({"kubernetes.io/metadata.name": name}), "{name}");
    }
}

async fn every_namespace_is_labelled_with_its_name(server: Server) {
    let name = format!("{}-labelled", server.namespace());
    let label = "kubernetes.io/metadata.name";
    let r = post(&server, "/api/v1/namespaces", json!({"metadata": {"name": name, "labels": {"team": "a", label: "lie"}}})).await;
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(r.body["metadata"]["labels"], json!({"team": "a", label: name}), "set at create, over what was asked");

    let uri = format!("/api/v1/namespaces/{name}");
    let r = patch(&server, &uri, "application/merge-patch+json", json!({"metadata": {"labels": {label: null, "team": "b"}}})).await;
    assert_eq!((r.code, &r.body["metadata"]["labels"]), (200, &json!({"team": "b", label: name})), "set again at update");
    let mut replaced = r.body.clone();
    replaced["metadata"]["labels"] = Value::Null;
    let r = put(&server, &uri, replaced).await;
    assert_eq!((r.code, &r.body["metadata"]["labels"]), (200, &json!({label: name})), "an update without labels gets it too");

    let r = post(&server, "/api/v1/namespaces", json!({"metadata": {"generateName": format!("{}-gen-", server.namespace())}})).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let generated = r.body["metadata"]["name"].as_str().unwrap().to_string();
    assert_eq!(r.body["metadata"]["labels"], json!({label: generated}), "the generated name");

    for ns in [name, generated] {
        delete(&server, &format!("/api/v1/namespaces/{ns}"), Value::Null).await;
    }
}

/// The root CA publisher: a new namespace gets `kube-root-ca.crt`, one deleted is made again
/// and one changed is written back. On the fake it is one of the workload controllers.
async fn every_namespace_holds_the_root_ca(client: kube::Client, namespace: &str) {
    let configmaps: Api<ConfigMap> = Api::namespaced(client, namespace);
    let published = || async {
        let cm = configmaps.get_opt("kube-root-ca.crt").await.unwrap()?;
        let data = cm.data.clone().unwrap_or_default();
        let bundle = data.get("ca.crt").filter(|b| b.starts_with("-----BEGIN CERTIFICATE-----") && data.len() == 1)?;
        let description = cm.metadata.annotations.as_ref()?.get("kubernetes.io/description")?;
        assert!(description.starts_with("Contains a CA bundle that can be used to verify the kube-apiserver"), "{description}");
        Some((bundle.clone(), cm.metadata.uid.clone().unwrap_or_default()))
    };
    let (bundle, uid) = eventually(&published).await;

    configmaps.delete("kube-root-ca.crt", &DeleteParams::default()).await.unwrap();
    let (again, new_uid) = eventually(&published).await;
    assert_eq!(again, bundle);
    assert_ne!(new_uid, uid, "made again");

    let tamper = Patch::Merge(json!({"data": {"ca.crt": "nothing", "extra": "x"}, "metadata": {"annotations": null}}));
    configmaps.patch("kube-root-ca.crt", &PatchParams::default(), &tamper).await.unwrap();
    let (restored, _) = eventually(&published).await;
    assert_eq!(restored, bundle, "written back");
}

/// Polls `check` until it gives something, for at most a minute.
async fn eventually<T, F: Future<Output = Option<T>>>(check: impl Fn() -> F) -> T {
    let start = Instant::now();
    loop {
        if let Some(found) = check().await {
            return found;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "still not there after a minute");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

mod root_ca {
    #[tokio::test]
    async fn on_the_fake_cluster() {
        let cluster = kubegc::Cluster::start();
        let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(cluster.client());
        let ns = serde_json::from_value(serde_json::json!({"metadata": {"name": "fresh"}})).unwrap();
        namespaces.create(&Default::default(), &ns).await.unwrap();
        for namespace in ["fresh", "default", "kube-system", "kube-public", "kube-node-lease"] {
            super::every_namespace_holds_the_root_ca(cluster.client(), namespace).await;
        }
    }

    #[tokio::test]
    async fn on_the_upstream_control_plane() {
        let server = super::support::Server::upstream().await;
        super::every_namespace_holds_the_root_ca(server.client(), server.namespace()).await;
    }
}
