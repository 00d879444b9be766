//! JSON field names, inlined Go structs and bytes fields of the Kubernetes types.

use super::debug_text::Node;
use super::kept_zeros::KEPT_ZEROS;

/// Word segments Kubernetes writes in capitals when they are not the first word of a name.
pub(super) const ACRONYMS: &[(&str, &str)] = &[
    ("api", "API"),
    ("cidr", "CIDR"),
    ("cidrs", "CIDRs"),
    ("fqdn", "FQDN"),
    ("id", "ID"),
    ("io", "IO"),
    ("ip", "IP"),
    ("ipc", "IPC"),
    ("ips", "IPs"),
    ("pid", "PID"),
    ("tls", "TLS"),
    ("uri", "URI"),
    ("url", "URL"),
    ("uuid", "UUID"),
    ("wwns", "WWNs"),
];

/// Fields whose Rust name prost split oddly (`PodCIDRs` became `pod_cid_rs`).
pub(super) const RENAMED_FIELDS: &[(&str, &str)] = &[
    ("a_pi_group", "apiGroup"),
    ("non_resource_ur_ls", "nonResourceURLs"),
    ("open_apiv3_schema", "openAPIV3Schema"),
    ("pod_cid_rs", "podCIDRs"),
    ("server_address_by_client_cid_rs", "serverAddressByClientCIDRs"),
    ("target_ww_ns", "targetWWNs"),
];

/// The Kubernetes JSON name of field `field` (a Rust name) of message `owner`.
pub(super) fn json_name(owner: &str, field: &str) -> String {
    let field = field.strip_prefix("r#").unwrap_or(field);
    match (owner, field) {
        ("JsonSchemaProps", "ref") => return "$ref".into(),
        ("JsonSchemaProps", "schema") => return "$schema".into(),
        ("JsonSchemaProps", _) if field.starts_with("x_kubernetes_") => return field.replace('_', "-"),
        ("DaemonEndpoint", "port") => return "Port".into(),
        _ => {}
    }
    if let Some((_, name)) = RENAMED_FIELDS.iter().find(|(rust, _)| *rust == field) {
        return (*name).into();
    }
    lower_camel_case(field)
}

/// `host_ips` -> `hostIPs`: words after the first are capitalised, acronyms upper-cased.
pub(super) fn lower_camel_case(snake: &str) -> String {
    let mut words = snake.split('_');
    let mut out = words.next().unwrap_or_default().to_string();
    for word in words {
        match ACRONYMS.iter().find(|(lower, _)| *lower == word) {
            Some((_, upper)) => out.push_str(upper),
            None => {
                let mut chars = word.chars();
                out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
                out.push_str(chars.as_str());
            }
        }
    }
    out
}

/// Go structs embedded without a JSON name, whose fields JSON shows in the parent: the Rust
/// field name and the message it holds.
pub(super) const INLINED: &[(&str, &str)] = &[
    ("ephemeral_container_common", "EphemeralContainerCommon"),
    ("handler", "ProbeHandler"),
    ("ingress_rule_value", "IngressRuleValue"),
    ("local_object_reference", "LocalObjectReference"),
    ("persistent_volume_source", "PersistentVolumeSource"),
    ("volume_source", "VolumeSource"),
];

/// The message name and fields of `node` when field `field` holds an embedded struct.
pub(super) fn inlined_message<'a>(field: &str, node: &'a Node) -> Option<(&'a str, &'a [(String, Node)])> {
    let Node::Message { name, fields } = node else { return None };
    let inlined = INLINED.iter().any(|(f, message)| *f == field && message == name);
    inlined.then_some((name.as_str(), fields.as_slice()))
}

/// `bytes` fields (or maps of them), by message and JSON name, printed as base64. `raw`
/// fields of `RawExtension`, `FieldsV1` and `JSON` hold JSON and are handled by message.
pub(super) const BYTES_FIELDS: &[(&str, &str)] =
    &[("ConfigMap", "binaryData"), ("RangeAllocation", "data"), ("Secret", "data"), ("WebhookClientConfig", "caBundle")];

/// Whether field `name` of message `owner` is listed in [`BYTES_FIELDS`].
pub(super) fn is_bytes_field(owner: &str, name: &str) -> bool {
    BYTES_FIELDS.contains(&(owner, name))
}

/// Whether field `name` of message `owner` keeps a zero value (see [`KEPT_ZEROS`]).
pub(super) fn keeps_zero(owner: &str, name: &str) -> bool {
    KEPT_ZEROS.iter().any(|(message, fields)| *message == owner && fields.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_follow_kubernetes() {
        let cases = [
            ("PodStatus", "pod_ip", "podIP"),
            ("PodStatus", "host_ips", "hostIPs"),
            ("PodSpec", "host_ipc", "hostIPC"),
            ("PodSpec", "host_pid", "hostPID"),
            ("ServiceSpec", "cluster_ip", "clusterIP"),
            ("ServiceSpec", "r#type", "type"),
            ("AwsElasticBlockStoreVolumeSource", "volume_id", "volumeID"),
            ("NodeSpec", "provider_id", "providerID"),
            ("NodeSpec", "pod_cid_rs", "podCIDRs"),
            ("NodeSystemInfo", "system_uuid", "systemUUID"),
            ("FcVolumeSource", "target_ww_ns", "targetWWNs"),
            ("PolicyRule", "non_resource_ur_ls", "nonResourceURLs"),
            ("VolumeSource", "scale_io", "scaleIO"),
            ("VolumeSource", "downward_api", "downwardAPI"),
            ("PodSpec", "set_hostname_as_fqdn", "setHostnameAsFQDN"),
            ("AzureDiskVolumeSource", "disk_uri", "diskURI"),
            ("IngressClassParametersReference", "a_pi_group", "apiGroup"),
            ("CustomResourceValidation", "open_apiv3_schema", "openAPIV3Schema"),
            ("CustomResourceDefinitionVersion", "schema", "schema"),
            ("JsonSchemaProps", "schema", "$schema"),
            ("JsonSchemaProps", "r#ref", "$ref"),
            ("JsonSchemaProps", "x_kubernetes_int_or_string", "x-kubernetes-int-or-string"),
            ("DaemonEndpoint", "port", "Port"),
            ("ObjectMeta", "api_version", "apiVersion"),
            ("ManagedFieldsEntry", "fields_v1", "fieldsV1"),
            ("PodStatus", "qos_class", "qosClass"),
        ];
        for (owner, field, expected) in cases {
            assert_eq!(json_name(owner, field), expected, "{owner}.{field}");
        }
    }
}
