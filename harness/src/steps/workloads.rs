//! Steps on what the workload controllers build: a Deployment, ReplicaSet, ReplicationController,
//! Job, CronJob or StatefulSet whose children the controllers make (their names mostly
//! generated, so the steps find them through their controller references), a Deployment's new
//! template, a workload scaled, and what is left of the tree afterwards.

use cucumber::{given, then, when};
use k8s_openapi::api::apps::v1::Deployment;
use kube::ResourceExt;
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube::core::DynamicObject;
use serde_json::{Value, json};

use super::support::{create_body, unscheduled_without_nodes};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// `Given a Deployment named "web" with 2 replicas` (or a ReplicaSet or ReplicationController;
/// `a Job named "pi" with 2 pods` runs two pods at once until two succeed): the controllers make
/// the rest. The pods' template is one every cluster accepts.
#[given(regex = r#"^an? (Deployment|ReplicaSet|ReplicationController|Job) named "([^"]+)" with ((?-u:\d)+) (?:replicas?|pods?)$"#)]
async fn workload(world: &mut KubeWorld, kind: String, name: String, count: i64) -> StepResult {
    let body = workload_body(&kind, &name, count);
    create_body(world, &kind, &name, body, false).await.map_err(|e| format!("cannot create {kind} {name:?}: {e}"))
}

/// `Given a Deployment named "web" with 1 replica that keeps 1 old ReplicaSet`: as `a
/// Deployment named "web" with 1 replica`, with that revision history limit.
#[given(regex = r#"^a Deployment named "([^"]+)" with ((?-u:\d)+) replicas? that keeps ((?-u:\d)+) old ReplicaSets?$"#)]
async fn deployment_with_history(world: &mut KubeWorld, name: String, count: i64, kept: i64) -> StepResult {
    let mut body = workload_body("Deployment", &name, count);
    body["spec"]["revisionHistoryLimit"] = json!(kept);
    create_body(world, "Deployment", &name, body, false).await.map_err(|e| format!("cannot create Deployment {name:?}: {e}"))
}

/// `When Deployment "web" rolls out a new template`: its pod template changes (an annotation
/// counting the rollouts), which its controller rolls out as a new ReplicaSet.
#[when(regex = r#"^Deployment "([^"]+)" rolls out a new template$"#)]
async fn roll_out(world: &mut KubeWorld, name: String) -> StepResult {
    let namespace = world.namespace().await?;
    let api: Api<Deployment> = Api::namespaced(world.client(), &namespace);
    let stored = api.get(&name).await.map_err(|e| format!("cannot read Deployment {name:?}: {e}"))?;
    let annotations = stored.spec.template.metadata.and_then(|m| m.annotations).unwrap_or_default();
    let count = annotations.get(ROLLOUT).and_then(|c| c.parse::<u64>().ok()).unwrap_or(0) + 1;
    let patch = json!({"spec": {"template": {"metadata": {"annotations": {ROLLOUT: count.to_string()}}}}});
    world.settled = false;
    api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| format!("cannot change Deployment {name:?}: {e}"))?;
    Ok(())
}

/// The pod template annotation [`roll_out`] counts rollouts in.
const ROLLOUT: &str = "kubegc.io/rollout";

/// `Given a CronJob named "tick" that runs "true" every minute` (optionally `, keeping 2
/// successful and 0 failed Jobs`; else the API server's defaults, 3 and 1): on schedule
/// `*/1 * * * *`, each Job one pod that runs the command once (restartPolicy Never, no retry).
#[given(
    regex = r#"^a CronJob named "([^"]+)" that runs "([^"]+)" every minute(?:, keeping ((?-u:\d)+) successful and ((?-u:\d)+) failed Jobs)?$"#
)]
async fn cron_job(world: &mut KubeWorld, name: String, command: String, successful: String, failed: String) -> StepResult {
    let command: Vec<&str> = command.split_whitespace().collect();
    let template = json!({"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10", "command": command}]}});
    let mut spec = json!({"schedule": "*/1 * * * *", "jobTemplate": {"spec": {"backoffLimit": 0, "template": template}}});
    for (field, limit) in [("successfulJobsHistoryLimit", &successful), ("failedJobsHistoryLimit", &failed)] {
        if !limit.is_empty() {
            spec[field] = json!(limit.parse::<i64>().map_err(|e| format!("{limit}: {e}"))?);
        }
    }
    let body = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name}, "spec": spec});
    create_body(world, "CronJob", &name, body, false).await.map_err(|e| format!("cannot create CronJob {name:?}: {e}"))
}

/// `Given a StatefulSet named "web" with 3 replicas` (pods started one by one, in ordinal
/// order); `started in parallel` for the Parallel pod management policy; `, each with a claim
/// "data"` for a volume claim template, its claims retained unless `deleted when the set is
/// deleted`, `deleted when the set scales down`, or `deleted when the set is deleted or scales
/// down` (the claim retention policy). The set's service name is its own name.
#[given(
    regex = r#"^a StatefulSet named "([^"]+)" with ((?-u:\d)+) replicas?( started in parallel)?(?:, each with a claim "([^"]+)"(?: deleted when the set (is deleted|scales down|is deleted or scales down))?)?$"#
)]
async fn stateful_set(world: &mut KubeWorld, name: String, count: i64, parallel: String, claim: String, deleted: String) -> StepResult {
    let mut body = workload_body("StatefulSet", &name, count);
    body["spec"]["serviceName"] = json!(name);
    // Else on a cluster with nodes the ordered set would not wait at its first pod.
    unscheduled_without_nodes(world, &mut body["spec"]["template"]["spec"]);
    if !parallel.is_empty() {
        body["spec"]["podManagementPolicy"] = json!("Parallel");
    }
    if !claim.is_empty() {
        body["spec"]["volumeClaimTemplates"] = json!([{"metadata": {"name": claim},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}}}}]);
        body["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = json!([{"name": claim, "mountPath": "/data"}]);
        let policy = |on: bool| if on { "Delete" } else { "Retain" };
        body["spec"]["persistentVolumeClaimRetentionPolicy"] = json!({
            "whenDeleted": policy(deleted.starts_with("is deleted")),
            "whenScaled": policy(deleted.ends_with("scales down")),
        });
    }
    create_body(world, "StatefulSet", &name, body, false).await.map_err(|e| format!("cannot create StatefulSet {name:?}: {e}"))
}

/// `When StatefulSet "web" is scaled to 1 replica` (or a Deployment, ReplicaSet or
/// ReplicationController), through its `scale` subresource as `kubectl scale` does.
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is scaled to ((?-u:\d)+) replicas?$"#)]
async fn scale(world: &mut KubeWorld, kind: String, name: String, count: i64) -> StepResult {
    let (api, _, _) = world.api(&kind).await?;
    world.settled = false;
    let patch = json!({"spec": {"replicas": count}});
    api.patch_scale(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| format!("cannot scale {kind} {name:?}: {e}"))?;
    Ok(())
}

/// A manifest of a workload of `kind` named `name` with `count` replicas (a Job: `count` pods
/// at once until `count` succeed), its pods' template one every cluster accepts.
fn workload_body(kind: &str, name: &str, count: i64) -> Value {
    let labels = json!({"kubegc.io/workload": name});
    let template = json!({"metadata": {"labels": labels}, "spec": {"terminationGracePeriodSeconds": 0,
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}});
    let spec = match kind {
        "Job" => {
            let mut template = template;
            template["spec"]["restartPolicy"] = json!("Never");
            json!({"parallelism": count, "completions": count, "template": template})
        }
        "ReplicationController" => json!({"replicas": count, "selector": labels, "template": template}),
        _ => json!({"replicas": count, "selector": {"matchLabels": labels}, "template": template}),
    };
    let api_version = match kind {
        "Job" => "batch/v1",
        "ReplicationController" => "v1",
        _ => "apps/v1",
    };
    json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "spec": spec})
}

/// The objects of `kind` in the scenario namespace.
async fn listed(world: &mut KubeWorld, kind: &str) -> Result<Vec<DynamicObject>, String> {
    let (api, _, _) = world.api(kind).await?;
    Ok(api.list(&ListParams::default()).await.map_err(|e| format!("cannot list {kind}s: {e}"))?.items)
}

/// The objects of `kind` whose controller reference, with `blockOwnerDeletion`, names `owner_uid`.
fn controlled<'a>(objects: &'a [DynamicObject], owner_uid: &str) -> Vec<&'a DynamicObject> {
    objects
        .iter()
        .filter(|o| {
            o.owner_references().iter().any(|r| r.uid == owner_uid && r.controller == Some(true) && r.block_owner_deletion == Some(true))
        })
        .collect()
}

/// `Then Deployment "web" controls 1 ReplicaSet, which controls 2 Pods` (or `Then Job "pi"
/// controls 2 Pods`): eventually, through controller references with `blockOwnerDeletion`, as
/// the controllers set them.
#[given(regex = r#"^((?-u:\w)+) "([^"]+)" controls ((?-u:\d)+) ((?-u:\w)+?)s?(?:, which controls ((?-u:\d)+) ((?-u:\w)+?)s?)?$"#)]
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" controls ((?-u:\d)+) ((?-u:\w)+?)s?(?:, which controls ((?-u:\d)+) ((?-u:\w)+?)s?)?$"#)]
async fn controls(
    world: &mut KubeWorld,
    kind: String,
    name: String,
    count: usize,
    child: String,
    grandchildren: String,
    grandchild: String,
) -> StepResult {
    let uid = world.uid_of(&kind, &name)?;
    let want = if grandchild.is_empty() { None } else { Some((grandchildren.parse::<usize>().unwrap_or(0), grandchild)) };
    let what = format!("{kind} {name:?} to control {count} {child}(s), each controlling {want:?}");
    let deadline = tokio::time::Instant::now() + world.backend().eventually_timeout();
    loop {
        let children = listed(world, &child).await?;
        let mine: Vec<String> = controlled(&children, &uid).iter().filter_map(|c| c.uid()).collect();
        let mut holds = mine.len() == count;
        if let Some((n, kind)) = &want {
            let below = listed(world, kind).await?;
            holds = holds && mine.iter().all(|c| controlled(&below, c).len() == *n);
        }
        if holds {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            return Err(format!("timed out waiting for {what}: it controls {}", mine.len()));
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// `Then no ReplicaSets or Pods are left` in the scenario namespace, once the collector and
/// the controllers have settled.
#[then(regex = r#"^no ((?-u:\w)+?)s(?: or ((?-u:\w)+?)s)? (?:are|is) left$"#)]
async fn none_left(world: &mut KubeWorld, kind: String, other: String) -> StepResult {
    world.backend().settle().await?;
    for kind in [kind, other].iter().filter(|k| !k.is_empty()) {
        let left: Vec<String> = listed(world, kind).await?.iter().map(|o| o.name_any()).collect();
        if !left.is_empty() {
            return Err(format!("{kind}s left: {left:?}"));
        }
    }
    Ok(())
}

/// `Then the Pods are "web-0, web-1"`: once the collector and the controllers have settled,
/// the scenario namespace holds exactly the objects of that kind so named (`""` for none).
#[given(regex = r#"^the ((?-u:\w)+?)s are "([^"]*)"$"#)]
#[then(regex = r#"^the ((?-u:\w)+?)s are "([^"]*)"$"#)]
async fn exactly(world: &mut KubeWorld, kind: String, names: String) -> StepResult {
    world.backend().settle().await?;
    let objects = listed(world, &kind).await?;
    let mut have: Vec<String> = objects.iter().map(|o| o.name_any()).collect();
    let mut want = super::support::list(&names);
    have.sort();
    want.sort();
    if have == want {
        return Ok(());
    }
    let described: Vec<String> = objects
        .iter()
        .map(|o| {
            let owners: Vec<&str> = o.owner_references().iter().map(|r| r.name.as_str()).collect();
            let deleting = if o.metadata.deletion_timestamp.is_some() { ", being deleted" } else { "" };
            format!("{} (owners {owners:?}, finalizers {:?}{deleting})", o.name_any(), o.finalizers())
        })
        .collect();
    Err(format!("the {kind}s are {have:?}, expected {want:?}: {}", described.join("; ")))
}

/// `Then 1 ReplicaSet is left, with no owner references, controlling 2 Pods` (` each` when
/// several are left): what an orphaning delete of a Deployment leaves, once the collector and the controllers have settled.
#[then(
    regex = r#"^((?-u:\d)+) ((?-u:\w)+?)s? (?:is|are) left, with no owner references, controlling ((?-u:\d)+) ((?-u:\w)+?)s?(?: each)?$"#
)]
async fn orphans_left(world: &mut KubeWorld, count: usize, kind: String, children: usize, child: String) -> StepResult {
    world.backend().settle().await?;
    let left = listed(world, &kind).await?;
    let below = listed(world, &child).await?;
    let described: Vec<String> = left
        .iter()
        .map(|o| format!("{} owned by {:?}", o.name_any(), o.owner_references().iter().map(|r| &r.name).collect::<Vec<_>>()))
        .collect();
    let holds = left.len() == count
        && left.iter().all(|o| o.owner_references().is_empty() && controlled(&below, &o.uid().unwrap_or_default()).len() == children);
    if holds { Ok(()) } else { Err(format!("left: {described:?}, with {} {child}(s) in all", below.len())) }
}
