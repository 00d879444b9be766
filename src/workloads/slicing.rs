//! Endpoints packed into EndpointSlices, as the EndpointSlice controller and its mirroring
//! counterpart both keep them: slices are grouped by address type and set of ports, each holds
//! at most a controller's maximum of endpoints, and a group's slices are updated in place,
//! made or deleted so that together they hold exactly the desired endpoints, with the labels
//! (and, where the controller sets them, the annotations) it wants
//! (`k8s.io/endpointslice` `reconciler.go`, `pkg/controller/endpointslicemirroring/reconciler.go`).
//! Which endpoint lands in which slice is not upstream's packing: only the slices' contents
//! together are.

use k8s_openapi::api::discovery::v1::{Endpoint, EndpointPort, EndpointSlice};
use kube::ResourceExt;

use crate::workloads::writes::Writes;

/// The label naming the Service a slice belongs to (`discovery.LabelServiceName`).
pub const SERVICE_NAME: &str = "kubernetes.io/service-name";

/// The label naming the controller that manages a slice (`discovery.LabelManagedBy`).
pub const MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";

/// What groups slices: the address type, and the ports as canonical text.
pub type SliceKey = (String, String);

/// The group of a slice of `address_type` with `ports` (`NewPortMapKey`, by address type).
pub fn key(address_type: &str, ports: &[EndpointPort]) -> SliceKey {
    let mut ports: Vec<String> = ports.iter().map(|p| serde_json::to_string(p).unwrap_or_default()).collect();
    ports.sort();
    (address_type.to_string(), ports.join(","))
}

/// The group of an existing slice.
pub fn key_of(slice: &EndpointSlice) -> SliceKey {
    key(&slice.address_type, slice.ports.as_deref().unwrap_or_default())
}

/// The slices of `name` in `namespace` that the controller `managed_by` manages, not being
/// deleted.
pub fn managed<'a>(slices: &'a [EndpointSlice], namespace: &str, name: &str, managed_by: &str) -> Vec<&'a EndpointSlice> {
    slices
        .iter()
        .filter(|s| s.namespace().as_deref() == Some(namespace) && s.metadata.deletion_timestamp.is_none())
        .filter(|s| s.labels().get(SERVICE_NAME).map(String::as_str) == Some(name))
        .filter(|s| s.labels().get(MANAGED_BY).map(String::as_str) == Some(managed_by))
        .collect()
}

/// Makes the slices of one group hold `desired`, at most `max` to a slice: `template` is a new
/// slice of the group (its metadata, address type and ports), `existing` its slices now. With
/// `placeholder`, no endpoints still make one empty slice.
pub async fn reconcile(
    writes: &mut Writes,
    template: &EndpointSlice,
    existing: &[&EndpointSlice],
    mut desired: Vec<Endpoint>,
    max: usize,
    placeholder: bool,
) {
    desired.sort_by_cached_key(|e| serde_json::to_string(e).unwrap_or_default());
    let mut chunks: Vec<&[Endpoint]> = desired.chunks(max).collect();
    if chunks.is_empty() && placeholder {
        chunks.push(&[]);
    }
    for i in 0..chunks.len().max(existing.len()) {
        match (chunks.get(i), existing.get(i)) {
            (Some(chunk), Some(slice)) => {
                let wanted_annotations = template.metadata.annotations.as_ref();
                let same = slice.endpoints.as_deref().unwrap_or_default() == *chunk
                    && slice.labels() == template.labels()
                    && wanted_annotations.is_none_or(|a| a == slice.annotations());
                if !same {
                    let mut updated = (*slice).clone();
                    updated.endpoints = Some(chunk.to_vec());
                    updated.metadata.labels = template.metadata.labels.clone();
                    if let Some(a) = wanted_annotations {
                        updated.metadata.annotations = Some(a.clone());
                    }
                    writes.replace(&updated).await;
                }
            }
            (Some(chunk), None) => {
                let mut made = template.clone();
                made.endpoints = Some(chunk.to_vec());
                writes.create(&template.namespace().unwrap_or_default(), &made).await;
            }
            (None, Some(slice)) => writes.delete(*slice).await,
            (None, None) => {}
        }
    }
}
