//! Kubernetes `Status` errors: every failure the fake apiserver returns, with the reason and
//! HTTP code a real kube-apiserver uses, so that clients' `IsNotFound`/`IsConflict` checks work.

use crate::apiserver::go_quote::quote;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::{Value, json};

/// 404 for a path outside `/api` and every group the server serves: not a Status but the plain
/// text of kube-apiserver's mux (`/nothing`, `/apis/unknown.io/v1/things`).
pub fn page_not_found() -> Response {
    (StatusCode::NOT_FOUND, [(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")], "404 page not found\n").into_response()
}

/// An API failure, rendered as a `metav1.Status` body.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    /// HTTP status code (also `Status.code`).
    pub code: u16,
    /// Machine-readable `Status.reason`, e.g. `NotFound`.
    pub reason: &'static str,
    /// Human-readable `Status.message`.
    pub message: String,
    /// `Status.details`, when the real apiserver fills it.
    pub details: Option<Value>,
}

/// A resource as named in error messages: `pods`, or `deployments.apps` outside the core group.
#[derive(Clone, Debug)]
pub struct QualifiedResource<'a> {
    /// API group, empty for the core group.
    pub group: &'a str,
    /// Plural resource name.
    pub resource: &'a str,
}

impl std::fmt::Display for QualifiedResource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.group.is_empty() { write!(f, "{}", self.resource) } else { write!(f, "{}.{}", self.resource, self.group) }
    }
}

impl QualifiedResource<'_> {
    fn details(&self, name: &str) -> Value {
        let mut d = json!({ "name": name, "kind": self.resource });
        if !self.group.is_empty() {
            d["group"] = json!(self.group);
        }
        d
    }
}

/// The kind of a field validation error, as in apimachinery's `field.ErrorType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldErrorKind {
    /// A required field is missing.
    Required,
    /// A value is malformed.
    Invalid,
    /// A change or value is not allowed.
    Forbidden,
    /// A value is not one of the supported values.
    NotSupported,
    /// A value appears twice where it must be unique.
    Duplicate,
    /// A value is longer than allowed.
    TooLong,
    /// A value names something that does not exist.
    NotFound,
}

impl FieldErrorKind {
    fn text(self) -> &'static str {
        match self {
            Self::Required => "Required value",
            Self::Invalid => "Invalid value",
            Self::Forbidden => "Forbidden",
            Self::NotSupported => "Unsupported value",
            Self::Duplicate => "Duplicate value",
            Self::TooLong => "Too long",
            Self::NotFound => "Not found",
        }
    }

    fn cause_reason(self) -> &'static str {
        match self {
            Self::Required => "FieldValueRequired",
            Self::Invalid => "FieldValueInvalid",
            Self::Forbidden => "FieldValueForbidden",
            Self::NotSupported => "FieldValueNotSupported",
            Self::Duplicate => "FieldValueDuplicate",
            Self::TooLong => "FieldValueTooLong",
            Self::NotFound => "FieldValueNotFound",
        }
    }
}

/// One field validation error; a list of them becomes a 422 `Invalid` status.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// What is wrong.
    pub kind: FieldErrorKind,
    /// JSON path of the field, e.g. `metadata.ownerReferences[0].uid`.
    pub field: String,
    /// The offending value, shown for `Invalid`, `NotSupported` and `Duplicate`.
    pub value: Option<Value>,
    /// Explanation.
    pub detail: String,
}

impl FieldError {
    /// A field error of any kind.
    pub fn new(kind: FieldErrorKind, field: impl Into<String>, value: Option<Value>, detail: impl Into<String>) -> Self {
        Self { kind, field: field.into(), value, detail: detail.into() }
    }

    /// `Required value`.
    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorKind::Required, field, None, detail)
    }

    /// `Invalid value`.
    pub fn invalid(field: impl Into<String>, value: Value, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorKind::Invalid, field, Some(value), detail)
    }

    /// `Unsupported value`, listing the `supported` values as upstream's `field.NotSupported`.
    pub fn not_supported(field: impl Into<String>, value: Value, supported: &[&str]) -> Self {
        let listed = supported.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ");
        Self::new(FieldErrorKind::NotSupported, field, Some(value), format!("supported values: {listed}"))
    }

    /// `Not found`: `value` names something that does not exist.
    pub fn not_found(field: impl Into<String>, value: &str) -> Self {
        Self::new(FieldErrorKind::NotFound, field, Some(Value::from(value)), "")
    }

    /// `Too long`: more than `longest` bytes (upstream's `field.TooLong`).
    pub fn too_long(field: impl Into<String>, longest: usize) -> Self {
        let unit = if longest == 1 { "byte" } else { "bytes" };
        Self::new(FieldErrorKind::TooLong, field, None, format!("may not be more than {longest} {unit}"))
    }

    /// `Forbidden`.
    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorKind::Forbidden, field, None, detail)
    }

    fn message(&self) -> String {
        format!("{}: {}", self.field, self.body())
    }

    /// The text of a list of field errors as one error (apimachinery's `ToAggregate`): the
    /// one error, or every one in brackets.
    pub fn aggregate(errors: &[FieldError]) -> String {
        // Each message once (`ErrorList.ToAggregate`, apimachinery pkg/util/validation/field),
        // though a Status lists every cause.
        let mut messages: Vec<String> = Vec::new();
        for message in errors.iter().map(FieldError::message) {
            if !messages.contains(&message) {
                messages.push(message);
            }
        }
        match messages.as_slice() {
            [one] => one.clone(),
            _ => format!("[{}]", messages.join(", ")),
        }
    }

    /// The message without the field, as a `Status` cause gives it (apimachinery's `ErrorBody`).
    fn body(&self) -> String {
        let mut m = self.kind.text().to_string();
        match &self.value {
            // apimachinery's `ErrorBody`: a string as `%q`, anything else as JSON.
            Some(Value::String(text)) => m.push_str(&format!(": {}", quote(text))),
            Some(v) => m.push_str(&format!(": {}", go_json(v))),
            None => {}
        }
        if !self.detail.is_empty() {
            m.push_str(&format!(": {}", self.detail));
        }
        m
    }
}

/// The Go structs whose values field errors show, each as its fields in declaration order: Go's
/// JSON encoder writes a struct's fields in that order, not sorted (`metav1.OwnerReference`;
/// the internal `apps.DeploymentStrategy`, `core.ObjectReference` and `core.EventSource`, and
/// apiextensions' `CustomResourceDefinitionVersion` and the types it holds, whose fields have no
/// JSON names).
const GO_STRUCTS: &[&[&str]] = &[
    &["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"],
    &["Type", "RollingUpdate"],
    &["Kind", "Namespace", "Name", "UID", "APIVersion", "ResourceVersion", "FieldPath"],
    &["Component", "Host"],
    &[
        "Name",
        "Served",
        "Storage",
        "Deprecated",
        "DeprecationWarning",
        "Schema",
        "Subresources",
        "AdditionalPrinterColumns",
        "SelectableFields",
    ],
    &["OpenAPIV3Schema"],
    &["Status", "Scale"],
    &["SpecReplicasPath", "StatusReplicasPath", "LabelSelectorPath"],
    &["Name", "Type", "Format", "Description", "Priority", "JSONPath"],
    &["Schema", "JSONSchemas"],
    &["Allows", "Schema"],
    &["Schema", "Property"],
    &["Description", "URL"],
    &["Rule", "Message", "MessageExpression", "Reason", "FieldPath", "OptionalOldSelf"],
    &[
        "ID",
        "Schema",
        "Ref",
        "Description",
        "Type",
        "Nullable",
        "Format",
        "Title",
        "Default",
        "Maximum",
        "ExclusiveMaximum",
        "Minimum",
        "ExclusiveMinimum",
        "MaxLength",
        "MinLength",
        "Pattern",
        "MaxItems",
        "MinItems",
        "UniqueItems",
        "MultipleOf",
        "Enum",
        "MaxProperties",
        "MinProperties",
        "Required",
        "Items",
        "AllOf",
        "OneOf",
        "AnyOf",
        "Not",
        "Properties",
        "AdditionalProperties",
        "PatternProperties",
        "Dependencies",
        "AdditionalItems",
        "Definitions",
        "ExternalDocs",
        "Example",
        "XPreserveUnknownFields",
        "XEmbeddedResource",
        "XIntOrString",
        "XListMapKeys",
        "XListType",
        "XMapType",
        "XValidations",
    ],
];

/// JSON as Go writes the value of a field error: an object whose keys are all fields of one of
/// [`GO_STRUCTS`] in that struct's order, any other (a map) sorted.
fn go_json(v: &Value) -> String {
    match v {
        Value::Array(items) => format!("[{}]", items.iter().map(go_json).collect::<Vec<_>>().join(",")),
        Value::Object(map) => {
            let order = GO_STRUCTS.iter().find(|fields| map.keys().all(|k| fields.contains(&k.as_str()))).copied().unwrap_or(&[]);
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by_key(|k| (order.iter().position(|g| g == k).unwrap_or(order.len()), k.as_str()));
            let fields: Vec<String> = keys.iter().map(|k| format!("{}:{}", Value::from(k.as_str()), go_json(&map[k.as_str()]))).collect();
            format!("{{{}}}", fields.join(","))
        }
        // Go's encoder also escapes what HTML and JavaScript treat specially.
        Value::String(_) => v
            .to_string()
            .replace('<', "\\u003c")
            .replace('>', "\\u003e")
            .replace('&', "\\u0026")
            .replace('\u{2028}', "\\u2028")
            .replace('\u{2029}', "\\u2029"),
        other => other.to_string(),
    }
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Self { code, reason, message: message.into(), details: None }
    }

    fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// 404 NotFound for a named object.
    pub fn not_found(resource: QualifiedResource<'_>, name: &str) -> Self {
        Self::new(404, "NotFound", format!("{resource} {} not found", quote(name))).with_details(resource.details(name))
    }

    /// 404 NotFound for a path under `/api` or a served group that names no resource.
    pub fn not_found_path() -> Self {
        Self::new(404, "NotFound", "the server could not find the requested resource").with_details(json!({}))
    }

    /// 409 AlreadyExists.
    pub fn already_exists(resource: QualifiedResource<'_>, name: &str) -> Self {
        Self::new(409, "AlreadyExists", format!("{resource} \"{name}\" already exists")).with_details(resource.details(name))
    }

    /// 409 AlreadyExists for an object that is still terminating.
    pub fn already_exists_terminating(resource: QualifiedResource<'_>, name: &str) -> Self {
        Self::new(409, "AlreadyExists", format!("object is being deleted: {resource} \"{name}\" already exists"))
            .with_details(resource.details(name))
    }

    /// 409 Conflict with the standard optimistic-concurrency message.
    pub fn conflict_modified(resource: QualifiedResource<'_>, name: &str) -> Self {
        Self::conflict(resource, name, "the object has been modified; please apply your changes to the latest version and try again")
    }

    /// 409 Conflict with a custom explanation.
    pub fn conflict(resource: QualifiedResource<'_>, name: &str, why: &str) -> Self {
        Self::new(409, "Conflict", format!("Operation cannot be fulfilled on {resource} \"{name}\": {why}"))
            .with_details(resource.details(name))
    }

    /// 409 Conflict of a server-side apply: the fields other managers own, one
    /// `FieldManagerConflict` cause each, and no object named (as upstream's details).
    pub fn apply_conflict(message: String, causes: Vec<Value>) -> Self {
        Self::new(409, "Conflict", message).with_details(json!({ "causes": causes }))
    }

    /// 422 Invalid built from field errors.
    pub fn invalid(group: &str, kind: &str, name: &str, errors: Vec<FieldError>) -> Self {
        let list = FieldError::aggregate(&errors);
        let causes: Vec<Value> =
            errors.iter().map(|e| json!({ "reason": e.kind.cause_reason(), "message": e.body(), "field": e.field })).collect();
        let mut details = json!({ "causes": causes });
        if !kind.is_empty() {
            details["kind"] = json!(kind);
        }
        if !name.is_empty() {
            details["name"] = json!(name);
        }
        if !group.is_empty() {
            details["group"] = json!(group);
        }
        let prefix = if group.is_empty() { kind.to_string() } else { format!("{kind}.{group}") };
        Self::new(422, "Invalid", format!("{prefix} \"{name}\" is invalid: {list}")).with_details(details)
    }

    /// 400 BadRequest.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    /// 401 Unauthorized, as kube-apiserver answers a request it cannot authenticate when anonymous
    /// requests are off.
    pub fn unauthorized() -> Self {
        Self::new(401, "Unauthorized", "Unauthorized")
    }

    /// 403 Forbidden.
    pub fn forbidden(resource: QualifiedResource<'_>, name: &str, why: &str) -> Self {
        let subject = if name.is_empty() { resource.to_string() } else { format!("{resource} \"{name}\"") };
        Self::new(403, "Forbidden", format!("{subject} is forbidden: {why}")).with_details(resource.details(name))
    }

    /// 405 MethodNotAllowed of a handler that has no `verb` for `resource` (`NewMethodNotSupported`).
    pub fn method_not_supported(resource: QualifiedResource<'_>, verb: &str) -> Self {
        let message = format!("{verb} is not supported on resources of kind {}", quote(&resource.to_string()));
        let mut details = resource.details("");
        details.as_object_mut().expect("an object").remove("name");
        Self::new(405, "MethodNotAllowed", message).with_details(details)
    }

    /// 405 MethodNotAllowed: no route for this method on the path (kube-apiserver's mux).
    pub fn method_not_allowed() -> Self {
        Self::new(405, "MethodNotAllowed", "the server does not allow this method on the requested resource").with_details(json!({}))
    }

    /// 406 NotAcceptable from the REST router (go-restful's `jsr311.go`), naming the
    /// representations the route produces (k8s.io/apiserver pkg/endpoints/installer.go): JSON,
    /// YAML, protobuf where the kind has it, and the watch streams on a list or watch route.
    pub fn not_acceptable(with_protobuf: bool, streams: bool) -> Self {
        let mut produced = vec!["application/json", "application/yaml"];
        if with_protobuf {
            produced.push("application/vnd.kubernetes.protobuf");
        }
        if streams {
            produced.push("application/json;stream=watch");
            if with_protobuf {
                produced.push("application/vnd.kubernetes.protobuf;stream=watch");
            }
        }
        Self::not_acceptable_of(&produced)
    }

    /// 406 NotAcceptable of a route that produces the media types `produced`, in its words.
    pub fn not_acceptable_of(produced: &[&str]) -> Self {
        Self::new(406, "NotAcceptable", format!("406: Not Acceptable\n\nAvailable representations: {}", produced.join(", ")))
            .with_details(json!({}))
    }

    /// 406 NotAcceptable of an answer the handler cannot render as asked (`errNotAcceptable`,
    /// k8s.io/apiserver pkg/endpoints/handlers/response.go): no details.
    pub fn not_renderable(message: String) -> Self {
        Self::new(406, "NotAcceptable", message)
    }

    /// 406 NotAcceptable from a handler's own negotiation (`NewNotAcceptableError`,
    /// k8s.io/apiserver pkg/endpoints/handlers/negotiation/errors.go), with the media types a
    /// custom resource's serializer lists.
    pub fn not_acceptable_media_types() -> Self {
        Self::new(
            406,
            "NotAcceptable",
            "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
                .to_string(),
        )
    }

    /// 406 NotAcceptable of a built-in kind's watch asked for a media type with no stream
    /// serializer (`NegotiateOutputMediaTypeStream`, k8s.io/apiserver
    /// pkg/endpoints/handlers/negotiation).
    pub fn not_acceptable_streams() -> Self {
        let message =
            "only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch";
        Self::new(406, "NotAcceptable", message.to_string())
    }

    /// 410 Gone: a watch or continue token refers to compacted history.
    pub fn gone(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    /// 504 Timeout of a read at a revision the storage has not reached (`NewTooLargeResourceVersionError`).
    pub fn too_large_resource_version(wanted: u64, latest: u64) -> Self {
        let message = format!("Timeout: Too large resource version: {wanted}, current: {latest}");
        let causes = json!([{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]);
        Self::new(504, "Timeout", message).with_details(json!({"causes": causes, "retryAfterSeconds": 1}))
    }

    /// 413 RequestEntityTooLarge.
    pub fn too_large(limit: usize) -> Self {
        Self::new(413, "RequestEntityTooLarge", format!("Request entity too large: limit is {limit}"))
    }

    /// 415 UnsupportedMediaType from a decoder that knows the `supported` types.
    pub fn unsupported_media_type(supported: &[&str]) -> Self {
        Self::new(
            415,
            "UnsupportedMediaType",
            format!("the body of the request was in an unknown format - accepted media types include: {}", supported.join(", ")),
        )
    }

    /// 415 UnsupportedMediaType from kube-apiserver's REST router (go-restful), before any
    /// handler, for a body type no route consumes: a PATCH of a type no patch route takes, a
    /// request to `/version` naming a type other than JSON.
    pub fn unsupported_by_route() -> Self {
        Self::new(415, "UnsupportedMediaType", "415: Unsupported Media Type").with_details(json!({}))
    }

    /// 500 InternalError, the error its one cause names (`NewInternalError`, apimachinery's
    /// pkg/api/errors/errors.go).
    pub fn internal(message: impl Into<String>) -> Self {
        let message = message.into();
        Self::new(500, "InternalError", format!("Internal error occurred: {message}"))
            .with_details(json!({"causes": [{"message": message}]}))
    }

    /// 504 Timeout: the server could not finish in time (`NewTimeoutError`, without a retry
    /// hint).
    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(504, "Timeout", message)
    }

    /// 429 TooManyRequests, as an overloaded server (or API priority and fairness) answers.
    pub fn too_many_requests(message: impl Into<String>) -> Self {
        Self::new(429, "TooManyRequests", message)
    }

    /// An error the server has no `Status` for: upstream answers 500 with no reason
    /// (`StatusReasonUnknown`) and the error's text.
    pub fn unknown(message: impl Into<String>) -> Self {
        Self::new(500, "", message)
    }

    /// The `metav1.Status` body (`reason` left out when unknown, as upstream's `omitempty`).
    pub fn to_status(&self) -> Value {
        let mut s = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if let Some(d) = &self.details {
            s["details"] = d.clone();
        }
        if self.reason.is_empty()
            && let Some(map) = s.as_object_mut()
        {
            map.remove("reason");
        }
        s
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.reason, self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (code, [(http::header::CONTENT_TYPE, "application/json")], self.to_status().to_string()).into_response()
    }
}

/// Shorthand for results of API operations.
pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// 422 for a JSON patch that cannot be applied (a failed `test`, a missing path): upstream's
    /// patch handler makes it with `NewGenericServerResponse`, which keeps nothing of why
    /// (k8s.io/apiserver/pkg/endpoints/handlers/patch.go, `applyJSPatch`).
    pub fn invalid_patch() -> Self {
        let mut e = Self::new(422, "Invalid", "the server rejected our request due to an error in our request");
        e.details = Some(json!({}));
        e
    }
}
