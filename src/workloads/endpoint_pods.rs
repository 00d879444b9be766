//! Pods as the endpoints controllers see them (`k8s.io/endpointslice` `utils.go` and
//! `util/controller_utils.go`): which pods a Service selects, which of them are endpoints at
//! all, the number a Service port names on a pod, and the pod addresses of one IP family.

use std::collections::BTreeMap;
use std::net::IpAddr;

use k8s_openapi::api::core::v1::{ObjectReference, Pod, Service, ServicePort};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::ResourceExt;

use crate::workloads::claims::ChildSelector;
use crate::workloads::pods::is_terminal;

/// The label a headless Service's Endpoints and EndpointSlices carry (`v1.IsHeadlessService`).
pub const HEADLESS: &str = "service.kubernetes.io/headless";

/// The selector a Service's endpoints come from: none for a Service without one (its endpoints
/// are written by hand) or of type `ExternalName` (which has none). An empty selector is read
/// as none, as a stored Service cannot tell them apart.
pub fn selector(service: &Service) -> Option<&BTreeMap<String, String>> {
    let spec = service.spec.as_ref()?;
    if spec.type_.as_deref() == Some("ExternalName") {
        return None;
    }
    spec.selector.as_ref().filter(|s| !s.is_empty())
}

/// The pods in the Service's namespace that `selector` matches.
pub fn selected<'a>(service: &Service, selector: &BTreeMap<String, String>, pods: &'a [Pod]) -> Vec<&'a Pod> {
    let selector = ChildSelector::of_labels(selector);
    pods.iter().filter(|p| p.namespace() == service.namespace() && selector.matches(&p.metadata)).collect()
}

/// Whether the pod is an endpoint at all: not finished, with an IP, and not being deleted
/// unless `include_terminating` (`ShouldPodBeInEndpoints`).
pub fn should_be_in_endpoints(pod: &Pod, include_terminating: bool) -> bool {
    let status = pod.status.as_ref();
    let has_ip = status
        .is_some_and(|s| s.pod_ip.as_deref().is_some_and(|ip| !ip.is_empty()) || s.pod_ips.as_ref().is_some_and(|ips| !ips.is_empty()));
    !is_terminal(pod) && has_ip && (include_terminating || pod.metadata.deletion_timestamp.is_none())
}

/// The reference to `pod` an endpoint's `targetRef` holds.
pub fn reference(pod: &Pod) -> ObjectReference {
    ObjectReference {
        kind: Some("Pod".into()),
        namespace: pod.namespace(),
        name: pod.metadata.name.clone(),
        uid: pod.metadata.uid.clone(),
        ..Default::default()
    }
}

/// The pod's hostname where the Service is its subdomain (`ShouldSetHostname`).
pub fn hostname<'a>(pod: &'a Pod, service: &Service) -> Option<&'a String> {
    let spec = pod.spec.as_ref()?;
    let hostname = spec.hostname.as_ref().filter(|h| !h.is_empty())?;
    let subdomain_is_service = spec.subdomain.as_deref() == service.metadata.name.as_deref();
    (subdomain_is_service && pod.namespace() == service.namespace()).then_some(hostname)
}

/// The number `port`'s target port names on the pod: the number itself, or the port of that
/// name and protocol of a container or a sidecar (`FindPort`).
pub fn find_port(pod: &Pod, port: &ServicePort) -> Option<i32> {
    let name = match port.target_port.as_ref() {
        Some(IntOrString::Int(n)) => return Some(*n),
        Some(IntOrString::String(name)) => name,
        // Upstream defaulting sets the target port to the port.
        None => return Some(port.port),
    };
    let spec = pod.spec.as_ref()?;
    let sidecars = spec.init_containers.iter().flatten().filter(|c| c.restart_policy.as_deref() == Some("Always"));
    let protocol = port.protocol.as_deref().unwrap_or("TCP");
    spec.containers
        .iter()
        .chain(sidecars)
        .flat_map(|c| c.ports.iter().flatten())
        .find_map(|p| (p.name.as_ref() == Some(name) && p.protocol.as_deref().unwrap_or("TCP") == protocol).then_some(p.container_port))
}

/// A port's protocol as the API server defaults it: `TCP` when unset.
pub fn protocol(protocol: Option<&str>) -> String {
    protocol.filter(|p| !p.is_empty()).unwrap_or("TCP").to_string()
}

/// Whether the Service has a cluster IP (`IsServiceIPSet`): a Service without one is headless.
pub fn has_cluster_ip(service: &Service) -> bool {
    let ip = service.spec.as_ref().and_then(|s| s.cluster_ip.as_deref()).unwrap_or("");
    !ip.is_empty() && ip != "None"
}

/// The pod's IPs of the family `v6` says, each as the canonical text of the address. A pod
/// with `podIP` alone has it as its only one, as the API server makes `podIPs` from it.
pub fn pod_ips(pod: &Pod, v6: bool) -> Vec<String> {
    let Some(status) = pod.status.as_ref() else { return vec![] };
    let listed = status.pod_ips.iter().flatten().map(|ip| ip.ip.as_str());
    let ips: Vec<&str> = if status.pod_ips.as_ref().is_some_and(|ips| !ips.is_empty()) {
        listed.collect()
    } else {
        status.pod_ip.as_deref().into_iter().collect()
    };
    ips.into_iter().filter_map(|ip| ip.parse::<IpAddr>().ok()).filter(|ip| ip.is_ipv6() == v6).map(|ip| ip.to_string()).collect()
}

/// Whether `ip` is an IPv6 address.
pub fn is_ipv6(ip: &str) -> bool {
    ip.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv6())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(value: serde_json::Value) -> Pod {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn only_live_pods_with_an_ip_are_endpoints() {
        let running = pod(json!({"metadata": {"name": "p"}, "status": {"phase": "Running", "podIP": "10.0.0.1"}}));
        assert!(should_be_in_endpoints(&running, false));
        let pending = pod(json!({"metadata": {"name": "p"}, "status": {"phase": "Pending"}}));
        assert!(!should_be_in_endpoints(&pending, true));
        let done = pod(json!({"metadata": {"name": "p"}, "status": {"phase": "Succeeded", "podIP": "10.0.0.1"}}));
        assert!(!should_be_in_endpoints(&done, true));
        let going = pod(json!({"metadata": {"name": "p", "deletionTimestamp": "2026-01-01T00:00:00Z"},
            "status": {"phase": "Running", "podIP": "10.0.0.1"}}));
        assert!(!should_be_in_endpoints(&going, false));
        assert!(should_be_in_endpoints(&going, true));
    }

    #[test]
    fn a_named_target_port_is_found_by_name_and_protocol() {
        let p = pod(json!({"metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "c", "ports": [{"name": "http", "containerPort": 8080}]}],
            "initContainers": [{"name": "s", "restartPolicy": "Always", "ports": [{"name": "dns", "containerPort": 53, "protocol": "UDP"}]}]}}));
        let port = |v: serde_json::Value| serde_json::from_value::<ServicePort>(v).unwrap();
        assert_eq!(find_port(&p, &port(json!({"port": 80, "targetPort": "http"}))), Some(8080));
        assert_eq!(find_port(&p, &port(json!({"port": 80, "targetPort": "http", "protocol": "UDP"}))), None);
        assert_eq!(find_port(&p, &port(json!({"port": 53, "targetPort": "dns", "protocol": "UDP"}))), Some(53));
        assert_eq!(find_port(&p, &port(json!({"port": 80, "targetPort": 9000}))), Some(9000));
        assert_eq!(find_port(&p, &port(json!({"port": 80}))), Some(80));
    }
}
