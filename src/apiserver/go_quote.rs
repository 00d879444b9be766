//! Go's `strconv.Quote`, which `%q` uses: how upstream's messages quote the strings they show
//! (field errors' values, field managers, the characters JSON errors name), and how Go's JSON
//! decoder names a value's type in its errors.

/// A string quoted as Go's `strconv.Quote` quotes it.
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// Bytes quoted as Go's `strconv.Quote` quotes a string holding them: what is UTF-8 as
/// [`quote`] does, each byte that is not as `\xNN`.
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                c => out.push_str(&escaped(c)),
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!(r"\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

/// One character as `strconv.Quote` writes it inside its quotes (a double quote is left as
/// it is: only the caller knows which quote delimits it).
pub fn escaped(c: char) -> String {
    match c {
        '\x07' => r"\a".into(),
        '\x08' => r"\b".into(),
        '\x0c' => r"\f".into(),
        '\n' => r"\n".into(),
        '\r' => r"\r".into(),
        '\t' => r"\t".into(),
        '\x0b' => r"\v".into(),
        '\\' => r"\\".into(),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => format!(r"\x{:02x}", c as u32),
        c if !printable(c) && (c as u32) < 0x10000 => format!(r"\u{:04x}", c as u32),
        c if !printable(c) => format!(r"\U{:08x}", c as u32),
        c => c.to_string(),
    }
}

/// Go's `strconv.IsPrint`, as far as it matters here: letters, marks, numbers, punctuation,
/// symbols and the ASCII space are printable; controls (C0 and C1), the soft hyphen, every
/// other space and separator, and the common format characters are not.
pub fn printable(c: char) -> bool {
    let u = c as u32;
    let format = matches!(u, 0xad | 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x2064 | 0xfeff);
    c == ' ' || !(c.is_control() || c.is_whitespace() || format)
}

/// How Go's decoder names a JSON value's type.
pub fn json_type_name(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::String(_) => "string",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
        serde_json::Value::Null => "null",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each string with what Go 1.26's `strconv.Quote` makes of it.
    #[test]
    fn quotes_as_go_does() {
        let cases = [
            ("plain", r#""plain""#),
            ("a\"b\\c", r#""a\"b\\c""#),
            ("\x01\n\t\x7f", r#""\x01\n\t\x7f""#),
            ("\u{85}\u{a0}\u{ad}é", r#""\u0085\u00a0\u00adé""#),
            ("\u{2028}\u{feff}日本", r#""\u2028\ufeff日本""#),
        ];
        for (s, go) in cases {
            assert_eq!(quote(s), go, "{s:?}");
        }
        assert_eq!(quote_bytes(b"a\xff\xfe\xe6\x97\xa5"), r#""a\xff\xfe日""#);
    }
}
