//! A list's `continue` token in the generic storage's format (k8s.io/apiserver
//! pkg/storage/continue.go): unpadded URL-safe base64 of `{"v":"meta.k8s.io/v1","rv":N,
//! "start":KEY}`, where KEY is the key the next page starts at, relative to the list's key prefix
//! (`name` in a namespace or of a cluster-scoped resource, `namespace/name` across namespaces).
//! A page ends at its last key, so the next starts just after it: that key with a NUL appended.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use serde_json::Value;

use crate::apiserver::go_json;
use crate::apiserver::go_quote::json_type_name as type_name;

/// The only version of the token's format.
const VERSION: &str = "meta.k8s.io/v1";

/// The token as it is encoded (field order as upstream's struct).
#[derive(Serialize)]
struct Token<'a> {
    v: &'a str,
    rv: i64,
    start: &'a str,
}

/// Where a page continues: the list's revision and the first key relative to its prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Continue {
    /// The revision of the first page (negative for "the latest").
    pub revision: i64,
    /// The key the page starts at, relative to the list's key prefix.
    pub start: String,
}

/// The token for a page that ends at `last_key` (relative to the list's key prefix).
pub fn encode(last_key: &str, revision: u64) -> String {
    let token = Token { v: VERSION, rv: revision as i64, start: &format!("/{last_key}\0") };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).expect("a token serializes"))
}

/// The token's start and revision, or the error `storage.DecodeContinue` gives (without the
/// "invalid continue token: " the list handler puts before it).
pub fn decode(token: &str) -> Result<Continue, String> {
    let generic = |why: &str| format!("continue key is not valid: {why}");
    let bytes = go_raw_url_decode(token).map_err(|at| generic(&format!("illegal base64 data at input byte {at}")))?;
    let (version, revision, start) = go_unmarshal(&bytes).map_err(|e| generic(&e))?;
    if version != VERSION {
        return Err(format!("continue key is not valid: server does not recognize this encoded version {version}"));
    }
    if revision == 0 {
        return Err("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into());
    }
    if start.is_empty() {
        return Err("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)".into());
    }
    // The key is cleaned as a path, so that it cannot reach above the list's prefix; one that
    // cleaning would change is refused.
    let key = if start.starts_with('/') { start.clone() } else { format!("/{start}") };
    if !is_clean_path(&key) {
        return Err(generic(&start));
    }
    Ok(Continue { revision, start: key[1..].to_string() })
}

/// Go's `json.Unmarshal` of the token into its struct: keys match fields without regard to
/// case, a later key wins, null leaves a field as it was, and the first value of the wrong type
/// is the error (after the rest is read).
fn go_unmarshal(bytes: &[u8]) -> Result<(String, i64, String), String> {
    if let Some(syntax) = go_json::syntax_error(bytes) {
        return Err(syntax);
    }
    let value: Value = serde_json::from_str(&String::from_utf8_lossy(bytes)).map_err(|e| e.to_string())?;
    let fields = match value {
        Value::Object(fields) => fields,
        Value::Null => Default::default(),
        other => return Err(format!("json: cannot unmarshal {} into Go value of type storage.continueToken", type_name(&other))),
    };
    let (mut version, mut revision, mut start) = (String::new(), 0, String::new());
    let mut first_error = None;
    let mut wrong = |field: &str, go_type: &str, value: &Value| {
        let what = match value {
            Value::Number(n) => format!("number {n}"),
            other => type_name(other).to_string(),
        };
        first_error.get_or_insert(format!("json: cannot unmarshal {what} into Go struct field continueToken.{field} of type {go_type}"));
    };
    for (key, value) in &fields {
        match (key.to_ascii_lowercase().as_str(), value) {
            (_, Value::Null) => {}
            ("v", Value::String(s)) => version = s.clone(),
            ("v", other) => wrong("v", "string", other),
            ("rv", Value::Number(n)) if n.is_i64() => revision = n.as_i64().expect("checked"),
            ("rv", other) => wrong("rv", "int64", other),
            ("start", Value::String(s)) => start = s.clone(),
            ("start", other) => wrong("start", "string", other),
            _ => {}
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok((version, revision, start)),
    }
}

/// Whether Go's `path.Clean` leaves the rooted `path` as it is: no empty, `.` or `..` element,
/// no trailing slash but the root's.
fn is_clean_path(path: &str) -> bool {
    path == "/" || path[1..].split('/').all(|element| !element.is_empty() && element != "." && element != "..")
}

/// Go's `base64.RawURLEncoding.DecodeString`: line breaks are skipped, anything else outside the
/// alphabet (padding too) is an error at its byte offset, and so is a last group of one
/// character.
fn go_raw_url_decode(text: &str) -> Result<Vec<u8>, usize> {
    let mut clean = String::with_capacity(text.len());
    for (at, byte) in text.bytes().enumerate() {
        match byte {
            b'\r' | b'\n' => {}
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' => clean.push(byte as char),
            _ => return Err(at),
        }
    }
    if clean.len() % 4 == 1 {
        return Err(text.len() - 1);
    }
    // Go ignores the unused bits of a last partial group; the base64 crate insists they be zero.
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireNone)
            .with_decode_allow_trailing_bits(true),
    );
    Ok(engine.decode(clean).expect("checked against the alphabet and length"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_carries_the_key_after_the_last_one() {
        let token = encode("default/web", 42);
        let json = URL_SAFE_NO_PAD.decode(&token).unwrap();
        assert_eq!(String::from_utf8(json).unwrap(), r#"{"v":"meta.k8s.io/v1","rv":42,"start":"/default/web\u0000"}"#);
        assert_eq!(decode(&token), Ok(Continue { revision: 42, start: "default/web\0".into() }));
    }

    #[test]
    fn bad_tokens_get_the_storage_errors() {
        let b64 = |json: &str| URL_SAFE_NO_PAD.encode(json);
        assert_eq!(decode("ab=c").unwrap_err(), "continue key is not valid: illegal base64 data at input byte 2");
        assert_eq!(decode("abcde").unwrap_err(), "continue key is not valid: illegal base64 data at input byte 4");
        assert_eq!(decode("abc").unwrap_err(), "continue key is not valid: invalid character 'i' looking for beginning of value");
        assert_eq!(
            decode(&b64(r#"{"v":"v2","rv":1,"start":"a"}"#)).unwrap_err(),
            "continue key is not valid: server does not recognize this encoded version v2"
        );
        assert!(decode(&b64(r#"{"v":"meta.k8s.io/v1","rv":0,"start":"a"}"#)).unwrap_err().contains("start resourceVersion"));
        assert!(decode(&b64(r#"{"v":"meta.k8s.io/v1","rv":1,"start":""}"#)).unwrap_err().contains("start key empty"));
        assert_eq!(decode(&b64(r#"{"v":"meta.k8s.io/v1","rv":1,"start":"a/../b"}"#)).unwrap_err(), "continue key is not valid: a/../b");
        assert_eq!(decode(&b64(r#"{"v":"meta.k8s.io/v1","rv":-1,"start":"/a"}"#)), Ok(Continue { revision: -1, start: "a".into() }));
    }
}
