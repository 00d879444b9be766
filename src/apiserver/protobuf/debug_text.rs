//! The `Debug` text prost-derived messages print, parsed into a small syntax tree.

/// A value in the `Debug` syntax prost-derived messages print.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    /// `Name { field: value, ... }`, or a bare `Name` for a message without fields.
    Message { name: String, fields: Vec<(String, Node)> },
    /// `Some(value)`.
    Some(Box<Node>),
    /// `None`.
    None,
    /// A quoted string, unescaped.
    Str(String),
    /// An integer or float literal as printed (`-3`, `1.5`, `1e-7`, `inf`, `NaN`).
    Number(String),
    /// `true` or `false`.
    Bool(bool),
    /// `[a, b]`: a repeated field, or the bytes of a `bytes` field.
    List(Vec<Node>),
    /// `{"key": value}`: a map field.
    Map(Vec<(Node, Node)>),
}

/// Nesting deeper than this is rejected (prost itself stops decoding at depth 100).
pub(super) const MAX_DEPTH: usize = 512;

/// A recursive-descent parser for [`Node`] text.
pub(super) struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// Parses one complete value.
    pub(super) fn parse(text: &'a str) -> Result<Node, String> {
        let mut parser = Parser { text, pos: 0, depth: 0 };
        let node = parser.value()?;
        parser.skip_whitespace();
        match parser.peek() {
            None => Ok(node),
            Some(c) => Err(parser.error(&format!("unexpected {c:?} after the value"))),
        }
    }

    /// An error message pointing at the current offset.
    fn error(&self, message: &str) -> String {
        format!("{message} at offset {}", self.pos)
    }

    /// The next character, without consuming it.
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    /// Consumes and returns the next character.
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Skips spaces (`Debug` output only has ASCII whitespace outside strings).
    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// Consumes `expected` (after whitespace) or fails.
    fn expect(&mut self, expected: char) -> Result<(), String> {
        self.skip_whitespace();
        match self.bump() {
            Some(c) if c == expected => Ok(()),
            Some(c) => Err(self.error(&format!("expected {expected:?}, found {c:?}"))),
            None => Err(self.error(&format!("expected {expected:?}, found the end"))),
        }
    }

    /// Consumes `c` if it is next (after whitespace).
    fn eat(&mut self, c: char) -> bool {
        self.skip_whitespace();
        let found = self.peek() == Some(c);
        if found {
            self.pos += c.len_utf8();
        }
        found
    }

    /// Takes the longest run of characters satisfying `accept`.
    fn take_while(&mut self, accept: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(&accept) {
            self.pos += self.peek().map_or(0, char::len_utf8);
        }
        &self.text[start..self.pos]
    }

    /// Any value, dispatching on its first character.
    fn value(&mut self) -> Result<Node, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        self.skip_whitespace();
        let node = match self.peek() {
            Some('"') => self.string().map(Node::Str),
            Some('[') => self.list(),
            Some('{') => self.map(),
            Some(c) if c == '-' || c.is_ascii_digit() => Ok(self.number()),
            Some(c) if c.is_alphabetic() || c == '_' => self.identifier_value(),
            Some(c) => Err(self.error(&format!("unexpected {c:?}"))),
            None => Err(self.error("unexpected end")),
        };
        self.depth -= 1;
        node
    }

    /// A number literal, kept as text.
    fn number(&mut self) -> Node {
        let literal = self.take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.'));
        Node::Number(literal.to_string())
    }

    /// `None`, `Some(..)`, `true`, `false`, `inf`, `NaN`, or a message.
    fn identifier_value(&mut self) -> Result<Node, String> {
        let name = self.identifier();
        match name {
            "None" => Ok(Node::None),
            "true" => Ok(Node::Bool(true)),
            "false" => Ok(Node::Bool(false)),
            "inf" | "NaN" => Ok(Node::Number(name.to_string())),
            "Some" => {
                self.expect('(')?;
                let inner = self.value()?;
                self.expect(')')?;
                Ok(Node::Some(Box::new(inner)))
            }
            _ => self.message(name),
        }
    }

    /// An identifier, including raw identifiers such as `r#type`.
    fn identifier(&mut self) -> &'a str {
        self.take_while(|c| c.is_alphanumeric() || c == '_' || c == '#')
    }

    /// The rest of a message after its name: `{ field: value, ... }` or nothing.
    fn message(&mut self, name: &str) -> Result<Node, String> {
        let mut fields = Vec::new();
        if self.eat('{') {
            while !self.eat('}') {
                self.skip_whitespace();
                let field = self.identifier().to_string();
                if field.is_empty() {
                    return Err(self.error("expected a field name"));
                }
                self.expect(':')?;
                fields.push((field, self.value()?));
                self.separator('}')?;
            }
        }
        Ok(Node::Message { name: name.to_string(), fields })
    }

    /// After an element: a comma, or the closing delimiter (left for the caller to eat).
    fn separator(&mut self, close: char) -> Result<(), String> {
        self.skip_whitespace();
        match self.peek() {
            Some(',') => {
                self.pos += 1;
                Ok(())
            }
            Some(c) if c == close => Ok(()),
            _ => Err(self.error(&format!("expected ',' or {close:?}"))),
        }
    }

    /// `[value, ...]`.
    fn list(&mut self) -> Result<Node, String> {
        self.expect('[')?;
        let mut items = Vec::new();
        while !self.eat(']') {
            items.push(self.value()?);
            self.separator(']')?;
        }
        Ok(Node::List(items))
    }

    /// `{key: value, ...}`.
    fn map(&mut self) -> Result<Node, String> {
        self.expect('{')?;
        let mut entries = Vec::new();
        while !self.eat('}') {
            let key = self.value()?;
            self.expect(':')?;
            entries.push((key, self.value()?));
            self.separator('}')?;
        }
        Ok(Node::Map(entries))
    }

    /// A quoted string with Rust `Debug` escapes.
    fn string(&mut self) -> Result<String, String> {
        self.expect('"')?;
        let mut out = String::new();
        loop {
            match self.bump() {
                Some('"') => return Ok(out),
                Some('\\') => out.push(self.escape()?),
                Some(c) => out.push(c),
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    /// The character of an escape sequence, after its backslash.
    fn escape(&mut self) -> Result<char, String> {
        match self.bump() {
            Some('n') => Ok('\n'),
            Some('r') => Ok('\r'),
            Some('t') => Ok('\t'),
            Some('0') => Ok('\0'),
            Some(c @ ('\\' | '"' | '\'')) => Ok(c),
            Some('u') => {
                self.expect('{')?;
                let hex = self.take_while(|c| c.is_ascii_hexdigit());
                let code = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
                self.expect('}')?;
                code.ok_or_else(|| self.error("invalid unicode escape"))
            }
            _ => Err(self.error("invalid escape")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::protobuf::to_json::number;
    use serde_json::{Value, json};

    #[test]
    fn debug_syntax_parser() {
        let text = concat!(
            r#"Outer { r#type: Some("a \"q\" \\ \n\t\0 \u{7f} é"), n: Some(-12), f: Some(1e-7), i: inf, "#,
            r#"e: Empty, list: [1, 2], map: {"k": Inner { b: true }, "z": None}, none: None }"#
        );
        let node = Parser::parse(text).unwrap();
        let Node::Message { name, fields } = &node else { panic!("{node:?}") };
        assert_eq!(name, "Outer");
        assert_eq!(fields[0], ("r#type".into(), Node::Some(Box::new(Node::Str("a \"q\" \\ \n\t\0 \u{7f} é".into())))));
        assert_eq!(fields[2].1, Node::Some(Box::new(Node::Number("1e-7".into()))));
        assert_eq!(fields[4].1, Node::Message { name: "Empty".into(), fields: vec![] });
        assert!(Parser::parse("Outer { a: 1 } trailing").is_err());
        assert!(Parser::parse("Outer { a: \"open").is_err());
        assert!(Parser::parse(&"[".repeat(5000)).is_err());
        // The number literals the parser keeps as text are what `to_json` turns into JSON numbers.
        assert_eq!(number("1e-7").unwrap(), json!(1e-7));
        assert_eq!(number("5.0").unwrap(), json!(5));
        assert_eq!(number("NaN").unwrap(), Value::Null);
        // A string with every kind of character round-trips through Debug and the parser.
        let tricky = "tab\t nl\n quote\" backslash\\ nul\0 bell\u{7} zwj\u{200d} emoji😀 combining\u{301}";
        assert_eq!(Parser::parse(&format!("{tricky:?}")).unwrap(), Node::Str(tricky.into()));
    }
}
