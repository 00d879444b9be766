//! Chaos on the upstream control plane: kube-controller-manager's own garbage collector, run as
//! a process of its own whose every request passes through the [`Faults`] proxy (an HTTP
//! server in this process that forwards to the real kube-apiserver with admin credentials),
//! killed and restarted cold as the plan says, and judged by the same model as on the fake.
//!
//! One control plane (etcd, kube-apiserver, and a controller manager with every controller but
//! the garbage collector, so that namespaces are still cleaned up) serves every run; runs are
//! sequential and their names carry their seeds. Time is real, so a run is not a reproduction
//! of another: a seed replays the same plan, not the same interleaving.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use kubegc::apiserver::status::ApiError;
use kubegc_control_plane::build::Upstream;
use kubegc_control_plane::control_plane::{ALL_BUT_GARBAGE_COLLECTOR, ControlPlane, ControllerManager, GARBAGE_COLLECTOR_ONLY, Tuning};
use tower::ServiceExt;

use crate::chaos::faults::Faults;
use crate::chaos::plan::Plan;
use crate::chaos::{Bench, Report, actions, model, play};

/// How long a run on the upstream control plane may take to come to rest after its burst.
pub const SETTLE_LIMIT: Duration = Duration::from_secs(120);

/// How long the end state must keep to the model's liveness before a run counts as settled
/// (the collector works on its own clock; a moment of rest may be a pause between two steps).
const HOLD: Duration = Duration::from_secs(3);

/// How often `settle` looks at the end state.
const POLL: Duration = Duration::from_millis(500);

/// The upstream control plane, the fault proxy, and the garbage collector while it runs.
pub struct UpstreamBench {
    /// Dropped (stopped) before the control plane it works on.
    collector: Option<ControllerManager>,
    proxy: Proxy,
    upstream: Upstream,
    client: kube::Client,
    plane: ControlPlane,
}

impl UpstreamBench {
    /// Builds what is missing, starts the control plane without its garbage collector and the
    /// fault proxy in front of it.
    pub async fn start(upstream: Upstream) -> anyhow::Result<Self> {
        let plane = ControlPlane::start(&upstream, ALL_BUT_GARBAGE_COLLECTOR).await.context("cannot start the upstream control plane")?;
        let client = admin_client(plane.kubeconfig(), None).await?;
        let proxy = Proxy::start(admin_client(plane.kubeconfig(), Some("kubegc-chaos-proxy")).await?).await?;
        Ok(Self { collector: None, proxy, upstream, client, plane })
    }

    /// Deletes what the run of `plan` left, and stops its collector.
    pub async fn clean_up(&mut self, plan: &Plan) -> anyhow::Result<()> {
        actions::clean_up(&self.client, plan).await?;
        self.kill_collector().await;
        Ok(())
    }
}

impl Bench for UpstreamBench {
    fn client(&self) -> kube::Client {
        self.client.clone()
    }

    async fn start_collector(&mut self, faults: &Arc<Faults>) -> anyhow::Result<()> {
        self.kill_collector().await;
        self.proxy.serve(faults);
        let kcm = ControllerManager::spawn(&self.upstream, &self.proxy.kubeconfig(), GARBAGE_COLLECTOR_ONLY, Tuning::default()).await?;
        self.collector = Some(kcm);
        Ok(())
    }

    async fn kill_collector(&mut self) {
        if let Some(kcm) = self.collector.take() {
            kcm.kill();
        }
    }

    async fn settle(&mut self, plan: &Plan, uids: &[String]) -> anyhow::Result<Result<(), String>> {
        let limit = self.settle_limit();
        let start = Instant::now();
        let mut calm_since: Option<Instant> = None;
        loop {
            self.plane.check_running()?;
            if let Some(kcm) = &mut self.collector {
                kcm.check_running()?;
            }
            let found = actions::observe(&self.client, plan, uids).await?;
            let pending = model::judge(plan, uids, &found).liveness;
            if pending.is_empty() {
                let since = *calm_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= HOLD {
                    return Ok(Ok(()));
                }
            } else {
                calm_since = None;
            }
            if start.elapsed() > limit {
                return Ok(Err(pending.join("; ")));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    fn settle_limit(&self) -> Duration {
        SETTLE_LIMIT
    }
}

/// A client with the control plane's admin credentials, named `agent` in the server's logs if
/// given, with no read timeout (it carries watches that are quiet for minutes).
async fn admin_client(kubeconfig: &Path, agent: Option<&str>) -> anyhow::Result<kube::Client> {
    let kubeconfig = kube::config::Kubeconfig::read_from(kubeconfig)?;
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await?;
    config.read_timeout = None;
    if let Some(agent) = agent {
        config.headers.push((http::header::USER_AGENT, http::HeaderValue::from_str(agent)?));
    }
    Ok(kube::Client::try_from(config)?)
}

/// The fault proxy: plain HTTP on a loopback port, forwarding every request to the API server
/// through the faults of the current run.
struct Proxy {
    faults: Arc<Mutex<Option<Arc<Faults>>>>,
    /// A kubeconfig for the proxy (no TLS, no credentials), in a directory removed on drop.
    dir: tempfile::TempDir,
    server: tokio::task::JoinHandle<()>,
}

/// What the proxy's requests see.
#[derive(Clone)]
struct Shared {
    faults: Arc<Mutex<Option<Arc<Faults>>>>,
    forward: axum::Router,
}

impl Proxy {
    /// Listens on a free loopback port, forwarding with `client`; no faults until
    /// [`Proxy::serve`].
    async fn start(client: kube::Client) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let dir = tempfile::Builder::new().prefix("kubegc-chaos-").tempdir()?;
        std::fs::write(dir.path().join("kubeconfig"), proxy_kubeconfig(port))?;
        let faults = Arc::new(Mutex::new(None));
        let forward = axum::Router::new().fallback(forward).with_state(client);
        let router = axum::Router::new().fallback(dispatch).with_state(Shared { faults: faults.clone(), forward });
        let server = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router).await {
                tracing::error!("the chaos proxy stopped: {e}");
            }
        });
        Ok(Self { faults, dir, server })
    }

    /// Passes the requests from now on through `faults`.
    fn serve(&self, faults: &Arc<Faults>) {
        *self.faults.lock().unwrap_or_else(|p| p.into_inner()) = Some(faults.clone());
    }

    /// The kubeconfig that points at the proxy.
    fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// A kubeconfig for plain HTTP at `port` on loopback, with no credentials.
fn proxy_kubeconfig(port: u16) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: chaos\n  cluster:\n    server: http://127.0.0.1:{port}\nusers:\n- name: chaos\n  user: {{}}\ncontexts:\n- name: chaos\n  context:\n    cluster: chaos\n    user: chaos\ncurrent-context: chaos\n"
    )
}

/// Sends `request` on through the current run's faults (none before the first run).
async fn dispatch(State(shared): State<Shared>, request: Request) -> Response {
    let faults = shared.faults.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let router = match faults {
        Some(faults) => faults.wrap(shared.forward),
        None => shared.forward,
    };
    match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// Headers that belong to one connection, or that the forwarding client sets itself.
const NOT_FORWARDED: [http::HeaderName; 7] = [
    http::header::HOST,
    http::header::AUTHORIZATION,
    http::header::CONNECTION,
    http::header::CONTENT_LENGTH,
    http::header::TRANSFER_ENCODING,
    // Answers pass through as they are; compressed ones would be for the proxy's client.
    http::header::ACCEPT_ENCODING,
    http::header::UPGRADE,
];

/// Forwards `request` to the API server with the admin client, streaming the answer (watches).
async fn forward(State(client): State<kube::Client>, request: Request) -> Response {
    match try_forward(&client, request).await {
        Ok(response) => response,
        Err(e) => ApiError::internal(format!("chaos proxy: {e:#}")).into_response(),
    }
}

async fn try_forward(client: &kube::Client, request: Request) -> anyhow::Result<Response> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await?.to_bytes();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut out = http::Request::builder().method(parts.method).uri(path);
    for (name, value) in parts.headers.iter().filter(|(name, _)| !NOT_FORWARDED.contains(name)) {
        out = out.header(name, value);
    }
    let answer = client.send(out.body(kube::client::Body::from(body))?).await?;
    let (mut parts, body) = answer.into_parts();
    for name in [http::header::CONNECTION, http::header::TRANSFER_ENCODING, http::header::CONTENT_LENGTH] {
        parts.headers.remove(name);
    }
    Ok(Response::from_parts(parts, axum::body::Body::new(body)))
}

/// What to run on the upstream control plane.
#[derive(Clone, Debug)]
pub struct Options {
    /// Runs, one after another.
    pub runs: u64,
    /// Seed of the first run; run `i` has seed `seed + i`.
    pub seed: u64,
    /// Whether to print each run's seed, verdict and time on standard error.
    pub progress: bool,
}

/// Starts the control plane and makes the runs one after another (failing runs are reported,
/// not shrunk: only the fake replays a seed exactly).
pub fn run_many(options: &Options) -> anyhow::Result<Report> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let started = Instant::now();
        let mut bench = UpstreamBench::start(Upstream::locate()).await?;
        let mut report = Report::default();
        for i in 0..options.runs {
            let seed = options.seed.wrapping_add(i);
            let plan = Plan::draw(seed);
            let run_started = Instant::now();
            let outcome = play(&mut bench, &plan).await.with_context(|| format!("seed {seed}"))?;
            bench.clean_up(&plan).await.with_context(|| format!("cleaning up after seed {seed}"))?;
            report.add(seed, &outcome);
            if options.progress {
                let verdict = if outcome.verdict.passed() { "kept to the model" } else { "BROKE THE MODEL" };
                eprintln!(
                    "chaos: seed {seed} ({}/{}): {verdict}, {} faults, {} restarts, {:.1?}",
                    i + 1,
                    options.runs,
                    outcome.faults.values().sum::<u64>(),
                    outcome.restarts,
                    run_started.elapsed()
                );
                for line in outcome.verdict.safety.iter().chain(&outcome.verdict.liveness) {
                    eprintln!("chaos:   {line}");
                }
            }
        }
        report.elapsed = started.elapsed();
        Ok(report)
    })
}
