//! What a request is about: the resource path (as upstream `RequestInfoFactory` parses it),
//! the query parameters, and the representation the client accepts.

use crate::apiserver::go_quote::{quote, quote_bytes};
use crate::apiserver::protobuf;
use crate::apiserver::status::{ApiError, ApiResult};

/// The parts of a resource URL.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourcePath {
    /// API group, empty for `/api`.
    pub group: String,
    /// API version.
    pub version: String,
    /// Namespace from the URL, if any.
    pub namespace: Option<String>,
    /// Plural resource.
    pub resource: String,
    /// Object name, if the URL names one.
    pub name: Option<String>,
    /// Subresource (`status`, `finalize`), if any.
    pub subresource: Option<String>,
    /// Legacy `/watch/` path prefix.
    pub watch_prefix: bool,
    /// Segments follow the subresource: no route of a built-in resource has them, and the
    /// apiextensions server ignores them (`RequestInfoFactory.NewRequestInfo`, k8s.io/apiserver
    /// pkg/endpoints/request/requestinfo.go, reads the first three parts).
    pub beyond_subresource: bool,
}

/// Subresources of namespaces, which upstream checks before treating the segment as a resource.
const NAMESPACE_SUBRESOURCES: &[&str] = &["status", "finalize"];

impl ResourcePath {
    /// Parses `/api/v1/...` and `/apis/{group}/{version}/...`; `None` when the path names no resource.
    /// The path is percent-decoded first, as Go's `URL.Path` is, so a name may hold a space.
    pub fn parse(path: &str) -> Option<Self> {
        let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
        // A path that does not start with one `/api` (`//api/v1`) is not the REST router's.
        let parts: Vec<&str> = decoded.strip_prefix('/')?.trim_end_matches('/').split('/').collect();
        let (group, version, mut rest) = match parts.as_slice() {
            ["api", version, rest @ ..] => ("", *version, rest),
            ["apis", group, version, rest @ ..] => (*group, *version, rest),
            _ => return None,
        };
        let mut out = ResourcePath { group: group.into(), version: version.into(), ..Default::default() };
        if rest.first() == Some(&"watch") {
            out.watch_prefix = true;
            rest = &rest[1..];
        }
        let mut scoped = false;
        if rest.first() == Some(&"namespaces") && rest.len() > 1 {
            out.namespace = Some(rest[1].to_string());
            if rest.len() > 2 && !NAMESPACE_SUBRESOURCES.contains(&rest[2]) {
                rest = &rest[2..];
                scoped = true;
            }
        }
        match rest {
            [resource] => out.resource = resource.to_string(),
            [resource, name] => {
                out.resource = resource.to_string();
                out.name = Some(name.to_string());
            }
            [resource, name, sub, beyond @ ..] => {
                out.resource = resource.to_string();
                out.name = Some(name.to_string());
                out.subresource = Some(sub.to_string());
                out.beyond_subresource = !beyond.is_empty();
            }
            _ => return None,
        }
        if !scoped {
            // `/api/v1/namespaces/{name}` names a namespace, not a namespace scope.
            out.namespace = None;
        }
        if out.resource.is_empty() || out.name.as_deref() == Some("") {
            return None;
        }
        Some(out)
    }
}

/// Go's `url.QueryUnescape`: `+` is a space and `%XX` a byte; a `%` without two hex digits
/// after it is an error (none).
fn go_query_unescape(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let escapes_whole = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'%')
        .all(|(at, _)| bytes.get(at + 1).is_some_and(u8::is_ascii_hexdigit) && bytes.get(at + 2).is_some_and(u8::is_ascii_hexdigit));
    let spaced = text.replace('+', " ");
    escapes_whole.then(|| percent_encoding::percent_decode_str(&spaced).decode_utf8_lossy().into_owned())
}

/// The path's segments that are not UTF-8 once percent-decoded, each as quoted here (every such
/// byte read as U+FFFD) beside Go's quoting of its bytes (`"\xff\xfe"`): Go's strings hold any
/// bytes, so upstream's messages name such a name by its bytes.
pub fn go_quoted_segments(path: &str) -> Vec<(String, String)> {
    path.split('/')
        .map(|segment| percent_encoding::percent_decode_str(segment).collect::<Vec<u8>>())
        .filter(|bytes| std::str::from_utf8(bytes).is_err())
        .map(|bytes| (quote(&String::from_utf8_lossy(&bytes)), quote_bytes(&bytes)))
        .collect()
}

/// Decoded query parameters.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Parses a raw query string as Go's `url.ParseQuery` does: pairs split at `&`, an empty
    /// one skipped, and one that holds a `;` or an escape that is not `%` and two hex digits
    /// dropped (the error it gives is ignored by the handlers, which read `URL.Query()`).
    pub fn parse(raw: Option<&str>) -> Self {
        let pairs = raw
            .unwrap_or("")
            .split('&')
            .filter(|pair| !pair.is_empty() && !pair.contains(';'))
            .filter_map(|pair| {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                Some((go_query_unescape(key)?, go_query_unescape(value)?))
            })
            .collect();
        Self { pairs }
    }

    /// The first value of `name`, if non-empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
    }

    /// Every value of `name`.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.pairs.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str()).collect()
    }

    /// The first value of `name`, even if empty.
    fn first(&self, name: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// A boolean parameter as upstream decodes one (`Convert_Slice_string_To_bool` in
    /// k8s.io/apimachinery pkg/runtime/conversion.go): `0` and `false` in any case are false,
    /// anything else, even an empty value, is true.
    pub fn flag(&self, name: &str) -> Option<bool> {
        self.first(name).map(|v| !(v == "0" || v.eq_ignore_ascii_case("false")))
    }

    /// An integer parameter; one that is not a 64-bit integer (even an empty one) is a 400 with
    /// Go's `strconv.ParseInt` error, as upstream's parameter decoding answers.
    pub fn int(&self, name: &str) -> ApiResult<Option<i64>> {
        let Some(v) = self.first(name) else { return Ok(None) };
        let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
        let why = if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) { "invalid syntax" } else { "value out of range" };
        v.parse::<i64>().map(Some).map_err(|_| ApiError::bad_request(format!("strconv.ParseInt: parsing {}: {why}", quote(v))))
    }
}

/// The `apiVersion` of `meta.k8s.io/v1` renderings.
pub const META_V1: &str = "meta.k8s.io/v1";
/// The `apiVersion` of `meta.k8s.io/v1beta1` renderings.
pub const META_V1BETA1: &str = "meta.k8s.io/v1beta1";

/// The form in which objects are returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    /// The whole object.
    Full,
    /// `PartialObjectMetadata` of the `apiVersion` given: an object's metadata.
    Metadata(&'static str),
    /// `PartialObjectMetadataList` of the `apiVersion` given: a list's metadata.
    MetadataList(&'static str),
    /// `Table` of the `apiVersion` given, as `kubectl get` asks for.
    Table(&'static str),
}

/// The media type an answer is encoded in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `application/json`.
    Json,
    /// `application/yaml`.
    Yaml,
    /// `application/vnd.kubernetes.protobuf`, which built-in kinds have and custom resources
    /// do not.
    Protobuf,
}

impl Encoding {
    /// The encoding of an error answer, negotiated with no rendering as another kind
    /// (`ErrorNegotiated` with `DefaultEndpointRestrictions`, k8s.io/apiserver
    /// pkg/endpoints/handlers/responsewriters): the first JSON, YAML or protobuf media type
    /// accepted without an `as` parameter, and JSON when there is none.
    pub fn of_errors(accept: Option<&str>) -> Self {
        for media in accept.unwrap_or("").split(',') {
            let mut params = media.split(';').map(str::trim);
            let essence = params.next().unwrap_or("");
            if params.any(|p| p.split_once('=').is_some_and(|(k, _)| k.trim() == "as")) {
                continue;
            }
            match essence {
                "application/yaml" => return Self::Yaml,
                "application/json" | "*/*" | "application/*" | "json" => return Self::Json,
                protobuf::MEDIA_TYPE => return Self::Protobuf,
                _ => {}
            }
        }
        Self::Json
    }
}

impl Representation {
    /// Picks the first media type of an `Accept` header the server can produce, and its
    /// encoding. A rendering as another kind names a version of `meta.k8s.io` the endpoint
    /// transforms to (`RequestScope.AllowsMediaTypeTransform`, k8s.io/apiserver
    /// pkg/endpoints/handlers/rest.go). Protobuf is offered for the whole object of a built-in
    /// kind (`with_protobuf`); a refusal names the watch streams too where the route streams
    /// them (`streams`: a list or watch).
    pub fn negotiate(accept: Option<&str>, with_protobuf: bool, streams: bool) -> ApiResult<(Self, Encoding)> {
        let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else { return Ok((Self::Full, Encoding::Json)) };
        for media in accept.split(',') {
            let mut params = media.split(';').map(str::trim);
            let encoding = match params.next().unwrap_or("") {
                "application/yaml" => Encoding::Yaml,
                "application/json" | "*/*" | "application/*" | "json" => Encoding::Json,
                protobuf::MEDIA_TYPE if with_protobuf => Encoding::Protobuf,
                _ => continue,
            };
            let (mut as_kind, mut group, mut version) = (None, None, None);
            for p in params {
                if let Some((k, v)) = p.split_once('=') {
                    match k.trim() {
                        "as" => as_kind = Some(v.trim()),
                        "g" => group = Some(v.trim()),
                        "v" => version = Some(v.trim()),
                        _ => {}
                    }
                }
            }
            let meta = match (group, version) {
                (Some("meta.k8s.io"), Some("v1")) => META_V1,
                (Some("meta.k8s.io"), Some("v1beta1")) => META_V1BETA1,
                _ if as_kind.is_none() => return Ok((Self::Full, encoding)),
                _ => continue,
            };
            match as_kind {
                // Tables and metadata have no protobuf encoding.
                Some(_) if encoding == Encoding::Protobuf => continue,
                None => return Ok((Self::Full, encoding)),
                Some("Table") => return Ok((Self::Table(meta), encoding)),
                Some("PartialObjectMetadata") => return Ok((Self::Metadata(meta), encoding)),
                Some("PartialObjectMetadataList") => return Ok((Self::MetadataList(meta), encoding)),
                _ => continue,
            }
        }
        Err(ApiError::not_acceptable(with_protobuf, streams))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_core_namespaced_paths() {
        let p = ResourcePath::parse("/api/v1/namespaces/ns1/pods/p1/status").unwrap();
        assert_eq!(p.group, "");
        assert_eq!(p.namespace.as_deref(), Some("ns1"));
        assert_eq!(p.resource, "pods");
        assert_eq!(p.name.as_deref(), Some("p1"));
        assert_eq!(p.subresource.as_deref(), Some("status"));
    }

    #[test]
    fn parses_namespace_objects_and_their_subresources() {
        let p = ResourcePath::parse("/api/v1/namespaces/ns1").unwrap();
        assert_eq!((p.resource.as_str(), p.name.as_deref(), p.namespace), ("namespaces", Some("ns1"), None));
        let p = ResourcePath::parse("/api/v1/namespaces/ns1/finalize").unwrap();
        assert_eq!((p.resource.as_str(), p.subresource.as_deref()), ("namespaces", Some("finalize")));
        let p = ResourcePath::parse("/api/v1/namespaces").unwrap();
        assert_eq!((p.resource.as_str(), p.name), ("namespaces", None));
    }

    #[test]
    fn parses_group_paths_and_watch_prefix() {
        let p = ResourcePath::parse("/apis/apps/v1/watch/namespaces/x/deployments").unwrap();
        assert!(p.watch_prefix);
        assert_eq!((p.group.as_str(), p.version.as_str(), p.resource.as_str()), ("apps", "v1", "deployments"));
        assert!(ResourcePath::parse("/apis/apps").is_none());
        assert!(ResourcePath::parse("/healthz").is_none());
    }

    #[test]
    fn names_are_percent_decoded() {
        let p = ResourcePath::parse("/api/v1/namespaces/ns1/replicationcontrollers/doesn't%20matter").unwrap();
        assert_eq!(p.name.as_deref(), Some("doesn't matter"));
    }

    #[test]
    fn negotiates_kubectl_and_metadata_accept_headers() {
        let kubectl = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
        assert_eq!(Representation::negotiate(Some(kubectl), true, false).unwrap(), (Representation::Table(META_V1), Encoding::Json));
        let meta = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1";
        assert_eq!(
            Representation::negotiate(Some(meta), false, false).unwrap(),
            (Representation::MetadataList(META_V1BETA1), Encoding::Json)
        );
        assert_eq!(Representation::negotiate(Some("application/json"), false, false).unwrap(), (Representation::Full, Encoding::Json));
        assert_eq!(Representation::negotiate(Some("application/yaml"), false, false).unwrap(), (Representation::Full, Encoding::Yaml));
        assert_eq!(Representation::negotiate(None, false, false).unwrap(), (Representation::Full, Encoding::Json));
        assert_eq!(Representation::negotiate(Some("application/json;as=Table;g=meta.k8s.io"), false, false).unwrap_err().code, 406);
        assert_eq!(Representation::negotiate(Some("application/vnd.kubernetes.protobuf"), false, false).unwrap_err().code, 406);
        assert_eq!(
            Representation::negotiate(Some("application/vnd.kubernetes.protobuf"), true, false).unwrap(),
            (Representation::Full, Encoding::Protobuf)
        );
    }
}
