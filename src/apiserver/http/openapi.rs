//! The OpenAPI v3 routes as kube-apiserver answers them, whatever the method: the index through
//! the aggregator's handler (`http.ServeContent` with no content type, so Go sniffs
//! `text/plain`), a document through kube-openapi's `handler3.HandleGroupVersion` (JSON only:
//! the protobuf form it also offers is not served, so a client that prefers it gets 406).

use std::sync::{Arc, LazyLock};

use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use chrono::{Months, Utc};
use http::{HeaderMap, HeaderValue, Method, StatusCode, header};

use crate::apiserver::http::decode::header_str;
use crate::apiserver::http::request::Query;
use crate::apiserver::openapi;
use crate::apiserver::server::Server;

/// When the documents were last changed, as `Last-Modified`: when this process first served one.
static LAST_MODIFIED: LazyLock<String> = LazyLock::new(|| Utc::now().format("%a, %d %b %Y %H:%M:%S GMT").to_string());

/// `/openapi/v3`, any method.
pub async fn index(State(server): State<Arc<Server>>) -> Response {
    let body = openapi::index(&server.lock().catalogue).to_string();
    let headers = [
        (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
        (header::ACCEPT_RANGES, "bytes"),
        (header::LAST_MODIFIED, LAST_MODIFIED.as_str()),
    ];
    (headers, body).into_response()
}

/// `/openapi/v3/{path}`, any method: the document, a 301 to its current hash when the request
/// names another, 304 when the client holds it, 406 when it accepts no JSON and an empty 404
/// when there is no such document; an empty 200 when the Accept header has no media range.
pub async fn document(State(server): State<Arc<Server>>, Path(path): Path<String>, request: Request) -> Response {
    let Some(document) = openapi::document(&server.lock().catalogue, &path) else { return StatusCode::NOT_FOUND.into_response() };
    let mut headers = HeaderMap::new();
    headers.insert(header::VARY, HeaderValue::from_static("Accept"));
    let accept = header_str(request.headers(), header::ACCEPT).filter(|a| !a.is_empty()).unwrap_or("*/*");
    match accepts_json(accept) {
        // kube-openapi's handler3 writes nothing for an Accept of no clause it can parse.
        None => return (StatusCode::OK, headers).into_response(),
        Some(false) => return (StatusCode::NOT_ACCEPTABLE, headers).into_response(),
        Some(true) => {}
    }
    let etag = format!("\"{}\"", document.hash);
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::ETAG, HeaderValue::from_str(&etag).expect("a hex hash is a header value"));
    if let Some(hash) = Query::parse(request.uri().query()).get("hash").filter(|h| !h.is_empty()) {
        if hash != document.hash {
            let location = format!("/openapi/v3/{path}?hash={}", document.hash);
            headers.insert(header::LOCATION, HeaderValue::from_str(&location).expect("a served path is a header value"));
            return (StatusCode::MOVED_PERMANENTLY, headers).into_response();
        }
        let expires = Utc::now().checked_add_months(Months::new(12)).unwrap_or_else(Utc::now);
        let expires = expires.format("%a, %d %b %Y %H:%M:%S UTC").to_string();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, immutable"));
        headers.insert(header::EXPIRES, HeaderValue::from_str(&expires).expect("a date is a header value"));
    }
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    headers.insert(header::LAST_MODIFIED, HeaderValue::from_str(&LAST_MODIFIED).expect("a date is a header value"));
    // http.ServeContent: an If-None-Match naming the ETag is 304 for a GET or HEAD, 412 else.
    let held = header_str(request.headers(), header::IF_NONE_MATCH)
        .is_some_and(|tags| tags.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    if held {
        let read = matches!(*request.method(), Method::GET | Method::HEAD);
        return (if read { StatusCode::NOT_MODIFIED } else { StatusCode::PRECONDITION_FAILED }, headers).into_response();
    }
    (StatusCode::OK, headers, document.bytes).into_response()
}

/// Whether the media range goautoneg ranks first among those kube-openapi can serve asks for
/// JSON: its clauses by quality, then the specific before wildcards; `None` when goautoneg
/// finds no clause at all.
fn accepts_json(accept: &str) -> Option<bool> {
    let mut clauses: Vec<(f32, &str, &str)> = accept
        .split(',')
        .filter_map(|clause| {
            let mut params = clause.trim_matches(' ').split(';');
            let (kind, subtype) = match params.next()?.split_once('/') {
                Some((_, sub)) if sub.contains('/') => return None,
                Some((kind, sub)) => (kind.trim_matches(' '), sub.trim_matches(' ')),
                None if clause.trim_matches(' ') == "*" => ("*", "*"),
                None => return None,
            };
            let q = params
                .filter_map(|p| p.split_once('='))
                .find(|(k, _)| k.trim_matches(' ') == "q")
                .map_or(1.0, |(_, v)| v.parse().unwrap_or(0.0));
            Some((q, kind, subtype))
        })
        .collect();
    clauses.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1 == "*").cmp(&(b.1 == "*"))).then((a.2 == "*").cmp(&(b.2 == "*"))));
    let served = [
        ("application", "json"),
        ("application", "com.github.proto-openapi.spec.v3@v1.0+protobuf"),
        ("application", "com.github.proto-openapi.spec.v3.v1.0+protobuf"),
    ];
    if clauses.is_empty() {
        return None;
    }
    let first = clauses.iter().find_map(|(_, kind, subtype)| {
        served.iter().find(|(k, s)| (kind == k || *kind == "*") && (subtype == s || *subtype == "*")).map(|(_, s)| *s == "json")
    });
    Some(first.unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::accepts_json;

    #[test]
    fn json_is_served_when_it_is_the_first_servable_clause() {
        assert_eq!(accepts_json("*/*"), Some(true));
        assert_eq!(accepts_json("application/json"), Some(true));
        assert_eq!(accepts_json("application/yaml, application/json;q=0.5"), Some(true));
        assert_eq!(accepts_json("application/com.github.proto-openapi.spec.v3@v1.0+protobuf;q=0.1, application/json"), Some(true));
        assert_eq!(accepts_json("application/yaml"), Some(false));
        assert_eq!(accepts_json("application/com.github.proto-openapi.spec.v3@v1.0+protobuf, application/json"), Some(false));
        assert_eq!(accepts_json(";;;"), None);
    }
}
