//! Answer rendering: the JSON body of an object or a list in the representation the client
//! asked for (full, `PartialObjectMetadata`, `Table`), and the streamed body of a watch.

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::{StatusCode, header};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::apiserver::http::request::Representation;
use crate::apiserver::http::table;
use crate::apiserver::storage::Scope;
use crate::apiserver::storage::read::Listed;

/// A JSON answer with status `code`.
pub fn json_response(code: u16, body: &Value) -> Response {
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    (code, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// One object in representation `repr`; `now` dates a Table's ages.
pub fn object_as(repr: Representation, scope: &Scope, object: Value, now: DateTime<Utc>) -> Value {
    match repr {
        Representation::Full => object,
        Representation::Metadata => table::partial_metadata(&object),
        Representation::Table => {
            let meta = json!({"resourceVersion": object["metadata"]["resourceVersion"]});
            table::table(&scope.resource, &[object], meta, now)
        }
    }
}

/// A list page in representation `repr`.
pub fn list_as(repr: Representation, scope: &Scope, listed: Listed, now: DateTime<Utc>) -> Value {
    match repr {
        Representation::Full => list_body(scope, listed),
        Representation::Metadata => table::partial_metadata_list(&list_body(scope, listed)),
        Representation::Table => table::table(&scope.resource, &listed.items, list_meta(&listed), now),
    }
}

/// The `metadata` of a list page.
pub fn list_meta(listed: &Listed) -> Value {
    let mut meta = json!({"resourceVersion": listed.revision.to_string()});
    if let Some(c) = &listed.continue_token {
        meta["continue"] = json!(c);
    }
    if let Some(r) = listed.remaining {
        meta["remainingItemCount"] = json!(r);
    }
    meta
}

/// The JSON body of a list.
pub fn list_body(scope: &Scope, listed: Listed) -> Value {
    let meta = list_meta(&listed);
    json!({
        "kind": format!("{}List", scope.resource.kind),
        "apiVersion": scope.resource.api_version(&scope.version),
        "metadata": meta,
        "items": listed.items,
    })
}

/// The streamed answer to a watch, one line per event.
pub fn watch_stream(lines: mpsc::Receiver<Bytes>) -> Response {
    let stream = futures::StreamExt::map(ReceiverStream::new(lines), Ok::<Bytes, std::convert::Infallible>);
    Response::builder()
        .status(200)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CACHE_CONTROL, "no-cache, private")
        .body(Body::from_stream(stream))
        .expect("valid response")
}
