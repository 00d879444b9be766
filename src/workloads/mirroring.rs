//! The EndpointSlice mirroring controller (`pkg/controller/endpointslicemirroring/`): the
//! Endpoints of a Service without a selector — written by hand, as a Service with a selector
//! has the endpoints controller's — are mirrored into EndpointSlices named
//! `<endpoints>-<random>`, labelled as the Endpoints are plus `kubernetes.io/service-name` and
//! `endpointslice.kubernetes.io/managed-by: endpointslicemirroring-controller.k8s.io`,
//! annotated as they are (but the trigger time and kubectl's last applied configuration), and
//! controlled by the Endpoints. Each address becomes an endpoint of its IP's type with its
//! readiness; an address that is not an IP is skipped, as are those of a subset beyond 1000.
//! The slices follow every change of the Endpoints, and go when the Endpoints go, stop being
//! mirrored (`endpointslice.kubernetes.io/skip-mirror: "true"`, a leader-election record), or
//! when their Service goes or gets a selector.

use std::collections::BTreeMap;
use std::net::IpAddr;

use k8s_openapi::api::core::v1::{EndpointAddress, Endpoints, Service};
use k8s_openapi::api::discovery::v1::{Endpoint, EndpointConditions, EndpointPort, EndpointSlice};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::ResourceExt;

use crate::workloads::claims::controller_reference;
use crate::workloads::endpoint_pods;
use crate::workloads::endpoints::{LEADER, repack};
use crate::workloads::slicing::{self, MANAGED_BY, SERVICE_NAME, SliceKey};
use crate::workloads::writes::Writes;

/// This controller's value of [`MANAGED_BY`].
pub const CONTROLLER_NAME: &str = "endpointslicemirroring-controller.k8s.io";

/// The label that keeps an Endpoints object from being mirrored (`discovery.LabelSkipMirror`).
const SKIP_MIRROR: &str = "endpointslice.kubernetes.io/skip-mirror";

/// Annotations of the Endpoints that the slices do not copy.
const NOT_COPIED: [&str; 2] = ["endpoints.kubernetes.io/last-change-trigger-time", "kubectl.kubernetes.io/last-applied-configuration"];

/// At most this many addresses of a subset are mirrored, and as many endpoints go in a slice
/// (`--mirroring-max-endpoints-per-subset`).
const MAX_ENDPOINTS: usize = 1000;

/// One sync of the mirroring controller over every Endpoints object and every mirrored slice.
pub async fn sync(writes: &mut Writes, services: &[Service], all: &[Endpoints], slices: &[EndpointSlice]) {
    let key = |namespace: Option<String>, name: String| (namespace.unwrap_or_default(), name);
    let services: BTreeMap<_, &Service> = services.iter().map(|s| (key(s.namespace(), s.name_any()), s)).collect();
    let endpoints: BTreeMap<_, &Endpoints> = all.iter().map(|e| (key(e.namespace(), e.name_any()), e)).collect();
    for slice in slices.iter().filter(|s| s.labels().get(MANAGED_BY).map(String::as_str) == Some(CONTROLLER_NAME)) {
        let of = key(slice.namespace(), slice.labels().get(SERVICE_NAME).cloned().unwrap_or_default());
        if !endpoints.contains_key(&of) && slice.metadata.deletion_timestamp.is_none() {
            writes.delete(slice).await;
        }
    }
    for ((namespace, name), e) in &endpoints {
        let mirrored = slicing::managed(slices, namespace, name, CONTROLLER_NAME);
        let service = services.get(&(namespace.clone(), name.clone()));
        let without_selector = service.is_some_and(|s| s.spec.as_ref().and_then(|s| s.selector.as_ref()).is_none_or(|s| s.is_empty()));
        if should_mirror(e) && without_selector {
            mirror(writes, e, &mirrored).await;
        } else {
            for slice in mirrored {
                writes.delete(slice).await;
            }
        }
    }
}

/// Whether the Endpoints are mirrored at all (`shouldMirror`).
fn should_mirror(endpoints: &Endpoints) -> bool {
    endpoints.labels().get(SKIP_MIRROR).map(String::as_str) != Some("true") && !endpoints.annotations().contains_key(LEADER)
}

/// Makes the mirrored slices of `endpoints` hold its addresses (`reconcile`).
async fn mirror(writes: &mut Writes, endpoints: &Endpoints, existing: &[&EndpointSlice]) {
    let mut groups: BTreeMap<SliceKey, (Vec<EndpointPort>, Vec<&EndpointSlice>, Vec<Endpoint>)> = BTreeMap::new();
    for slice in existing {
        let ports = slice.ports.clone().unwrap_or_default();
        groups.entry(slicing::key_of(slice)).or_insert_with(|| (ports, vec![], vec![])).1.push(slice);
    }
    for subset in repack(endpoints.subsets.clone().unwrap_or_default()) {
        let ports: Vec<EndpointPort> = subset
            .ports
            .iter()
            .flatten()
            .map(|p| EndpointPort {
                name: Some(p.name.clone().unwrap_or_default()),
                port: Some(p.port),
                protocol: Some(endpoint_pods::protocol(p.protocol.as_deref())),
                app_protocol: p.app_protocol.clone(),
            })
            .collect();
        let ready = subset.addresses.iter().flatten().map(|a| (a, true));
        let not_ready = subset.not_ready_addresses.iter().flatten().map(|a| (a, false));
        for (address_type, endpoint) in ready.chain(not_ready).filter_map(|(a, ready)| endpoint(a, ready)).take(MAX_ENDPOINTS) {
            let group = groups.entry(slicing::key(address_type, &ports)).or_insert_with(|| (ports.clone(), vec![], vec![]));
            group.2.push(endpoint);
        }
    }
    for ((address_type, _), (ports, slices, wanted)) in groups {
        let template = new_slice(endpoints, &address_type, ports);
        slicing::reconcile(writes, &template, &slices, wanted, MAX_ENDPOINTS, false).await;
    }
}

/// A new mirrored slice of the Endpoints (`newEndpointSlice`).
fn new_slice(endpoints: &Endpoints, address_type: &str, ports: Vec<EndpointPort>) -> EndpointSlice {
    let mut labels = endpoints.labels().clone();
    labels.insert(SERVICE_NAME.into(), endpoints.name_any());
    labels.insert(MANAGED_BY.into(), CONTROLLER_NAME.into());
    let annotations = endpoints.annotations().iter().filter(|(k, _)| !NOT_COPIED.contains(&k.as_str()));
    EndpointSlice {
        metadata: ObjectMeta {
            generate_name: Some(format!("{}-", endpoints.name_any())),
            namespace: endpoints.namespace(),
            labels: Some(labels),
            annotations: Some(annotations.map(|(k, v)| (k.clone(), v.clone())).collect()),
            owner_references: Some(vec![controller_reference("v1", "Endpoints", &endpoints.metadata)]),
            ..Default::default()
        },
        address_type: address_type.into(),
        endpoints: Some(vec![]),
        ports: Some(ports),
    }
}

/// The address as an endpoint, with its address type; none if it is not an IP
/// (`addressToEndpoint`).
fn endpoint(address: &EndpointAddress, ready: bool) -> Option<(&'static str, Endpoint)> {
    let ip: IpAddr = address.ip.parse().ok()?;
    let address_type = match ip {
        IpAddr::V4(_) => "IPv4",
        IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => "IPv4",
        IpAddr::V6(_) => "IPv6",
    };
    let endpoint = Endpoint {
        addresses: vec![ip.to_canonical().to_string()],
        conditions: Some(EndpointConditions { ready: Some(ready), ..Default::default() }),
        target_ref: address.target_ref.clone(),
        node_name: address.node_name.clone(),
        hostname: address.hostname.clone().filter(|h| !h.is_empty()),
        ..Default::default()
    };
    Some((address_type, endpoint))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn endpoints(value: serde_json::Value) -> Endpoints {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_mirrored_slice_copies_labels_and_annotations_and_is_controlled_by_the_endpoints() {
        let e = endpoints(json!({"metadata": {"name": "svc", "namespace": "ns", "uid": "ep-uid",
            "labels": {"team": "a"},
            "annotations": {"note": "x", "kubectl.kubernetes.io/last-applied-configuration": "{}"}}}));
        let slice = new_slice(&e, "IPv4", vec![]);
        let labels = slice.labels();
        assert_eq!(labels.get("team").map(String::as_str), Some("a"));
        assert_eq!(labels.get(SERVICE_NAME).map(String::as_str), Some("svc"));
        assert_eq!(labels.get(MANAGED_BY).map(String::as_str), Some(CONTROLLER_NAME));
        assert_eq!(slice.annotations().keys().collect::<Vec<_>>(), ["note"]);
        let owner = &slice.owner_references()[0];
        assert_eq!((owner.kind.as_str(), owner.uid.as_str(), owner.controller), ("Endpoints", "ep-uid", Some(true)));
    }

    #[test]
    fn addresses_become_endpoints_of_their_ip_type() {
        let address = |ip: &str| EndpointAddress { ip: ip.into(), ..Default::default() };
        let (t, e) = endpoint(&address("10.1.2.3"), true).unwrap();
        assert_eq!((t, e.addresses, e.conditions.unwrap().ready), ("IPv4", vec!["10.1.2.3".to_string()], Some(true)));
        assert_eq!(endpoint(&address("fd00::1"), false).unwrap().0, "IPv6");
        assert!(endpoint(&address("example.com"), true).is_none());
    }

    #[test]
    fn skip_mirror_and_leader_records_are_not_mirrored() {
        assert!(should_mirror(&endpoints(json!({"metadata": {"name": "a"}}))));
        assert!(!should_mirror(&endpoints(json!({"metadata": {"name": "a", "labels": {SKIP_MIRROR: "true"}}}))));
        assert!(!should_mirror(&endpoints(json!({"metadata": {"name": "a", "annotations": {LEADER: "{}"}}}))));
    }
}
