//! Step patterns as a reader would write them, for the step reference (`kubegc steps`): a step
//! definition's regular expression turned into a phrase with placeholders.
//!
//! - A capture is a placeholder named after what it holds and where: `<Kind>`, `<name>`,
//!   `<n>`, `<value>`; a capture of fixed words lists them: `<Foreground|Background|Orphan>`.
//! - An optional part is in square brackets, `[ with finalizer(s) "<finalizers>"]`, or, when it
//!   is a word's ending, in parentheses: `finalizer(s)`, `a(n)`.
//! - Alternative words are separated by a slash: `is/are`.

use regex_syntax::ast::{self, Ast, ClassPerlKind, GroupKind, RepetitionKind};

/// The phrase a reader would write for the step regular expression `pattern`; the pattern
/// itself if it does not parse.
pub fn phrase(pattern: &str) -> String {
    match ast::parse::Parser::new().parse(pattern) {
        Ok(ast) => name_slots(&pieces(&ast)),
        Err(_) => pattern.to_string(),
    }
}

/// What a capture holds, which names its placeholder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holds {
    /// Digits (`\d+`, `-?\d+`).
    Number,
    /// One word (`\w+`).
    Word,
    /// Any other text (`[^"]+`, `.*`, `\S+`).
    Text,
}

/// A phrase before its placeholders are named: text, and captures to name from the text
/// around them.
#[derive(Clone, Debug)]
enum Piece {
    Text(String),
    Slot(Holds),
}

/// The pieces of `ast`, in order.
fn pieces(ast: &Ast) -> Vec<Piece> {
    let mut out = Vec::new();
    push(ast, &mut out);
    out
}

fn push(ast: &Ast, out: &mut Vec<Piece>) {
    match ast {
        Ast::Empty(_) | Ast::Flags(_) | Ast::Assertion(_) => {}
        Ast::Literal(literal) => out.push(Piece::Text(literal.c.to_string())),
        Ast::Concat(concat) => concat.asts.iter().for_each(|a| push(a, out)),
        Ast::Alternation(alternation) => {
            let branches: Vec<Vec<Piece>> = alternation.asts.iter().map(pieces).collect();
            let phrases = branches.iter().any(|b| flat(b).contains(' '));
            let (open, between, close) = if phrases { ("{", " | ", "}") } else { ("", "/", "") };
            out.push(Piece::Text(open.into()));
            for (i, branch) in branches.into_iter().enumerate() {
                if i > 0 {
                    out.push(Piece::Text(between.into()));
                }
                out.extend(branch);
            }
            out.push(Piece::Text(close.into()));
        }
        Ast::Group(group) => match group.kind {
            GroupKind::NonCapturing(_) => push(&group.ast, out),
            GroupKind::CaptureIndex(_) | GroupKind::CaptureName { .. } => out.push(capture(&group.ast)),
        },
        Ast::Repetition(repetition) if repetition.op.kind == RepetitionKind::ZeroOrOne => {
            let inner = pieces(&repetition.ast);
            let attached = match out.last() {
                Some(Piece::Text(t)) => t.ends_with(char::is_alphanumeric),
                Some(Piece::Slot(_)) => true,
                None => false,
            };
            let ending = inner.iter().all(|p| matches!(p, Piece::Text(_))) && !flat(&inner).contains(' ');
            if attached && ending {
                out.push(Piece::Text(format!("({})", flat(&inner))));
            } else {
                out.push(Piece::Text("[".into()));
                out.extend(inner);
                out.push(Piece::Text("]".into()));
            }
        }
        Ast::Repetition(_) => out.push(Piece::Slot(holds(ast))),
        Ast::Dot(_) | Ast::ClassUnicode(_) | Ast::ClassPerl(_) | Ast::ClassBracketed(_) => out.push(Piece::Slot(holds(ast))),
    }
}

/// A capture: its fixed words (`<a|b>`), its fixed text (an optional part's presence), or a
/// placeholder.
fn capture(ast: &Ast) -> Piece {
    let inner = pieces(ast);
    match ast {
        Ast::Alternation(alternation) => {
            let branches: Vec<String> = alternation.asts.iter().map(|a| flat(&pieces(a))).collect();
            Piece::Text(format!("<{}>", branches.join("|")))
        }
        _ if inner.iter().all(|p| matches!(p, Piece::Text(_))) => Piece::Text(flat(&inner)),
        _ => Piece::Slot(holds(ast)),
    }
}

/// Pieces as text, unnamed placeholders named by what they hold alone.
fn flat(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t) => t.clone(),
            Piece::Slot(Holds::Number) => "n".into(),
            Piece::Slot(Holds::Word) => "word".into(),
            Piece::Slot(Holds::Text) => "text".into(),
        })
        .collect()
}

/// What `ast` matches: digits, a word or any text (an optional leading `-` aside).
fn holds(ast: &Ast) -> Holds {
    let mut classes = Vec::new();
    leaf_classes(ast, &mut classes);
    if !classes.is_empty() && classes.iter().all(|c| *c == Some(ClassPerlKind::Digit)) {
        Holds::Number
    } else if !classes.is_empty() && classes.iter().all(|c| *c == Some(ClassPerlKind::Word)) {
        Holds::Word
    } else {
        Holds::Text
    }
}

/// The character classes of `ast` (`None` for one that is not `\d` or `\w`), a `-` literal
/// (a sign) left out.
fn leaf_classes(ast: &Ast, out: &mut Vec<Option<ClassPerlKind>>) {
    match ast {
        Ast::ClassPerl(class) if !class.negated => out.push(Some(class.kind.clone())),
        Ast::Literal(literal) if literal.c == '-' => {}
        Ast::Group(group) => leaf_classes(&group.ast, out),
        Ast::Repetition(repetition) => leaf_classes(&repetition.ast, out),
        Ast::Concat(concat) => concat.asts.iter().for_each(|a| leaf_classes(a, out)),
        _ => out.push(None),
    }
}

/// Names each placeholder from what it holds and the words around it.
fn name_slots(pieces: &[Piece]) -> String {
    let mut phrase = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Text(text) => phrase.push_str(text),
            Piece::Slot(holds) => {
                let after = flat(&pieces[i + 1..]);
                let name = slot_name(*holds, &phrase, &after);
                phrase.push_str(&format!("<{name}>"));
            }
        }
    }
    phrase
}

/// The name of a placeholder holding `holds` between the text `before` and `after` it.
fn slot_name(holds: Holds, before: &str, after: &str) -> &'static str {
    let quoted = before.ends_with('"') && after.starts_with('"');
    let separators = [' ', '[', ']', '"', '{', '/'];
    let word = before.trim_end_matches(separators).rsplit(separators).next().unwrap_or("").replace("(s)", "s");
    match holds {
        Holds::Number => "n",
        Holds::Word if after.starts_with(['s', '(']) || after.starts_with(" \"") || after.starts_with(" named") => "Kind",
        Holds::Word => match word.as_str() {
            "kind" | "for" => "Kind",
            "reason" => "reason",
            "gate" => "gate",
            "version" => "version",
            _ => "field",
        },
        Holds::Text if quoted => match word.as_str() {
            w if w.starts_with('<') || w.ends_with('>') => "name",
            "named" | "Job" | "request" => "name",
            "finalizers" => "finalizers",
            "to" if before.ends_with("references to \"") => "owners",
            "to" => "value",
            "has" => "field",
            "sets" | "threshold" => "threshold",
            "in" => "file",
            "says" | "containing" | "with" | "message" => "message",
            "reason" => "reason",
            "query" => "query",
            "selector" => "selector",
            "versions" => "versions",
            "container" => "container",
            "image" => "image",
            "pod" | "pods" => "pod",
            "finalizer" => "finalizer",
            "reclaim" => "amount",
            _ => "list",
        },
        Holds::Text if [" available", " used", " is/are freed"].iter().any(|a| after.starts_with(a)) => "size",
        Holds::Text if after.starts_with(" pass") => "duration",
        Holds::Text => match word.as_str() {
            "at" | "until" | "begun" => "time",
            "for" | "least" | "age" => "duration",
            "of" if before.ends_with("age of ") => "duration",
            "event" => "reason",
            _ if after.starts_with(" event") => "reason",
            "by" => "owners",
            "is" | "has" | "with" | "of" | "frees" | "" => "size",
            "images" => "images",
            _ => "value",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::phrase;

    #[test]
    fn captures_become_named_placeholders() {
        assert_eq!(phrase(r#"^((?-u:\w)+) "([^"]+)" is deleted$"#), r#"<Kind> "<name>" is deleted"#);
        assert_eq!(
            phrase(r#"^((?-u:\w)+) "([^"]+)" is deleted with propagation policy (Foreground|Background|Orphan)$"#),
            r#"<Kind> "<name>" is deleted with propagation policy <Foreground|Background|Orphan>"#
        );
        assert_eq!(
            phrase(r#"^an? ((?-u:\w)+) named "([^"]+)" with finalizers? "([^"]*)"$"#),
            r#"a(n) <Kind> named "<name>" with finalizer(s) "<finalizers>""#
        );
        assert_eq!(phrase(r#"^((?-u:\d)+) ((?-u:\w)+?)s named "([^"]+)" still exist$"#), r#"<n> <Kind>s named "<name>" still exist"#);
    }

    #[test]
    fn optional_parts_and_alternatives_read_as_words() {
        assert_eq!(
            phrase(r#"^an? ((?-u:\w)+) named "([^"]+)"( in another namespace)? owned by (.+?)(?: with finalizers? "([^"]*)")?$"#),
            r#"a(n) <Kind> named "<name>"[ in another namespace] owned by <owners>[ with finalizer(s) "<finalizers>"]"#
        );
        assert_eq!(
            phrase(r"^(\d+) images? (?:was|were) collected for reason (age|space)$"),
            "<n> image(s) was/were collected for reason <age|space>"
        );
        assert_eq!(
            phrase(r"^the (node|image|container) filesystem (?:has|drops to|recovers to) (.+) available$"),
            "the <node|image|container> filesystem {has | drops to | recovers to} <size> available"
        );
        assert_eq!(
            phrase(r"^the request fails with status ((?-u:\d)+)(?: and reason ((?-u:\w)+))?$"),
            "the request fails with status <n>[ and reason <reason>]"
        );
        assert_eq!(phrase(r"^the kubelet runs until (.+)$"), "the kubelet runs until <time>");
    }
}
