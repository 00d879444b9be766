//! `kubegc gc`, the reference collector as a process of its own: it waits out an API server
//! that is not answering yet instead of exiting, and still exits 2 on usage errors.

use std::io::Read;
use std::process::{Command, Stdio};

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, PostParams};
use kubegc::apiserver::faults::RefuseFirst;
use kubegc::apiserver::status::ApiError;
use kubegc::apiserver::{ApiServer, Config, kubeconfig::kubeconfig_yaml};

/// How long the collector may take to collect once the API server answers.
const DEADLINE: Duration = Duration::from_secs(30);

fn config_map(name: &str, owner: Option<&ConfigMap>) -> ConfigMap {
    let refs = owner.map(|o| {
        vec![serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "name": o.metadata.name, "uid": o.metadata.uid})]
    });
    serde_json::from_value(serde_json::json!({"metadata": {"name": name, "ownerReferences": refs}})).unwrap()
}

/// The first finding: `kubegc gc` started against a server whose first answers to
/// every request (`/version` first of all) are `500` then `429` keeps running, says what it
/// waits for, and collects once the server answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubegc_gc_waits_out_5xx_answers_at_start() {
    let faults = RefuseFirst::new([
        ApiError::internal("injected: starting up"),
        ApiError::internal("injected: starting up"),
        ApiError::too_many_requests("injected: overloaded"),
    ]);
    let server = ApiServer::with_config(Config { interceptor: Some(faults.interceptor()), ..Config::default() });
    let api: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let owner = api.create(&PostParams::default(), &config_map("owner", None)).await.unwrap();
    api.create(&PostParams::default(), &config_map("child", Some(&owner))).await.unwrap();
    api.delete("owner", &DeleteParams::background()).await.unwrap();
    let (addr, _serving) = server.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, kubeconfig_yaml(&format!("http://{addr}"))).unwrap();

    faults.arm(true);
    let mut gc = Command::new(env!("CARGO_BIN_EXE_kubegc"))
        .args(["gc", "--workers", "2", "--kubeconfig"])
        .arg(&kubeconfig)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = gc.try_wait().unwrap() {
            let mut stderr = String::new();
            gc.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
            panic!("kubegc gc exited ({status}) instead of waiting for the API server:\n{stderr}");
        }
        // The check's own requests must not meet the faults: first wait until /version has had
        // all its refusals, which the collector's first requests take.
        if faults.refused("/version") >= 3 {
            faults.arm(false);
            if api.get_opt("child").await.unwrap().is_none() {
                break;
            }
        }
        assert!(start.elapsed() < DEADLINE, "the child was not collected within {DEADLINE:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    gc.kill().unwrap();
    gc.wait().unwrap();
    let mut stderr = String::new();
    gc.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(stderr.contains("waiting for the API server"), "the log does not say what kubegc gc waits for:\n{stderr}");
}

/// An unreadable kubeconfig is a usage error: exit status 2 at once.
#[test]
fn kubegc_gc_exits_2_on_an_unreadable_kubeconfig() {
    let out = Command::new(env!("CARGO_BIN_EXE_kubegc")).args(["gc", "--kubeconfig", "no/such/kubeconfig"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}
