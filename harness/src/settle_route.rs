//! `GET /kubegc/v1/settle?timeout=30s` on `kubegc serve`: waits until the served cluster has
//! settled — the garbage collector and every controller have seen every change and have nothing
//! left to do (see [`kubegc::Cluster::try_settle`]) — so that a test in any language reads the
//! outcome instead of sleeping. The answer is a Status, as kube-apiserver's: `200 Success`, or
//! `504 Timeout` with what is still pending; a `timeout` Go cannot parse is `400 BadRequest`.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use kubegc::Cluster;
use kubegc::apiserver::status::ApiError;
use serde_json::json;

/// Where the endpoint is served.
pub const PATH: &str = "/kubegc/v1/settle";

/// How long a request without `timeout` waits.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The route serving `cluster`'s settle endpoint.
pub fn router(cluster: Arc<Cluster>) -> Router {
    Router::new().route(PATH, get(settle)).with_state(cluster)
}

async fn settle(State(cluster): State<Arc<Cluster>>, RawQuery(query): RawQuery) -> Response {
    let asked = form_urlencoded::parse(query.unwrap_or_default().as_bytes()).find(|(k, _)| k == "timeout").map(|(_, v)| v.into_owned());
    let timeout = match asked.as_deref().map(kubegc::go_duration::parse) {
        None => DEFAULT_TIMEOUT,
        Some(Ok(d)) => d.to_std().unwrap_or_default(),
        Some(Err(e)) => {
            let message = e.message(asked.as_deref().unwrap_or_default(), |s| format!("{s:?}"));
            return ApiError::bad_request(format!("invalid timeout: {message}")).into_response();
        }
    };
    match cluster.try_settle(timeout).await {
        Ok(()) => axum::Json(json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "message": "the cluster has settled", "code": 200}))
        .into_response(),
        Err(pending) => ApiError::timeout(pending).into_response(),
    }
}
