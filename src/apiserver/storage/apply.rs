//! Server-side apply (PATCH `application/apply-patch+yaml`): the rules of
//! [`crate::apiserver::apply`] merge the configuration into the live object (or an empty one),
//! and the result goes through the create or update verb, with the same admission, validation
//! and defaults.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::apiserver::apply;
use crate::apiserver::schema::{WriteOptions, report_strict_errors, typed};
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::storage::create::check_namespace;
use crate::apiserver::storage::update::check_name;
use crate::apiserver::storage::write::{Management, Target};
use crate::apiserver::storage::{Scope, Storage};
use crate::apiserver::strict::Keys;

impl Storage {
    /// Applies configuration `config` for `manager` to object `name` (PATCH with
    /// `application/apply-patch+yaml`), creating it when missing. Returns the object as served
    /// and whether it was created.
    pub fn apply(
        &mut self,
        scope: &Scope,
        name: &str,
        config: Value,
        target: Target,
        force: bool,
        opts: WriteOptions,
    ) -> ApiResult<(Value, bool)> {
        let context = self.field_context(scope, target);
        let manager = opts.field_manager.clone();
        let live = match self.store.get(&scope.request_key(name)?) {
            Some(stored) => Some(scope.present(stored)?),
            None if target.apply_creates(scope) => None,
            None => return Err(ApiError::not_found(scope.resource.qualified(), name)),
        };
        let merged = apply::apply(live.as_ref().unwrap_or(&json!({})), &config, &manager, force, &context.write())?;
        if !scope.resource.custom
            && let Err(json_error) = typed::unknown_fields_of(&scope.resource.group, &scope.resource.kind, &merged)
            && let Some(unconvertible) = apply::unconvertible(&config, &merged, &json_error)
        {
            return Err(unconvertible);
        }
        // Repeated keys of the configuration, once it applied (upstream's applyPatcher); the
        // merged object has none to report again.
        report_strict_errors(&opts.body_keys.duplicates(), opts.field_validation, |list| {
            ApiError::bad_request(format!("error strict decoding patch: {list}"))
        })?;
        let opts = WriteOptions { body_keys: Keys::default(), patch: true, ..opts };
        // The patched object's namespace is checked before its name (`patcher.applyPatch`,
        // k8s.io/apiserver pkg/endpoints/handlers/patch.go).
        let mut merged = merged;
        if merged["metadata"].is_object() {
            check_namespace(scope, &mut merged)?;
        }
        check_name(&merged, name)?;
        // An apply that creates may not name a uid (k8s.io/apiserver
        // pkg/endpoints/handlers/patch.go `patchResource`).
        if let (None, Some(uid)) = (&live, merged["metadata"]["uid"].as_str().filter(|uid| !uid.is_empty())) {
            let why = format!("uid mismatch: the provided object specified uid {uid}, and no existing object was found");
            return Err(ApiError::conflict(scope.resource.qualified(), name, &why));
        }
        match live {
            None => Ok((Arc::unwrap_or_clone(self.create_managed(scope, merged, target, opts, &Management::Applied)?), true)),
            Some(_) => Ok((self.update_managed(scope, name, merged, target, opts, &Management::Applied)?, false)),
        }
    }
}
