//! The kubegc conformance harness: Gherkin scenarios turned into verdicts against a backend.
//!
//! # Layout
//! - [`world`]: one scenario's state (its backend, namespace and objects).
//! - [`steps`]: step definitions, by topic.
//! - [`backend`]: where scenarios run (the in-process fake, or any cluster by kubeconfig).
//! - [`runner`]: runs feature files on a backend with cucumber.
//! - [`junit`]: reading verdicts back from the runner's JUnit reports.
//! - [`mutation`]: judging the specification with deliberately broken API servers and collectors.
//! - [`restarts`]: the reference collector killed and restarted cold around deletions, judged
//!   by an independent rule.
//!
//! The real control plane, collector and kubectl, built from pinned Go modules, are the
//! `kubegc-control-plane` crate's.

pub mod backend;
pub mod junit;
pub mod mutation;
pub mod restarts;
pub mod runner;
pub mod steps;
pub mod world;
