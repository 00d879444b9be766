//! The upstream side of the differential: kube-apiserver and etcd of the pinned release with
//! no kube-controller-manager (so that nothing but the requests writes objects), and the
//! fuzzer's requests sent to it over HTTPS with the admin credentials.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use http_body_util::BodyExt;
use kubegc_control_plane::build::Upstream;
use kubegc_control_plane::control_plane::ControlPlane;
use serde_json::Value;

use crate::fuzz::generate::FuzzRequest;
use crate::fuzz::headers_of;
use crate::fuzz::invariants::Answer;

/// How long one request may take (a list with a resourceVersion from the future waits 3 s
/// upstream before it answers 504).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// How long a watch is read for its first event, then for each next one, and at most.
const WATCH_FIRST: Duration = Duration::from_millis(300);
const WATCH_QUIET: Duration = Duration::from_millis(100);
const WATCH_LONGEST: Duration = Duration::from_secs(1);

/// How long the API server's own bootstrap may take.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a definition's establishing or removal may take: under a second on an idle
/// machine, seconds more when the server's informers lag on a loaded one (a CI run with a
/// second server beside it stopped waiting at 5 s while upstream still served a removed
/// definition's resource).
const DEFINITION_TIMEOUT: Duration = Duration::from_secs(30);

/// What every server shows before the first request, as upstream's bootstrap makes it: the
/// four namespaces and the `kubernetes` Service.
const BOOTSTRAPPED: &[&str] = &[
    "/api/v1/namespaces/default",
    "/api/v1/namespaces/kube-system",
    "/api/v1/namespaces/kube-public",
    "/api/v1/namespaces/kube-node-lease",
    "/api/v1/namespaces/default/services/kubernetes",
];

/// The ServiceCIDR kube-apiserver makes from its flags.
const SERVICE_CIDR: &str = "/apis/networking.k8s.io/v1/servicecidrs/kubernetes";

/// Where kube-apiserver's own controllers record Events about cluster-scoped objects.
const STARTUP_EVENTS: &str = "/api/v1/namespaces/default/events";

/// The running upstream API server and an admin client of it.
pub struct UpstreamServer {
    client: kube::Client,
    /// Stopped (and its files removed) on drop.
    _plane: ControlPlane,
}

impl UpstreamServer {
    /// Starts etcd and kube-apiserver (built already, or built now) with no controller manager,
    /// and returns once the server's bootstrap has made what [`BOOTSTRAPPED`] lists.
    pub async fn start() -> anyhow::Result<Self> {
        let plane = ControlPlane::start(&Upstream::locate(), "").await.context("cannot start the upstream control plane")?;
        let kubeconfig = kube::config::Kubeconfig::read_from(plane.kubeconfig())?;
        let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await?;
        // Watches are read for a bounded time here; the client must not cut them.
        config.read_timeout = None;
        let server = Self { client: kube::Client::try_from(config)?, _plane: plane };
        for path in BOOTSTRAPPED {
            server.wait_for(path, SETTLE_TIMEOUT, |code, _| code == 200).await?;
        }
        // The default ServiceCIDR controller may find the `kubernetes` ServiceCIDR unlike its
        // flags at a first sync and say so in an Event in `default`; it marks the ServiceCIDR
        // Ready at a later sync, once they agree (`syncStatus`, kubernetes
        // pkg/controlplane/controller/defaultservicecidr). The fake runs no such controller:
        // what it said before the first request is removed.
        server.wait_for(SERVICE_CIDR, SETTLE_TIMEOUT, |code, cidr| code == 200 && condition_is_true(cidr, "Ready")).await?;
        let events = FuzzRequest { method: "DELETE".into(), uri: STARTUP_EVENTS.into(), content_type: None, accept: None, body: vec![] };
        match server.send(&events, false).await {
            Ok(answer) if answer.code == 200 => {}
            Ok(answer) => bail!("upstream refused to remove its startup events ({})", answer.code),
            Err(e) => bail!("{e}"),
        }
        Ok(server)
    }

    /// Sends `request`; of a watch (`watch`) what arrives within a short window is read: until
    /// the first event (at most [`WATCH_FIRST`]), then while events keep coming (each within
    /// [`WATCH_QUIET`]), at most [`WATCH_LONGEST`]. `Err` when no answer came.
    pub async fn send(&self, request: &FuzzRequest, watch: bool) -> Result<Answer, String> {
        let method = http::Method::from_bytes(request.method.as_bytes()).map_err(|e| e.to_string())?;
        let mut builder = http::Request::builder().method(method).uri(request.uri.as_str());
        if let Some(ct) = &request.content_type {
            builder = builder.header(http::header::CONTENT_TYPE, ct.as_str());
        }
        if let Some(accept) = &request.accept {
            builder = builder.header(http::header::ACCEPT, accept.as_str());
        }
        let http_request = builder.body(kube::client::Body::from(request.body.clone())).map_err(|e| e.to_string())?;
        let response = match tokio::time::timeout(REQUEST_TIMEOUT, self.client.send(http_request)).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => return Err(format!("upstream did not answer: {e}")),
            Err(_) => return Err(format!("upstream did not answer in {} s", REQUEST_TIMEOUT.as_secs())),
        };
        let code = response.status().as_u16();
        let (content_type, warnings) = headers_of(response.headers());
        let streamed = watch && code == 200;
        let body = if streamed {
            read_window(response.into_body()).await
        } else {
            match tokio::time::timeout(REQUEST_TIMEOUT, response.into_body().collect()).await {
                Ok(Ok(body)) => body.to_bytes().to_vec(),
                Ok(Err(e)) => return Err(format!("upstream's answer broke off: {e}")),
                Err(_) => return Err(format!("upstream's answer did not end in {} s", REQUEST_TIMEOUT.as_secs())),
            }
        };
        Ok(Answer { code, body, streamed, content_type, warnings })
    }

    /// Waits until the custom resource definition `name` has settled: gone with its resource
    /// no longer served at `served` (a list path), established with it served, or terminating with every custom resource
    /// left marked and held by a finalizer (it stays so); gives up after [`DEFINITION_TIMEOUT`].
    pub async fn settle_definition(&self, name: &str, served: &str) {
        let path = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}");
        let started = Instant::now();
        while started.elapsed() < DEFINITION_TIMEOUT {
            let (code, definition) = self.get(&path).await;
            let settled = match code {
                // Gone, and its resource no longer served: the API server stops serving it
                // when its informer sees the deletion, which a loaded server does late.
                404 => self.get(served).await.0 == 404,
                200 if definition["metadata"]["deletionTimestamp"].is_null() => established(&definition) && self.get(served).await.0 == 200,
                // Terminating: done once its finalizer has marked every custom resource left,
                // when those are held by finalizers of their own, which nothing here removes.
                200 => {
                    let (code, list) = self.get(served).await;
                    let items = list["items"].as_array().map(Vec::as_slice).unwrap_or_default();
                    code == 200 && !items.is_empty() && items.iter().all(held)
                }
                _ => false,
            };
            if settled {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        eprintln!("kubegc fuzz: upstream's definition {name} did not settle in {} s; comparing on", DEFINITION_TIMEOUT.as_secs());
    }

    /// Polls `path` until `done` accepts its answer, failing after `timeout`.
    async fn wait_for(&self, path: &str, timeout: Duration, done: impl Fn(u16, &Value) -> bool) -> anyhow::Result<()> {
        let started = Instant::now();
        loop {
            let (code, body) = self.get(path).await;
            if done(code, &body) {
                return Ok(());
            }
            if started.elapsed() > timeout {
                bail!("upstream's {path} answers {code} after {} s: {body}", timeout.as_secs());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A GET's code and JSON body (`Null` if none).
    async fn get(&self, path: &str) -> (u16, Value) {
        let request = FuzzRequest { method: "GET".into(), uri: path.into(), content_type: None, accept: None, body: vec![] };
        match self.send(&request, false).await {
            Ok(answer) => (answer.code, serde_json::from_slice(&answer.body).unwrap_or_default()),
            Err(_) => (0, Value::Null),
        }
    }
}

/// Whether `object` is being deleted and held by finalizers.
fn held(object: &Value) -> bool {
    let meta = &object["metadata"];
    !meta["deletionTimestamp"].is_null() && meta["finalizers"].as_array().is_some_and(|f| !f.is_empty())
}

/// Whether a definition's `Established` condition is true.
fn established(definition: &Value) -> bool {
    condition_is_true(definition, "Established")
}

/// Whether `object`'s status condition `kind` is true.
fn condition_is_true(object: &Value, kind: &str) -> bool {
    object["status"]["conditions"]
        .as_array()
        .is_some_and(|conditions| conditions.iter().any(|c| c["type"] == kind && c["status"] == "True"))
}

/// What a watch sends within the window described at [`UpstreamServer::send`].
async fn read_window(mut body: kube::client::Body) -> Vec<u8> {
    let started = Instant::now();
    let mut out = Vec::new();
    loop {
        let quiet = if out.is_empty() { WATCH_FIRST } else { WATCH_QUIET };
        let left = WATCH_LONGEST.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        match tokio::time::timeout(quiet.min(left), body.frame()).await {
            Ok(Some(Ok(frame))) => out.extend_from_slice(frame.data_ref().map(|d| d.as_ref()).unwrap_or_default()),
            _ => break,
        }
    }
    out
}
