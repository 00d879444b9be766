//! The collector's API calls (upstream `operations.go`): metadata-only GET, PATCH and DELETE
//! through a `kube::Client`, and the `OwnerRefInvalidNamespace` event. Nothing here decides
//! anything.

use std::sync::Arc;

use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy};
use kube::core::PartialObjectMeta;
use serde_json::{Value, json};

use crate::gc::events::ObjectMeta;
use crate::gc::graph::{Identity, OwnerRef};
use crate::gc::rest_mapper::Mapping;

/// The component name the collector's events carry, as kube-controller-manager's.
pub const EVENT_SOURCE: &str = "garbage-collector-controller";

/// What a name must have escaped to be one segment of a request path: an owner reference's
/// name is not validated (catalogue B.4), so it may hold a space, `/`, `?` or `%`.
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
            uid: Arc::from(r.uid.as_str()),
            controller: r.controller,
            block_owner_deletion: r.block_owner_deletion,
        })
        .collect();
    ObjectMeta {
        uid: Arc::from(meta.uid.as_deref().unwrap_or("")),
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

/// Records `Warning OwnerRefInvalidNamespace` on `dependent` (catalogue A.11). The event lands
/// in the dependent's namespace, or `default` for a cluster-scoped dependent, as client-go's
/// recorder puts it.
pub async fn record_invalid_namespace_event(client: &kube::Client, dependent: &Identity, owner: &OwnerRef) -> Result<(), kube::Error> {
    let named = Identity::from_ref(owner, &dependent.namespace);
    let message = format!("ownerRef {named} does not exist in namespace {:?}", &*dependent.namespace);
    let namespace = if dependent.namespace.is_empty() { "default" } else { &dependent.namespace };
    let now = chrono::Utc::now();
    let event = json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": format!("{}.{:x}", dependent.name, now.timestamp_nanos_opt().unwrap_or_default()), "namespace": namespace},
        "involvedObject": {
            "apiVersion": &*dependent.api_version, "kind": &*dependent.kind, "name": &*dependent.name,
            "namespace": &*dependent.namespace, "uid": &*dependent.uid,
        },
        "reason": "OwnerRefInvalidNamespace",
        "message": message,
        "type": "Warning",
        "source": {"component": EVENT_SOURCE},
        "firstTimestamp": crate::clock::format_time(now),
        "lastTimestamp": crate::clock::format_time(now),
        "count": 1,
        "reportingComponent": EVENT_SOURCE,
    });
    let event: k8s_openapi::api::core::v1::Event = serde_json::from_value(event).expect("a valid Event");
    Api::namespaced(client.clone(), namespace).create(&PostParams::default(), &event).await.map(|_| ())
}

/// Whether an API error has this HTTP status.
pub fn is_status(err: &kube::Error, code: u16) -> bool {
    matches!(err, kube::Error::Api(s) if s.code == code)
}
