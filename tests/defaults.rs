//! What kube-apiserver fills in and refuses in a built-in object, compared on the fake and on
//! the upstream control plane: each kind's minimal object is created on both and the answers
//! compared whole, after masking what differs by nature (uids, resourceVersions, timestamps,
//! managedFields, names and namespaces, allocated cluster IPs and node ports, the generated
//! name of a pod's token volume). A missing default, a value of the wrong type that is not
//! refused as upstream refuses it, or an unsupported enumerated value that is accepted, fails.

mod support;

use serde_json::{Value, json};
use support::*;

/// Replaces in `value` what differs between two servers by nature.
fn mask(value: &mut Value, names: &[(String, &str)]) {
    match value {
        Value::Object(map) => {
            map.remove("managedFields");
            for (key, field) in map.iter_mut() {
                let masked = match key.as_str() {
                    "uid" | "resourceVersion" => Some("MASKED"),
                    "namespace" if field.is_string() => Some("NAMESPACE"),
                    "clusterIP" | "clusterIPs" | "nodePort" if field != &json!("None") && field != &json!(["None"]) => Some("ALLOCATED"),
                    _ => None,
                };
                match masked {
                    Some(text) => *field = json!(text),
                    None => mask(field, names),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| mask(item, names)),
        Value::String(text) => {
            if chrono::DateTime::parse_from_rfc3339(text).is_ok() {
                *text = "TIME".into();
            } else if let Some(suffix) = text.strip_prefix("kube-api-access-") {
                *text = format!("kube-api-access-{}", "x".repeat(suffix.len()));
            } else if let Some((_, to)) = names.iter().find(|(from, _)| from == text) {
                *text = to.to_string();
            }
        }
        _ => {}
    }
}

/// The paths at which `a` and `b` differ, with both values.
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                differences(x.get(key).unwrap_or(&Value::Null), y.get(key).unwrap_or(&Value::Null), &format!("{path}.{key}"), out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                differences(x, y, &format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(format!("{path}: fake {a}, upstream {b}")),
        _ => {}
    }
}

/// `object` with each string `NAMESPACE` replaced by `namespace`.
fn in_namespace(object: &Value, namespace: &str) -> Value {
    match object {
        Value::String(s) if s == "NAMESPACE" => json!(namespace),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), in_namespace(v, namespace))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(|v| in_namespace(v, namespace)).collect()),
        other => other.clone(),
    }
}

/// POSTs `object` to `collection` (a path in `default`; the string `NAMESPACE` in it stands for
/// that namespace) on the fake and on upstream, and asserts that both answer the same, masked;
/// returns the fake's answer.
async fn same_on_both(collection: &str, object: Value) -> Value {
    let (fake, upstream) = (Server::fake(), Server::upstream().await);
    let mut answers = Vec::new();
    for server in [&fake, &upstream] {
        let r = post(server, collection, in_namespace(&object, server.namespace())).await;
        let mut body = r.body;
        let meta = body["metadata"].clone();
        let mut names: Vec<(String, &str)> = Vec::new();
        if let Some(name) = meta["name"].as_str().filter(|_| meta["generateName"].is_string()) {
            names.push((name.to_string(), "GENERATED"));
        }
        if let Some(uid) = meta["uid"].as_str() {
            names.push((uid.to_string(), "UID"));
        }
        mask(&mut body, &names);
        answers.push((r.code, body));
    }
    let mut found = Vec::new();
    differences(&json!(answers[0].0), &json!(answers[1].0), "code", &mut found);
    differences(&answers[0].1, &answers[1].1, "", &mut found);
    assert!(
        found.is_empty(),
        "the fake and upstream differ:\n{}\nfake: {:#}\nupstream: {:#}",
        found.join("\n"),
        answers[0].1,
        answers[1].1
    );
    answers.swap_remove(0).1
}

const CORE: &str = "/api/v1/namespaces/default";
const APPS: &str = "/apis/apps/v1/namespaces/default";
const BATCH: &str = "/apis/batch/v1/namespaces/default";

fn template(labels: Value) -> Value {
    json!({"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}})
}

fn deployment(spec: Value) -> Value {
    let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": template(json!({"app": "d"}))}});
    json_patch::merge(&mut d["spec"], &spec);
    d
}

fn pod(spec: Value) -> Value {
    let mut p =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    json_patch::merge(&mut p["spec"], &spec);
    p
}

macro_rules! same_on_both {
    ($($name:ident: $collection:expr, $object:expr;)*) => {
        $(#[tokio::test]
        async fn $name() {
            same_on_both(&$collection, $object).await;
        })*
    };
}

same_on_both! {
    a_pod_gets_its_spec_container_admission_and_status_defaults: format!("{CORE}/pods"), pod(json!({
        "containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": "1"}},
            "livenessProbe": {"httpGet": {"port": 80}}, "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}],
        "volumes": [{"name": "v"}, {"name": "s", "secret": {"secretName": "s"}}]}));
    a_pod_template_s_spec_is_defaulted: format!("{CORE}/podtemplates"),
        json!({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"}, "template": template(json!({"a": "b"}))});
    a_replication_controller_takes_its_selector_and_labels_from_its_template: format!("{CORE}/replicationcontrollers"),
        json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": {"template": template(json!({"app": "rc"}))}});
    a_cluster_ip_service_gets_an_ip_families_and_policies: format!("{CORE}/services"),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"selector": {"app": "s"}, "ports": [{"port": 80}]}});
    a_node_port_service_gets_node_ports: format!("{CORE}/services"),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "np"}, "spec": {"type": "NodePort", "selector": {"app": "s"}, "ports": [{"port": 80, "targetPort": "http"}]}});
    a_load_balancer_service_allocates_node_ports: format!("{CORE}/services"),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "selector": {"app": "s"}, "ports": [{"port": 80}]}});
    a_headless_service_without_selector_requires_dual_stack: format!("{CORE}/services"),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "h"}, "spec": {"clusterIP": "None", "ports": [{"port": 80}]}});
    a_headless_service_with_selector_is_single_stack: format!("{CORE}/services"),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hs"}, "spec": {"clusterIP": "None", "selector": {"a": "b"}}});
    an_external_name_service_gets_no_ip: format!("{CORE}/services"),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "e"}, "spec": {"type": "ExternalName", "externalName": "example.com"}});
    a_secret_is_opaque: format!("{CORE}/secrets"), json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "v"}});
    a_config_map_is_as_sent: format!("{CORE}/configmaps"), json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
    a_service_account_is_as_sent: format!("{CORE}/serviceaccounts"), json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}});
    endpoints_ports_are_tcp: format!("{CORE}/endpoints"), json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e"},
        "subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 80}]}]});
    a_claim_is_pending_on_a_file_system: format!("{CORE}/persistentvolumeclaims"), json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}});
    a_volume_is_retained_and_pending: "/api/v1/persistentvolumes", json!({"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"generateName": "pv-"}, "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/x"}}});
    a_resource_quota_starts_with_an_empty_status: format!("{CORE}/resourcequotas"),
        json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hard": {"pods": "10"}}});
    a_limit_range_defaults_container_limits_from_maximums: format!("{CORE}/limitranges"), json!({"apiVersion": "v1", "kind": "LimitRange",
        "metadata": {"name": "l"}, "spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"}}]}});
    an_event_is_as_sent: format!("{CORE}/events"), json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "ev"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "NAMESPACE"}, "reason": "R", "message": "m", "type": "Normal"});
    a_namespace_is_labelled_with_its_name: "/api/v1/namespaces", json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"generateName": "defaults-"}});
    a_deployment_rolls_and_keeps_history: format!("{APPS}/deployments"), deployment(json!({}));
    a_recreate_deployment_has_no_rolling_update: format!("{APPS}/deployments"), deployment(json!({"strategy": {"type": "Recreate"}}));
    a_replica_set_has_one_replica: format!("{APPS}/replicasets"), json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"},
        "spec": {"selector": {"matchLabels": {"app": "rs"}}, "template": template(json!({"app": "rs"}))}});
    a_stateful_set_updates_in_order_and_retains_claims: format!("{APPS}/statefulsets"), json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "ss"}, "spec": {"serviceName": "ss", "selector": {"matchLabels": {"app": "ss"}}, "template": template(json!({"app": "ss"}))}});
    a_controller_revision_is_as_sent: format!("{APPS}/controllerrevisions"),
        json!({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "cr"}, "revision": 1});
    a_job_runs_once_with_six_retries: format!("{BATCH}/jobs"), json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36"}]}}}});
    a_cron_job_allows_concurrency_and_keeps_history: format!("{BATCH}/cronjobs"), json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "cj"}, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
        "containers": [{"name": "c", "image": "busybox"}]}}}}}});
    a_lease_is_as_sent: "/apis/coordination.k8s.io/v1/namespaces/default/leases",
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"}, "spec": {"holderIdentity": "h"}});
    a_disruption_budget_starts_with_zero_counts: "/apis/policy/v1/namespaces/default/poddisruptionbudgets", json!({"apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"a": "b"}}}});
    an_endpoint_slice_port_is_unnamed_tcp: "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", json!({"apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice", "metadata": {"name": "es"}, "addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"]}], "ports": [{"port": 80}]});
    a_runtime_class_is_as_sent: "/apis/node.k8s.io/v1/runtimeclasses",
        json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"generateName": "rc-"}, "handler": "runc"});
    a_role_binding_names_the_rbac_group: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "rb"},
        "roleRef": {"kind": "Role", "name": "r", "apiGroup": "rbac.authorization.k8s.io"}, "subjects": [{"kind": "User", "name": "u"}]});
    a_role_is_as_sent: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", json!({"apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role", "metadata": {"name": "r"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]});
    a_value_of_the_wrong_type_is_refused_as_the_go_decoder_does: format!("{APPS}/deployments"), deployment(json!({"template": {"spec": {
        "containers": [{"name": "c", "image": "i", "ports": [{"containerPort": "x"}]}]}}}));
    a_replica_count_in_quotes_is_refused: format!("{APPS}/deployments"), deployment(json!({"replicas": "3"}));
    an_unsupported_pull_policy_is_invalid: format!("{APPS}/deployments"), deployment(json!({"template": {"spec": {
        "containers": [{"name": "c", "image": "i", "imagePullPolicy": "Sometimes"}]}}}));
    an_unsupported_strategy_is_invalid: format!("{APPS}/deployments"), deployment(json!({"strategy": {"type": "Sometimes"}}));
    an_unsupported_restart_dns_and_protocol_are_invalid: format!("{CORE}/pods"), pod(json!({"restartPolicy": "Sometimes",
        "dnsPolicy": "Sometimes", "containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80, "protocol": "Sometimes"}]}]}));
    an_unsupported_service_type_and_affinity_are_invalid: format!("{CORE}/services"), json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "s"}, "spec": {"type": "Sometimes", "sessionAffinity": "Sometimes", "ports": [{"port": 80}]}});
    an_unsupported_completion_mode_is_invalid: format!("{BATCH}/jobs"), json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
        "spec": {"completionMode": "Sometimes", "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}});
    an_unsupported_concurrency_policy_is_invalid: format!("{BATCH}/cronjobs"), json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "cj"}, "spec": {"schedule": "* * * * *", "concurrencyPolicy": "Sometimes", "jobTemplate": {"spec": {"template": {"spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}}});
    an_unsupported_access_mode_is_invalid: format!("{CORE}/persistentvolumeclaims"), json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteSometimes"], "resources": {"requests": {"storage": "1Gi"}}}});
    an_unsupported_reclaim_policy_is_invalid: "/api/v1/persistentvolumes", json!({"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": "invalid"}, "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
        "persistentVolumeReclaimPolicy": "Sometimes", "hostPath": {"path": "/tmp/x"}}});
}

/// Defaults apply to updates too: a PUT that leaves a default out gets it again, and keeps the
/// Service's allocated IP.
#[tokio::test]
async fn an_update_is_defaulted_and_keeps_the_allocated_cluster_ip() {
    let server = Server::fake();
    let created = post(&server, &format!("{APPS}/deployments"), deployment(json!({}))).await.body;
    let mut sent = created.clone();
    sent["spec"].as_object_mut().unwrap().remove("revisionHistoryLimit");
    let updated = put(&server, &format!("{APPS}/deployments/d"), sent).await;
    assert_eq!((updated.code, updated.body["spec"]["revisionHistoryLimit"].clone()), (200, json!(10)));
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}});
    let created = post(&server, &format!("{CORE}/services"), svc.clone()).await.body;
    let updated = put(&server, &format!("{CORE}/services/s"), svc).await;
    assert_eq!(updated.body["spec"]["clusterIP"], created["spec"]["clusterIP"], "{}", updated.body);
}
