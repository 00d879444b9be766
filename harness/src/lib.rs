//! The kubegc conformance harness: Gherkin scenarios turned into verdicts against a backend.
//!
//! # Layout
//! - [`world`]: the worlds scenarios run in, one per kind of scenario: on an API server (its
//!   backend, namespaces and objects), or on the reference kubelet model (a fake node).
//! - [`steps`]: step definitions, by kind of scenario and topic; what they share; and the step
//!   reference (`kubegc steps`), read from the registered definitions.
//! - [`backend`]: where scenarios run (the in-process fake, or any cluster by kubeconfig).
//! - [`features`]: where the specification's feature files are, and reading them without
//!   running them.
//! - [`tags`]: the topic tags every feature file carries, and `--tags` expressions.
//! - [`runner`]: runs feature files on a backend with cucumber, each kind of scenario in its
//!   own world, into one report.
//! - [`chaos`]: random object graphs, deletions, faults and cold restarts thrown at a
//!   collector, judged by an independent model.
//! - [`fuzz`]: the fake API server fuzzed with seeded requests, judged by invariants, or
//!   compared with the upstream API server's answers to the same requests.
//! - [`corpus`]: manifests of the pinned modules' tests sent to the fake and to the upstream
//!   API server, their answers compared.
//! - [`kubelet_diff`]: seeded random nodes through the kubelet model and the kubelet's own
//!   code, compared after every step.
//! - [`kubelet_wire`]: the JSON form in which the kubelet model's node and operations travel to
//!   the kubelet's own code and back (not the model: that is [`kubegc::kubelet`]).
//! - [`e2e`]: Kubernetes' own e2e tests of the pinned release run against a target.
//! - [`junit`]: reading verdicts back from the runner's JUnit reports.
//! - [`mutation`]: judging the specification with deliberately broken API servers and collectors.
//!
//! The real control plane, collector and kubectl, built from pinned Go modules, are the
//! `kubegc-control-plane` crate's.

pub mod backend;
pub mod chaos;
pub mod corpus;
pub mod e2e;
pub mod features;
pub mod fuzz;
pub mod junit;
pub mod kubelet_diff;
pub mod kubelet_wire;
pub mod mutation;
pub mod runner;
pub mod steps;
pub mod tags;
pub mod world;
