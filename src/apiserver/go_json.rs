//! The error Go's `encoding/json` gives for a body kube-apiserver cannot read: its decoders first
//! unmarshal a body into a struct of `apiVersion` and `kind` (k8s.io/apimachinery
//! pkg/runtime/serializer/json/meta.go `Interpret`), so a body that is not JSON gets the Go
//! scanner's syntax error (`invalid character 'x' looking for beginning of value`, `unexpected
//! end of JSON input`: encoding/json scanner.go), and one that is JSON but not an object, or
//! whose `apiVersion` or `kind` is not a string, the decoder's type error.

use crate::apiserver::go_quote::{escaped, json_type_name as type_name};
use serde::Deserialize;
use serde_json::Value;

/// The struct the body is unmarshalled into, as Go's `%v` of its type prints it.
const KIND_STRUCT: &str = r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;

/// What Go's `json.Unmarshal` of `body` into the `apiVersion`/`kind` struct returns, if it
/// fails.
pub fn unmarshal_error(body: &[u8]) -> Option<String> {
    if let Some(syntax) = syntax_error(body) {
        return Some(syntax);
    }
    // Valid JSON has bytes beyond ASCII only in strings, where Go takes invalid UTF-8 too.
    let value = parse(String::from_utf8_lossy(body).as_bytes()).ok()?;
    match &value {
        Value::Object(fields) => {
            // Go matches keys to fields without regard to case, and reports the first mismatch.
            fields.iter().find_map(|(key, value)| {
                let field = ["apiVersion", "kind"].into_iter().find(|f| f.eq_ignore_ascii_case(key))?;
                (!value.is_string() && !value.is_null())
                    .then(|| format!("json: cannot unmarshal {} into Go struct field .{field} of type string", type_name(value)))
            })
        }
        Value::Null => None,
        other => Some(format!("json: cannot unmarshal {} into Go value of type {KIND_STRUCT}", type_name(other))),
    }
}

/// `body` as a JSON value, nested as deep as Go's decoder takes it (its scanner refuses more
/// than 10,000 levels first), read on a stack that grows instead of to serde_json's limit.
pub fn parse(body: &[u8]) -> serde_json::Result<Value> {
    let mut decoder = serde_json::Deserializer::from_slice(body);
    decoder.disable_recursion_limit();
    let value = Value::deserialize(serde_stacker::Deserializer::new(&mut decoder))?;
    decoder.end()?;
    Ok(value)
}

/// The syntax error Go's JSON scanner finds in `body`, if any.
pub fn syntax_error(body: &[u8]) -> Option<String> {
    Scanner { body, at: 0, depth: 0 }.document().err()
}

/// The deepest nesting of objects and arrays Go's scanner takes (`maxNestingDepth`,
/// encoding/json scanner.go).
const MAX_DEPTH: usize = 10_000;

/// A syntax check that fails where and as Go's JSON scanner does.
struct Scanner<'a> {
    body: &'a [u8],
    at: usize,
    /// The objects and arrays open at `at`.
    depth: usize,
}

const END: &str = "unexpected end of JSON input";

impl Scanner<'_> {
    fn document(&mut self) -> Result<(), String> {
        self.value()?;
        self.space();
        match self.peek() {
            None => Ok(()),
            Some(c) => Err(invalid(c, "after top-level value")),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.body.get(self.at).copied()
    }

    fn next(&mut self) -> Result<u8, String> {
        let c = self.peek().ok_or(END)?;
        self.at += 1;
        Ok(c)
    }

    /// The next byte where the input may not end: Go's scanner feeds a space at the end, which
    /// such a state refuses as a character.
    fn next_or_space(&mut self) -> u8 {
        self.next().unwrap_or(b' ')
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Result<(), String> {
        self.space();
        match self.next()? {
            c @ (b'{' | b'[') => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(invalid(c, "exceeded max depth"));
                }
                // Nesting as deep as Go takes needs more than a thread's usual stack.
                stacker::maybe_grow(64 * 1024, 1024 * 1024, || if c == b'{' { self.object() } else { self.array() })?;
                self.depth -= 1;
                Ok(())
            }
            b'"' => self.string(),
            b'-' => match self.next_or_space() {
                c if c.is_ascii_digit() => self.number(c),
                c => Err(invalid(c, "in numeric literal")),
            },
            c if c.is_ascii_digit() => self.number(c),
            b't' => self.literal(b"rue", "true"),
            b'f' => self.literal(b"alse", "false"),
            b'n' => self.literal(b"ull", "null"),
            c => Err(invalid(c, "looking for beginning of value")),
        }
    }

    fn object(&mut self) -> Result<(), String> {
        self.space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.space();
            match self.next()? {
                b'"' => self.string()?,
                c => return Err(invalid(c, "looking for beginning of object key string")),
            }
            self.space();
            match self.next()? {
                b':' => {}
                c => return Err(invalid(c, "after object key")),
            }
            self.value()?;
            self.space();
            match self.next()? {
                b',' => {}
                b'}' => return Ok(()),
                c => return Err(invalid(c, "after object key:value pair")),
            }
        }
    }

    fn array(&mut self) -> Result<(), String> {
        self.space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.value()?;
            self.space();
            match self.next()? {
                b',' => {}
                b']' => return Ok(()),
                c => return Err(invalid(c, "after array element")),
            }
        }
    }

    fn string(&mut self) -> Result<(), String> {
        loop {
            match self.next()? {
                b'"' => return Ok(()),
                b'\\' => match self.next_or_space() {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'u' => {
                        for _ in 0..4 {
                            let c = self.next_or_space();
                            if !c.is_ascii_hexdigit() {
                                return Err(invalid(c, "in \\u hexadecimal character escape"));
                            }
                        }
                    }
                    c => return Err(invalid(c, "in string escape code")),
                },
                c if c < 0x20 => return Err(invalid(c, "in string literal")),
                _ => {}
            }
        }
    }

    /// A number whose first digit is `first`.
    fn number(&mut self, first: u8) -> Result<(), String> {
        if first != b'0' {
            self.digits();
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            match self.next_or_space() {
                c if c.is_ascii_digit() => self.digits(),
                c => return Err(invalid(c, "after decimal point in numeric literal")),
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            let mut c = self.next_or_space();
            if c == b'+' || c == b'-' {
                c = self.next_or_space();
            }
            if !c.is_ascii_digit() {
                return Err(invalid(c, "in exponent of numeric literal"));
            }
            self.digits();
        }
        Ok(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
    }

    /// The rest of literal `word` after its first letter.
    fn literal(&mut self, rest: &[u8], word: &str) -> Result<(), String> {
        for &expected in rest {
            let c = self.next_or_space();
            if c != expected {
                return Err(invalid(c, &format!("in literal {word} (expecting {})", quote_char(expected))));
            }
        }
        Ok(())
    }
}

/// Go's `invalid character 'c' CONTEXT`.
fn invalid(c: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote_char(c))
}

/// Go's `quoteChar`: the byte as a rune (Latin-1), quoted as `strconv.Quote` does, in single
/// quotes.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".to_string(),
        b'"' => "'\"'".to_string(),
        _ => {
            let quoted = escaped(char::from(c));
            format!("'{quoted}'")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each body with what Go 1.26's `json.Unmarshal` says of it (checked against Go).
    #[test]
    fn errors_are_go_s() {
        let not_an_object = format!("json: cannot unmarshal string into Go value of type {KIND_STRUCT}");
        let cases: [(&[u8], Option<&str>); 12] = [
            (b"\"a string\"", Some(&not_an_object)),
            (b"{\"apiVersion\": 1}", Some("json: cannot unmarshal number into Go struct field .apiVersion of type string")),
            (b"{\"KIND\": [1]}", Some("json: cannot unmarshal array into Go struct field .kind of type string")),
            (b"\x02abc", Some(r"invalid character '\x02' looking for beginning of value")),
            (b"{\"a\" 1}", Some("invalid character '1' after object key")),
            (b"\xc3\xa9", Some("invalid character 'Ã' looking for beginning of value")),
            (b"\x80", Some(r"invalid character '\u0080' looking for beginning of value")),
            (b"{\"a\":", Some("unexpected end of JSON input")),
            (b"[1, tru]", Some("invalid character ']' in literal true (expecting 'e')")),
            (b"{} x", Some("invalid character 'x' after top-level value")),
            (b"-x", Some("invalid character 'x' in numeric literal")),
            (b"{\"kind\": null, \"apiVersion\": \"v1\"}", None),
        ];
        for (body, expected) in cases {
            assert_eq!(unmarshal_error(body).as_deref(), expected, "{}", String::from_utf8_lossy(body));
        }
    }
}
