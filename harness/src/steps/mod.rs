//! Step definitions, by domain concept. On an API server: [`objects`] (making, reading and
//! patching them), [`owners`] (owner references), [`deletion`] (deleting and what it leaves),
//! [`custom_resources`], [`requests`] (what the API server answered), [`events`], [`watches`],
//! [`pods`], [`nodes`], [`volumes`], [`leases`], Jobs that finish ([`finished_jobs`]),
//! certificate signing requests ([`certificates`]), the cloud behind the Nodes ([`cloud`]),
//! what the workload controllers build ([`workloads`]), and the cleanup controllers' own
//! clusters and time passing ([`controllers`]); on the reference kubelet model: [`kubelet`].
//! No step module uses another: what they share is in [`support`] (and, for kubelet steps,
//! [`kubelet::parse`]) or on their world. [`reference`] and [`phrase`] make the step reference
//! (`kubegc steps`).

pub mod certificates;
pub mod cloud;
pub mod controllers;
pub mod custom_resources;
pub mod deletion;
pub mod events;
pub mod finished_jobs;
pub mod kubelet;
pub mod leases;
pub mod nodes;
pub mod objects;
pub mod owners;
pub mod phrase;
pub mod pods;
pub mod reference;
pub mod requests;
pub mod support;
pub mod volumes;
pub mod watches;
pub mod workloads;
