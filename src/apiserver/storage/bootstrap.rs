//! What a fresh kube-apiserver holds before any client writes: the four usual namespaces (the
//! system-namespaces controller of pkg/controlplane/controller/systemnamespaces) and the RBAC
//! roles and bindings its rbac/bootstrap-roles post-start hook creates
//! (pkg/registry/rbac/rest/storage_rbac.go), all written by manager `kube-apiserver`.

use serde_json::{Value, json};

use crate::apiserver::schema::WriteOptions;
use crate::apiserver::storage::{Scope, Storage};

/// The namespaces every cluster has.
const NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// The bootstrap RBAC objects of the pinned release, one create body per line, in the order
/// the hook creates them (`upstream/cmd/bootstrap-rbac` prints them).
const BOOTSTRAP_RBAC: &str = include_str!("bootstrap_rbac.jsonl");

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
    }

    /// Creates `body` as kube-apiserver's own client does.
    fn create_as_server(&mut self, scope: &Scope, body: Value) {
        let opts = WriteOptions { field_manager: "kube-apiserver".into(), ..WriteOptions::default() };
        if let Err(e) = self.create(scope, body, opts) {
            panic!("a bootstrap object is refused: {}", e.message);
        }
    }
}
