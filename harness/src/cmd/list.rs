//! `kubegc list`: the scenarios of the feature files, with their tags.

use std::path::PathBuf;

use anyhow::Context;
use cucumber::gherkin::{Feature, GherkinEnv};
use cucumber::tag::Ext as _;

/// Arguments of `kubegc list`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Feature files or directories (repeatable).
    #[arg(long = "features", default_value = "features")]
    pub features: Vec<PathBuf>,
    /// Tag expression selecting scenarios.
    #[arg(long)]
    pub tags: Option<String>,
}

/// Prints `file: scenario  @tags` for every selected scenario (stopping quietly when the
/// reader goes away, as in `kubegc list | head`).
pub fn run(args: Args) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let tags: Option<cucumber::gherkin::tagexpr::TagOperation> =
        args.tags.as_deref().map(str::parse).transpose().map_err(|e| anyhow::anyhow!("invalid --tags expression: {e:?}"))?;
    for path in &args.features {
        for file in kubegc_harness::runner::feature_files(path).with_context(|| format!("cannot read {}", path.display()))? {
            let feature = Feature::parse_path(&file, GherkinEnv::default()).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let scenarios = feature.scenarios.iter().chain(feature.rules.iter().flat_map(|r| r.scenarios.iter()));
            for scenario in scenarios {
                let all: Vec<String> = feature.tags.iter().chain(&scenario.tags).cloned().collect();
                if tags.as_ref().is_some_and(|t| !t.eval(all.iter())) {
                    continue;
                }
                let shown: Vec<String> = all.iter().map(|t| format!("@{t}")).collect();
                if writeln!(out, "{}: {}  {}", file.display(), scenario.name, shown.join(" ")).is_err() {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}
