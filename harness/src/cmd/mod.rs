//! One module per subcommand.

pub mod serve;
