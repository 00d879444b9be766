//! Defaults of the core group (`pkg/apis/core/v1/defaults.go` and
//! `pkg/apis/core/v1/zz_generated.defaults.go`). [`pod_template`] is the one pod-spec defaulter:
//! pods, pod templates and the templates of every workload use it.

use serde_json::{Value, json};

use super::{items, object_at, or_nil, or_zero, present};

/// The default file mode of secret, config map, downward API and projected volumes (0644).
const DEFAULT_MODE: i64 = 0o644;

/// Defaults of the core kind `kind`.
pub fn apply(kind: &str, object: &mut Value) {
    match kind {
        "Pod" => pod(object),
        "PodTemplate" => {
            if let Some(template) = object_at(object, "template") {
                pod_template(template);
            }
        }
        "ReplicationController" => replication_controller(object),
        "Service" => service(object),
        "PersistentVolume" => persistent_volume(object),
        "PersistentVolumeClaim" => persistent_volume_claim(object),
        "Secret" => secret(object),
        "Endpoints" => {
            for subset in items(object, "subsets") {
                for port in items(subset, "ports") {
                    or_zero(port, "protocol", json!("TCP"));
                }
            }
        }
        "Namespace" => namespace(object),
        "Event" => {
            // Fields Go always writes: not `omitempty`, or a struct.
            or_nil(object, "reportingComponent", json!(""));
            or_nil(object, "reportingInstance", json!(""));
            object_at(object, "source");
        }
        "LimitRange" => {
            if let Some(spec) = object_at(object, "spec") {
                items(spec, "limits").for_each(limit_range_item);
            }
        }
        _ => {}
    }
}

/// A Pod: `SetDefaults_Pod` (a negative grace period becomes 1, container requests from their
/// limits, service links on, host ports of host-network pods) before its spec's defaults.
fn pod(pod: &mut Value) {
    if let Some(spec) = object_at(pod, "spec") {
        if spec["terminationGracePeriodSeconds"].as_i64().is_some_and(|s| s < 0) {
            spec["terminationGracePeriodSeconds"] = json!(1);
        }
        for list in ["containers", "initContainers"] {
            for container in items(spec, list) {
                requests_from_limits(container);
            }
        }
        or_nil(spec, "enableServiceLinks", json!(true));
        if spec["hostNetwork"] == json!(true) {
            for list in ["containers", "initContainers"] {
                for container in items(spec, list) {
                    for port in items(container, "ports") {
                        let container_port = port["containerPort"].clone();
                        or_zero(port, "hostPort", container_port);
                    }
                }
            }
        }
        pod_spec(spec);
    }
    if let Some(status) = object_at(pod, "status") {
        pod_ips(status);
    }
}

/// `SetDefaults_PodStatus`: `podIP` and `podIPs` agree, `podIP` winning.
fn pod_ips(status: &mut Value) {
    let ip = status["podIP"].as_str().unwrap_or("").to_string();
    let first = status["podIPs"].as_array().and_then(|ips| ips.first()).map(|first| first["ip"].clone());
    match (ip.is_empty(), first) {
        (false, Some(first)) if first == json!(ip) => {}
        (false, _) => status["podIPs"] = json!([{"ip": ip}]),
        (true, Some(first)) => status["podIP"] = first,
        (true, None) => {}
    }
}

/// A container's limits are its requests where it requests nothing of that resource.
fn requests_from_limits(container: &mut Value) {
    let Some(limits) = container["resources"]["limits"].as_object().cloned() else { return };
    let Some(requests) = object_at(container, "resources").and_then(|r| object_at(r, "requests")) else { return };
    for (resource, limit) in limits {
        or_nil(requests, &resource, limit);
    }
}

/// A pod template (`PodTemplateSpec`): its metadata, always written, and its spec's defaults.
pub fn pod_template(template: &mut Value) {
    object_at(template, "metadata");
    if let Some(spec) = object_at(template, "spec") {
        pod_spec(spec);
    }
}

/// `SetDefaults_PodSpec` and the generated defaults of what a pod spec holds: volumes,
/// containers of every list, their ports, environment, probes and lifecycle handlers.
fn pod_spec(spec: &mut Value) {
    let account = match spec["serviceAccountName"].as_str().filter(|s| !s.is_empty()) {
        Some(name) => name.to_string(),
        None => spec["serviceAccount"].as_str().unwrap_or("").to_string(),
    };
    if let Some(map) = spec.as_object_mut() {
        if account.is_empty() {
            map.remove("serviceAccount");
        } else {
            map.insert("serviceAccountName".into(), json!(account));
            map.insert("serviceAccount".into(), json!(account));
        }
    }
    or_zero(spec, "dnsPolicy", json!("ClusterFirst"));
    or_zero(spec, "restartPolicy", json!("Always"));
    object_at(spec, "securityContext");
    or_nil(spec, "terminationGracePeriodSeconds", json!(30));
    or_zero(spec, "schedulerName", json!("default-scheduler"));
    items(spec, "volumes").for_each(volume);
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        items(spec, list).for_each(container);
    }
}

/// `SetDefaults_Volume` and the defaults of each volume source.
fn volume(volume: &mut Value) {
    if volume.as_object().is_some_and(|v| v.keys().all(|k| k == "name")) {
        volume["emptyDir"] = json!({});
    }
    if let Some(host_path) = present(volume, "hostPath") {
        or_nil(host_path, "type", json!(""));
    }
    for source in ["secret", "configMap"] {
        if let Some(source) = present(volume, source) {
            or_nil(source, "defaultMode", json!(DEFAULT_MODE));
        }
    }
    if let Some(downward) = present(volume, "downwardAPI") {
        or_nil(downward, "defaultMode", json!(DEFAULT_MODE));
        downward_items(downward);
    }
    if let Some(projected) = present(volume, "projected") {
        or_nil(projected, "defaultMode", json!(DEFAULT_MODE));
        for source in items(projected, "sources") {
            if let Some(downward) = present(source, "downwardAPI") {
                downward_items(downward);
            }
            if let Some(token) = present(source, "serviceAccountToken") {
                or_nil(token, "expirationSeconds", json!(3600));
            }
        }
    }
    for (source, defaults) in [
        ("iscsi", &[("iscsiInterface", "default")][..]),
        ("rbd", &[("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring")][..]),
        ("scaleIO", &[("storageMode", "ThinProvisioned"), ("fsType", "xfs")][..]),
    ] {
        if let Some(source) = present(volume, source) {
            for (field, value) in defaults {
                or_zero(source, field, json!(value));
            }
        }
    }
    if let Some(disk) = present(volume, "azureDisk") {
        for (field, value) in
            [("cachingMode", json!("ReadWrite")), ("fsType", json!("ext4")), ("readOnly", json!(false)), ("kind", json!("Shared"))]
        {
            or_nil(disk, field, value);
        }
    }
    if let Some(template) = present(volume, "ephemeral").and_then(|e| present(e, "volumeClaimTemplate")) {
        object_at(template, "metadata");
        if let Some(spec) = object_at(template, "spec") {
            claim_spec(spec);
        }
    }
}

/// The `fieldRef` of each downward API item names `v1` by default.
fn downward_items(downward: &mut Value) {
    for item in items(downward, "items") {
        if let Some(field_ref) = present(item, "fieldRef") {
            or_zero(field_ref, "apiVersion", json!("v1"));
        }
    }
}

/// `SetDefaults_Container` (the pull policy from the image's tag, the termination message) and
/// the generated defaults of its ports, environment, probes and lifecycle handlers.
fn container(container: &mut Value) {
    let policy = if image_tag(container["image"].as_str().unwrap_or("")).as_deref() == Some("latest") { "Always" } else { "IfNotPresent" };
    or_zero(container, "imagePullPolicy", json!(policy));
    or_zero(container, "terminationMessagePath", json!("/dev/termination-log"));
    or_zero(container, "terminationMessagePolicy", json!("File"));
    object_at(container, "resources");
    for port in items(container, "ports") {
        or_zero(port, "protocol", json!("TCP"));
    }
    for env in items(container, "env") {
        let Some(from) = present(env, "valueFrom") else { continue };
        if let Some(field_ref) = present(from, "fieldRef") {
            or_zero(field_ref, "apiVersion", json!("v1"));
        }
        if let Some(file_key) = present(from, "fileKeyRef") {
            or_nil(file_key, "optional", json!(false));
        }
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        let Some(probe) = present(container, probe) else { continue };
        for (field, value) in [("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3)] {
            or_zero(probe, field, json!(value));
        }
        http_get(probe);
        if let Some(grpc) = present(probe, "grpc") {
            or_nil(grpc, "service", json!(""));
        }
    }
    if let Some(lifecycle) = present(container, "lifecycle") {
        for hook in ["postStart", "preStop"] {
            if let Some(handler) = present(lifecycle, hook) {
                http_get(handler);
            }
        }
    }
}

/// `SetDefaults_HTTPGetAction` of a handler's `httpGet`, if it has one.
fn http_get(handler: &mut Value) {
    if let Some(action) = present(handler, "httpGet") {
        or_zero(action, "path", json!("/"));
        or_zero(action, "scheme", json!("HTTP"));
    }
}

/// The tag of an image reference as the kubelet's parser reads it (`pkg/util/parsers`):
/// `latest` when it names neither tag nor digest, `None` for a digest alone or a reference
/// that does not parse (upper case in the repository).
fn image_tag(image: &str) -> Option<String> {
    let (name, digest) = match image.split_once('@') {
        Some((name, digest)) => (name, Some(digest)),
        None => (image, None),
    };
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    let (repository, tag) = match name[last_slash..].rfind(':') {
        Some(colon) => (&name[..last_slash + colon], Some(&name[last_slash + colon + 1..])),
        None => (name, None),
    };
    let path = repository
        .split_once('/')
        .map_or(repository, |(host, path)| if host.contains(['.', ':']) || host == "localhost" { path } else { repository });
    if repository.is_empty() || path.chars().any(|c| c.is_ascii_uppercase()) {
        return None;
    }
    match (tag, digest) {
        (Some(tag), _) => Some(tag.to_string()),
        (None, Some(_)) => None,
        (None, None) => Some("latest".into()),
    }
}

/// A ReplicationController: selector and labels from its template's labels, one replica, the
/// template's defaults, and the status Go always writes.
fn replication_controller(rc: &mut Value) {
    let template_labels = rc["spec"]["template"]["metadata"]["labels"].clone();
    if let Some(spec) = object_at(rc, "spec") {
        or_nil(spec, "replicas", json!(1));
        if template_labels.is_object() && spec["selector"].as_object().is_none_or(|s| s.is_empty()) {
            spec["selector"] = template_labels.clone();
        }
        if let Some(template) = present(spec, "template") {
            pod_template(template);
        }
    }
    if template_labels.is_object()
        && let Some(meta) = object_at(rc, "metadata")
        && meta["labels"].as_object().is_none_or(|l| l.is_empty())
    {
        meta["labels"] = template_labels;
    }
    if let Some(status) = object_at(rc, "status") {
        or_nil(status, "replicas", json!(0));
    }
}

/// `SetDefaults_Service`: session affinity, type, port protocols and target ports, the traffic
/// policies, load balancers' node ports, and the status Go always writes. Cluster IPs and IP
/// families are the registry's (`kinds/services.rs`).
fn service(service: &mut Value) {
    if let Some(spec) = object_at(service, "spec") {
        or_zero(spec, "sessionAffinity", json!("None"));
        match spec["sessionAffinity"].as_str() {
            Some("None") => {
                if let Some(spec) = spec.as_object_mut() {
                    spec.remove("sessionAffinityConfig");
                }
            }
            Some("ClientIP") if spec["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"].is_null() => {
                spec["sessionAffinityConfig"] = json!({"clientIP": {"timeoutSeconds": 10800}});
            }
            _ => {}
        }
        or_zero(spec, "type", json!("ClusterIP"));
        for port in items(spec, "ports") {
            or_zero(port, "protocol", json!("TCP"));
            let number = port["port"].clone();
            or_zero(port, "targetPort", number);
        }
        let kind = spec["type"].as_str().unwrap_or("").to_string();
        let external_ips = spec["externalIPs"].as_array().is_some_and(|ips| !ips.is_empty());
        if matches!(kind.as_str(), "NodePort" | "LoadBalancer") || (kind == "ClusterIP" && external_ips) {
            or_zero(spec, "externalTrafficPolicy", json!("Cluster"));
        }
        if matches!(kind.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP") {
            or_nil(spec, "internalTrafficPolicy", json!("Cluster"));
        }
        if kind == "LoadBalancer" {
            or_nil(spec, "allocateLoadBalancerNodePorts", json!(true));
        }
    }
    if let Some(status) = object_at(service, "status") {
        object_at(status, "loadBalancer");
    }
}

/// A Secret is opaque by default; its `stringData` is written into `data`, base64-encoded, and
/// dropped, as the conversion to the internal version does (`pkg/apis/core/v1/conversion.go`).
fn secret(secret: &mut Value) {
    use base64::Engine;
    or_zero(secret, "type", json!("Opaque"));
    let Some(strings) = secret.as_object_mut().and_then(|s| s.remove("stringData")) else { return };
    let Some(strings) = strings.as_object().filter(|s| !s.is_empty()) else { return };
    if let Some(data) = object_at(secret, "data") {
        for (key, text) in strings {
            data[key] = json!(base64::engine::general_purpose::STANDARD.encode(text.as_str().unwrap_or("")));
        }
    }
}

/// A PersistentVolume: pending, retained, a file system, and its host path's type.
fn persistent_volume(volume: &mut Value) {
    if let Some(spec) = object_at(volume, "spec") {
        or_zero(spec, "persistentVolumeReclaimPolicy", json!("Retain"));
        or_nil(spec, "volumeMode", json!("Filesystem"));
        if let Some(host_path) = present(spec, "hostPath") {
            or_nil(host_path, "type", json!(""));
        }
    }
    if let Some(status) = object_at(volume, "status") {
        or_zero(status, "phase", json!("Pending"));
    }
}

/// A PersistentVolumeClaim: pending, and its spec's defaults.
fn persistent_volume_claim(claim: &mut Value) {
    if let Some(spec) = object_at(claim, "spec") {
        claim_spec(spec);
    }
    if let Some(status) = object_at(claim, "status") {
        or_zero(status, "phase", json!("Pending"));
    }
}

/// `SetDefaults_PersistentVolumeClaimSpec`: a file system; its resources, always written.
fn claim_spec(spec: &mut Value) {
    or_nil(spec, "volumeMode", json!("Filesystem"));
    object_at(spec, "resources");
}

/// `SetDefaults_Namespace`: the `kubernetes.io/metadata.name` label carries the name;
/// `SetDefaults_NamespaceStatus`: a namespace with no phase is `Active`, whatever its write
/// (so a status write without one on a terminating namespace is refused).
fn namespace(namespace: &mut Value) {
    if let Some(status) = object_at(namespace, "status") {
        or_zero(status, "phase", json!("Active"));
    }
    let name = namespace["metadata"]["name"].clone();
    if name.as_str().is_some_and(|n| !n.is_empty())
        && let Some(labels) = object_at(namespace, "metadata").and_then(|m| object_at(m, "labels"))
    {
        labels["kubernetes.io/metadata.name"] = name;
    }
}

/// `SetDefaults_LimitRangeItem`: a container's default limits from its maximums, its default
/// requests from its default limits, then from its minimums.
fn limit_range_item(item: &mut Value) {
    if item["type"] != json!("Container") {
        return;
    }
    for (into, from) in [("default", "max"), ("defaultRequest", "default"), ("defaultRequest", "min")] {
        let source = item[from].as_object().cloned().unwrap_or_default();
        if let Some(target) = object_at(item, into) {
            for (resource, quantity) in source {
                or_nil(target, &resource, quantity);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pull_policy_follows_the_image_tag() {
        assert_eq!(image_tag("nginx").as_deref(), Some("latest"));
        assert_eq!(image_tag("registry:5000/team/app:1.2").as_deref(), Some("1.2"));
        assert_eq!(image_tag("registry:5000/team/app").as_deref(), Some("latest"));
        assert_eq!(image_tag("app@sha256:abc"), None);
        assert_eq!(image_tag("Bad"), None);
    }

    #[test]
    fn a_template_s_spec_gets_every_pod_spec_default_and_a_pod_more() {
        let mut template = json!({"spec": {"containers": [{"name": "c", "image": "i:1", "ports": [{"containerPort": 80}]}]}});
        pod_template(&mut template);
        assert_eq!(
            template,
            json!({"metadata": {}, "spec": {"containers": [{"name": "c", "image": "i:1", "imagePullPolicy": "IfNotPresent",
                "ports": [{"containerPort": 80, "protocol": "TCP"}], "resources": {},
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
                "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": "default-scheduler",
                "securityContext": {}, "terminationGracePeriodSeconds": 30}})
        );
        let mut pod = json!({"spec": {"containers": [{"name": "c", "image": "i"}], "terminationGracePeriodSeconds": -5}});
        apply("Pod", &mut pod);
        assert_eq!(pod["spec"]["terminationGracePeriodSeconds"], 1);
        assert_eq!(pod["spec"]["enableServiceLinks"], true);
        assert_eq!(pod["spec"]["containers"][0]["imagePullPolicy"], "Always");
    }

    #[test]
    fn a_service_gets_its_type_affinity_and_ports() {
        let mut svc = json!({"spec": {"ports": [{"port": 80}], "sessionAffinityConfig": {}}});
        apply("Service", &mut svc);
        assert_eq!(
            svc,
            json!({"spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}], "sessionAffinity": "None",
                "type": "ClusterIP", "internalTrafficPolicy": "Cluster"}, "status": {"loadBalancer": {}}})
        );
    }
}
