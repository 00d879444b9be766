//! Indented JSON answers. kube-apiserver indents a JSON answer as Go's `json.MarshalIndent`
//! does (two spaces, `": "` between a key and its value, `{}` and `[]` kept whole) when the
//! request asks with `pretty=true` or comes from curl, Wget or a browser
//! (`isPrettyPrint`, k8s.io/apiserver pkg/endpoints/handlers/negotiation/negotiate.go); and
//! always for the answers it writes raw: `/version`, the root path list
//! (`WriteRawJSON`, k8s.io/apiserver pkg/endpoints/handlers/responsewriters/writers.go). A
//! watch stream is never indented.

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::header;

use crate::apiserver::http::deep::Strings;
use crate::apiserver::http::request::Query;
use crate::apiserver::status::ApiError;

/// Marks a response whose JSON body is indented whatever the request asked (upstream's
/// `WriteRawJSON`).
#[derive(Clone, Copy, Debug)]
pub struct AlwaysIndented;

/// Marks a streamed response (a watch), which is never indented.
#[derive(Clone, Copy, Debug)]
pub struct Streamed;

/// Middleware: indents the JSON answer to a request that asks for it (see the module).
pub async fn indent_when_asked(request: Request, next: Next) -> Response {
    let asked = asks_pretty(&request);
    let response = next.run(request).await;
    let is_json = response.headers().get(header::CONTENT_TYPE).is_some_and(|t| t.as_bytes() == b"application/json");
    let wanted = asked || response.extensions().get::<AlwaysIndented>().is_some();
    if !wanted || !is_json || response.extensions().get::<Streamed>().is_some() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return ApiError::internal("the answer could not be read to indent it".to_string()).into_response();
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(indent(&bytes)))
}

/// Whether `request` asks for indented JSON: a non-empty `pretty` parameter that Go's
/// `strconv.ParseBool` reads as true, or without one a user agent of curl, Wget or a browser.
fn asks_pretty(request: &Request) -> bool {
    // Most requests name no `pretty`: their query is not parsed (as upstream skips it).
    let raw = request.uri().query().filter(|q| q.contains("pretty"));
    if let Some(value) = raw.and_then(|q| Query::parse(Some(q)).get("pretty").map(str::to_owned)) {
        return matches!(value.as_str(), "1" | "t" | "T" | "TRUE" | "true" | "True");
    }
    let agent = request.headers().get(header::USER_AGENT).map(|a| a.as_bytes()).unwrap_or_default();
    [&b"curl"[..], b"Wget", b"Mozilla/5.0"].iter().any(|prefix| agent.starts_with(prefix))
}

/// Compact JSON `compact` indented as Go's `json.Indent` with no prefix and two spaces: each
/// member and element on its own line, an empty object or array kept as `{}` or `[]`.
pub fn indent(compact: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let (mut strings, mut opened) = (Strings::default(), false);
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', depth * 2));
    };
    for &c in compact {
        if strings.within(c) {
            out.push(c);
            continue;
        }
        if c.is_ascii_whitespace() {
            continue;
        }
        // An opening bracket's newline waits for what follows: none before its closing one.
        if std::mem::take(&mut opened) && c != b']' && c != b'}' {
            newline(&mut out, depth);
        }
        match c {
            b'{' | b'[' => {
                out.push(c);
                depth += 1;
                opened = true;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if !matches!(out.last(), Some(b'{' | b'[')) {
                    newline(&mut out, depth);
                }
                out.push(c);
            }
            b',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::indent;

    #[test]
    fn json_is_indented_as_go_indents_it() {
        let compact = br#"{"a":{},"b":[],"c":[1,{"d":"x,y:{z}\"]"}],"e":null}"#;
        let expected =
            "{\n  \"a\": {},\n  \"b\": [],\n  \"c\": [\n    1,\n    {\n      \"d\": \"x,y:{z}\\\"]\"\n    }\n  ],\n  \"e\": null\n}";
        assert_eq!(String::from_utf8(indent(compact)).unwrap(), expected);
    }
}
