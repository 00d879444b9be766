//! One module per subcommand.

pub mod coverage;
pub mod fuzz;
pub mod gc;
pub mod list;
pub mod mutants;
pub mod restarts;
pub mod run;
pub mod serve;
pub mod steps;
pub mod upstream;
