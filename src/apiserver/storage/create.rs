//! POST: creating objects.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::apiserver::catalogue::ResourceInfo;
use crate::apiserver::go_quote::quote;
use crate::apiserver::mutant::Mutable;
use crate::apiserver::schema::{WriteOptions, check_fields, go_shapes, typed};
use crate::apiserver::scheme::registered;
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::storage::write::{Management, Target, dedup_owner_references};
use crate::apiserver::storage::{Scope, Storage};
use crate::apiserver::validation::{MetaValidation, normalize_metadata};
use crate::apiserver::{admission, declarative, defaults, enums, pod_specs, warning, write_warnings};
use crate::clock::format_time;

/// Checks the body's `apiVersion` and `kind` against the endpoint, filling them when absent
/// (as the apiserver's decoder does with the endpoint's defaults). A body of another type is
/// refused as upstream's decoder refuses it (`DecoderToVersion` in
/// k8s.io/apimachinery pkg/runtime/serializer/versioning, then the handler's version check in
/// k8s.io/apiserver pkg/endpoints/handlers/create.go): a kind the scheme does not register;
/// else the first field of the wrong type for the body's own kind; else a kind with no
/// conversion to the endpoint's; else a version the endpoint does not take.
pub fn check_type(scope: &Scope, body: &mut Value) -> ApiResult<()> {
    let Some(map) = body.as_object_mut() else {
        return Err(ApiError::bad_request("the body of the request must be a JSON object"));
    };
    let want_version = scope.resource.api_version(&scope.version);
    let expected = &scope.resource.kind;
    // A custom resource's decoder takes no default from the URL: an absent version is one
    // the handler refuses (`Serializer.Decode` into an Unstructured, k8s.io/apimachinery).
    for (field, default) in [("apiVersion", &want_version), ("kind", expected)] {
        let defaulted = !scope.resource.custom || field == "kind";
        if defaulted && map.get(field).and_then(Value::as_str).is_none_or(str::is_empty) {
            map.insert(field.into(), json!(default));
        }
    }
    // A built-in kind's group without a version takes the URL's version when it is the URL's
    // group, or none (`gvkWithDefaults`, k8s.io/apimachinery pkg/runtime/serializer/json).
    let own_group_unversioned = map
        .get("apiVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.split_once('/'))
        .is_some_and(|(group, version)| version.is_empty() && (group.is_empty() || group == scope.resource.group));
    if !scope.resource.custom && own_group_unversioned {
        map.insert("apiVersion".into(), json!(want_version));
    }
    let field = |name: &str| map.get(name).and_then(Value::as_str).unwrap_or_default().to_string();
    let (api_version, kind) = (field("apiVersion"), field("kind"));
    let mismatch = || {
        ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({want_version})"
        ))
    };
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", &api_version));
    let cannot =
        |why: String| ApiError::bad_request(format!("{kind} in version {} cannot be handled as a {expected}: {why}", quote(version)));
    let unconvertible = || cannot(unconvertible(scope, version, &kind));
    if scope.resource.custom {
        // A custom resource's decoder reads any kind, its metadata as an ObjectMeta
        // (`schemaCoercingDecoder`, apiextensions-apiserver pkg/apiserver/
        // customresource_handler.go); then the handler checks its version and kind.
        if let Some(wrong_type) = body.get("metadata").and_then(typed::metadata_type_error) {
            return Err(cannot(wrong_type));
        }
        if api_version != want_version {
            return Err(mismatch());
        }
        if kind != *expected {
            return Err(unconvertible());
        }
        if !body.get("metadata").is_none_or(Value::is_object) {
            return Err(ApiError::bad_request("metadata must be an object"));
        }
    } else if api_version != want_version || kind != *expected {
        if let Some(why) = unregistered(scope, &api_version, &kind) {
            return Err(cannot(why));
        }
        // The fake reads each kind through its `v1` type, which takes no other version.
        let mut as_v1 = body.clone();
        as_v1["apiVersion"] = json!(if group.is_empty() { "v1".to_string() } else { format!("{group}/v1") });
        if let Err(wrong_type) = typed::unknown_fields_of(group, &kind, &as_v1) {
            return Err(cannot(wrong_type));
        }
        return Err(if kind != *expected { unconvertible() } else { mismatch() });
    }
    // A built-in kind's metadata of the wrong type is the typed decoding's to refuse.
    Ok(())
}

/// Why a built-in endpoint's decoder cannot read a body naming `api_version` and `kind`
/// (filled from the endpoint where absent) into its internal type: a kind the scheme does not
/// register at that version, or another kind, which has no conversion to the endpoint's; `None`
/// for the endpoint's own kind at a registered version.
pub fn undecodable_type(scope: &Scope, api_version: &str, kind: &str) -> Option<String> {
    let (_, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    unregistered(scope, api_version, kind).or_else(|| (kind != scope.resource.kind).then(|| unconvertible(scope, version, kind)))
}

/// The scheme's error for `kind` at `api_version`, if it does not register it.
fn unregistered(scope: &Scope, api_version: &str, kind: &str) -> Option<String> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let scheme = "pkg/runtime/scheme.go:111";
    (!registered(&scope.resource.group, group, version, kind))
        .then(|| format!("no kind {} is registered for version {} in scheme {}", quote(kind), quote(api_version), quote(scheme)))
}

/// The conversion's error for `kind` at `version`, read into the endpoint's internal type,
/// named by the Go package of that type.
fn unconvertible(scope: &Scope, version: &str, kind: &str) -> String {
    let internal = match scope.resource.internal_group() {
        "" => "core",
        group => group.split('.').next().unwrap_or(group),
    };
    format!("converting ({version}.{kind}) to ({internal}.{}): unknown conversion", scope.resource.kind)
}

/// Makes `metadata.namespace` agree with the URL: filled when absent, 400 on mismatch, cleared
/// for cluster-scoped resources and an empty namespace in the URL.
pub fn check_namespace(scope: &Scope, body: &mut Value) -> ApiResult<()> {
    let Some(meta) = body["metadata"].as_object_mut() else {
        return Err(ApiError::bad_request("metadata must be an object"));
    };
    match scope.namespace.as_deref().filter(|ns| !ns.is_empty()) {
        Some(ns) => match meta.get("namespace").and_then(Value::as_str) {
            None | Some("") => {
                meta.insert("namespace".into(), json!(ns));
            }
            Some(n) if n == ns => {}
            Some(_) => {
                return Err(ApiError::bad_request("the namespace of the provided object does not match the namespace sent on the request"));
            }
        },
        None => {
            meta.remove("namespace");
        }
    }
    Ok(())
}

/// Drops the status a new object was sent with, as every built-in strategy but the Node's
/// does in `PrepareForCreate` (`pkg/registry/*/*/strategy.go`), and a custom resource's with a
/// status subresource (k8s.io/apiextensions-apiserver pkg/registry/customresource/strategy.go):
/// the Go type's zero status, which the kind's defaults then fill.
fn start_status_afresh(resource: &ResourceInfo, body: &mut Value) {
    if let Some(fields) = body.as_object_mut() {
        fields.remove("status");
    }
    if !resource.custom {
        let api_version = body["apiVersion"].as_str().unwrap_or_default().to_string();
        *body = go_shapes::round_trip(&api_version, &resource.kind, body);
    }
}

impl Storage {
    /// Creates an object from a request body; returns the stored object as served.
    pub fn create(&mut self, scope: &Scope, body: Value, opts: WriteOptions) -> ApiResult<Arc<Value>> {
        let management = Management::Update(opts.field_manager.clone());
        self.create_managed(scope, body, Target::Main, opts, &management)
    }

    /// A request's body as the create and update handlers decode it: its kind and version,
    /// its fields' types and names, then its namespace against the URL's (decoding comes before
    /// the handler's namespace check).
    pub fn decoded(&self, scope: &Scope, mut body: Value, opts: &WriteOptions) -> ApiResult<Value> {
        check_type(scope, &mut body)?;
        if body.get("metadata").is_none() {
            body["metadata"] = json!({});
        }
        let mut body = check_fields(&scope.resource, body, opts, self.custom_schema(scope).as_ref())?;
        check_namespace(scope, &mut body)?;
        Ok(body)
    }

    /// Creates an object whose fields `management` manages.
    pub fn create_managed(
        &mut self,
        scope: &Scope,
        body: Value,
        target: Target,
        opts: WriteOptions,
        management: &Management,
    ) -> ApiResult<Arc<Value>> {
        if scope.resource.namespaced && scope.namespace.is_none() {
            return Err(ApiError::not_found_path());
        }
        let body = self.decoded(scope, body, &opts)?;
        self.create_decoded(scope, body, target, opts, management)
    }

    /// Creates an object from a decoded body ([`Self::decoded`]) written to `target`: a PUT of
    /// the status of an absent object its registry creates on update goes through the status
    /// store, whose writer owns no spec and which allocates nothing (kubernetes
    /// pkg/registry/core/service/storage/storage.go `StatusREST`).
    pub fn create_decoded(
        &mut self,
        scope: &Scope,
        mut body: Value,
        target: Target,
        opts: WriteOptions,
        management: &Management,
    ) -> ApiResult<Arc<Value>> {
        if !scope.resource.custom {
            defaults::apply(&scope.resource.group, &scope.resource.kind, &mut body);
        }
        let meta = &mut body["metadata"];
        // Admission errors name what the request named: its URL's name, else its body's (the
        // create handler's), else the generateName prefix, else `Unknown`
        // (`extractResourceName`, k8s.io/apiserver pkg/admission/errors.go).
        let body_name = meta["name"].as_str().unwrap_or("").to_string();
        let mut named = opts.url_name.clone().unwrap_or_else(|| body_name.clone());
        if scope.resource.custom {
            self.check_definition_accepts(scope, &named)?;
        }
        if body_name.is_empty()
            && let Some(prefix) = meta["generateName"].as_str().filter(|p| !p.is_empty())
        {
            if named.is_empty() {
                named = prefix.to_string();
            }
            meta["name"] = json!(format!("{prefix}{}", self.ids.name_suffix()));
        }
        if named.is_empty() {
            named = "Unknown".to_string();
        }
        let name = meta["name"].as_str().unwrap_or("").to_string();
        if let Some(ns) = scope.namespace.as_deref().filter(|ns| !ns.is_empty()) {
            self.check_namespace_accepts(scope, ns, &named)?;
        }
        let now = format_time(self.clock.now());
        // The uid comes before the kind's defaults, which may use it (a Job's selector does).
        body["metadata"]["uid"] = json!(self.ids.uid());
        // The handler records the writer's fields before the registry's strategy prepares the
        // object (`PrepareForCreate`): what the strategy sets is nobody's
        // (k8s.io/apiserver/pkg/endpoints/handlers/create.go).
        dedup_owner_references(&mut body, opts.patch);
        let fields = self.field_context(scope, target);
        fields.record(&json!({}), None, &mut body, management);
        fields.store(&mut body);
        if scope.resource.status_subresource && scope.resource.kind != "Node" {
            start_status_afresh(&scope.resource, &mut body);
        }
        let kind = self.kind(scope);
        kind.default_on_create(&mut body, &now);
        // Allocation is the registry's, after the handler recorded the writer's fields
        // (pkg/registry/core/service/storage/alloc.go): allocated addresses are nobody's.
        let refused = if target == Target::Main { kind.allocate(self, &mut body, opts.dry_run) } else { Vec::new() };
        if !refused.is_empty() {
            return Err(ApiError::invalid(scope.resource.internal_group(), &scope.resource.kind, &name, refused));
        }
        let admission = kind.admission().mutated_by(self.mutant);
        admission.admit(&mut body, &self.ids);
        // Upstream's storage decodes, and so defaults, what it stored: defaults that read what the
        // strategy or admission set (a generated name, a Job's generated labels) are filled now.
        if !scope.resource.custom {
            defaults::apply(&scope.resource.group, &scope.resource.kind, &mut body);
        }
        if let Some(ns) = &scope.namespace
            && let Some(account) = admission.service_account_of(&body)
        {
            self.check_service_account(scope, ns, &named, account)?;
        }
        if let Some(class) = admission.runtime_class_of(&body) {
            self.check_runtime_class(scope, &named, class)?;
        }
        let meta = MetaValidation::of(&body["metadata"], None, &scope.resource).mutated_by(self.mutant).into_errors();
        let mut errs = kind.validate_create(&body, meta);
        errs.extend(pod_specs::validate(&scope.resource, &body));
        errs.extend(enums::validate(&scope.resource, &body));
        errs.extend(declarative::validate(&scope.resource, &body));
        if !errs.is_empty() {
            return Err(ApiError::invalid(scope.resource.internal_group(), &scope.resource.kind, &name, errs));
        }
        // The strategy's `WarningsOnCreate`, once the object is valid.
        for text in write_warnings::on_create(&scope.resource.group, &scope.resource.kind, &body) {
            warning::add(&text);
        }
        // The storage refuses a create that names a version, before it looks for the key: an
        // error with no Status, so a 500 of unknown reason (`Create` in
        // k8s.io/apiserver/pkg/storage/etcd3/store.go). Only a version it reads as a number
        // other than 0 counts: any other is overwritten. A dry run never reaches the storage
        // and answers with the version the client sent (`DryRunnableStorage.Create`).
        let client_version = body["metadata"]["resourceVersion"].as_str().filter(|v| !v.is_empty()).map(String::from);
        // (Go's `ParseUint`, unlike Rust's, takes no sign.)
        let as_number = |v: &str| v.bytes().all(|b| b.is_ascii_digit()).then(|| v.parse::<u64>().ok()).flatten();
        let names_a_version = client_version.as_deref().and_then(as_number).is_some_and(|v| v != 0);
        if names_a_version && !opts.dry_run && matches!(management, Management::Update(_)) {
            return Err(ApiError::unknown("resourceVersion should not be set on objects to be created"));
        }
        let key = scope.key(&name);
        if let Some(existing) = self.store.get(&key) {
            return Err(if existing["metadata"]["deletionTimestamp"].is_null() {
                ApiError::already_exists(scope.resource.qualified(), &name)
            } else {
                ApiError::already_exists_terminating(scope.resource.qualified(), &name)
            });
        }
        let meta = body["metadata"].as_object_mut().expect("checked by check_namespace");
        meta.insert("creationTimestamp".into(), json!(now));
        meta.remove("generation");
        if scope.resource.tracks_generation {
            meta.insert("generation".into(), json!(1));
        }
        for system in ["deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion", "selfLink"] {
            meta.remove(system);
        }
        if let Some(version) = client_version.filter(|_| opts.dry_run) {
            body["metadata"]["resourceVersion"] = json!(version);
        }
        normalize_metadata(&mut body["metadata"]);
        let stored = scope.to_storage(body)?;
        if opts.dry_run {
            return scope.present(&stored).map(Arc::new);
        }
        let stored = self.commit(key, stored);
        scope.serve(&stored)
    }

    /// Whether admission would look for the `default` ServiceAccount of `scope`'s namespace,
    /// which does not exist (yet), to create `body`, the object `name` of `scope` if it is
    /// absent (a create's name is its body's).
    pub fn lacks_default_account(&self, scope: &Scope, name: Option<&str>, body: &Value) -> bool {
        let admission = self.kind(scope).admission().mutated_by(self.mutant);
        let (Some(namespace), Some(admission::DEFAULT_ACCOUNT)) = (&scope.namespace, admission.service_account_of(body)) else {
            return false;
        };
        if name.is_some_and(|name| self.store.get(&scope.key(name)).is_some()) {
            return false;
        }
        !self.has_service_account(namespace, admission::DEFAULT_ACCOUNT)
    }

    /// Whether ServiceAccount `account` exists in `namespace`.
    fn has_service_account(&self, namespace: &str, account: &str) -> bool {
        self.scope("", "v1", "serviceaccounts", Some(namespace.to_string()))
            .is_ok_and(|accounts| self.store.get(&accounts.key(account)).is_some())
    }

    /// The ServiceAccount admission plugin's lookup: 403 if `account` does not exist in
    /// `namespace`.
    fn check_service_account(&self, scope: &Scope, namespace: &str, named: &str, account: &str) -> ApiResult<()> {
        if self.has_service_account(namespace, account) {
            return Ok(());
        }
        let why = format!("error looking up service account {namespace}/{account}: serviceaccount \"{account}\" not found");
        Err(ApiError::forbidden(scope.resource.qualified(), named, &why))
    }

    /// The RuntimeClass admission plugin's lookup: 403 if the RuntimeClass `class` does not
    /// exist.
    fn check_runtime_class(&self, scope: &Scope, named: &str, class: &str) -> ApiResult<()> {
        let classes = self.scope("node.k8s.io", "v1", "runtimeclasses", None)?;
        if self.store.get(&classes.key(class)).is_some() {
            return Ok(());
        }
        let why = format!("pod rejected: RuntimeClass \"{class}\" not found");
        Err(ApiError::forbidden(scope.resource.qualified(), named, &why))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::apiserver::ids::Ids;
    use crate::apiserver::kinds;
    use crate::apiserver::schema::WriteOptions;
    use crate::apiserver::storage::{Scope, Storage};
    use crate::clock::Clock;

    fn storage() -> Storage {
        let mut s = Storage::new(Clock::virtual_at(chrono::DateTime::UNIX_EPOCH), Ids::seeded(1), 100, kinds::of);
        s.create(&Scope::namespaces(&s.catalogue), json!({"metadata": {"name": "ns"}}), WriteOptions::default()).unwrap();
        // The account the service account controller makes, which every pod names by default.
        let accounts = s.scope("", "v1", "serviceaccounts", Some("ns".into())).unwrap();
        s.create(&accounts, json!({"metadata": {"name": "default"}}), WriteOptions::default()).unwrap();
        s
    }

    #[test]
    fn a_new_object_s_status_starts_as_its_go_type_s_zero_except_a_node_s() {
        let mut s = storage();
        let budgets = s.scope("policy", "v1", "poddisruptionbudgets", Some("ns".into())).unwrap();
        let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"},
            "spec": {"maxUnavailable": 1}, "status": {"disruptionsAllowed": 5, "observedGeneration": 3}});
        let created = s.create(&budgets, pdb, WriteOptions::default()).unwrap();
        assert_eq!(created["status"], json!({"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}));
        let nodes = s.scope("", "v1", "nodes", None).unwrap();
        let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"capacity": {"pods": "110"}}});
        assert_eq!(s.create(&nodes, node, WriteOptions::default()).unwrap()["status"]["capacity"], json!({"pods": "110"}));
    }

    #[test]
    fn a_pod_naming_a_missing_runtime_class_is_forbidden() {
        let mut s = storage();
        let pods = s.scope("", "v1", "pods", Some("ns".into())).unwrap();
        let pod = json!({"metadata": {"generateName": "rc-pod-"},
            "spec": {"runtimeClassName": "gone", "containers": [{"name": "c", "image": "i"}]}});
        let err = s.create(&pods, pod.clone(), WriteOptions::default()).unwrap_err();
        assert_eq!((err.code, err.reason), (403, "Forbidden"));
        assert_eq!(err.message, "pods \"rc-pod-\" is forbidden: pod rejected: RuntimeClass \"gone\" not found");
        let classes = s.scope("node.k8s.io", "v1", "runtimeclasses", None).unwrap();
        s.create(&classes, json!({"metadata": {"name": "gone"}, "handler": "runc"}), WriteOptions::default()).unwrap();
        assert!(s.create(&pods, pod, WriteOptions::default()).is_ok(), "admitted once the RuntimeClass exists");
    }
}
