//! kubegc: an executable specification of Kubernetes garbage collection.
//!
//! # Layout
//!
//! - [`apiserver`]: an in-memory Kubernetes API server that speaks the real REST protocol,
//!   including the apiserver's half of deletion (finalizers, deletionTimestamp, propagation
//!   policies, preconditions). Use it in-process through [`apiserver::ApiServer::client`] or
//!   over TCP with [`apiserver::ApiServer::serve`].
//! - [`gc`]: the reference garbage collector, an ordinary API client (graph builder,
//!   attemptToDelete and attemptToOrphan workers, monitors).
//! - [`kubelet`]: the reference kubelet's node-level garbage collection — image GC, dead
//!   container, sandbox and pod-log GC, eviction-driven reclaim — over a fake runtime and disks.
//! - [`clock`]: the real and the virtual clock that time-dependent behaviour (pod grace periods)
//!   is measured on.
//! - [`metadata`]: the Kubernetes metadata names (the garbage collection finalizers) that the API
//!   server and the collector share.
//! - [`rate_limit`]: client-go's client-side rate limit (qps and burst) for a `kube::Client`.

pub mod apiserver;
pub mod clock;
pub mod gc;
pub mod kubelet;
pub mod metadata;
mod mutants;
pub mod rate_limit;
