//! One pass's view of the cluster: every Deployment, ReplicaSet, ReplicationController, CronJob,
//! Job, PodDisruptionBudget and Pod, Service, Endpoints, EndpointSlice, Namespace and
//! ServiceAccount, each listed afresh (a list is a consistent read, so a pass sees every write
//! before it), and the oldest revision among the lists.

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{Endpoints, Namespace, Pod, ReplicationController, Service, ServiceAccount};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::Resource;
use kube::api::{Api, ListParams};
use serde::de::DeserializeOwned;

/// The resources a snapshot lists, as `(group, plural)`: a pass that saw revision `r` of each
/// has seen every write to them up to `r`.
pub const LISTED: [(&str, &str); 12] = [
    ("apps", "deployments"),
    ("apps", "replicasets"),
    ("", "replicationcontrollers"),
    ("batch", "cronjobs"),
    ("batch", "jobs"),
    ("policy", "poddisruptionbudgets"),
    ("", "pods"),
    ("", "services"),
    ("", "endpoints"),
    ("discovery.k8s.io", "endpointslices"),
    ("", "namespaces"),
    ("", "serviceaccounts"),
];

/// Every workload and pod, as listed at the start of a pass.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// apps/v1 Deployments.
    pub deployments: Vec<Deployment>,
    /// apps/v1 ReplicaSets.
    pub replica_sets: Vec<ReplicaSet>,
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
    /// The oldest resourceVersion among the lists.
    pub revision: u64,
}

impl Snapshot {
    /// Lists everything through `client`.
    pub async fn read(client: &kube::Client) -> kube::Result<Self> {
        let mut revision = u64::MAX;
        let deployments = list::<Deployment>(client, &mut revision).await?;
        let replica_sets = list::<ReplicaSet>(client, &mut revision).await?;
        let replication_controllers = list::<ReplicationController>(client, &mut revision).await?;
        let cron_jobs = list::<CronJob>(client, &mut revision).await?;
        let jobs = list::<Job>(client, &mut revision).await?;
        let disruption_budgets = list::<PodDisruptionBudget>(client, &mut revision).await?;
        // Pods are listed even when nothing controls them: a pod left with the Job tracking
        // finalizer by a Job that is gone must be let go.
        let pods = list::<Pod>(client, &mut revision).await?;
        let services = list::<Service>(client, &mut revision).await?;
        let endpoints = list::<Endpoints>(client, &mut revision).await?;
        let endpoint_slices = list::<EndpointSlice>(client, &mut revision).await?;
        let namespaces = list::<Namespace>(client, &mut revision).await?;
        let service_accounts = list::<ServiceAccount>(client, &mut revision).await?;
        Ok(Self {
            deployments,
            replica_sets,
            replication_controllers,
            cron_jobs,
            jobs,
            disruption_budgets,
            pods,
            services,
            endpoints,
            endpoint_slices,
            namespaces,
            service_accounts,
            revision,
        })
    }
}

/// Every `K` in the cluster; `revision` becomes the list's resourceVersion if that is older.
async fn list<K>(client: &kube::Client, revision: &mut u64) -> kube::Result<Vec<K>>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug,
{
    let list = Api::<K>::all(client.clone()).list(&ListParams::default()).await?;
    let listed: u64 = list.metadata.resource_version.as_deref().and_then(|v| v.parse().ok()).unwrap_or(0);
    *revision = (*revision).min(listed);
    Ok(list.items)
}
