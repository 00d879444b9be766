//! `kubegc serve` as a command: what it does with its address, its exit codes, the kubeconfig
//! it leaves (none, once it has stopped), and who may use it (anyone on loopback, only the
//! holders of its kubeconfig elsewhere).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use base64::Engine;
use http_body_util::BodyExt;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams};
use serde_json::{Value, json};

fn kubegc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kubegc"))
}

/// A running `kubegc serve`, killed on drop.
struct Server {
    child: Option<Child>,
    /// The first line it printed (where it listens).
    line: String,
}

impl Server {
    /// Starts `command` (a `kubegc serve`), its output piped, and reads its first line.
    fn start(command: &mut Command) -> Self {
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        Self { child: Some(child), line }
    }

    /// The first word of its first line that starts with `scheme` (`http://`, `https://`).
    fn url(&self, scheme: &str) -> &str {
        self.line.split_whitespace().find(|w| w.starts_with(scheme)).unwrap_or_else(|| panic!("no {scheme} URL in {:?}", self.line))
    }

    /// Stops it with SIGTERM and waits for it.
    fn stop(mut self) -> Output {
        let child = self.child.take().unwrap();
        let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
        assert!(killed.success());
        child.wait_with_output().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The kubeconfig at `path`, as YAML read into JSON.
fn raw_kubeconfig(path: &Path) -> Value {
    serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A client of the kubeconfig `raw`, with its user's token replaced by `token` (none when
/// `None`).
async fn client_with_token(raw: &Value, token: Option<&str>) -> kube::Client {
    let mut raw = raw.clone();
    raw["users"][0]["user"] = token.map_or(json!({}), |t| json!({"token": t}));
    client(&raw).await
}

/// A client of the kubeconfig `raw`.
async fn client(raw: &Value) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::from_yaml(&serde_saphyr::to_string(raw).unwrap()).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await.unwrap();
    kube::Client::try_from(config).unwrap()
}

/// The namespaces `client` lists.
async fn namespaces(client: kube::Client) -> Vec<String> {
    let list = Api::<Namespace>::all(client).list(&ListParams::default()).await.unwrap();
    list.items.into_iter().filter_map(|n| n.metadata.name).collect()
}

/// `method path` sent by `client`, its status, content type and body as JSON (`null` if not).
async fn send(client: &kube::Client, method: &str, path: &str) -> (u16, String, Value) {
    let request = http::Request::builder().method(method).uri(path).body(kube::client::Body::empty()).unwrap();
    let response = client.send(request).await.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, content_type, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// A host name is looked up (`localhost:0`); on SIGTERM the server stops with exit 0 and
/// removes its kubeconfig, which would otherwise point at a port no one listens on. A second
/// server on the same port exits 1 (a failure, not a usage error); an address that cannot be
/// read exits 2. Its log, written to a pipe, has no terminal colours. On loopback the API is
/// plain HTTP and asks no credentials: the kubeconfig has none.
#[tokio::test]
async fn addresses_exit_codes_and_the_kubeconfig_left_behind() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let first = Server::start(
        kubegc().args(["serve", "--addr", "localhost:0", "--nodes", "0", "--kubeconfig"]).arg(&kubeconfig).env("KUBEGC_LOG", "info"),
    );
    let addr = first.url("http://").trim_start_matches("http://").to_string();
    assert!(kubeconfig.exists(), "the kubeconfig is written before the server says where it listens");
    let raw = raw_kubeconfig(&kubeconfig);
    assert_eq!(raw["users"][0]["user"], json!({}), "credentials for a loopback server");
    assert!(raw["clusters"][0]["cluster"].get("certificate-authority-data").is_none(), "{raw}");
    assert!(namespaces(client(&raw).await).await.contains(&"default".to_string()));

    let second = kubegc().args(["serve", "--addr", &addr, "--kubeconfig"]).arg(dir.path().join("second")).output().unwrap();
    assert_eq!(second.status.code(), Some(1), "{second:?}");
    assert!(String::from_utf8_lossy(&second.stderr).contains(&format!("cannot listen on {addr}")), "{second:?}");

    let unreadable = kubegc().args(["serve", "--addr", "nonsense"]).output().unwrap();
    assert_eq!(unreadable.status.code(), Some(2), "{unreadable:?}");

    let stopped = first.stop();
    assert_eq!(stopped.status.code(), Some(0));
    assert!(!kubeconfig.exists(), "the kubeconfig is removed when the server stops");
    let log = String::from_utf8_lossy(&stopped.stderr);
    assert!(log.contains(" INFO "), "{log}");
    assert!(!log.contains('\u{1b}'), "colours in a log written to a pipe: {log:?}");
    assert!(!log.contains("--insecure"), "a warning without --insecure: {log}");
}

/// Off loopback the API is HTTPS only, under a certificate authority of the run's own, and
/// asks the run's bearer token: the kubeconfig (its owner's only) carries both, and a client
/// of it is served.
#[tokio::test]
async fn off_loopback_the_kubeconfig_holds_a_certificate_authority_and_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let server = Server::start(kubegc().args(["serve", "--addr", "0.0.0.0:0", "--nodes", "0", "--kubeconfig"]).arg(&kubeconfig));
    assert!(server.line.contains("https only, with the bearer token"), "{}", server.line);
    let url = server.url("https://");
    let raw = raw_kubeconfig(&kubeconfig);
    assert_eq!(raw["clusters"][0]["cluster"]["server"], url);
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let ca = raw["clusters"][0]["cluster"]["certificate-authority-data"].as_str().unwrap();
    let ca = String::from_utf8(base64::engine::general_purpose::STANDARD.decode(ca).unwrap()).unwrap();
    assert!(ca.starts_with("-----BEGIN CERTIFICATE-----"), "{ca}");
    let token = raw["users"][0]["user"]["token"].as_str().unwrap();
    assert!(token.len() >= 32, "a short token: {token}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&kubeconfig).unwrap().permissions().mode() & 0o777,
            0o600,
            "a kubeconfig with a token others can read"
        );
    }
    assert!(namespaces(client(&raw).await).await.contains(&"default".to_string()));
    let settled = kubegc().args(["settle", "--timeout", "20s", "--kubeconfig"]).arg(&kubeconfig).output().unwrap();
    assert!(settled.status.success(), "kubegc settle with the kubeconfig: {settled:?}");

    // Plain HTTP is not served.
    let mut plain = raw.clone();
    plain["clusters"][0]["cluster"] = json!({"server": url.replace("https://", "http://")});
    let refused = Api::<Namespace>::all(client(&plain).await).list(&ListParams::default()).await;
    assert!(refused.is_err(), "plain HTTP served: {refused:?}");
}

/// Off loopback a request without the run's token, or with another, gets what kube-apiserver
/// answers when anonymous requests are off, whatever its path (the settle endpoint and the
/// collector's debug routes too), and changes nothing.
#[tokio::test]
async fn off_loopback_a_request_without_the_token_is_unauthorized_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let _server = Server::start(kubegc().args(["serve", "--addr", "0.0.0.0:0", "--nodes", "0", "--kubeconfig"]).arg(&kubeconfig));
    let raw = raw_kubeconfig(&kubeconfig);
    let authorized = client(&raw).await;
    let namespaces_api = Api::<Namespace>::all(authorized.clone());
    let kept: Namespace = serde_json::from_value(json!({"metadata": {"name": "kept"}})).unwrap();
    namespaces_api.create(&Default::default(), &kept).await.unwrap();
    let unauthorized = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "Unauthorized", "reason": "Unauthorized", "code": 401});
    let requests = [
        ("DELETE", "/api/v1/namespaces/kept"),
        ("GET", "/api/v1/namespaces"),
        ("GET", "/kubegc/v1/settle?timeout=5s"),
        ("GET", "/metrics"),
        ("GET", "/debug/controllers/garbagecollector/graph"),
        ("GET", "/no/such/path"),
    ];
    for token in [None, Some("wrong"), Some("")] {
        let client = client_with_token(&raw, token).await;
        for (method, path) in requests {
            let (status, content_type, body) = send(&client, method, path).await;
            assert_eq!((status, content_type.as_str()), (401, "application/json"), "{method} {path} with token {token:?}: {body}");
            assert_eq!(body, unauthorized, "{method} {path} with token {token:?}");
        }
    }

    let kept = namespaces_api.get("kept").await.unwrap();
    assert!(kept.metadata.deletion_timestamp.is_none(), "namespace kept deleted without the token");
    for (method, path) in &requests[1..5] {
        let (status, _, body) = send(&authorized, method, path).await;
        assert_eq!(status, 200, "{method} {path} with the token: {body}");
    }
}

/// `--insecure` serves plain HTTP without a token off loopback too, and warns that anyone who
/// can reach it can do anything.
#[tokio::test]
async fn insecure_serves_plain_http_anywhere_and_warns() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let server =
        Server::start(kubegc().args(["serve", "--addr", "0.0.0.0:0", "--insecure", "--nodes", "0", "--kubeconfig"]).arg(&kubeconfig));
    let url = server.url("http://").to_string();
    assert!(url.starts_with("http://0.0.0.0:"), "{}", server.line);
    let raw = raw_kubeconfig(&kubeconfig);
    assert_eq!(raw["clusters"][0]["cluster"], json!({"server": url}));
    assert_eq!(raw["users"][0]["user"], json!({}));
    assert!(namespaces(client(&raw).await).await.contains(&"default".to_string()));

    let stopped = server.stop();
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert!(
        stderr.contains("warning: --insecure")
            && stderr.contains("anyone who can reach this address can read, change and delete everything"),
        "{stderr}"
    );
}
