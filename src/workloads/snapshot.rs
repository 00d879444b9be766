//! One pass's view of the cluster: every Deployment, ReplicaSet, DaemonSet, StatefulSet,
//! ControllerRevision, ReplicationController, CronJob, Job, PodDisruptionBudget, Pod and
//! PersistentVolumeClaim, Service, Endpoints, EndpointSlice, Namespace,
//! ServiceAccount and Node, and every namespace's `kube-root-ca.crt` ConfigMap, each listed afresh (a list is a consistent read, so a pass sees every write
//! before it), and the oldest revision among the lists.

use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{
    ConfigMap, Endpoints, Namespace, Node, PersistentVolumeClaim, Pod, ReplicationController, Service, ServiceAccount,
};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::Resource;
use serde::de::DeserializeOwned;

use crate::unreadable::{self, Unreadable};
use crate::workloads::root_ca;

/// The resources a snapshot lists, as `(group, plural)`: a pass that saw revision `r` of each
/// has seen every write to them up to `r`.
pub const LISTED: [(&str, &str); 17] = [
    ("apps", "deployments"),
    ("apps", "replicasets"),
    ("apps", "daemonsets"),
    ("apps", "statefulsets"),
    ("apps", "controllerrevisions"),
    ("", "replicationcontrollers"),
    ("batch", "cronjobs"),
    ("batch", "jobs"),
    ("policy", "poddisruptionbudgets"),
    ("", "pods"),
    ("", "persistentvolumeclaims"),
    ("", "services"),
    ("", "endpoints"),
    ("discovery.k8s.io", "endpointslices"),
    ("", "namespaces"),
    ("", "serviceaccounts"),
    ("", "nodes"),
];

/// Every workload and pod, as listed at the start of a pass (but those that cannot be read).
#[derive(Debug, Default)]
pub struct Snapshot {
    /// apps/v1 Deployments.
    pub deployments: Vec<Deployment>,
    /// apps/v1 ReplicaSets.
    pub replica_sets: Vec<ReplicaSet>,
    /// apps/v1 DaemonSets.
    pub daemon_sets: Vec<DaemonSet>,
    /// apps/v1 StatefulSets.
    pub stateful_sets: Vec<StatefulSet>,
    /// apps/v1 ControllerRevisions.
    pub controller_revisions: Vec<ControllerRevision>,
    /// core/v1 ReplicationControllers.
    pub replication_controllers: Vec<ReplicationController>,
    /// batch/v1 CronJobs.
    pub cron_jobs: Vec<CronJob>,
    /// batch/v1 Jobs.
    pub jobs: Vec<Job>,
    /// policy/v1 PodDisruptionBudgets.
    pub disruption_budgets: Vec<PodDisruptionBudget>,
    /// core/v1 Pods.
    pub pods: Vec<Pod>,
    /// core/v1 PersistentVolumeClaims.
    pub claims: Vec<PersistentVolumeClaim>,
    /// core/v1 Services.
    pub services: Vec<Service>,
    /// core/v1 Endpoints.
    pub endpoints: Vec<Endpoints>,
    /// discovery.k8s.io/v1 EndpointSlices.
    pub endpoint_slices: Vec<EndpointSlice>,
    /// core/v1 Namespaces.
    pub namespaces: Vec<Namespace>,
    /// core/v1 ServiceAccounts.
    pub service_accounts: Vec<ServiceAccount>,
    /// core/v1 Nodes.
    pub nodes: Vec<Node>,
    /// The core/v1 ConfigMaps named [`root_ca::NAME`], in every namespace.
    pub root_ca_configmaps: Vec<ConfigMap>,
    /// The oldest resourceVersion among the lists.
    pub revision: u64,
    /// The objects the lists held that could not be read as their kind: left out of the rest.
    pub unreadable: Vec<Unreadable>,
}

impl Snapshot {
    /// Lists everything through `client`.
    pub async fn read(client: &kube::Client) -> kube::Result<Self> {
        let seen = &mut Seen { revision: u64::MAX, unreadable: Vec::new() };
        let deployments = list::<Deployment>(client, seen).await?;
        let replica_sets = list::<ReplicaSet>(client, seen).await?;
        let daemon_sets = list::<DaemonSet>(client, seen).await?;
        let stateful_sets = list::<StatefulSet>(client, seen).await?;
        let controller_revisions = list::<ControllerRevision>(client, seen).await?;
        let replication_controllers = list::<ReplicationController>(client, seen).await?;
        let cron_jobs = list::<CronJob>(client, seen).await?;
        let jobs = list::<Job>(client, seen).await?;
        let disruption_budgets = list::<PodDisruptionBudget>(client, seen).await?;
        // Pods are listed even when nothing controls them: a pod left with the Job tracking
        // finalizer by a Job that is gone must be let go.
        let pods = list::<Pod>(client, seen).await?;
        let claims = list::<PersistentVolumeClaim>(client, seen).await?;
        let services = list::<Service>(client, seen).await?;
        let endpoints = list::<Endpoints>(client, seen).await?;
        let endpoint_slices = list::<EndpointSlice>(client, seen).await?;
        let namespaces = list::<Namespace>(client, seen).await?;
        let service_accounts = list::<ServiceAccount>(client, seen).await?;
        let nodes = list::<Node>(client, seen).await?;
        let root_ca_configmaps = list_with::<ConfigMap>(client, &root_ca_selection(), seen).await?;
        Ok(Self {
            deployments,
            replica_sets,
            daemon_sets,
            stateful_sets,
            controller_revisions,
            replication_controllers,
            cron_jobs,
            jobs,
            disruption_budgets,
            pods,
            claims,
            services,
            endpoints,
            endpoint_slices,
            namespaces,
            service_accounts,
            nodes,
            root_ca_configmaps,
            revision: seen.revision,
            unreadable: std::mem::take(&mut seen.unreadable),
        })
    }
}

/// The ConfigMaps a snapshot lists (only the root CA publisher's: a pass need not read every
/// ConfigMap); their writes are not in [`LISTED`], so that other ConfigMaps' writes do not keep
/// the controllers from being settled.
pub fn root_ca_selection() -> String {
    format!("metadata.name={}", root_ca::NAME)
}

/// What the lists of a snapshot saw besides their items: the oldest revision, and what they could
/// not read.
struct Seen {
    revision: u64,
    unreadable: Vec<Unreadable>,
}

/// Every `K` in the cluster that can be read, as [`list_with`].
async fn list<K>(client: &kube::Client, seen: &mut Seen) -> kube::Result<Vec<K>>
where
    K: Resource<DynamicType = ()> + DeserializeOwned,
{
    list_with(client, "", seen).await
}

/// Every `K` in the cluster whose fields match `fields` and that can be read; `seen` takes the
/// list's revision if that is older, and the items that cannot be read.
async fn list_with<K>(client: &kube::Client, fields: &str, seen: &mut Seen) -> kube::Result<Vec<K>>
where
    K: Resource<DynamicType = ()> + DeserializeOwned,
{
    let listed = unreadable::list::<K>(client, fields).await?;
    seen.revision = seen.revision.min(listed.revision);
    seen.unreadable.extend(listed.unreadable);
    Ok(listed.items)
}
