//! The endpoints controller (`pkg/controller/endpoint/endpoints_controller.go`): a Service with
//! a selector gets an Endpoints object of its name whose subsets list the matching pods' IPs,
//! ready or not ready, with the pod's number for each Service port, packed into the canonical
//! form (`pkg/api/v1/endpoints/util.go` `RepackSubsets`); it carries the Service's labels,
//! the headless label when the Service has no cluster IP, and
//! `endpoints.kubernetes.io/managed-by: endpoint-controller`. When a Service goes away, so
//! does the Endpoints object of its name, whoever wrote it; on start the controller deletes
//! every Endpoints object without a Service (`checkLeftoverEndpoints`) but a leader-election
//! record. A Service without a selector (or of type `ExternalName`) is left alone: its
//! Endpoints are written by hand.
//!
//! Not modelled: the `last-change-trigger-time` annotation, and truncation to 1000 addresses.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{EndpointAddress, EndpointPort, EndpointSubset, Endpoints, Pod, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::ResourceExt;

use crate::workloads::endpoint_pods::{self, HEADLESS};
use crate::workloads::pods::is_ready;
use crate::workloads::writes::Writes;

/// The label that says which controller wrote an Endpoints object.
pub const MANAGED_BY: &str = "endpoints.kubernetes.io/managed-by";

/// This controller's value of [`MANAGED_BY`].
pub const CONTROLLER_NAME: &str = "endpoint-controller";

/// The annotation of an Endpoints object that holds a leader-election record, not endpoints
/// (`resourcelock.LeaderElectionRecordAnnotationKey`).
pub const LEADER: &str = "control-plane.alpha.kubernetes.io/leader";

/// The annotation of an Endpoints object truncated to its capacity (`v1.EndpointsOverCapacity`).
const OVER_CAPACITY: &str = "endpoints.kubernetes.io/over-capacity";

/// The Services the controller has seen, by namespace and name, so that it deletes the
/// Endpoints of one that is gone (upstream learns it from the informer's delete event).
#[derive(Debug, Default)]
pub struct KnownServices(Option<BTreeSet<(String, String)>>);

/// One sync of the endpoints controller over every Service.
pub async fn sync(writes: &mut Writes, known: &mut KnownServices, services: &[Service], pods: &[Pod], all: &[Endpoints]) {
    let existing: BTreeMap<_, &Endpoints> = all.iter().map(|e| (key(&e.metadata), e)).collect();
    let current: BTreeSet<_> = services.iter().map(|s| key(&s.metadata)).collect();
    let seen = known
        .0
        .take()
        .unwrap_or_else(|| existing.iter().filter(|(_, e)| !e.annotations().contains_key(LEADER)).map(|(k, _)| k.clone()).collect());
    let mut next = current.clone();
    for gone in seen.difference(&current) {
        if let Some(endpoints) = existing.get(gone) {
            // Remembered until its Endpoints are gone, so that a failed delete is retried.
            next.insert(gone.clone());
            if endpoints.metadata.deletion_timestamp.is_none() {
                writes.delete(*endpoints).await;
            }
        }
    }
    known.0 = Some(next);
    for service in services {
        sync_service(writes, service, pods, existing.get(&key(&service.metadata)).copied()).await;
    }
}

fn key(meta: &ObjectMeta) -> (String, String) {
    (meta.namespace.clone().unwrap_or_default(), meta.name.clone().unwrap_or_default())
}

/// `syncService` for a Service that exists.
async fn sync_service(writes: &mut Writes, service: &Service, pods: &[Pod], current: Option<&Endpoints>) {
    let Some(selector) = endpoint_pods::selector(service) else { return };
    let subsets = subsets(service, &endpoint_pods::selected(service, selector, pods));
    let subsets = (!subsets.is_empty()).then_some(subsets);
    let service_labels = service.labels();
    let mut labels = service_labels.clone();
    if endpoint_pods::has_cluster_ip(service) {
        labels.remove(HEADLESS);
    } else {
        labels.insert(HEADLESS.into(), String::new());
    }
    labels.insert(MANAGED_BY.into(), CONTROLLER_NAME.into());
    let Some(current) = current else {
        let meta = ObjectMeta { name: service.metadata.name.clone(), labels: Some(labels), ..Default::default() };
        let namespace = service.namespace().unwrap_or_default();
        writes.create(&namespace, &Endpoints { metadata: meta, subsets }).await;
        return;
    };
    let written = current.subsets.as_deref().unwrap_or_default();
    let same = |s: &[EndpointSubset]| comparable(s) == comparable(subsets.as_deref().unwrap_or_default());
    if (same(written) || same(&repack(written.to_vec())))
        && labels_correct(current.labels(), service_labels)
        && !current.annotations().contains_key(OVER_CAPACITY)
    {
        return;
    }
    let mut updated = current.clone();
    updated.subsets = subsets;
    updated.metadata.labels = Some(labels);
    updated.metadata.annotations.get_or_insert_default().remove(OVER_CAPACITY);
    writes.replace(&updated).await;
}

/// Whether the Endpoints' labels are the Service's, with the controller's label and perhaps the
/// headless one (`labelsCorrectForEndpoints`).
fn labels_correct(endpoints: &BTreeMap<String, String>, service: &BTreeMap<String, String>) -> bool {
    if endpoints.get(MANAGED_BY).map(String::as_str) != Some(CONTROLLER_NAME) {
        return false;
    }
    let own = endpoints.iter().filter(|(k, _)| *k != HEADLESS && *k != MANAGED_BY);
    let mut count = 0;
    for (k, v) in own {
        if service.get(k) != Some(v) {
            return false;
        }
        count += 1;
    }
    count == service.len()
}

/// The subsets of the Service's endpoints among `pods`, repacked.
pub fn subsets(service: &Service, pods: &[&Pod]) -> Vec<EndpointSubset> {
    let spec = service.spec.clone().unwrap_or_default();
    let tolerate_unready = spec.publish_not_ready_addresses == Some(true);
    let ports = spec.ports.unwrap_or_default();
    let mut subsets = Vec::new();
    for pod in pods {
        if !endpoint_pods::should_be_in_endpoints(pod, tolerate_unready) {
            continue;
        }
        let Some(address) = address(service, pod) else { continue };
        let ready = tolerate_unready || is_ready(pod);
        let subset = |ports: Option<Vec<EndpointPort>>| {
            let addresses = Some(vec![address.clone()]);
            if ready {
                EndpointSubset { addresses, ports, ..Default::default() }
            } else {
                EndpointSubset { not_ready_addresses: addresses, ports, ..Default::default() }
            }
        };
        // A headless Service may have no ports.
        if ports.is_empty() {
            if spec.cluster_ip.as_deref() == Some("None") {
                subsets.push(subset(None));
            }
            continue;
        }
        for port in &ports {
            let Some(number) = endpoint_pods::find_port(pod, port) else { continue };
            let name = port.name.clone().filter(|n| !n.is_empty());
            let port = EndpointPort { name, port: number, protocol: port.protocol.clone(), app_protocol: port.app_protocol.clone() };
            subsets.push(subset(Some(vec![port])));
        }
    }
    repack(subsets)
}

/// The pod's address for the Service: its first IP of the Service's family
/// (`podToEndpointAddressForService`).
fn address(service: &Service, pod: &Pod) -> Option<EndpointAddress> {
    let spec = service.spec.as_ref();
    let family = spec.and_then(|s| s.ip_families.as_ref()).and_then(|f| f.first());
    let cluster_ip = spec.and_then(|s| s.cluster_ip.as_deref()).filter(|ip| !ip.is_empty() && *ip != "None");
    let pod_ip = pod.status.as_ref().and_then(|s| s.pod_ip.as_deref()).unwrap_or("");
    let v6 = match (family, cluster_ip) {
        (Some(family), _) => family == "IPv6",
        (None, Some(ip)) => endpoint_pods::is_ipv6(ip),
        (None, None) => endpoint_pods::is_ipv6(pod_ip),
    };
    let ip = endpoint_pods::pod_ips(pod, v6).into_iter().next()?;
    Some(EndpointAddress {
        ip,
        hostname: endpoint_pods::hostname(pod, service).cloned(),
        node_name: Some(pod.spec.as_ref().and_then(|s| s.node_name.clone()).unwrap_or_default()),
        target_ref: Some(endpoint_pods::reference(pod)),
    })
}

/// An address's identity in a repack: its IP and the uid of the object it targets.
type AddressKey = (String, String);

/// A port as a sortable key: name, number, protocol, application protocol.
type PortKey = (Option<String>, i32, Option<String>, Option<String>);

/// The subsets in canonical form: each address once, grouped by the set of ports it offers, a
/// port on which an address is not ready leaving it not ready there (`RepackSubsets`). Subsets,
/// addresses and ports come in a fixed order.
pub fn repack(subsets: Vec<EndpointSubset>) -> Vec<EndpointSubset> {
    let mut addresses: BTreeMap<AddressKey, EndpointAddress> = BTreeMap::new();
    // Each port (None: a subset without ports) with its addresses and whether they are ready.
    let mut by_port: BTreeMap<Option<PortKey>, BTreeMap<AddressKey, bool>> = BTreeMap::new();
    for subset in subsets {
        let ports: Vec<Option<PortKey>> = match subset.ports.as_deref() {
            None | Some([]) => vec![None],
            Some(ports) => ports.iter().map(|p| Some((p.name.clone(), p.port, p.protocol.clone(), p.app_protocol.clone()))).collect(),
        };
        let listed = [(subset.addresses.unwrap_or_default(), true), (subset.not_ready_addresses.unwrap_or_default(), false)];
        for (list, ready) in listed {
            for address in list {
                let uid = address.target_ref.as_ref().and_then(|r| r.uid.clone()).unwrap_or_default();
                let key = (address.ip.clone(), uid);
                addresses.entry(key.clone()).or_insert(address);
                for port in &ports {
                    let state = by_port.entry(port.clone()).or_default().entry(key.clone()).or_insert(ready);
                    *state = *state && ready;
                }
            }
        }
    }
    let mut by_addresses: BTreeMap<Vec<(AddressKey, bool)>, Vec<PortKey>> = BTreeMap::new();
    for (port, set) in by_port {
        let ports = by_addresses.entry(set.into_iter().collect()).or_default();
        ports.extend(port);
    }
    by_addresses
        .into_iter()
        .map(|(set, ports)| {
            let list = |ready: bool| {
                let list: Vec<EndpointAddress> = set.iter().filter(|(_, r)| *r == ready).map(|(k, _)| addresses[k].clone()).collect();
                (!list.is_empty()).then_some(list)
            };
            let ports: Vec<EndpointPort> =
                ports.into_iter().map(|(name, port, protocol, app_protocol)| EndpointPort { name, port, protocol, app_protocol }).collect();
            EndpointSubset { addresses: list(true), not_ready_addresses: list(false), ports: (!ports.is_empty()).then_some(ports) }
        })
        .collect()
}

/// Subsets as compared for a change: without the resourceVersion of the objects they target,
/// and with empty lists as absent ones (`endpointSubsetsEqualIgnoreResourceVersion`).
fn comparable(subsets: &[EndpointSubset]) -> Vec<EndpointSubset> {
    let clean = |list: &Option<Vec<EndpointAddress>>| {
        let list: Vec<EndpointAddress> = list
            .iter()
            .flatten()
            .cloned()
            .map(|mut a| {
                if let Some(r) = a.target_ref.as_mut() {
                    r.resource_version = None;
                }
                a
            })
            .collect();
        (!list.is_empty()).then_some(list)
    };
    subsets
        .iter()
        .map(|s| EndpointSubset {
            addresses: clean(&s.addresses),
            not_ready_addresses: clean(&s.not_ready_addresses),
            ports: s.ports.clone().filter(|p| !p.is_empty()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn service(spec: serde_json::Value) -> Service {
        serde_json::from_value(json!({"metadata": {"name": "web", "namespace": "ns"}, "spec": spec})).unwrap()
    }

    fn pod(name: &str, ip: &str, ready: bool) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "ns", "uid": format!("uid-{name}"), "labels": {"app": "web"}},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "ports": [{"name": "http", "containerPort": 8080}]}]},
            "status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
                       "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]}}))
        .unwrap()
    }

    #[test]
    fn a_service_that_matches_no_pods_has_no_subsets() {
        let svc = service(json!({"selector": {"app": "none"}, "ports": [{"name": "example", "port": 80}]}));
        let pods = [pod("a", "10.0.0.1", true)];
        let selected = endpoint_pods::selected(&svc, endpoint_pods::selector(&svc).unwrap(), &pods);
        assert!(selected.is_empty());
        assert_eq!(subsets(&svc, &selected), vec![]);
    }

    #[test]
    fn ready_and_unready_pods_share_a_subset_per_port_set() {
        let svc = service(json!({"selector": {"app": "web"}, "ports": [
            {"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"},
            {"name": "alt", "port": 81, "targetPort": 9000, "protocol": "TCP"}]}));
        let (a, b, c) = (pod("a", "10.0.0.2", true), pod("b", "10.0.0.1", false), pod("c", "10.0.0.3", true));
        let got = subsets(&svc, &[&a, &b, &c]);
        assert_eq!(got.len(), 1, "{got:#?}");
        let ips = |l: &Option<Vec<EndpointAddress>>| l.iter().flatten().map(|a| a.ip.clone()).collect::<Vec<_>>();
        assert_eq!(ips(&got[0].addresses), ["10.0.0.2", "10.0.0.3"]);
        assert_eq!(ips(&got[0].not_ready_addresses), ["10.0.0.1"]);
        let ports: Vec<(Option<String>, i32)> = got[0].ports.iter().flatten().map(|p| (p.name.clone(), p.port)).collect();
        assert_eq!(ports, [(Some("alt".into()), 9000), (Some("http".into()), 8080)]);
        let target = got[0].addresses.as_ref().unwrap()[0].target_ref.clone().unwrap();
        assert_eq!((target.kind.as_deref(), target.name.as_deref(), target.uid.as_deref()), (Some("Pod"), Some("a"), Some("uid-a")));
        assert_eq!(repack(got.clone()), got, "the canonical form is a fixed point");
    }

    #[test]
    fn a_pod_without_the_named_port_is_left_out_of_that_port() {
        let svc = service(json!({"selector": {"app": "web"}, "ports": [
            {"name": "http", "port": 80, "targetPort": "http"}, {"name": "grpc", "port": 90, "targetPort": "grpc"}]}));
        let got = subsets(&svc, &[&pod("a", "10.0.0.1", true)]);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].ports.as_ref().unwrap().len(), 1);
    }

    #[test]
    fn labels_are_the_services_with_the_controllers() {
        let service: BTreeMap<String, String> = [("app".to_string(), "web".to_string())].into();
        let mut endpoints = service.clone();
        assert!(!labels_correct(&endpoints, &service), "the managed-by label is missing");
        endpoints.insert(MANAGED_BY.into(), CONTROLLER_NAME.into());
        endpoints.insert(HEADLESS.into(), String::new());
        assert!(labels_correct(&endpoints, &service));
        endpoints.insert("extra".into(), "x".into());
        assert!(!labels_correct(&endpoints, &service));
    }
}
