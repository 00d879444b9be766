//! The official Kubernetes Python client against `kubegc serve` (and the upstream control plane):
//! server-side apply through the typed API (`patch_namespaced_config_map` with the apply
//! content type) and the dynamic client (`server_side_apply`, with and without
//! `force_conflicts`), unchanged.
//!
//! The client is installed from PyPI, once, into a virtual environment under Cargo's target
//! directory (see `support::python_with`).

mod support;

use std::process::Command;

use serde_json::{Value, json};
use support::{On, on_both_servers};

on_both_servers!(server_side_apply_through_the_python_client);

/// The client release the test installs.
const CLIENT: &str = "kubernetes==37.0.2";

const SCRIPT: &str = r#"
import json, sys
from kubernetes import client, config, dynamic

kubeconfig = sys.argv[1]
config.load_kube_config(config_file=kubeconfig)
_, active = config.list_kube_config_contexts(config_file=kubeconfig)
namespace = active["context"].get("namespace", "default")
core = client.CoreV1Api()
out = {}

body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py-ssa"}, "data": {"key": "1"}}
created = core.patch_namespaced_config_map("py-ssa", namespace, body, field_manager="python",
                                           _content_type="application/apply-patch+yaml")
out["created"] = created.data

configmaps = dynamic.DynamicClient(client.ApiClient()).resources.get(api_version="v1", kind="ConfigMap")
body["data"]["key"] = "2"
try:
    configmaps.server_side_apply(body=body, namespace=namespace, field_manager="other")
    out["conflict"] = None
except Exception as e:
    out["conflict"] = {"status": e.status, "message": json.loads(e.body)["message"]}
forced = configmaps.server_side_apply(body=body, namespace=namespace, field_manager="other", force_conflicts=True)
out["forced"] = forced.to_dict()["data"]

read = core.read_namespaced_config_map("py-ssa", namespace)
out["managers"] = [[e.manager, e.operation] for e in read.metadata.managed_fields]
print(json.dumps(out))
"#;

fn server_side_apply_through_the_python_client(on: On) {
    let python = support::python_with("python-client", &[CLIENT]);
    let served = on.start();
    let out = Command::new(python).arg("-c").arg(SCRIPT).arg(served.kubeconfig()).output().expect("python runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the script failed:\n{stdout}\n{stderr}");
    let result: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(result["created"], json!({"key": "1"}));
    assert_eq!(result["conflict"], json!({"status": 409, "message": "Apply failed with 1 conflict: conflict with \"python\": .data.key"}));
    assert_eq!(result["forced"], json!({"key": "2"}));
    assert_eq!(result["managers"], json!([["other", "Apply"]]));
}
