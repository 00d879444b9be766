//! Steps for the kubelet's node-level garbage collection (`@kubelet` scenarios): they build a
//! fake node ([`kubegc::kubelet::Node`]) on a virtual clock, drive the reference kubelet model —
//! image GC, container GC, the GC loops, the eviction manager — and check what it did. Nothing
//! here talks to an API server, so these scenarios run on the reference model only.
//!
//! - [`parse`]: times (`10:05`, `the zero time + 1s`), durations, sizes and tables in steps.
//! - [`setup`]: the node, its runtime, disks, pods and logs, policies and configuration.
//! - [`actions`]: what the kubelet does (detection, GC passes, loops, eviction, validation).
//! - [`checks`]: what the node looks like afterwards.
//!
//! The steps act on a [`KubeletWorld`], this kind of scenario's own world.
//!
//! [`KubeletWorld`]: crate::world::kubelet::KubeletWorld

pub mod actions;
pub mod checks;
pub mod parse;
pub mod setup;
