//! `kubegc steps`: every step phrase with an example, by kind of scenario, generated from the
//! registered step definitions.

/// Prints the step reference.
pub fn run() {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for section in kubegc_harness::steps::reference::reference() {
        if writeln!(out, "# {}\n", section.title).is_err() {
            return;
        }
        for step in section.steps {
            let described = if step.description.is_empty() { String::new() } else { format!("\n    {}", step.description) };
            if writeln!(out, "{:<5} {}\n    e.g. {}{described}\n", step.keyword, step.pattern, step.example).is_err() {
                return;
            }
        }
    }
}
