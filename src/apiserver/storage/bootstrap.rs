//! What a fresh kube-apiserver holds before any client writes: the four usual namespaces (the
//! system-namespaces controller of pkg/controlplane/controller/systemnamespaces), the RBAC
//! roles and bindings its rbac/bootstrap-roles post-start hook creates
//! (pkg/registry/rbac/rest/storage_rbac.go) and the two ConfigMaps of kube-system its own
//! controllers write (the client CA of pkg/controlplane/controller/clusterauthenticationtrust,
//! the day of pkg/controlplane/controller/legacytokentracking), and the `kubernetes` Service of
//! `default` (pkg/controlplane/controller/kubernetesservice), and the server's identity Lease
//! in kube-system ([`super::identity`]), all written by manager `kube-apiserver`.

use serde_json::{Value, json};

use crate::apiserver::schema::WriteOptions;
use crate::apiserver::status::ApiResult;
use crate::apiserver::storage::{Scope, Storage};

/// The namespaces every cluster has.
const NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// The bootstrap RBAC objects of the pinned release, one create body per line, in the order
/// the hook creates them (`upstream/cmd/bootstrap-rbac` prints them).
const BOOTSTRAP_RBAC: &str = include_str!("bootstrap_rbac.jsonl");

/// The port the `kubernetes` Service sends to: kube-apiserver's default `--secure-port`. The
/// fake serves on whatever address it is given (or none, in process), so it names the port a
/// cluster's API server listens on.
const SECURE_PORT: u16 = 6443;

/// The `kubernetes` Service's address: the first of the service range (the Services kind's
/// `SERVICE_RANGE`, whose tests hold the two together).
pub const KUBERNETES_SERVICE_IP: &str = "10.96.0.1";

/// The CA the fake names as its clients' (it checks no certificate): the one CA it has, which
/// the root CA publisher publishes too.
const CLIENT_CA: &str = include_str!("../../workloads/root_ca.pem");

/// A ConfigMap of kube-system named `name` holding `data`.
pub(super) fn configmap(name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})
}

/// `kube-system/extension-apiserver-authentication`: the client CA aggregated API servers read.
fn client_ca() -> Value {
    configmap("extension-apiserver-authentication", json!({"client-ca-file": CLIENT_CA}))
}

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
        self.create_as_server(&self.kube_system_configmaps(), client_ca());
        // The day legacy service account tokens began to be tracked: the server's first.
        self.track_legacy_tokens();
        self.bootstrap_kubernetes_service();
        self.renew_identity_lease();
    }

    /// Writes the client CA ConfigMap ([`client_ca`]) again, as the cluster authentication
    /// trust controller does whenever it is deleted.
    pub(crate) fn publish_client_ca(&mut self) -> ApiResult<()> {
        self.try_create_as_server(&self.kube_system_configmaps(), client_ca())
    }

    /// The `kubernetes` Service (the first address of the service range, port 443 to the secure
    /// port) as kube-apiserver's controller creates it. Its Endpoints and EndpointSlice are not
    /// written: their reconciler refuses a loopback address, so the upstream control plane
    /// kubegc starts runs with `--endpoint-reconciler-type=none`, and nothing runs in a
    /// cluster to send to them.
    fn bootstrap_kubernetes_service(&mut self) {
        let services = self.scope("", "v1", "services", Some("default".into())).expect("Services are served");
        let spec = json!({"ports": [{"name": "https", "protocol": "TCP", "port": 443, "targetPort": SECURE_PORT}], "clusterIP": KUBERNETES_SERVICE_IP, "ipFamilyPolicy": "SingleStack", "sessionAffinity": "None", "type": "ClusterIP"});
        let labels = json!({"provider": "kubernetes", "component": "apiserver"});
        self.create_as_server(
            &services,
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "kubernetes", "labels": labels}, "spec": spec}),
        );
    }

    /// The scope of kube-system's ConfigMaps.
    pub(super) fn kube_system_configmaps(&self) -> Scope {
        self.scope("", "v1", "configmaps", Some("kube-system".into())).expect("ConfigMaps are served")
    }

    /// Creates `body` as kube-apiserver's own client does.
    pub(super) fn try_create_as_server(&mut self, scope: &Scope, body: Value) -> ApiResult<()> {
        let opts = WriteOptions { field_manager: "kube-apiserver".into(), ..WriteOptions::default() };
        self.create(scope, body, opts).map(drop)
    }

    /// Creates a bootstrap object `body`, which a fresh server never refuses.
    fn create_as_server(&mut self, scope: &Scope, body: Value) {
        if let Err(e) = self.try_create_as_server(scope, body) {
            panic!("a bootstrap object is refused: {}", e.message);
        }
    }
}
