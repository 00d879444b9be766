//! Workload controllers for the fake API server: what kube-controller-manager's deployment,
//! replicaset, daemonset, statefulset, replicationcontroller, job and cronjob controllers do that garbage collection
//! rests on, the disruption controller's PodDisruptionBudget status, and the endpoints,
//! EndpointSlice, EndpointSlice mirroring and service account controllers, which give Services
//! their endpoints and namespaces their `default` account, and the node lifecycle controller's
//! NoSchedule taints.
//! They create children with a controller owner reference (`controller` and
//! `blockOwnerDeletion` set), adopt orphans their selector matches and release children it no
//! longer matches, never adopting while the owner is being deleted, and scale. With them,
//! `kubectl create deployment web --image=nginx --replicas=2` makes a ReplicaSet and two Pods
//! on the fake as on a cluster, and the textbook cascade can be shown.
//!
//! Like the reference collector they are ordinary API clients. Unlike it they are not a
//! specification: they make the fake behave as a cluster does, so that scenarios written for
//! the fake hold on a real control plane too.
//!
//! Every pass is level-based: it reads a fresh [`snapshot::Snapshot`], syncs every workload, and
//! when a write lands, starts again from a fresh one. A pass that writes nothing leaves the
//! controllers settled at the revision it read, and a watch of every listed resource from that
//! revision wakes them for the next pass.
//!
//! - [`claims`]: the controller reference manager — adopt, keep, release.
//! - [`pods`]: pods from a template, active, ready and available pods, the removal order.
//! - [`replicas`]: ReplicaSets and ReplicationControllers.
//! - [`deployments`]: Deployments, rolling and recreating.
//! - [`daemon_sets`]: DaemonSets: a pod on every Node that should run one.
//! - [`stateful_sets`]: StatefulSets: pods with a stable identity, their claims, and the
//!   claims' retention policy.
//! - [`revisions`]: the ControllerRevisions that keep a DaemonSet's or StatefulSet's template
//!   history.
//! - [`jobs`]: Jobs and their tracking finalizer.
//! - [`cronjobs`]: CronJobs: Jobs on a schedule, and their history limits.
//! - [`disruption`]: PodDisruptionBudgets: the healthy and expected pods they count.
//! - [`endpoint_pods`]: pods as endpoints of a Service.
//! - [`endpoints`]: the Endpoints of a Service with a selector.
//! - [`slicing`]: endpoints packed into EndpointSlices.
//! - [`endpoint_slices`]: the EndpointSlices of a Service with a selector.
//! - [`mirroring`]: EndpointSlices mirroring the Endpoints of a Service without one.
//! - [`service_accounts`]: the `default` ServiceAccount of every namespace.
//! - [`node_taints`]: the NoSchedule taints a Node's conditions call for.
//! - [`root_ca`]: the `kube-root-ca.crt` ConfigMap of every namespace.
//! - [`nodes`]: on a cluster with nodes, the scheduler and node agents that run pods.
//! - [`snapshot`], [`writes`], [`status`]: one pass's reads, its writes, and status patches.
//! - [`mutant`]: deliberately broken rules, for judging the specification, and the seam they
//!   pass through; [`mutations`]: what each makes of the decision of the rule it breaks.

pub mod claims;
pub mod cronjobs;
pub mod daemon_sets;
pub mod deployments;
pub mod disruption;
pub mod endpoint_pods;
pub mod endpoint_slices;
pub mod endpoints;
pub mod jobs;
pub mod mirroring;
pub mod mutant;
pub mod mutations;
pub mod node_taints;
pub mod nodes;
pub mod pods;
pub mod replicas;
pub mod revisions;
pub mod root_ca;
pub mod service_accounts;
pub mod slicing;
pub mod snapshot;
pub mod stateful_sets;
pub mod status;
pub mod writes;

use chrono::{DateTime, Utc};
use futures::StreamExt;
use futures::stream::BoxStream;
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{
    ConfigMap, Endpoints, Namespace, Node, PersistentVolumeClaim, Pod, ReplicationController, Service, ServiceAccount,
};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::Resource;
use kube::api::{Api, WatchParams};
use serde::de::DeserializeOwned;

use crate::activity::{Activity, Settling};
use crate::clock::{Clock, earliest};
use crate::controller_loop::{ControllerLoop, RESYNC, RETRY, Round, Rounds};
use crate::unreadable::Reporter;
use crate::workloads::snapshot::{LISTED, Snapshot};
use crate::workloads::writes::Writes;

/// The running workload controllers. Dropping them stops them.
#[derive(Debug)]
pub struct Workloads {
    running: ControllerLoop<Seen>,
    clock: Clock,
}

/// What the last pass that wrote nothing read, and when the controllers next act by the clock.
#[derive(Debug, Default)]
struct Seen {
    /// The revision it read.
    revision: u64,
    /// When the controllers (and the pods on nodes) next act by the clock.
    due: nodes::Due,
}

impl Workloads {
    /// Starts the controllers against `client`, writing the times they record (a Job's
    /// conditions, its start and completion) from `clock`, with the node `agents` and the
    /// scheduler if any node runs, broken by `mutant` if any (only to judge a specification).
    /// Must be called inside a Tokio runtime.
    pub fn start(client: kube::Client, clock: Clock, agents: nodes::Agents, mutant: Option<mutant::Mutant>) -> Self {
        let passes = Passes {
            reporter: Reporter::new(writes::FIELD_MANAGER),
            client,
            clock: clock.clone(),
            agents,
            mutant,
            known_services: endpoints::KnownServices::default(),
            last: (0, None),
        };
        Self { running: ControllerLoop::start("the workload controllers", passes), clock }
    }

    /// The next moment a pod on a node starts or stops a container, or ends a grace period or
    /// deadline, by itself: a moment at which to stop the clock (see
    /// [`crate::Cluster::advance`]).
    pub fn due(&self) -> Option<DateTime<Utc>> {
        self.running.settled().due.pods
    }
}

impl Settling for Workloads {
    /// What the controllers still have to do before they have seen every change to the
    /// resources they list, have nothing to write and wait for no moment that has come.
    fn pending(&self, revision_of: &dyn Fn(&str, &str) -> u64) -> Vec<String> {
        self.running.pending(|seen| {
            let mut pending = Vec::new();
            if let Some(at) = seen.due.any.filter(|at| *at <= self.clock.now()) {
                pending.push(format!("the workload controllers have to act at {at}, which has come"));
            }
            for (group, resource) in LISTED {
                let written = revision_of(group, resource);
                if written > seen.revision {
                    pending.push(format!("the workload controllers have seen {resource} up to {}, written at {written}", seen.revision));
                }
            }
            pending
        })
    }

    /// Raised when a pass that wrote nothing leaves the controllers settled at its revision.
    fn activity(&self) -> &Activity {
        self.running.activity()
    }
}

/// The controllers' passes, as the [`ControllerLoop`] runs them.
struct Passes {
    client: kube::Client,
    clock: Clock,
    agents: nodes::Agents,
    mutant: Option<mutant::Mutant>,
    /// The Services the endpoints controller saw in the last pass.
    known_services: endpoints::KnownServices,
    reporter: Reporter,
    /// The revision the last quiet pass read, and when a controller next acts by the clock.
    last: (u64, Option<DateTime<Utc>>),
}

impl Rounds for Passes {
    type Settled = Seen;

    async fn round(&mut self) -> Round<Seen> {
        match pass(&self.client, &self.clock, self.mutant, &mut self.known_services, &mut self.agents, &mut self.reporter).await {
            Ok(p) if p.writes.landed > 0 => Round::Wrote,
            Ok(p) if !p.writes.retry.is_empty() => Round::Failed(p.writes.retry.join("; ")),
            Ok(p) => {
                self.last = (p.revision, p.due);
                Round::Quiet(Seen { revision: p.revision, due: nodes::Due { any: p.due, pods: p.pod_due } })
            }
            Err(e) => Round::Failed(format!("reading the workloads: {e}")),
        }
    }

    async fn wait(&mut self) {
        let (revision, due) = self.last;
        wait_for_change(&self.client, &self.clock, revision, due).await;
    }
}

/// What one pass read, wrote, and when a controller (or a pod on a node) has next to act by
/// the clock.
struct Pass {
    revision: u64,
    writes: Writes,
    due: Option<DateTime<Utc>>,
    pod_due: Option<DateTime<Utc>>,
}

/// One pass: every controller syncs each of its objects; a kind's writes end the pass, so
/// that the next controller reads them. `mutant` breaks a rule of one controller if any.
/// `known_services` are the Services the endpoints
/// controller saw in the last pass; `agents` run the cluster's nodes, after the controllers
/// have settled. An object that cannot be read is left out, and `reporter` says so once.
async fn pass(
    client: &kube::Client,
    clock: &Clock,
    mutant: Option<mutant::Mutant>,
    known_services: &mut endpoints::KnownServices,
    agents: &mut nodes::Agents,
    reporter: &mut Reporter,
) -> kube::Result<Pass> {
    let snapshot = Snapshot::read(client).await?;
    reporter.report(client, clock.now(), &snapshot.unreadable).await;
    let mut writes = Writes::new(client.clone(), mutant);
    let mut due: Option<DateTime<Utc>> = None;
    for d in &snapshot.deployments {
        deployments::sync(&mut writes, d, &snapshot.replica_sets).await;
    }
    for cj in &snapshot.cron_jobs {
        if let Some(at) = cronjobs::sync(&mut writes, cj, &snapshot.jobs, clock.now()).await {
            due = earliest(due, Some(at));
        }
    }
    service_accounts::sync(&mut writes, &snapshot.namespaces, &snapshot.service_accounts).await;
    root_ca::sync(&mut writes, &snapshot.namespaces, &snapshot.root_ca_configmaps).await;
    node_taints::sync(&mut writes, &snapshot.nodes, clock.now()).await;
    endpoints::sync(&mut writes, known_services, &snapshot.services, &snapshot.pods, &snapshot.endpoints).await;
    endpoint_slices::sync(&mut writes, &snapshot.services, &snapshot.pods, &snapshot.endpoint_slices).await;
    mirroring::sync(&mut writes, &snapshot.services, &snapshot.endpoints, &snapshot.endpoint_slices).await;
    if writes.landed == 0 {
        for rs in &snapshot.replica_sets {
            replicas::sync(&mut writes, rs, &snapshot.pods).await;
        }
        for rc in &snapshot.replication_controllers {
            replicas::sync(&mut writes, rc, &snapshot.pods).await;
        }
        for ds in &snapshot.daemon_sets {
            daemon_sets::sync(&mut writes, ds, &snapshot.nodes, &snapshot.pods, &snapshot.controller_revisions).await;
        }
        let members = stateful_sets::Members { pods: &snapshot.pods, claims: &snapshot.claims, revisions: &snapshot.controller_revisions };
        for set in &snapshot.stateful_sets {
            stateful_sets::sync(&mut writes, set, &members).await;
        }
        for job in &snapshot.jobs {
            jobs::sync(&mut writes, job, &snapshot.pods, clock.now()).await;
        }
        jobs::release_orphans(&mut writes, &snapshot.pods, &snapshot.jobs).await;
        for pdb in &snapshot.disruption_budgets {
            if let Some(at) = disruption::sync(&mut writes, pdb, &snapshot, clock.now()).await {
                due = earliest(due, Some(at));
            }
        }
    }
    let mut pod_due = None;
    if writes.landed == 0 {
        let agents_due = agents.sync(&mut writes, &snapshot.nodes, &snapshot.pods, clock.now()).await;
        due = earliest(due, agents_due.any);
        pod_due = agents_due.pods;
    }
    Ok(Pass { revision: snapshot.revision, writes, due, pod_due })
}

/// Waits until any listed resource changes after `revision`, an error ends a watch, the clock
/// reaches `due`, or [`RESYNC`] passes.
async fn wait_for_change(client: &kube::Client, clock: &Clock, revision: u64, due: Option<DateTime<Utc>>) {
    let watches = [
        watch::<Deployment>(client, revision, "").await,
        watch::<ReplicaSet>(client, revision, "").await,
        watch::<DaemonSet>(client, revision, "").await,
        watch::<StatefulSet>(client, revision, "").await,
        watch::<ControllerRevision>(client, revision, "").await,
        watch::<ReplicationController>(client, revision, "").await,
        watch::<CronJob>(client, revision, "").await,
        watch::<Job>(client, revision, "").await,
        watch::<PodDisruptionBudget>(client, revision, "").await,
        watch::<Pod>(client, revision, "").await,
        watch::<PersistentVolumeClaim>(client, revision, "").await,
        watch::<Service>(client, revision, "").await,
        watch::<Endpoints>(client, revision, "").await,
        watch::<EndpointSlice>(client, revision, "").await,
        watch::<Namespace>(client, revision, "").await,
        watch::<ServiceAccount>(client, revision, "").await,
        watch::<Node>(client, revision, "").await,
        watch::<ConfigMap>(client, revision, &snapshot::root_ca_selection()).await,
    ];
    let Some(watches) = watches.into_iter().collect::<Option<Vec<_>>>() else {
        tokio::time::sleep(RETRY).await;
        return;
    };
    let due = async {
        match due {
            Some(at) => clock.sleep_until(at).await,
            None => futures::future::pending().await,
        }
    };
    let _ = tokio::time::timeout(RESYNC, futures::future::select(Box::pin(due), futures::stream::select_all(watches).next())).await;
}

/// Any event of a `K` whose fields match `fields` after `revision`, as a stream of nothing;
/// none if the watch cannot start.
async fn watch<K>(client: &kube::Client, revision: u64, fields: &str) -> Option<BoxStream<'static, ()>>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    let mut params = WatchParams::default().timeout(290);
    if !fields.is_empty() {
        params = params.fields(fields);
    }
    let stream = Api::<K>::all(client.clone()).watch(&params, &revision.to_string()).await.ok()?;
    Some(stream.map(|_| ()).boxed())
}
