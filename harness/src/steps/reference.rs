//! The step reference (`kubegc steps`): every step definition registered for each kind of
//! scenario, with the example and description of its doc comment. The list comes from
//! cucumber's registry, so no step can be left out; the doc comments come from the embedded
//! step sources, found by each definition's registered location.

use cucumber::codegen::{StepConstructor, WorldInventory, inventory};
use cucumber::step::Location;

use crate::world::api::KubeWorld;
use crate::world::kubelet::KubeletWorld;

/// The files defining steps, embedded for their doc comments, in the order the reference
/// lists them (Given, When, Then; API server steps before kubelet ones).
const SOURCES: &[(&str, &str)] = &[
    ("src/steps/objects.rs", include_str!("objects.rs")),
    ("src/steps/owners.rs", include_str!("owners.rs")),
    ("src/steps/deletion.rs", include_str!("deletion.rs")),
    ("src/steps/custom_resources.rs", include_str!("custom_resources.rs")),
    ("src/steps/requests.rs", include_str!("requests.rs")),
    ("src/steps/events.rs", include_str!("events.rs")),
    ("src/steps/watches.rs", include_str!("watches.rs")),
    ("src/steps/pods.rs", include_str!("pods.rs")),
    ("src/steps/nodes.rs", include_str!("nodes.rs")),
    ("src/steps/workloads.rs", include_str!("workloads.rs")),
    ("src/steps/controllers.rs", include_str!("controllers.rs")),
    ("src/steps/volumes.rs", include_str!("volumes.rs")),
    ("src/steps/leases.rs", include_str!("leases.rs")),
    ("src/steps/finished_jobs.rs", include_str!("finished_jobs.rs")),
    ("src/steps/certificates.rs", include_str!("certificates.rs")),
    ("src/steps/cloud.rs", include_str!("cloud.rs")),
    ("src/steps/kubelet/setup.rs", include_str!("kubelet/setup.rs")),
    ("src/steps/kubelet/actions.rs", include_str!("kubelet/actions.rs")),
    ("src/steps/kubelet/checks.rs", include_str!("kubelet/checks.rs")),
];

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

/// The steps of one kind of scenario.
#[derive(Clone, Debug)]
pub struct Section {
    /// Which scenarios use them.
    pub title: &'static str,
    /// Their definitions, in source order.
    pub steps: Vec<StepDoc>,
}

/// Every registered step definition, by kind of scenario.
pub fn reference() -> Vec<Section> {
    vec![
        Section { title: "Steps of scenarios on an API server", steps: documented::<KubeWorld>() },
        Section { title: "Steps of @kubelet scenarios (the reference kubelet model)", steps: documented::<KubeletWorld>() },
    ]
}

/// The step definitions registered for world `W`, in source order, with their doc comments.
fn documented<W: WorldInventory>() -> Vec<StepDoc> {
    let mut registered: Vec<(Location, &str, String)> = Vec::new();
    registered.extend(inventory::iter::<W::Given>.into_iter().map(|s| definition(s, "Given")));
    registered.extend(inventory::iter::<W::When>.into_iter().map(|s| definition(s, "When")));
    registered.extend(inventory::iter::<W::Then>.into_iter().map(|s| definition(s, "Then")));
    registered.sort_by_key(|(location, _, _)| (source_of(location).map(|(i, _)| i), location.line, location.column));
    registered.into_iter().map(|(location, keyword, pattern)| document(&location, keyword, &pattern)).collect()
}

/// Where a registered step is defined, its keyword, and its regular expression.
fn definition<W>(step: &impl StepConstructor<W>, keyword: &'static str) -> (Location, &'static str, String) {
    let (location, regex, _) = step.inner();
    (location, keyword, regex().as_str().to_string())
}

/// The embedded source holding `location`, with its place in [`SOURCES`].
fn source_of(location: &Location) -> Option<(usize, &'static str)> {
    SOURCES.iter().enumerate().find(|(_, (path, _))| location.path.ends_with(path)).map(|(i, (_, text))| (i, *text))
}

/// The reference entry of the step `keyword pattern` defined at `location`.
fn document(location: &Location, keyword: &str, pattern: &str) -> StepDoc {
    let text = source_of(location).map(|(_, source)| doc_at(source, location.line)).unwrap_or_default();
    let example = text.split('`').nth(1).unwrap_or("").to_string();
    let description = text.splitn(3, '`').nth(2).unwrap_or("").trim_start_matches(['.', ':', ' ']).trim().to_string();
    // A step with several keywords shares one example: give each its own keyword.
    let example = match example.split_once(' ') {
        Some((first, rest)) if ["Given", "When", "Then"].contains(&first) => format!("{keyword} {rest}"),
        _ => example,
    };
    StepDoc {
        keyword: keyword.to_string(),
        pattern: pattern.trim_start_matches('^').trim_end_matches('$').to_string(),
        example,
        description,
    }
}

/// The doc comment of the item whose attribute starts at `line` (counted from 1), past any
/// attributes stacked above it (the other keywords of the same step), joined into one line.
fn doc_at(source: &str, line: u32) -> String {
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    let mut top = (line as usize).saturating_sub(1).min(lines.len());
    while top > 0 && lines[top - 1].starts_with("#[") {
        top -= 1;
    }
    let end = top;
    while top > 0 && lines[top - 1].starts_with("///") {
        top -= 1;
    }
    lines[top..end].iter().map(|l| l.trim_start_matches("///").trim()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_step_reads_as_a_phrase_without_regular_expression_syntax() {
        for s in super::reference().iter().flat_map(|s| &s.steps) {
            let phrase = super::super::phrase::phrase(&s.pattern);
            for syntax in ["^", "$", "(?", "\\", "[^", "+", "*", "?", "(.", ".*", ".+"] {
                assert!(!phrase.contains(syntax), "{syntax:?} left in {phrase:?} (from {:?})", s.pattern);
            }
            assert!(!phrase.contains("<text>") && !phrase.contains("<word>"), "an unnamed placeholder in {phrase:?}");
        }
    }

    #[test]
    fn every_step_has_an_example_matching_its_pattern() {
        let sections = super::reference();
        assert!(sections.iter().all(|s| !s.steps.is_empty()), "a kind of scenario has no steps");
        for s in sections.iter().flat_map(|s| &s.steps) {
            let sentence = s
                .example
                .strip_prefix(&format!("{} ", s.keyword))
                .unwrap_or_else(|| panic!("the step {:?} has no example starting with {}", s.pattern, s.keyword));
            let re = regex::Regex::new(&format!("^{}$", s.pattern)).unwrap();
            assert!(re.is_match(sentence), "the example {:?} does not match its own pattern {:?}", s.example, s.pattern);
        }
    }
}
