//! The kubeconfig that points kubectl and other clients at a served fake apiserver.

use base64::Engine;
use serde_json::{Value, json};

/// The context, cluster and user name written into kubeconfigs.
pub const CONTEXT_NAME: &str = "kubegc";

/// A kubeconfig (YAML) for a plain-HTTP server at `server_url` (e.g. `http://127.0.0.1:6443`),
/// with `default` as its namespace.
pub fn kubeconfig_yaml(server_url: &str) -> String {
    config_yaml(json!({"server": server_url}), json!({}))
}

/// A kubeconfig (YAML) for an HTTPS server at `server_url` whose certificate `ca_pem` (PEM)
/// signed, for a user who sends `token` as a bearer token, with `default` as its namespace.
pub fn secured_kubeconfig_yaml(server_url: &str, ca_pem: &str, token: &str) -> String {
    let ca_data = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    config_yaml(json!({"server": server_url, "certificate-authority-data": ca_data}), json!({"token": token}))
}

fn config_yaml(cluster: Value, user: Value) -> String {
    let config = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT_NAME, "cluster": cluster}],
        "users": [{"name": CONTEXT_NAME, "user": user}],
        "contexts": [{"name": CONTEXT_NAME, "context": {"cluster": CONTEXT_NAME, "user": CONTEXT_NAME, "namespace": "default"}}],
        "current-context": CONTEXT_NAME,
        "preferences": {},
    });
    serde_saphyr::to_string(&config).expect("a JSON value serializes as YAML")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kubeconfig_reads_back_with_its_server_and_namespace() {
        let config = kube::config::Kubeconfig::from_yaml(&kubeconfig_yaml("http://127.0.0.1:6443")).unwrap();
        assert_eq!(config.current_context.as_deref(), Some(CONTEXT_NAME));
        assert_eq!(config.clusters[0].cluster.as_ref().unwrap().server.as_deref(), Some("http://127.0.0.1:6443"));
        assert_eq!(config.contexts[0].context.as_ref().unwrap().namespace.as_deref(), Some("default"));
        assert!(config.auth_infos[0].auth_info.as_ref().unwrap().token.is_none());
    }

    #[test]
    fn the_secured_kubeconfig_carries_its_certificate_authority_and_token() {
        let pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        let yaml = secured_kubeconfig_yaml("https://127.0.0.1:6443", pem, "s3cret");
        let config = kube::config::Kubeconfig::from_yaml(&yaml).unwrap();
        let cluster = config.clusters[0].cluster.as_ref().unwrap();
        assert_eq!(cluster.server.as_deref(), Some("https://127.0.0.1:6443"));
        let ca = base64::engine::general_purpose::STANDARD.decode(cluster.certificate_authority_data.as_deref().unwrap()).unwrap();
        assert_eq!(ca, pem.as_bytes());
        let raw: Value = serde_saphyr::from_str(&yaml).unwrap();
        assert_eq!(raw["users"][0]["user"]["token"], "s3cret");
        assert_eq!(config.contexts[0].context.as_ref().unwrap().namespace.as_deref(), Some("default"));
    }
}
