//! `kubegc program`: what a container's command does on kubegc's nodes, as JSON — the rule of
//! `kubegc::workloads::nodes::programs`, which the fake's node agents follow and the hollow
//! nodes of the upstream control plane ask for each container they start.

use kubegc::workloads::nodes::programs::{Exit, program};
use serde_json::json;

/// Arguments of `kubegc program`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The container's command followed by its arguments (after `--`); none for the image's own
    /// entrypoint.
    #[arg(allow_hyphen_values = true, trailing_var_arg = true)]
    pub argv: Vec<String>,
}

/// Prints `{"exitAfterMs": N or null, "code": C, "stopsOnTerm": B, "writesBytes": W}`: when the
/// process exits by itself (milliseconds after its start; null when it runs until stopped), with
/// which code, whether SIGTERM ends it at once, and how many bytes it writes to its container's
/// writable layer (which only the fake's kubelet model counts).
pub fn run(args: Args) -> anyhow::Result<()> {
    let program = program(&json!({"command": args.argv}));
    let (after, code) = match program.exit {
        Exit::Never => (None, 0),
        Exit::After { after, code } => (Some(after.num_milliseconds()), code),
    };
    println!("{}", json!({"exitAfterMs": after, "code": code, "stopsOnTerm": program.stops_on_term, "writesBytes": program.writes}));
    Ok(())
}
