//! A fault-injecting proxy between a collector and the fake apiserver: seeded, re-armed for
//! every collector life. It refuses the first answers of a life with 5xx or 429, holds back the
//! first lists of a few resources (so that the collector starts with some monitors synced and
//! others not: the window of kubernetes issue 88097), refuses a few requests at random, and
//! loses a few responses after the server has acted on the request. It also counts the requests
//! of the current life, which is how a run picks the random points at which it kills the
//! collector.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use kube::api::ApiResource;
use kubegc::apiserver::ApiServer;
use kubegc::apiserver::status::ApiError;

/// What one life's faults are.
#[derive(Debug, Default)]
struct Plan {
    /// Requests still to refuse at the start of the life, whatever they are.
    refuse_first: u32,
    /// Lists (by collection path) still to refuse.
    held_lists: HashMap<String, u32>,
    /// Chance, per thousand requests, of a refusal.
    refuse_per_mille: u32,
    /// Chance, per thousand requests, of losing the response after the server acted.
    lose_per_mille: u32,
}

/// What to do with one request.
enum Fault {
    Pass,
    Refuse(ApiError),
    LoseResponse,
}

/// The proxy's state, shared by the requests that pass through it.
#[derive(Debug)]
pub struct Faults {
    plan: Mutex<Plan>,
    rng: Mutex<fastrand::Rng>,
    requests: AtomicU64,
}

impl Faults {
    /// A proxy with no faults armed, drawing its random choices from `seed`.
    pub fn new(seed: u64) -> Arc<Self> {
        Arc::new(Self { plan: Mutex::new(Plan::default()), rng: Mutex::new(fastrand::Rng::with_seed(seed)), requests: AtomicU64::new(0) })
    }

    /// A client for `server` whose every request passes through this proxy.
    pub fn client(self: &Arc<Self>, server: &ApiServer) -> kube::Client {
        let router = server.router().layer(middleware::from_fn_with_state(self.clone(), intercept));
        kube::Client::new(router, "default")
    }

    /// Arms a new life's faults among `resources` and resets the request count.
    pub fn arm(&self, rng: &mut fastrand::Rng, resources: &[ApiResource]) {
        let mut held_lists = HashMap::new();
        for _ in 0..rng.usize(1..=2) {
            held_lists.insert(collection_path(&resources[rng.usize(..resources.len())]), rng.u32(1..=3));
        }
        *self.plan.lock().unwrap_or_else(|p| p.into_inner()) =
            Plan { refuse_first: if rng.bool() { rng.u32(1..=4) } else { 0 }, held_lists, refuse_per_mille: 20, lose_per_mille: 10 };
        self.requests.store(0, Ordering::SeqCst);
    }

    /// Turns every fault off.
    pub fn disarm(&self) {
        *self.plan.lock().unwrap_or_else(|p| p.into_inner()) = Plan::default();
    }

    /// Requests seen since the life's faults were armed.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    fn decide(&self, request: &Request) -> Fault {
        self.requests.fetch_add(1, Ordering::SeqCst);
        let mut plan = self.plan.lock().unwrap_or_else(|p| p.into_inner());
        if plan.refuse_first > 0 {
            plan.refuse_first -= 1;
            let error = if plan.refuse_first.is_multiple_of(2) {
                ApiError::too_many_requests("injected: overloaded")
            } else {
                ApiError::internal("injected: not ready yet")
            };
            return Fault::Refuse(error);
        }
        let is_watch = request.uri().query().is_some_and(|q| q.split('&').any(|p| p == "watch=true" || p == "watch=1"));
        if request.method() == http::Method::GET
            && !is_watch
            && let Some(left) = plan.held_lists.get_mut(request.uri().path())
            && *left > 0
        {
            *left -= 1;
            return Fault::Refuse(ApiError::internal("injected: list held back"));
        }
        let roll = self.rng.lock().unwrap_or_else(|p| p.into_inner()).u32(..1000);
        if roll < plan.refuse_per_mille {
            Fault::Refuse(ApiError::internal("injected: request refused"))
        } else if roll < plan.refuse_per_mille + plan.lose_per_mille {
            Fault::LoseResponse
        } else {
            Fault::Pass
        }
    }
}

/// The path a monitor lists `resource` at (every namespace).
fn collection_path(resource: &ApiResource) -> String {
    if resource.group.is_empty() {
        format!("/api/{}/{}", resource.version, resource.plural)
    } else {
        format!("/apis/{}/{}/{}", resource.group, resource.version, resource.plural)
    }
}

async fn intercept(State(faults): State<Arc<Faults>>, request: Request, next: Next) -> Response {
    match faults.decide(&request) {
        Fault::Pass => next.run(request).await,
        Fault::Refuse(error) => error.into_response(),
        Fault::LoseResponse => {
            drop(next.run(request).await);
            ApiError::internal("injected: response lost").into_response()
        }
    }
}
