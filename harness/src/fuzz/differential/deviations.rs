//! The documented differences between the fake and the upstream API server: the rules of
//! `tests/differential/deviations.tsv` (embedded at build time) that match random requests and
//! the corpus's (`crate::corpus`).
//!
//! That file also lists the fixed differential's deviations (`tests/differential.rs`, one per
//! case and step); a rule for the random differential is a line
//! `fuzz<TAB>shape<TAB>field<TAB>why`: `shape` matches a request's shape (`POST configmaps`,
//! see [`super::compare::request_shape`]) and `field` a difference's field, each with `*`
//! standing for any text; `field ~ text` matches only when the upstream side contains `text`.

use super::compare::Difference;

/// The file, as built in.
const FILE: &str = include_str!("../../../../tests/differential/deviations.tsv");

/// The first column of a rule for random requests.
pub const RANDOM: &str = "fuzz";

/// One documented difference.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    shape: String,
    field: String,
    upstream_contains: Option<String>,
    /// Why the fake differs.
    pub why: String,
}

impl Rule {
    /// Whether the rule documents `difference` in the answers to a request of `shape`.
    pub fn matches(&self, shape: &str, difference: &Difference) -> bool {
        glob(&self.shape, shape)
            && glob(&self.field, &difference.field)
            && self.upstream_contains.as_ref().is_none_or(|text| difference.upstream.contains(text.as_str()))
    }
}

/// The rules for random requests in `text` (the file's format); a malformed rule is an error.
pub fn parse(text: &str) -> Result<Vec<Rule>, String> {
    let mut rules = Vec::new();
    for line in text.lines().filter(|l| l.starts_with(&format!("{RANDOM}\t"))) {
        let columns: Vec<&str> = line.split('\t').collect();
        let [_, shape, field, why] = columns.as_slice() else {
            return Err(format!("a rule is {RANDOM}<TAB>shape<TAB>field<TAB>why: {line:?}"));
        };
        if why.trim().is_empty() {
            return Err(format!("a rule says why: {line:?}"));
        }
        let (field, upstream_contains) = match field.split_once(" ~ ") {
            Some((field, text)) => (field.to_string(), Some(text.to_string())),
            None => (field.to_string(), None),
        };
        rules.push(Rule { shape: shape.to_string(), field, upstream_contains, why: why.to_string() });
    }
    Ok(rules)
}

/// The built-in rules.
pub fn documented() -> Result<Vec<Rule>, String> {
    parse(FILE)
}

/// Whether `pattern` (`*` for any text) matches all of `text`.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else { return pattern == text };
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn difference(field: &str, upstream: &str) -> Difference {
        Difference { field: field.into(), fake: "f".into(), upstream: upstream.into() }
    }

    #[test]
    fn a_rule_matches_by_shape_field_and_upstream_text() {
        let rules = parse("case\t1\tmessage\twhy\nfuzz\tPOST *\tmessage ~ invalid character\tGo's wording\n").unwrap();
        assert_eq!(rules.len(), 1, "the fixed differential's lines are not rules for random requests");
        let rule = &rules[0];
        assert!(rule.matches("POST configmaps", &difference("message", "json: invalid character 'x'")));
        assert!(!rule.matches("POST configmaps", &difference("message", "name is required")));
        assert!(!rule.matches("PUT configmaps", &difference("message", "invalid character")));
        assert!(!rule.matches("POST configmaps", &difference("reason", "invalid character")));
    }

    #[test]
    fn globs_match_whole_texts() {
        assert!(glob("*", "anything"));
        assert!(glob("body /spec/*", "body /spec/x/y"));
        assert!(glob("a*b*c", "abc"));
        assert!(!glob("a*b", "ab c"));
        assert!(!glob("body", "body /x"));
    }

    #[test]
    fn the_built_in_rules_parse() {
        documented().unwrap();
    }
}
