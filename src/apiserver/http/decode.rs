//! Request decoding: bodies (JSON, YAML, protobuf) and the query parameters that become a
//! verb's options, each with the `Status` error the real API server gives for bad input.

use bytes::Bytes;
use http::{HeaderMap, header};
use serde_json::Value;

use crate::apiserver::deletion::{DeleteRequest, parse_dry_run, parse_policy};
use crate::apiserver::go_json;
use crate::apiserver::go_quote::{json_type_name, printable, quote};
use crate::apiserver::go_yaml;
use crate::apiserver::http::media_type;
use crate::apiserver::http::request::Query;
use crate::apiserver::protobuf;
use crate::apiserver::schema::{FieldValidation, WriteOptions};
use crate::apiserver::scheme::{META_V1_KINDS, UNVERSIONED_KINDS};
use crate::apiserver::selectors::Selection;
use crate::apiserver::selectors::{FieldSelector, LabelSelector};
use crate::apiserver::status::{ApiError, ApiResult, FieldError};
use crate::apiserver::storage::Scope;
use crate::apiserver::storage::read::{ListAt, Page};
use crate::apiserver::strict::{self, Document, Keys};

/// A header's value, if present and text.
pub fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The media types a body may be sent in.
const BODY_TYPES: [&str; 3] = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/// The serializers a request body may be read with.
enum BodyType {
    /// JSON (also what no `Content-Type` means).
    Json,
    /// YAML, as kubectl may send.
    Yaml,
    /// Kubernetes protobuf, as typed clients send.
    Protobuf,
}

/// The serializer of a request's body, picked as upstream's handlers pick it before they read
/// the body (`NegotiateInputSerializer`): JSON when no type is given, 415 for a type that
/// does not parse as a media type (Go's `mime.ParseMediaType`) or that no serializer reads.
fn body_media_type(headers: &HeaderMap) -> ApiResult<BodyType> {
    let content_type = header_str(headers, header::CONTENT_TYPE).unwrap_or("");
    if content_type.is_empty() {
        return Ok(BodyType::Json);
    }
    match media_type::parse(content_type).as_deref() {
        Some("application/json" | "*/*") => Ok(BodyType::Json),
        Some("application/yaml") => Ok(BodyType::Yaml),
        Some(protobuf::MEDIA_TYPE) => Ok(BodyType::Protobuf),
        _ => Err(ApiError::unsupported_media_type(&BODY_TYPES)),
    }
}

/// Decodes a create or update body of `kind` (JSON, YAML as kubectl may send, or protobuf as
/// typed clients send), with the keys strict decoding reads.
pub fn object(headers: &HeaderMap, body: &[u8], kind: &str) -> ApiResult<Document> {
    let media_type = body_media_type(headers)?;
    let unrecognized = |why: String| unrecognized(kind, body, &why);
    let document = match media_type {
        BodyType::Protobuf => {
            if body.is_empty() {
                return Err(unrecognized("empty data".to_string()));
            }
            let value = protobuf::decode(body).map_err(unrecognized)?;
            return Ok(Document { value, keys: Keys::default() });
        }
        BodyType::Json => {
            if let Some(go) = go_json::unmarshal_error(body) {
                return Err(unrecognized(version_kind_error(&go)));
            }
            strict::json(body).map_err(|e| unrecognized(format!("couldn't decode JSON: {e}")))?
        }
        // The YAML serializer's errors are go-yaml's (`yaml: ...`); then the JSON it converted
        // to is read as a JSON body is.
        BodyType::Yaml => match go_yaml::error(body) {
            Some(go) => return Err(unrecognized(go)),
            None => {
                let document = yaml(body).map_err(|e| unrecognized(format!("yaml: {e}")))?;
                let json = serde_json::to_vec(&document.value).unwrap_or_default();
                if let Some(go) = go_json::unmarshal_error(&json) {
                    return Err(unrecognized(version_kind_error(&go)));
                }
                document
            }
        },
    };
    match document.value {
        // Go decodes `null` into the empty object of the URL's kind.
        Value::Null => Ok(Document { value: Value::Object(Default::default()), keys: Keys::default() }),
        Value::Object(_) => Ok(document),
        _ => Err(ApiError::bad_request("the object provided is unrecognized: expected a JSON object")),
    }
}

/// A body that did not decode as `kind` for the reason `why`, as the handlers word it
/// (`transformDecodeError`, k8s.io/apiserver pkg/endpoints/handlers/rest.go).
fn unrecognized(kind: &str, body: &[u8], why: &str) -> ApiError {
    ApiError::bad_request(format!("the object provided is unrecognized (must be of type {kind}): {why} ({})", summary(body)))
}

/// Decodes a create or update body of the resource in `scope`: as [`object`], and a custom
/// resource's body must name its kind, which the unstructured decoder reads from the body
/// alone, with no default from the URL (k8s.io/apimachinery pkg/runtime/serializer/json
/// `Serializer.Decode` into an Unstructured: `NewMissingKindErr` quotes the whole body).
pub fn resource_object(headers: &HeaderMap, body: &[u8], scope: &Scope) -> ApiResult<Document> {
    let kind = &scope.resource.kind;
    let document = object(headers, body, kind)?;
    if scope.resource.custom && document.value["kind"].as_str().is_none_or(str::is_empty) {
        let why = format!("Object 'Kind' is missing in '{}'", String::from_utf8_lossy(body));
        return Err(unrecognized(kind, body, &why));
    }
    // A built-in kind's version is defaulted from the URL when the body names none, or names
    // the URL's group without one; another group without a version has none (`gvkWithDefaults`,
    // k8s.io/apimachinery pkg/runtime/serializer/json).
    let named = document.value["apiVersion"].as_str().and_then(|v| v.split_once('/'));
    if !scope.resource.custom
        && named.is_some_and(|(group, version)| version.is_empty() && !group.is_empty() && group != scope.resource.group)
    {
        let sent = document.value["kind"].as_str().filter(|k| !k.is_empty()).unwrap_or(kind);
        let why = format!("Object 'apiVersion' is missing in '{}'", String::from_utf8_lossy(body));
        return Err(ApiError::bad_request(format!("{sent} in version \"\" cannot be handled as a {kind}: {why}")));
    }
    Ok(document)
}

/// How the serializer words a failure to read a body's `apiVersion` and `kind` (`go`, Go's
/// decoding error).
fn version_kind_error(go: &str) -> String {
    format!("couldn't get version/kind; json parse error: {go}")
}

/// A body as upstream's decode errors quote it (`summarizeData`): its first 30 bytes, as text
/// if it starts like a JSON object, else in hex.
fn summary(body: &[u8]) -> String {
    const LONGEST: usize = 30;
    let (head, more) = if body.len() > LONGEST { (&body[..LONGEST], " ...") } else { (body, "") };
    match body.first() {
        None => "<empty>".to_string(),
        Some(b'{') => format!("{}{more}", String::from_utf8_lossy(head)),
        Some(_) => format!("{}{more}", head.iter().map(|b| format!("{b:02x}")).collect::<String>()),
    }
}

/// A YAML (or JSON) document; the error without the parser's source excerpt.
fn yaml(body: &[u8]) -> Result<Document, String> {
    strict::yaml(body).map_err(|e| e.without_snippet().to_string())
}

/// Whether a PATCH's `Content-Type` is server-side apply's.
pub fn is_apply(content_type: &str) -> bool {
    content_type.split(';').next().unwrap_or("").trim() == "application/apply-patch+yaml"
}

/// A JSON, merge or strategic patch is refused before anything is read unless it is JSON
/// (`validateAndTranscodePatch`, k8s.io/apiserver pkg/endpoints/handlers/patch.go).
pub fn check_patch_json(body: &[u8]) -> ApiResult<()> {
    match go_json::syntax_error(body) {
        None => Ok(()),
        Some(_) => Err(ApiError::bad_request("invalid JSON patch")),
    }
}

/// The configuration a server-side apply sends: a YAML (or JSON) object, with its keys. A body
/// that does not start like a JSON object is converted from YAML first, whose errors are
/// "encoding" ones (`validateAndTranscodePatch`); then it is unmarshalled into a map through
/// `sigs.k8s.io/yaml` (`applyPatcher`, both in k8s.io/apiserver pkg/endpoints/handlers/patch.go).
pub fn apply_configuration(body: &[u8]) -> ApiResult<Document> {
    let json_like = String::from_utf8_lossy(body).trim_start().starts_with('{');
    let yaml_error = |why: &str| {
        ApiError::bad_request(if json_like {
            format!("error decoding patch: error converting YAML to JSON: {why}")
        } else {
            format!("error encoding patch: {why}")
        })
    };
    if let Some(go) = go_yaml::error(body) {
        return Err(yaml_error(&go));
    }
    match yaml(body) {
        Ok(document) if document.value.is_object() => Ok(document),
        // Nothing (or null) decodes as an object of no kind, which the apply then refuses.
        Ok(document) if document.value.is_null() => Ok(Document { value: Value::Object(Default::default()), ..document }),
        Ok(document) => Err(ApiError::bad_request(format!(
            "error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_type_name(&document.value)
        ))),
        Err(e) => Err(yaml_error(&format!("yaml: {e}"))),
    }
}

/// The field manager of a write: the `fieldManager` parameter, else the User-Agent's part
/// before its first `/`, printable characters only, at most 128 bytes (upstream's rule).
fn field_manager(query: &Query, headers: &HeaderMap) -> String {
    if let Some(manager) = query.get("fieldManager").filter(|m| !m.is_empty()) {
        return manager.to_string();
    }
    let agent = header_str(headers, header::USER_AGENT).unwrap_or("");
    let mut out = String::new();
    for c in agent.split('/').next().unwrap_or("").chars().filter(|c| !c.is_control()) {
        if out.len() + c.len_utf8() > 128 {
            break;
        }
        out.push(c);
    }
    out
}

/// A DELETE body as JSON (typed clients send `DeleteOptions` as protobuf, kubectl may send
/// YAML), refused as upstream's DELETE handlers refuse it (k8s.io/apiserver
/// pkg/endpoints/handlers/delete.go): 415 in a media type no serializer reads, 400 with the
/// decoder's words when it is not an object.
fn delete_body(headers: &HeaderMap, body: &Bytes) -> ApiResult<Bytes> {
    if body.is_empty() {
        return Ok(body.clone());
    }
    let json = match body_media_type(headers)? {
        BodyType::Protobuf => protobuf::decode(body).map_err(ApiError::bad_request)?.to_string().into_bytes(),
        BodyType::Json => body.to_vec(),
        BodyType::Yaml => match go_yaml::error(body) {
            Some(go) => return Err(ApiError::bad_request(go)),
            None => yaml(body).map_err(ApiError::bad_request)?.value.to_string().into_bytes(),
        },
    };
    match go_json::unmarshal_error(&json) {
        Some(go) => Err(ApiError::bad_request(version_kind_error(&go))),
        None => Ok(Bytes::from(json)),
    }
}

/// Refuses a DELETE body that names a kind other than `DeleteOptions`, as the scheme decoding
/// it does (400): a kind it knows cannot be converted, one it does not know is not registered.
/// A body naming no version is `meta.k8s.io/v1`, one naming no kind `DeleteOptions`.
fn delete_options_kind(body: &Value) -> ApiResult<()> {
    let version = body["apiVersion"].as_str().filter(|v| !v.is_empty()).unwrap_or("meta.k8s.io/v1");
    let kind = body["kind"].as_str().filter(|k| !k.is_empty()).unwrap_or("DeleteOptions");
    let known = UNVERSIONED_KINDS.contains(&kind)
        || (version == "meta.k8s.io/v1" && META_V1_KINDS.contains(&kind))
        || (version == "meta.k8s.io/v1beta1" && META_V1_KINDS[4..].contains(&kind));
    match kind {
        "DeleteOptions" => Ok(()),
        _ if known => Err(ApiError::bad_request(format!("converting (v1.{kind}) to (v1.DeleteOptions): unknown conversion"))),
        _ => Err(ApiError::bad_request(format!(
            "no kind {} is registered for version {} in scheme \"pkg/runtime/scheme.go:111\"",
            quote(kind),
            quote(version)
        ))),
    }
}

/// The `DeleteOptions` of a DELETE as the request gives them, not yet validated: from the
/// body if it has one, else from the query parameters, as the upstream DELETE handler reads
/// them: there `uid` and `resourceVersion` are preconditions (`Convert_url_Values_To_v1_DeleteOptions`,
/// k8s.io/apimachinery pkg/apis/meta/v1/conversion.go), also in a collection delete, where
/// `resourceVersion` is a list option too. Fails only on a body that cannot be decoded.
pub fn delete_request(headers: &HeaderMap, body: &Bytes, query: &Query) -> ApiResult<DeleteRequest> {
    let body = delete_body(headers, body)?;
    if body.iter().any(|b| !b.is_ascii_whitespace()) {
        let v: Value = go_json::parse(&body).map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")))?;
        delete_options_kind(&v)?;
        let dry: Vec<&str> = v["dryRun"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        Ok(DeleteRequest {
            propagation: parse_policy(v["propagationPolicy"].as_str()),
            orphan_dependents: v["orphanDependents"].as_bool(),
            grace_period_seconds: Ok(v["gracePeriodSeconds"].as_i64()),
            precondition_uid: v["preconditions"]["uid"].as_str().map(String::from),
            precondition_resource_version: v["preconditions"]["resourceVersion"].as_str().map(String::from),
            dry_run: parse_dry_run(&dry),
        })
    } else {
        Ok(DeleteRequest {
            propagation: parse_policy(query.get("propagationPolicy")),
            orphan_dependents: query.flag("orphanDependents"),
            grace_period_seconds: query.int("gracePeriodSeconds"),
            precondition_uid: query.get("uid").map(String::from),
            precondition_resource_version: query.get("resourceVersion").map(String::from),
            dry_run: parse_dry_run(&query.all("dryRun")),
        })
    }
}

/// The `labelSelector` and `fieldSelector` of a list, watch or collection delete; a request
/// for object `name` (a watch of one object) also selects it by name.
pub fn selection(query: &Query, scope: &Scope, name: Option<&str>) -> ApiResult<Selection> {
    let by_name = name.map(|name| format!("metadata.name={name}"));
    let fields = match (query.get("fieldSelector"), by_name) {
        (Some(f), Some(by_name)) => Some(format!("{f},{by_name}")),
        (f, by_name) => by_name.or(f.map(String::from)),
    };
    Ok(Selection {
        labels: query.get("labelSelector").map(LabelSelector::parse).transpose()?.unwrap_or_default(),
        fields: fields.map(|f| FieldSelector::parse(&f, &scope.resource)).transpose()?.unwrap_or_default(),
    })
}

/// `sendInitialEvents` as the WatchList defaults leave it (`SetListOptionsDefaults`,
/// k8s.io/apimachinery pkg/apis/meta/internalversion/defaults.go): a request whose `watch`
/// parameter asks to watch from no resourceVersion (or 0), saying nothing of initial events
/// nor of a resourceVersionMatch, gets them (and `NotOlderThan`). A path under `/watch/` is no
/// `watch` parameter: it keeps the legacy watch.
pub fn initial_events(query: &Query) -> Option<bool> {
    let rv = query.get("resourceVersion").unwrap_or("");
    let legacy =
        query.flag("watch") == Some(true) && query.get("resourceVersionMatch").unwrap_or("").is_empty() && (rv.is_empty() || rv == "0");
    query.flag("sendInitialEvents").or(legacy.then_some(true))
}

/// The checks of a list's, watch's or collection delete's `ListOptions` once they are decoded
/// (k8s.io/apiserver pkg/endpoints/handlers/get.go `listOpts`): integers and selectors that do not parse are
/// 400, then `SetListOptionsDefaults` and `ValidateListOptions`
/// (k8s.io/apimachinery pkg/apis/meta/internalversion) refuse a `resourceVersionMatch` or
/// `sendInitialEvents` the request cannot have, 422 `ListOptions`. Only the `watch` parameter
/// makes them a watch's options (a path under `/watch/` is validated as a list's).
pub fn check_list_options(query: &Query) -> ApiResult<()> {
    query.int("timeoutSeconds")?;
    query.int("limit")?;
    query.get("labelSelector").map(LabelSelector::parse).transpose()?;
    query.get("fieldSelector").map(FieldSelector::check_syntax).transpose()?;
    let watch = query.flag("watch") == Some(true);
    let rv = query.get("resourceVersion").unwrap_or("");
    let continuing = query.get("continue").is_some();
    let send_initial = initial_events(query);
    let mut matching = query.get("resourceVersionMatch").unwrap_or("");
    if send_initial.is_some() && query.flag("sendInitialEvents").is_none() {
        matching = "NotOlderThan";
    }
    let forbidden = |why: &str| FieldError::forbidden("resourceVersionMatch", why);
    let mut errors = Vec::new();
    if watch {
        if send_initial.is_some() && matching != "NotOlderThan" {
            errors.push(forbidden("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
        }
        if !matching.is_empty() {
            if send_initial.is_none() {
                errors.push(forbidden("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
            }
            if matching != "NotOlderThan" {
                errors.push(FieldError::not_supported("resourceVersionMatch", Value::from(matching), &["NotOlderThan"]));
            }
            if continuing {
                errors.push(forbidden("resourceVersionMatch is forbidden when continue is provided"));
            }
        }
    } else {
        if !matching.is_empty() {
            if rv.is_empty() {
                errors.push(forbidden("resourceVersionMatch is forbidden unless resourceVersion is provided"));
            }
            if continuing {
                errors.push(forbidden("resourceVersionMatch is forbidden when continue is provided"));
            }
            if matching != "Exact" && matching != "NotOlderThan" {
                errors.push(FieldError::not_supported("resourceVersionMatch", Value::from(matching), &["Exact", "NotOlderThan", ""]));
            }
            if matching == "Exact" && rv == "0" {
                errors.push(forbidden("resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
            }
        }
        if send_initial.is_some() {
            errors.push(FieldError::forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(ApiError::invalid("meta.k8s.io", "ListOptions", "", errors)) }
}

/// The `resourceVersion` a read (a get, list, watch or collection delete) is at, as the storage
/// parses it (`APIObjectVersioner.ParseResourceVersion`): none for an empty one or `0`. One
/// that is not an unsigned 64-bit integer is a 400 `invalid resource version` for a `list`
/// (and a collection delete), and for a watch or a get the 500 with no reason its unexpected
/// error becomes, whether or not the object exists.
pub fn resource_version(query: &Query, list: bool) -> ApiResult<Option<u64>> {
    let rv = query.get("resourceVersion").unwrap_or("");
    if rv.is_empty() || rv == "0" {
        return Ok(None);
    }
    rv.parse::<u64>().map(Some).map_err(|_| {
        let why = if rv.bytes().all(|b| b.is_ascii_digit()) { "value out of range" } else { "invalid syntax" };
        let invalid = format!("resourceVersion: Invalid value: {q}: strconv.ParseUint: parsing {q}: {why}", q = quote(rv));
        if list { ApiError::bad_request(format!("invalid resource version: {invalid}")) } else { ApiError::unknown(invalid) }
    })
}

/// The `limit`, `continue` and revision of a list. A list at any resource version
/// (`resourceVersion=0`) is served whole from the watch cache, whatever its limit
/// (`computeListLimit`, k8s.io/apiserver pkg/storage/cacher/cacher.go).
pub fn list_page(query: &Query) -> ApiResult<Page> {
    page_of(query, query.int("limit")?)
}

/// The items a collection delete reads at once when its request gives no `limit`
/// (`deleteCollectionPageSize`, k8s.io/apiserver pkg/registry/generic/registry/store.go).
const DELETE_COLLECTION_PAGE_SIZE: i64 = 10_000;

/// The first page a collection delete lists, and whether it is the only one: a request's own
/// `limit` lists one page; without one the store reads every page of
/// [`DELETE_COLLECTION_PAGE_SIZE`] items, a limit that makes a `resourceVersion` exact as any
/// limit does (`Store.DeleteCollection`).
pub fn delete_collection_page(query: &Query) -> ApiResult<(Page, bool)> {
    let limit = query.int("limit")?;
    let one_page = limit.is_some_and(|l| l > 0);
    Ok((page_of(query, Some(limit.filter(|l| *l != 0).unwrap_or(DELETE_COLLECTION_PAGE_SIZE)))?, one_page))
}

/// The page `list_page` reads, with `limit` as the list options hold it.
fn page_of(query: &Query, limit: Option<i64>) -> ApiResult<Page> {
    let limit = limit.filter(|l| *l > 0 && query.get("resourceVersion") != Some("0"));
    // A list with a limit reads exactly its resourceVersion unless it says otherwise
    // (`delegator.ShouldDelegateList`, k8s.io/apiserver pkg/storage/cacher/delegator).
    let (revision, unparsed) = match resource_version(query, true) {
        Ok(revision) => (revision, None),
        Err(refusal) => (None, Some(refusal)),
    };
    let at = match (revision, query.get("resourceVersionMatch")) {
        (None, _) => ListAt::Latest,
        (Some(rv), Some("Exact")) => ListAt::Exact(rv),
        (Some(rv), None) if limit.is_some() => ListAt::Exact(rv),
        (Some(rv), _) => ListAt::NotOlderThan(rv),
    };
    Ok(Page { limit: limit.map(|l| l as usize), continue_token: query.get("continue").map(String::from), at, unparsed })
}

/// A write whose options come from the query: a create or an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// POST of a new object (`CreateOptions`).
    Create,
    /// PUT of an object or a subresource (`UpdateOptions`).
    Update,
}

/// The options of a create (`CreateOptions`) or an update (`UpdateOptions`): `dryRun`,
/// `fieldValidation` and the field manager, checked as upstream's handlers check them before
/// they read the body (k8s.io/apiserver pkg/endpoints/handlers/create.go, update.go).
pub fn write_options(query: &Query, headers: &HeaderMap, write: Write) -> ApiResult<WriteOptions> {
    match write {
        // A create picks its body's serializer before it reads its options; an update after.
        Write::Create => {
            body_media_type(headers)?;
            options(query, headers, "CreateOptions", Vec::new())
        }
        Write::Update => options(query, headers, "UpdateOptions", Vec::new()),
    }
}

/// The options of a PATCH and its `force`: an apply needs a `fieldManager`, and only an apply
/// may say `force` (upstream's `ValidatePatchOptions`), besides what every write checks.
pub fn patch_options(query: &Query, headers: &HeaderMap, apply: bool) -> ApiResult<(WriteOptions, bool)> {
    let force = query.flag("force");
    let mut errors = Vec::new();
    if apply && query.get("fieldManager").is_none() {
        errors.push(FieldError::required("fieldManager", "is required for apply patch"));
    } else if !apply && force.is_some() {
        errors.push(FieldError::forbidden("force", "may not be specified for non-apply patch"));
    }
    Ok((options(query, headers, "PatchOptions", errors)?, force.unwrap_or(false)))
}

/// The longest `fieldManager` (`FieldManagerMaxLength`).
const FIELD_MANAGER_LONGEST: usize = 128;

/// A write's options after `errors` found already, refused with all of them as one 422 of
/// `kind` (apimachinery's `ValidateFieldManager`, `ValidateDryRun`, `ValidateFieldValidation`).
fn options(query: &Query, headers: &HeaderMap, kind: &str, mut errors: Vec<FieldError>) -> ApiResult<WriteOptions> {
    let manager = query.get("fieldManager").unwrap_or("");
    if manager.len() > FIELD_MANAGER_LONGEST {
        errors.push(FieldError::too_long("fieldManager", FIELD_MANAGER_LONGEST));
    }
    for (at, c) in manager.char_indices().filter(|(_, c)| !printable(*c)) {
        let why = format!("invalid character U+{:04X} (at position {at})", c as u32);
        errors.push(FieldError::invalid("fieldManager", Value::from(manager), why));
    }
    let dry_run = query.all("dryRun");
    if dry_run.iter().any(|v| *v != "All") {
        errors.push(FieldError::not_supported("dryRun", Value::from(dry_run.clone()), &["All"]));
    }
    let field_validation = match query.get("fieldValidation") {
        None | Some("Warn") => FieldValidation::Warn,
        Some("Ignore") => FieldValidation::Ignore,
        Some("Strict") => FieldValidation::Strict,
        Some(other) => {
            errors.push(FieldError::not_supported("fieldValidation", Value::from(other), &["", "Ignore", "Strict", "Warn"]));
            FieldValidation::Warn
        }
    };
    if !errors.is_empty() {
        return Err(ApiError::invalid("meta.k8s.io", kind, "", errors));
    }
    Ok(WriteOptions {
        dry_run: !dry_run.is_empty(),
        field_validation,
        field_manager: field_manager(query, headers),
        ..WriteOptions::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_bodies_decode_and_malformed_ones_are_bad_requests() {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, "application/yaml".parse().unwrap());
        let body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  n: \"1\"\n";
        let value = object(&headers, body, "Pod").unwrap().value;
        assert_eq!(value["metadata"]["name"], "a");
        assert_eq!(value["data"]["n"], "1");
        let err = object(&headers, b"metadata: [unclosed", "Pod").unwrap_err();
        assert_eq!((err.code, err.reason), (400, "BadRequest"));
        assert!(err.message.starts_with("the object provided is unrecognized (must be of type Pod): yaml: "), "{}", err.message);
        assert!(!err.message.contains('\n'), "one line, without the parser's excerpt: {}", err.message);
        assert_eq!(object(&headers, b"- a\n- b\n", "Pod").unwrap_err().code, 400, "a list is not an object");
    }

    #[test]
    fn selectors_that_do_not_parse_are_refused_before_the_options_are_validated() {
        let query = |q: &str| Query::parse(Some(q));
        let message = |q: &str| check_list_options(&query(q)).unwrap_err().message;
        assert_eq!(message("labelSelector=app%3D%3Dx%2C%2C"), "found ',', expected: identifier after ','");
        assert_eq!(message("labelSelector=app%3Dx%2C"), "found '', expected: identifier after ','");
        assert_eq!(message("labelSelector=%2Capp"), "found ',', expected: !, identifier, or 'end of string'");
        let both = "fieldSelector=metadata.name&resourceVersionMatch=Bogus";
        assert_eq!(message(both), "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
        assert!(check_list_options(&query("labelSelector=app%3Dx%2Ctier")).is_ok());
        let null = object(&HeaderMap::new(), b"null", "ConfigMap").unwrap().value;
        assert_eq!(null, serde_json::json!({}), "Go decodes null into the empty object");
    }
}
