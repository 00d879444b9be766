//! The EndpointSlice controller (`pkg/controller/endpointslice/endpointslice_controller.go`
//! and `k8s.io/endpointslice` `reconciler.go`, `utils.go`): a Service with a selector gets
//! EndpointSlices of each address type it serves, named `<service>-<random>`, labelled
//! `kubernetes.io/service-name: <service>` and
//! `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io` over the Service's
//! own labels, controlled by the Service (so the garbage collector deletes them with it),
//! holding an endpoint for each matching pod with an IP of that type, its conditions (`ready`,
//! `serving`, `terminating`) and the pod's number for each Service port. An address type with
//! no endpoints keeps one empty placeholder slice. Slices of the controller the Service does
//! not own, or of a type it no longer serves, are deleted.
//!
//! Not modelled: zones from the pod's node (nodes are not listed, so a pod on a node that does
//! not exist is not skipped), topology hints, traffic distribution, the trigger-time annotation.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Pod, Service};
use k8s_openapi::api::discovery::v1::{Endpoint, EndpointConditions, EndpointPort, EndpointSlice};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::ResourceExt;

use crate::workloads::claims::controller_reference;
use crate::workloads::endpoint_pods::{self, HEADLESS};
use crate::workloads::pods::is_ready;
use crate::workloads::slicing::{self, MANAGED_BY, SERVICE_NAME, SliceKey};
use crate::workloads::writes::Writes;

/// This controller's value of [`MANAGED_BY`].
pub const CONTROLLER_NAME: &str = "endpointslice-controller.k8s.io";

/// At most this many endpoints to a slice (`--max-endpoints-per-slice`).
const MAX_ENDPOINTS: usize = 100;

/// One sync of the EndpointSlice controller over every Service with a selector.
pub async fn sync(writes: &mut Writes, services: &[Service], pods: &[Pod], slices: &[EndpointSlice]) {
    for service in services {
        let Some(selector) = endpoint_pods::selector(service) else { continue };
        let (namespace, name) = (service.namespace().unwrap_or_default(), service.name_any());
        let existing = slicing::managed(slices, &namespace, &name, CONTROLLER_NAME);
        sync_service(writes, service, &endpoint_pods::selected(service, selector, pods), &existing).await;
    }
}

/// `Reconcile` for one Service and its pods.
async fn sync_service(writes: &mut Writes, service: &Service, pods: &[&Pod], existing: &[&EndpointSlice]) {
    let types = address_types(service);
    let uid = service.uid().unwrap_or_default();
    let mut groups: BTreeMap<SliceKey, (Vec<EndpointPort>, Vec<&EndpointSlice>)> = BTreeMap::new();
    for slice in existing {
        let owned = slice.owner_references().iter().any(|r| r.uid == uid && r.kind == "Service" && r.api_version == "v1");
        if !owned || !types.contains(slice.address_type.as_str()) {
            writes.delete(*slice).await;
            continue;
        }
        let ports = slice.ports.clone().unwrap_or_default();
        groups.entry(slicing::key_of(slice)).or_insert_with(|| (ports, vec![])).1.push(slice);
    }
    let mut desired: BTreeMap<SliceKey, Vec<Endpoint>> = BTreeMap::new();
    for address_type in &types {
        for pod in pods.iter().filter(|p| endpoint_pods::should_be_in_endpoints(p, true)) {
            let endpoint = endpoint(pod, service, address_type);
            if endpoint.addresses.is_empty() {
                continue;
            }
            let ports = ports(service, pod);
            let key = slicing::key(address_type, &ports);
            groups.entry(key.clone()).or_insert_with(|| (ports, vec![]));
            desired.entry(key).or_default().push(endpoint);
        }
        // An address type without endpoints keeps one empty slice without ports.
        if !desired.keys().any(|(t, _)| t == address_type) {
            groups.entry(slicing::key(address_type, &[])).or_insert_with(|| (vec![], vec![]));
        }
    }
    let with_endpoints: BTreeSet<String> = desired.keys().map(|(t, _)| t.clone()).collect();
    for ((address_type, ports_key), (ports, slices)) in groups {
        let wanted = desired.remove(&(address_type.clone(), ports_key)).unwrap_or_default();
        let placeholder = ports.is_empty() && !with_endpoints.contains(&address_type);
        let template = new_slice(service, &address_type, ports);
        slicing::reconcile(writes, &template, &slices, wanted, MAX_ENDPOINTS, placeholder).await;
    }
}

/// The address types the Service serves: those of its IP families, else its cluster IP's,
/// else (headless, families not yet set) both (`getAddressTypesForService`).
fn address_types(service: &Service) -> BTreeSet<&'static str> {
    let spec = service.spec.as_ref();
    let of = |v6: bool| if v6 { "IPv6" } else { "IPv4" };
    let families: BTreeSet<&str> = spec
        .and_then(|s| s.ip_families.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|f| match f.as_str() {
            "IPv4" => Some("IPv4"),
            "IPv6" => Some("IPv6"),
            _ => None,
        })
        .collect();
    if !families.is_empty() {
        return families;
    }
    if endpoint_pods::has_cluster_ip(service) {
        let ip = spec.and_then(|s| s.cluster_ip.as_deref()).unwrap_or_default();
        return [of(endpoint_pods::is_ipv6(ip))].into();
    }
    ["IPv4", "IPv6"].into()
}

/// A new slice of the Service (`newEndpointSlice`, `setEndpointSliceLabels`).
fn new_slice(service: &Service, address_type: &str, ports: Vec<EndpointPort>) -> EndpointSlice {
    let mut labels: BTreeMap<String, String> = service
        .labels()
        .iter()
        .filter(|(k, _)| ![SERVICE_NAME, MANAGED_BY, HEADLESS].contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !endpoint_pods::has_cluster_ip(service) {
        labels.insert(HEADLESS.into(), String::new());
    }
    labels.insert(SERVICE_NAME.into(), service.name_any());
    labels.insert(MANAGED_BY.into(), CONTROLLER_NAME.into());
    EndpointSlice {
        metadata: ObjectMeta {
            generate_name: Some(format!("{}-", service.name_any())),
            namespace: service.namespace(),
            labels: Some(labels),
            owner_references: Some(vec![controller_reference("v1", "Service", &service.metadata)]),
            ..Default::default()
        },
        address_type: address_type.into(),
        endpoints: Some(vec![]),
        ports: Some(ports),
    }
}

/// The pod's number for each Service port it has (`getEndpointPorts`); none for a headless
/// Service without ports.
fn ports(service: &Service, pod: &Pod) -> Vec<EndpointPort> {
    let spec = service.spec.as_ref();
    let ports = spec.and_then(|s| s.ports.as_deref()).unwrap_or_default();
    ports
        .iter()
        .filter_map(|port| {
            let number = endpoint_pods::find_port(pod, port)?;
            Some(EndpointPort {
                name: Some(port.name.clone().unwrap_or_default()),
                port: Some(number),
                protocol: Some(endpoint_pods::protocol(port.protocol.as_deref())),
                app_protocol: port.app_protocol.clone(),
            })
        })
        .collect()
}

/// The pod as an endpoint of `address_type` (`podToEndpoint`): ready only while serving and
/// not terminating, unless the Service publishes addresses that are not ready.
fn endpoint(pod: &Pod, service: &Service, address_type: &str) -> Endpoint {
    let serving = is_ready(pod);
    let terminating = pod.metadata.deletion_timestamp.is_some();
    let publish = service.spec.as_ref().and_then(|s| s.publish_not_ready_addresses) == Some(true);
    let node = pod.spec.as_ref().and_then(|s| s.node_name.clone()).filter(|n| !n.is_empty());
    Endpoint {
        addresses: endpoint_pods::pod_ips(pod, address_type == "IPv6"),
        conditions: Some(EndpointConditions {
            ready: Some(publish || (serving && !terminating)),
            serving: Some(serving),
            terminating: Some(terminating),
        }),
        target_ref: Some(endpoint_pods::reference(pod)),
        node_name: node,
        hostname: endpoint_pods::hostname(pod, service).cloned(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn service(spec: serde_json::Value) -> Service {
        serde_json::from_value(
            json!({"metadata": {"name": "web", "namespace": "ns", "uid": "svc-uid", "labels": {"app": "web"}}, "spec": spec}),
        )
        .unwrap()
    }

    #[test]
    fn address_types_follow_families_then_the_cluster_ip() {
        assert_eq!(address_types(&service(json!({"ipFamilies": ["IPv6"]}))), ["IPv6"].into());
        assert_eq!(address_types(&service(json!({"clusterIP": "10.0.0.1"}))), ["IPv4"].into());
        assert_eq!(address_types(&service(json!({"clusterIP": "None"}))), ["IPv4", "IPv6"].into());
    }

    #[test]
    fn a_new_slice_is_labelled_and_controlled_by_its_service() {
        let slice = new_slice(&service(json!({"clusterIP": "10.0.0.1"})), "IPv4", vec![]);
        let labels = slice.labels();
        assert_eq!(labels.get(SERVICE_NAME).map(String::as_str), Some("web"));
        assert_eq!(labels.get(MANAGED_BY).map(String::as_str), Some(CONTROLLER_NAME));
        assert_eq!(labels.get("app").map(String::as_str), Some("web"));
        assert!(!labels.contains_key(HEADLESS));
        let owner = &slice.owner_references()[0];
        assert_eq!((owner.api_version.as_str(), owner.kind.as_str(), owner.uid.as_str()), ("v1", "Service", "svc-uid"));
        assert_eq!((owner.controller, owner.block_owner_deletion), (Some(true), Some(true)));
        assert_eq!(slice.metadata.generate_name.as_deref(), Some("web-"));
        let headless = new_slice(&service(json!({"clusterIP": "None"})), "IPv4", vec![]);
        assert_eq!(headless.labels().get(HEADLESS).map(String::as_str), Some(""));
    }

    #[test]
    fn a_terminating_pod_serves_but_is_not_ready() {
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": "p", "namespace": "ns", "uid": "u", "deletionTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"nodeName": "n", "containers": []},
            "status": {"phase": "Running", "podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}],
                       "conditions": [{"type": "Ready", "status": "True"}]}}))
        .unwrap();
        let svc = service(json!({}));
        let v4 = endpoint(&pod, &svc, "IPv4");
        assert_eq!(v4.addresses, ["10.0.0.1"]);
        assert_eq!(v4.conditions, Some(EndpointConditions { ready: Some(false), serving: Some(true), terminating: Some(true) }));
        assert_eq!(endpoint(&pod, &svc, "IPv6").addresses, ["fd00::1"]);
        let publishing = service(json!({"publishNotReadyAddresses": true}));
        assert_eq!(endpoint(&pod, &publishing, "IPv4").conditions.unwrap().ready, Some(true));
    }
}
