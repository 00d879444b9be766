//! Steps about owner references: objects owned by others, sets of owners with dependents
//! and chains for stress scenarios, the collector caught up, and the references an object has
//! afterwards.
//!
//! Owners are named by kind and name (`owned by ConfigMap "owner"`); the world supplies their
//! uids. The other forms of `owned by` describe references that are wrong on purpose: an owner
//! that never existed, a real uid under other coordinates, a non-preferred version, the
//! scenario's namespace itself.

use cucumber::codegen::Regex;
use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use kube::api::Api;
use serde_json::{Value, json};

use super::support::{create, create_in, explained, list, manifest_with, matching, read_until, settled, show, try_create};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

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

/// `When a ConfigMap named "child" is created with owner references:` and a JSON list of
/// references (`${Kind/name}` stands for a uid); a refusal is recorded, not a failure.
#[when(regex = r#"^an? ((?-u:\w)+) named "([^"]+)" is created with owner references:$"#)]
async fn created_with_owners(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let text = step.docstring.as_ref().ok_or("the step needs a doc string with a JSON list of owner references")?;
    let refs: Vec<Value> = serde_json::from_str(&world.resolve_uids(text)?).map_err(|e| format!("bad owner references: {e}"))?;
    let body = manifest_with(world, &kind, &name, refs, vec![]).await?;
    try_create(world, &kind, &name, body).await
}

/// `Then ConfigMap "child" has owner references to "a, b"` (names; `""` for none), after settling
/// (where settling is only a hold, read until it has them or the backend's timeout passes).
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" has owner references to "([^"]*)"$"#)]
async fn owners(world: &mut KubeWorld, kind: String, name: String, expected: String) -> StepResult {
    let result = owners_check(&mut *world, kind, name, expected).await;
    explained(world, result).await
}

async fn owners_check(world: &mut KubeWorld, kind: String, name: String, expected: String) -> StepResult {
    read_until(world, &kind, &name, |o| {
        let have: Vec<String> = o.metadata.owner_references.unwrap_or_default().into_iter().map(|r| r.name).collect();
        if have != list(&expected) {
            return Err(format!("{kind} {name:?} has owner references to {have:?}, expected {:?}", list(&expected)));
        }
        Ok(())
    })
    .await
}

/// `Then ConfigMap "b" has owner references:` and a table whose header names fields of an
/// ownerReference (`name`, `kind`, `apiVersion`, `blockOwnerDeletion`, `controller`), one row
/// per reference in order; `unset` for a field that is absent. Checked after settling (where
/// settling is only a hold, read until it has them or the backend's timeout passes).
#[then(regex = r#"^((?-u:\w)+) "([^"]+)" has owner references:$"#)]
async fn owner_table(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let result = owner_table_check(&mut *world, kind, name, step).await;
    explained(world, result).await
}

async fn owner_table_check(world: &mut KubeWorld, kind: String, name: String, step: &Step) -> StepResult {
    let table = step.table.as_ref().ok_or("the step needs a table")?;
    let header = &table.rows[0];
    let want: Vec<Vec<String>> = table.rows[1..].to_vec();
    read_until(world, &kind, &name, |o| {
        let o = serde_json::to_value(&o).map_err(|e| e.to_string())?;
        let refs = o["metadata"]["ownerReferences"].as_array().cloned().unwrap_or_default();
        let have: Vec<Vec<String>> = refs.iter().map(|r| header.iter().map(|h| show(r.get(h.as_str()))).collect()).collect();
        if have != want {
            return Err(format!("{kind} {name:?} has owner references ({}) {have:?}, expected {want:?}", header.join(", ")));
        }
        Ok(())
    })
    .await
}

/// `Then every Pod named "c1-*" has owner references to ""` (after settling; at least one
/// object must match).
#[then(regex = r#"^every ((?-u:\w)+?) named "([^"]+)" has owner references to "([^"]*)"$"#)]
async fn all_owned_by(world: &mut KubeWorld, kind: String, pattern: String, expected: String) -> StepResult {
    let result = async {
        settled(world).await?;
        let found = matching(world, &kind, &pattern).await?;
        if found.is_empty() {
            return Err(format!("no {kind} is named {pattern:?}"));
        }
        for o in found {
            let have: Vec<String> = o.metadata.owner_references.unwrap_or_default().into_iter().map(|r| r.name).collect();
            if have != list(&expected) {
                return Err(format!("{kind} {:?} has owner references to {have:?}, expected {:?}", o.metadata.name, list(&expected)));
            }
        }
        Ok(())
    }
    .await;
    explained(world, result).await
}
