//! A `Content-Type` read as Go's `mime.ParseMediaType` reads it, which upstream's handlers use
//! to pick the serializer of a request body (`NegotiateInputSerializerForMediaType`,
//! k8s.io/apiserver pkg/endpoints/handlers/negotiation/negotiate.go): a type that does not
//! parse is one no serializer reads.

/// The media type of `content_type`, lower-cased and without its parameters, when it parses as
/// Go's `mime.ParseMediaType` parses it: a token, or two joined by `/`, then parameters
/// `; key=value` (a value a token or a quoted string), each key once; one trailing `;` is
/// ignored.
pub fn parse(content_type: &str) -> Option<String> {
    let (base, mut rest) = content_type.split_once(';').map_or((content_type, ""), |(b, _)| (b, &content_type[b.len()..]));
    let media_type = base.trim().to_lowercase();
    let (kind, after) = token(&media_type);
    if kind.is_empty() {
        return None;
    }
    if let Some(sub) = after.strip_prefix('/') {
        let (subtype, after) = token(sub);
        if subtype.is_empty() || !after.is_empty() {
            return None;
        }
    } else if !after.is_empty() {
        return None;
    }
    let mut keys: Vec<String> = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Some(media_type);
        }
        match parameter(rest) {
            Some((key, after)) if !keys.contains(&key) => {
                keys.push(key);
                rest = after;
            }
            Some(_) => return None,
            None if rest.trim() == ";" => return Some(media_type),
            None => return None,
        }
    }
}

/// One `; key=value` at the start of `s` (Go's `consumeMediaParam`): the lower-cased key and
/// what follows.
fn parameter(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start().strip_prefix(';')?.trim_start();
    let (key, s) = token(s);
    if key.is_empty() {
        return None;
    }
    let s = s.trim_start().strip_prefix('=')?.trim_start();
    let after = match s.strip_prefix('"') {
        Some(quoted) => quoted_end(quoted)?,
        None => match token(s) {
            ("", _) => return None,
            (_, after) => after,
        },
    };
    Some((key.to_lowercase(), after))
}

/// What follows the closing quote of a quoted string whose opening quote is already read.
fn quoted_end(s: &str) -> Option<&str> {
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some(&s[i + 1..]),
            '\\' => {
                chars.next()?;
            }
            _ => {}
        }
    }
    None
}

/// The longest token at the start of `s` (RFC 1521: printable ASCII but spaces and
/// `()<>@,;:\"/[]?=`) and what follows it.
fn token(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_graphic() || "()<>@,;:\\\"/[]?=".contains(c)).unwrap_or(s.len());
    s.split_at(end)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_media_types_as_go_does() {
        assert_eq!(parse("application/json").as_deref(), Some("application/json"));
        assert_eq!(parse("Application/JSON; charset=utf-8").as_deref(), Some("application/json"));
        assert_eq!(parse("application/json;").as_deref(), Some("application/json"));
        assert_eq!(parse(r#"application/json; a="x;y""#).as_deref(), Some("application/json"));
        assert_eq!(parse("garbage").as_deref(), Some("garbage"));
        for refused in [
            "application/json;;",
            "application/json;;;",
            "application/json; a=1; a=2",
            "application/json; a",
            "application/",
            "/json",
            "a/b/c",
            "",
        ] {
            assert_eq!(parse(refused), None, "{refused:?}");
        }
    }
}
