//! HTTP in one place: the routes, the dispatch of a resource URL and method to a verb of
//! [`crate::apiserver::storage`], and the fault-injection middleware. Requests are parsed in
//! [`request`] and [`decode`], answers rendered in [`render`] and [`table`], watches streamed by
//! [`watch`]; nothing below this module knows HTTP.

pub mod decode;
mod deep;
pub mod media_type;
pub mod openapi;
pub mod pretty;
pub mod render;
pub mod request;
pub mod table;
pub mod watch;

use std::sync::Arc;

use axum::Extension;
use axum::Router;
use axum::extract::{Path, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, header};
use serde_json::Value;

use crate::apiserver::http::decode::{
    Write, apply_configuration, check_list_options, check_patch_json, delete_collection_page, delete_request, header_str, is_apply,
    list_page, object, patch_options, resource_object, resource_version, selection, write_options,
};
use crate::apiserver::http::pretty::AlwaysIndented;
use crate::apiserver::http::render::{json_response, list_as, object_response};
use crate::apiserver::http::request::{Encoding, Query, Representation, ResourcePath};
use crate::apiserver::http::watch::WatchRequest;
use crate::apiserver::kinds::pods;
use crate::apiserver::mutant::Mutable;
use crate::apiserver::patch::PatchType;
use crate::apiserver::protobuf;
use crate::apiserver::schema::WriteOptions;
use crate::apiserver::server::Server;
use crate::apiserver::status::{self, ApiError, ApiResult, page_not_found};
use crate::apiserver::storage::Scope;
use crate::apiserver::storage::write::Target;
use crate::apiserver::strict::Document;
use crate::apiserver::warning;
use crate::apiserver::{admission, discovery};

/// The largest request body accepted, as kube-apiserver's 3 MiB limit.
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// The router serving the Kubernetes API from `server`: discovery, OpenAPI, health, and every
/// resource URL through [`handle`], behind the server's interceptor.
pub fn router(server: Arc<Server>) -> Router {
    let health = discovery::HEALTH_PATHS.into_iter().fold(Router::new(), |router, path| router.route(path, any(|| async { "ok" })));
    health
        // Upstream's REST router serves these with GET only (405 for any other method, HEAD
        // too: go-restful routes no HEAD to a GET); its mux serves the others below whatever
        // the method.
        .route("/version", get(version).head(not_allowed).fallback(not_allowed))
        // The Python client's `VersionApi().get_code()` asks with a trailing slash.
        .route("/version/", get(version).head(not_allowed).fallback(not_allowed))
        // Below it, the REST router that owns `/version` answers a Status whatever the method.
        .route("/version/{*rest}", any(|| async { ApiError::not_found_path().into_response() }))
        // Discovery is served with a trailing slash too.
        .route("/api", get(core_versions).head(not_allowed).fallback(not_allowed))
        .route("/api/", get(core_versions).head(not_allowed).fallback(not_allowed))
        .route("/api/{version}", get(core_resources).head(core_not_allowed).fallback(core_not_allowed))
        .route("/api/{version}/", get(core_resources).head(core_not_allowed).fallback(core_not_allowed))
        .route("/apis/{group}/{version}", get(group_version).fallback(group_version))
        .route("/apis/{group}/{version}/", get(group_version).fallback(group_version))
        .route("/apis", any(api_groups))
        .route("/apis/", any(api_groups))
        .route("/apis/{group}", any(api_group))
        .route("/apis/{group}/", any(api_group))
        .route("/openapi/v3", any(openapi::index))
        .route("/openapi/v3/{*path}", any(openapi::document))
        .route(
            "/",
            any(|State(server): State<Arc<Server>>| async move {
                (Extension(AlwaysIndented), axum::Json(discovery::root_paths(&server.lock().catalogue)))
            }),
        )
        .fallback(handle)
        .layer(middleware::from_fn(pretty::indent_when_asked))
        .layer(middleware::from_fn_with_state(server.clone(), intercept))
        .with_state(server)
}

/// Lets the configured interceptor answer a request before it is served.
async fn intercept(State(server): State<Arc<Server>>, request: Request, next: Next) -> Response {
    if let Some(hook) = &server.config.interceptor {
        let (parts, body) = request.into_parts();
        if let Some(err) = hook(&parts) {
            return err.into_response();
        }
        return next.run(Request::from_parts(parts, body)).await;
    }
    next.run(request).await
}

/// A discovery answer, negotiated as upstream's discovery handlers negotiate theirs
/// (`responsewriters.WriteObjectNegotiated`): JSON or YAML, 406 for a rendering as another
/// kind; an error in the encoding its client accepts.
async fn discovery_answer(headers: &HeaderMap, answer: ApiResult<Value>) -> Response {
    let accept = header_str(headers, header::ACCEPT);
    let answer = answer.and_then(|value| match Representation::negotiate(accept, true, false) {
        Ok((Representation::Full, encoding)) => Ok((value, encoding)),
        _ => Err(ApiError::not_acceptable_media_types()),
    });
    match answer {
        Ok((value, Encoding::Yaml)) => render::encoded(axum::Json(value).into_response(), Encoding::Yaml).await,
        Ok((value, Encoding::Protobuf)) => match protobuf::encode_discovery(&value) {
            Ok(body) => ([(header::CONTENT_TYPE, protobuf::MEDIA_TYPE)], body).into_response(),
            Err(why) => ApiError::internal(why).into_response(),
        },
        Ok((value, Encoding::Json)) => axum::Json(value).into_response(),
        Err(e) => render::encoded(e.into_response(), Encoding::of_errors(accept)).await,
    }
}

/// `/version`, a REST route that consumes JSON alone: a request naming another body type is
/// refused by the router, though a GET reads no body (go-restful `Route.matchesContentType`;
/// k8s.io/apiserver pkg/server/routes/version.go).
async fn version(headers: HeaderMap) -> Response {
    if !route_consumes(&headers, &["application/json"]) {
        return discovery_answer(&headers, Err(ApiError::unsupported_by_route())).await;
    }
    (Extension(AlwaysIndented), axum::Json(discovery::version())).into_response()
}

/// What the REST routes of discovery consume and produce: the media types of the API's
/// serializers (`negotiation.MediaTypesForSerializer`, k8s.io/apiserver
/// pkg/endpoints/discovery/legacy.go and version.go).
const DISCOVERY_TYPES: &[&str] = &["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/// Whether a REST route that consumes `types` takes the request's body type: any when it
/// names none, since a GET reads no body (go-restful `Route.matchesContentType`).
fn route_consumes(headers: &HeaderMap, types: &[&str]) -> bool {
    let content_type = header_str(headers, header::CONTENT_TYPE).unwrap_or("");
    let listed = |t: &str| types.contains(&t.split(';').next().unwrap_or("").trim_matches(' '));
    content_type.is_empty() || content_type.split(',').any(listed)
}

/// Whether a REST route that produces `types` can answer the request's `Accept`: any type
/// listed, its parameters aside, or `*/*`; no header accepts anything (go-restful
/// `Route.matchesAccept`, which knows no other wildcard).
fn route_produces(headers: &HeaderMap, types: &[&str]) -> bool {
    let accept = header_str(headers, header::ACCEPT).unwrap_or("");
    let listed = |t: &str| {
        let t = t.split(';').next().unwrap_or("").trim_matches(' ');
        t == "*/*" || types.contains(&t)
    };
    accept.is_empty() || accept.split(',').any(listed)
}

/// A discovery document a REST route answers (an error when no route is found), refused by
/// the router when the request names a body type the route does not consume (415), then
/// when it accepts no type the route produces (406, in go-restful's words).
async fn discovery_route_answer(headers: &HeaderMap, answer: ApiResult<Value>) -> Response {
    let routed = if !route_consumes(headers, DISCOVERY_TYPES) {
        Err(ApiError::unsupported_by_route())
    } else if !route_produces(headers, DISCOVERY_TYPES) {
        Err(ApiError::not_acceptable_of(DISCOVERY_TYPES))
    } else {
        Ok(())
    };
    discovery_answer(headers, answer.and_then(|document| routed.map(|()| document))).await
}

async fn core_versions(headers: HeaderMap) -> Response {
    discovery_route_answer(&headers, Ok(discovery::core_versions())).await
}

async fn api_groups(State(server): State<Arc<Server>>, headers: HeaderMap) -> Response {
    let groups = discovery::groups(&server.lock().catalogue);
    discovery_answer(&headers, Ok(groups)).await
}

async fn api_group(State(server): State<Arc<Server>>, Path(group): Path<String>, headers: HeaderMap) -> Response {
    let Some(group) = discovery::group(&server.lock().catalogue, &group) else { return status::page_not_found() };
    discovery_answer(&headers, Ok(group)).await
}

async fn core_resources(State(server): State<Arc<Server>>, Path(version): Path<String>, headers: HeaderMap) -> Response {
    let resources = discovery::resources(&server.lock().catalogue, "", &version).ok_or_else(ApiError::not_found_path);
    discovery_route_answer(&headers, resources).await
}

/// 405 for a method the REST router does not serve on a discovery path.
async fn not_allowed(headers: HeaderMap) -> Response {
    discovery_answer(&headers, Err(ApiError::method_not_allowed())).await
}

/// A method other than GET on `/api/{version}`: 405 when the version is served, else the REST
/// router finds no path (404).
async fn core_not_allowed(State(server): State<Arc<Server>>, Path(version): Path<String>, headers: HeaderMap) -> Response {
    let served = discovery::resources(&server.lock().catalogue, "", &version).is_some();
    let error = if served { ApiError::method_not_allowed() } else { ApiError::not_found_path() };
    discovery_answer(&headers, Err(error)).await
}

/// `/apis/{group}/{version}`, whatever the method: the mux's plain 404 for a group nobody serves,
/// the REST router's 404 for a version the group does not have, the resources for a GET, else
/// 405.
async fn group_version(
    State(server): State<Arc<Server>>,
    Path((group, version)): Path<(String, String)>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    let resources = {
        let catalogue = &server.lock().catalogue;
        if group.is_empty() || !catalogue.serves_group(&group) {
            return status::page_not_found();
        }
        discovery::resources(catalogue, &group, &version).ok_or_else(ApiError::not_found_path)
    };
    match resources {
        Ok(_) if method != Method::GET => discovery_answer(&headers, Err(ApiError::method_not_allowed())).await,
        answer => discovery_route_answer(&headers, answer).await,
    }
}

/// Serves every resource URL, with the warnings its handling gave as `Warning` headers.
pub async fn handle(State(server): State<Arc<Server>>, request: Request) -> Response {
    let errors_in = Encoding::of_errors(header_str(request.headers(), header::ACCEPT));
    let (parts, body) = request.into_parts();
    let uri = parts.uri.clone();
    // `None` when it is too large, which the route decides when to say.
    let body = axum::body::to_bytes(body, MAX_BODY_BYTES).await.ok();
    let deep = body.as_deref().is_some_and(deep::is_deep);
    let serve = move || async move { warning::recording(dispatch(&server, parts, body)).await };
    let (result, warnings) = if deep {
        deep::on_deep_stack(serve).await.unwrap_or_else(|| (Err(ApiError::internal("no thread to serve a deeply nested body")), vec![]))
    } else {
        serve().await
    };
    let mut response = match result {
        Ok(response) => response,
        Err(mut e) => {
            for (quoted, go_quoted) in request::go_quoted_segments(uri.path()) {
                e.message = e.message.replace(&quoted, &go_quoted);
            }
            render::encoded(e.into_response(), errors_in).await
        }
    };
    for text in warnings {
        if let Ok(value) = HeaderValue::from_bytes(text.as_bytes()) {
            response.headers_mut().append(header::WARNING, value);
        }
    }
    response
}

/// A decoded body's value, and the write's options with the body's keys.
fn with_body_keys(document: Document, opts: WriteOptions) -> (Value, WriteOptions) {
    (document.value, WriteOptions { body_keys: document.keys, ..opts })
}

/// Resolves the URL to a resource and the method to a verb, decodes what the verb needs, calls
/// it under the lock and renders its answer.
async fn dispatch(server: &Arc<Server>, mut parts: http::request::Parts, body: Option<Bytes>) -> ApiResult<Response> {
    let Some(path) = ResourcePath::parse(parts.uri.path()) else {
        // Upstream's REST router owns `/api` and each served group's prefix, and answers a
        // Status for what it cannot route there; its mux answers plain text elsewhere.
        let raw = parts.uri.path();
        let group = raw.strip_prefix("/apis/").map(|rest| rest.split('/').next().unwrap_or(""));
        let under_api = raw == "/api"
            || raw.starts_with("/api/")
            || group.is_some_and(|g| {
                let catalogue = &server.lock().catalogue;
                !g.is_empty() && catalogue.serves_group(g) && !catalogue.is_custom_group(g)
            });
        return if under_api { Err(ApiError::not_found_path()) } else { Ok(page_not_found()) };
    };
    // `/apis//...` names the empty group, which no REST router owns.
    let named_group = parts.uri.path().starts_with("/apis/");
    if named_group && (path.group.is_empty() || !server.lock().catalogue.serves_group(&path.group)) {
        return Ok(page_not_found());
    }
    // Past a subresource only the apiextensions server finds anything (it reads no further).
    if path.beyond_subresource && !server.lock().catalogue.is_custom_group(&path.group) {
        return Err(ApiError::not_found_path());
    }
    let query = Query::parse(parts.uri.query());
    let body = body.ok_or_else(|| ApiError::too_large(MAX_BODY_BYTES))?;
    let found = server.lock().scope(&path.group, &path.version, &path.resource, path.namespace.clone());
    let mut scope = match found {
        Err(_) if server.lock().catalogue.is_custom_group(&path.group) => return Ok(page_not_found()),
        found => found?,
    };
    // The apiextensions server's verb of a HEAD is a GET's; no REST route of a built-in
    // resource serves HEAD.
    if scope.resource.custom && parts.method == Method::HEAD {
        parts.method = Method::GET;
    }
    // The apiextensions server's handler passes to the mux (a plain 404) a method that is no
    // verb, and a request whose scope is not the resource's: a namespace in the path of a
    // cluster-scoped resource, or none (or an empty one) for a namespaced resource's verbs
    // other than list and watch (`crdHandler.ServeHTTP`, k8s.io/apiextensions-apiserver
    // pkg/apiserver/customresource_handler.go).
    let lists = parts.method == Method::GET && (path.name.is_none() || path.watch_prefix);
    if scope.resource.custom {
        let verb = request_verb(&parts.method, &path);
        if (!scope.resource.namespaced && path.namespace.is_some())
            || (scope.resource.namespaced && path.namespace.as_deref().unwrap_or("").is_empty() && !matches!(verb, "list" | "watch"))
        {
            return Ok(page_not_found());
        }
    }
    if !scope.resource.namespaced && path.namespace.is_some() {
        return Err(ApiError::not_found_path());
    }
    // An empty namespace in the path: upstream lists and watches every namespace, creates in
    // none (validation then asks for one), and refuses whatever needs an object's storage key
    // (`NamespaceKeyFunc`, k8s.io/apiserver pkg/registry/generic/registry/store.go).
    if scope.resource.namespaced && path.namespace.as_deref() == Some("") && parts.method != Method::POST {
        scope.namespace = None;
    }
    // The apiextensions server watches through a `/watch/` path whatever the method, one
    // object across namespaces too.
    let custom_watch = scope.resource.custom && path.watch_prefix;
    if scope.resource.namespaced && path.namespace.is_none() && !custom_watch {
        // Across namespaces upstream serves only list and watch (no route names an object, and
        // no create or collection delete spans every namespace).
        if path.name.is_some() {
            return Err(ApiError::not_found_path());
        }
        if parts.method != Method::GET {
            return Err(ApiError::method_not_allowed());
        }
    }
    check_route(&parts.method, &path, &scope)?;
    // A PATCH handler refuses a patch type it does not take before anything else (415); a
    // Scale is a built-in type, patched strategically even for a custom resource.
    let content_type = header_str(&parts.headers, header::CONTENT_TYPE).unwrap_or("");
    let patch_type = match parts.method {
        Method::PATCH if !is_apply(content_type) => {
            let custom = scope.resource.custom && path.subresource.as_deref() != Some("scale");
            Some(PatchType::of(content_type, custom)?)
        }
        _ => None,
    };
    // The patch handler reads the type before the name (k8s.io/apiserver
    // pkg/endpoints/handlers/patch.go, `PatchResource`).
    if parts.method == Method::PATCH && scope.resource.custom && path.name.is_none() {
        return Err(name_not_provided());
    }
    // The REST router refuses an Accept header it cannot produce once the path and method
    // have found a route: an unknown resource, subresource or method is 404 or 405 first.
    // The apiextensions server's handlers refuse with their own 406 before they do anything
    // (`NegotiateOutputMediaType` first in each handler, k8s.io/apiserver pkg/endpoints/handlers).
    let accept = header_str(&parts.headers, header::ACCEPT);
    // A pod's log is produced as text/plain too: a request for that alone reaches the handler,
    // which has no log of the fake's to stream and whose errors have no plain-text form: the
    // error writer's own 406.
    let plain_log = is_pod_log(&path, &scope) && accept.is_some_and(|a| a.split(',').any(|m| m.split(';').next() == Some("text/plain")));
    let (repr, encoding) = match Representation::negotiate(accept, !scope.resource.custom, lists) {
        // The ephemeral containers' storage has no table convertor: their handler passes a
        // Table over for the next media type, or refuses with its own 406 before reading the
        // pod (`RequestScope.AllowsMediaTypeTransform`, k8s.io/apiserver pkg/endpoints/handlers/rest.go).
        Ok((Representation::Table(_), _)) if path.subresource.as_deref() == Some("ephemeralcontainers") => {
            let without_tables: Vec<&str> = accept.unwrap_or("").split(',').filter(|clause| !clause.contains("as=Table")).collect();
            match Representation::negotiate(Some(&without_tables.join(",")), true, lists) {
                Ok(negotiated) if !without_tables.is_empty() => negotiated,
                _ => return Err(ApiError::not_acceptable_media_types()),
            }
        }
        Ok(negotiated) => negotiated,
        Err(_) if scope.resource.custom => return Err(ApiError::not_acceptable_media_types()),
        Err(_) if plain_log => return Err(ApiError::not_acceptable_media_types()),
        Err(_) if is_pod_log(&path, &scope) => {
            return Err(ApiError::not_acceptable_of(&["text/plain", "application/json", "application/yaml", protobuf::MEDIA_TYPE]));
        }
        Err(e) => return Err(e),
    };
    let name = path.name.as_deref();
    // `watch` is a list option that makes only a collection's GET a watch: a GET of one object
    // with `watch=1` is a get, and a collection's DELETE, which reads ListOptions too (and
    // validates them as a watch's), is a deletecollection (`RequestInfoFactory.NewRequestInfo`,
    // k8s.io/apiserver pkg/endpoints/request/requestinfo.go, turns only a nameless get into a
    // list or watch). One object is watched through the legacy `/watch/` path or a
    // `metadata.name` field selector.
    let lists = path.name.is_none() && parts.method == Method::GET;
    let is_watch = path.watch_prefix || (lists && query.flag("watch").unwrap_or(false));
    let now = server.clock.now();

    // Once negotiated, an answer is in the media type the client accepts (a watch streams
    // JSON); an error is encoded as any error is.
    let answer: ApiResult<Response> = async {
        match (parts.method, name) {
            // A custom resource's `/watch/` path watches whatever the method.
            (_, _) if is_watch => {
                let request = WatchRequest::from_query(&query, &scope, repr, name)?;
                scope.check_key_segments(name)?;
                // YAML, which the route produces, has no stream serializer: the watch, once
                // started, refuses it (`serveWatchHandler`, k8s.io/apiserver
                // pkg/endpoints/handlers/watch.go).
                if encoding == Encoding::Yaml {
                    return Err(ApiError::not_acceptable_streams());
                }
                let lines = watch::start(&server.lock(), scope, request, server.config.bookmark_interval);
                Ok(render::watch_stream(lines, encoding))
            }
            (Method::POST, Some(name)) if !scope.resource.custom => {
                let opts = write_options(&query, &parts.headers, Write::Create)?;
                let binding = object(&parts.headers, &body, "Binding")?.value;
                Ok(json_response(201, &server.lock().bind(&scope, name, binding, opts.dry_run)?))
            }
            (Method::GET, Some(name)) if path.subresource.as_deref() == Some("scale") => {
                resource_version(&query, false)?;
                Ok(json_response(200, &server.lock().get_scale(&scope, name)?))
            }
            (Method::PUT, Some(name)) if path.subresource.as_deref() == Some("scale") => {
                let opts = write_options(&query, &parts.headers, Write::Update)?;
                let value = object(&parts.headers, &body, "Scale")?.value;
                Ok(json_response(200, &server.lock().update_scale(&scope, name, value, opts)?))
            }
            (Method::PATCH, Some(name)) if path.subresource.as_deref() == Some("scale") => {
                let (opts, force) = patch_options(&query, &parts.headers, patch_type.is_none())?;
                let Some(patch_type) = patch_type else {
                    // As for any subresource, the configuration is read once the object is found.
                    server.lock().get_scale(&scope, name)?;
                    let config = apply_configuration(&body)?.value;
                    return Ok(json_response(200, &server.lock().apply_scale(&scope, name, config, force, opts)?));
                };
                check_patch_json(&body)?;
                Ok(json_response(200, &server.lock().patch_scale(&scope, name, patch_type, &body, opts)?))
            }
            // The log of a pod no kubelet runs: a pod without a node has an empty location,
            // which the handler answers with no content (`LogLocation`, kubernetes
            // pkg/registry/core/pod/strategy.go); the fake's nodes keep no logs.
            (Method::GET, Some(name)) if is_pod_log(&path, &scope) => {
                let pod = server.lock().get(&scope, name)?;
                pods::log_container(&pod, query.get("container"))?;
                if pod["spec"]["nodeName"].as_str().is_none_or(str::is_empty) {
                    Ok(http::StatusCode::NO_CONTENT.into_response())
                } else {
                    Err(ApiError::not_found_path())
                }
            }
            (Method::GET, Some(name)) => {
                resource_version(&query, false)?;
                let object = server.lock().get(&scope, name)?;
                object_response(200, repr, &scope, &object, now)
            }
            (Method::GET, None) => {
                check_list_options(&query)?;
                let (selection, page) = (selection(&query, &scope, None)?, list_page(&query)?);
                let listed = server.lock().list(&scope, &selection, &page)?;
                list_as(repr, &scope, listed, now)
            }
            (Method::POST, _) => {
                let opts = WriteOptions { url_name: name.map(String::from), ..write_options(&query, &parts.headers, Write::Create)? };
                let (value, opts) = with_body_keys(resource_object(&parts.headers, &body, &scope)?, opts);
                await_default_account(server, &scope, None, &value).await;
                let created = server.lock().create(&scope, value, opts)?;
                object_response(201, repr, &scope, &created, now)
            }
            (Method::PUT, Some(name)) => {
                let target = Target::from_subresource(&scope, path.subresource.as_deref())?;
                let opts = write_options(&query, &parts.headers, Write::Update)?;
                let (value, opts) = with_body_keys(resource_object(&parts.headers, &body, &scope)?, opts);
                let (written, created) = server.lock().put(&scope, name, value, target, opts)?;
                object_response(if created { 201 } else { 200 }, repr, &scope, &written, now)
            }
            (Method::PATCH, Some(name)) => {
                let target = Target::from_subresource(&scope, path.subresource.as_deref())?;
                let (opts, force) = patch_options(&query, &parts.headers, patch_type.is_none())?;
                let Some(patch_type) = patch_type else {
                    // The apply patcher reads the configuration once the store found the
                    // object, or made an empty one to create (`patchResource`, k8s.io/apiserver
                    // pkg/endpoints/handlers/patch.go).
                    if !target.apply_creates(&scope) {
                        server.lock().get(&scope, name)?;
                    }
                    let (config, opts) = with_body_keys(apply_configuration(&body)?, opts);
                    await_default_account(server, &scope, Some(name), &config).await;
                    let (applied, created) = server.lock().apply(&scope, name, config, target, force, opts)?;
                    return object_response(if created { 201 } else { 200 }, repr, &scope, &applied, now);
                };
                check_patch_json(&body)?;
                let patched = server.lock().patch(&scope, name, patch_type, &body, target, opts)?;
                object_response(200, repr, &scope, &patched, now)
            }
            (Method::DELETE, Some(name)) if path.subresource.is_none() => {
                let opts = delete_request(&parts.headers, &body, &query)?.mutated_by(server.config.mutant).validate()?;
                let deleted = server.lock().delete(&scope, name, &opts)?;
                // The deleted object is rendered as asked; a Status as it is.
                match deleted.body["kind"].as_str() {
                    Some("Status") => Ok(json_response(deleted.code, &*deleted.body)),
                    _ => object_response(deleted.code, repr, &scope, &deleted.body, now),
                }
            }
            (Method::DELETE, None) => {
                // The list options, selectors among them, are decoded before the body
                // (`DeleteCollection`, k8s.io/apiserver pkg/endpoints/handlers/delete.go).
                check_list_options(&query)?;
                let selection = selection(&query, &scope, None)?;
                let opts = delete_request(&parts.headers, &body, &query)?.mutated_by(server.config.mutant).validate()?;
                let (page, one_page) = delete_collection_page(&query)?;
                let listed = server.lock().delete_collection(&scope, &selection, page, one_page, &opts)?;
                list_as(repr, &scope, listed, now)
            }
            _ => Err(ApiError::method_not_allowed()),
        }
    }
    .await;
    match answer {
        Ok(response) if !is_watch => Ok(render::encoded(response, encoding).await),
        other => other,
    }
}

/// The ServiceAccount admission plugin's patience: a new pod in a namespace whose `default`
/// account does not exist yet waits while the plugin looks the account up again (the store's
/// admission then refuses it if it is still missing).
async fn await_default_account(server: &Server, scope: &Scope, name: Option<&str>, body: &Value) {
    let mut waited = std::time::Duration::ZERO;
    while waited < server.config.default_account_wait && server.lock().lacks_default_account(scope, name, body) {
        tokio::time::sleep(admission::DEFAULT_ACCOUNT_INTERVAL).await;
        waited += admission::DEFAULT_ACCOUNT_INTERVAL;
    }
}

/// The verb upstream's request resolver names a request by (`RequestInfoFactory.NewRequestInfo`,
/// k8s.io/apiserver pkg/endpoints/request/requestinfo.go): the `/watch/` prefix watches whatever
/// the method, a GET without a name lists, a DELETE without one deletes the collection, and a
/// method that is no verb has none.
fn request_verb(method: &Method, path: &ResourcePath) -> &'static str {
    let collection = path.name.is_none();
    match *method {
        _ if path.watch_prefix => "watch",
        Method::GET | Method::HEAD if collection => "list",
        Method::GET | Method::HEAD => "get",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE if collection => "deletecollection",
        Method::DELETE => "delete",
        _ => "",
    }
}

/// What the apiextensions server's handler serves of a custom resource (`serveResource`,
/// `serveStatus`, `serveScale`, k8s.io/apiextensions-apiserver pkg/apiserver/
/// customresource_handler.go): every verb of the resource (a create names its object in its
/// body, whatever the URL says), get, update and patch of a subresource, and an update that
/// names no object is the namer's 400 (a patch's is, once its type is known to be one it takes).
fn check_custom_route(verb: &str, path: &ResourcePath, scope: &Scope) -> ApiResult<()> {
    let served = match path.subresource {
        None => !verb.is_empty(),
        Some(_) => matches!(verb, "get" | "update" | "patch"),
    };
    if !served {
        return Err(ApiError::method_not_supported(scope.resource.qualified(), verb));
    }
    if path.name.is_none() && verb == "update" {
        return Err(name_not_provided());
    }
    Ok(())
}

/// The namer's 400 for a request that names no object (`RequestScope.Namer.Name`).
fn name_not_provided() -> ApiError {
    ApiError::bad_request("name must be provided")
}

/// Whether `path` names a pod's log.
fn is_pod_log(path: &ResourcePath, scope: &Scope) -> bool {
    path.subresource.as_deref() == Some("log") && scope.resource.group.is_empty() && scope.resource.plural == "pods" && path.name.is_some()
}

/// What upstream's REST router answers before a handler runs: a subresource the resource does
/// not have is no route at all (404), and a method no route of the path serves is 405 (the
/// legacy `/watch/` paths serve GET alone, an object serves GET (a namespace's `finalize` serves PUT alone), PUT, PATCH and DELETE, a
/// collection GET, POST and, where the registry deletes collections, DELETE; a subresource
/// serves no DELETE; a custom resource's unknown subresource is an absent object, and the rest of
/// its routes are [`check_custom_route`]'s).
fn check_route(method: &Method, path: &ResourcePath, scope: &Scope) -> ApiResult<()> {
    // A built-in resource's `/watch/` routes name its objects and none of their subresources.
    if path.watch_prefix && path.subresource.is_some() && !scope.resource.custom {
        return Err(ApiError::not_found_path());
    }
    // A pod's binding is created and nothing else.
    if path.subresource.as_deref() == Some("binding") && scope.resource.binding_subresource && path.name.is_some() {
        return if *method == Method::POST && !path.watch_prefix { Ok(()) } else { Err(ApiError::method_not_allowed()) };
    }
    // A pod's log is read and nothing else (`LogREST` is a getter alone, kubernetes
    // pkg/registry/core/pod/rest/log.go).
    if is_pod_log(path, scope) {
        return if *method == Method::GET { Ok(()) } else { Err(ApiError::method_not_allowed()) };
    }
    let target = match path.subresource.as_deref() {
        Some("scale") if scope.resource.scale.is_some() => None,
        // The apiextensions server answers a subresource its definition does not declare as
        // an object it cannot find (`crdHandler.ServeHTTP`, apiextensions-apiserver
        // pkg/apiserver/customresource_handler.go), whatever the method.
        sub => match Target::from_subresource(scope, sub) {
            Err(_) if scope.resource.custom => {
                return Err(ApiError::not_found(scope.resource.qualified(), path.name.as_deref().unwrap_or("")));
            }
            target => Some(target?),
        },
    };
    if scope.resource.custom && path.subresource.as_deref() != Some("scale") {
        return check_custom_route(request_verb(method, path), path, scope);
    }
    let item = path.name.is_some();
    let served = match *method {
        // The namespace registry's `finalize` is served for updates alone.
        Method::GET => target != Some(Target::Finalize),
        _ if path.watch_prefix => false,
        Method::POST => !item,
        Method::PUT => item,
        Method::PATCH => item && target != Some(Target::Finalize),
        Method::DELETE if item => path.subresource.is_none(),
        Method::DELETE => scope.resource.collection_delete,
        _ => false,
    };
    if served { Ok(()) } else { Err(ApiError::method_not_allowed()) }
}
