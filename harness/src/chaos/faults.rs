//! The faults a chaos run injects into the collector's traffic: a proxy in front of the API
//! server (an axum middleware, so it wraps the fake's router or a forwarding proxy alike),
//! re-armed for every collector life. It refuses the first answers of a life, holds back the
//! first lists of a few resources (so that a collector starts with some monitors synced and
//! others not: the window of kubernetes issue 88097), and then, at the run's rates:
//!
//! - refuses a request with 500, or with 429 and `Retry-After`, or a write with 409 Conflict;
//! - loses the response after the server has acted on the request;
//! - answers slowly;
//! - cuts a watch stream after a few events, or answers a watch that resumes from a
//!   resourceVersion with 410 Gone, as a server whose history was compacted does.
//!
//! Every choice is drawn from a seeded generator, in the order the requests arrive, so a run
//! whose requests arrive in the same order meets the same faults. The proxy also keeps a
//! fingerprint of the traffic it saw (each request and its answer's status), which is how two
//! runs of a seed are shown to be the same run.

use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use kube::api::ApiResource;
use kubegc::apiserver::status::ApiError;

/// How often each fault hits a request, per thousand, for a whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rates {
    /// 500 Internal Server Error.
    pub refuse: u32,
    /// 429 Too Many Requests with `Retry-After: 1`.
    pub throttle: u32,
    /// 409 Conflict, on writes only.
    pub conflict: u32,
    /// The server acts, the answer is lost (500).
    pub lose: u32,
    /// The answer comes after up to two seconds.
    pub slow: u32,
    /// A watch stream ends after a few events.
    pub cut_watch: u32,
    /// A watch that resumes from a resourceVersion gets 410 Gone.
    pub expire_watch: u32,
}

impl Rates {
    /// No faults at all.
    pub const NONE: Rates = Rates { refuse: 0, throttle: 0, conflict: 0, lose: 0, slow: 0, cut_watch: 0, expire_watch: 0 };

    /// Random rates, each up to a few percent (watch faults up to a fifth of the watches).
    pub fn draw(rng: &mut fastrand::Rng) -> Self {
        Rates {
            refuse: rng.u32(0..=30),
            throttle: rng.u32(0..=30),
            conflict: rng.u32(0..=30),
            lose: rng.u32(0..=20),
            slow: rng.u32(0..=50),
            cut_watch: rng.u32(0..=200),
            expire_watch: rng.u32(0..=200),
        }
    }
}

/// One life's faults.
#[derive(Debug, Default)]
struct Plan {
    /// Requests still to refuse at the start of the life, whatever they are.
    refuse_first: u32,
    /// Lists (by collection path) still to refuse.
    held_lists: HashMap<String, u32>,
    rates: Rates,
}

/// What to do with one request.
enum Fault {
    Pass,
    Refuse(ApiError),
    Throttle,
    Conflict,
    LoseResponse,
    Slow(Duration),
    CutWatch(usize),
    ExpireWatch,
}

impl Fault {
    /// The name the report counts it under.
    fn name(&self) -> &'static str {
        match self {
            Fault::Pass => "none",
            Fault::Refuse(_) => "500 refusal",
            Fault::Conflict => "409 conflict",
            Fault::Throttle => "429 throttle",
            Fault::LoseResponse => "lost response",
            Fault::Slow(_) => "slow answer",
            Fault::CutWatch(_) => "cut watch",
            Fault::ExpireWatch => "410 on resume",
        }
    }
}

/// The proxy's state, shared by the requests that pass through it.
#[derive(Debug)]
pub struct Faults {
    plan: Mutex<Plan>,
    rng: Mutex<fastrand::Rng>,
    requests: AtomicU64,
    injected: Mutex<BTreeMap<&'static str, u64>>,
    fingerprint: Mutex<DefaultHasher>,
}

impl Faults {
    /// A proxy with no faults armed, drawing its random choices from `seed`.
    pub fn new(seed: u64) -> Arc<Self> {
        Arc::new(Self {
            plan: Mutex::new(Plan::default()),
            rng: Mutex::new(fastrand::Rng::with_seed(seed)),
            requests: AtomicU64::new(0),
            injected: Mutex::default(),
            fingerprint: Mutex::new(DefaultHasher::new()),
        })
    }

    /// `router` with every request passing through this proxy.
    pub fn wrap(self: &Arc<Self>, router: axum::Router) -> axum::Router {
        router.layer(middleware::from_fn_with_state(self.clone(), intercept))
    }

    /// Arms a new life's faults among `resources` at `rates`.
    pub fn arm(&self, rng: &mut fastrand::Rng, resources: &[ApiResource], rates: Rates) {
        let mut held_lists = HashMap::new();
        for _ in 0..rng.usize(0..=2).min(resources.len()) {
            held_lists.insert(collection_path(&resources[rng.usize(..resources.len())]), rng.u32(1..=3));
        }
        let refuse_first = if rng.bool() { rng.u32(1..=4) } else { 0 };
        *lock(&self.plan) = Plan { refuse_first, held_lists, rates };
    }

    /// Turns every fault off.
    pub fn disarm(&self) {
        *lock(&self.plan) = Plan::default();
    }

    /// Requests seen so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// Faults injected so far, by kind.
    pub fn injected(&self) -> BTreeMap<&'static str, u64> {
        lock(&self.injected).clone()
    }

    /// A hash of every request seen and the status it was answered with, in order.
    pub fn fingerprint(&self) -> u64 {
        lock(&self.fingerprint).finish()
    }

    fn record(&self, request: &str, status: u16) {
        let mut hasher = lock(&self.fingerprint);
        hasher.write(request.as_bytes());
        hasher.write_u16(status);
    }

    fn decide(&self, request: &Request) -> Fault {
        self.requests.fetch_add(1, Ordering::SeqCst);
        let mut plan = lock(&self.plan);
        let fault = self.choose(&mut plan, request);
        if !matches!(fault, Fault::Pass) {
            *lock(&self.injected).entry(fault.name()).or_default() += 1;
        }
        fault
    }

    fn choose(&self, plan: &mut Plan, request: &Request) -> Fault {
        if plan.refuse_first > 0 {
            plan.refuse_first -= 1;
            return if plan.refuse_first.is_multiple_of(2) {
                Fault::Throttle
            } else {
                Fault::Refuse(ApiError::internal("injected: not ready yet"))
            };
        }
        let query = request.uri().query().unwrap_or_default();
        let param = |name: &str| form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
        let is_watch = param("watch").is_some_and(|w| w == "true" || w == "1");
        let method = request.method();
        if method == http::Method::GET
            && !is_watch
            && let Some(left) = plan.held_lists.get_mut(request.uri().path())
            && *left > 0
        {
            *left -= 1;
            return Fault::Refuse(ApiError::internal("injected: list held back"));
        }
        let r = plan.rates;
        let mut rng = lock(&self.rng);
        let mut roll = rng.u32(..1000);
        let mut hit = |rate: u32| {
            let hit = roll < rate;
            roll = roll.saturating_sub(rate);
            hit
        };
        let is_write = [http::Method::POST, http::Method::PUT, http::Method::PATCH, http::Method::DELETE].contains(method);
        if is_watch {
            let resumes = param("resourceVersion").is_some_and(|rv| !rv.is_empty() && rv != "0");
            if resumes && hit(r.expire_watch) {
                return Fault::ExpireWatch;
            }
            if hit(r.cut_watch) {
                return Fault::CutWatch(rng.usize(0..5));
            }
            return Fault::Pass;
        }
        if hit(r.refuse) {
            Fault::Refuse(ApiError::internal("injected: request refused"))
        } else if hit(r.throttle) {
            Fault::Throttle
        } else if is_write && hit(r.conflict) {
            Fault::Conflict
        } else if hit(r.lose) {
            Fault::LoseResponse
        } else if hit(r.slow) {
            Fault::Slow(Duration::from_millis(rng.u64(1..=2000)))
        } else {
            Fault::Pass
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// The path a monitor lists `resource` at (every namespace).
pub fn collection_path(resource: &ApiResource) -> String {
    if resource.group.is_empty() {
        format!("/api/{}/{}", resource.version, resource.plural)
    } else {
        format!("/apis/{}/{}/{}", resource.group, resource.version, resource.plural)
    }
}

async fn intercept(State(faults): State<Arc<Faults>>, request: Request, next: Next) -> Response {
    let line = format!("{} {}", request.method(), request.uri());
    let fault = faults.decide(&request);
    let response = match fault {
        Fault::Pass => next.run(request).await,
        Fault::Refuse(error) => error.into_response(),
        Fault::Throttle => {
            let mut response = ApiError::too_many_requests("injected: overloaded, try again later").into_response();
            response.headers_mut().insert(http::header::RETRY_AFTER, http::HeaderValue::from_static("1"));
            response
        }
        Fault::Conflict => {
            let status = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 409,
                "reason": "Conflict", "message": "injected: the object has been modified; please apply your changes to the latest version and try again"});
            (http::StatusCode::CONFLICT, [(http::header::CONTENT_TYPE, "application/json")], status.to_string()).into_response()
        }
        Fault::LoseResponse => {
            drop(next.run(request).await);
            ApiError::internal("injected: response lost").into_response()
        }
        Fault::Slow(delay) => {
            tokio::time::sleep(delay).await;
            next.run(request).await
        }
        Fault::CutWatch(events) => {
            let (parts, body) = next.run(request).await.into_parts();
            Response::from_parts(parts, Body::from_stream(body.into_data_stream().take(events)))
        }
        Fault::ExpireWatch => {
            let status = ApiError::gone("injected: too old resource version").to_status();
            let line = serde_json::json!({"type": "ERROR", "object": status}).to_string() + "\n";
            ([(http::header::CONTENT_TYPE, "application/json")], line).into_response()
        }
    };
    faults.record(&line, response.status().as_u16());
    response
}
