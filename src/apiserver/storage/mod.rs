//! The generic store of the API server (upstream's `registry/generic/registry.Store`): what
//! lives behind the server's one lock — the [`store`] of objects, the [`Catalogue`] of served
//! resources, the clock — and the verbs every resource is served with, one file each:
//! [`create`], [`read`] (get, list), [`update`] (update, patch), [`apply`] (server-side apply),
//! [`delete`] (delete, delete collection) and [`scale`] (the `scale` subresource), all methods
//! of [`Storage`]; [`write`] holds what
//! they share about a write: the part of the object it changes and who manages its fields. Every write goes through
//! [`Storage::commit`] or [`Storage::remove`], which do the bookkeeping a write needs (CRD
//! registration, objects awaiting the simulated controllers, Events' expiry). No HTTP here: requests arrive
//! decoded from [`crate::apiserver::http`].

pub mod apply;
pub mod binding;
mod bootstrap;
pub mod continue_token;
pub mod create;
pub mod delete;
pub mod expiry;
pub mod hooks;
pub mod identity;
pub mod legacy_tokens;
pub mod read;
pub mod scale;
pub mod store;
pub mod update;
pub mod write;

pub use bootstrap::KUBERNETES_SERVICE_IP;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::apiserver::catalogue::{Catalogue, ResourceInfo};
use crate::apiserver::convert;
use crate::apiserver::go_quote;
use crate::apiserver::ids::Ids;
use crate::apiserver::mutant::Mutant;
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::storage::hooks::{Kind, KindOf};
use crate::apiserver::storage::identity::Identity;
use crate::apiserver::storage::store::{ObjectKey, Store};
use crate::clock::Clock;

/// A request's resolved resource, version and namespace.
#[derive(Clone, Debug)]
pub struct Scope {
    /// The resource.
    pub resource: Arc<ResourceInfo>,
    /// The version the request was made at.
    pub version: String,
    /// The namespace from the URL (none for cluster-scoped resources and all-namespace lists).
    pub namespace: Option<String>,
}

impl Scope {
    /// The storage key of object `name`.
    pub fn key(&self, name: &str) -> ObjectKey {
        let (g, r) = &self.resource.storage;
        ObjectKey::new(g, r, self.namespace.as_deref().unwrap_or(""), name)
    }

    /// The storage key of object `name` named by a request, refused as the registry's key
    /// functions refuse it (`NamespaceKeyFunc` and `NoNamespaceKeyFunc`, k8s.io/apiserver
    /// pkg/registry/generic/registry/store.go): a namespaced resource without a namespace, and a
    /// name that cannot be a path segment (`content.IsPathSegmentName`).
    pub fn request_key(&self, name: &str) -> ApiResult<ObjectKey> {
        if self.resource.namespaced && self.namespace.as_deref().unwrap_or("").is_empty() {
            return Err(ApiError::bad_request("Namespace parameter required."));
        }
        let problems: Vec<String> = match name {
            "." | ".." => vec![format!("may not be '{name}'")],
            _ => ["/", "%"].iter().filter(|c| name.contains(*c)).map(|c| format!("may not contain '{c}'")).collect(),
        };
        if !problems.is_empty() {
            return Err(ApiError::bad_request(format!("Name parameter invalid: {}: {}", go_quote::quote(name), problems.join(";"))));
        }
        self.check_key_segments(Some(name))?;
        Ok(self.key(name))
    }

    /// etcd3's refusal of a key with a `.` or `..` segment, which only the namespace of a path
    /// brings this far (`storage.PrepareKey`, k8s.io/apiserver pkg/storage/interfaces.go): 500
    /// naming the key under `/registry`; `name` is none for a collection.
    pub fn check_key_segments(&self, name: Option<&str>) -> ApiResult<()> {
        let Some(namespace @ ("." | "..")) = self.namespace.as_deref() else {
            return Ok(());
        };
        let name = name.map(|n| format!("/{n}")).unwrap_or_default();
        let key = format!("/{}/{namespace}{name}", self.resource.etcd_prefix());
        Err(ApiError::unknown(format!("invalid key: {}", go_quote::quote(&key))))
    }

    /// The stored object as served at this scope's version (fails when that needs a conversion
    /// the server cannot make).
    pub fn present(&self, stored: &Value) -> ApiResult<Value> {
        convert::to_served(&self.resource, &self.version, stored)
    }

    /// The stored object as served at this scope's version, shared with the store when it is
    /// served as stored (the common case), copied and converted otherwise.
    pub fn serve(&self, stored: &Arc<Value>) -> ApiResult<Arc<Value>> {
        if convert::served_as_stored(&self.resource, &self.version, stored) {
            return Ok(stored.clone());
        }
        self.present(stored).map(Arc::new)
    }

    /// An object served at this scope's version in its stored form.
    pub fn to_storage(&self, served: Value) -> ApiResult<Value> {
        convert::to_storage(&self.resource, &self.version, served)
    }

    /// The 409 of a storage precondition on object `name` that failed as `failed` says, as
    /// etcd3's store words it (with the object's key under `/registry`).
    pub fn precondition_failed(&self, name: &str, failed: &str) -> ApiError {
        let r = &self.resource;
        let path = r.etcd_prefix();
        let namespace = self.namespace.as_deref().map(|n| format!("{n}/")).unwrap_or_default();
        let detail = format!(
            "StorageError: invalid object, Code: 4, Key: /registry/{path}/{namespace}{name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: {failed}"
        );
        ApiError::conflict(r.qualified(), name, &detail)
    }

    /// A scope for the core `namespaces` resource.
    pub fn namespaces(catalogue: &Catalogue) -> Self {
        Self { resource: catalogue.lookup("", "v1", "namespaces").expect("built-in"), version: "v1".into(), namespace: None }
    }
}

/// Everything the API server's lock protects, and the verbs that act on it.
#[derive(Debug)]
pub struct Storage {
    /// Objects and their history.
    pub store: Store,
    /// Served resources.
    pub catalogue: Catalogue,
    /// Time source for timestamps.
    pub clock: Clock,
    /// Source of uids and generated names.
    pub ids: Ids,
    /// Objects the simulated controllers must look at: terminating namespaces and CRDs, and
    /// pods in graceful deletion. Kept here so that a pass never scans the whole store.
    pub awaiting_controllers: BTreeSet<ObjectKey>,
    /// Whether DELETE manages GC finalizers (see [`crate::apiserver::Config::garbage_collection`]).
    pub garbage_collection: bool,
    /// Whether terminating namespaces are emptied and removed (see
    /// [`crate::apiserver::Config::namespace_controller`]).
    pub namespace_controller: bool,
    /// The broken rule this server runs with (see [`crate::apiserver::Config::mutant`]).
    pub mutant: Option<Mutant>,
    /// The store revision at the end of the last controller pass that wrote nothing: when it
    /// equals the current revision, the simulated controllers have nothing to do until time
    /// passes.
    pub controllers_quiescent_at: u64,
    /// How long an Event lives after its last write (see [`crate::apiserver::Config::event_ttl`]).
    pub event_ttl: chrono::Duration,
    /// When each stored Event expires ([`expiry`]).
    pub event_expiry: BTreeMap<ObjectKey, DateTime<Utc>>,
    /// The etcd lease the last Event write was given ([`expiry`]).
    pub event_lease: Option<expiry::Lease>,
    /// The CRD finalizer's waits for the objects of deleted definitions, by definition name
    /// ([`CleanupWait`]).
    pub definition_cleanups: BTreeMap<String, CleanupWait>,
    /// The server's identity, whose Lease it keeps ([`identity`]).
    pub identity: Option<Identity>,
    /// When the legacy token tracking ConfigMap was last made ([`legacy_tokens`]).
    pub legacy_token_tracking: legacy_tokens::LegacyTokenTracking,
    /// Finds each resource's hooks.
    kind_of: KindOf,
}

impl Storage {
    /// A fresh storage with the built-in kinds and what a fresh server holds (namespaces, RBAC),
    /// its uids from `ids`; `kind_of` finds what is special about each resource.
    pub fn new(clock: Clock, ids: Ids, history_limit: usize, kind_of: KindOf) -> Self {
        let identity = Identity::of_this_host(|| ids.uid());
        let mut state = Self {
            store: Store::new(history_limit),
            catalogue: Catalogue::new(),
            clock,
            ids,
            awaiting_controllers: BTreeSet::new(),
            garbage_collection: true,
            namespace_controller: true,
            mutant: None,
            controllers_quiescent_at: 0,
            event_ttl: chrono::Duration::hours(1),
            event_expiry: BTreeMap::new(),
            event_lease: None,
            definition_cleanups: BTreeMap::new(),
            identity,
            legacy_token_tracking: legacy_tokens::LegacyTokenTracking::default(),
            kind_of,
        };
        state.bootstrap();
        state
    }

    /// What is special about the kind of the resource in `scope`.
    pub fn kind(&self, scope: &Scope) -> &'static dyn Kind {
        (self.kind_of)(&scope.resource.group, &scope.resource.plural)
    }

    /// What is special about the kind of the object stored under `key`.
    pub fn kind_of_key(&self, key: &ObjectKey) -> &'static dyn Kind {
        (self.kind_of)(&key.group, &key.resource)
    }

    /// Resolves a resource at a version, or 404.
    pub fn scope(&self, group: &str, version: &str, plural: &str, namespace: Option<String>) -> ApiResult<Scope> {
        let resource = self.catalogue.lookup(group, version, plural).ok_or_else(ApiError::not_found_path)?;
        let namespace = if resource.namespaced { namespace } else { None };
        Ok(Scope { resource, version: version.into(), namespace })
    }

    /// Writes an object and does the bookkeeping every write needs.
    pub fn commit(&mut self, key: ObjectKey, object: Value) -> Arc<Value> {
        let kind = self.kind_of_key(&key);
        kind.committed(&mut self.catalogue, &object);
        if kind.awaits_controller(&object) {
            self.awaiting_controllers.insert(key.clone());
        }
        self.written(&key);
        self.store.put(key, object)
    }

    /// Removes an object and does the bookkeeping (a removed CRD stops serving its resource and
    /// loses any objects left).
    pub fn remove(&mut self, key: &ObjectKey) -> Option<Arc<Value>> {
        let removed = self.store.remove(key)?;
        self.awaiting_controllers.remove(key);
        self.event_expiry.remove(key);
        self.kind_of_key(key).removed(self, &removed);
        Some(removed)
    }

    /// Checks that a custom resource may be created: 403 while its definition is being deleted,
    /// as the apiextensions server's admission wrapper refuses it before any other plugin
    /// (`forbidCreateAdmission`, apiextensions-apiserver pkg/apiserver/customresource_handler.go).
    /// `name` is the one the request gave.
    pub fn check_definition_accepts(&self, scope: &Scope, name: &str) -> ApiResult<()> {
        let definition = format!("{}.{}", scope.resource.plural, scope.resource.group);
        let definitions = self.scope("apiextensions.k8s.io", "v1", "customresourcedefinitions", None)?;
        let terminating = self.store.get(&definitions.key(&definition)).is_some_and(|d| {
            let condition = d["status"]["conditions"].as_array().and_then(|cs| cs.iter().find(|c| c["type"] == "Terminating")).cloned();
            !d["metadata"]["deletionTimestamp"].is_null() || condition.is_some_and(|c| c["status"] == "True")
        });
        if terminating {
            let why = "create not allowed while custom resource definition is terminating";
            return Err(ApiError::forbidden(scope.resource.qualified(), name, why));
        }
        Ok(())
    }

    /// Checks that objects may be created in `namespace`: 404 if it does not exist, 403 with a
    /// `NamespaceTerminating` cause while its phase is `Terminating` (the NamespaceLifecycle
    /// admission plugin, k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle).
    pub fn check_namespace_accepts(&self, scope: &Scope, namespace: &str, name: &str) -> ApiResult<()> {
        // The plugin's live lookup of a namespace named `.` or `..` is refused by client-go
        // before it is sent (`rest.IsValidPathSegmentName`, k8s.io/client-go/rest/request.go).
        if let "." | ".." = namespace {
            return Err(ApiError::internal(format!("invalid resource name {}: [may not be '{namespace}']", go_quote::quote(namespace))));
        }
        let ns_scope = Scope::namespaces(&self.catalogue);
        let Some(ns) = self.store.get(&ns_scope.key(namespace)) else {
            return Err(ApiError::not_found(ns_scope.resource.qualified(), namespace));
        };
        if ns["status"]["phase"] == "Terminating" {
            let mut refused = ApiError::forbidden(
                scope.resource.qualified(),
                name,
                &format!("unable to create new content in namespace {namespace} because it is being terminated"),
            );
            let details = refused.details.get_or_insert_with(|| json!({}));
            details["causes"] = json!([{
                "reason": "NamespaceTerminating",
                "message": format!("namespace {namespace} is being terminated"),
                "field": "metadata.namespace",
            }]);
            return Err(refused);
        }
        Ok(())
    }
}

/// The CRD finalizer waiting, after deleting a definition's objects, for those left to go: it
/// lists them every 5 s for a minute (apiextensions-apiserver
/// pkg/controller/finalizer/crd_finalizer.go, `deleteInstances`). Its work queue syncs one
/// definition name at a time, so while it waits a definition of the same name deleted again
/// keeps the mark of its delete (`InstanceDeletionPending`). It lists through the storage the
/// definition was served with; once that definition is gone the storage is torn down, the
/// next list fails and the wait ends early.
#[derive(Clone, Debug)]
pub struct CleanupWait {
    /// The uid of the definition whose objects it waits for.
    pub uid: String,
    /// When it began.
    pub began: DateTime<Utc>,
    /// When the storage it lists through was torn down, if it was.
    pub torn_down: Option<DateTime<Utc>>,
}

impl CleanupWait {
    /// How often it lists.
    const POLL: chrono::Duration = chrono::Duration::seconds(5);
    /// How long it lists before it gives up and the finalizer starts again.
    const TIMEOUT: chrono::Duration = chrono::Duration::seconds(60);

    /// Whether it is over at `now`: its minute has passed, or it has listed since its
    /// storage was torn down.
    pub fn over(&self, now: DateTime<Utc>) -> bool {
        let failed_list = self.torn_down.map(|at| {
            let polls = ((at - self.began).num_milliseconds() + Self::POLL.num_milliseconds() - 1) / Self::POLL.num_milliseconds();
            self.began + Self::POLL * polls.max(0) as i32
        });
        now >= self.began + Self::TIMEOUT || failed_list.is_some_and(|at| now >= at)
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Duration, Utc};

    use super::CleanupWait;

    fn wait(torn_down_after: Option<i64>) -> (CleanupWait, DateTime<Utc>) {
        let began = DateTime::UNIX_EPOCH;
        (CleanupWait { uid: "u".into(), began, torn_down: torn_down_after.map(|ms| began + Duration::milliseconds(ms)) }, began)
    }

    #[test]
    fn a_cleanup_wait_lasts_a_minute_unless_a_list_after_its_storage_went_fails() {
        let (kept, began) = wait(None);
        assert!(!kept.over(began + Duration::seconds(59)));
        assert!(kept.over(began + Duration::seconds(60)));
        let (torn, began) = wait(Some(1_000));
        assert!(!torn.over(began + Duration::milliseconds(4_999)));
        assert!(torn.over(began + Duration::seconds(5)));
        let (on_a_poll, began) = wait(Some(5_000));
        assert!(on_a_poll.over(began + Duration::seconds(5)));
        let (after_a_poll, began) = wait(Some(5_001));
        assert!(!after_a_poll.over(began + Duration::milliseconds(9_999)));
        assert!(after_a_poll.over(began + Duration::seconds(10)));
    }
}
