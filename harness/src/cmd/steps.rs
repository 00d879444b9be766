//! `kubegc steps`: every step phrase with an example, generated from the step definitions.

/// Prints the step reference.
pub fn run() {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for step in kubegc_harness::steps::reference() {
        let described = if step.description.is_empty() { String::new() } else { format!("\n    {}", step.description) };
        if writeln!(out, "{:<5} {}\n    e.g. {}{described}\n", step.keyword, step.pattern, step.example).is_err() {
            return;
        }
    }
}
