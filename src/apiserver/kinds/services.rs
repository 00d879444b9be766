//! Services: what the Service registry allocates (upstream
//! `pkg/registry/core/service/storage/alloc.go`). A new Service of type ClusterIP, NodePort or
//! LoadBalancer gets a free cluster IP from the range the control plane serves
//! ([`SERVICE_RANGE`], kube-apiserver's `--service-cluster-ip-range`), a headless one
//! (`clusterIP: None`) keeps `None`; both get their IP families (single-stack IPv4, but a
//! headless Service without a selector requires dual stack), and the ports of a NodePort or
//! LoadBalancer Service get free node ports from 30000-32767. An update that leaves them out
//! keeps the allocated ones.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::apiserver::status::FieldError;
use crate::apiserver::storage::Storage;
use crate::apiserver::storage::hooks::Kind;
use crate::apiserver::storage::write::Target;

/// The service range: kube-apiserver's default `--service-cluster-ip-range`, which the
/// upstream control plane kubegc starts also gives (10.96.0.0/12): first address and size.
pub const SERVICE_RANGE: ([u8; 4], u32) = ([10, 96, 0, 0], 1 << 20);

/// The node port range (kube-apiserver's `--service-node-port-range` default).
const NODE_PORTS: std::ops::RangeInclusive<u32> = 30000..=32767;

/// What the registry allocates, and an update keeps when it leaves it out.
const ALLOCATED: [&str; 4] = ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"];

/// core/v1 Services.
pub struct Services;

impl Kind for Services {
    fn allocate(&self, storage: &Storage, service: &mut Value, dry_run: bool) -> Vec<FieldError> {
        let Some(spec) = service.get_mut("spec").filter(|s| s.is_object()) else { return Vec::new() };
        let kind = spec["type"].as_str().unwrap_or("ClusterIP").to_string();
        if kind == "ExternalName" {
            return Vec::new();
        }
        let services: Vec<&Value> = storage.store.list("", "services", None, None).map(|(_, s)| s.as_ref()).collect();
        let refused = requested_ip_refused(spec, &services, dry_run);
        if !refused.is_empty() {
            return refused;
        }
        let headless = spec["clusterIP"] == "None";
        let selectorless = spec["selector"].as_object().is_none_or(|s| s.is_empty());
        if spec["ipFamilyPolicy"].is_null() {
            spec["ipFamilyPolicy"] = json!(if headless && selectorless { "RequireDualStack" } else { "SingleStack" });
        }
        if spec["ipFamilies"].as_array().is_none_or(|f| f.is_empty()) {
            spec["ipFamilies"] =
                if headless && selectorless && spec["ipFamilyPolicy"] != "SingleStack" { json!(["IPv4", "IPv6"]) } else { json!(["IPv4"]) };
        }
        if spec["clusterIP"].as_str().unwrap_or("").is_empty() {
            let taken: BTreeSet<&str> = services.iter().filter_map(|s| s["spec"]["clusterIP"].as_str()).collect();
            spec["clusterIP"] = json!(free_cluster_ip(storage, &taken));
        }
        if spec["clusterIPs"].as_array().is_none_or(|ips| ips.is_empty()) {
            spec["clusterIPs"] = json!([spec["clusterIP"].clone()]);
        }
        let node_ports = kind == "NodePort" || (kind == "LoadBalancer" && spec["allocateLoadBalancerNodePorts"] != json!(false));
        if node_ports {
            let mut taken: BTreeSet<u64> = services
                .iter()
                .flat_map(|s| s["spec"]["ports"].as_array().into_iter().flatten())
                .filter_map(|p| p["nodePort"].as_u64())
                .collect();
            for port in spec.get_mut("ports").and_then(Value::as_array_mut).into_iter().flatten() {
                if port.is_object() && port["nodePort"].as_u64().unwrap_or(0) == 0 {
                    let free = free_node_port(storage, &taken);
                    taken.insert(free);
                    port["nodePort"] = json!(free);
                }
            }
        }
        Vec::new()
    }

    fn prepare_update(&self, target: Target, new: &mut Value, existing: &Value, _now: &str) -> Vec<FieldError> {
        if target != Target::Main || new["spec"]["type"] != existing["spec"]["type"] {
            return Vec::new();
        }
        if let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) {
            for field in ALLOCATED {
                if spec.get(field).is_none_or(Value::is_null) && !existing["spec"][field].is_null() {
                    spec.insert(field.into(), existing["spec"][field].clone());
                }
            }
        }
        Vec::new()
    }
}

/// Why the cluster IP a new Service asks for cannot be had (`allocateCreate` in
/// pkg/registry/core/service/storage/alloc.go): an IPv4 address outside the service range (a
/// dry run asks the range itself, a real create the allocators of the cluster's ServiceCIDRs,
/// which word it differently), or one another Service has (which a dry run does not check).
fn requested_ip_refused(spec: &Value, services: &[&Value], dry_run: bool) -> Vec<FieldError> {
    let Some(ip) = spec["clusterIP"].as_str().filter(|ip| !ip.is_empty() && *ip != "None") else { return Vec::new() };
    let Ok(address) = ip.parse::<std::net::Ipv4Addr>() else { return Vec::new() };
    let ([a, b, c, d], size) = SERVICE_RANGE;
    let base = u32::from_be_bytes([a, b, c, d]);
    let why = if !(base..base + size).contains(&u32::from(address)) {
        if dry_run {
            let bits = 32 - size.trailing_zeros();
            format!("the provided IP ({ip}) is not in the valid range. The range of valid IPs is {}/{bits}", std::net::Ipv4Addr::from(base))
        } else {
            "the provided network does not match the current range".to_string()
        }
    } else if !dry_run && services.iter().any(|s| s["spec"]["clusterIP"] == ip) {
        "provided IP is already allocated".to_string()
    } else {
        return Vec::new();
    };
    let requested = match &spec["clusterIPs"] {
        Value::Array(ips) if !ips.is_empty() => spec["clusterIPs"].clone(),
        _ => json!([ip]),
    };
    vec![FieldError::invalid("spec.clusterIPs", requested, format!("failed to allocate IP {ip}: {why}"))]
}

/// A random address of the service range that no Service has, leaving out the network's first
/// address, the one the `kubernetes` Service takes after it, and its last.
fn free_cluster_ip(storage: &Storage, taken: &BTreeSet<&str>) -> String {
    let ([a, b, c, d], size) = SERVICE_RANGE;
    let base = u32::from_be_bytes([a, b, c, d]);
    let usable = size - 3;
    let start = u32::from_le_bytes(storage.ids.bytes()[..4].try_into().expect("four bytes")) % usable;
    (0..usable)
        .map(|i| std::net::Ipv4Addr::from(base + 2 + (start + i) % usable).to_string())
        .find(|ip| !taken.contains(ip.as_str()))
        .unwrap_or_default()
}

/// A random node port no Service has.
fn free_node_port(storage: &Storage, taken: &BTreeSet<u64>) -> u64 {
    let (first, count) = (*NODE_PORTS.start(), NODE_PORTS.end() - NODE_PORTS.start() + 1);
    let start = u32::from_le_bytes(storage.ids.bytes()[..4].try_into().expect("four bytes")) % count;
    (0..count).map(|i| u64::from(first + (start + i) % count)).find(|p| !taken.contains(p)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::ids::Ids;
    use crate::apiserver::kinds;
    use crate::apiserver::schema::WriteOptions;
    use crate::apiserver::storage::Scope;
    use crate::clock::Clock;

    fn storage() -> Storage {
        let mut s = Storage::new(Clock::virtual_at(chrono::DateTime::UNIX_EPOCH), Ids::seeded(1), 100, kinds::of);
        s.create(&Scope::namespaces(&s.catalogue), json!({"metadata": {"name": "ns"}}), WriteOptions::default()).unwrap();
        s
    }

    #[test]
    fn the_kubernetes_service_has_the_first_address_of_the_range() {
        let ([a, b, c, d], _) = SERVICE_RANGE;
        let first = std::net::Ipv4Addr::from(u32::from_be_bytes([a, b, c, d]) + 1).to_string();
        assert_eq!(first, crate::apiserver::storage::KUBERNETES_SERVICE_IP);
        let s = storage();
        let services = s.scope("", "v1", "services", Some("default".into())).unwrap();
        assert_eq!(s.get(&services, "kubernetes").unwrap()["spec"]["clusterIP"], first);
    }

    #[test]
    fn a_service_gets_a_cluster_ip_of_the_range_and_a_headless_one_keeps_none() {
        let mut s = storage();
        let services = s.scope("", "v1", "services", Some("ns".into())).unwrap();
        let svc = |name: &str, spec: Value| json!({"metadata": {"name": name}, "spec": spec});
        let a = s
            .create(
                &services,
                svc("a", json!({"ports": [{"port": 80}], "type": "NodePort", "selector": {"a": "b"}})),
                WriteOptions::default(),
            )
            .unwrap();
        let ip: std::net::Ipv4Addr = a["spec"]["clusterIP"].as_str().unwrap().parse().unwrap();
        assert_eq!((ip.octets()[0], ip.octets()[1] & 0xf0), (10, 96), "{ip}");
        assert_eq!(a["spec"]["clusterIPs"], json!([ip.to_string()]));
        assert_eq!((a["spec"]["ipFamilies"].clone(), a["spec"]["ipFamilyPolicy"].clone()), (json!(["IPv4"]), json!("SingleStack")));
        assert!(NODE_PORTS.contains(&(a["spec"]["ports"][0]["nodePort"].as_u64().unwrap() as u32)));
        let headless = s.create(&services, svc("h", json!({"clusterIP": "None"})), WriteOptions::default()).unwrap();
        assert_eq!(headless["spec"]["clusterIPs"], json!(["None"]));
        assert_eq!(headless["spec"]["ipFamilyPolicy"], "RequireDualStack", "a headless Service without a selector");
        let updated = s
            .update(
                &services,
                "a",
                svc("a", json!({"ports": [{"port": 80, "nodePort": 30001}], "type": "NodePort"})),
                Target::Main,
                WriteOptions::default(),
            )
            .unwrap();
        assert_eq!(updated["spec"]["clusterIP"], ip.to_string(), "an update keeps the allocated IP");
        let asks = |ip: &str| svc("b", json!({"clusterIP": ip, "ports": [{"port": 80}]}));
        let dry = WriteOptions { dry_run: true, ..WriteOptions::default() };
        let outside = s.create(&services, asks("10.0.0.1"), dry.clone()).unwrap_err();
        assert_eq!(
            outside.message,
            "Service \"b\" is invalid: spec.clusterIPs: Invalid value: [\"10.0.0.1\"]: failed to allocate IP 10.0.0.1: the provided IP (10.0.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12"
        );
        let outside = s.create(&services, asks("10.0.0.1"), WriteOptions::default()).unwrap_err();
        assert!(outside.message.ends_with("failed to allocate IP 10.0.0.1: the provided network does not match the current range"));
        assert!(s.create(&services, asks(&ip.to_string()), dry).is_ok(), "a dry run does not ask whether the IP is free");
        let taken = s.create(&services, asks(&ip.to_string()), WriteOptions::default()).unwrap_err();
        assert!(taken.message.ends_with("provided IP is already allocated"), "{}", taken.message);
    }
}
