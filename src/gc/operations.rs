//! The collector's API calls (upstream `operations.go`, and the patch fallback of `patch.go`):
//! metadata-only GET, PATCH and DELETE through a `kube::Client`, with the retries and fallbacks
//! a single change needs (a DELETE retried after an unrelated conflict, a finalizer removal
//! retried on conflicts, a JSON merge patch where strategic merge is refused), and the
//! `OwnerRefInvalidNamespace` event. Nothing here decides what to change.

use std::sync::Arc;

use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, Preconditions, PropagationPolicy};
use kube::core::PartialObjectMeta;
use serde_json::{Value, json};

use crate::gc::events::ObjectMeta;
use crate::gc::graph::{Identity, OwnerRef, Uid};
use crate::gc::patch::{delete_owner_refs_merge, delete_owner_refs_strategic, set_finalizers_merge};
use crate::gc::rest_mapper::Mapping;
use crate::recorder::Record;

/// The component name the collector's events carry, as kube-controller-manager's.
pub const EVENT_SOURCE: &str = "garbage-collector-controller";

/// What a name must have escaped to be one segment of a request path: apimachinery
/// `ValidateOwnerReferences` only checks that an owner reference's name is not empty, so it may
/// hold a space, `/`, `?` or `%`.
const PATH_SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}');

/// `name` as a request path segment (`kube::Api` puts names into paths as they are).
fn segment(name: &str) -> std::borrow::Cow<'_, str> {
    percent_encoding::utf8_percent_encode(name, PATH_SEGMENT).into()
}

fn api(client: &kube::Client, mapping: &Mapping, namespace: &str) -> Api<DynamicObject> {
    if mapping.namespaced {
        Api::namespaced_with(client.clone(), namespace, &mapping.resource)
    } else {
        Api::all_with(client.clone(), &mapping.resource)
    }
}

/// Converts API metadata into the graph's form.
pub fn object_meta(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> ObjectMeta {
    let owners = meta
        .owner_references
        .iter()
        .flatten()
        .map(|r| OwnerRef {
            api_version: Arc::from(r.api_version.as_str()),
            kind: Arc::from(r.kind.as_str()),
            name: r.name.clone().into_boxed_str(),
            uid: Uid::from(r.uid.as_str()),
            controller: r.controller,
            block_owner_deletion: r.block_owner_deletion,
        })
        .collect();
    ObjectMeta {
        uid: Uid::from(meta.uid.as_deref().unwrap_or("")),
        name: meta.name.clone().unwrap_or_default().into_boxed_str(),
        namespace: Arc::from(meta.namespace.as_deref().unwrap_or("")),
        owners,
        being_deleted: meta.deletion_timestamp.is_some(),
        finalizers: meta.finalizers.clone().unwrap_or_default(),
        resource_version: meta.resource_version.clone().unwrap_or_default(),
    }
}

/// GET an object's metadata; `Ok(None)` when it does not exist.
pub async fn get(client: &kube::Client, mapping: &Mapping, namespace: &str, name: &str) -> Result<Option<ObjectMeta>, kube::Error> {
    match api(client, mapping, namespace).get_metadata_opt(&segment(name)).await? {
        Some(PartialObjectMeta { metadata, .. }) => Ok(Some(object_meta(&metadata))),
        None => Ok(None),
    }
}

/// DELETE with UID (and, when given, resourceVersion) preconditions and a propagation policy.
pub async fn delete(
    client: &kube::Client,
    mapping: &Mapping,
    identity: &Identity,
    resource_version: Option<&str>,
    policy: PropagationPolicy,
) -> Result<(), kube::Error> {
    let params = DeleteParams {
        preconditions: Some(Preconditions { uid: Some(identity.uid.to_string()), resource_version: resource_version.map(String::from) }),
        propagation_policy: Some(policy),
        ..DeleteParams::default()
    };
    api(client, mapping, &identity.namespace).delete(&segment(&identity.name), &params).await.map(|_| ())
}

/// PATCH an object's metadata with a strategic merge or JSON merge patch.
pub async fn patch(client: &kube::Client, mapping: &Mapping, identity: &Identity, body: Value, strategic: bool) -> Result<(), kube::Error> {
    let api = api(client, mapping, &identity.namespace);
    let patch = if strategic { Patch::Strategic(body) } else { Patch::Merge(body) };
    api.patch_metadata(&segment(&identity.name), &PatchParams::default(), &patch).await.map(|_| ())
}

/// What [`delete_object`] came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deletion {
    /// The server accepted the DELETE.
    Deleted,
    /// The object is gone, or its name belongs to another object now.
    Absent,
}

/// DELETE with the UID and resourceVersion (of `latest`) preconditions; on a conflict, retried
/// without the resourceVersion if only unrelated fields changed (upstream `deleteObject` since
/// PR #132632).
pub async fn delete_object(
    client: &kube::Client,
    mapping: &Mapping,
    identity: &Identity,
    latest: &ObjectMeta,
    policy: PropagationPolicy,
) -> Result<Deletion, kube::Error> {
    let rv = Some(latest.resource_version.as_str()).filter(|rv| !rv.is_empty());
    let mut result = delete(client, mapping, identity, rv, policy.clone()).await;
    if let Err(e) = &result
        && is_status(e, 409)
        && rv.is_some()
    {
        match get(client, mapping, &identity.namespace, &identity.name).await? {
            None => return Ok(Deletion::Absent),
            Some(live) if live.uid == identity.uid && live.resource_version != latest.resource_version && live.owners == latest.owners => {
                result = delete(client, mapping, identity, None, policy).await;
            }
            Some(_) => {}
        }
    }
    match result {
        Ok(()) => Ok(Deletion::Deleted),
        Err(e) if is_status(&e, 404) => Ok(Deletion::Absent),
        Err(e) => Err(e),
    }
}

/// Strategic merge patch, or the JSON merge patch when the server answers 415 (upstream
/// `GarbageCollector.patch`).
pub async fn patch_with_fallback(
    client: &kube::Client,
    mapping: &Mapping,
    identity: &Identity,
    smp: Value,
    merge: Value,
) -> Result<(), kube::Error> {
    match patch(client, mapping, identity, smp, true).await {
        Err(e) if is_status(&e, 415) => patch(client, mapping, identity, merge, false).await,
        other => other,
    }
}

/// Removes the reference to `owner_uid` from `dependent` (upstream `orphanDependents`, for one
/// dependent): a dependent that is gone is left alone.
pub async fn remove_owner_ref(client: &kube::Client, mapping: &Mapping, dependent: &Identity, owner_uid: &Uid) -> Result<(), kube::Error> {
    let smp = delete_owner_refs_strategic(&dependent.uid, &[owner_uid]);
    match patch(client, mapping, dependent, smp, true).await {
        Ok(()) => Ok(()),
        Err(e) if is_status(&e, 404) => Ok(()),
        Err(e) if is_status(&e, 415) => {
            let Some(current) = get(client, mapping, &dependent.namespace, &dependent.name).await? else { return Ok(()) };
            let merge = delete_owner_refs_merge(&current.resource_version, &current.owners, &[owner_uid]);
            match patch(client, mapping, dependent, merge, false).await {
                Err(e) if is_status(&e, 404) => Ok(()),
                other => other,
            }
        }
        Err(e) => Err(e),
    }
}

/// Removes `finalizer` with a resourceVersion-conditional JSON merge patch, retrying
/// conflicts a few times (upstream `removeFinalizer`). A missing object or finalizer is success.
pub async fn remove_finalizer(client: &kube::Client, mapping: &Mapping, identity: &Identity, finalizer: &str) -> Result<(), kube::Error> {
    let mut delay = std::time::Duration::from_millis(10);
    for attempt in 0..5 {
        let Some(current) = get(client, mapping, &identity.namespace, &identity.name).await? else { return Ok(()) };
        if current.uid != identity.uid || !current.finalizers.iter().any(|f| f == finalizer) {
            return Ok(());
        }
        let remaining: Vec<String> = current.finalizers.iter().filter(|f| *f != finalizer).cloned().collect();
        let body = set_finalizers_merge(&current.resource_version, &remaining);
        match patch(client, mapping, identity, body, false).await {
            Ok(()) => return Ok(()),
            Err(e) if is_status(&e, 404) => return Ok(()),
            Err(e) if is_status(&e, 409) && attempt < 4 => {
                tokio::time::sleep(delay).await;
                delay *= 2;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Records `Warning OwnerRefInvalidNamespace` on `dependent` (upstream
/// `reportInvalidNamespaceOwnerRef`). The event lands in the dependent's namespace, or `default`
/// for a cluster-scoped dependent, as client-go's recorder puts it.
pub async fn record_invalid_namespace_event(client: &kube::Client, dependent: &Identity, owner: &OwnerRef) -> Result<(), kube::Error> {
    let named = Identity::from_ref(owner, &dependent.namespace);
    let record = Record {
        involved: json!({
            "apiVersion": &*dependent.api_version, "kind": &*dependent.kind, "name": &*dependent.name,
            "namespace": &*dependent.namespace, "uid": dependent.uid,
        }),
        event_type: "Warning",
        reason: "OwnerRefInvalidNamespace",
        message: format!("ownerRef {named} does not exist in namespace {:?}", &*dependent.namespace),
    };
    record.send(client, EVENT_SOURCE, chrono::Utc::now()).await
}

/// Whether an API error has this HTTP status.
pub fn is_status(err: &kube::Error, code: u16) -> bool {
    matches!(err, kube::Error::Api(s) if s.code == code)
}
