//! Given steps that create objects: by kind and name, with owners, blocking references,
//! finalizers, in the scenario namespace or cluster-scoped; custom resource kinds; sets of owners
//! with dependents for stress scenarios; watches started before a change.
//!
//! Owners are named by kind and name (`owned by ConfigMap "owner"`); the world supplies their
//! uids. The other forms of `owned by` describe references that are wrong on purpose: an owner
//! that never existed, a real uid under other coordinates, a non-preferred version, the
//! scenario's namespace itself.

use cucumber::codegen::Regex;
use cucumber::gherkin::Step;
use cucumber::{given, when};
use kube::api::{Api, ApiResource, DynamicObject, ListParams, PostParams};
use serde_json::{Value, json};

use super::support::{Crd, create_body, list, manifest_with};
use crate::world::StepResult;
use crate::world::api::{Created, KubeWorld};

/// Creates `kind/name` with the given owner references and finalizers, in the scenario
/// namespace (or the other one when `other_namespace`).
async fn create_in(
    world: &mut KubeWorld,
    kind: &str,
    name: &str,
    owners: Vec<Value>,
    finalizers: Vec<String>,
    other_namespace: bool,
) -> StepResult {
    let body = manifest_with(world, kind, name, owners, finalizers).await?;
    create_body(world, kind, name, body, other_namespace).await.map_err(|e| format!("cannot create {kind} {name:?}: {e}"))
}

/// Creates `kind/name` in the scenario namespace.
async fn create(world: &mut KubeWorld, kind: &str, name: &str, owners: Vec<Value>, finalizers: Vec<String>) -> StepResult {
    create_in(world, kind, name, owners, finalizers, false).await
}

/// A made-up uid for the missing owner `name` (the same one each time the name is used).
fn missing_uid(world: &mut KubeWorld, name: &str) -> String {
    world.missing_owners.entry(name.to_string()).or_insert_with(|| uuid::Uuid::new_v4().to_string()).clone()
}

/// Parses the owner part of `owned by ...` into owner references. Forms, joined by ` and `:
/// `ConfigMap "owner"`; `a missing v1 ConfigMap "ghost"`; `v1 Secret "s" with the uid of
/// Deployment "web"`; `Widget "w" through version v1beta1`; `the namespace`. A trailing
/// ` with blockOwnerDeletion` makes every reference blocking.
async fn owner_refs(world: &mut KubeWorld, spec: &str) -> Result<Vec<Value>, String> {
    let (spec, block) = match spec.strip_suffix(" with blockOwnerDeletion") {
        Some(s) => (s, Some(true)),
        None => (spec, None),
    };
    /// The forms of an owner, compiled once: a step names owners in many scenarios.
    static FORMS: std::sync::LazyLock<[(Regex, u8); 5]> = std::sync::LazyLock::new(|| {
        [
            (Regex::new(r#"^the namespace$"#).expect("valid"), 0),
            (Regex::new(r#"^a missing (\S+) (\w+) "([^"]+)"$"#).expect("valid"), 1),
            (Regex::new(r#"^(\S+) (\w+) "([^"]+)" with the uid of (\w+) "([^"]+)"$"#).expect("valid"), 2),
            (Regex::new(r#"^(\w+) "([^"]+)" through version (\S+)$"#).expect("valid"), 3),
            (Regex::new(r#"^(\w+) "([^"]+)"$"#).expect("valid"), 4),
        ]
    });
    let forms = &*FORMS;
    let pieces: Vec<&str> = spec.split(r#"" and "#).collect();
    let mut refs = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        // Splitting at `" and ` took the closing quote of every owner but the last.
        let part = if i + 1 < pieces.len() { format!("{piece}\"") } else { piece.to_string() };
        let (caps, form) = forms
            .iter()
            .find_map(|(re, form)| re.captures(&part).map(|c| (c, *form)))
            .ok_or(format!("cannot read the owner {part:?}: expected Kind \"name\", a missing v1 Kind \"name\", v1 Kind \"name\" with the uid of Kind \"name\", Kind \"name\" through version v, or the namespace"))?;
        let c = |i: usize| caps.get(i).map(|m| m.as_str().to_string()).unwrap_or_default();
        let mut r = match form {
            0 => {
                let ns = world.namespace().await?;
                let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(world.client());
                let got = namespaces.get(&ns).await.map_err(|e| format!("cannot read the namespace: {e}"))?;
                json!({"apiVersion": "v1", "kind": "Namespace", "name": ns, "uid": got.metadata.uid})
            }
            1 => json!({"apiVersion": c(1), "kind": c(2), "name": c(3), "uid": missing_uid(world, &c(3))}),
            2 => json!({"apiVersion": c(1), "kind": c(2), "name": c(3), "uid": world.uid_of(&c(4), &c(5))?}),
            3 => {
                let created = world.created(&c(1), &c(2))?;
                let group = created.resource.group.clone();
                let api_version = if group.is_empty() { c(3) } else { format!("{group}/{}", c(3)) };
                json!({"apiVersion": api_version, "kind": c(1), "name": c(2), "uid": created.uid})
            }
            _ => world.owner_ref(&c(1), &c(2), false)?,
        };
        match block {
            Some(b) => r["blockOwnerDeletion"] = json!(b),
            None => {
                r.as_object_mut().expect("an object").remove("blockOwnerDeletion");
            }
        }
        refs.push(r);
    }
    Ok(refs)
}

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

/// The CustomResourceDefinition of `kind` under `group`, serving `versions` (the first stored).
fn definition(kind: &str, group: &str, cluster: bool, versions: &[String]) -> Value {
    let plural = format!("{}s", kind.to_lowercase());
    let scope = if cluster { "Cluster" } else { "Namespaced" };
    let versions: Vec<Value> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            json!({"name": v, "served": true, "storage": i == 0,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
        })
        .collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {"group": group, "scope": scope, "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind},
            "versions": versions}
    })
}

/// Creates the definition and waits until its resource is served.
async fn define(world: &mut KubeWorld, kind: &str, group: &str, cluster: bool, versions: &[String]) -> StepResult {
    let crd: Crd = serde_json::from_value(definition(kind, group, cluster, versions)).map_err(|e| e.to_string())?;
    let api: Api<Crd> = Api::all(world.client());
    world.settled = false;
    let created = api.create(&PostParams::default(), &crd).await.map_err(|e| format!("cannot create the CRD: {e}"))?;
    let plural = format!("{}s", kind.to_lowercase());
    let resource = ApiResource {
        group: group.to_string(),
        version: versions[0].clone(),
        api_version: format!("{group}/{}", versions[0]),
        kind: kind.to_string(),
        plural,
    };
    world.custom_kinds.insert(kind.to_string(), (resource.clone(), !cluster));
    let name = created.metadata.name.unwrap_or_default();
    world.objects.insert(
        ("CustomResourceDefinition".into(), kind.to_string()),
        Created { resource: ApiResource::erase::<Crd>(&()), namespace: String::new(), uid: created.metadata.uid.unwrap_or_default() },
    );
    let dynamic: Api<DynamicObject> = Api::all_with(world.client(), &resource);
    world
        .poll(&format!("the custom resource {name} to be served"), || {
            let dynamic = dynamic.clone();
            async move { Ok(dynamic.list(&Default::default()).await.is_ok()) }
        })
        .await?;
    // A collector starts watching a new kind at its next discovery resync; until then it
    // knows nothing of the kind's objects.
    tokio::time::sleep(world.backend().new_kind_delay()).await;
    Ok(())
}

/// `Given a custom resource kind "Widget"` (namespaced), `a cluster-scoped custom resource
/// kind "Gadget"`, or `a custom resource kind "Widget" served at versions "v1, v1beta1"` (the
/// first stored and preferred): a CustomResourceDefinition under a group of the scenario's own.
#[given(regex = r#"^an? (cluster-scoped )?custom resource kind "((?-u:\w)+)"(?: served at versions "([^"]+)")?$"#)]
async fn custom_kind(world: &mut KubeWorld, cluster: String, kind: String, versions: String) -> StepResult {
    let group = format!("s{}.kubegc.example", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let versions = if versions.is_empty() { vec!["v1".to_string()] } else { list(&versions) };
    define(world, &kind, &group, !cluster.is_empty(), &versions).await
}

/// `Given the custom resource kind "Widget" is defined again`: once its deleted definition is
/// gone, the same CustomResourceDefinition (same group, names and scope) is created anew.
#[given(regex = r#"^the custom resource kind "((?-u:\w)+)" is defined again$"#)]
async fn custom_kind_again(world: &mut KubeWorld, kind: String) -> StepResult {
    let (resource, namespaced) = world.custom_kinds.get(&kind).cloned().ok_or(format!("the scenario defined no custom kind {kind}"))?;
    let api: Api<Crd> = Api::all(world.client());
    let name = format!("{}.{}", resource.plural, resource.group);
    world
        .poll(&format!("the old definition {name} to be gone"), || {
            let (api, name) = (api.clone(), name.clone());
            async move { api.get_opt(&name).await.map(|o| o.is_none()).map_err(|e| e.to_string()) }
        })
        .await?;
    define(world, &kind, &resource.group, !namespaced, std::slice::from_ref(&resource.version)).await
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

/// `Given a Pod named "child" owned by ConfigMap "owner"`, optionally `in another namespace`
/// before `owned by`, and ` with finalizers "x/y"` at the end. The owner is `Kind "name"`;
/// `a missing v1 Kind "name"` (an owner that never existed: a made-up uid, the same for the same
/// name); `v1 Secret "name" with the uid of Deployment "web"` (other coordinates, a real uid);
/// `Widget "w" through version v1beta1` (another served version of a custom kind); or `the
/// namespace`. Several owners are joined by ` and `; ` with blockOwnerDeletion` after the last
/// makes every reference blocking (otherwise the field is left unset).
#[given(regex = r#"^an? ((?-u:\w)+) named "([^"]+)"( in another namespace)? owned by (.+?)(?: with finalizers? "([^"]*)")?$"#)]
async fn owned(world: &mut KubeWorld, kind: String, name: String, other: String, owners: String, finalizers: String) -> StepResult {
    let refs = owner_refs(world, &owners).await?;
    create_in(world, &kind, &name, refs, list(&finalizers), !other.is_empty()).await
}

/// `Given a ConfigMap named "child" with owner references:` (or `with finalizers "a/b" and
/// owner references:`) and a JSON list of references, in which `${Kind/name}` stands for a uid.
#[given(regex = r#"^an? ((?-u:\w)+) named "([^"]+)" with (?:finalizers? "([^"]*)" and )?owner references:$"#)]
async fn with_raw_owners(world: &mut KubeWorld, kind: String, name: String, finalizers: String, step: &Step) -> StepResult {
    let text = step.docstring.as_ref().ok_or("the step needs a doc string with a JSON list of owner references")?;
    let refs: Vec<Value> = serde_json::from_str(&world.resolve_uids(text)?).map_err(|e| format!("bad owner references: {e}"))?;
    create(world, &kind, &name, refs, list(&finalizers)).await
}

/// `Given a Pod named "web" running on a node`: a pod bound to a node, with a 30 second grace
/// period, so that deleting it is graceful (optionally ` with finalizers "x/y"`).
#[given(regex = r#"^a Pod named "([^"]+)" running on a node(?: with finalizers? "([^"]*)")?$"#)]
async fn running_pod(world: &mut KubeWorld, name: String, finalizers: String) -> StepResult {
    let mut body = manifest_with(world, "Pod", &name, vec![], list(&finalizers)).await?;
    body["spec"]["nodeName"] = json!("kubegc-node");
    body["spec"]["terminationGracePeriodSeconds"] = json!(30);
    create_body(world, "Pod", &name, body, false).await.map_err(|e| format!("cannot create Pod {name:?}: {e}"))
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

/// `Given 10 ReplicationControllers named "rc-{n}" each owning 3 Pods` (or `a
/// ReplicationController named "rc" owning 3 Pods`): owners named by the pattern with `{n}` =
/// 1..10 (optionally ` with finalizers "orphan"`), each with that many dependents named
/// `<owner>-1`, `<owner>-2`, ..., whose references are blocking but not the controller's, as
/// upstream's TestStressingCascadingDeletion makes them. (A controller reference would not
/// survive on a cluster: the ReplicationController and ReplicaSet controllers release the pods
/// they control that their selector does not match.)
#[given(
    regex = r#"^((?-u:\d)+|an?) ((?-u:\w)+?)s? named "([^"]+)"(?: with finalizers? "([^"]*)")? (?:each )?owning ((?-u:\d)+) ((?-u:\w)+?)s?$"#
)]
async fn owners_with_dependents(
    world: &mut KubeWorld,
    owners: String,
    kind: String,
    pattern: String,
    finalizers: String,
    dependents: usize,
    dependent_kind: String,
) -> StepResult {
    let owners: usize = owners.parse().unwrap_or(1);
    for n in 1..=owners {
        let owner = pattern.replace("{n}", &n.to_string());
        create(world, &kind, &owner, vec![], list(&finalizers)).await?;
        let r = world.owner_ref(&kind, &owner, true)?;
        for m in 1..=dependents {
            create(world, &dependent_kind, &format!("{owner}-{m}"), vec![r.clone()], vec![]).await?;
        }
    }
    Ok(())
}

/// `Given a chain of 40 ConfigMaps named "link-{n}"`: `link-1` owns `link-2` owns ... owns
/// `link-40`, every reference blocking; optionally `, the last with finalizers "a/b"`.
#[given(regex = r#"^a chain of ((?-u:\d)+) ((?-u:\w)+?)s named "([^"]+)"(?:, the last with finalizers? "([^"]*)")?$"#)]
async fn chain(world: &mut KubeWorld, length: usize, kind: String, pattern: String, finalizers: String) -> StepResult {
    for n in 1..=length {
        let name = pattern.replace("{n}", &n.to_string());
        let owners = if n == 1 { vec![] } else { vec![world.owner_ref(&kind, &pattern.replace("{n}", &(n - 1).to_string()), true)?] };
        let finalizers = if n == length { list(&finalizers) } else { vec![] };
        create(world, &kind, &name, owners, finalizers).await?;
    }
    Ok(())
}

/// `Given a watch on ConfigMaps`: remembers the current resourceVersion of the kind's list in
/// the scenario namespace, from which a later `Then the watch on ConfigMaps saw ...` reads.
#[given(regex = r"^a watch on ((?-u:\w)+?)s$")]
async fn watch_started(world: &mut KubeWorld, kind: String) -> StepResult {
    let (api, _, _) = world.api(&kind).await?;
    let listed = api.list_metadata(&ListParams::default()).await.map_err(|e| format!("cannot list {kind}s: {e}"))?;
    let rv = listed.metadata.resource_version.ok_or("the list has no resourceVersion")?;
    world.watches.insert(kind, rv);
    Ok(())
}

/// `Given the garbage collector has caught up`: waits until the collector has seen every
/// change so far (on a cluster: the hold time). Upstream's orphaning tests wait so, because an
/// orphaning pass only reaches the dependents the collector already knows (issue #26120), and a
/// foreground owner only waits for the dependents the collector already knows. Also a When step.
#[given(regex = r"^the garbage collector has caught up$")]
#[when(regex = r"^the garbage collector has caught up$")]
async fn caught_up(world: &mut KubeWorld) -> StepResult {
    world.backend().settle().await?;
    world.settled = true;
    Ok(())
}
