//! Answer rendering: the JSON body of an object or a list in the representation the client
//! asked for (full, `PartialObjectMetadata`, `Table`), and the streamed body of a watch.

use std::sync::Arc;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::{StatusCode, header};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::apiserver::go_json;
use crate::apiserver::http::deep;
use crate::apiserver::http::pretty::Streamed;
use crate::apiserver::http::request::{Encoding, META_V1, META_V1BETA1, Representation};
use crate::apiserver::http::table;
use crate::apiserver::protobuf;
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::storage::Scope;
use crate::apiserver::storage::read::Listed;

/// A JSON answer with status `code`.
pub fn json_response(code: u16, body: &impl Serialize) -> Response {
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    let body = serde_json::to_vec(body).expect("a JSON value serializes");
    (code, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `response` in `encoding`: a JSON body re-encoded as YAML as upstream's YAML serializer writes
/// it (sorted keys) or as Kubernetes protobuf, with its `Content-Type`.
pub async fn encoded(response: Response, encoding: Encoding) -> Response {
    let is_json = response.headers().get(header::CONTENT_TYPE).is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if encoding == Encoding::Json || !is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return ApiError::internal("the answer could not be read to encode it".to_string()).into_response();
    };
    let transcode = || {
        let value = go_json::parse(&bytes).map_err(|_| "the answer is not JSON to encode".to_string())?;
        match encoding {
            Encoding::Protobuf => match protobuf::encode(&value) {
                Ok(body) => Ok((protobuf::MEDIA_TYPE, body)),
                Err(e) => Err(format!("the answer has no protobuf encoding: {e}")),
            },
            _ => match serde_saphyr::to_string(&value) {
                Ok(text) => Ok(("application/yaml", text.into_bytes())),
                Err(e) => Err(format!("the answer has no YAML encoding: {e}")),
            },
        }
    };
    // An object stored deeply nested is re-encoded on a stack to match.
    let transcoded = if deep::is_deep(&bytes) { stacker::grow(deep::DEEP_STACK_BYTES, transcode) } else { transcode() };
    let (media_type, body) = match transcoded {
        Ok(encoded) => encoded,
        Err(why) => return ApiError::internal(why).into_response(),
    };
    parts.headers.insert(header::CONTENT_TYPE, http::HeaderValue::from_static(media_type));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

/// One object in representation `repr`, with status `code`; `now` dates a Table's ages. 406
/// for the metadata of a list (500 for a custom resource): the handler has done its work when
/// it finds it cannot answer so (`asPartialObjectMetadataList`, k8s.io/apiserver
/// pkg/endpoints/handlers/response.go).
pub fn object_response(code: u16, repr: Representation, scope: &Scope, object: &Value, now: DateTime<Utc>) -> ApiResult<Response> {
    Ok(match repr {
        Representation::Full => json_response(code, object),
        Representation::Metadata(version) => json_response(code, &table::partial_metadata(object, version)),
        // An unstructured object has a list's methods, so the conversion gets as far as
        // walking its items (`Unstructured.EachListItem`, k8s.io/apimachinery
        // pkg/apis/meta/v1/unstructured/unstructured.go), which it has none of.
        Representation::MetadataList(_) if scope.resource.custom => return Err(ApiError::unknown("content is not a list")),
        Representation::MetadataList(_) => {
            let message =
                format!("you requested PartialObjectMetadataList, but the requested object is not a list ({})", go_type(scope, ""));
            return Err(ApiError::not_renderable(message));
        }
        Representation::Table(version) => {
            let meta = json!({"resourceVersion": object["metadata"]["resourceVersion"]});
            json_response(code, &table::table(&scope.resource, &[object], meta, now, version))
        }
    })
}

/// The Go type of the resource's objects (`suffix` "List": its lists) in the API server, as
/// `%T` prints it: the internal type of a built-in kind, unstructured for a custom resource.
fn go_type(scope: &Scope, suffix: &str) -> String {
    let resource = &scope.resource;
    if resource.custom {
        return format!("*unstructured.Unstructured{suffix}");
    }
    format!("*{}.{}{suffix}", resource.internal_package(), resource.kind)
}

/// A list page in representation `repr`. Full and metadata-only lists are streamed: each item
/// is encoded as the client reads the body, from the objects the store shares, so a list of
/// any length holds one chunk of its body at a time. 406 for the metadata of one object
/// (`asPartialObjectMetadata`), once the list (or collection delete) is done.
pub fn list_as(repr: Representation, scope: &Scope, listed: Listed, now: DateTime<Utc>) -> ApiResult<Response> {
    Ok(match repr {
        Representation::Full => {
            let kind = format!("{}List", scope.resource.kind);
            // A built-in list's items are typed Go structs with empty kind and apiVersion:
            // the encoder sets them on the list alone (apimachinery's runtime/helper.go,
            // `WithVersionEncoder`); a custom resource's items are unstructured and keep theirs.
            let (write, meta): (WriteItem, _) = if scope.resource.custom {
                // An unstructured list sets `continue` even when it is empty
                // (`UnstructuredList.SetContinue`, apimachinery's pkg/apis/meta/v1/unstructured).
                let mut meta = list_meta(&listed);
                meta.as_object_mut().expect("an object").entry("continue").or_insert(json!(""));
                (|item, out| serde_json::to_writer(out, item), meta)
            } else {
                (|item, out| serde_json::to_writer(out, &WithoutTypeMeta(item)), list_meta(&listed))
            };
            streamed_list(&scope.resource.api_version(&scope.version), &kind, listed, meta, write)
        }
        Representation::Metadata(_) => {
            let message = format!("you requested PartialObjectMetadata, but the requested object is a list ({})", go_type(scope, "List"));
            return Err(ApiError::not_renderable(message));
        }
        // `asPartialObjectMetadataList` appends each item to a nil slice: no items are `null`.
        Representation::MetadataList(version) if listed.items.is_empty() => {
            let list = json!({"apiVersion": version, "items": null, "kind": "PartialObjectMetadataList", "metadata": list_meta(&listed)});
            json_response(200, &list)
        }
        Representation::MetadataList(version) => {
            let write: WriteItem = match version {
                META_V1BETA1 => |item, out| serde_json::to_writer(out, &table::partial_metadata(item, META_V1BETA1)),
                _ => |item, out| serde_json::to_writer(out, &table::partial_metadata(item, META_V1)),
            };
            let meta = list_meta(&listed);
            streamed_list(version, "PartialObjectMetadataList", listed, meta, write)
        }
        Representation::Table(version) => {
            let items: Vec<&Value> = listed.items.iter().map(|i| &**i).collect();
            json_response(200, &table::table(&scope.resource, &items, list_meta(&listed), now, version))
        }
    })
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

/// An object without its `apiVersion` and `kind`, as a built-in list's items are written.
struct WithoutTypeMeta<'a>(&'a Value);

impl Serialize for WithoutTypeMeta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => serializer.collect_map(map.iter().filter(|(k, _)| !matches!(k.as_str(), "apiVersion" | "kind"))),
            other => other.serialize(serializer),
        }
    }
}

/// How one list item is written into the body.
type WriteItem = fn(&Value, &mut Vec<u8>) -> serde_json::Result<()>;

/// A streamed list body: `{"apiVersion", "items", "kind", "metadata"}` (the key order of a
/// JSON object the server builds), its items written by `write`.
fn streamed_list(api_version: &str, kind: &str, listed: Listed, meta: Value, write: WriteItem) -> Response {
    let text = |s: &str| Value::String(s.to_string()).to_string();
    let prefix = format!(r#"{{"apiVersion":{},"items":["#, text(api_version));
    let suffix = format!(r#"],"kind":{},"metadata":{meta}}}"#, text(kind));
    let chunks = ListChunks { buf: prefix.into_bytes(), items: listed.items.into_iter(), first: true, write, suffix: Some(suffix) };
    Response::builder()
        .status(200)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from_stream(futures::stream::iter(chunks.map(Ok::<Bytes, std::convert::Infallible>))))
        .expect("valid response")
}

/// About how many bytes of a list body are encoded at a time.
const CHUNK: usize = 64 * 1024;

/// A list body's chunks, each encoded when asked for.
struct ListChunks {
    buf: Vec<u8>,
    items: std::vec::IntoIter<Arc<Value>>,
    first: bool,
    write: WriteItem,
    /// What closes the body; `None` once written.
    suffix: Option<String>,
}

impl Iterator for ListChunks {
    type Item = Bytes;

    fn next(&mut self) -> Option<Bytes> {
        self.suffix.as_ref()?;
        while self.buf.len() < CHUNK {
            let Some(item) = self.items.next() else {
                self.buf.extend_from_slice(self.suffix.take().expect("checked above").as_bytes());
                break;
            };
            if !std::mem::take(&mut self.first) {
                self.buf.push(b',');
            }
            (self.write)(&item, &mut self.buf).expect("a JSON value serializes");
        }
        Some(Bytes::from(std::mem::take(&mut self.buf)))
    }
}

/// The streamed answer to a watch, one JSON line per event, or one length-prefixed protobuf
/// frame per event for a client that asked for protobuf.
pub fn watch_stream(lines: mpsc::Receiver<Bytes>, encoding: Encoding) -> Response {
    let protobuf = encoding == Encoding::Protobuf;
    let stream = futures::StreamExt::map(ReceiverStream::new(lines), move |line| {
        Ok::<Bytes, std::convert::Infallible>(if protobuf { protobuf_frame(&line) } else { line })
    });
    let content_type = if protobuf { "application/vnd.kubernetes.protobuf;stream=watch" } else { "application/json" };
    Response::builder()
        .status(200)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CACHE_CONTROL, "no-cache, private")
        .extension(Streamed)
        .body(Body::from_stream(stream))
        .expect("valid response")
}

/// A watch's JSON line `{"object", "type"}` as a protobuf frame; an object with no protobuf form
/// becomes an ERROR event saying so.
fn protobuf_frame(line: &[u8]) -> Bytes {
    let frame = || {
        let event = go_json::parse(line).map_err(|e| e.to_string())?;
        protobuf::watch_frame(event["type"].as_str().unwrap_or_default(), &event["object"])
    };
    // An object stored deeply nested is re-encoded on a stack to match.
    let framed = if deep::is_deep(line) { stacker::grow(deep::DEEP_STACK_BYTES, frame) } else { frame() };
    let frame = framed.unwrap_or_else(|why| {
        let status = ApiError::internal(format!("the event has no protobuf encoding: {why}")).to_status();
        protobuf::watch_frame("ERROR", &status).expect("a Status has a protobuf encoding")
    });
    Bytes::from(frame)
}
