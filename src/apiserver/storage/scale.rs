//! GET, PUT, PATCH and server-side apply of the `scale` subresource: the parent's `Scale` is computed from it
//! ([`crate::apiserver::scale`]), and a written `Scale` becomes an update of the parent's desired
//! replicas, at the Scale's resourceVersion if it has one, through the ordinary update (so with
//! its dry run, its conflicts, its managed fields and its validation).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::apiserver::catalogue::{ResourceInfo, ScalePaths};
use crate::apiserver::go_quote::quote;
use crate::apiserver::patch::{PatchType, undecodable};
use crate::apiserver::scale::{SCALE_API_VERSION, ScaleWrite, has_replicas, scale_of, set_at};
use crate::apiserver::schema::{WriteOptions, typed};
use crate::apiserver::scheme::registered;
use crate::apiserver::status::{ApiError, ApiResult, FieldError};
use crate::apiserver::storage::create::check_type;
use crate::apiserver::storage::update::check_name;
use crate::apiserver::storage::write::{Management, Target};
use crate::apiserver::storage::{Scope, Storage};

/// The scale paths of the resource in `scope`; 404 for a resource without the subresource.
fn paths(scope: &Scope) -> ApiResult<&ScalePaths> {
    scope.resource.scale.as_ref().ok_or_else(ApiError::not_found_path)
}

/// The scope a Scale body is decoded in: the scale handler's codec reads an `autoscaling/v1`
/// Scale, a built-in type even for a custom resource (kubernetes pkg/registry/apps/
/// deployment/storage/storage.go `ScaleREST.New`), before it looks for the parent.
fn as_scale(scope: &Scope) -> Scope {
    let resource = ResourceInfo {
        group: "autoscaling".into(),
        kind: "Scale".into(),
        storage: ("autoscaling".into(), "scale".into()),
        custom: false,
        ..(*scope.resource).clone()
    };
    Scope { resource: Arc::new(resource), version: "v1".into(), namespace: scope.namespace.clone() }
}

/// Refuses negative replicas: in the Scale's own validation for a built-in kind, in the
/// parent's for a custom resource (apiextensions-apiserver
/// `pkg/registry/customresource/validator.go`, `ValidateScaleSpec`).
fn check_replicas(scope: &Scope, name: &str, paths: &ScalePaths, write: &ScaleWrite) -> ApiResult<()> {
    let resource = &scope.resource;
    if !resource.custom {
        let errs = write.errors();
        return if errs.is_empty() { Ok(()) } else { Err(ApiError::invalid("autoscaling", "Scale", name, errs)) };
    }
    if write.replicas < 0 {
        let err = FieldError::invalid(paths.spec_replicas.clone(), json!(write.replicas), "should be a non-negative integer");
        return Err(ApiError::invalid(&resource.group, &resource.kind, name, vec![err]));
    }
    Ok(())
}

/// Why the patch handler cannot decode the result of a JSON or merge patch of a Scale, which it
/// decodes by the version and kind it names, if they are not registered (k8s.io/apiserver
/// pkg/endpoints/handlers/patch.go `jsonPatcher`; the converter that reads a strategic merge
/// patch's result takes neither).
fn unregistered(patched: &Value) -> Option<String> {
    let text = |field: &str| patched[field].as_str().unwrap_or("").to_string();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", &api_version));
    (!registered("autoscaling", group, version, &kind)).then(|| {
        format!("no kind {} is registered for version {} in scheme \"pkg/runtime/scheme.go:111\"", quote(&kind), quote(&api_version))
    })
}

impl Storage {
    /// GET of the Scale of object `name`: 404 when it is missing, and, for a custom resource
    /// with no desired replicas, upstream's internal error.
    pub fn get_scale(&self, scope: &Scope, name: &str) -> ApiResult<Value> {
        let paths = paths(scope)?;
        let parent = self.get(scope, name)?;
        if scope.resource.custom && !has_replicas(paths, &parent) {
            return Err(ApiError::internal(format!("the spec replicas field {:?} does not exist", paths.spec_replicas)));
        }
        Ok(scale_of(paths, &parent))
    }

    /// PUT of the Scale of object `name`: the body is a Scale named as the URL names it.
    pub fn update_scale(&mut self, scope: &Scope, name: &str, mut body: Value, opts: WriteOptions) -> ApiResult<Value> {
        let paths = paths(scope)?.clone();
        check_type(&as_scale(scope), &mut body)?;
        check_name(&body, name)?;
        let parent = self.scale_parent(scope, name)?;
        self.write_scale(scope, name, &paths, &parent, &body, opts)
    }

    /// PATCH of the Scale of object `name` with a body of `patch_type`, applied to the Scale
    /// the parent shows (strategic merge too: a Scale is a built-in type, even of a custom
    /// resource).
    pub fn patch_scale(&mut self, scope: &Scope, name: &str, patch_type: PatchType, body: &[u8], opts: WriteOptions) -> ApiResult<Value> {
        let paths = paths(scope)?.clone();
        let parent = self.scale_parent(scope, name)?;
        let mut current = scale_of(&paths, &parent);
        if !has_replicas(&paths, &parent) {
            // Absent, not 0: a patch must set it (upstream marks it with an impossible value).
            current["spec"] = json!({});
        }
        let patched = patch_type.apply(&current, body, opts.field_validation)?;
        // Decoded, the patched object is a Scale whatever version and kind it names.
        let mut scale = patched.clone();
        scale["apiVersion"] = json!(SCALE_API_VERSION);
        scale["kind"] = json!("Scale");
        let unregistered = if patch_type == PatchType::Strategic { None } else { unregistered(&patched) };
        if let Some(json_error) = unregistered.or_else(|| typed::unknown_fields_of("autoscaling", "Scale", &scale).err())
            && let Some(refusal) = undecodable::refusal(patch_type, body, &patched, &json_error)
        {
            return Err(refusal);
        }
        self.write_scale(scope, name, &paths, &parent, &scale, opts)
    }

    /// Server-side apply of a Scale configuration for the request's manager: the desired
    /// replicas it sets are applied to the parent, through the subresource, so that another
    /// manager of them conflicts unless `force`.
    pub fn apply_scale(&mut self, scope: &Scope, name: &str, config: Value, force: bool, opts: WriteOptions) -> ApiResult<Value> {
        let paths = paths(scope)?.clone();
        let parent = self.scale_parent(scope, name)?;
        let write = ScaleWrite::read(&config)?;
        check_replicas(scope, name, &paths, &write)?;
        let mut parent_config = json!({"apiVersion": parent["apiVersion"], "kind": parent["kind"], "metadata": {"name": name}});
        if !config["spec"]["replicas"].is_null() {
            set_at(&mut parent_config, &paths.spec_replicas, json!(write.replicas));
        }
        let (applied, _) = self.apply(scope, name, parent_config, Target::Scale, force, opts)?;
        Ok(scale_of(&paths, &applied))
    }

    /// The parent of a Scale written, as served; 404 if it is missing.
    fn scale_parent(&self, scope: &Scope, name: &str) -> ApiResult<Value> {
        let stored = self.store.get(&scope.request_key(name)?).ok_or_else(|| ApiError::not_found(scope.resource.qualified(), name))?;
        scope.present(stored)
    }

    /// Writes the desired replicas of `scale` into `parent`, in upstream's order of checks:
    /// the Scale's own validation (built-in kinds), its uid precondition, then the update's
    /// resourceVersion precondition and the parent's validation (a custom resource's replicas
    /// may not be negative).
    fn write_scale(
        &mut self,
        scope: &Scope,
        name: &str,
        paths: &ScalePaths,
        parent: &Value,
        scale: &Value,
        opts: WriteOptions,
    ) -> ApiResult<Value> {
        let write = ScaleWrite::read(scale)?;
        let resource = &scope.resource;
        if resource.custom && scale["spec"]["replicas"].is_null() && !has_replicas(paths, parent) {
            return Err(ApiError::bad_request(format!("the spec replicas field {:?} cannot be empty", paths.spec_replicas)));
        }
        if !resource.custom {
            check_replicas(scope, name, paths, &write)?;
        }
        let parent_uid = parent["metadata"]["uid"].as_str().unwrap_or_default();
        if let Some(uid) = write.uid.as_deref().filter(|uid| *uid != parent_uid) {
            return Err(scope.precondition_failed(name, &format!("UID in precondition: {uid}, UID in object meta: {parent_uid}")));
        }
        let stored_version = parent["metadata"]["resourceVersion"].as_str().unwrap_or_default();
        if write.resource_version.as_deref().is_some_and(|rv| rv != stored_version) {
            return Err(ApiError::conflict_modified(resource.qualified(), name));
        }
        if resource.custom {
            check_replicas(scope, name, paths, &write)?;
        }
        let mut new = parent.clone();
        if !set_at(&mut new, &paths.spec_replicas, json!(write.replicas)) {
            return Err(ApiError::bad_request(format!("the spec replicas field {:?} cannot be set", paths.spec_replicas)));
        }
        let management = Management::Update(opts.field_manager.clone());
        let updated = self.update_managed(scope, name, new, Target::Scale, opts, &management)?;
        Ok(scale_of(paths, &updated))
    }
}
