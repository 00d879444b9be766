//! The REST front: routes a resource URL and method to a verb, decodes bodies and options,
//! and renders results in the representation the client asked for.

pub mod create;
pub mod delete;
pub mod read;
pub mod update;
pub mod watch;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State as AxumState};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode, header};
use serde_json::{Value, json};
use tokio_stream::wrappers::ReceiverStream;

use crate::apiserver::Shared;
use crate::apiserver::deletion::{DeleteOptions, DeleteRequest};
use crate::apiserver::mutant::Mutable;
use crate::apiserver::protobuf;
use crate::apiserver::request::{Query, Representation, ResourcePath};
use crate::apiserver::rest::read::{Selection, list_body, list_meta};
use crate::apiserver::rest::update::Target;
use crate::apiserver::rest::watch::WatchRequest;
use crate::apiserver::schema::WriteOptions;
use crate::apiserver::state::Scope;
use crate::apiserver::status::{ApiError, ApiResult, page_not_found};
use crate::apiserver::table;

/// The largest request body accepted, as kube-apiserver's 3 MiB limit.
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

fn json_response(code: u16, body: &Value) -> Response {
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    (code, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Decodes a create or update body (JSON, or YAML as kubectl may send).
fn decode_object(headers: &HeaderMap, body: &[u8]) -> ApiResult<Value> {
    let content_type = header_str(headers, header::CONTENT_TYPE).unwrap_or("application/json");
    let essence = content_type.split(';').next().unwrap_or("").trim();
    if protobuf::is_protobuf(content_type) {
        return protobuf::decode(body).map_err(ApiError::bad_request);
    }
    let value: Value = match essence {
        "application/json" | "" | "*/*" => serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request(format!("the object provided is unrecognized: couldn't decode JSON: {e}")))?,
        "application/yaml" => serde_yaml::from_slice(body).map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))?,
        _ => {
            return Err(ApiError::unsupported_media_type(&["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"]));
        }
    };
    if !value.is_object() {
        return Err(ApiError::bad_request("the object provided is unrecognized: expected a JSON object"));
    }
    Ok(value)
}

/// A DELETE body as JSON: typed clients send `DeleteOptions` as protobuf.
fn delete_body(headers: &HeaderMap, body: &Bytes) -> ApiResult<Bytes> {
    match header_str(headers, header::CONTENT_TYPE) {
        Some(ct) if protobuf::is_protobuf(ct) && !body.is_empty() => {
            Ok(Bytes::from(protobuf::decode(body).map_err(ApiError::bad_request)?.to_string()))
        }
        _ => Ok(body.clone()),
    }
}

/// The `DeleteOptions` of a DELETE, read and validated as the server's mutant makes them.
fn delete_options(shared: &Shared, headers: &HeaderMap, body: &Bytes, query: &Query) -> ApiResult<DeleteOptions> {
    DeleteRequest::parse(&delete_body(headers, body)?, query)?.mutated_by(shared.config.mutant).validate()
}

/// Renders one object.
fn render_object(repr: Representation, scope: &Scope, object: Value, shared: &Shared) -> Value {
    match repr {
        Representation::Full => object,
        Representation::Metadata => table::partial_metadata(&object),
        Representation::Table => {
            let meta = json!({"resourceVersion": object["metadata"]["resourceVersion"]});
            table::table(&scope.resource, &[object], meta, shared.clock.now())
        }
    }
}

/// Serves every resource URL.
pub async fn handle(AxumState(shared): AxumState<Arc<Shared>>, request: Request) -> Response {
    match dispatch(&shared, request).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

async fn dispatch(shared: &Arc<Shared>, request: Request) -> ApiResult<Response> {
    let (parts, body) = request.into_parts();
    let Some(path) = ResourcePath::parse(parts.uri.path()) else {
        let under_api = parts.uri.path() == "/api" || parts.uri.path().starts_with("/api/");
        return if under_api { Err(ApiError::not_found_path()) } else { Ok(page_not_found()) };
    };
    if !path.group.is_empty() && !shared.lock().registry.serves_group(&path.group) {
        return Ok(page_not_found());
    }
    let query = Query::parse(parts.uri.query());
    let repr = Representation::negotiate(header_str(&parts.headers, header::ACCEPT))?;
    let body: Bytes = axum::body::to_bytes(body, MAX_BODY_BYTES).await.map_err(|_| ApiError::too_large(MAX_BODY_BYTES))?;
    let scope = shared.lock().scope(&path.group, &path.version, &path.resource, path.namespace.clone())?;
    if scope.resource.namespaced && path.namespace.is_none() && path.name.is_some() {
        return Err(ApiError::not_found_path());
    }
    let name = path.name.as_deref();
    let method = parts.method.clone();
    let is_watch = path.watch_prefix || query.flag("watch")?.unwrap_or(false);

    match (method, name) {
        (Method::GET, _) if is_watch => watch(shared, &scope, &query, repr, name),
        (Method::GET, Some(name)) => {
            Target::from_subresource(&scope, path.subresource.as_deref())?;
            let object = shared.lock().get(&scope, name)?;
            Ok(json_response(200, &render_object(repr, &scope, object, shared)))
        }
        (Method::GET, None) => {
            let selection = Selection::from_query(&query, &scope)?;
            let listed = shared.lock().list(&scope, &selection, &query)?;
            let body = match repr {
                Representation::Full => list_body(&scope, listed),
                Representation::Metadata => table::partial_metadata_list(&list_body(&scope, listed)),
                Representation::Table => table::table(&scope.resource, &listed.items, list_meta(&listed), shared.clock.now()),
            };
            Ok(json_response(200, &body))
        }
        (Method::POST, None) => {
            let object = decode_object(&parts.headers, &body)?;
            let created = shared.lock().create(&scope, object, WriteOptions::from_query(&query)?)?;
            Ok(json_response(201, &render_object(repr, &scope, created, shared)))
        }
        (Method::PUT, Some(name)) => {
            let target = Target::from_subresource(&scope, path.subresource.as_deref())?;
            let object = decode_object(&parts.headers, &body)?;
            let updated = shared.lock().update(&scope, name, object, target, WriteOptions::from_query(&query)?)?;
            Ok(json_response(200, &render_object(repr, &scope, updated, shared)))
        }
        (Method::PATCH, Some(name)) => {
            let target = Target::from_subresource(&scope, path.subresource.as_deref())?;
            let content_type = header_str(&parts.headers, header::CONTENT_TYPE).unwrap_or("");
            let patched = shared.lock().patch(&scope, name, content_type, &body, target, WriteOptions::from_query(&query)?)?;
            Ok(json_response(200, &render_object(repr, &scope, patched, shared)))
        }
        (Method::DELETE, Some(name)) if path.subresource.is_none() => {
            let opts = delete_options(shared, &parts.headers, &body, &query)?;
            let deleted = shared.lock().delete(&scope, name, &opts)?;
            Ok(json_response(deleted.code, &deleted.body))
        }
        // The namespace registry has no DeleteCollection: one request may not end every namespace.
        (Method::DELETE, None) if scope.is_namespaces() => Err(ApiError::method_not_allowed()),
        (Method::DELETE, None) => {
            let opts = delete_options(shared, &parts.headers, &body, &query)?;
            let selection = Selection::from_query(&query, &scope)?;
            let listed = shared.lock().delete_collection(&scope, &selection, &query, &opts)?;
            Ok(json_response(200, &list_body(&scope, listed)))
        }
        _ => Err(ApiError::method_not_allowed()),
    }
}

fn watch(shared: &Arc<Shared>, scope: &Scope, query: &Query, repr: Representation, name: Option<&str>) -> ApiResult<Response> {
    let mut request = WatchRequest::from_query(query, scope, repr)?;
    if let Some(name) = name {
        let by_name = format!("metadata.name={name}");
        let combined = match query.get("fieldSelector") {
            Some(f) => format!("{f},{by_name}"),
            None => by_name,
        };
        request.selection.fields = crate::apiserver::selectors::FieldSelector::parse(&combined, &scope.resource)?;
    }
    let rx = {
        let state = shared.lock();
        watch::start(&state, scope.clone(), request, shared.config.bookmark_interval)
    };
    let stream = futures::StreamExt::map(ReceiverStream::new(rx), Ok::<Bytes, std::convert::Infallible>);
    Ok(Response::builder()
        .status(200)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CACHE_CONTROL, "no-cache, private")
        .body(Body::from_stream(stream))
        .expect("valid response"))
}
