//! What a write touches and who manages its fields: the part of the object it may change
//! ([`Target`]), the manager recorded in `metadata.managedFields` ([`Management`]), and what
//! field management needs to know of it ([`FieldContext`]: the object's schema, a custom
//! resource's from its definition, the version and subresource written, the part it may own).

use serde_json::Value;

use crate::apiserver::apply::schema::Node;
use crate::apiserver::apply::{self, Owns, Write};
use crate::apiserver::schema::go_shapes;
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::storage::{Scope, Storage};
use crate::apiserver::warning;
use crate::clock::format_time;

/// Drops the owner references of `object` that repeat an earlier one exactly, with upstream's
/// warning naming their uids (`dedupOwnerReferencesAndAddWarning` in k8s.io/apiserver
/// pkg/endpoints/handlers/rest.go): a create or update does it before field management and
/// again after mutating admission, a patch only after admission, and its warning says so.
/// References that share a uid but differ in another field all stay.
pub(super) fn dedup_owner_references(object: &mut Value, patch: bool) {
    let Some(references) = object["metadata"].get_mut("ownerReferences").and_then(Value::as_array_mut) else { return };
    let mut kept: Vec<Value> = Vec::with_capacity(references.len());
    let mut duplicates = Vec::new();
    for reference in std::mem::take(references) {
        if kept.contains(&reference) {
            duplicates.push(reference["uid"].as_str().unwrap_or_default().to_string());
        } else {
            kept.push(reference);
        }
    }
    *references = kept;
    if !duplicates.is_empty() {
        let observed = if patch { " after mutating admission happens" } else { "" };
        warning::add(&format!(
            ".metadata.ownerReferences contains duplicate entries{observed}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: {}",
            duplicates.join(", ")
        ));
    }
}

/// Which part of the object a write may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The main resource: everything but `status` where the kind has a status subresource.
    Main,
    /// The `status` subresource: a custom resource's `status` only, a built-in kind's all but
    /// `spec`.
    Status,
    /// The namespace `finalize` subresource: only `spec.finalizers`.
    Finalize,
    /// The certificate signing request `approval` subresource: only `status.conditions`.
    Approval,
    /// The pod `ephemeralcontainers` subresource: only `spec.ephemeralContainers`.
    EphemeralContainers,
    /// The `scale` subresource, written as its parent with the desired replicas changed (only
    /// through [`Storage::update_scale`] and [`Storage::patch_scale`]).
    Scale,
}

impl Target {
    /// Maps a URL subresource; 404 for one the resource does not have.
    pub fn from_subresource(scope: &Scope, sub: Option<&str>) -> ApiResult<Self> {
        match sub {
            None => Ok(Self::Main),
            Some("status") if scope.resource.status_subresource => Ok(Self::Status),
            Some("finalize") if scope.resource.finalize_subresource => Ok(Self::Finalize),
            Some("approval") if scope.resource.approval_subresource => Ok(Self::Approval),
            Some("ephemeralcontainers") if scope.resource.ephemeral_containers_subresource => Ok(Self::EphemeralContainers),
            Some(_) => Err(ApiError::not_found_path()),
        }
    }

    /// Whether an apply to this target of an absent object creates it: the main resource's
    /// always (the patch handler forces the create), the status store's where its registry
    /// creates on update (`Store.Update`, k8s.io/apiserver pkg/registry/generic/registry/store.go:
    /// the status stores force none).
    pub fn apply_creates(self, scope: &Scope) -> bool {
        self == Self::Main || (self == Self::Status && scope.resource.create_on_update)
    }
}

/// Who manages the fields of a write, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Management {
    /// A create, update or non-apply patch: the manager records an `Update`.
    Update(String),
    /// A server-side apply, whose result carries its managedFields already.
    Applied,
}

/// What field management needs to know of a write: owned, so that the store can change while
/// it is held.
pub struct FieldContext {
    schema: Option<Value>,
    kind: String,
    custom: bool,
    api_version: String,
    versions: Vec<String>,
    subresource: &'static str,
    owns: Owns,
    scale_replicas: Option<String>,
    now: String,
}

impl FieldContext {
    /// The rules' view of the write.
    pub fn write(&self) -> Write<'_> {
        Write {
            node: Node::root(&self.api_version, &self.kind, self.custom, self.schema.as_ref()),
            kind: &self.kind,
            api_version: &self.api_version,
            versions: &self.versions,
            subresource: self.subresource,
            owns: self.owns,
            scale_replicas: self.scale_replicas.as_deref(),
            now: &self.now,
        }
    }

    /// Records the `Update` of `manager` turning `live` into `new` (nothing for an apply), or
    /// into `requested` where that is given: the object as the request made it, when the
    /// strategy then drops some of its changes (upstream's field manager sees the request's
    /// object before the strategy does). `new` stays as decoded: see [`FieldContext::store`].
    pub fn record(&self, live: &Value, requested: Option<Value>, new: &mut Value, management: &Management) {
        if let Management::Update(manager) = management {
            match requested {
                Some(mut requested) => {
                    apply::record_update(live, &mut requested, manager, &self.write());
                    new["metadata"]["managedFields"] = requested["metadata"]["managedFields"].take();
                }
                None => apply::record_update(live, new, manager, &self.write()),
            }
        }
    }

    /// A decoded object as it will be stored: for a built-in kind, the empty lists and maps
    /// its decoded Go type held (and field management saw) are gone, as protobuf keeps none.
    pub fn store(&self, new: &mut Value) {
        if !self.custom {
            *new = go_shapes::round_trip(&self.api_version, &self.kind, new);
        }
    }
}

impl Storage {
    /// The field-management context of a write to `target` of the resource in `scope`.
    pub fn field_context(&self, scope: &Scope, target: Target) -> FieldContext {
        let resource = &scope.resource;
        let (subresource, owns) = match target {
            // A CertificateSigningRequest's spec is the requester's only as the strategy fills
            // it: upstream resets both (`GetResetFields` in
            // pkg/registry/certificates/certificates/strategy.go).
            Target::Main if resource.kind == "CertificateSigningRequest" => ("", Owns::AllBut(&["spec", "status"])),
            Target::Main if resource.status_subresource => ("", Owns::AllBut(&["status"])),
            Target::Main => ("", Owns::All),
            Target::Status if resource.custom => ("status", Owns::Only("status")),
            Target::Status => ("status", Owns::AllBut(&["spec"])),
            Target::Finalize => ("finalize", Owns::AllBut(&["status"])),
            Target::Approval => ("approval", Owns::Only("status")),
            Target::EphemeralContainers => ("ephemeralcontainers", Owns::All),
            Target::Scale => ("scale", Owns::Only("spec")),
        };
        FieldContext {
            schema: self.custom_schema(scope),
            kind: resource.kind.clone(),
            custom: resource.custom,
            api_version: resource.api_version(&scope.version),
            versions: resource.versions.iter().map(|v| resource.api_version(v)).collect(),
            subresource,
            owns,
            scale_replicas: resource.scale.as_ref().filter(|_| target == Target::Scale).map(|paths| paths.spec_replicas.clone()),
            now: format_time(self.clock.now()),
        }
    }

    /// The `openAPIV3Schema` of a custom resource at the scope's version, from its definition.
    pub(super) fn custom_schema(&self, scope: &Scope) -> Option<Value> {
        let resource = &scope.resource;
        if !resource.custom {
            return None;
        }
        let key =
            ObjectKey::new("apiextensions.k8s.io", "customresourcedefinitions", "", &format!("{}.{}", resource.plural, resource.group));
        let definition = self.store.get(&key)?;
        let version = definition["spec"]["versions"].as_array()?.iter().find(|v| v["name"] == scope.version.as_str())?;
        Some(version["schema"]["openAPIV3Schema"].clone()).filter(|s| !s.is_null())
    }
}
