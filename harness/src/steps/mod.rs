//! Step definitions, by kind of scenario and topic. On an API server: creating objects,
//! deleting and changing them, and asserting what the cluster looks like afterwards; on the
//! reference kubelet model: [`kubelet`]; on what the workload controllers build: [`workloads`];
//! for the cleanup controllers, clusters of a scenario's own and time passing: [`controllers`];
//! volumes, leases and expiring events: [`storage_and_leases`]; Jobs that finish:
//! [`finished_jobs`]; certificate signing requests: [`certificates`]; the cloud behind the
//! Nodes: [`cloud`].
//! No step module uses another: what they share is in [`support`] (and, for kubelet steps,
//! [`kubelet::parse`]) or on their world. [`reference`] and [`phrase`] make the step reference
//! (`kubegc steps`).

pub mod assertions;
pub mod certificates;
pub mod changes;
pub mod cloud;
pub mod controllers;
pub mod finished_jobs;
pub mod kubelet;
pub mod objects;
pub mod phrase;
pub mod reference;
pub mod storage_and_leases;
pub mod support;
pub mod workloads;
