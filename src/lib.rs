//! kubegc: an executable specification of Kubernetes garbage collection.
//!
//! Start with [`Cluster`] (the API server with the garbage collector and the workload
//! controllers running, and `settle()` to wait for them: the front door for tests),
//! [`ApiServer`] (an in-memory Kubernetes API server that real clients use
//! unchanged; [`ApiServer::client`] gives a `kube::Client` with no socket),
//! [`GarbageCollector`] (the reference collector, an ordinary API client), and
//! [`kubelet::Node`] (a fake node on which the reference kubelet model collects images and
//! containers). `docs/architecture.md` shows the layers and follows one DELETE and one
//! collection through the files.
//!
//! # Layout
//!
//! - [`apiserver`]: the fake API server, layer by layer — `http` (routes, dispatch, decoding,
//!   rendering, watches), `storage` (the generic store's verbs, the store, the hook trait),
//!   `kinds` (pods, namespaces, CRDs, claims and volumes, records), the rules as pure
//!   functions (`deletion`, `validation`, `schema`, `patch`, `apply`, `selectors`, `convert`), the
//!   served data (`catalogue`, `crd`, `discovery`, `openapi`), `protobuf` (typed clients'
//!   bodies), `controllers`, `status`, `kubeconfig` and `mutant`.
//! - [`gc`]: the reference garbage collector, mirroring upstream's package file by file —
//!   `graph`, `events`, `graph_builder`, `collector`, `decision`, `operations`, `patch`,
//!   `monitors`, `rest_mapper`, `cache_sync`, `retry`, `queue`, `absent_cache`, `dot`,
//!   `metrics`, `config`, `manual` and `mutant`.
//! - [`kubelet`]: the reference kubelet's node-level garbage collection — `images`,
//!   `containers`, `eviction`, `loops` and `config` over a fake `node` (`runtime`, `disks`,
//!   `pods`, `logs`, `events`), with Go's `time` and `quantity` semantics, `errors` and
//!   `mutant`.
//! - [`cleanup`]: the cleanup controllers kube-controller-manager (and kube-apiserver) run
//!   besides the collector — `pod_gc`, `ttl_after_finished`, `csr_cleaner`, `pv_reclaim`,
//!   `pvc_protection`, `pv_protection`, `identity_leases` — each an ordinary API client, and the
//!   `pass` they share.
//! - [`cluster`]: the front door for tests — the API server, the collector and the workload
//!   controllers together, and `settle`.
//! - [`workloads`]: the workload controllers the fake runs as a cluster would (Deployments,
//!   ReplicaSets, ReplicationControllers, Jobs) — `claims`, `pods`, `replicas`, `deployments`,
//!   `jobs`, and one pass's `snapshot`, `writes` and `status`.
//! - [`activity`]: the signal a part of a cluster raises when it finishes a step, which
//!   settling waits for, and the one way each part is asked whether it has settled.
//! - [`controller_loop`]: the loop the workload and cleanup controllers run in: rounds until
//!   one writes nothing, then a wait for a change.
//! - [`clock`]: the real and the virtual clock time-dependent behaviour is measured on.
//! - [`cloud`]: the fake cloud whose machines back a cluster's Nodes, which a test controls.
//! - [`go_duration`]: Go's `time.ParseDuration`, for the kubelet model and CronJob schedules.
//! - [`metadata`]: the Kubernetes metadata names (the garbage-collection finalizers) the API
//!   server and the collector share.
//! - [`quantity`]: resource quantities as Go's `resource.Quantity` reads and writes them.
//! - [`rate_limit`]: client-go's client-side rate limit (qps and burst) for a `kube::Client`.
//! - [`recorder`]: Events as client-go's event recorder writes them, for every controller.
//! - [`unreadable`]: typed lists that set apart the objects they cannot read, and the one
//!   warning and Warning Event a controller gives about each.
//! - `mutants` (private): the one shape every family of mutants is defined with.

pub mod activity;
pub mod apiserver;
pub mod cleanup;
pub mod clock;
pub mod cloud;
pub mod cluster;
pub mod controller_loop;
pub mod gc;
pub mod go_duration;
pub mod kubelet;
pub mod metadata;
mod mutants;
pub mod quantity;
pub mod rate_limit;
pub mod recorder;
pub mod unreadable;
pub mod workloads;

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use apiserver::ApiServer;
pub use clock::Clock;
pub use cluster::Cluster;
pub use gc::GarbageCollector;
