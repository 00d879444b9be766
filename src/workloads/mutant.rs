//! Deliberately broken workload controllers, for judging a specification: each mutant breaks
//! one rule of what a controller deletes or keeps, and a specification worth its name has a
//! scenario that fails against it. Never set one outside such a check.
//!
//! The rules know nothing of mutants: each computes a decision as a value, and the controller
//! passes it through [`crate::workloads::writes::Writes::decided`] before acting on it, the one
//! place a mutant reaches it. This module names the mutants and imports nothing of the
//! controllers; what each mutant makes of each decision is in [`crate::workloads::mutations`].

crate::mutants::define_mutants! {
    "the workload controllers";
    /// A CronJob keeps one finished Job more than its history limit (upstream
    /// `removeOldestJobs` off by one).
    CronJobKeepsOneMore = "cronjob-keeps-one-more",
    /// A CronJob keeps every failed Job, whatever its `failedJobsHistoryLimit` (upstream
    /// `cleanupFinishedJobs` without its failed half).
    CronJobFailedLimitIgnored = "cronjob-failed-limit-ignored",
    /// A Deployment keeps one old ReplicaSet more than its `revisionHistoryLimit` (upstream
    /// `cleanupDeployment` off by one).
    DeploymentKeepsOneMore = "deployment-keeps-one-more",
    /// A Deployment never deletes an old ReplicaSet (upstream `cleanupDeployment` dropped).
    DeploymentHistoryNeverDeleted = "deployment-history-never-deleted",
    /// Daemon pods get none of the tolerations every daemon pod gets (upstream
    /// `AddOrUpdateDaemonPodTolerations` dropped).
    DaemonSetNoDaemonTolerations = "daemonset-no-daemon-tolerations",
    /// A daemon pod on a Node with a NoSchedule taint it does not tolerate is deleted (upstream
    /// `nodeShouldRunDaemonPod`'s second answer ignored).
    DaemonSetNoScheduleEvicts = "daemonset-noschedule-evicts",
    /// A StatefulSet's `whenDeleted: Delete` is ignored: the set never becomes its claims'
    /// controller (upstream `updateClaimOwnerRefForSetAndPod` broken).
    StatefulSetWhenDeletedIgnored = "statefulset-when-deleted-ignored",
    /// A StatefulSet's `whenScaled: Delete` is ignored: a pod removed by scaling down never
    /// becomes its claims' controller (upstream `updateClaimOwnerRefForSetAndPod` broken).
    StatefulSetWhenScaledIgnored = "statefulset-when-scaled-ignored",
}

/// A decision of a workload controller that a mutant may change.
pub use crate::mutants::Mutable;
