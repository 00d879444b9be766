//! What a fresh kube-apiserver holds before any client writes: the four usual namespaces (the
//! system-namespaces controller of pkg/controlplane/controller/systemnamespaces), the RBAC
//! roles and bindings its rbac/bootstrap-roles post-start hook creates
//! (pkg/registry/rbac/rest/storage_rbac.go) and the two ConfigMaps of kube-system its own
//! controllers write (the client CA of pkg/controlplane/controller/clusterauthenticationtrust,
//! the day of pkg/controlplane/controller/legacytokentracking), all written by manager
//! `kube-apiserver`.

use serde_json::{Value, json};

use crate::apiserver::schema::WriteOptions;
use crate::apiserver::storage::{Scope, Storage};

/// The namespaces every cluster has.
const NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// The bootstrap RBAC objects of the pinned release, one create body per line, in the order
/// the hook creates them (`upstream/cmd/bootstrap-rbac` prints them).
const BOOTSTRAP_RBAC: &str = include_str!("bootstrap_rbac.jsonl");

/// The CA the fake names as its clients' (it checks no certificate): the one CA it has, which
/// the root CA publisher publishes too.
const CLIENT_CA: &str = include_str!("../../workloads/root_ca.pem");

impl Storage {
    /// Creates the namespaces and RBAC objects of a fresh server.
    pub(super) fn bootstrap(&mut self) {
        let namespaces = Scope::namespaces(&self.catalogue);
        for name in NAMESPACES {
            self.create_as_server(&namespaces, json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}));
        }
        for line in BOOTSTRAP_RBAC.lines() {
            let body: Value = serde_json::from_str(line).expect("bootstrap_rbac.jsonl holds one object per line");
            let plural = format!("{}s", body["kind"].as_str().unwrap_or_default().to_lowercase());
            let namespace = body["metadata"]["namespace"].as_str().map(String::from);
            let scope = self.scope("rbac.authorization.k8s.io", "v1", &plural, namespace).expect("RBAC is served");
            self.create_as_server(&scope, body);
        }
        let configmaps = self.scope("", "v1", "configmaps", Some("kube-system".into())).expect("ConfigMaps are served");
        let configmap =
            |name: &str, data: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data});
        self.create_as_server(&configmaps, configmap("extension-apiserver-authentication", json!({"client-ca-file": CLIENT_CA})));
        // The day legacy service account tokens began to be tracked: the server's first.
        let since = self.clock.now().format("%Y-%m-%d").to_string();
        self.create_as_server(&configmaps, configmap("kube-apiserver-legacy-service-account-token-tracking", json!({"since": since})));
    }

    /// Creates `body` as kube-apiserver's own client does.
    fn create_as_server(&mut self, scope: &Scope, body: Value) {
        let opts = WriteOptions { field_manager: "kube-apiserver".into(), ..WriteOptions::default() };
        if let Err(e) = self.create(scope, body, opts) {
            panic!("a bootstrap object is refused: {}", e.message);
        }
    }
}
