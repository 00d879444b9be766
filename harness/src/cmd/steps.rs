//! `kubegc steps`: every step phrase with an example, by kind of scenario, generated from the
//! registered step definitions.

use kubegc_harness::steps::phrase::phrase;

/// Arguments of `kubegc steps`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print each step's regular expression instead of its phrase.
    #[arg(long)]
    pub regex: bool,
}

/// Prints the step reference: each step as a phrase (`<placeholder>` to fill in, `[optional
/// part]`, `word(s)`, `is/are`, `<one|of|these>`), or with `--regex` as its regular expression.
pub fn run(args: Args) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if !args.regex {
        let legend = "<name>: fill in; <a|b>: one of these; [text]: optional; word(s): optional ending; is/are: either word\n";
        if writeln!(out, "{legend}").is_err() {
            return;
        }
    }
    for section in kubegc_harness::steps::reference::reference() {
        if writeln!(out, "# {}\n", section.title).is_err() {
            return;
        }
        for step in section.steps {
            let shown = if args.regex { step.pattern.clone() } else { phrase(&step.pattern) };
            let described = if step.description.is_empty() { String::new() } else { format!("\n    {}", step.description) };
            if writeln!(out, "{:<5} {shown}\n    e.g. {}{described}\n", step.keyword, step.example).is_err() {
                return;
            }
        }
    }
}
