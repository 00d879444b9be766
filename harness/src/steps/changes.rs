//! When steps: deletions with a propagation policy or raw DeleteOptions, finalizer removal,
//! and patches.

use cucumber::gherkin::Step;
use cucumber::when;
use kube::api::{DeleteParams, Patch, PatchParams, PropagationPolicy};
use serde_json::{Value, json};

use crate::world::{KubeWorld, StepResult};

async fn delete(world: &mut KubeWorld, kind: &str, name: &str, params: DeleteParams) -> StepResult {
    let (api, _, _) = world.api(kind).await?;
    match api.delete(name, &params).await {
        Ok(_) => {
            world.last_error = None;
            Ok(())
        }
        Err(kube::Error::Api(e)) => {
            world.last_error = Some(*e);
            Ok(())
        }
        Err(e) => Err(format!("cannot delete {kind} {name:?}: {e}")),
    }
}

/// `When ConfigMap "owner" is deleted` (no options: the resource's default policy).
#[when(regex = r#"^(\w+) "([^"]+)" is deleted$"#)]
async fn deleted(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    delete(world, &kind, &name, DeleteParams::default()).await
}

/// `When ConfigMap "owner" is deleted with propagation policy Foreground`.
#[when(regex = r#"^(\w+) "([^"]+)" is deleted with propagation policy (Foreground|Background|Orphan)$"#)]
async fn deleted_with_policy(world: &mut KubeWorld, kind: String, name: String, policy: String) -> StepResult {
    let policy = match policy.as_str() {
        "Foreground" => PropagationPolicy::Foreground,
        "Background" => PropagationPolicy::Background,
        _ => PropagationPolicy::Orphan,
    };
    delete(world, &kind, &name, DeleteParams { propagation_policy: Some(policy), ..DeleteParams::default() }).await
}

/// `When ConfigMap "owner" is deleted with options:` and a JSON DeleteOptions doc string, sent
/// as is (so that `orphanDependents` and invalid combinations reach the server).
#[when(regex = r#"^(\w+) "([^"]+)" is deleted with options:$"#)]
async fn deleted_with_options(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let text = step.docstring.as_ref().ok_or("the step needs a doc string with DeleteOptions")?;
    serde_json::from_str::<Value>(text).map_err(|e| format!("bad DeleteOptions: {e}"))?;
    let (api, _, _) = world.api(&kind).await?;
    let url = format!("{}/{name}", api.resource_url());
    let request =
        http::Request::delete(url).header("content-type", "application/json").body(text.as_bytes().to_vec()).map_err(|e| e.to_string())?;
    match world.client().request::<Value>(request).await {
        Ok(_) => world.last_error = None,
        Err(kube::Error::Api(e)) => world.last_error = Some(*e),
        Err(e) => return Err(format!("cannot delete {kind} {name:?}: {e}")),
    }
    Ok(())
}

/// `When the finalizer "example.com/hold" is removed from ConfigMap "owner"`.
#[when(regex = r#"^the finalizer "([^"]+)" is removed from (\w+) "([^"]+)"$"#)]
async fn remove_finalizer(world: &mut KubeWorld, finalizer: String, kind: String, name: String) -> StepResult {
    let (api, _, _) = world.api(&kind).await?;
    let current = api.get(&name).await.map_err(|e| e.to_string())?;
    let remaining: Vec<String> = current.metadata.finalizers.unwrap_or_default().into_iter().filter(|f| *f != finalizer).collect();
    let patch = json!({"metadata": {"resourceVersion": current.metadata.resource_version, "finalizers": remaining}});
    api.patch(&name, &PatchParams::default(), &Patch::Merge(patch)).await.map_err(|e| e.to_string())?;
    Ok(())
}

/// `When ConfigMap "child" is patched with a merge patch:` and a JSON doc string, in which
/// `${Kind/name}` stands for the uid of an object of the scenario.
#[when(regex = r#"^(\w+) "([^"]+)" is patched with an? (merge|strategic|JSON) patch:$"#)]
async fn patched(world: &mut KubeWorld, kind: String, name: String, patch_type: String, step: &Step) -> StepResult {
    let text = step.docstring.as_ref().ok_or("the step needs a doc string with the patch")?;
    let body: Value = serde_json::from_str(&crate::steps::objects::resolve_uids(world, text)?).map_err(|e| format!("bad patch: {e}"))?;
    let (api, _, _) = world.api(&kind).await?;
    let result = match patch_type.as_str() {
        "merge" => api.patch(&name, &PatchParams::default(), &Patch::Merge(body)).await,
        "strategic" => api.patch(&name, &PatchParams::default(), &Patch::Strategic(body)).await,
        _ => {
            let p: json_patch::Patch = serde_json::from_value(body).map_err(|e| e.to_string())?;
            api.patch(&name, &PatchParams::default(), &Patch::<()>::Json(p)).await
        }
    };
    match result {
        Ok(_) => world.last_error = None,
        Err(kube::Error::Api(e)) => world.last_error = Some(*e),
        Err(e) => return Err(e.to_string()),
    }
    Ok(())
}
