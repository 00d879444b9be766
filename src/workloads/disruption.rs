//! The disruption controller (upstream `pkg/controller/disruption/disruption.go`): for each
//! PodDisruptionBudget it counts the pods its selector matches in its namespace, how many of
//! them must stay healthy and how many are expected, and writes that to the status with the
//! generation it saw (`observedGeneration`) and the `DisruptionAllowed` condition
//! (`k8s.io/component-helpers/apps/poddisruptionbudget`). The budget's denominator for a
//! percentage (or for `maxUnavailable`) is the scale of the pods' controllers: a ReplicaSet (or
//! the Deployment controlling it), a ReplicationController or a StatefulSet; a pod whose
//! controller is none of them fails the sync, and the fail-safe status allows no disruption.
//!
//! Not done here: the events upstream records (`NoPods`, `UnmanagedPods`), custom controllers'
//! `scale` subresource, and clearing stale `DisruptionTarget` pod conditions.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetStatus};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::api::Api;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use crate::clock::{format_time, parse_time};
use crate::workloads::claims::{ChildSelector, controller_of};
use crate::workloads::deployments::scaled;
use crate::workloads::pods::is_ready;
use crate::workloads::snapshot::Snapshot;
use crate::workloads::writes::Writes;

/// How long a pod an eviction admitted stays counted as disrupted before it is expected to be
/// gone (upstream `DeletionTimeout`).
const DELETION_TIMEOUT: Duration = Duration::minutes(2);

/// The condition the controller keeps on every budget.
const CONDITION: &str = "DisruptionAllowed";

/// Syncs `pdb` against the pods and controllers of `snapshot` at `now`; returns when a disrupted
/// pod's entry runs out and the budget must be looked at again.
pub async fn sync(writes: &mut Writes, pdb: &PodDisruptionBudget, snapshot: &Snapshot, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let namespace = pdb.namespace().unwrap_or_default();
    let selector = ChildSelector::of(pdb.spec.as_ref().and_then(|s| s.selector.as_ref()));
    let pods: Vec<&Pod> =
        snapshot.pods.iter().filter(|p| p.namespace().as_deref() == Some(&namespace) && selector.matches(p.meta())).collect();
    let written = serde_json::to_value(&pdb.status).unwrap_or_default();
    let generation = pdb.meta().generation.unwrap_or(0);
    let (status, recheck) = match expected_pod_count(writes, pdb, &pods, snapshot).await {
        Ok((expected, desired)) => {
            let (disrupted, recheck) = disrupted_pods(&written["disruptedPods"], &pods, now);
            let healthy = pods.iter().filter(|p| p.metadata.deletion_timestamp.is_none() && !disrupted.contains_key(&p.name_any()));
            let healthy = healthy.filter(|p| is_ready(p)).count() as i32;
            (budget_status(&written, Counts { healthy, desired, expected }, disrupted, generation, now), recheck)
        }
        Err(why) => (fail_safe(&written, &why, now), None),
    };
    // Compared typed, as upstream compares, so that how a time is spelled changes nothing.
    match serde_json::from_value::<PodDisruptionBudgetStatus>(status) {
        Ok(status) if pdb.status.as_ref() != Some(&status) => {
            let mut updated = pdb.clone();
            updated.status = Some(status);
            writes.replace_status(&updated).await;
        }
        Ok(_) => {}
        Err(e) => tracing::debug!("disruption controller: cannot type the status of {namespace}/{}: {e}", pdb.name_any()),
    }
    recheck
}

/// What a budget's status counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counts {
    /// Ready pods neither being deleted nor recently disrupted.
    healthy: i32,
    /// How many must stay healthy.
    desired: i32,
    /// How many pods there should be.
    expected: i32,
}

/// The expected and desired healthy counts (upstream `getExpectedPodCount`).
async fn expected_pod_count(writes: &Writes, pdb: &PodDisruptionBudget, pods: &[&Pod], snapshot: &Snapshot) -> Result<(i32, i32), String> {
    let spec = pdb.spec.as_ref();
    if let Some(max_unavailable) = spec.and_then(|s| s.max_unavailable.as_ref()) {
        let expected = expected_scale(writes, pods, snapshot).await?;
        return Ok((expected, (expected - scaled(max_unavailable, expected, true)).max(0)));
    }
    match spec.and_then(|s| s.min_available.as_ref()) {
        Some(IntOrString::Int(n)) => Ok((pods.len() as i32, *n)),
        Some(percent) => {
            let expected = expected_scale(writes, pods, snapshot).await?;
            Ok((expected, scaled(percent, expected, true)))
        }
        None => Ok((0, 0)),
    }
}

/// The sum of the scales of the pods' controllers, each counted once; pods without a
/// controller are left out (upstream `getExpectedScale`).
async fn expected_scale(writes: &Writes, pods: &[&Pod], snapshot: &Snapshot) -> Result<i32, String> {
    let mut scales: BTreeMap<String, i32> = BTreeMap::new();
    for pod in pods {
        let Some(reference) = controller_of(&pod.metadata) else { continue };
        if scales.contains_key(&reference.uid) {
            continue;
        }
        let namespace = pod.namespace().unwrap_or_default();
        let found = match (reference.api_version.as_str(), reference.kind.as_str()) {
            ("apps/v1", "ReplicaSet") => replica_set_scale(snapshot, &reference.uid),
            ("v1", "ReplicationController") => snapshot
                .replication_controllers
                .iter()
                .find(|rc| rc.uid().as_deref() == Some(&reference.uid))
                .map(|rc| (reference.uid.clone(), rc.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1))),
            ("apps/v1", "StatefulSet") => {
                let sets: Api<StatefulSet> = Api::namespaced(writes.client().clone(), &namespace);
                let set = sets.get_opt(&reference.name).await.map_err(|e| e.to_string())?;
                set.filter(|s| s.uid().as_deref() == Some(&reference.uid)).map(|s| (reference.uid.clone(), s.spec.replicas.unwrap_or(1)))
            }
            _ => None,
        };
        let (uid, scale) = found.ok_or_else(|| format!("found no controllers for pod {:?}", pod.name_any()))?;
        scales.insert(uid, scale);
    }
    Ok(scales.values().sum())
}

/// The scale behind a ReplicaSet: its Deployment's when a Deployment controls it, else its own.
fn replica_set_scale(snapshot: &Snapshot, uid: &str) -> Option<(String, i32)> {
    let rs = snapshot.replica_sets.iter().find(|rs| rs.uid().as_deref() == Some(uid))?;
    let deployment = controller_of(&rs.metadata)
        .filter(|r| r.api_version == "apps/v1" && r.kind == "Deployment")
        .and_then(|r| snapshot.deployments.iter().find(|d| d.uid().as_deref() == Some(&r.uid)));
    match deployment {
        Some(d) => Some((d.uid().unwrap_or_default(), d.spec.replicas.unwrap_or(1))),
        None => Some((uid.to_string(), rs.spec.replicas.unwrap_or(1))),
    }
}

/// The entries of `written` (`status.disruptedPods`) still to count: pods that exist, are not
/// being deleted and were disrupted less than [`DELETION_TIMEOUT`] ago; and the earliest moment
/// one of them runs out (upstream `buildDisruptedPodMap`).
fn disrupted_pods(written: &Value, pods: &[&Pod], now: DateTime<Utc>) -> (BTreeMap<String, Value>, Option<DateTime<Utc>>) {
    let mut kept = BTreeMap::new();
    let mut recheck: Option<DateTime<Utc>> = None;
    for pod in pods.iter().filter(|p| p.metadata.deletion_timestamp.is_none()) {
        let name = pod.name_any();
        let Some(at) = written[&name].as_str().and_then(parse_time) else { continue };
        let expected_deletion = at + DELETION_TIMEOUT;
        if expected_deletion >= now {
            recheck = Some(recheck.map_or(expected_deletion, |r| r.min(expected_deletion)));
            kept.insert(name.clone(), written[&name].clone());
        }
    }
    (kept, recheck)
}

/// The status the controller writes (upstream `updatePdbStatus`): the counts, the disruptions
/// allowed (none while no pod is expected), the generation seen and the condition, whose
/// transition time `written` keeps while its status stays.
fn budget_status(written: &Value, counts: Counts, disrupted: BTreeMap<String, Value>, generation: i64, now: DateTime<Utc>) -> Value {
    let allowed = if counts.expected <= 0 { 0 } else { (counts.healthy - counts.desired).max(0) };
    let mut status = json!({
        "disruptionsAllowed": allowed,
        "currentHealthy": counts.healthy,
        "desiredHealthy": counts.desired,
        "expectedPods": counts.expected,
    });
    if !disrupted.is_empty() {
        status["disruptedPods"] = json!(disrupted);
    }
    if generation != 0 {
        status["observedGeneration"] = json!(generation);
    }
    let (state, reason) = if allowed > 0 { ("True", "SufficientPods") } else { ("False", "InsufficientPods") };
    status["conditions"] = set_condition(&written["conditions"], state, reason, "", generation, now);
    status
}

/// The status after a failed sync (upstream `failSafe`): no disruption allowed, and the
/// condition says why.
fn fail_safe(written: &Value, why: &str, now: DateTime<Utc>) -> Value {
    let mut status = if written.is_object() { written.clone() } else { json!({}) };
    status["disruptionsAllowed"] = json!(0);
    let observed = written["observedGeneration"].as_i64().unwrap_or(0);
    status["conditions"] = set_condition(&written["conditions"], "False", "SyncFailed", why, observed, now);
    status
}

/// `conditions` with the [`CONDITION`] set as apimachinery's `SetStatusCondition` sets it: its
/// transition time moves only when its status changes.
fn set_condition(conditions: &Value, state: &str, reason: &str, message: &str, generation: i64, now: DateTime<Utc>) -> Value {
    let mut list = conditions.as_array().cloned().unwrap_or_default();
    let mut condition = json!({"type": CONDITION, "status": state, "reason": reason, "message": message,
        "lastTransitionTime": format_time(now)});
    if generation != 0 {
        condition["observedGeneration"] = json!(generation);
    }
    match list.iter_mut().find(|c| c["type"] == CONDITION) {
        Some(existing) => {
            if existing["status"] == state {
                condition["lastTransitionTime"] = existing["lastTransitionTime"].clone();
            }
            *existing = condition;
        }
        None => list.push(condition),
    }
    Value::Array(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        parse_time("2026-01-01T00:10:00Z").unwrap()
    }

    #[test]
    fn a_budget_without_pods_is_observed_and_allows_no_disruption() {
        let status = budget_status(&json!({}), Counts { healthy: 0, desired: 2, expected: 0 }, BTreeMap::new(), 1, now());
        assert_eq!(status["observedGeneration"], 1);
        assert_eq!((status["disruptionsAllowed"].clone(), status["desiredHealthy"].clone()), (json!(0), json!(2)));
        assert_eq!(
            status["conditions"],
            json!([{"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods", "message": "",
                "observedGeneration": 1, "lastTransitionTime": "2026-01-01T00:10:00Z"}])
        );
        let later = now() + Duration::minutes(1);
        let again = budget_status(&status, Counts { healthy: 0, desired: 2, expected: 0 }, BTreeMap::new(), 1, later);
        assert_eq!(again, status, "an up-to-date status comes out as written");
    }

    #[test]
    fn healthy_pods_beyond_the_desired_ones_may_be_disrupted() {
        let written = json!({"conditions": [{"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods",
            "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]});
        let status = budget_status(&written, Counts { healthy: 3, desired: 1, expected: 3 }, BTreeMap::new(), 2, now());
        assert_eq!(status["disruptionsAllowed"], 2);
        assert_eq!(status["conditions"][0]["reason"], "SufficientPods");
        assert_eq!(status["conditions"][0]["lastTransitionTime"], "2026-01-01T00:10:00Z", "the status changed");
    }

    #[test]
    fn a_disrupted_pod_counts_until_its_deletion_is_overdue() {
        let pod =
            |name: &str| Pod { metadata: kube::api::ObjectMeta { name: Some(name.into()), ..Default::default() }, ..Default::default() };
        let (recent, old) = (pod("recent"), pod("old"));
        let written = json!({"recent": "2026-01-01T00:09:00Z", "old": "2026-01-01T00:07:00Z", "gone": "2026-01-01T00:09:00Z"});
        let (kept, recheck) = disrupted_pods(&written, &[&recent, &old], now());
        assert_eq!(kept.keys().collect::<Vec<_>>(), ["recent"]);
        assert_eq!(recheck, parse_time("2026-01-01T00:11:00Z"));
    }

    #[test]
    fn a_failed_sync_allows_no_disruption_and_says_why() {
        let written = json!({"disruptionsAllowed": 1, "observedGeneration": 1});
        let status = fail_safe(&written, "found no controllers for pod \"p\"", now());
        assert_eq!(status["disruptionsAllowed"], 0);
        assert_eq!(status["conditions"][0]["reason"], "SyncFailed");
        assert_eq!(status["conditions"][0]["message"], "found no controllers for pod \"p\"");
    }
}
