//! `kubegc coverage`: which upstream test cases the specification covers. The cases come from a
//! checked-in list beside the feature files (`features/upstream-cases.tsv`; without one, only
//! the tags are listed); a scenario covers a case when it carries
//! `@upstream(<test name>[/<sub-case>])`, on the scenario or on one of its Examples. Cases that
//! cannot be observed through the API are listed with the reason, so that nothing is left out
//! silently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use kubegc_harness::features;

/// Arguments of `kubegc coverage`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The list of upstream cases (tab-separated: id, category, file key, test name, sub-case,
    /// observable yes/no, reason); default: `upstream-cases.tsv` in the first features
    /// directory (or beside the first feature file), if there is one; without a list, only the
    /// `@upstream(...)` tags and their scenarios are printed.
    #[arg(long)]
    pub cases: Option<PathBuf>,
    /// Feature files or directories (repeatable; default: $KUBEGC_FEATURES, else the
    /// specification built into kubegc).
    #[arg(long = "features")]
    pub features: Vec<PathBuf>,
    /// Exit 1 when an observable case is not covered or a tag names no listed case (needs a
    /// list of cases).
    #[arg(long)]
    pub strict: bool,
}

/// One upstream test case of the list.
#[derive(Clone, Debug)]
struct Case {
    id: String,
    category: String,
    file: String,
    test: String,
    sub_case: String,
    observable: bool,
    reason: String,
}

impl Case {
    fn name(&self) -> String {
        if self.sub_case.is_empty() { self.test.clone() } else { format!("{}/{}", self.test, self.sub_case) }
    }

    /// The case as tags name it, comparison signs kept (`<` and `>` tell some sub-cases apart).
    fn key(&self) -> (String, String) {
        (normalize(&self.test, true), normalize(&self.sub_case, true))
    }

    /// The same without comparison signs, so that an arrow (`->`) need not be spelled.
    fn loose_key(&self) -> (String, String) {
        (normalize(&self.test, false), normalize(&self.sub_case, false))
    }
}

/// Case, spaces and punctuation do not count when a tag is matched with a case: both become
/// lower-case words joined by single dashes. With `comparisons`, `<` and `>` become the words
/// `lt` and `gt`; without, they are punctuation too.
fn normalize(s: &str, comparisons: bool) -> String {
    let mut words: Vec<String> = vec![String::new()];
    for c in s.chars() {
        match c {
            c if c.is_alphanumeric() => words.last_mut().expect("never empty").extend(c.to_lowercase()),
            '<' | '>' if comparisons => {
                words.push(if c == '<' { "lt".into() } else { "gt".into() });
                words.push(String::new());
            }
            _ => words.push(String::new()),
        }
    }
    words.retain(|w| !w.is_empty());
    words.join("-")
}

/// The `(test, sub-case)` an `upstream(...)` tag names, normalized as [`Case::key`] (or
/// [`Case::loose_key`] when `comparisons` is false); `None` for other tags.
fn tag_key(tag: &str, comparisons: bool) -> Option<(String, String)> {
    let inner = tag.strip_prefix("upstream(")?.strip_suffix(')')?;
    let (test, sub) = inner.split_once('/').unwrap_or((inner, ""));
    Some((normalize(test, comparisons), normalize(sub, comparisons)))
}

/// The case a tag names: the one whose exact key matches, else the only one whose loose key
/// does.
fn case_of<'a>(cases: &'a [Case], tag: &str) -> Option<&'a Case> {
    let exact = tag_key(tag, true)?;
    if let Some(c) = cases.iter().find(|c| c.key() == exact) {
        return Some(c);
    }
    let loose = tag_key(tag, false)?;
    let mut candidates = cases.iter().filter(|c| c.loose_key() == loose);
    match (candidates.next(), candidates.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// A category of the list with no case (`#!empty\t<category>\t<why>`: a rule upstream has no
/// test of), and why.
type EmptyCategory = (String, String);

/// The cases of the list, and its categories without cases.
fn read_cases(path: &Path) -> anyhow::Result<(Vec<Case>, Vec<EmptyCategory>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut cases = Vec::new();
    let mut empty = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("#!empty\t") {
            let (category, why) = rest.split_once('\t').unwrap_or((rest, ""));
            empty.push((category.trim().to_string(), why.trim().to_string()));
            continue;
        }
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with("id\t") {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let col = |i: usize| cols.get(i).map(|s| s.trim().to_string()).unwrap_or_default();
        if cols.len() < 6 {
            anyhow::bail!("{}:{}: expected at least 6 tab-separated columns", path.display(), n + 1);
        }
        let observable = match col(5).as_str() {
            "yes" => true,
            "no" => false,
            other => anyhow::bail!("{}:{}: observable must be yes or no, not {other:?}", path.display(), n + 1),
        };
        cases.push(Case { id: col(0), category: col(1), file: col(2), test: col(3), sub_case: col(4), observable, reason: col(6) });
    }
    Ok((cases, empty))
}

/// Every `upstream(...)` tag of the features, with the scenarios carrying it (`file: name`).
fn tagged_scenarios(paths: &[PathBuf]) -> anyhow::Result<BTreeMap<String, Vec<String>>> {
    let mut tags: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for feature in features::read(paths)? {
        let short = feature.path.as_deref().and_then(Path::file_name).and_then(|f| f.to_str()).unwrap_or("?").to_string();
        for scenario in features::scenarios(&feature) {
            let examples = scenario.examples.iter().flat_map(|e| e.tags.iter());
            for tag in feature.tags.iter().chain(&scenario.tags).chain(examples) {
                if tag.starts_with("upstream(") {
                    let at = format!("{short}: {}", scenario.name);
                    let list = tags.entry(tag.clone()).or_default();
                    if !list.contains(&at) {
                        list.push(at);
                    }
                }
            }
        }
    }
    Ok(tags)
}

/// The file name of the list of upstream cases kept beside the feature files.
const CASES_FILE: &str = "upstream-cases.tsv";

/// The list of cases beside the first of `paths` (in it, for a directory), if there is one.
fn cases_beside(paths: &[PathBuf]) -> Option<PathBuf> {
    let first = paths.first()?;
    let dir = if first.is_dir() { first.as_path() } else { first.parent()? };
    Some(dir.join(CASES_FILE)).filter(|p| p.is_file())
}

/// Without a list of cases: the `@upstream(...)` tags and the scenarios carrying each.
fn print_tags_only(tags: &BTreeMap<String, Vec<String>>, paths: &[PathBuf]) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let _ = writeln!(
        out,
        "No {CASES_FILE} beside {} (nor --cases): the @upstream(...) tags are listed without the upstream cases they cover.",
        shown.join(", ")
    );
    for (tag, scenarios) in tags {
        let _ = writeln!(out, "  @{tag}\n                    on {}", scenarios.join("\n                    on "));
    }
    let _ = writeln!(out, "Total: {} @upstream tags", tags.len());
}

/// A heading for a category of the list.
fn category_title(category: &str) -> &'static str {
    match category {
        "C.1" => "GC unit tests",
        "C.2" => "TestConflictingData sub-cases",
        "C.3" => "graph builder tests",
        "C.4" => "integration tests",
        "C.5" => "e2e tests",
        "C.6" => "apiserver store and dry-run tests",
        "C.7" => "validation tests",
        "K.B1" => "kubelet image GC manager tests",
        "K.B2" => "kubelet container, sandbox and log GC tests",
        "K.B3" => "kubelet configuration validation tests",
        "K.B4" => "eviction manager node-reclaim tests",
        "V.1" => "PersistentVolume controller delete tests",
        "V.2" => "pvc-protection controller tests",
        "V.3" => "pv-protection controller tests",
        "V.4" => "volume integration tests",
        "V.5" => "storage protection e2e tests",
        "L.1" => "kube-apiserver identity-lease GC unit tests",
        "L.2" => "kube-apiserver identity-lease GC integration tests",
        "L.3" => "cloud node lifecycle controller tests",
        "L.4" => "node lease e2e tests",
        "P.1" => "pod garbage collector unit tests",
        "P.2" => "pod garbage collector integration tests",
        "P.3" => "pod garbage collector e2e tests",
        "T" => "TTL-after-finished controller tests",
        "S" => "CSR cleaner tests",
        "E" => "Event TTL",
        "W.1" => "workload cleanup e2e tests",
        _ => "",
    }
}

/// Prints, per category, the cases covered (and by which scenarios), those not observable
/// (with the reason) and those observable but not covered; then the tags naming no case.
/// Without a list of cases, prints the `@upstream(...)` tags and their scenarios, and says so.
pub fn run(args: Args) -> anyhow::Result<bool> {
    use std::io::Write;
    let paths = features::or_default(args.features)?;
    features::ensure_exist(&paths)?;
    let tags = tagged_scenarios(&paths)?;
    let Some(cases_path) = args.cases.or_else(|| cases_beside(&paths)) else {
        anyhow::ensure!(!args.strict, "--strict needs a list of upstream cases: no {CASES_FILE} beside the features, and no --cases");
        print_tags_only(&tags, &paths);
        return Ok(true);
    };
    let (cases, empty_categories) = read_cases(&cases_path)?;
    let mut by_key: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for (tag, scenarios) in &tags {
        match case_of(&cases, tag) {
            Some(case) => {
                let covering = by_key.entry(case.key()).or_default();
                for s in scenarios {
                    if !covering.contains(s) {
                        covering.push(s.clone());
                    }
                }
            }
            None => unknown.push((tag.clone(), scenarios.clone())),
        }
    }
    let mut categories: Vec<String> = Vec::new();
    for c in &cases {
        if !categories.contains(&c.category) {
            categories.push(c.category.clone());
        }
    }
    let mut out = std::io::stdout().lock();
    let (mut total, mut covered_total, mut not_observable_total, mut missing_total) = (0, 0, 0, 0);
    for category in &categories {
        let in_category: Vec<&Case> = cases.iter().filter(|c| &c.category == category).collect();
        let covered = in_category.iter().filter(|c| by_key.contains_key(&c.key())).count();
        let not_observable = in_category.iter().filter(|c| !c.observable && !by_key.contains_key(&c.key())).count();
        let missing = in_category.len() - covered - not_observable;
        let _ = writeln!(
            out,
            "{category} {}: {covered} of {} covered, {not_observable} not observable, {missing} observable but not covered",
            category_title(category),
            in_category.len()
        );
        for case in &in_category {
            let label = format!("#{} [{}] {}", case.id, case.file, case.name());
            match by_key.get(&case.key()) {
                Some(scenarios) => {
                    let _ =
                        writeln!(out, "  covered         {label}\n                    by {}", scenarios.join("\n                    by "));
                }
                None if !case.observable => {
                    let _ = writeln!(out, "  not observable  {label}\n                    ({})", case.reason);
                }
                None => {
                    let why = if case.reason.is_empty() { String::new() } else { format!("\n                    ({})", case.reason) };
                    let _ = writeln!(out, "  NOT COVERED     {label}{why}");
                }
            }
        }
        total += in_category.len();
        covered_total += covered;
        not_observable_total += not_observable;
        missing_total += missing;
    }
    for (category, why) in &empty_categories {
        let _ = writeln!(out, "{category} {}: no upstream test case ({why})", category_title(category));
    }
    if !unknown.is_empty() {
        let _ = writeln!(out, "Tags naming no listed case:");
        for (tag, scenarios) in &unknown {
            let _ = writeln!(out, "  @{tag}  on {}", scenarios.join("; "));
        }
    }
    let _ = writeln!(
        out,
        "Total: {covered_total} of {total} cases covered, {not_observable_total} not observable, {missing_total} observable but not covered, {} unknown tags",
        unknown.len()
    );
    Ok(!args.strict || (missing_total == 0 && unknown.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_match_cases_whatever_their_punctuation() {
        let case = |test: &str, sub: &str| Case {
            id: String::new(),
            category: String::new(),
            file: String::new(),
            test: test.into(),
            sub_case: sub.into(),
            observable: true,
            reason: String::new(),
        };
        let cases = [
            case("TestConflictingData", "bad child in ns1 -> owner in ns2 (child first)"),
            case("TestValidateImageGCPolicy", "LowThresholdPercent < HighThresholdPercent"),
            case("TestValidateImageGCPolicy", "LowThresholdPercent > HighThresholdPercent"),
            case("should delete pods created by rc when not orphaning", ""),
            case("TestValidateObjectMetaOwnerReferences", "event shouldn't be set as an owner"),
        ];
        let named = |tag: &str| case_of(&cases, tag).map(Case::name);
        assert_eq!(named("upstream(TestConflictingData/bad-child-in-ns1-owner-in-ns2-child-first)"), Some(cases[0].name()));
        assert_eq!(named("upstream(TestConflictingData/bad-child-in-ns1-->-owner-in-ns2-(child-first))"), Some(cases[0].name()));
        assert_eq!(named("upstream(TestValidateImageGCPolicy/LowThresholdPercent-<-HighThresholdPercent)"), Some(cases[1].name()));
        assert_eq!(named("upstream(TestValidateImageGCPolicy/LowThresholdPercent->-HighThresholdPercent)"), Some(cases[2].name()));
        assert_eq!(named("upstream(TestValidateImageGCPolicy/LowThresholdPercent-HighThresholdPercent)"), None);
        assert_eq!(named("upstream(should-delete-pods-created-by-rc-when-not-orphaning)"), Some(cases[3].name()));
        assert_eq!(named("upstream(TestValidateObjectMetaOwnerReferences/event-shouldn't-be-set-as-an-owner)"), Some(cases[4].name()));
        assert_eq!(named("upstream(TestConflictingData)"), None);
        assert_eq!(tag_key("fake-only", true), None);
    }
}
