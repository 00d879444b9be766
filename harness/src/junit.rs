//! Reading back the JUnit reports the runner writes: which scenario failed. Testcase names are
//! `Scenario: <title>: <file>` (with `Rule: ...` in front inside a rule, the feature file's own
//! name without its directory or line: `runner::stable_names`), so that runs from different
//! directories and of edited files compare.

use std::collections::BTreeMap;

/// Scenario (testcase name) → whether it failed.
pub type Verdicts = BTreeMap<String, bool>;

/// The testcases of a JUnit report and whether each failed.
pub fn verdicts(xml: &str) -> Verdicts {
    testcases(xml).map(|(name, body)| (name, body.contains("<failure") || body.contains("<error"))).collect()
}

/// The failed testcases of a JUnit report, each with its failure's message.
pub fn failures(xml: &str) -> BTreeMap<String, String> {
    testcases(xml)
        .filter_map(|(name, body)| {
            let (_, failure) = body.split_once("<failure").or_else(|| body.split_once("<error"))?;
            let message = failure.split_once("message=\"").and_then(|(_, m)| m.split_once('"')).map_or("", |(m, _)| m);
            Some((name, unescape(message)))
        })
        .collect()
}

/// Each testcase's name and the XML inside it.
fn testcases(xml: &str) -> impl Iterator<Item = (String, &str)> {
    xml.split("<testcase name=\"").skip(1).filter_map(|chunk| {
        let (name, rest) = chunk.split_once('"')?;
        let body = rest.split("</testcase>").next().unwrap_or(rest);
        Some((unescape(name), body))
    })
}

/// Text of an XML attribute with its entities replaced.
fn unescape(text: &str) -> String {
    text.replace("&apos;", "'").replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// The short form of a testcase name: the scenario's title and file.
pub fn short(name: &str) -> &str {
    let title = name.rsplit("Scenario: ").next().unwrap_or(name);
    title.rsplit("Scenario Outline: ").next().unwrap_or(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_and_failures() {
        let xml = r#"<testsuites><testsuite><testcase name="Scenario: a: f.feature" time="0"><system-out>x</system-out></testcase><testcase name="Rule: r: Scenario: it&apos;s b: f.feature" time="0"><failure message="m"/></testcase></testsuite></testsuites>"#;
        let v = verdicts(xml);
        assert_eq!(v.get("Scenario: a: f.feature"), Some(&false));
        assert_eq!(v.get("Rule: r: Scenario: it's b: f.feature"), Some(&true));
        assert_eq!(failures(xml).into_iter().collect::<Vec<_>>(), [("Rule: r: Scenario: it's b: f.feature".to_string(), "m".to_string())]);
        assert_eq!(short("Rule: r: Scenario: it's b: f.feature"), "it's b: f.feature");
    }
}
