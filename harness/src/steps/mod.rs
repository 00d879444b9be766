//! Step definitions, by kind of scenario and topic. On an API server: creating objects,
//! deleting and changing them, and asserting what the cluster looks like afterwards; on the
//! reference kubelet model: [`kubelet`]. No step module uses another: what they share is in
//! [`support`] (and, for kubelet steps, [`kubelet::parse`]) or on their world.

pub mod assertions;
pub mod changes;
pub mod kubelet;
pub mod objects;
pub mod support;

/// The step definition sources, read at build time so that the step reference is generated
/// from the definitions themselves and cannot drift from them.
const SOURCES: &[&str] = &[include_str!("objects.rs"), include_str!("changes.rs"), include_str!("assertions.rs")];

/// One step definition, for the step reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepDoc {
    /// `Given`, `When` or `Then`.
    pub keyword: String,
    /// The regular expression it matches.
    pub pattern: String,
    /// An example sentence (the first back-quoted text of its doc comment).
    pub example: String,
    /// The rest of its doc comment.
    pub description: String,
}

/// Every step definition, in source order.
pub fn reference() -> Vec<StepDoc> {
    let mut steps = Vec::new();
    for source in SOURCES {
        let mut docs: Vec<&str> = Vec::new();
        for line in source.lines().map(str::trim) {
            if let Some(doc) = line.strip_prefix("///") {
                docs.push(doc.trim());
                continue;
            }
            let attribute =
                ["given", "when", "then"].iter().find_map(|k| line.strip_prefix(&format!("#[{k}(regex = ")).map(|rest| (*k, rest)));
            if let Some((keyword, rest)) = attribute {
                let pattern = rest.trim_end_matches(")]").trim_start_matches('r').trim_matches('#').trim_matches('"');
                let text = docs.join(" ");
                let example = text.split('`').nth(1).unwrap_or("").to_string();
                let description = text.splitn(3, '`').nth(2).unwrap_or("").trim_start_matches(['.', ':', ' ']).trim().to_string();
                let mut k = keyword.to_string();
                k[..1].make_ascii_uppercase();
                // A step with several keywords shares one example: give each its own keyword.
                let example = match example.split_once(' ') {
                    Some((first, rest)) if ["Given", "When", "Then"].contains(&first) => format!("{k} {rest}"),
                    _ => example,
                };
                steps.push(StepDoc {
                    keyword: k,
                    pattern: pattern.trim_start_matches('^').trim_end_matches('$').to_string(),
                    example,
                    description,
                });
            }
            if !line.starts_with("#[") {
                docs.clear();
            }
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_step_has_an_example() {
        let steps = super::reference();
        assert!(steps.len() >= 15, "{} steps found", steps.len());
        for s in &steps {
            let sentence = s
                .example
                .strip_prefix(&format!("{} ", s.keyword))
                .unwrap_or_else(|| panic!("{:?} does not start with {}", s.example, s.keyword));
            let re = regex::Regex::new(&format!("^{}$", s.pattern)).unwrap();
            assert!(re.is_match(sentence), "the example {:?} does not match its own pattern {:?}", s.example, s.pattern);
        }
    }
}
