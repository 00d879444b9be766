//! A fake Kubernetes API server that real clients use unchanged.
//!
//! It serves the Kubernetes REST protocol (JSON over HTTP) from memory: discovery, OpenAPI v3
//! for kubectl, CRUD, patch, list and watch with selectors and pagination, metadata-only and
//! Table representations, and the apiserver's half of garbage collection: finalizers,
//! `deletionTimestamp`, propagation policies, preconditions and per-resource default policies.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use k8s_openapi::api::core::v1::Namespace;
//! let server = kubegc::apiserver::ApiServer::new();
//! let client = server.client(); // a kube::Client with no socket
//! let namespaces = kube::Api::<Namespace>::all(client).list(&Default::default()).await.unwrap();
//! assert_eq!(namespaces.items.len(), 4); // default, kube-system, kube-public, kube-node-lease
//! # }
//! ```
//!
//! # Layout
//! [`server`] holds the server ([`Config`], the [`Server`] every handler shares) and
//! [`api_server`] the handle users hold ([`ApiServer`]); this module only names the parts. The request path goes down these layers (see
//! `docs/architecture.md` for one DELETE followed through them):
//! - [`http`]: routes, dispatch, body and query decoding, rendering, watch streams. The only
//!   module that knows HTTP.
//! - [`storage`]: the generic store's verbs (`create`, `read`, `update`, `delete`) on
//!   [`storage::Storage`], everything behind the server's one lock; its [`storage::store`]
//!   keeps versioned objects, one global revision and the watch history.
//! - [`catalogue`]: the served resources, their scope and per-resource rules; [`crd`] adds
//!   resources from CustomResourceDefinitions.
//! - [`kinds`]: what is special about one kind (pods, namespaces, CRDs, claims and volumes,
//!   events), behind the store's hook trait; [`admission`]: what the default admission
//!   plugins add to a new object; [`defaults`]: what the defaulting functions of each built-in
//!   kind's API group fill on every write.
//! - Rules, as pure functions: [`deletion`] (what a DELETE does, upstream `store.go`'s `Delete`),
//!   [`validation`] and [`schema`] (metadata, unknown fields and values of the wrong type,
//!   custom resources pruned by their schema), [`enums`] (the enumerated fields controllers
//!   write), [`declarative`] (what only declarative validation checks), [`cron_schedule`] (CronJob schedules as the cron parser reads them), [`pod_specs`] (the pod specs objects hold, their volume references), [`strict`] (bodies decoded with their repeated keys), [`patch`], [`apply`]
//!   (server-side apply and managedFields), [`selectors`], [`convert`] (served and stored
//!   versions), [`scale`] (the `Scale` of a scalable object).
//! - [`controllers`]: the simulated namespace controller, CRD finalizer and node agent, and the
//!   expiry of Events (`--event-ttl`).
//! - [`faults`]: ready-made interceptors for fault injection.
//! - [`discovery`], [`openapi`]: what kubectl reads before it does anything; [`protobuf`]: the
//!   protobuf bodies typed clients send; [`kubeconfig`]: the file written for clients of a
//!   served instance; [`status`]: `Status` errors; [`go_quote`]: strings quoted as upstream's
//!   messages quote them; [`warning`]: the `Warning` headers a request's
//!   handling gives its client; [`user`]: the one user every request is served as.
//! - [`mutant`]: deliberately broken rules, for judging specifications.

pub mod admission;
pub mod api_server;
pub mod apply;
pub mod catalogue;
pub mod controllers;
pub mod convert;
pub mod crd;
pub mod cron_schedule;
pub mod declarative;
pub mod defaults;
pub mod deletion;
pub mod discovery;
pub mod enums;
pub mod faults;
pub mod go_fmt;
pub mod go_json;
pub mod go_quote;
pub mod go_time;
pub mod go_yaml;
pub mod http;
pub mod ids;
pub mod kinds;
pub mod kubeconfig;
pub mod mutant;
pub mod openapi;
pub mod patch;
pub mod pod_specs;
pub mod protobuf;
pub mod scale;
pub mod schema;
pub mod scheme;
pub mod selectors;
pub mod server;
pub mod status;
pub mod storage;
pub mod strict;
pub mod user;
pub mod validation;
pub mod warning;
pub mod write_warnings;

pub use api_server::ApiServer;
pub use server::{Config, Interceptor, Server};
