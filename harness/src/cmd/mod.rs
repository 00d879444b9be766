//! One module per subcommand.

pub mod chaos;
pub mod corpus;
pub mod coverage;
pub mod e2e;
pub mod fuzz;
pub mod gc;
pub mod kubelet_diff;
pub mod list;
pub mod mutants;
pub mod program;
pub mod run;
pub mod serve;
pub mod steps;
pub mod upstream;
