//! The grammar of a label selector as upstream reads it (`labels.Parse`, k8s.io/apimachinery
//! pkg/labels/selector.go): a lexer that splits the text at whitespace and at the operator
//! characters, a recursive-descent parser over its tokens, and each requirement checked as
//! `NewRequirement` checks it. Errors are upstream's sentences, which name the token found.

use crate::apiserver::go_quote::quote;
use crate::apiserver::validation::{label_value_problems, qualified_name_problems};

/// What a requirement asks of a label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operator {
    /// `key`
    Exists,
    /// `!key`
    DoesNotExist,
    /// `key in (a,b)`, `key=a`, `key==a`
    In,
    /// `key notin (a,b)`, `key!=a`
    NotIn,
    /// `key>n`
    Greater,
    /// `key<n`
    Less,
}

/// One requirement: a key, what is asked of it, and its values (sorted, each once).
#[derive(Clone, Debug, PartialEq)]
pub struct Requirement {
    /// The label key.
    pub key: String,
    /// What is asked of the label.
    pub operator: Operator,
    /// The values the operator compares with.
    pub values: Vec<String>,
}

/// A token of the lexer; `In` and `NotIn` read as identifiers where values are expected.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Token {
    End,
    ClosePar,
    Comma,
    Not,
    DoubleEquals,
    Equals,
    Greater,
    Identifier,
    In,
    Less,
    NotEquals,
    NotIn,
    OpenPar,
}

/// The token a whole literal is, if it is one.
fn keyword(literal: &str) -> Option<Token> {
    Some(match literal {
        ")" => Token::ClosePar,
        "," => Token::Comma,
        "!" => Token::Not,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::Greater,
        "in" => Token::In,
        "<" => Token::Less,
        "!=" => Token::NotEquals,
        "notin" => Token::NotIn,
        "(" => Token::OpenPar,
        _ => return None,
    })
}

/// The characters operators are made of.
fn is_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// The characters the lexer skips between tokens.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Every token of `text` and its literal, ending with `End`. A run of operator characters is
/// read while it still spells a token (`!=` is one token, `=(` two); every operator character
/// alone is one, so the lexer never fails.
fn tokens(text: &str) -> Vec<(Token, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        while at < bytes.len() && is_blank(bytes[at]) {
            at += 1;
        }
        let Some(&first) = bytes.get(at) else {
            out.push((Token::End, ""));
            return out;
        };
        let start = at;
        if is_special(first) {
            let mut longest = (keyword(&text[at..=at]).unwrap_or(Token::Identifier), at + 1);
            while at + 1 < bytes.len() && is_special(bytes[at + 1]) {
                match keyword(&text[start..at + 2]) {
                    Some(token) => longest = (token, at + 2),
                    None => break,
                }
                at += 1;
            }
            at = longest.1;
            out.push((longest.0, &text[start..at]));
        } else {
            while at < bytes.len() && !is_special(bytes[at]) && !is_blank(bytes[at]) {
                at += 1;
            }
            let literal = &text[start..at];
            out.push((keyword(literal).unwrap_or(Token::Identifier), literal));
        }
    }
}

/// Whether a token is read as values are: `in` and `notin` are identifiers there.
#[derive(Clone, Copy, PartialEq)]
enum Context {
    KeyAndOperator,
    Values,
}

/// The parser's place in the tokens.
struct Parser<'t> {
    tokens: Vec<(Token, &'t str)>,
    at: usize,
}

impl<'t> Parser<'t> {
    /// The token at hand, as read in `context`.
    fn lookahead(&self, context: Context) -> (Token, &'t str) {
        let (token, literal) = self.tokens[self.at];
        match token {
            Token::In | Token::NotIn if context == Context::Values => (Token::Identifier, literal),
            _ => (token, literal),
        }
    }

    /// The token at hand, as read in `context`, and a step past it (never past the end).
    fn consume(&mut self, context: Context) -> (Token, &'t str) {
        let item = self.lookahead(context);
        self.at = (self.at + 1).min(self.tokens.len() - 1);
        item
    }

    /// Requirements separated by commas, up to the end of the text.
    fn selector(&mut self) -> Result<Vec<Requirement>, String> {
        let mut requirements = Vec::new();
        loop {
            match self.lookahead(Context::Values) {
                (Token::Identifier | Token::Not, _) => {
                    requirements.push(self.requirement().map_err(|e| format!("unable to parse requirement: {e}"))?);
                    match self.consume(Context::Values) {
                        (Token::End, _) => return Ok(requirements),
                        (Token::Comma, _) => match self.lookahead(Context::Values) {
                            (Token::Identifier | Token::Not, _) => {}
                            (_, found) => return Err(format!("found '{found}', expected: identifier after ','")),
                        },
                        (_, found) => return Err(format!("found '{found}', expected: ',' or 'end of string'")),
                    }
                }
                (Token::End, _) => return Ok(requirements),
                (_, found) => return Err(format!("found '{found}', expected: !, identifier, or 'end of string'")),
            }
        }
    }

    /// One requirement: `[!]key`, or a key, an operator and its values.
    fn requirement(&mut self) -> Result<Requirement, String> {
        let (key, inferred) = self.key_and_inferred_operator()?;
        if let Some(operator) = inferred {
            return new_requirement(key, operator, vec![]);
        }
        let (operator, takes_set) = self.operator()?;
        let values = if takes_set { self.set()? } else { self.exact_value()? };
        new_requirement(key, operator, values)
    }

    /// The key, and the operator when the key alone is the requirement (`key`, `!key`).
    fn key_and_inferred_operator(&mut self) -> Result<(&'t str, Option<Operator>), String> {
        let mut operator = None;
        let (mut token, mut literal) = self.consume(Context::Values);
        if token == Token::Not {
            operator = Some(Operator::DoesNotExist);
            (token, literal) = self.consume(Context::Values);
        }
        if token != Token::Identifier {
            return Err(format!("found '{literal}', expected: identifier"));
        }
        if let Some(error) = key_error(literal, "<nil>") {
            return Err(error);
        }
        if matches!(self.lookahead(Context::Values).0, Token::End | Token::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        Ok((literal, operator))
    }

    /// The operator after a key, and whether it takes a set of values (`in`, `notin`) rather
    /// than one.
    fn operator(&mut self) -> Result<(Operator, bool), String> {
        Ok(match self.consume(Context::KeyAndOperator) {
            (Token::In, _) => (Operator::In, true),
            (Token::NotIn, _) => (Operator::NotIn, true),
            (Token::Equals | Token::DoubleEquals, _) => (Operator::In, false),
            (Token::NotEquals, _) => (Operator::NotIn, false),
            (Token::Greater, _) => (Operator::Greater, false),
            (Token::Less, _) => (Operator::Less, false),
            (_, found) => return Err(format!("found '{found}', expected: in, notin, =, ==, !=, gt, lt")),
        })
    }

    /// `(a,b)`: a parenthesised list, whose empty items are the empty value.
    fn set(&mut self) -> Result<Vec<String>, String> {
        if let (token, found) = self.consume(Context::Values)
            && token != Token::OpenPar
        {
            return Err(format!("found '{found}' expected: '('"));
        }
        match self.lookahead(Context::Values) {
            (Token::Identifier | Token::Comma, _) => {
                let values = self.identifiers()?;
                self.consume(Context::Values);
                Ok(values)
            }
            (Token::ClosePar, _) => {
                self.consume(Context::Values);
                Ok(vec![String::new()])
            }
            (_, found) => Err(format!("found '{found}', expected: ',', ')' or identifier")),
        }
    }

    /// The items of a set up to its `)`, which is left to read.
    fn identifiers(&mut self) -> Result<Vec<String>, String> {
        let mut values = Vec::new();
        loop {
            match self.consume(Context::Values) {
                (Token::Identifier, value) => {
                    values.push(value.to_string());
                    match self.lookahead(Context::Values) {
                        (Token::Comma, _) => {}
                        (Token::ClosePar, _) => return Ok(values),
                        (_, found) => return Err(format!("found '{found}', expected: ',' or ')'")),
                    }
                }
                (Token::Comma, _) => {
                    // An item left empty, before, between or after commas, is the empty value.
                    if values.is_empty() || matches!(self.lookahead(Context::Values).0, Token::ClosePar | Token::Comma) {
                        values.push(String::new());
                    }
                    if self.lookahead(Context::Values).0 == Token::ClosePar {
                        return Ok(values);
                    }
                }
                (_, found) => return Err(format!("found '{found}', expected: ',', or identifier")),
            }
        }
    }

    /// The one value after `=`, `==`, `!=`, `>` or `<`; none is the empty value.
    fn exact_value(&mut self) -> Result<Vec<String>, String> {
        if matches!(self.lookahead(Context::Values).0, Token::End | Token::Comma) {
            return Ok(vec![String::new()]);
        }
        match self.consume(Context::Values) {
            (Token::Identifier, value) => Ok(vec![value.to_string()]),
            (_, found) => Err(format!("found '{found}', expected: identifier")),
        }
    }
}

/// What is wrong with `key` as a label key, as a field error at `path`.
fn key_error(key: &str, path: &str) -> Option<String> {
    let problems = qualified_name_problems(key);
    (!problems.is_empty()).then(|| format!("{path}: Invalid value: {}: {}", quote(key), problems.join("; ")))
}

/// A requirement checked as `NewRequirement` checks it, its values sorted and each kept once;
/// several errors are joined as an aggregate error writes them.
fn new_requirement(key: &str, operator: Operator, mut values: Vec<String>) -> Result<Requirement, String> {
    values.sort();
    values.dedup();
    let mut errors: Vec<String> = key_error(key, "key").into_iter().collect();
    if matches!(operator, Operator::Greater | Operator::Less) {
        for (i, value) in values.iter().enumerate() {
            if value.parse::<i64>().is_err() {
                errors
                    .push(format!("values[{i}]: Invalid value: {}: for 'Gt', 'Lt' operators, the value must be an integer", quote(value)));
            }
        }
    }
    for (i, value) in values.iter().enumerate() {
        let problems = label_value_problems(value);
        if !problems.is_empty() {
            errors.push(format!("values[{i}][{key}]: Invalid value: {}: {}", quote(value), problems.join("; ")));
        }
    }
    match &errors[..] {
        [] => Ok(Requirement { key: key.to_string(), operator, values }),
        [one] => Err(one.clone()),
        many => Err(format!("[{}]", many.join(", "))),
    }
}

/// The requirements of `selector`, or upstream's words for why it does not parse.
pub fn parse(selector: &str) -> Result<Vec<Requirement>, String> {
    Parser { tokens: tokens(selector), at: 0 }.selector()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_characters_form_the_longest_token_they_spell() {
        let kinds: Vec<Token> = tokens("a!=b,c==(d)!e>=1").into_iter().map(|(t, _)| t).collect();
        use Token::*;
        assert_eq!(
            kinds,
            [
                Identifier,
                NotEquals,
                Identifier,
                Comma,
                Identifier,
                DoubleEquals,
                OpenPar,
                Identifier,
                ClosePar,
                Not,
                Identifier,
                Greater,
                Equals,
                Identifier,
                End
            ]
        );
    }

    #[test]
    fn requirements_parse_as_upstream_reads_them() {
        let parsed = parse("x in (foo,,baz),y,z notin (),!w,v=in").unwrap();
        let summary: Vec<(&str, Operator, Vec<&str>)> =
            parsed.iter().map(|r| (r.key.as_str(), r.operator, r.values.iter().map(String::as_str).collect())).collect();
        assert_eq!(
            summary,
            [
                ("x", Operator::In, vec!["", "baz", "foo"]),
                ("y", Operator::Exists, vec![]),
                ("z", Operator::NotIn, vec![""]),
                ("w", Operator::DoesNotExist, vec![]),
                ("v", Operator::In, vec!["in"]),
            ]
        );
        assert_eq!(parse("").unwrap(), vec![]);
    }

    #[test]
    fn errors_name_the_token_found() {
        let cases = [
            ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
            (",a", "found ',', expected: !, identifier, or 'end of string'"),
            ("a,", "found '', expected: identifier after ','"),
            ("!a=b", "found '=', expected: ',' or 'end of string'"),
            ("a in b", "unable to parse requirement: found 'b' expected: '('"),
            ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"),
            ("a>b", "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"),
        ];
        for (selector, want) in cases {
            assert_eq!(parse(selector).unwrap_err(), want, "{selector}");
        }
        assert!(parse("-a").unwrap_err().starts_with("unable to parse requirement: <nil>: Invalid value: \"-a\": name part must"));
        assert!(parse("a=-b").unwrap_err().starts_with("unable to parse requirement: values[0][a]: Invalid value: \"-b\": a valid label"));
    }
}
