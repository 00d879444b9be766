//! One scenario's state and what steps do through it.
//!
//! - [`api`]: [`KubeWorld`], the scenario's backend, namespaces and objects, and the lookups
//!   and waits steps make through it.
//! - [`explain`]: why a check failed, for its failure message.
//! - [`cleanup`]: deleting what a scenario made, once it has run.
//!
//! [`KubeWorld`]: api::KubeWorld

pub mod api;
pub mod cleanup;
pub mod explain;

/// The result type of steps: a failure message explains what went wrong.
pub type StepResult = Result<(), String>;
