//! PUT and PATCH: replacing and patching objects, their `status` subresource, the namespace
//! `finalize` subresource and the certificate signing request `approval` one, with optimistic
//! concurrency and the metadata rules of upstream `rest.BeforeUpdate` (apimachinery
//! `ValidateObjectMetaUpdate`) and `ShouldDeleteDuringUpdate`.

use serde_json::{Value, json};

use crate::apiserver::deletion::{AfterUpdate, after_update};
use crate::apiserver::go_quote::json_type_name;
use crate::apiserver::mutant::Mutable;
use crate::apiserver::patch::{PatchType, undecodable};
use crate::apiserver::schema::{WriteOptions, typed};
use crate::apiserver::status::{ApiError, ApiResult, FieldError};
use crate::apiserver::storage::create;
use crate::apiserver::storage::write::{Management, Target, dedup_owner_references};
use crate::apiserver::storage::{Scope, Storage};
use crate::apiserver::validation::{MetaValidation, generate_name_revalidated, normalize_metadata};
use crate::apiserver::{declarative, defaults, enums, pod_specs, warning, write_warnings};
use crate::clock::format_time;

/// The Go type the JSON serializer decodes an object's type meta into, as its errors name it.
const GO_TYPE_META: &str = r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;

/// Everything but `metadata` and `status`: a change here bumps `metadata.generation`.
fn spec_part(obj: &Value) -> Value {
    let mut v = obj.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("metadata");
        m.remove("status");
        m.remove("apiVersion");
        m.remove("kind");
    }
    v
}

impl Storage {
    /// PUT: replaces object `name` with `body`, or creates it when it is absent and the kind's
    /// registry creates on update; returns the object as served and whether it was created.
    pub fn put(&mut self, scope: &Scope, name: &str, body: Value, target: Target, opts: WriteOptions) -> ApiResult<(Value, bool)> {
        // A name no key can hold goes to the update, which refuses it after the body's name.
        let absent = scope.request_key(name).is_ok_and(|key| self.store.get(&key).is_none());
        if !(matches!(target, Target::Main | Target::Status) && scope.resource.create_on_update && absent) {
            return Ok((self.update(scope, name, body, target, opts)?, false));
        }
        // The handler decodes the body and checks its name before the store finds nothing to
        // update (k8s.io/apiserver pkg/endpoints/handlers/update.go).
        let mut body = self.decoded(scope, body, &opts)?;
        check_name(&body, name)?;
        uid_precondition(scope, name, &body, &Value::Null)?;
        // The store writes a new object whatever version the request named.
        if let Some(meta) = body["metadata"].as_object_mut() {
            meta.remove("resourceVersion");
        }
        let management = Management::Update(opts.field_manager.clone());
        Ok(((*self.create_decoded(scope, body, target, opts, &management)?).clone(), true))
    }

    /// Replaces object `name` with `body` (PUT); returns the stored object as served.
    pub fn update(&mut self, scope: &Scope, name: &str, body: Value, target: Target, opts: WriteOptions) -> ApiResult<Value> {
        let management = Management::Update(opts.field_manager.clone());
        self.update_managed(scope, name, body, target, opts, &management)
    }

    /// Replaces object `name` with `body`, whose fields `management` manages.
    pub fn update_managed(
        &mut self,
        scope: &Scope,
        name: &str,
        body: Value,
        target: Target,
        opts: WriteOptions,
        management: &Management,
    ) -> ApiResult<Value> {
        // The namespace before the name, as the update and patch handlers check them
        // (k8s.io/apiserver pkg/endpoints/handlers/update.go, patch.go).
        let mut body = self.decoded(scope, body, &opts)?;
        check_name(&body, name)?;
        if !scope.resource.custom {
            defaults::apply(&scope.resource.group, &scope.resource.kind, &mut body);
        }
        let key = scope.request_key(name)?;
        let existing = self.store.get(&key).cloned().ok_or_else(|| ApiError::not_found(scope.resource.qualified(), name))?;
        let existing = scope.present(&existing)?;
        if !opts.patch {
            uid_precondition(scope, name, &body, &existing)?;
        }
        match body["metadata"]["resourceVersion"].as_str().filter(|rv| !rv.is_empty()) {
            Some(rv) if rv != existing["metadata"]["resourceVersion"].as_str().unwrap_or("") => {
                return Err(ApiError::conflict_modified(scope.resource.qualified(), name));
            }
            // The generic store's `Update` names the resource where the kind would go.
            None if !scope.resource.unconditional_update => {
                let missing = FieldError::invalid("metadata.resourceVersion", json!(0), "must be specified for an update");
                return Err(ApiError::invalid(&scope.resource.group, &scope.resource.plural, name, vec![missing]));
            }
            _ => {}
        }

        // An apply's result carries the managedFields it recorded, which the subresources that
        // start from the stored object keep.
        let applied_fields = (*management == Management::Applied).then(|| body["metadata"]["managedFields"].clone());
        // The ephemeral containers' strategy drops every other change, after the handler's
        // field manager has given the request's manager each field it changed, ephemeral
        // container or not (`podEphemeralContainersStrategy.PrepareForUpdate`, kubernetes
        // pkg/registry/core/pod/strategy.go, resets no field the manager records).
        let requested = (target == Target::EphemeralContainers).then(|| body.clone());
        let mut new = match target {
            Target::Main if scope.resource.status_subresource => with_stored(body, &existing, "status"),
            Target::Main => body,
            Target::Status if scope.resource.custom => {
                // A custom resource's status write changes nothing but status
                // (apiextensions-apiserver pkg/registry/customresource/status_strategy.go).
                // A status the request does not send is removed, not nulled.
                let mut new = existing.clone();
                if let Some(object) = new.as_object_mut() {
                    match body.get("status") {
                        Some(status) => object.insert("status".into(), status.clone()),
                        None => object.remove("status"),
                    };
                }
                new
            }
            Target::Status => {
                // A built-in kind's status strategy keeps only the stored spec: the request's
                // metadata (labels, annotations, finalizers, owner references) is written too
                // (pkg/registry/*/*/strategy.go, `PrepareForUpdate` of each status strategy; the
                // e2e test "Namespaces should apply changes to a namespace status" patches an
                // annotation through namespaces/status). The kind resets what else it keeps.
                with_stored(body, &existing, "spec")
            }
            // The finalize strategy keeps only the stored status: the request's metadata is
            // written too (`namespaceFinalizeStrategy.PrepareForUpdate`, kubernetes
            // pkg/registry/core/namespace/strategy.go).
            Target::Finalize => with_stored(body, &existing, "status"),
            Target::Approval => {
                let mut new = existing.clone();
                new["status"]["conditions"] = body["status"]["conditions"].clone();
                new
            }
            // The stored pod with the request's ephemeral containers and nothing else
            // (`dropNonEphemeralContainerUpdates`, kubernetes pkg/registry/core/pod/strategy.go).
            Target::EphemeralContainers => {
                let mut new = existing.clone();
                match body["spec"].get("ephemeralContainers") {
                    Some(containers) if !containers.is_null() => new["spec"]["ephemeralContainers"] = containers.clone(),
                    _ => {
                        if let Some(spec) = new["spec"].as_object_mut() {
                            spec.remove("ephemeralContainers");
                        }
                    }
                }
                new
            }
            // The scale verbs hand the stored object with nothing but its replicas changed.
            Target::Scale => body,
        };
        if let Some(fields) = applied_fields {
            new["metadata"]["managedFields"] = fields;
        }
        let mut refused = self.kind(scope).prepare_update(target, &mut new, &existing, &format_time(self.clock.now()));
        carry_over_metadata(&mut new, &existing);
        if scope.resource.tracks_generation && matches!(target, Target::Main | Target::Scale) && spec_part(&new) != spec_part(&existing) {
            let generation = existing["metadata"]["generation"].as_i64().unwrap_or(0);
            new["metadata"]["generation"] = json!(generation + 1);
        }
        dedup_owner_references(&mut new, opts.patch);
        let fields = self.field_context(scope, target);
        fields.record(&existing, requested, &mut new, management);
        carry_over_deletion(&mut new, &existing);
        // An update that ends a deletion answers with the object as the request decoded, empty
        // lists and all: the store deletes it and hands back the request's object
        // (`deleteWithoutFinalizers`, k8s.io/apiserver pkg/registry/generic/registry/store.go).
        let decoded = existing["metadata"]["deletionTimestamp"].is_string().then(|| new.clone());
        fields.store(&mut new);
        let mut errs =
            MetaValidation::of(&new["metadata"], Some(&existing["metadata"]), &scope.resource).mutated_by(self.mutant).into_errors();
        errs.extend(generate_name_revalidated(&scope.resource, &new, target == Target::Status));
        errs.append(&mut refused);
        errs.extend(self.kind(scope).validate_update(&new, &existing));
        errs.extend(pod_specs::validate(&scope.resource, &new));
        errs.extend(enums::validate(&scope.resource, &new));
        errs.extend(declarative::validate(&scope.resource, &new));
        if !errs.is_empty() {
            return Err(ApiError::invalid(scope.resource.internal_group(), &scope.resource.kind, name, errs));
        }
        // The strategy's `WarningsOnUpdate` (a status strategy's gives none).
        if matches!(target, Target::Main | Target::Scale) {
            let new_generation = new["metadata"]["generation"] != existing["metadata"]["generation"];
            for text in write_warnings::on_update(&scope.resource.group, &scope.resource.kind, &new, new_generation) {
                warning::add(&text);
            }
        }
        if new == existing {
            return Ok(existing);
        }
        if after_update(&new).mutated_by(self.mutant) == AfterUpdate::Removed {
            if !opts.dry_run {
                self.remove(&key);
            }
            return Ok(decoded.unwrap_or(new));
        }
        if opts.dry_run {
            return Ok(new);
        }
        let stored = self.commit(key, scope.to_storage(new)?);
        scope.present(&stored)
    }

    /// Applies a PATCH body of `patch_type` to object `name`; returns the result as served.
    pub fn patch(
        &mut self,
        scope: &Scope,
        name: &str,
        patch_type: PatchType,
        body: &[u8],
        target: Target,
        opts: WriteOptions,
    ) -> ApiResult<Value> {
        let key = scope.request_key(name)?;
        let existing = self.store.get(&key).cloned().ok_or_else(|| ApiError::not_found(scope.resource.qualified(), name))?;
        let current = scope.present(&existing)?;
        let mut patched = patch_type.apply(&current, body, opts.field_validation)?;
        if !patched.is_object() {
            // A built-in kind's decoder reads the type meta first, which only an object has
            // (`runtime.DecodeInto` through the JSON serializer's `Find`, k8s.io/apimachinery).
            let why = format!(
                "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go value of type {GO_TYPE_META}",
                json_type_name(&patched)
            );
            return Err(match undecodable::refusal(patch_type, body, &patched, &why) {
                Some(refusal) if !scope.resource.custom => refusal,
                _ => ApiError::bad_request("the patch produced something other than an object"),
            });
        }
        // The strategic patcher converts its result into the endpoint's Go type and that to the
        // internal version, which keeps no type meta (`smpPatcher.applyPatchToCurrentObject`,
        // k8s.io/apiserver pkg/endpoints/handlers/patch.go): a patched apiVersion or kind is
        // ignored, where one of the wrong type fails the conversion.
        if patch_type == PatchType::Strategic {
            for field in ["apiVersion", "kind"] {
                if patched[field].is_string() || patched[field].is_null() {
                    patched[field] = current[field].clone();
                }
            }
        }
        // The patch handler decodes the patched object before anything else of the update: a
        // JSON or merge patch's result as it reads, its type meta included (`jsonPatcher`).
        if matches!(patch_type, PatchType::Json | PatchType::Merge) && !scope.resource.custom {
            let named = |field: &str| patched[field].as_str().filter(|v| !v.is_empty()).or(current[field].as_str()).unwrap_or_default();
            if let Some(why) = create::undecodable_type(scope, named("apiVersion"), named("kind"))
                && let Some(refusal) = undecodable::refusal(patch_type, body, &patched, &why)
            {
                return Err(refusal);
            }
        }
        // A custom resource's patched JSON is decoded as unstructured, its metadata as
        // `ObjectMeta` by the schema coercer (apiextensions-apiserver
        // pkg/apiserver/customresource_handler.go, `schemaCoercingDecoder`).
        let json_error = if scope.resource.custom {
            patched.get("metadata").and_then(typed::metadata_type_error).filter(|_| patch_type != PatchType::Strategic)
        } else {
            typed::unknown_fields_of(&scope.resource.group, &scope.resource.kind, &patched).err()
        };
        if let Some(json_error) = json_error
            && let Some(refusal) = undecodable::refusal(patch_type, body, &patched, &json_error)
        {
            return Err(refusal);
        }
        self.update(scope, name, patched, target, WriteOptions { patch: true, ..opts })
    }
}

/// A PUT's uid is a precondition on the stored object (`defaultUpdatedObjectInfo.Preconditions`,
/// k8s.io/apiserver pkg/registry/rest/update.go), checked by the store before the update looks
/// at versions or validates (`Preconditions.Check` in etcd3's `GuaranteedUpdate`): a uid other
/// than the stored one, or any uid when nothing is stored (`stored` null), is a 409. A PATCH
/// names no precondition: the patched uid meets the immutable-field rule instead.
fn uid_precondition(scope: &Scope, name: &str, body: &Value, stored: &Value) -> ApiResult<()> {
    let uid = body["metadata"]["uid"].as_str().unwrap_or_default();
    let stored_uid = stored["metadata"]["uid"].as_str().unwrap_or_default();
    if uid.is_empty() || uid == stored_uid {
        return Ok(());
    }
    Err(scope.precondition_failed(name, &format!("UID in precondition: {uid}, UID in object meta: {stored_uid}")))
}

/// `rest.BeforeUpdate`: system fields keep their stored values. The field manager ignores
/// these ones (`stripMeta`, k8s.io/apimachinery pkg/util/managedfields/internal/stripmeta.go).
fn carry_over_metadata(new: &mut Value, old: &Value) {
    let (nm, om) = (&mut new["metadata"], &old["metadata"]);
    nm["generation"] = om["generation"].clone();
    if nm["uid"].as_str().unwrap_or("").is_empty() {
        nm["uid"] = om["uid"].clone();
    }
    nm["creationTimestamp"] = om["creationTimestamp"].clone();
    nm["resourceVersion"] = om["resourceVersion"].clone();
    normalize_metadata(nm);
}

/// `rest.BeforeUpdate` again: an update can never remove or change a deletion timestamp, nor
/// clear a deletion grace period. The field manager, which runs before it, saw the request's.
fn carry_over_deletion(new: &mut Value, old: &Value) {
    let (nm, om) = (&mut new["metadata"], &old["metadata"]);
    if !om["deletionTimestamp"].is_null() {
        nm["deletionTimestamp"] = om["deletionTimestamp"].clone();
    }
    if !om["deletionGracePeriodSeconds"].is_null() && nm["deletionGracePeriodSeconds"].is_null() {
        nm["deletionGracePeriodSeconds"] = om["deletionGracePeriodSeconds"].clone();
    }
}

/// The name of an updated object (a PUT's, a patch's result) against its URL's, as the update
/// and patch handlers check it once the object is decoded and its namespace matched
/// (`checkName`, k8s.io/apiserver pkg/endpoints/handlers/rest.go; its namespace check cannot
/// fail after that).
pub(super) fn check_name(object: &Value, name: &str) -> ApiResult<()> {
    match object["metadata"]["name"].as_str().unwrap_or("") {
        "" => {
            let why = format!("the name of the object ({name} based on URL) was undeterminable: name must be provided");
            Err(ApiError::bad_request(why))
        }
        own if own != name => {
            Err(ApiError::bad_request(format!("the name of the object ({own}) does not match the name on the URL ({name})")))
        }
        _ => Ok(()),
    }
}

/// `new` with its top-level `part` as `existing` stores it (absent if `existing` has none): the
/// part a strategy's `PrepareForUpdate` resets from the old object.
fn with_stored(mut new: Value, existing: &Value, part: &str) -> Value {
    match existing.get(part) {
        Some(stored) => new[part] = stored.clone(),
        None => {
            new.as_object_mut().expect("object").remove(part);
        }
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_put_names_its_object_as_its_url_does() {
        let message = |object: Value| check_name(&object, "a").unwrap_err().message;
        assert_eq!(message(json!({})), "the name of the object (a based on URL) was undeterminable: name must be provided");
        assert_eq!(message(json!({"metadata": {"name": "b"}})), "the name of the object (b) does not match the name on the URL (a)");
        assert!(check_name(&json!({"metadata": {"name": "a"}}), "a").is_ok());
    }
}
