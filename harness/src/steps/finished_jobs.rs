//! Steps for Jobs that finish, for the TTL-after-finished controller: a Job of one pod with a
//! TTL (or none), its pod made to succeed or fail through the status subresource as a kubelet
//! would report it (no kubelet is needed: the job controller counts the pod and finishes the
//! Job), and the Job's finish.

use cucumber::{given, then, when};
use kube::ResourceExt;
use kube::api::{ListParams, Patch, PatchParams};
use kube::core::DynamicObject;
use serde_json::json;

use super::support::create_body;
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// `Given a Job named "pi" with a TTL of 10 seconds after it finishes` (or `with no TTL after
/// it finishes`; optionally ` whose pod has finalizer "f"`): one pod, no retries
/// (`backoffLimit` 0), so that one pod's end ends the Job.
#[given(
    regex = r#"^a Job named "([^"]+)" with (?:no TTL|a TTL of ((?-u:\d)+) seconds?) after it finishes(?: whose pod has finalizer "([^"]+)")?$"#
)]
async fn job_with_ttl(world: &mut KubeWorld, name: String, ttl: String, finalizer: String) -> StepResult {
    let mut template = json!({
        "metadata": {"labels": {"kubegc.io/workload": name}},
        "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]},
    });
    if !finalizer.is_empty() {
        template["metadata"]["finalizers"] = json!([finalizer]);
    }
    let mut spec = json!({"completions": 1, "parallelism": 1, "backoffLimit": 0, "template": template});
    if !ttl.is_empty() {
        spec["ttlSecondsAfterFinished"] = json!(ttl.parse::<i64>().map_err(|e| format!("{ttl}: {e}"))?);
    }
    let body = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec});
    create_body(world, "Job", &name, body, false).await.map_err(|e| format!("cannot create Job {name:?}: {e}"))
}

/// `When the pod of Job "pi" succeeds` (or `fails`): once the job controller has made the pod,
/// its phase is set through the status subresource.
#[given(regex = r#"^the pod of Job "([^"]+)" (succeeds|fails)$"#)]
#[when(regex = r#"^the pod of Job "([^"]+)" (succeeds|fails)$"#)]
async fn pod_ends(world: &mut KubeWorld, job: String, outcome: String) -> StepResult {
    let pod = pod_of(world, &job).await?;
    let phase = if outcome == "succeeds" { "Succeeded" } else { "Failed" };
    let (api, _, _) = world.api("Pod").await?;
    world.settled = false;
    api.patch_status(&pod, &PatchParams::default(), &Patch::Merge(&json!({"status": {"phase": phase}})))
        .await
        .map_err(|e| format!("cannot set the phase of Pod {pod:?}: {e}"))?;
    Ok(())
}

/// `When the finalizer "f" is removed from the pod of Job "pi"`.
#[when(regex = r#"^the finalizer "([^"]+)" is removed from the pod of Job "([^"]+)"$"#)]
async fn finalizer_removed(world: &mut KubeWorld, finalizer: String, job: String) -> StepResult {
    let pod = pod_of(world, &job).await?;
    let (api, _, _) = world.api("Pod").await?;
    let current = api.get(&pod).await.map_err(|e| format!("cannot read Pod {pod:?}: {e}"))?;
    let kept: Vec<String> = current.finalizers().iter().filter(|f| **f != finalizer).cloned().collect();
    let patch = json!({"metadata": {"finalizers": kept, "resourceVersion": current.resource_version()}});
    world.settled = false;
    api.patch(&pod, &PatchParams::default(), &Patch::Merge(&patch)).await.map_err(|e| format!("cannot update Pod {pod:?}: {e}"))?;
    Ok(())
}

/// `Then Job "pi" has finished with the condition Complete` (or `Failed`): eventually, the
/// condition with status `True`, as the job controller writes it.
#[then(regex = r#"^Job "([^"]+)" has finished with the condition (Complete|Failed)$"#)]
#[given(regex = r#"^Job "([^"]+)" has finished with the condition (Complete|Failed)$"#)]
async fn finished_with(world: &mut KubeWorld, job: String, condition: String) -> StepResult {
    let api = world.object_api("Job", &job).await?;
    world
        .poll(&format!("Job {job:?} to have the condition {condition}"), || {
            let (api, job, condition) = (api.clone(), job.clone(), condition.clone());
            async move {
                let found = api.get_opt(&job).await.map_err(|e| e.to_string())?;
                let conditions = found.map(|j| j.data["status"]["conditions"].clone()).unwrap_or_default();
                let conditions = conditions.as_array().cloned().unwrap_or_default();
                Ok(conditions.iter().any(|c| c["type"] == condition.as_str() && c["status"] == "True"))
            }
        })
        .await
}

/// The name of the pod Job `job` controls, waiting until the job controller has made it.
async fn pod_of(world: &mut KubeWorld, job: &str) -> Result<String, String> {
    let uid = world.created("Job", job)?.uid.clone();
    let (api, _, _) = world.api("Pod").await?;
    let list = |api: kube::Api<DynamicObject>, uid: String| async move {
        let pods = api.list(&ListParams::default()).await.map_err(|e| e.to_string())?;
        Ok::<_, String>(controlled_by(&pods.items, &uid))
    };
    world
        .poll(&format!("Job {job:?} to have a pod"), || {
            let found = list(api.clone(), uid.clone());
            async move { Ok(found.await?.is_some()) }
        })
        .await?;
    list(api, uid).await?.ok_or_else(|| format!("Job {job:?} has no pod"))
}

/// The name of the first of `pods` whose controller is `uid`.
fn controlled_by(pods: &[DynamicObject], uid: &str) -> Option<String> {
    pods.iter().find(|p| p.owner_references().iter().any(|r| r.uid == uid && r.controller == Some(true))).map(|p| p.name_any())
}
