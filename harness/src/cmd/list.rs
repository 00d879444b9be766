//! `kubegc list`: the scenarios of the feature files, with their tags.

use std::path::PathBuf;

use kubegc_harness::{features, tags};

/// Arguments of `kubegc list`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Feature files or directories (repeatable; default: $KUBEGC_FEATURES, else the
    /// specification built into kubegc).
    #[arg(long = "features")]
    pub features: Vec<PathBuf>,
    /// Tag expression selecting scenarios, e.g. '@foreground and not @fake-only'; one that
    /// selects no scenario is an error (exit 2).
    #[arg(long)]
    pub tags: Option<String>,
}

/// Prints `file: scenario  @tags` (its feature's, its own and its Examples blocks') for every
/// selected scenario (stopping quietly when the
/// reader goes away, as in `kubegc list | head`).
pub fn run(args: Args) -> anyhow::Result<()> {
    use std::io::Write;
    let paths = features::or_default(args.features)?;
    features::ensure_exist(&paths)?;
    let expr = args.tags.as_deref().map(|expr| tags::selecting(expr, &paths)).transpose()?;
    let mut out = std::io::stdout().lock();
    for feature in features::read(&paths)? {
        let file = feature.path.clone().unwrap_or_default();
        for scenario in features::scenarios(&feature) {
            if expr.as_ref().is_some_and(|expr| !tags::selects(expr, &feature, scenario)) {
                continue;
            }
            // An outline's Examples blocks may carry tags of their own (one upstream case each).
            let examples = scenario.examples.iter().flat_map(|e| &e.tags);
            let shown: Vec<String> = features::tags(&feature, scenario).iter().chain(examples).map(|t| format!("@{t}")).collect();
            if writeln!(out, "{}: {}  {}", file.display(), scenario.name, shown.join(" ")).is_err() {
                return Ok(());
            }
        }
    }
    Ok(())
}
