//! Kubernetes protobuf: request bodies turned into the Kubernetes JSON the store keeps, and
//! answers written from it ([`encode`]).
//!
//! kubectl and client-go typed clients send bodies for built-in kinds (create, update, DELETE
//! options, evictions) as `application/vnd.kubernetes.protobuf`: the magic bytes `k8s\0`
//! followed by a `runtime.Unknown` envelope whose `typeMeta` names the kind and whose `raw`
//! holds the protobuf encoding of the typed object. The fake apiserver stores every object as a
//! [`serde_json::Value`] in its normal Kubernetes JSON form, so [`decode`] converts such a body
//! into exactly that JSON.
//!
//! # Approach
//!
//! 1. Strip the magic and decode the [`Unknown`] envelope.
//! 2. Look the `(apiVersion, kind)` up in a table of [`k8s_pb`] message types and decode `raw`
//!    into that type. k8s-pb has no serde support and no descriptors, but every prost-derived
//!    message implements `Debug`, which prints all fields in declaration order:
//!    `Namespace { metadata: Some(ObjectMeta { name: Some("t1"), .. }), .. }`.
//! 3. Parse that `Debug` text into a small syntax tree (`Node`) and build the JSON from the
//!    tree. This is one generic conversion instead of hand-written code for hundreds of types:
//!    - field names go from Rust `snake_case` to the Kubernetes `lowerCamelCase` JSON names,
//!      keeping the acronyms Kubernetes spells in capitals (`podIP`, `hostIPs`, `volumeID`);
//!    - the apimachinery types with their own JSON form are recognised by their message name:
//!      `Time`, `MicroTime`, `IntOrString`, `Quantity`, `RawExtension`, `FieldsV1`, `Duration`
//!      and the apiextensions `JSON` / `JSONSchemaProps*Or*` wrappers;
//!    - `bytes` fields (Secret `data`, ConfigMap `binaryData`, `caBundle`) become base64;
//!    - the Go structs Kubernetes embeds without a JSON name (`VolumeSource` in `Volume`,
//!      `LocalObjectReference` in key selectors, ...) are flattened into their parent.
//!
//! # Omitted fields
//!
//! Go's protobuf marshaller writes every non-pointer field, so a body from a Go client carries
//! `generateName: ""`, `generation: 0`, `hostNetwork: false` and the like, where Go's JSON
//! encoder (`omitempty`) would leave them out. The output follows Go's JSON encoder: a zero
//! scalar (`""`, `0`, `false`, a zero `IntOrString`) is dropped unless `KEPT_ZEROS` lists the
//! field, that is unless the Go field is a pointer (only written when set, and its zero means
//! something: `gracePeriodSeconds: 0`, `replicas: 0`, `blockOwnerDeletion: false`) or has no
//! `omitempty` (`served: false`, `containerPort`). Unset (`None`) fields and empty lists and
//! maps are always omitted; so is a zero `Time` (an empty message on the wire), which Go prints
//! as `null`.

use k8s_pb::api::{apps, autoscaling, batch, coordination, core, events, networking, policy};
use k8s_pb::api::{node, rbac, scheduling};
use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime::Unknown;
use serde_json::{Map, Value};

use debug_text::Parser;
use to_json::node_to_json;

pub use encode::{encode, encode_discovery, encodes, watch_frame};

mod debug_text;
mod encode;
mod kept_zeros;
mod names;
mod to_json;

#[cfg(test)]
mod tests;

/// The media type of Kubernetes protobuf bodies.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The four bytes every Kubernetes protobuf body starts with.
const MAGIC: &[u8] = b"k8s\0";

/// Whether a `Content-Type` header value names the Kubernetes protobuf encoding.
///
/// Parameters (`;charset=...`) are ignored and the media type is compared case-insensitively.
pub fn is_protobuf(content_type: &str) -> bool {
    let media_type = content_type.split(';').next().unwrap_or_default().trim();
    media_type.eq_ignore_ascii_case(MEDIA_TYPE)
}

/// Decodes a Kubernetes protobuf body (`k8s\0` + `runtime.Unknown`) into Kubernetes JSON.
///
/// The result carries `apiVersion` and `kind` from the envelope. The error text is meant for a
/// `400 BadRequest` status message: a missing magic prefix, an undecodable envelope or object,
/// an unsupported kind or content encoding. Never panics, whatever the input.
pub fn decode(body: &[u8]) -> Result<Value, String> {
    let envelope = decode_envelope(body)?;
    let type_meta = envelope.type_meta.unwrap_or_default();
    let api_version = type_meta.api_version.unwrap_or_default();
    let kind = type_meta.kind.unwrap_or_default();
    let raw = envelope.raw.unwrap_or_default();
    let text = debug_text_of(&api_version, &kind, &raw)?;
    let tree = Parser::parse(&text).map_err(|e| format!("protobuf body: cannot read decoded {api_version} {kind}: {e}"))?;
    let fields = match node_to_json(&tree) {
        Ok(Some(Value::Object(fields))) => fields,
        Ok(_) => return Err(format!("protobuf body: decoded {api_version} {kind} is not an object")),
        Err(e) => return Err(format!("protobuf body: cannot convert {api_version} {kind}: {e}")),
    };
    let mut object = Map::new();
    object.insert("apiVersion".into(), Value::String(api_version));
    object.insert("kind".into(), Value::String(kind));
    object.extend(fields);
    Ok(Value::Object(object))
}

/// The events of a watch streamed as protobuf (frames as [`watch_frame`] writes them), each as
/// the `{"type", "object"}` a JSON watch sends; a frame cut short ends them.
pub fn decode_watch(body: &[u8]) -> Result<Vec<Value>, String> {
    let mut events = Vec::new();
    let mut rest = body;
    while let Some((length, after)) = rest.split_first_chunk::<4>() {
        let length = u32::from_be_bytes(*length) as usize;
        let Some(frame) = after.get(..length) else { break };
        let event = <meta::WatchEvent as prost::Message>::decode(frame).map_err(|e| format!("protobuf watch event: {e}"))?;
        let raw = event.object.and_then(|o| o.raw).unwrap_or_default();
        events.push(serde_json::json!({"type": event.r#type.unwrap_or_default(), "object": decode(&raw)?}));
        rest = &after[length..];
    }
    Ok(events)
}

/// Checks the magic prefix and decodes the `runtime.Unknown` envelope after it.
fn decode_envelope(body: &[u8]) -> Result<Unknown, String> {
    // As the protobuf serializer words it (k8s.io/apimachinery pkg/runtime/serializer/protobuf).
    let message =
        body.strip_prefix(MAGIC).ok_or("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]")?;
    let envelope = <Unknown as prost::Message>::decode(message)
        .map_err(|e| format!("protobuf body: cannot decode the runtime.Unknown envelope: {e}"))?;
    match envelope.content_encoding.as_deref() {
        None | Some("") => Ok(envelope),
        Some(encoding) => Err(format!("protobuf body: content encoding {encoding:?} is not supported")),
    }
}

/// Decodes `raw` as message type `M` and returns its `Debug` text.
fn debug_text<M: prost::Message + Default + std::fmt::Debug>(raw: &[u8]) -> Result<String, prost::DecodeError> {
    M::decode(raw).map(|message| format!("{message:?}"))
}

/// Declares the supported kinds: `"apiVersion", "Kind" => k8s_pb::Type;`.
macro_rules! supported_kinds {
    ($($api_version:literal, $kind:literal => $message:ty;)*) => {
        /// Decodes `raw` as the k8s-pb message of `(api_version, kind)` and returns its `Debug`
        /// text. `DeleteOptions` is accepted under any group version: every group version registers
        /// it, so client-go may label it `meta.k8s.io/v1`, `v1` or the group of the resource it
        /// deletes (`apps/v1`, ...).
        fn debug_text_of(api_version: &str, kind: &str, raw: &[u8]) -> Result<String, String> {
            let decoded = match (api_version, kind) {
                $(($api_version, $kind) => debug_text::<$message>(raw),)*
                (_, "DeleteOptions") => debug_text::<meta::DeleteOptions>(raw),
                _ => {
                    return Err(format!(
                        "protobuf body: kind {kind:?} in {api_version:?} is not supported; send JSON"
                    ))
                }
            };
            decoded.map_err(|e| format!("protobuf body: cannot decode {api_version} {kind}: {e}"))
        }

        /// Every supported `(apiVersion, kind)` with the encoding of an empty message. Only tests
        /// use it; it is generated here, from the list `debug_text_of` dispatches on, so that the
        /// test that decodes every kind cannot miss one.
        #[cfg(test)]
        fn supported_kinds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
            vec![$(($api_version, $kind, prost::Message::encode_to_vec(&<$message>::default())),)*]
        }
    };
}

supported_kinds! {
    "v1", "Binding" => core::v1::Binding;
    "v1", "ConfigMap" => core::v1::ConfigMap;
    "v1", "Endpoints" => core::v1::Endpoints;
    "v1", "Event" => core::v1::Event;
    "v1", "LimitRange" => core::v1::LimitRange;
    "v1", "Namespace" => core::v1::Namespace;
    "v1", "Node" => core::v1::Node;
    "v1", "PersistentVolume" => core::v1::PersistentVolume;
    "v1", "PersistentVolumeClaim" => core::v1::PersistentVolumeClaim;
    "v1", "Pod" => core::v1::Pod;
    "v1", "PodTemplate" => core::v1::PodTemplate;
    "v1", "ReplicationController" => core::v1::ReplicationController;
    "v1", "ResourceQuota" => core::v1::ResourceQuota;
    "v1", "Secret" => core::v1::Secret;
    "v1", "Service" => core::v1::Service;
    "v1", "ServiceAccount" => core::v1::ServiceAccount;
    "apps/v1", "ControllerRevision" => apps::v1::ControllerRevision;
    "apps/v1", "DaemonSet" => apps::v1::DaemonSet;
    "apps/v1", "Deployment" => apps::v1::Deployment;
    "apps/v1", "ReplicaSet" => apps::v1::ReplicaSet;
    "apps/v1", "StatefulSet" => apps::v1::StatefulSet;
    "autoscaling/v1", "Scale" => autoscaling::v1::Scale;
    "batch/v1", "CronJob" => batch::v1::CronJob;
    "batch/v1", "Job" => batch::v1::Job;
    "coordination.k8s.io/v1", "Lease" => coordination::v1::Lease;
    "events.k8s.io/v1", "Event" => events::v1::Event;
    "rbac.authorization.k8s.io/v1", "ClusterRole" => rbac::v1::ClusterRole;
    "rbac.authorization.k8s.io/v1", "ClusterRoleBinding" => rbac::v1::ClusterRoleBinding;
    "rbac.authorization.k8s.io/v1", "Role" => rbac::v1::Role;
    "rbac.authorization.k8s.io/v1", "RoleBinding" => rbac::v1::RoleBinding;
    "apiextensions.k8s.io/v1", "CustomResourceDefinition" => apiextensions::CustomResourceDefinition;
    "policy/v1", "Eviction" => policy::v1::Eviction;
    "policy/v1", "PodDisruptionBudget" => policy::v1::PodDisruptionBudget;
    "node.k8s.io/v1", "RuntimeClass" => node::v1::RuntimeClass;
    "scheduling.k8s.io/v1", "PriorityClass" => scheduling::v1::PriorityClass;
    "networking.k8s.io/v1", "Ingress" => networking::v1::Ingress;
    "networking.k8s.io/v1", "IngressClass" => networking::v1::IngressClass;
    "networking.k8s.io/v1", "NetworkPolicy" => networking::v1::NetworkPolicy;
    "v1", "ConfigMapList" => core::v1::ConfigMapList;
    "v1", "EndpointsList" => core::v1::EndpointsList;
    "v1", "EventList" => core::v1::EventList;
    "v1", "LimitRangeList" => core::v1::LimitRangeList;
    "v1", "NamespaceList" => core::v1::NamespaceList;
    "v1", "NodeList" => core::v1::NodeList;
    "v1", "PersistentVolumeList" => core::v1::PersistentVolumeList;
    "v1", "PersistentVolumeClaimList" => core::v1::PersistentVolumeClaimList;
    "v1", "PodList" => core::v1::PodList;
    "v1", "PodTemplateList" => core::v1::PodTemplateList;
    "v1", "ReplicationControllerList" => core::v1::ReplicationControllerList;
    "v1", "ResourceQuotaList" => core::v1::ResourceQuotaList;
    "v1", "SecretList" => core::v1::SecretList;
    "v1", "ServiceList" => core::v1::ServiceList;
    "v1", "ServiceAccountList" => core::v1::ServiceAccountList;
    "apps/v1", "ControllerRevisionList" => apps::v1::ControllerRevisionList;
    "apps/v1", "DaemonSetList" => apps::v1::DaemonSetList;
    "apps/v1", "DeploymentList" => apps::v1::DeploymentList;
    "apps/v1", "ReplicaSetList" => apps::v1::ReplicaSetList;
    "apps/v1", "StatefulSetList" => apps::v1::StatefulSetList;
    "batch/v1", "CronJobList" => batch::v1::CronJobList;
    "batch/v1", "JobList" => batch::v1::JobList;
    "coordination.k8s.io/v1", "LeaseList" => coordination::v1::LeaseList;
    "events.k8s.io/v1", "EventList" => events::v1::EventList;
    "rbac.authorization.k8s.io/v1", "ClusterRoleList" => rbac::v1::ClusterRoleList;
    "rbac.authorization.k8s.io/v1", "ClusterRoleBindingList" => rbac::v1::ClusterRoleBindingList;
    "rbac.authorization.k8s.io/v1", "RoleList" => rbac::v1::RoleList;
    "rbac.authorization.k8s.io/v1", "RoleBindingList" => rbac::v1::RoleBindingList;
    "apiextensions.k8s.io/v1", "CustomResourceDefinitionList" => apiextensions::CustomResourceDefinitionList;
    "policy/v1", "PodDisruptionBudgetList" => policy::v1::PodDisruptionBudgetList;
    "node.k8s.io/v1", "RuntimeClassList" => node::v1::RuntimeClassList;
    "scheduling.k8s.io/v1", "PriorityClassList" => scheduling::v1::PriorityClassList;
    "networking.k8s.io/v1", "IngressList" => networking::v1::IngressList;
    "networking.k8s.io/v1", "IngressClassList" => networking::v1::IngressClassList;
    "networking.k8s.io/v1", "NetworkPolicyList" => networking::v1::NetworkPolicyList;
    "v1", "Status" => meta::Status;
    "", "APIVersions" => meta::APIVersions;
    "", "APIResourceList" => meta::APIResourceList;
    "v1", "APIResourceList" => meta::APIResourceList;
    "v1", "APIGroupList" => meta::APIGroupList;
    "v1", "APIGroup" => meta::APIGroup;
}
