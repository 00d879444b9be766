//! The objects one restart run works on, the deletions it makes, and the rule that judges the
//! outcome without asking the collector.
//!
//! A forest is a few *roots*, each with dependents spread over several resources and some
//! grandchildren below those, plus *keepers*: objects never deleted that co-own some of the
//! dependents. Every root has a fate: kept, or deleted with propagation policy Orphan, Background
//! or Foreground. What a correct collector does then follows from the ownerReferences alone
//! (upstream's documented semantics, not the reference collector's code):
//!
//! - an object with an owner that still exists stays, and keeps its reference to that owner;
//! - a root deleted with Orphan goes, and its direct dependents stay with the reference to it
//!   removed;
//! - a root deleted with Background or Foreground goes, and so does every dependent whose owners
//!   are all gone; a dependent also owned by a keeper stays, with the reference to the deleted
//!   root removed.
//!
//! A dependent has exactly one root among its owners, so no outcome depends on the order in which
//! two deletions are processed.

use std::collections::HashMap;

use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, ListParams, PostParams, PropagationPolicy};
use serde_json::json;

/// The resources the forest spreads over: several groups, none with a controller of its own in
/// the fake apiserver, none needing a spec.
pub fn resources() -> Vec<ApiResource> {
    use k8s_openapi::api::{apps::v1::ReplicaSet, coordination::v1::Lease, core::v1};
    vec![
        ApiResource::erase::<v1::ConfigMap>(&()),
        ApiResource::erase::<v1::Secret>(&()),
        ApiResource::erase::<v1::ServiceAccount>(&()),
        ApiResource::erase::<Lease>(&()),
        ApiResource::erase::<ReplicaSet>(&()),
    ]
}

/// What happens to a root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Never deleted.
    Kept,
    /// Deleted with `propagationPolicy: Orphan`.
    Orphan,
    /// Deleted with `propagationPolicy: Background`.
    Background,
    /// Deleted with `propagationPolicy: Foreground`.
    Foreground,
}

impl Fate {
    /// `kept`, or the propagation policy in lower case.
    pub fn name(self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::Orphan => "orphan",
            Fate::Background => "background",
            Fate::Foreground => "foreground",
        }
    }

    /// The propagation policy of the deletion, if the root is deleted.
    fn policy(self) -> Option<PropagationPolicy> {
        match self {
            Fate::Kept => None,
            Fate::Orphan => Some(PropagationPolicy::Orphan),
            Fate::Background => Some(PropagationPolicy::Background),
            Fate::Foreground => Some(PropagationPolicy::Foreground),
        }
    }
}

/// One planned object.
#[derive(Clone, Debug)]
struct Planned {
    /// Index into [`resources`].
    resource: usize,
    name: String,
    /// Indices of its owners (always earlier objects).
    owners: Vec<usize>,
    /// Whether its references set `blockOwnerDeletion`.
    blocking: bool,
    /// The UID the API server gave it.
    uid: String,
}

/// The planned objects and the roots' fates.
#[derive(Clone, Debug)]
pub struct Forest {
    objects: Vec<Planned>,
    /// Roots and their fates.
    fates: HashMap<usize, Fate>,
}

/// What the rule expects of one object.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Expected {
    /// It exists, referencing exactly these owners (indices).
    Exists(Vec<usize>),
    /// It is gone.
    Gone,
}

/// The outcome of judging a forest.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    /// Objects judged.
    pub checked: usize,
    /// Things a correct collector would never do: an object deleted that should stay, an
    /// orphaned dependent still referencing its deleted owner, a reference to a live owner lost.
    pub violations: Vec<String>,
    /// Objects a correct collector would have deleted by now and that are still there.
    pub uncollected: Vec<String>,
}

impl Forest {
    /// A random forest: two keepers, four roots of random fates, each with three to eight
    /// dependents over the [`resources`], some co-owned by a keeper, some with dependents of
    /// their own.
    pub fn grow(rng: &mut fastrand::Rng) -> Self {
        let kinds = resources().len();
        let mut forest = Forest { objects: Vec::new(), fates: HashMap::new() };
        let keepers: Vec<usize> = (0..2).map(|_| forest.plan(rng.usize(..kinds), vec![], false)).collect();
        for _ in 0..4 {
            let fate = match rng.u8(..20) {
                0..=6 => Fate::Orphan,
                7..=11 => Fate::Background,
                12..=16 => Fate::Foreground,
                _ => Fate::Kept,
            };
            let root = forest.plan(rng.usize(..kinds), vec![], false);
            forest.fates.insert(root, fate);
            for _ in 0..rng.usize(3..=8) {
                let mut owners = vec![root];
                if rng.u8(..4) == 0 {
                    owners.push(keepers[rng.usize(..keepers.len())]);
                }
                let child = forest.plan(rng.usize(..kinds), owners, rng.bool());
                for _ in 0..rng.usize(0..=2) {
                    forest.plan(rng.usize(..kinds), vec![child], rng.bool());
                }
            }
        }
        forest
    }

    fn plan(&mut self, resource: usize, owners: Vec<usize>, blocking: bool) -> usize {
        let index = self.objects.len();
        self.objects.push(Planned { resource, name: format!("object-{index}"), owners, blocking, uid: String::new() });
        index
    }

    /// How many objects the forest has.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether the forest is empty (never, once grown).
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// The roots to delete, with their fates, in a stable order.
    pub fn deletions(&self) -> Vec<(usize, Fate)> {
        let mut roots: Vec<(usize, Fate)> = self.fates.iter().filter(|(_, f)| **f != Fate::Kept).map(|(r, f)| (*r, *f)).collect();
        roots.sort_by_key(|(root, _)| *root);
        roots
    }

    fn api(&self, client: &kube::Client, namespace: &str, index: usize) -> Api<DynamicObject> {
        Api::namespaced_with(client.clone(), namespace, &resources()[self.objects[index].resource])
    }

    /// Creates every object in `namespace`, owners first.
    pub async fn plant(&mut self, client: &kube::Client, namespace: &str) -> anyhow::Result<()> {
        let kinds = resources();
        for index in 0..self.objects.len() {
            let planned = &self.objects[index];
            let refs: Vec<_> = planned
                .owners
                .iter()
                .map(|&o| {
                    let (owner, kind) = (&self.objects[o], &kinds[self.objects[o].resource]);
                    json!({"apiVersion": kind.api_version, "kind": kind.kind, "name": owner.name, "uid": owner.uid,
                        "blockOwnerDeletion": planned.blocking})
                })
                .collect();
            let kind = &kinds[planned.resource];
            let object: DynamicObject = serde_json::from_value(json!({
                "apiVersion": kind.api_version, "kind": kind.kind,
                "metadata": {"name": planned.name, "ownerReferences": refs},
            }))?;
            let created = self.api(client, namespace, index).create(&PostParams::default(), &object).await?;
            self.objects[index].uid = created.metadata.uid.unwrap_or_default();
        }
        Ok(())
    }

    /// Deletes root `index` with the policy of `fate`.
    pub async fn delete(&self, client: &kube::Client, namespace: &str, index: usize, fate: Fate) -> anyhow::Result<()> {
        let params = DeleteParams { propagation_policy: fate.policy(), ..DeleteParams::default() };
        self.api(client, namespace, index).delete(&self.objects[index].name, &params).await?;
        Ok(())
    }

    /// What the rule expects of each object, in creation order (owners are judged first).
    fn expected(&self) -> Vec<Expected> {
        let mut expected: Vec<Expected> = Vec::with_capacity(self.objects.len());
        for (index, object) in self.objects.iter().enumerate() {
            let e = match self.fates.get(&index) {
                Some(Fate::Kept) => Expected::Exists(vec![]),
                Some(_) => Expected::Gone,
                None if object.owners.is_empty() => Expected::Exists(vec![]),
                None => {
                    let alive: Vec<usize> = object.owners.iter().copied().filter(|o| expected[*o] != Expected::Gone).collect();
                    let orphaned = object.owners.iter().any(|o| self.fates.get(o) == Some(&Fate::Orphan));
                    if alive.is_empty() && !orphaned { Expected::Gone } else { Expected::Exists(alive) }
                }
            };
            expected.push(e);
        }
        expected
    }

    /// Judges the objects in `namespace` against the rule.
    pub async fn judge(&self, client: &kube::Client, namespace: &str) -> anyhow::Result<Verdict> {
        let mut live: HashMap<String, Vec<String>> = HashMap::new();
        for kind in resources() {
            let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), namespace, &kind);
            for item in api.list(&ListParams::default()).await?.items {
                let refs = item.metadata.owner_references.unwrap_or_default().into_iter().map(|r| r.uid).collect();
                live.insert(item.metadata.uid.unwrap_or_default(), refs);
            }
        }
        let mut verdict = Verdict::default();
        for (object, expected) in self.objects.iter().zip(self.expected()) {
            verdict.checked += 1;
            let what = format!("{} {}", resources()[object.resource].kind, object.name);
            match (expected, live.get(&object.uid)) {
                (Expected::Gone, None) => {}
                (Expected::Gone, Some(_)) => verdict.uncollected.push(format!("{what} should have been collected")),
                (Expected::Exists(_), None) => verdict.violations.push(format!("{what} was deleted; a correct collector keeps it")),
                (Expected::Exists(owners), Some(refs)) => {
                    let wanted: Vec<&str> = owners.iter().map(|o| self.objects[*o].uid.as_str()).collect();
                    for r in refs.iter().filter(|r| !wanted.contains(&r.as_str())) {
                        verdict.violations.push(format!("{what} still references its deleted owner {r}"));
                    }
                    for w in wanted.iter().filter(|w| !refs.iter().any(|r| r == *w)) {
                        verdict.violations.push(format!("{what} lost its reference to its live owner {w}"));
                    }
                }
            }
        }
        Ok(verdict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forest(fate: Fate, co_owned: bool) -> Forest {
        let mut f = Forest { objects: Vec::new(), fates: HashMap::new() };
        let keeper = f.plan(0, vec![], false);
        let root = f.plan(0, vec![], false);
        f.fates.insert(root, fate);
        let owners = if co_owned { vec![root, keeper] } else { vec![root] };
        let child = f.plan(1, owners, true);
        f.plan(2, vec![child], false);
        f
    }

    #[test]
    fn an_orphaned_dependent_stays_without_the_reference_and_keeps_its_own_dependents() {
        let e = forest(Fate::Orphan, false).expected();
        assert_eq!(e, [Expected::Exists(vec![]), Expected::Gone, Expected::Exists(vec![]), Expected::Exists(vec![2])]);
    }

    #[test]
    fn a_cascade_takes_dependents_whose_owners_are_all_gone() {
        for fate in [Fate::Background, Fate::Foreground] {
            assert_eq!(forest(fate, false).expected()[2..], [Expected::Gone, Expected::Gone]);
            assert_eq!(forest(fate, true).expected()[2..], [Expected::Exists(vec![0]), Expected::Exists(vec![2])]);
        }
    }

    #[test]
    fn a_kept_root_keeps_everything_below_it() {
        assert_eq!(
            forest(Fate::Kept, false).expected()[1..],
            [Expected::Exists(vec![]), Expected::Exists(vec![1]), Expected::Exists(vec![2])]
        );
    }
}
