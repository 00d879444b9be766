//! The collector's debug endpoints, as kube-controller-manager serves them:
//! `/debug/controllers/garbagecollector/graph` (DOT; `?uid=` repeats to select the part of the
//! graph connected to those objects) and `/metrics` (Prometheus text).

use std::sync::Arc;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::response::IntoResponse;
use axum::routing::get;
use kubegc::gc::GarbageCollector;

/// Routes serving `gc`'s graph and counters.
pub fn router(gc: Arc<GarbageCollector>) -> Router {
    Router::new().route("/debug/controllers/garbagecollector/graph", get(graph)).route("/metrics", get(metrics)).with_state(gc)
}

async fn graph(State(gc): State<Arc<GarbageCollector>>, RawQuery(query): RawQuery) -> impl IntoResponse {
    let uids: Vec<String> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes()).filter(|(k, _)| k == "uid").map(|(_, v)| v.into_owned()).collect();
    ([(axum::http::header::CONTENT_TYPE, "text/vnd.graphviz")], gc.graph_dot(&uids))
}

async fn metrics(State(gc): State<Arc<GarbageCollector>>) -> impl IntoResponse {
    ([(axum::http::header::CONTENT_TYPE, "text/plain; version=0.0.4")], gc.metrics_text())
}
