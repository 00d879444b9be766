//! The resource catalogue: which kinds the fake apiserver serves, under which group, versions,
//! plural and scope, and the per-resource rules that deletion and validation depend on
//! (default garbage-collection policy, graceful deletion, name format).
//!
//! Built-in kinds are fixed at start; CustomResourceDefinitions add and remove entries at run time.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::apiserver::status::QualifiedResource;

/// The built-in groups in the order the pinned kube-apiserver lists them: the aggregator sorts
/// its APIServices by group priority, highest first, then by name (the priorities of
/// cmd/kube-apiserver/app/aggregator.go); a custom resource's group has the lowest priority
/// (1000) and comes after them all, by name.
const GROUP_ORDER: &[&str] = &[
    "",
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "resource.k8s.io",
    "flowcontrol.apiserver.k8s.io",
    "storagemigration.k8s.io",
];

/// What a DELETE with no propagation options does to dependents (upstream
/// `DefaultGarbageCollectionPolicy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultGcPolicy {
    /// Background deletion: no finalizer is added.
    DeleteDependents,
    /// The `orphan` finalizer is added (v1 ReplicationController, batch/v1 Job).
    OrphanDependents,
    /// The GC finalizers are never set, whatever the options (events).
    Unsupported,
}

/// Which names an object of a resource may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// RFC 1123 subdomain: most resources.
    Subdomain,
    /// RFC 1123 label: namespaces and services.
    Label,
    /// Any string usable as a path segment: custom resources and RBAC objects.
    PathSegment,
}

/// A conversion applied between a served version and the stored form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// Served as stored; only `apiVersion` is rewritten.
    None,
    /// `events.k8s.io/v1` Event, stored as a core v1 Event.
    EventsV1,
    /// A CRD's conversion webhook, which the fake API server never calls: every conversion
    /// from one version to another fails as it does when the webhook cannot be reached. Holds
    /// what the failure says about the webhook (`Post "https://...": service "x" not found`).
    Webhook(std::sync::Arc<str>),
}

/// Where a label selector for the pods a scalable resource counts is found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScaleSelector {
    /// `spec.selector` as a `metav1.LabelSelector` (Deployments, ReplicaSets, StatefulSets).
    LabelSelector,
    /// `spec.selector` as a map of labels (ReplicationControllers).
    LabelMap,
    /// A string already written at this path (a CRD's `labelSelectorPath`), if any.
    Path(Option<String>),
}

/// The `scale` subresource of a resource: where its desired and current replicas are and where
/// its selector comes from. Paths are JSON paths such as `.spec.replicas`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalePaths {
    /// The desired replicas (`specReplicasPath`).
    pub spec_replicas: String,
    /// The current replicas (`statusReplicasPath`).
    pub status_replicas: String,
    /// The selector.
    pub selector: ScaleSelector,
}

impl ScalePaths {
    /// The paths of the built-in scalable kinds: `.spec.replicas` and `.status.replicas`.
    pub fn builtin(selector: ScaleSelector) -> Self {
        Self { spec_replicas: ".spec.replicas".into(), status_replicas: ".status.replicas".into(), selector }
    }
}

/// One served resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceInfo {
    /// API group, empty for core.
    pub group: String,
    /// Served versions; the first is preferred (and the stored one).
    pub versions: Vec<String>,
    /// Plural name, used in URLs.
    pub plural: String,
    /// Singular name.
    pub singular: String,
    /// Kind.
    pub kind: String,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// Short names for kubectl.
    pub short_names: Vec<String>,
    /// Categories for kubectl (e.g. `all`).
    pub categories: Vec<String>,
    /// Whether the kind has a `status` subresource (and PUT of the main resource keeps status).
    pub status_subresource: bool,
    /// Whether the kind has the `finalize` subresource (namespaces).
    pub finalize_subresource: bool,
    /// Whether the kind has the `approval` subresource (certificate signing requests).
    pub approval_subresource: bool,
    /// Whether the kind has the `ephemeralcontainers` subresource (pods).
    pub ephemeral_containers_subresource: bool,
    /// Whether the kind has the `binding` subresource, served for POST alone (pods).
    pub binding_subresource: bool,
    /// The `scale` subresource, for the kinds that have one.
    pub scale: Option<ScalePaths>,
    /// Whether DELETE on the whole collection is served (not for namespaces: the namespace
    /// registry has no DeleteCollection, so one request may not end every namespace).
    pub collection_delete: bool,
    /// Versions for which the default GC policy is orphan.
    pub orphan_by_default_in: Vec<String>,
    /// Whether GC finalizers are never applied (events).
    pub gc_unsupported: bool,
    /// Whether deletion is graceful (pods).
    pub graceful: bool,
    /// Whether DELETE returns the deleted object instead of a `Status` (pods, custom resources).
    pub returns_deleted_object: bool,
    /// Name format.
    pub name_rule: NameRule,
    /// Whether a CustomResourceDefinition defines it (no strategic merge patch, no strict schema).
    pub custom: bool,
    /// Whether `metadata.generation` is maintained (workloads, pod templates, disruption budgets,
    /// CRDs, custom resources).
    pub tracks_generation: bool,
    /// Where its objects are stored: `(group, plural)`. Differs from `(group, plural)` only for
    /// resources served in two groups (events).
    pub storage: (String, String),
    /// The version its objects are stored at (a built-in resource's: `v1`; a custom
    /// resource's: its definition's storage version).
    pub storage_version: String,
    /// How objects are converted between this resource's versions and storage.
    pub conversion: Conversion,
    /// Whether an update that names no resourceVersion is accepted (the strategy's
    /// `AllowUnconditionalUpdate`): not for leases, disruption budgets, runtime classes, CRDs
    /// and custom resources.
    pub unconditional_update: bool,
    /// Whether a PUT of an absent object creates it (the strategy's `AllowCreateOnUpdate`):
    /// leases, services, endpoints, events, limit ranges, runtime classes and RBAC kinds.
    pub create_on_update: bool,
}

impl ResourceInfo {
    /// The group of the internal type its strategy validates, which names the kind in an
    /// Invalid error: core for events.k8s.io Events (`rest.BeforeCreate` uses the internal
    /// object's kind, k8s.io/apiserver/pkg/registry/rest/create.go).
    pub fn internal_group(&self) -> &str {
        &self.storage.0
    }

    /// Where etcd keeps its objects, under `/registry`: the plural for a built-in resource (its
    /// stored resource's, for events.k8s.io Events), with the few prefixes compiled into
    /// kube-apiserver (`SpecialDefaultResourcePrefixes`, pkg/kubeapiserver/
    /// default_storage_factory_builder.go); `group/plural` for a custom resource.
    pub fn etcd_prefix(&self) -> String {
        let (group, plural) = &self.storage;
        match (group.as_str(), plural.as_str()) {
            _ if self.custom => format!("{group}/{plural}"),
            ("", "replicationcontrollers") => "controllers".into(),
            ("", "endpoints") => "services/endpoints".into(),
            ("", "nodes") => "minions".into(),
            ("", "services") => "services/specs".into(),
            ("networking.k8s.io", "ingresses") => "ingress".into(),
            _ => plural.clone(),
        }
    }

    /// The Go package of the internal type of a built-in kind, as `%T` and the printers name
    /// it: `core` for the core group, else the group's first label (`rbac`, `apps`).
    pub fn internal_package(&self) -> &str {
        match self.internal_group() {
            "" => "core",
            group => group.split('.').next().unwrap_or(group),
        }
    }

    /// The resource as named in error messages.
    pub fn qualified(&self) -> QualifiedResource<'_> {
        QualifiedResource { group: &self.group, resource: &self.plural }
    }

    /// `group/version`, or just `version` for core.
    pub fn api_version(&self, version: &str) -> String {
        if self.group.is_empty() { version.to_string() } else { format!("{}/{}", self.group, version) }
    }

    /// Whether `api_version` is [`ResourceInfo::api_version`] of `version`, compared in place.
    pub fn is_api_version(&self, version: &str, api_version: &str) -> bool {
        if self.group.is_empty() {
            api_version == version
        } else {
            api_version.strip_prefix(self.group.as_str()).and_then(|rest| rest.strip_prefix('/')) == Some(version)
        }
    }

    /// The default GC policy for a request made at `version` (upstream
    /// `DefaultGarbageCollectionPolicy`).
    pub fn default_gc_policy(&self, version: &str) -> DefaultGcPolicy {
        if self.gc_unsupported {
            DefaultGcPolicy::Unsupported
        } else if self.orphan_by_default_in.iter().any(|v| v == version) {
            DefaultGcPolicy::OrphanDependents
        } else {
            DefaultGcPolicy::DeleteDependents
        }
    }

    /// Whether `version` is served.
    pub fn serves(&self, version: &str) -> bool {
        self.versions.iter().any(|v| v == version)
    }
}

/// A compact description used to declare the built-in kinds: group, version, plural, kind,
/// whether namespaced, short names, whether it has a status subresource.
#[derive(Clone, Copy)]
struct Builtin(&'static str, &'static str, &'static str, &'static str, bool, &'static [&'static str], bool);

/// The built-in kinds, with their real scope, short names and status subresources.
const BUILTINS: &[Builtin] = &[
    Builtin("", "v1", "namespaces", "Namespace", false, &["ns"], true),
    Builtin("", "v1", "nodes", "Node", false, &["no"], true),
    Builtin("", "v1", "pods", "Pod", true, &["po"], true),
    Builtin("", "v1", "configmaps", "ConfigMap", true, &["cm"], false),
    Builtin("", "v1", "secrets", "Secret", true, &[], false),
    Builtin("", "v1", "services", "Service", true, &["svc"], true),
    Builtin("", "v1", "serviceaccounts", "ServiceAccount", true, &["sa"], false),
    Builtin("", "v1", "endpoints", "Endpoints", true, &["ep"], false),
    Builtin("", "v1", "replicationcontrollers", "ReplicationController", true, &["rc"], true),
    Builtin("", "v1", "persistentvolumes", "PersistentVolume", false, &["pv"], true),
    Builtin("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, &["pvc"], true),
    Builtin("", "v1", "events", "Event", true, &["ev"], false),
    Builtin("", "v1", "podtemplates", "PodTemplate", true, &[], false),
    Builtin("", "v1", "resourcequotas", "ResourceQuota", true, &["quota"], true),
    Builtin("", "v1", "limitranges", "LimitRange", true, &["limits"], false),
    Builtin("apps", "v1", "deployments", "Deployment", true, &["deploy"], true),
    Builtin("apps", "v1", "replicasets", "ReplicaSet", true, &["rs"], true),
    Builtin("apps", "v1", "statefulsets", "StatefulSet", true, &["sts"], true),
    Builtin("apps", "v1", "daemonsets", "DaemonSet", true, &["ds"], true),
    Builtin("apps", "v1", "controllerrevisions", "ControllerRevision", true, &[], false),
    Builtin("batch", "v1", "jobs", "Job", true, &[], true),
    Builtin("batch", "v1", "cronjobs", "CronJob", true, &["cj"], true),
    Builtin("coordination.k8s.io", "v1", "leases", "Lease", true, &[], false),
    Builtin("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, &["pdb"], true),
    Builtin("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", false, &[], false),
    Builtin("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true, &[], false),
    Builtin("events.k8s.io", "v1", "events", "Event", true, &["ev"], false),
    Builtin("rbac.authorization.k8s.io", "v1", "roles", "Role", true, &[], false),
    Builtin("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true, &[], false),
    Builtin("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false, &[], false),
    Builtin("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false, &[], false),
    Builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false, &["crd", "crds"], true),
    Builtin("certificates.k8s.io", "v1", "certificatesigningrequests", "CertificateSigningRequest", false, &["csr"], true),
];

/// Kinds listed by `kubectl get all`.
const CATEGORY_ALL: &[&str] =
    &["pods", "services", "replicationcontrollers", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "cronjobs"];

impl Builtin {
    fn info(&self) -> ResourceInfo {
        let Builtin(group, version, plural, kind, namespaced, short, status) = *self;
        let core_event_storage = plural == "events";
        ResourceInfo {
            group: group.into(),
            versions: vec![version.into()],
            plural: plural.into(),
            singular: kind.to_lowercase(),
            kind: kind.into(),
            namespaced,
            short_names: short.iter().map(|s| s.to_string()).collect(),
            categories: if CATEGORY_ALL.contains(&plural) && (group.is_empty() || group == "apps" || group == "batch") {
                vec!["all".into()]
            } else if plural == "customresourcedefinitions" {
                // apiextensions-apiserver pkg/registry/customresourcedefinition/etcd.go `Categories`.
                vec!["api-extensions".into()]
            } else {
                vec![]
            },
            status_subresource: status,
            finalize_subresource: group.is_empty() && plural == "namespaces",
            approval_subresource: plural == "certificatesigningrequests",
            ephemeral_containers_subresource: group.is_empty() && plural == "pods",
            binding_subresource: group.is_empty() && plural == "pods",
            scale: match (group, plural) {
                ("apps", "deployments" | "replicasets" | "statefulsets") => Some(ScalePaths::builtin(ScaleSelector::LabelSelector)),
                ("", "replicationcontrollers") => Some(ScalePaths::builtin(ScaleSelector::LabelMap)),
                _ => None,
            },
            collection_delete: !(group.is_empty() && plural == "namespaces"),
            // kube-apiserver stores definitions at v1beta1 (the `EncodeVersioner` of
            // kubernetes pkg/controlplane/apiserver/apiextensions.go), as discovery's hash says.
            storage_version: if group == "apiextensions.k8s.io" { "v1beta1" } else { "v1" }.into(),
            orphan_by_default_in: match (group, plural) {
                ("", "replicationcontrollers") | ("batch", "jobs") => vec!["v1".into()],
                _ => vec![],
            },
            gc_unsupported: core_event_storage,
            graceful: group.is_empty() && plural == "pods",
            // The registries that set `ReturnDeletedObject` (pkg/registry/*/*/storage/storage.go).
            returns_deleted_object: matches!(
                (group, plural),
                (
                    "",
                    "pods"
                        | "services"
                        | "namespaces"
                        | "persistentvolumes"
                        | "persistentvolumeclaims"
                        | "serviceaccounts"
                        | "resourcequotas"
                        | "podtemplates"
                ) | ("storage.k8s.io", "csidrivers" | "csinodes" | "storageclasses" | "volumeattachments" | "volumeattributesclasses")
                    | ("resource.k8s.io", _)
            ),
            name_rule: match (group, plural) {
                ("", "namespaces") | ("", "services") => NameRule::Label,
                // A core/v1 Event's name is checked only by the common rule (kubernetes
                // pkg/apis/core/validation/events.go validates no metadata of the old API).
                ("rbac.authorization.k8s.io", _) | ("", "events") => NameRule::PathSegment,
                _ => NameRule::Subdomain,
            },
            custom: false,
            tracks_generation: matches!(group, "apps" | "batch" | "apiextensions.k8s.io" | "policy" | "discovery.k8s.io")
                || (group.is_empty() && matches!(plural, "replicationcontrollers" | "pods" | "podtemplates")),
            storage: if core_event_storage { (String::new(), "events".into()) } else { (group.into(), plural.into()) },
            conversion: if group == "events.k8s.io" { Conversion::EventsV1 } else { Conversion::None },
            // pkg/registry/*/*/strategy.go of each kind.
            unconditional_update: !matches!(
                (group, plural),
                ("coordination.k8s.io", "leases")
                    | ("policy", "poddisruptionbudgets")
                    | ("node.k8s.io", "runtimeclasses")
                    | ("apiextensions.k8s.io", _)
                    | ("admissionregistration.k8s.io", _)
                    | ("storage.k8s.io", "csidrivers" | "csinodes" | "csistoragecapacities" | "volumeattachments")
            ),
            create_on_update: matches!(
                (group, plural),
                ("", "services" | "endpoints" | "events" | "limitranges")
                    | ("events.k8s.io", "events")
                    | ("coordination.k8s.io", "leases")
                    | ("node.k8s.io", "runtimeclasses")
                    | ("rbac.authorization.k8s.io", _)
            ),
        }
    }
}

/// The resources whose objects the namespace controller deletes from a terminating namespace
/// (upstream's controller discovers them: the namespaced resources of every served group),
/// each once where several share a storage.
#[derive(Clone, Debug, Default)]
pub struct NamespacedResources(pub Vec<Arc<ResourceInfo>>);

/// All served resources, looked up by group and plural.
#[derive(Clone, Debug)]
pub struct Catalogue {
    /// `(group, plural)` → resource.
    resources: BTreeMap<(String, String), Arc<ResourceInfo>>,
}

impl Default for Catalogue {
    fn default() -> Self {
        Self::new()
    }
}

impl Catalogue {
    /// A catalogue with the built-in kinds.
    pub fn new() -> Self {
        let resources = BUILTINS
            .iter()
            .map(|b| {
                let info = b.info();
                ((info.group.clone(), info.plural.clone()), Arc::new(info))
            })
            .collect();
        Self { resources }
    }

    /// The resource served at `group/version/plural`, if any.
    pub fn lookup(&self, group: &str, version: &str, plural: &str) -> Option<Arc<ResourceInfo>> {
        self.resources.get(&(group.to_string(), plural.to_string())).filter(|r| r.serves(version)).cloned()
    }

    /// Whether any resource of `group` is served (its paths get a Status when they name nothing).
    pub fn serves_group(&self, group: &str) -> bool {
        self.resources.values().any(|r| r.group == group)
    }

    /// Whether `group` is served by custom resource definitions alone: its paths are the
    /// apiextensions server's, which hands what it cannot serve to a plain 404.
    pub fn is_custom_group(&self, group: &str) -> bool {
        let mut resources = self.resources.values().filter(|r| r.group == group).peekable();
        resources.peek().is_some() && resources.all(|r| r.custom)
    }

    /// The resource of `kind` in `group` (any version).
    pub fn by_kind(&self, group: &str, kind: &str) -> Option<Arc<ResourceInfo>> {
        self.resources.values().find(|r| r.group == group && r.kind == kind).cloned()
    }

    /// Every namespaced resource, once where several share a storage.
    pub fn namespaced(&self) -> NamespacedResources {
        NamespacedResources(self.all().filter(|r| r.namespaced && r.storage == (r.group.clone(), r.plural.clone())).cloned().collect())
    }

    /// Every resource.
    pub fn all(&self) -> impl Iterator<Item = &Arc<ResourceInfo>> {
        self.resources.values()
    }

    /// Served groups with their versions, in the order discovery lists them: core, the
    /// built-in groups by their priority, then custom resources' groups by name.
    pub fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in self.resources.values() {
            let versions = groups.entry(r.group.clone()).or_default();
            for v in &r.versions {
                if !versions.contains(v) {
                    versions.push(v.clone());
                }
            }
        }
        let mut groups: Vec<_> = groups.into_iter().collect();
        groups.sort_by_key(|(group, _)| GROUP_ORDER.iter().position(|g| g == group).unwrap_or(GROUP_ORDER.len()));
        groups
    }

    /// Adds or replaces a resource (a CustomResourceDefinition became established).
    pub fn insert(&mut self, info: ResourceInfo) {
        self.resources.insert((info.group.clone(), info.plural.clone()), Arc::new(info));
    }

    /// Removes a resource (its CustomResourceDefinition is gone).
    pub fn remove(&mut self, group: &str, plural: &str) {
        self.resources.remove(&(group.to_string(), plural.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_policies_follow_catalogue_b2() {
        let r = Catalogue::new();
        let rc = r.lookup("", "v1", "replicationcontrollers").unwrap();
        assert_eq!(rc.default_gc_policy("v1"), DefaultGcPolicy::OrphanDependents);
        let job = r.lookup("batch", "v1", "jobs").unwrap();
        assert_eq!(job.default_gc_policy("v1"), DefaultGcPolicy::OrphanDependents);
        let ev = r.lookup("", "v1", "events").unwrap();
        assert_eq!(ev.default_gc_policy("v1"), DefaultGcPolicy::Unsupported);
        let ev2 = r.lookup("events.k8s.io", "v1", "events").unwrap();
        assert_eq!(ev2.default_gc_policy("v1"), DefaultGcPolicy::Unsupported);
        let rs = r.lookup("apps", "v1", "replicasets").unwrap();
        assert_eq!(rs.default_gc_policy("v1"), DefaultGcPolicy::DeleteDependents);
    }

    #[test]
    fn quotas_limits_templates_budgets_and_runtime_classes_are_served_as_upstream() {
        let c = Catalogue::new();
        let quota = c.lookup("", "v1", "resourcequotas").unwrap();
        assert!(quota.namespaced && quota.status_subresource && !quota.tracks_generation);
        assert_eq!(quota.short_names, ["quota"]);
        assert_eq!(c.lookup("", "v1", "limitranges").unwrap().short_names, ["limits"]);
        assert!(c.lookup("", "v1", "podtemplates").unwrap().tracks_generation);
        let pdb = c.lookup("policy", "v1", "poddisruptionbudgets").unwrap();
        assert!(pdb.namespaced && pdb.status_subresource && pdb.tracks_generation);
        assert_eq!(pdb.short_names, ["pdb"]);
        let runtime = c.lookup("node.k8s.io", "v1", "runtimeclasses").unwrap();
        assert!(!runtime.namespaced && !runtime.status_subresource);
        let namespaced = c.namespaced();
        let emptied: Vec<&str> = namespaced.0.iter().map(|r| r.plural.as_str()).collect();
        for plural in ["resourcequotas", "limitranges", "podtemplates", "poddisruptionbudgets"] {
            assert!(emptied.contains(&plural), "the namespace controller deletes {plural}");
        }
    }
}
