//! Steps that make, read, list and patch objects and check their fields: from a fixture
//! or a doc string, by kind and name (in the scenario namespace, in another, or cluster-scoped),
//! with finalizers, several from a table; creations whose refusal the scenario checks.

use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use kube::api::{Patch, PatchParams};
use serde_json::Value;

use super::support::{
    at, collection_url, create, create_body, create_in, explained, list, manifest_with, read_until, record, send, show, try_create,
};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// `Given the objects in "../fixtures/deployment-chain.yaml"`: every document of the file (a
/// path relative to the feature file's directory), in order, in the scenario namespace;
/// `${Kind/name}` stands for the uid of an earlier object.
#[given(regex = r#"^the objects in "([^"]+)"$"#)]
async fn from_fixture(world: &mut KubeWorld, path: String) -> StepResult {
    let file = world.feature_dir.clone().unwrap_or_default().join(&path);
    let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    create_documents(world, &path, &text).await
}

/// `Given the objects:` with a YAML doc string: every document of it, in order, in the
/// scenario namespace, as [`from_fixture`] creates a file's.
#[given(regex = r"^the objects:$")]
async fn from_doc_string(world: &mut KubeWorld, step: &Step) -> StepResult {
    let text = step.docstring.clone().ok_or("the step needs a YAML doc string")?;
    create_documents(world, "the doc string", &text).await
}

/// Creates every YAML document of `text` (from `origin`), in order; `${Kind/name}` stands for
/// the uid of an earlier object.
async fn create_documents(world: &mut KubeWorld, origin: &str, text: &str) -> StepResult {
    let documents: Vec<Value> = serde_saphyr::from_multiple(text).map_err(|e| format!("{origin}: {}", e.without_snippet()))?;
    for value in documents {
        let value: Value = serde_json::from_str(&world.resolve_uids(&value.to_string())?).map_err(|e| e.to_string())?;
        let kind = value["kind"].as_str().ok_or(format!("{origin}: a document has no kind"))?.to_string();
        let name = value["metadata"]["name"].as_str().ok_or(format!("{origin}: a {kind} has no name"))?.to_string();
        create_body(world, &kind, &name, value, false).await.map_err(|e| format!("cannot create {kind} {name:?}: {e}"))?;
    }
    Ok(())
}

/// `Given a ConfigMap named "parent" in another namespace`.
#[given(regex = r#"^an? ((?-u:\w)+) named "([^"]+)" in another namespace$"#)]
async fn in_other_namespace(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    create_in(world, &kind, &name, vec![], vec![], true).await
}

/// `Given a ConfigMap named "owner"`.
#[given(regex = r#"^an? ((?-u:\w)+) named "([^"]+)"$"#)]
async fn plain(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    create(world, &kind, &name, vec![], vec![]).await
}

/// `Given a ConfigMap named "owner" with finalizers "example.com/hold"`.
#[given(regex = r#"^an? ((?-u:\w)+) named "([^"]+)" with finalizers? "([^"]*)"$"#)]
async fn with_finalizers(world: &mut KubeWorld, kind: String, name: String, finalizers: String) -> StepResult {
    create(world, &kind, &name, vec![], list(&finalizers)).await
}

/// `Given the following objects:` with a table of `kind | name | owners | blocking | finalizers`.
/// `owners` lists `Kind/name` of objects created earlier in the table or scenario; `blocking`
/// is `yes` (blockOwnerDeletion true on every reference), `no` (false) or empty (unset).
#[given(regex = r"^the following objects:$")]
async fn table(world: &mut KubeWorld, step: &Step) -> StepResult {
    let table = step.table.as_ref().ok_or("the step needs a table")?;
    let header = &table.rows[0];
    let col = |row: &Vec<String>, name: &str| header.iter().position(|h| h == name).and_then(|i| row.get(i)).cloned().unwrap_or_default();
    for row in &table.rows[1..] {
        let block = match col(row, "blocking").as_str() {
            "yes" | "true" => Some(true),
            "no" | "false" => Some(false),
            _ => None,
        };
        let mut owners = Vec::new();
        for owner in list(&col(row, "owners")) {
            let (kind, name) = owner.split_once('/').ok_or(format!("owner {owner:?} is not Kind/name"))?;
            let mut r = world.owner_ref(kind, name, block.unwrap_or(false))?;
            if block.is_none() {
                r.as_object_mut().expect("an object").remove("blockOwnerDeletion");
            }
            owners.push(r);
        }
        create(world, &col(row, "kind"), &col(row, "name"), owners, list(&col(row, "finalizers"))).await?;
    }
    Ok(())
}

/// `When all Gadgets are listed`: one LIST of the kind in the scenario's namespace (all of a
/// cluster-scoped kind); the answer or the refusal is recorded.
#[when(regex = r"^all ((?-u:\w)+?)s are listed$")]
async fn listed(world: &mut KubeWorld, kind: String) -> StepResult {
    let url = collection_url(world, &kind).await?;
    let outcome = send(&world.client(), http::Method::GET, &url, None).await.map_err(|e| format!("cannot list {kind}s: {e}"))?;
    record(world, outcome);
    Ok(())
}

/// `When Gadget "old" is read`: one GET of the object; the answer or the refusal is recorded.
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is read$"#)]
async fn read(world: &mut KubeWorld, kind: String, name: String) -> StepResult {
    let url = format!("{}/{name}", collection_url(world, &kind).await?);
    let outcome = send(&world.client(), http::Method::GET, &url, None).await.map_err(|e| format!("cannot read {kind} {name:?}: {e}"))?;
    record(world, outcome);
    Ok(())
}

/// `When a ConfigMap named "again" is created` (optionally ` with finalizers "a/b"`): unlike
/// the Given step, a refusal is recorded for `Then the request fails ...` instead of failing.
#[when(regex = r#"^an? ((?-u:\w)+) named "([^"]+)" is created(?: with finalizers? "([^"]*)")?$"#)]
async fn created(world: &mut KubeWorld, kind: String, name: String, finalizers: String) -> StepResult {
    let body = manifest_with(world, &kind, &name, vec![], list(&finalizers)).await?;
    try_create(world, &kind, &name, body).await
}

/// `When ConfigMap "child" is patched with a merge patch:` (or `a strategic patch`, `a JSON
/// patch`, `an apply patch` — server-side apply by the field manager `kubegc-harness`) and a
/// JSON doc string, in which `${Kind/name}` stands for the uid of an object of the scenario; a
/// refusal is recorded for `Then the request fails ...`.
#[when(regex = r#"^((?-u:\w)+) "([^"]+)" is patched with an? (merge|strategic|JSON|apply) patch:$"#)]
async fn patched(world: &mut KubeWorld, kind: String, name: String, patch_type: String, step: &Step) -> StepResult {
    let text = step.docstring.as_ref().ok_or("the step needs a doc string with the patch")?;
    let body: Value = serde_json::from_str(&world.resolve_uids(text)?).map_err(|e| format!("bad patch: {e}"))?;
    let api = world.object_api(&kind, &name).await?;
    world.settled = false;
    let result = match patch_type.as_str() {
        "merge" => api.patch(&name, &PatchParams::default(), &Patch::Merge(body)).await,
        "strategic" => api.patch(&name, &PatchParams::default(), &Patch::Strategic(body)).await,
        "apply" => api.patch(&name, &PatchParams::apply("kubegc-harness"), &Patch::Apply(body)).await,
        _ => {
            let p: json_patch::Patch = serde_json::from_value(body).map_err(|e| e.to_string())?;
            api.patch(&name, &PatchParams::default(), &Patch::<()>::Json(p)).await
        }
    };
    match result {
        Ok(o) => {
            world.last_error = None;
            world.last_response = Some((200, serde_json::to_value(&o).unwrap_or_default()));
        }
        Err(kube::Error::Api(e)) => {
            world.last_error = Some(*e);
            world.last_response = None;
        }
        Err(e) => return Err(e.to_string()),
    }
    Ok(())
}

/// `Then ConfigMap "held" has "metadata.deletionGracePeriodSeconds" set to "0"`: a field at a
/// dotted path (a key with dots in brackets), after settling (`unset` for an absent field;
/// `${Kind/name}` for a uid); where
/// settling is only a hold, read until it has that value or the backend's timeout passes.
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" has "([^"]+)" set to "([^"]*)"$"#)]
async fn field(world: &mut KubeWorld, kind: String, name: String, path: String, value: String) -> StepResult {
    let result = field_check(&mut *world, kind, name, path, value).await;
    explained(world, result).await
}

async fn field_check(world: &mut KubeWorld, kind: String, name: String, path: String, value: String) -> StepResult {
    let want = world.resolve_uids(&value)?;
    read_until(world, &kind, &name, |o| {
        let o = serde_json::to_value(&o).map_err(|e| e.to_string())?;
        let have = show(at(&o, &path));
        if have != want {
            return Err(format!("{kind} {name:?} has {path} = {have:?}, expected {want:?}"));
        }
        Ok(())
    })
    .await
}
