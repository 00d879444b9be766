//! A chaos run's plan, drawn from its seed alone: the objects and their owner references, the
//! deletions and finalizer changes and when they are made, when the collector is killed, and
//! how hard faults hit it. A plan is plain data, so a failing one can be shrunk and printed.

use std::fmt;
use std::time::Duration;

use kube::api::ApiResource;

use crate::chaos::faults::Rates;

/// The finalizer the run's own controller stands for: objects holding it stay until the run
/// removes it, at the end at the latest.
pub const FINALIZER: &str = "chaos.kubegc.io/hold";

/// The group of the custom resources.
pub const GROUP: &str = "chaos.kubegc.io";

/// The kinds objects are drawn from: namespaced and cluster-scoped, built-in and custom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// core/v1, namespaced.
    ConfigMap,
    /// core/v1, namespaced.
    Secret,
    /// coordination.k8s.io/v1, namespaced.
    Lease,
    /// A namespaced custom resource.
    Widget,
    /// rbac.authorization.k8s.io/v1, cluster-scoped.
    ClusterRole,
    /// A cluster-scoped custom resource.
    Gadget,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 6] = [Kind::ConfigMap, Kind::Secret, Kind::Lease, Kind::Widget, Kind::ClusterRole, Kind::Gadget];

    /// Whether its objects live in a namespace.
    pub fn namespaced(self) -> bool {
        !matches!(self, Kind::ClusterRole | Kind::Gadget)
    }

    /// Whether a CustomResourceDefinition serves it.
    pub fn custom(self) -> bool {
        matches!(self, Kind::Widget | Kind::Gadget)
    }

    /// Group, version, kind and plural.
    pub fn resource(self) -> ApiResource {
        let (group, kind, plural) = match self {
            Kind::ConfigMap => ("", "ConfigMap", "configmaps"),
            Kind::Secret => ("", "Secret", "secrets"),
            Kind::Lease => ("coordination.k8s.io", "Lease", "leases"),
            Kind::Widget => (GROUP, "Widget", "widgets"),
            Kind::ClusterRole => ("rbac.authorization.k8s.io", "ClusterRole", "clusterroles"),
            Kind::Gadget => (GROUP, "Gadget", "gadgets"),
        };
        let version = "v1";
        let api_version = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
        ApiResource { group: group.into(), version: version.into(), api_version, kind: kind.into(), plural: plural.into() }
    }
}

/// Where an owner reference points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// An object of the plan, by index (always an earlier one).
    Object(usize),
    /// An object that never existed.
    Ghost {
        /// Its kind.
        kind: Kind,
        /// Its name.
        name: String,
        /// Its uid.
        uid: String,
    },
    /// An object of the plan by kind and name, with a uid that is not its own.
    StaleUid(usize, String),
}

/// One owner reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// What it points to.
    pub target: Target,
    /// `blockOwnerDeletion`.
    pub blocking: bool,
}

/// One object of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    /// Its kind.
    pub kind: Kind,
    /// Its namespace, for namespaced kinds.
    pub namespace: Option<String>,
    /// Its name (unique in the run, whatever the kind).
    pub name: String,
    /// Its owner references.
    pub references: Vec<Reference>,
    /// Whether it is created holding [`FINALIZER`].
    pub finalizer: bool,
}

/// The propagation policy of a deletion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Policy {
    /// `Orphan`.
    Orphan,
    /// `Background`.
    Background,
    /// `Foreground`.
    Foreground,
    /// None given: the resource's default (Background for every kind here).
    Default,
}

impl Policy {
    /// How reports name it.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Orphan => "orphan",
            Policy::Background => "background",
            Policy::Foreground => "foreground",
            Policy::Default => "default",
        }
    }
}

/// Something the run does to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Deletes it with a policy.
    Delete(usize, Policy),
    /// Adds [`FINALIZER`] (refused, and that is fine, once the object is being deleted).
    AddFinalizer(usize),
    /// Removes [`FINALIZER`].
    RemoveFinalizer(usize),
}

impl Action {
    /// The object acted on.
    pub fn object(self) -> usize {
        match self {
            Action::Delete(i, _) | Action::AddFinalizer(i) | Action::RemoveFinalizer(i) => i,
        }
    }
}

/// An action and when it is made, counted from the moment the objects exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// When.
    pub at: Duration,
    /// What.
    pub action: Action,
}

/// A cold restart: the collector is killed at `at` and a new one starts `down` later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kill {
    /// When the collector is killed.
    pub at: Duration,
    /// How long no collector runs.
    pub down: Duration,
}

/// Everything a run does, drawn from its seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The seed it was drawn from.
    pub seed: u64,
    /// The namespaces the namespaced objects live in.
    pub namespaces: Vec<String>,
    /// The objects, owners before their dependents.
    pub objects: Vec<Object>,
    /// Whether the first collector starts before the objects are created (it then builds its
    /// graph from watch events) or after (from its initial lists).
    pub collector_first: bool,
    /// The actions, in time order.
    pub steps: Vec<Step>,
    /// The cold restarts, in time order.
    pub kills: Vec<Kill>,
    /// How often faults hit the collector's requests.
    pub rates: Rates,
}

/// The latest moment of an action or a kill.
const BURST: u64 = 4_000;

impl Plan {
    /// The plan of `seed`; names and namespaces carry the seed, so that runs can share a cluster.
    pub fn draw(seed: u64) -> Self {
        let mut rng = fastrand::Rng::with_seed(seed);
        let namespaces: Vec<String> = (0..rng.usize(2..=3)).map(|n| format!("chaos-{seed}-{n}")).collect();
        let mut objects: Vec<Object> = Vec::new();
        for index in 0..rng.usize(4..=30) {
            let kind = if rng.u8(..10) < 7 {
                [Kind::ConfigMap, Kind::Secret, Kind::Lease, Kind::Widget][rng.usize(..4)]
            } else {
                [Kind::ClusterRole, Kind::Gadget][rng.usize(..2)]
            };
            let namespace = kind.namespaced().then(|| namespaces[rng.usize(..namespaces.len())].clone());
            let references = draw_references(&mut rng, seed, &objects, namespace.as_deref());
            objects.push(Object { kind, namespace, name: format!("chaos-{seed}-{index}"), references, finalizer: rng.u8(..7) == 0 });
        }
        let mut steps = Vec::new();
        let n = objects.len();
        let mut deleted = vec![false; n];
        for _ in 0..rng.usize(1..=n.div_ceil(2)) {
            let object = rng.usize(..n);
            if std::mem::replace(&mut deleted[object], true) {
                continue;
            }
            let policy = [Policy::Orphan, Policy::Background, Policy::Foreground, Policy::Default][rng.usize(..4)];
            steps.push(Step { at: Duration::from_millis(rng.u64(..BURST)), action: Action::Delete(object, policy) });
        }
        for _ in 0..rng.usize(0..=3) {
            let object = rng.usize(..n);
            let action = if rng.bool() { Action::AddFinalizer(object) } else { Action::RemoveFinalizer(object) };
            steps.push(Step { at: Duration::from_millis(rng.u64(..BURST)), action });
        }
        steps.sort_by_key(|s| s.at);
        let mut kills: Vec<Kill> = (0..rng.usize(0..=3))
            .map(|_| Kill { at: Duration::from_millis(rng.u64(..BURST)), down: Duration::from_millis(rng.u64(..1_000)) })
            .collect();
        kills.sort_by_key(|k| k.at);
        let collector_first = rng.bool();
        let rates = if rng.u8(..10) == 0 { Rates::NONE } else { Rates::draw(&mut rng) };
        Plan { seed, namespaces, objects, collector_first, steps, kills, rates }
    }

    /// The object reference `r` of object `dependent` resolves to, if any: an object of the
    /// plan with its own uid, looked up where the collector looks (a namespaced owner in the
    /// dependent's namespace; never a namespaced owner of a cluster-scoped dependent).
    pub fn resolve(&self, dependent: usize, r: &Reference) -> Option<usize> {
        let Target::Object(owner) = r.target else { return None };
        let (o, d) = (&self.objects[owner], &self.objects[dependent]);
        (!o.kind.namespaced() || (d.namespace.is_some() && o.namespace == d.namespace)).then_some(owner)
    }

    /// The kind reference `r` names.
    pub fn target_kind(&self, r: &Reference) -> Kind {
        match &r.target {
            Target::Object(o) | Target::StaleUid(o, _) => self.objects[*o].kind,
            Target::Ghost { kind, .. } => *kind,
        }
    }

    /// Whether object `index` is a cluster-scoped object with a reference to a namespaced kind.
    /// Upstream's collector does not process such an item when it reaches it as itself:
    /// `isDangling` answers `namespacedOwnerOfClusterScopedObjectErr` and the worker forgets
    /// the item (pkg/controller/garbagecollector/garbagecollector.go), so its references go only
    /// when an owner orphans it. (Reached through a namespaced dependent's virtual node, it may
    /// be processed after all: see `model::fates`.)
    pub fn unprocessable(&self, index: usize) -> bool {
        let object = &self.objects[index];
        !object.kind.namespaced() && object.references.iter().any(|r| self.target_kind(r).namespaced())
    }

    /// The kinds the plan uses, each once.
    pub fn kinds(&self) -> Vec<Kind> {
        let mut kinds: Vec<Kind> = self.objects.iter().map(|o| o.kind).collect();
        kinds.sort();
        kinds.dedup();
        kinds
    }

    /// The policy object `index` is deleted with by the run, if it is.
    pub fn deletion(&self, index: usize) -> Option<Policy> {
        self.steps.iter().find_map(|s| match s.action {
            Action::Delete(i, policy) if i == index => Some(policy),
            _ => None,
        })
    }

    /// The plan without object `index`: references to it and actions on it go, later indices
    /// shift down. Used to shrink a failing plan.
    pub fn without_object(&self, index: usize) -> Plan {
        let shift = |i: usize| if i > index { i - 1 } else { i };
        let mut plan = self.clone();
        plan.objects.remove(index);
        for object in &mut plan.objects {
            object.references.retain(|r| !matches!(r.target, Target::Object(o) | Target::StaleUid(o, _) if o == index));
            for r in &mut object.references {
                if let Target::Object(o) | Target::StaleUid(o, _) = &mut r.target {
                    *o = shift(*o);
                }
            }
        }
        plan.steps.retain(|s| s.action.object() != index);
        for step in &mut plan.steps {
            step.action = match step.action {
                Action::Delete(i, p) => Action::Delete(shift(i), p),
                Action::AddFinalizer(i) => Action::AddFinalizer(shift(i)),
                Action::RemoveFinalizer(i) => Action::RemoveFinalizer(shift(i)),
            };
        }
        plan
    }

    /// Every plan one simplification away, the boldest first: fewer objects, actions, kills,
    /// references, faults and finalizers.
    pub fn simpler(&self) -> Vec<Plan> {
        let mut simpler = Vec::new();
        for index in (0..self.objects.len()).rev() {
            simpler.push(self.without_object(index));
        }
        for index in 0..self.steps.len() {
            let mut plan = self.clone();
            plan.steps.remove(index);
            simpler.push(plan);
        }
        for index in 0..self.kills.len() {
            let mut plan = self.clone();
            plan.kills.remove(index);
            simpler.push(plan);
        }
        if self.rates != Rates::NONE {
            simpler.push(Plan { rates: Rates::NONE, ..self.clone() });
        }
        for (o, object) in self.objects.iter().enumerate() {
            for r in 0..object.references.len() {
                let mut plan = self.clone();
                plan.objects[o].references.remove(r);
                simpler.push(plan);
            }
            if object.finalizer {
                let mut plan = self.clone();
                plan.objects[o].finalizer = false;
                simpler.push(plan);
            }
        }
        simpler
    }
}

/// Zero to three owner references for a new object: mostly to earlier objects it can own
/// through (same namespace, or cluster-scoped), some across namespaces or from a cluster-scoped
/// dependent to a namespaced owner (both never resolve), some to owners that never existed or
/// with a stale uid.
fn draw_references(rng: &mut fastrand::Rng, seed: u64, earlier: &[Object], namespace: Option<&str>) -> Vec<Reference> {
    let count = match rng.u8(..20) {
        0..=4 => 0,
        5..=13 => 1,
        14..=17 => 2,
        _ => 3,
    };
    let reachable: Vec<usize> = (0..earlier.len())
        .filter(|&o| !earlier[o].kind.namespaced() || earlier[o].namespace.as_deref() == namespace && namespace.is_some())
        .collect();
    let mut references: Vec<Reference> = Vec::new();
    for _ in 0..count {
        let target = match rng.u8(..20) {
            0..=1 => {
                let kind = Kind::ALL[rng.usize(..Kind::ALL.len())];
                Target::Ghost { kind, name: format!("chaos-{seed}-ghost-{}", rng.u32(..1000)), uid: uid(rng) }
            }
            2 if !earlier.is_empty() => Target::StaleUid(rng.usize(..earlier.len()), uid(rng)),
            3..=5 if !earlier.is_empty() => Target::Object(rng.usize(..earlier.len())),
            _ if !reachable.is_empty() => Target::Object(reachable[rng.usize(..reachable.len())]),
            _ => continue,
        };
        let same = |r: &Reference| match (&r.target, &target) {
            (Target::Object(a) | Target::StaleUid(a, _), Target::Object(b) | Target::StaleUid(b, _)) => a == b,
            _ => false,
        };
        if !references.iter().any(same) {
            references.push(Reference { target, blocking: rng.bool() });
        }
    }
    references
}

/// A made-up uid.
fn uid(rng: &mut fastrand::Rng) -> String {
    let bytes: [u8; 16] = std::array::from_fn(|_| rng.u8(..));
    uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |i: usize| {
            let o = &self.objects[i];
            format!("{} {}{}", o.kind.resource().kind, o.namespace.as_deref().map(|n| format!("{n}/")).unwrap_or_default(), o.name)
        };
        writeln!(
            f,
            "objects ({}; the collector starts {} them):",
            self.objects.len(),
            if self.collector_first { "before" } else { "after" }
        )?;
        for (i, o) in self.objects.iter().enumerate() {
            let refs: Vec<String> = o
                .references
                .iter()
                .map(|r| {
                    let to = match &r.target {
                        Target::Object(t) => format!("#{t}"),
                        Target::Ghost { kind, name, .. } => format!("{} {name} (never existed)", kind.resource().kind),
                        Target::StaleUid(t, _) => format!("#{t} with a stale uid"),
                    };
                    let resolves =
                        if matches!(r.target, Target::Object(_)) && self.resolve(i, r).is_none() { ", does not resolve" } else { "" };
                    format!("{to}{}{resolves}", if r.blocking { " blocking" } else { "" })
                })
                .collect();
            let finalizer = if o.finalizer { ", holding the finalizer" } else { "" };
            writeln!(f, "  #{i} {}{finalizer}; owners: [{}]", name(i), refs.join(", "))?;
        }
        writeln!(f, "steps:")?;
        for s in &self.steps {
            let what = match s.action {
                Action::Delete(i, p) => format!("delete #{i} ({}) with policy {}", name(i), p.name()),
                Action::AddFinalizer(i) => format!("add the finalizer to #{i}"),
                Action::RemoveFinalizer(i) => format!("remove the finalizer from #{i}"),
            };
            writeln!(f, "  at {:?}: {what}", s.at)?;
        }
        for k in &self.kills {
            writeln!(f, "  at {:?}: kill the collector, start a new one {:?} later", k.at, k.down)?;
        }
        write!(f, "fault rates per thousand requests: {:?}", self.rates)
    }
}
