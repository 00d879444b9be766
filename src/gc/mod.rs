//! The reference garbage collector: an ordinary controller that reaches the API only through a
//! `kube::Client`, so it runs unchanged against the fake apiserver, a kind cluster with
//! kube-controller-manager's collector switched off, or beside another implementation.
//!
//! # Layout (mirroring upstream `pkg/controller/garbagecollector`)
//! - [`graph`]: nodes, owners, dependents, identities, work items (`graph.go`), stored compactly
//!   for large clusters; [`uid`]: object UIDs in 16 bytes.
//! - [`events`]: what the graph is built from: object metadata and what happened to it
//!   (`graph_builder.go`'s `event`).
//! - [`graph_builder`]: events → graph → work (`graph_builder.go`).
//! - [`collector`]: the collector's state and methods: graph changes, queues, monitors kept in
//!   step with discovery, and the attemptToDelete and attemptToOrphan workers' steps
//!   (`garbagecollector.go`); the bodies of its tasks, and whether it has settled.
//! - [`run`]: a collector running on its own tasks ([`GarbageCollector`], upstream `Run`).
//! - [`decision`]: the rules the workers decide by, as pure functions (`garbagecollector.go`'s
//!   `attemptToDeleteItem`, `isDangling` and the like).
//! - [`operations`], [`patch`]: API calls and patch bodies (`operations.go`, `patch.go`).
//! - [`monitors`], [`rest_mapper`]: metadata list+watch per resource, and discovery.
//! - [`cache_sync`]: acting only on a graph built from complete initial lists (upstream's
//!   "wait for cache sync", made strict).
//! - [`retry`]: back-off delays and which API failures are worth waiting out.
//! - [`queue`]: de-duplicating, rate-limited work queues.
//! - [`absent_cache`]: owners verified absent.
//! - [`dot`], [`metrics`]: the graph as DOT and counters.
//! - [`config`]: how the collector runs.
//! - [`mutant`]: deliberately broken rules, for judging specifications, and the one seam where
//!   they change the rules' decisions.
//! - [`manual`]: the collector stepped by hand, as upstream's unit tests drive it.
//!
//! This module only names the parts; no module here imports another in a cycle.

pub mod absent_cache;
pub mod cache_sync;
pub mod collector;
pub mod config;
pub mod decision;
pub mod dot;
pub mod events;
pub mod graph;
pub mod graph_builder;
pub mod manual;
pub mod metrics;
pub mod monitors;
pub mod mutant;
pub mod operations;
pub mod patch;
pub mod queue;
pub mod rest_mapper;
pub mod retry;
pub mod run;
pub mod uid;

pub use crate::gc::collector::settled::Settled;
pub use crate::gc::config::Config;
pub use crate::gc::manual::ManualCollector;
pub use crate::gc::run::GarbageCollector;
