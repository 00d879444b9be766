//! `decode` end to end: protobuf bodies as client-go and kubectl send them, and the Kubernetes
//! JSON they must become.

use super::to_json::number;
use super::*;
use data_encoding::HEXLOWER;
use k8s_pb::api::core::v1 as corev1;
use k8s_pb::apimachinery::pkg::api::resource::Quantity;
use k8s_pb::apimachinery::pkg::runtime::{RawExtension, TypeMeta};
use k8s_pb::apimachinery::pkg::util::intstr::IntOrString;
use prost::Message as _;
use serde_json::json;
use std::collections::BTreeMap;

/// A body as client-go sends it: magic + `runtime.Unknown` around the encoded message.
fn body<M: prost::Message>(api_version: &str, kind: &str, message: &M) -> Vec<u8> {
    let envelope = Unknown {
        type_meta: Some(TypeMeta { api_version: s(api_version), kind: s(kind) }),
        raw: Some(message.encode_to_vec()),
        content_encoding: s(""),
        content_type: s(""),
    };
    [MAGIC, &envelope.encode_to_vec()].concat()
}

fn s(text: &str) -> Option<String> {
    Some(text.to_string())
}

fn map<V: Clone>(entries: &[(&str, V)]) -> BTreeMap<String, V> {
    entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

fn quantity(text: &str) -> Quantity {
    Quantity { string: s(text) }
}

fn int_value(n: i32) -> Option<IntOrString> {
    Some(IntOrString { r#type: Some(0), int_val: Some(n), str_val: s("") })
}

fn str_value(text: &str) -> Option<IntOrString> {
    Some(IntOrString { r#type: Some(1), int_val: Some(0), str_val: s(text) })
}

/// `2024-01-02T03:04:05Z`.
const T0: i64 = 1_704_164_645;

fn time(seconds: i64) -> Option<meta::Time> {
    Some(meta::Time { seconds: Some(seconds), nanos: Some(0) })
}

/// Object metadata as Go writes it: every non-pointer field present, zero when unset, and
/// a zero `creationTimestamp` as an empty message.
fn go_meta(name: &str, namespace: &str) -> meta::ObjectMeta {
    meta::ObjectMeta {
        name: s(name),
        generate_name: s(""),
        namespace: s(namespace),
        self_link: s(""),
        uid: s(""),
        resource_version: s(""),
        generation: Some(0),
        creation_timestamp: Some(meta::Time::default()),
        ..Default::default()
    }
}

#[test]
fn content_type_detection() {
    assert!(is_protobuf("application/vnd.kubernetes.protobuf"));
    assert!(is_protobuf("Application/Vnd.Kubernetes.Protobuf ; charset=utf-8"));
    assert!(!is_protobuf("application/json"));
    assert!(!is_protobuf("application/vnd.kubernetes.protobuf.other"));
    assert!(!is_protobuf(""));
}

#[test]
fn namespace_drops_go_zero_values() {
    let namespace = corev1::Namespace {
        metadata: Some(meta::ObjectMeta { labels: map(&[("team", "a".to_string())]), ..go_meta("t1", "") }),
        spec: Some(corev1::NamespaceSpec { finalizers: vec![] }),
        status: Some(corev1::NamespaceStatus { phase: s(""), conditions: vec![] }),
    };
    let json = decode(&body("v1", "Namespace", &namespace)).unwrap();
    assert_eq!(
        json,
        json!({"apiVersion": "v1", "kind": "Namespace",
               "metadata": {"name": "t1", "labels": {"team": "a"}}, "spec": {}, "status": {}})
    );
}

#[test]
fn config_map_with_data_and_binary_data() {
    let config_map = corev1::ConfigMap {
        metadata: Some(go_meta("settings", "default")),
        immutable: Some(false),
        data: map(&[("mode", "fast".to_string()), ("empty", String::new())]),
        binary_data: map(&[("blob", vec![0u8, 1, 2, 255])]),
    };
    let json = decode(&body("v1", "ConfigMap", &config_map)).unwrap();
    assert_eq!(
        json,
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "settings", "namespace": "default"},
               "immutable": false,
               "data": {"mode": "fast", "empty": ""},
               "binaryData": {"blob": "AAEC/w=="}})
    );
}

#[test]
fn secret_bytes_become_base64() {
    let secret = corev1::Secret {
        metadata: Some(go_meta("db", "default")),
        immutable: None,
        data: map(&[("password", b"s3cr3t".to_vec()), ("none", vec![])]),
        string_data: BTreeMap::new(),
        r#type: s("Opaque"),
    };
    let json = decode(&body("v1", "Secret", &secret)).unwrap();
    assert_eq!(
        json,
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": "db", "namespace": "default"},
               "data": {"password": "czNjcjN0", "none": ""}, "type": "Opaque"})
    );
}

#[test]
fn service_ports_target_port_and_cluster_ip() {
    let port = |name: &str, port: i32, target_port| corev1::ServicePort {
        name: s(name),
        protocol: s("TCP"),
        app_protocol: None,
        port: Some(port),
        target_port,
        node_port: Some(0),
    };
    let service = corev1::Service {
        metadata: Some(go_meta("web", "default")),
        spec: Some(corev1::ServiceSpec {
            ports: vec![port("http", 80, int_value(8080)), port("metrics", 9090, str_value("metrics")), port("plain", 7000, int_value(0))],
            selector: map(&[("app", "web".to_string())]),
            cluster_ip: s("10.0.0.10"),
            cluster_ips: vec!["10.0.0.10".into()],
            r#type: s("ClusterIP"),
            session_affinity: s("None"),
            external_traffic_policy: s(""),
            health_check_node_port: Some(0),
            publish_not_ready_addresses: Some(false),
            ip_family_policy: s("SingleStack"),
            ..Default::default()
        }),
        status: Some(corev1::ServiceStatus { load_balancer: Some(corev1::LoadBalancerStatus { ingress: vec![] }), conditions: vec![] }),
    };
    let json = decode(&body("v1", "Service", &service)).unwrap();
    assert_eq!(
        json,
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "web", "namespace": "default"},
               "spec": {
                   "ports": [
                       {"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080},
                       {"name": "metrics", "protocol": "TCP", "port": 9090, "targetPort": "metrics"},
                       {"name": "plain", "protocol": "TCP", "port": 7000}
                   ],
                   "selector": {"app": "web"},
                   "clusterIP": "10.0.0.10",
                   "clusterIPs": ["10.0.0.10"],
                   "type": "ClusterIP",
                   "sessionAffinity": "None",
                   "ipFamilyPolicy": "SingleStack"
               },
               "status": {"loadBalancer": {}}})
    );
}

fn web_container() -> corev1::Container {
    let password = corev1::EnvVarSource {
        secret_key_ref: Some(corev1::SecretKeySelector {
            local_object_reference: Some(corev1::LocalObjectReference { name: s("db") }),
            key: s("password"),
            optional: Some(false),
        }),
        ..Default::default()
    };
    corev1::Container {
        name: s("web"),
        image: s("nginx:1.27"),
        ports: vec![corev1::ContainerPort {
            name: s(""),
            host_port: Some(0),
            container_port: Some(80),
            protocol: s("TCP"),
            host_ip: s(""),
        }],
        env: vec![
            corev1::EnvVar { name: s("MODE"), value: s("prod"), value_from: None },
            corev1::EnvVar { name: s("PASSWORD"), value: s(""), value_from: Some(password) },
        ],
        resources: Some(corev1::ResourceRequirements {
            limits: map(&[("cpu", quantity("500m")), ("memory", quantity("128Mi"))]),
            requests: map(&[("cpu", quantity("250m"))]),
            claims: vec![],
        }),
        termination_message_path: s("/dev/termination-log"),
        image_pull_policy: s("IfNotPresent"),
        stdin: Some(false),
        tty: Some(false),
        ..Default::default()
    }
}

fn deployment() -> apps::v1::Deployment {
    let cache = corev1::Volume {
        name: s("cache"),
        volume_source: Some(corev1::VolumeSource {
            empty_dir: Some(corev1::EmptyDirVolumeSource { medium: s(""), size_limit: None }),
            ..Default::default()
        }),
    };
    let template = corev1::PodTemplateSpec {
        metadata: Some(meta::ObjectMeta { labels: map(&[("app", "web".to_string())]), ..go_meta("", "") }),
        spec: Some(corev1::PodSpec {
            volumes: vec![cache],
            containers: vec![web_container()],
            restart_policy: s("Always"),
            termination_grace_period_seconds: Some(30),
            dns_policy: s("ClusterFirst"),
            automount_service_account_token: Some(false),
            host_network: Some(false),
            ..Default::default()
        }),
    };
    apps::v1::Deployment {
        metadata: Some(go_meta("web", "default")),
        spec: Some(apps::v1::DeploymentSpec {
            replicas: Some(0),
            selector: Some(meta::LabelSelector { match_labels: map(&[("app", "web".to_string())]), match_expressions: vec![] }),
            template: Some(template),
            strategy: Some(apps::v1::DeploymentStrategy {
                r#type: s("RollingUpdate"),
                rolling_update: Some(apps::v1::RollingUpdateDeployment { max_unavailable: str_value("25%"), max_surge: int_value(0) }),
            }),
            min_ready_seconds: Some(0),
            revision_history_limit: Some(10),
            paused: Some(false),
            progress_deadline_seconds: Some(600),
        }),
        status: Some(apps::v1::DeploymentStatus { observed_generation: Some(0), replicas: Some(0), ..Default::default() }),
    }
}

#[test]
fn deployment_with_pod_template() {
    let json = decode(&body("apps/v1", "Deployment", &deployment())).unwrap();
    assert_eq!(
        json,
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "namespace": "default"},
               "spec": {
                   "replicas": 0,
                   "selector": {"matchLabels": {"app": "web"}},
                   "template": {
                       "metadata": {"labels": {"app": "web"}},
                       "spec": {
                           "volumes": [{"name": "cache", "emptyDir": {}}],
                           "containers": [{
                               "name": "web",
                               "image": "nginx:1.27",
                               "ports": [{"containerPort": 80, "protocol": "TCP"}],
                               "env": [
                                   {"name": "MODE", "value": "prod"},
                                   {"name": "PASSWORD", "valueFrom": {"secretKeyRef":
                                       {"name": "db", "key": "password", "optional": false}}}
                               ],
                               "resources": {"limits": {"cpu": "500m", "memory": "128Mi"},
                                             "requests": {"cpu": "250m"}},
                               "terminationMessagePath": "/dev/termination-log",
                               "imagePullPolicy": "IfNotPresent"
                           }],
                           "restartPolicy": "Always",
                           "terminationGracePeriodSeconds": 30,
                           "dnsPolicy": "ClusterFirst",
                           "automountServiceAccountToken": false
                       }
                   },
                   "strategy": {"type": "RollingUpdate",
                                "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 0}},
                   "revisionHistoryLimit": 10,
                   "progressDeadlineSeconds": 600
               },
               "status": {}})
    );
}

fn pod() -> corev1::Pod {
    let owner = |api_version: &str, kind: &str, name: &str, uid: &str, flag: bool| meta::OwnerReference {
        api_version: s(api_version),
        kind: s(kind),
        name: s(name),
        uid: s(uid),
        controller: Some(flag),
        block_owner_deletion: Some(flag),
    };
    let probe = corev1::Probe {
        handler: Some(corev1::ProbeHandler {
            http_get: Some(corev1::HttpGetAction {
                path: s("/healthz"),
                port: int_value(8080),
                host: s(""),
                scheme: s("HTTP"),
                http_headers: vec![],
            }),
            ..Default::default()
        }),
        initial_delay_seconds: Some(0),
        period_seconds: Some(10),
        ..Default::default()
    };
    corev1::Pod {
        metadata: Some(meta::ObjectMeta {
            uid: s("pod-uid"),
            creation_timestamp: time(T0),
            deletion_timestamp: time(T0 + 60),
            deletion_grace_period_seconds: Some(0),
            owner_references: vec![
                owner("apps/v1", "ReplicaSet", "web-abc", "rs-uid", true),
                owner("v1", "ConfigMap", "cfg", "cm-uid", false),
            ],
            finalizers: vec!["example.com/keep".into(), "foregroundDeletion".into()],
            managed_fields: vec![meta::ManagedFieldsEntry {
                manager: s("kubectl"),
                operation: s("Update"),
                api_version: s("v1"),
                time: time(T0),
                fields_type: s("FieldsV1"),
                fields_v1: Some(meta::FieldsV1 { raw: Some(br#"{"f:metadata":{}}"#.to_vec()) }),
                subresource: s(""),
            }],
            ..go_meta("web-1", "default")
        }),
        spec: Some(corev1::PodSpec {
            containers: vec![corev1::Container { name: s("app"), image: s("busybox"), liveness_probe: Some(probe), ..Default::default() }],
            node_name: s("node-1"),
            host_ipc: Some(false),
            ..Default::default()
        }),
        status: Some(corev1::PodStatus {
            phase: s("Running"),
            host_ip: s("192.168.0.2"),
            host_ips: vec![corev1::HostIp { ip: s("192.168.0.2") }],
            pod_ip: s("10.1.0.5"),
            pod_ips: vec![corev1::PodIp { ip: s("10.1.0.5") }],
            start_time: time(T0),
            qos_class: s("BestEffort"),
            ..Default::default()
        }),
    }
}

#[test]
fn pod_with_owner_references_finalizers_and_timestamps() {
    let json = decode(&body("v1", "Pod", &pod())).unwrap();
    assert_eq!(
        json,
        json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "web-1",
            "namespace": "default",
            "uid": "pod-uid",
            "creationTimestamp": "2024-01-02T03:04:05Z",
            "deletionTimestamp": "2024-01-02T03:05:05Z",
            "deletionGracePeriodSeconds": 0,
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc",
                 "uid": "rs-uid", "controller": true, "blockOwnerDeletion": true},
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "cfg",
                 "uid": "cm-uid", "controller": false, "blockOwnerDeletion": false}
            ],
            "finalizers": ["example.com/keep", "foregroundDeletion"],
            "managedFields": [{
                "manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                "time": "2024-01-02T03:04:05Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {}}
            }]
        },
        "spec": {
            "containers": [{
                "name": "app",
                "image": "busybox",
                "livenessProbe": {
                    "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                    "periodSeconds": 10
                }
            }],
            "nodeName": "node-1"
        },
        "status": {
            "phase": "Running",
            "hostIP": "192.168.0.2",
            "hostIPs": [{"ip": "192.168.0.2"}],
            "podIP": "10.1.0.5",
            "podIPs": [{"ip": "10.1.0.5"}],
            "startTime": "2024-01-02T03:04:05Z",
            "qosClass": "BestEffort"
        }})
    );
}

fn delete_options() -> meta::DeleteOptions {
    meta::DeleteOptions {
        grace_period_seconds: Some(0),
        preconditions: Some(meta::Preconditions { uid: s("pod-uid"), resource_version: None }),
        orphan_dependents: None,
        propagation_policy: s("Foreground"),
        dry_run: vec![],
        ignore_store_read_error_with_cluster_breaking_potential: None,
    }
}

#[test]
fn delete_options_under_any_group_version() {
    for api_version in ["meta.k8s.io/v1", "v1", "apps/v1"] {
        let json = decode(&body(api_version, "DeleteOptions", &delete_options())).unwrap();
        assert_eq!(
            json,
            json!({"apiVersion": api_version, "kind": "DeleteOptions",
                   "gracePeriodSeconds": 0,
                   "preconditions": {"uid": "pod-uid"},
                   "propagationPolicy": "Foreground"})
        );
    }
    let orphan = meta::DeleteOptions { orphan_dependents: Some(false), ..Default::default() };
    let json = decode(&body("meta.k8s.io/v1", "DeleteOptions", &orphan)).unwrap();
    assert_eq!(json, json!({"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions", "orphanDependents": false}));
}

#[test]
fn eviction_carries_delete_options() {
    let eviction = policy::v1::Eviction { metadata: Some(go_meta("web-1", "default")), delete_options: Some(delete_options()) };
    let json = decode(&body("policy/v1", "Eviction", &eviction)).unwrap();
    assert_eq!(json["deleteOptions"]["gracePeriodSeconds"], json!(0));
    assert_eq!(json["metadata"], json!({"name": "web-1", "namespace": "default"}));
}

#[test]
fn lease_micro_times() {
    let micro = |nanos| Some(meta::MicroTime { seconds: Some(T0), nanos: Some(nanos) });
    let lease = coordination::v1::Lease {
        metadata: Some(go_meta("leader", "kube-system")),
        spec: Some(coordination::v1::LeaseSpec {
            holder_identity: s(""),
            lease_duration_seconds: Some(15),
            acquire_time: micro(123_456_789),
            renew_time: micro(0),
            lease_transitions: Some(0),
            ..Default::default()
        }),
    };
    let json = decode(&body("coordination.k8s.io/v1", "Lease", &lease)).unwrap();
    assert_eq!(
        json["spec"],
        json!({"holderIdentity": "", "leaseDurationSeconds": 15,
               "acquireTime": "2024-01-02T03:04:05.123456Z",
               "renewTime": "2024-01-02T03:04:05.000000Z", "leaseTransitions": 0})
    );
}

#[test]
fn controller_revision_raw_extension_holds_json() {
    let revision = apps::v1::ControllerRevision {
        metadata: Some(go_meta("web-1", "default")),
        data: Some(RawExtension { raw: Some(br#"{"spec":{"template":{"x":[1,2]}}}"#.to_vec()) }),
        revision: Some(3),
    };
    let json = decode(&body("apps/v1", "ControllerRevision", &revision)).unwrap();
    assert_eq!(json["data"], json!({"spec": {"template": {"x": [1, 2]}}}));
    assert_eq!(json["revision"], json!(3));

    let not_json = apps::v1::ControllerRevision { data: Some(RawExtension { raw: Some(b"\x00\x01".to_vec()) }), ..revision };
    let error = decode(&body("apps/v1", "ControllerRevision", &not_json)).unwrap_err();
    assert!(error.contains("embedded JSON is invalid"), "{error}");
}

fn crd() -> apiextensions::CustomResourceDefinition {
    use apiextensions::{Json, JsonSchemaProps, JsonSchemaPropsOrArray, JsonSchemaPropsOrBool};
    let string_schema = JsonSchemaProps { r#type: s("string"), ..Default::default() };
    let spec_schema = JsonSchemaProps {
        r#type: s("object"),
        x_kubernetes_preserve_unknown_fields: Some(false),
        properties: [
            (
                "replicas".to_string(),
                JsonSchemaProps {
                    r#type: s("integer"),
                    minimum: Some(0.0),
                    maximum: Some(10.5),
                    default: Some(Json { raw: Some(b"1".to_vec()) }),
                    ..Default::default()
                },
            ),
            (
                "tags".to_string(),
                JsonSchemaProps {
                    r#type: s("array"),
                    items: Some(Box::new(JsonSchemaPropsOrArray { schema: Some(Box::new(string_schema.clone())), j_son_schemas: vec![] })),
                    ..Default::default()
                },
            ),
            (
                "labels".to_string(),
                JsonSchemaProps {
                    r#type: s("object"),
                    additional_properties: Some(Box::new(JsonSchemaPropsOrBool {
                        allows: Some(true),
                        schema: Some(Box::new(string_schema)),
                    })),
                    ..Default::default()
                },
            ),
            (
                "closed".to_string(),
                JsonSchemaProps {
                    r#type: s("object"),
                    additional_properties: Some(Box::new(JsonSchemaPropsOrBool { allows: Some(false), schema: None })),
                    ..Default::default()
                },
            ),
        ]
        .into_iter()
        .collect(),
        ..Default::default()
    };
    apiextensions::CustomResourceDefinition {
        metadata: Some(go_meta("widgets.example.com", "")),
        spec: Some(apiextensions::CustomResourceDefinitionSpec {
            group: s("example.com"),
            names: Some(apiextensions::CustomResourceDefinitionNames {
                plural: s("widgets"),
                singular: s("widget"),
                kind: s("Widget"),
                list_kind: s("WidgetList"),
                ..Default::default()
            }),
            scope: s("Namespaced"),
            versions: vec![
                apiextensions::CustomResourceDefinitionVersion {
                    name: s("v1"),
                    served: Some(true),
                    storage: Some(true),
                    deprecated: Some(false),
                    schema: Some(apiextensions::CustomResourceValidation {
                        open_apiv3_schema: Some(JsonSchemaProps {
                            r#type: s("object"),
                            r#ref: s("#/x"),
                            properties: [("spec".to_string(), spec_schema)].into_iter().collect(),
                            ..Default::default()
                        }),
                    }),
                    subresources: Some(apiextensions::CustomResourceSubresources {
                        status: Some(apiextensions::CustomResourceSubresourceStatus {}),
                        scale: None,
                    }),
                    ..Default::default()
                },
                apiextensions::CustomResourceDefinitionVersion {
                    name: s("v0"),
                    served: Some(false),
                    storage: Some(false),
                    ..Default::default()
                },
            ],
            conversion: Some(apiextensions::CustomResourceConversion {
                strategy: s("Webhook"),
                webhook: Some(apiextensions::WebhookConversion {
                    client_config: Some(apiextensions::WebhookClientConfig {
                        url: None,
                        service: Some(apiextensions::ServiceReference {
                            namespace: s("system"),
                            name: s("conv"),
                            path: None,
                            port: Some(443),
                        }),
                        ca_bundle: Some(b"CA".to_vec()),
                    }),
                    conversion_review_versions: vec!["v1".into()],
                }),
            }),
            preserve_unknown_fields: Some(false),
        }),
        status: None,
    }
}

#[test]
fn custom_resource_definition_schema() {
    let json = decode(&body("apiextensions.k8s.io/v1", "CustomResourceDefinition", &crd())).unwrap();
    assert_eq!(
        json["spec"],
        json!({
            "group": "example.com",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1", "served": true, "storage": true,
                 "schema": {"openAPIV3Schema": {"type": "object", "$ref": "#/x", "properties": {"spec": {
                     "type": "object",
                     "x-kubernetes-preserve-unknown-fields": false,
                     "properties": {
                         "replicas": {"type": "integer", "minimum": 0, "maximum": 10.5, "default": 1},
                         "tags": {"type": "array", "items": {"type": "string"}},
                         "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                         "closed": {"type": "object", "additionalProperties": false}
                     }
                 }}}},
                 "subresources": {"status": {}}},
                {"name": "v0", "served": false, "storage": false}
            ],
            "conversion": {"strategy": "Webhook", "webhook": {
                "clientConfig": {"service": {"namespace": "system", "name": "conv", "port": 443},
                                 "caBundle": "Q0E="},
                "conversionReviewVersions": ["v1"]
            }}
        })
    );
}

#[test]
fn output_deserializes_into_k8s_openapi_types() {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::{Pod, Service};
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString as OpenApiIntOrString;

    let pod: Pod = serde_json::from_value(decode(&body("v1", "Pod", &pod())).unwrap()).unwrap();
    let metadata = &pod.metadata;
    assert_eq!(metadata.name.as_deref(), Some("web-1"));
    assert_eq!(metadata.deletion_grace_period_seconds, Some(0));
    assert_eq!(metadata.finalizers.as_deref(), Some(&["example.com/keep".to_string(), "foregroundDeletion".into()][..]));
    let owners = metadata.owner_references.as_ref().unwrap();
    assert_eq!((owners[0].kind.as_str(), owners[0].controller, owners[0].block_owner_deletion), ("ReplicaSet", Some(true), Some(true)));
    assert_eq!((owners[1].uid.as_str(), owners[1].controller, owners[1].block_owner_deletion), ("cm-uid", Some(false), Some(false)));
    let created = metadata.creation_timestamp.as_ref().unwrap().0;
    assert_eq!(created.as_second(), T0);
    let status = pod.status.unwrap();
    assert_eq!(status.pod_ip.as_deref(), Some("10.1.0.5"));
    assert_eq!(status.host_ips.unwrap()[0].ip, "192.168.0.2");
    let probe = pod.spec.unwrap().containers[0].liveness_probe.clone().unwrap();
    assert_eq!(probe.http_get.unwrap().port, OpenApiIntOrString::Int(8080));

    let deployment: Deployment = serde_json::from_value(decode(&body("apps/v1", "Deployment", &deployment())).unwrap()).unwrap();
    let spec = deployment.spec;
    assert_eq!(spec.replicas, Some(0));
    let pod_spec = spec.template.spec.unwrap();
    assert_eq!(pod_spec.volumes.unwrap()[0].empty_dir, Some(Default::default()));
    let container = &pod_spec.containers[0];
    let limits = container.resources.as_ref().unwrap().limits.as_ref().unwrap();
    assert_eq!(limits["memory"].0, "128Mi");
    let secret_ref = container.env.as_ref().unwrap()[1].value_from.clone().unwrap().secret_key_ref.unwrap();
    assert_eq!((secret_ref.name.as_str(), secret_ref.key.as_str()), ("db", "password"));
    let rolling = spec.strategy.unwrap().rolling_update.unwrap();
    assert_eq!(rolling.max_unavailable, Some(OpenApiIntOrString::String("25%".into())));

    let service = corev1::Service {
        spec: Some(corev1::ServiceSpec {
            ports: vec![corev1::ServicePort { port: Some(80), target_port: str_value("http"), ..Default::default() }],
            cluster_ip: s("10.0.0.1"),
            ..Default::default()
        }),
        ..Default::default()
    };
    let service: Service = serde_json::from_value(decode(&body("v1", "Service", &service)).unwrap()).unwrap();
    let spec = service.spec.unwrap();
    assert_eq!(spec.cluster_ip.as_deref(), Some("10.0.0.1"));
    assert_eq!(spec.ports.unwrap()[0].target_port, Some(OpenApiIntOrString::String("http".into())));
}

/// Decoding into the k8s-openapi type and encoding back gives the same JSON: every field
/// name is one k8s-openapi knows (it ignores unknown ones) and every value has its form.
/// Numbers compare by value, as k8s-openapi prints a float `0` as `0.0`.
fn assert_round_trips<T: serde::de::DeserializeOwned + serde::Serialize>(json: Value) {
    let typed: T = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(integral_floats_as_integers(serde_json::to_value(&typed).unwrap()), json);
}

fn integral_floats_as_integers(value: Value) -> Value {
    match value {
        Value::Number(n) => number(&n.to_string()).unwrap(),
        Value::Array(items) => items.into_iter().map(integral_floats_as_integers).collect(),
        Value::Object(entries) => entries.into_iter().map(|(k, v)| (k, integral_floats_as_integers(v))).collect(),
        other => other,
    }
}

#[test]
fn output_round_trips_through_k8s_openapi_types() {
    use k8s_openapi::api::{apps::v1 as openapi_apps, coordination::v1 as openapi_coordination, core::v1 as openapi_core};
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as openapi_apiextensions;

    assert_round_trips::<openapi_core::Pod>(decode(&body("v1", "Pod", &pod())).unwrap());
    assert_round_trips::<openapi_apps::Deployment>(decode(&body("apps/v1", "Deployment", &deployment())).unwrap());
    let crd = body("apiextensions.k8s.io/v1", "CustomResourceDefinition", &crd());
    assert_round_trips::<openapi_apiextensions::CustomResourceDefinition>(decode(&crd).unwrap());

    let secret = corev1::Secret { metadata: Some(go_meta("db", "default")), data: map(&[("k", b"\xffv".to_vec())]), ..Default::default() };
    assert_round_trips::<openapi_core::Secret>(decode(&body("v1", "Secret", &secret)).unwrap());

    let lease = coordination::v1::Lease {
        metadata: Some(go_meta("leader", "kube-system")),
        spec: Some(coordination::v1::LeaseSpec {
            holder_identity: s("me"),
            renew_time: Some(meta::MicroTime { seconds: Some(T0), nanos: Some(5_000) }),
            ..Default::default()
        }),
    };
    assert_round_trips::<openapi_coordination::Lease>(decode(&body("coordination.k8s.io/v1", "Lease", &lease)).unwrap());
}

fn from_hex(lines: &[&str]) -> Vec<u8> {
    let hex = lines.concat();
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

/// Bodies kubectl 1.32 sent, and the JSON `kubectl create --dry-run=client -o json` prints
/// for the same object (without its `null`s): the conversion matches Go's JSON encoder.
#[test]
fn bodies_captured_from_kubectl() {
    let captured = [
        (
            // kubectl create deployment web --image=nginx --replicas=0 --port=80
            &[
                "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b8010a1f0a0377656212001a0022002a00320038",
                "0042005a0a0a0361707012037765621286010800120c0a0a0a0361707012037765621a6c0a1c0a0012001a0022002a00",
                "3200380042005a0a0a036170701203776562124c122e0a056e67696e7812056e67696e782a00320a0a00100018502200",
                "2a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c20100",
                "22020a00280038001a0c0800100018002000280038001a002200",
            ][..],
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web", "labels": {"app": "web"}},
                   "spec": {
                       "replicas": 0,
                       "selector": {"matchLabels": {"app": "web"}},
                       "strategy": {},
                       "template": {
                           "metadata": {"labels": {"app": "web"}},
                           "spec": {"containers": [{"name": "nginx", "image": "nginx", "ports": [{"containerPort": 80}], "resources": {}}]}
                       }
                   },
                   "status": {}}),
        ),
        (
            // kubectl create pdb pdb1 --selector=app=a --min-available=0
            &[
                "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e42756467657412380a140a0470646231",
                "12001a0022002a0032003800420012140a06080010001a00120a0a080a036170701201611a0a08001800200028003000",
                "1a002200",
            ],
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb1"},
                   "spec": {"minAvailable": 0, "selector": {"matchLabels": {"app": "a"}}},
                   "status": {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}}),
        ),
        (
            // kubectl create priorityclass p0 --value=0
            &[
                "6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c61737312300a120a",
                "02703012001a0022002a003200380042001000180022002a14507265656d70744c6f7765725072696f726974791a0022",
                "00",
            ],
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "p0"},
                   "value": 0, "preemptionPolicy": "PreemptLowerPriority"}),
        ),
    ];
    for (hex, expected) in captured {
        assert_eq!(decode(&from_hex(hex)).unwrap(), expected, "{}", expected["kind"]);
    }
}

#[test]
fn every_supported_kind_decodes_an_empty_message() {
    for (api_version, kind, raw) in supported_kinds() {
        let envelope =
            Unknown { type_meta: Some(TypeMeta { api_version: s(api_version), kind: s(kind) }), raw: Some(raw), ..Default::default() };
        let json = decode(&[MAGIC, &envelope.encode_to_vec()].concat()).unwrap();
        assert_eq!(json, json!({"apiVersion": api_version, "kind": kind}), "{api_version} {kind}");
    }
}

#[test]
fn bad_bodies_are_errors() {
    let namespace = corev1::Namespace { metadata: Some(go_meta("t1", "")), ..Default::default() };
    let good = body("v1", "Namespace", &namespace);

    assert!(decode(b"").unwrap_err().contains("prefix"));
    assert!(decode(b"{\"kind\":\"Namespace\"}").unwrap_err().contains("prefix"));
    assert!(decode(&good[1..]).unwrap_err().contains("prefix"));
    assert!(decode(&[MAGIC, &[0xff, 0xff]].concat()).unwrap_err().contains("envelope"));

    let unknown_kind = decode(&body("example.com/v1", "Widget", &namespace)).unwrap_err();
    assert!(unknown_kind.contains("\"Widget\"") && unknown_kind.contains("not supported"), "{unknown_kind}");

    let gzip = Unknown { content_encoding: s("gzip"), ..Unknown::decode(&good[4..]).unwrap() };
    let error = decode(&[MAGIC, &gzip.encode_to_vec()].concat()).unwrap_err();
    assert!(error.contains("gzip"), "{error}");

    let garbage_raw = Unknown { raw: Some(vec![0x0a, 0x05, 0x01]), ..Unknown::decode(&good[4..]).unwrap() };
    let error = decode(&[MAGIC, &garbage_raw.encode_to_vec()].concat()).unwrap_err();
    assert!(error.contains("cannot decode v1 Namespace"), "{error}");
}

/// Truncations and random corruptions of real bodies: decoding returns, never panics.
#[test]
fn corrupted_bodies_never_panic() {
    let bodies = [body("v1", "Pod", &pod()), body("apps/v1", "Deployment", &deployment()), body("v1", "DeleteOptions", &delete_options())];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for good in &bodies {
        for len in 0..good.len() {
            let _ = decode(&good[..len]);
        }
        for _ in 0..2000 {
            let mut bad = good.clone();
            for _ in 0..=next() % 4 {
                let at = (next() % bad.len() as u64) as usize;
                bad[at] = next() as u8;
            }
            let _ = decode(&bad);
        }
    }
    for len in 0..512 {
        let garbage: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let _ = decode(&garbage);
        let _ = decode(&[MAGIC, &garbage].concat());
    }
}

#[test]
fn discovery_documents_are_written_as_upstream_writes_them() {
    let list = json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        {"name": "bindings", "namespaced": true, "kind": "Binding", "verbs": ["create"], "singularName": "binding"}
    ]});
    let encoded = encode_discovery(&list).unwrap();
    // The resource as kube-apiserver v1.37 writes it at /api/v1: its verbs a message of their
    // own (field 4, `Verbs{items}`), group, version and storage version hash written empty.
    let resource = "0a0862696e64696e677310011a0742696e64696e6722080a06637265617465320762696e64696e6742004a005200";
    let raw = format!("0a027631122e{resource}");
    // The envelope names no version, as the JSON shows none.
    let type_meta = format!("0a00120f{}", HEXLOWER.encode(b"APIResourceList"));
    assert_eq!(HEXLOWER.encode(&encoded), format!("6b3873000a13{type_meta}1234{raw}1a002200"));
    let decoded = decode(&encoded).unwrap();
    assert_eq!(decoded["resources"][0]["verbs"], json!(["create"]), "{decoded}");
    assert_eq!(decoded["apiVersion"], "", "{decoded}");
}
