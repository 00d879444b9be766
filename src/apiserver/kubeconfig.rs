//! The kubeconfig that points kubectl and other clients at a served fake apiserver.

use serde_json::json;

/// The context, cluster and user name written into kubeconfigs.
pub const CONTEXT_NAME: &str = "kubegc";

/// A kubeconfig (YAML) for a plain-HTTP server at `server_url` (e.g. `http://127.0.0.1:6443`),
/// with `default` as its namespace.
pub fn kubeconfig_yaml(server_url: &str) -> String {
    let config = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT_NAME, "cluster": {"server": server_url}}],
        "users": [{"name": CONTEXT_NAME, "user": {}}],
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
    }
}
