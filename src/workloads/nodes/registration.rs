//! A node agent's own objects, as a kubelet writes them: its Node (registered once, as
//! `registerWithAPIServer` in kubernetes pkg/kubelet/kubelet_node_status.go does; a kubelet
//! whose Node is deleted does not make it again), the Node's status with its capacity and
//! `Ready` condition, renewed every five minutes (`nodeStatusReportFrequency`), and its Lease in
//! `kube-node-lease`, owned by the Node and renewed every ten seconds (pkg/kubelet/nodelease,
//! `renewInterval` a quarter of the 40 s lease).

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

use crate::clock::format_time;
use crate::workloads::nodes::kubelet::Report;

/// How often a node agent renews its Lease.
pub const LEASE_RENEWAL: Duration = Duration::seconds(10);

/// How often a node agent reports its unchanged status.
pub const STATUS_REPORT: Duration = Duration::minutes(5);

/// The namespace of node Leases.
pub const LEASE_NAMESPACE: &str = "kube-node-lease";

/// The kubelet version the agents report: that of the pinned control plane.
const KUBELET_VERSION: &str = "v1.37.2";

/// The `index`-th node's (from 1) name.
pub fn name(index: usize) -> String {
    format!("node-{index}")
}

/// The `index`-th node's address.
pub fn address(index: usize) -> String {
    format!("172.18.0.{}", index + 1)
}

/// The address of the `n`-th pod (from 0) of the `index`-th node, from its pod CIDR
/// `10.244.<index>.0/24`, as host-local IPAM hands them out (`.1` is the gateway).
pub fn pod_address(index: usize, n: usize) -> String {
    format!("10.244.{index}.{}", n + 2)
}

/// How many pod addresses a node has.
pub const POD_ADDRESSES: usize = 253;

/// The Node the `index`-th agent registers.
pub fn node(index: usize) -> Value {
    let name = name(index);
    let cidr = format!("10.244.{index}.0/24");
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
        }},
        "spec": {"podCIDR": cidr, "podCIDRs": [cidr]},
    })
}

/// The status of the `index`-th agent's Node at `now`, its conditions' transitions kept from
/// `old` (the Node's conditions as stored), with what its kubelet `reports`.
pub fn status(index: usize, old: &Value, now: DateTime<Utc>, reports: &Report) -> Value {
    let at = format_time(now);
    let condition = |kind: &str, status: &str, reason: &str, message: &str| {
        let since = old
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == kind && c["status"] == status)
            .map_or(json!(at), |c| c["lastTransitionTime"].clone());
        json!({"type": kind, "status": status, "lastHeartbeatTime": at, "lastTransitionTime": since, "reason": reason, "message": message})
    };
    let resources = json!({"cpu": "4", "ephemeral-storage": format!("{}Ki", reports.capacity / 1024), "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "16Gi", "pods": "110"});
    let mut status = json!({
        "capacity": resources,
        "allocatable": resources,
        "conditions": [
            condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            if reports.disk_pressure {
                condition("DiskPressure", "True", "KubeletHasDiskPressure", "kubelet has disk pressure")
            } else {
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure")
            },
            condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
        "addresses": [{"type": "InternalIP", "address": address(index)}, {"type": "Hostname", "address": name(index)}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "machineID": format!("kubegc-machine-{index}"),
            "systemUUID": format!("kubegc-system-{index}"),
            "bootID": format!("kubegc-boot-{index}"),
            "kernelVersion": "6.1.0",
            "osImage": "kubegc node agent",
            "containerRuntimeVersion": "containerd://2.1.0",
            "kubeletVersion": KUBELET_VERSION,
            "kubeProxyVersion": "",
            "operatingSystem": "linux",
            "architecture": "amd64",
        },
    });
    // Always written, so that a patch clears the list when the last image goes.
    status["images"] = reports.images.clone();
    status
}

/// Whether the stored Node `status` says other than the kubelet `reports`.
pub fn outdated(status: &Value, reports: &Report) -> bool {
    let pressure = status["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == "DiskPressure" && c["status"] == "True");
    let images = if status["images"].is_null() { json!([]) } else { status["images"].clone() };
    pressure != reports.disk_pressure || images != reports.images
}

/// The Lease of the Node `name` (uid `uid`), renewed at `now`.
pub fn lease(name: &str, uid: &str, now: DateTime<Utc>) -> Value {
    json!({
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": name, "namespace": LEASE_NAMESPACE,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": uid}]},
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": micro_time(now)},
    })
}

/// A `metav1.MicroTime`: RFC 3339 with microseconds.
pub fn micro_time(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}
