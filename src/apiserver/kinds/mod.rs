//! What is special about one kind: what the real registry strategies, default admission
//! plugins and controllers of that kind do that a client of a garbage collector notices, each
//! kind an implementation of the generic store's hook trait
//! ([`crate::apiserver::storage::hooks::Kind`]). [`of`] is the one place that says which
//! kinds have hooks of their own; the server hands it to the storage, whose verbs never
//! compare names.
//!
//! - [`pods`]: the status of a new pod, container validation, the node agent finishing
//!   graceful deletions.
//! - [`namespaces`]: defaults, the namespace registry's own delete, removal only once
//!   `spec.finalizers` is empty, the namespace controller.
//! - [`definitions`]: CustomResourceDefinitions — status, validation, the cleanup finalizer
//!   and its controller, serving the resources they define.
//! - [`nodes`]: the not-ready taint of a new Node.
//! - [`config_maps`]: the client CA ConfigMap kube-apiserver keeps in kube-system.
//! - [`volumes`]: claims and volumes — the StorageObjectInUseProtection admission plugin;
//!   [`volume_spec`]: a volume's spec validated.
//! - [`records`]: Events (core and events.k8s.io) and ControllerRevisions, which only validate fields of their own.
//! - [`jobs`]: the selector and pod-template labels a Job gets at create.
//! - [`cron_jobs`]: a CronJob's schedule, time zone, deadline, history limits and name length.
//! - [`services`]: a Service's cluster IP, IP families and node ports, allocated at create and
//!   kept by updates.
//! - [`deployments`]: the labels a Deployment's status subresource may not change.
//! - [`daemon_sets`]: the template generation a DaemonSet's strategy keeps.
//! - [`endpoint_slices`]: EndpointSlices — the address type, required and immutable.
//! - [`rbac`]: roles and bindings — their validation, a binding's fixed role reference.
//! - [`workloads`]: the selector of every apps/v1 workload, given and matching its template.
//! - [`certificates`]: certificate signing requests — what the main resource and the `status`
//!   and `approval` subresources may change, and the condition times the server fills.

pub mod certificates;
pub mod config_maps;
pub mod cron_jobs;
pub mod daemon_sets;
pub mod definitions;
pub mod deployments;
pub mod endpoint_slices;
pub mod jobs;
pub mod namespaces;
pub mod nodes;
pub mod pods;
pub mod rbac;
pub mod records;
pub mod services;
pub mod volume_spec;
pub mod volumes;
pub mod workloads;

use crate::apiserver::storage::hooks::{Generic, Kind};

/// The hooks of the resource `plural` in `group` (a [`crate::apiserver::storage::hooks::KindOf`]).
pub fn of(group: &str, plural: &str) -> &'static dyn Kind {
    match (group, plural) {
        ("", "pods") => &pods::Pods,
        ("", "configmaps") => &config_maps::ConfigMaps,
        ("", "namespaces") => &namespaces::Namespaces,
        ("", "nodes") => &nodes::Nodes,
        ("", "services") => &services::Services,
        ("", "replicationcontrollers") => &workloads::ReplicationControllers,
        ("", "persistentvolumeclaims") => &volumes::CLAIMS,
        ("", "persistentvolumes") => &volumes::VOLUMES,
        ("", "events") => &records::CORE_EVENTS,
        ("events.k8s.io", "events") => &records::EVENTS_V1,
        ("apps", "controllerrevisions") => &records::ControllerRevisions,
        ("apps", "deployments") => &deployments::Deployments,
        ("apps", "daemonsets") => &daemon_sets::DaemonSets,
        ("apps", "replicasets") => &workloads::Selecting(workloads::DEPLOYMENT_SELECTOR),
        ("apps", "statefulsets") => &workloads::Selecting(workloads::STATEFUL_SET_SELECTOR),
        ("batch", "jobs") => &jobs::Jobs,
        ("batch", "cronjobs") => &cron_jobs::CronJobs,
        ("discovery.k8s.io", "endpointslices") => &endpoint_slices::EndpointSlices,
        ("certificates.k8s.io", "certificatesigningrequests") => &certificates::CertificateSigningRequests,
        ("apiextensions.k8s.io", "customresourcedefinitions") => &definitions::Definitions,
        ("rbac.authorization.k8s.io", "roles") => &rbac::ROLES,
        ("rbac.authorization.k8s.io", "clusterroles") => &rbac::CLUSTER_ROLES,
        ("rbac.authorization.k8s.io", "rolebindings") => &rbac::ROLE_BINDINGS,
        ("rbac.authorization.k8s.io", "clusterrolebindings") => &rbac::CLUSTER_ROLE_BINDINGS,
        _ => &Generic,
    }
}
