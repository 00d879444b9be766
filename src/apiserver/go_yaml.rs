//! The errors of the YAML decoder upstream's decoders use (go.yaml.in/yaml/v2, through
//! sigs.k8s.io/yaml), in its words.
//!
//! Its reader (readerc.go, `yaml_parser_update_buffer`) decodes the input as UTF-8 before it
//! scans anything and refuses a malformed sequence or a character YAML does not allow, with no
//! line (a reader error sets no mark). The input is read 512 bytes at a time, each chunk whole
//! before the scanner reads from it, so in a body of one chunk these come before any syntax
//! error. Its scanner and parser are a port of libyaml's, as `libyaml_safer` is: a syntax error
//! is libyaml's problem, placed on a line as `parser.fail` (decode.go) places it.

use libyaml_safer::{ErrorKind, EventData, Parser};

/// What `yaml.Unmarshal` says of `body` (`yaml: ...`) when it cannot read it: the reader's
/// error, else the first syntax error of the first document.
pub fn error(body: &[u8]) -> Option<String> {
    reader_error(body).or_else(|| syntax_error(body))
}

/// The first scanner or parser error in `body`'s first document, as `parser.fail` words it:
/// `line N: ` from the problem's line (a scanner's counted from 1, a parser's from 0, so a
/// parser error on the first line has none), else from the context's, then the problem.
fn syntax_error(body: &[u8]) -> Option<String> {
    let mut input = body;
    let mut parser = Parser::new();
    parser.set_input_string(&mut input);
    let error = loop {
        match parser.parse() {
            Ok(event) if matches!(event.data, EventData::DocumentEnd { .. } | EventData::StreamEnd) => return None,
            Ok(_) => {}
            Err(error) => break error,
        }
    };
    let problem_line = error.problem_mark().map_or(0, |m| m.line);
    let line = match problem_line {
        0 => error.context_mark().map_or(0, |m| m.line),
        line if error.kind() == ErrorKind::Scanner => line + 1,
        line => line,
    };
    let problem = Some(error.problem()).filter(|p| !p.is_empty()).unwrap_or("unknown problem parsing YAML content");
    Some(match line {
        0 => format!("yaml: {problem}"),
        line => format!("yaml: line {line}: {problem}"),
    })
}

/// What the YAML reader says of `body`, as `yaml.Unmarshal` words it (`yaml: <problem>`), if
/// it refuses a byte. A body in UTF-16 (by its byte order mark) is not checked.
fn reader_error(body: &[u8]) -> Option<String> {
    const UTF16_MARKS: [[u8; 2]; 2] = [[0xFF, 0xFE], [0xFE, 0xFF]];
    if body.len() >= 2 && UTF16_MARKS.contains(&[body[0], body[1]]) {
        return None;
    }
    let text = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    problem(text).map(|problem| format!("yaml: {problem}"))
}

/// The first problem the reader finds in UTF-8 `text`.
fn problem(text: &[u8]) -> Option<&'static str> {
    let mut at = 0;
    while at < text.len() {
        let lead = text[at];
        let (width, bits) = match lead {
            _ if lead & 0x80 == 0 => (1, u32::from(lead)),
            _ if lead & 0xE0 == 0xC0 => (2, u32::from(lead & 0x1F)),
            _ if lead & 0xF0 == 0xE0 => (3, u32::from(lead & 0x0F)),
            _ if lead & 0xF8 == 0xF0 => (4, u32::from(lead & 0x07)),
            _ => return Some("invalid leading UTF-8 octet"),
        };
        if at + width > text.len() {
            return Some("incomplete UTF-8 octet sequence");
        }
        let mut value = bits;
        for &trailing in &text[at + 1..at + width] {
            if trailing & 0xC0 != 0x80 {
                return Some("invalid trailing UTF-8 octet");
            }
            value = (value << 6) + u32::from(trailing & 0x3F);
        }
        let shortest = match width {
            1 => true,
            2 => value >= 0x80,
            3 => value >= 0x800,
            _ => value >= 0x10000,
        };
        if !shortest {
            return Some("invalid length of a UTF-8 sequence");
        }
        if (0xD800..=0xDFFF).contains(&value) || value > 0x10FFFF {
            return Some("invalid Unicode character");
        }
        let allowed = matches!(value, 0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
        if !allowed {
            return Some("control characters are not allowed");
        }
        at += width;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_refuses_what_yaml_v2_refuses_first() {
        assert_eq!(reader_error(b"a: b\n"), None);
        assert_eq!(reader_error("a: \u{e9}\u{1F600}".as_bytes()), None);
        assert_eq!(reader_error(b"a: \x01").as_deref(), Some("yaml: control characters are not allowed"));
        assert_eq!(reader_error(b"a: \xff\x01").as_deref(), Some("yaml: invalid leading UTF-8 octet"));
        assert_eq!(reader_error(b"\x01\xff").as_deref(), Some("yaml: control characters are not allowed"));
        assert_eq!(reader_error(b"a\xc3").as_deref(), Some("yaml: incomplete UTF-8 octet sequence"));
        assert_eq!(reader_error(b"a\xc3a").as_deref(), Some("yaml: invalid trailing UTF-8 octet"));
        assert_eq!(reader_error(b"\xc0\x80").as_deref(), Some("yaml: invalid length of a UTF-8 sequence"));
        assert_eq!(reader_error(b"\xed\xa0\x80").as_deref(), Some("yaml: invalid Unicode character"));
        assert_eq!(reader_error(b"\xef\xbf\xbe").as_deref(), Some("yaml: control characters are not allowed"));
        assert_eq!(reader_error(b"\xef\xbb\xbfa: b"), None);
        assert_eq!(reader_error(b"\xff\xfe\x01\x00"), None);
    }

    /// Each answer as the pinned kube-apiserver gave it for the body (after `yaml: `).
    #[test]
    fn syntax_errors_are_placed_as_go_yaml_places_them() {
        assert_eq!(error(b"a: b\n"), None);
        assert_eq!(error(b""), None);
        assert_eq!(error(b"a: 1\n---\n{"), None, "only the first document is read");
        assert_eq!(error(b"{\"metadata\": ").as_deref(), Some("yaml: line 1: did not find expected node content"));
        assert_eq!(error(b"{\"metadata\"").as_deref(), Some("yaml: line 1: did not find expected ',' or '}'"));
        assert_eq!(error(b"{\"meta").as_deref(), Some("yaml: found unexpected end of stream"));
        assert_eq!(error(b"a: b: c").as_deref(), Some("yaml: mapping values are not allowed in this context"));
        assert_eq!(error(b"a:\n  b: 1\n c: 2").as_deref(), Some("yaml: line 2: did not find expected key"));
        assert_eq!(error(b"[1, 2").as_deref(), Some("yaml: line 1: did not find expected ',' or ']'"));
        assert_eq!(error(b"a: \"x").as_deref(), Some("yaml: found unexpected end of stream"));
        assert_eq!(error(b"a: [1,\nb: 2").as_deref(), Some("yaml: line 2: did not find expected ',' or ']'"));
        assert_eq!(error(b"- a\nb: c").as_deref(), Some("yaml: line 1: did not find expected '-' indicator"));
    }
}
