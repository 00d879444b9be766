//! Tags: the topic tags every feature file of the specification carries on its `Feature:`
//! line, and `--tags` expressions as the command line reads them (a parse error is one
//! readable line; an expression that selects no scenario is an error, not an empty run).

use std::path::PathBuf;

use cucumber::gherkin::Feature;
use cucumber::gherkin::tagexpr::TagOperation;
use cucumber::tag::Ext as _;

use crate::features;

/// The topic tags (without `@`): every feature file of the specification carries at least one
/// on its `Feature:` line. `features/README.md` says what each is about; tests hold the files
/// and that list to this one.
pub const TOPICS: &[&str] = &[
    "apiserver",
    "validation",
    "background",
    "foreground",
    "orphan",
    "propagation-policies",
    "block-owner-deletion",
    "cycles",
    "virtual-owners",
    "multiple-owners",
    "cross-namespace",
    "cluster-scope",
    "custom-resources",
    "namespaces",
    "stress",
    "workloads",
    "nodes",
    "kubelet",
    "image-gc",
    "container-gc",
    "eviction",
    "kubelet-config",
    "pod-gc",
    "ttl-after-finished",
    "csr-cleaner",
    "volumes",
    "leases",
    "events",
];

/// The topic tags, `@`-prefixed and comma-separated.
pub fn topic_list() -> String {
    TOPICS.iter().map(|tag| format!("@{tag}")).collect::<Vec<_>>().join(", ")
}

/// The topic tags a feature carries on its `Feature:` line.
pub fn topics_of(feature: &Feature) -> Vec<&str> {
    feature.tags.iter().map(String::as_str).filter(|t| TOPICS.contains(t)).collect()
}

/// A `--tags` expression, parsed; an error is one line naming the expression.
pub fn parse(expr: &str) -> anyhow::Result<TagOperation> {
    expr.parse().map_err(|e| {
        anyhow::anyhow!(
            "invalid --tags expression {expr:?}: {e}; tags are written @name and combined with and, or, not and \
             parentheses, and a parenthesis inside a tag needs a backslash (@upstream\\(TestOrphaning\\))"
        )
    })
}

/// Whether `expr` selects `scenario` of `feature`: on its tags, or for an outline, on the tags
/// of one of its `Examples:` blocks besides.
pub fn selects(expr: &TagOperation, feature: &Feature, scenario: &cucumber::gherkin::Scenario) -> bool {
    let tags = features::tags(feature, scenario);
    expr.eval(tags.iter()) || scenario.examples.iter().any(|examples| expr.eval(tags.iter().chain(&examples.tags)))
}

/// Parses `expr`, failing when it does not parse or selects no scenario of `paths`: a
/// misspelt tag never makes an empty run that passes.
pub fn selecting(expr: &str, paths: &[PathBuf]) -> anyhow::Result<TagOperation> {
    let op = parse(expr)?;
    let any = features::read(paths)?.iter().any(|f| features::scenarios(f).any(|s| selects(&op, f, s)));
    anyhow::ensure!(
        any,
        "--tags {expr:?} selects no scenario; `kubegc list` shows every scenario's tags, and the topic tags are {}",
        topic_list()
    );
    Ok(op)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The specification's own feature files.
    fn specification() -> Vec<Feature> {
        features::read(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../features")]).expect("the feature files parse")
    }

    #[test]
    fn every_feature_file_has_a_topic_tag_and_every_topic_a_feature_file() {
        let features = specification();
        let untagged: Vec<String> = features
            .iter()
            .filter(|f| topics_of(f).is_empty())
            .map(|f| format!("{:?}", f.path.as_deref().unwrap_or(Path::new("?"))))
            .collect();
        assert!(untagged.is_empty(), "feature files without a topic tag ({}) on their Feature: line: {untagged:?}", topic_list());
        for topic in TOPICS {
            assert!(features.iter().any(|f| topics_of(f).contains(topic)), "no feature file has the topic tag @{topic}");
        }
    }

    #[test]
    fn the_readme_lists_the_topic_tags() {
        let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../features/README.md")).unwrap();
        let listed: Vec<&str> = readme
            .lines()
            .skip_while(|l| !l.starts_with("### Topic tags"))
            .skip(1)
            .take_while(|l| !l.starts_with('#'))
            .filter_map(|l| l.strip_prefix("- `@")?.split_once('`').map(|(tag, _)| tag))
            .collect();
        assert_eq!(listed, TOPICS, "features/README.md's \"Topic tags\" list and tags::TOPICS differ");
    }

    #[test]
    fn a_parse_error_is_one_line_naming_the_expression() {
        for expr in ["@a and (", "@upstream(TestOrphaning)", "and"] {
            let message = format!("{:#}", parse(expr).unwrap_err());
            assert!(!message.contains('\n'), "{message}");
            assert!(message.contains(&format!("{expr:?}")), "{message}");
            assert!(!message.contains("ParseError"), "a debug dump: {message}");
        }
        assert!(parse(r"@upstream\(TestOrphaning\) and not @slow").is_ok());
    }

    #[test]
    fn outlines_are_selected_by_the_tags_of_their_examples() {
        let feature = Feature::parse(
            "@topic\nFeature: f\n  Scenario Outline: o <x>\n    Given <x>\n\n    @case\n    Examples:\n      | x |\n      | 1 |\n",
            cucumber::gherkin::GherkinEnv::default(),
        )
        .unwrap();
        let scenario = &feature.scenarios[0];
        for (expr, selected) in [("@topic", true), ("@case", true), ("@topic and @case", true), ("@other", false), ("not @case", true)] {
            assert_eq!(selects(&parse(expr).unwrap(), &feature, scenario), selected, "{expr}");
        }
    }
}
