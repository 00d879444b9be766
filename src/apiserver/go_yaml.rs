//! The errors of the YAML reader upstream's decoders use (go.yaml.in/yaml/v2 readerc.go,
//! `yaml_parser_update_buffer`): before it scans anything it decodes its input as UTF-8 and
//! refuses a malformed sequence or a character YAML does not allow, with no line (a reader
//! error sets no mark). The input is read 512 bytes at a time, each chunk whole before the
//! scanner reads from it, so in a body of one chunk these come before any syntax error.

/// What the YAML reader says of `body`, as `yaml.Unmarshal` words it (`yaml: <problem>`), if
/// it refuses a byte. A body in UTF-16 (by its byte order mark) is not checked.
pub fn reader_error(body: &[u8]) -> Option<String> {
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
}
