//! The real `kubectl` against `kubegc serve` with the reference garbage collector: cascades
//! behave as on a real cluster.

mod support;

use serde_json::Value;
use support::{On, on_both_servers};

on_both_servers!(
    background_foreground_and_orphan_cascades,
    a_three_cycle_of_blocking_references_is_broken,
    invalid_cross_namespace_reference_is_reported_as_an_event
);

fn cm(name: &str, owners: &[(&str, &str, bool)]) -> String {
    let mut y = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n");
    if !owners.is_empty() {
        y.push_str("  ownerReferences:\n");
        for (owner, uid, block) in owners {
            y.push_str(&format!(
                "  - apiVersion: v1\n    kind: ConfigMap\n    name: {owner}\n    uid: {uid}\n    blockOwnerDeletion: {block}\n"
            ));
        }
    }
    y
}

fn background_foreground_and_orphan_cascades(on: On) {
    let s = on.start();
    for mode in ["background", "foreground", "orphan"] {
        let owner = format!("owner-{mode}");
        let child = format!("child-{mode}");
        s.apply_file("create", "obj.yaml", &cm(&owner, &[]));
        let uid = s.uid("cm", &owner);
        s.apply_file("create", "obj.yaml", &cm(&child, &[(&owner, &uid, true)]));
        s.ok(&["delete", "cm", &owner, &format!("--cascade={mode}"), "--timeout=20s"]);
        assert!(!s.exists("cm", &owner), "{mode}: kubectl delete waits until the owner is gone");
        if mode == "orphan" {
            let refs = s.ok(&["get", "cm", &child, "-o", "jsonpath={.metadata.ownerReferences}"]);
            assert!(refs.is_empty(), "orphaned child keeps no reference: {refs}");
        } else if mode == "foreground" {
            assert!(!s.exists("cm", &child), "foreground: the child goes before the owner");
        } else {
            s.eventually("the background child to go", |s| !s.exists("cm", &child));
        }
    }
}

fn a_three_cycle_of_blocking_references_is_broken(on: On) {
    let s = on.start();
    for name in ["a", "b", "c"] {
        s.apply_file("create", "obj.yaml", &cm(name, &[]));
    }
    let (ua, ub, uc) = (s.uid("cm", "a"), s.uid("cm", "b"), s.uid("cm", "c"));
    // a -> c, b -> a, c -> b, each blocking (e2e "should not be blocked by dependency circle").
    for (name, owner, uid) in [("a", "c", &uc), ("b", "a", &ua), ("c", "b", &ub)] {
        let patch = format!(
            r#"{{"metadata":{{"ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"{owner}","uid":"{uid}","controller":true,"blockOwnerDeletion":true}}]}}}}"#
        );
        s.ok(&["patch", "cm", name, "--type", "merge", "-p", &patch]);
    }
    s.ok(&["delete", "cm", "a", "--cascade=foreground", "--timeout=30s"]);
    s.eventually("all three to go", |s| !s.exists("cm", "a") && !s.exists("cm", "b") && !s.exists("cm", "c"));
}

fn invalid_cross_namespace_reference_is_reported_as_an_event(on: On) {
    let s = on.start();
    s.ok(&["create", "namespace", "ns-a"]);
    s.ok(&["create", "namespace", "ns-b"]);
    s.ok(&["-n", "ns-b", "create", "configmap", "parent"]);
    let uid = s.ok(&["-n", "ns-b", "get", "cm", "parent", "-o", "jsonpath={.metadata.uid}"]);
    let child = cm("child", &[("parent", &uid, false)]).replace("metadata:\n", "metadata:\n  namespace: ns-a\n");
    s.apply_file("create", "obj.yaml", &child);
    s.eventually("the invalid child to be collected", |s| !s.kubectl(&["-n", "ns-a", "get", "cm", "child"]).status.success());
    let events: Value =
        serde_json::from_str(&s.ok(&["get", "events", "-A", "--field-selector", "reason=OwnerRefInvalidNamespace", "-o", "json"])).unwrap();
    let items = events["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{events}");
    let e = &items[0];
    assert_eq!(e["metadata"]["namespace"], "ns-a");
    assert_eq!(e["type"], "Warning");
    assert_eq!(e["involvedObject"]["name"], "child");
    assert_eq!(e["source"]["component"], "garbage-collector-controller");
    assert_eq!(
        e["message"],
        format!("ownerRef [v1/ConfigMap, namespace: ns-a, name: parent, uid: {uid}] does not exist in namespace \"ns-a\"")
    );
    assert!(s.kubectl(&["-n", "ns-b", "get", "cm", "parent"]).status.success(), "the real parent is untouched");
}

/// `kubegc settle` tells a script when the served cluster is done, in place of a sleep: once it
/// says so after `kubectl create deployment`, kubectl sees every pod; once it says so after a
/// background delete of an owner of 1000 ConfigMaps, the collector has taken them all. A timeout
/// Go cannot parse is a usage error.
#[test]
fn kubegc_settle_waits_for_the_controllers_and_the_collector() {
    let s = support::Served::start();
    let settle = |timeout: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kubegc"))
            .args(["settle", "--timeout", timeout, "--kubeconfig"])
            .arg(s.kubeconfig())
            .output()
            .unwrap()
    };
    s.ok(&["create", "deployment", "web", "--image=registry.k8s.io/pause:3.10", "--replicas=3"]);
    let settled = settle("30s");
    assert_eq!(settled.status.code(), Some(0), "{settled:?}");
    assert_eq!(String::from_utf8_lossy(&settled.stdout).trim(), "settled");
    assert_eq!(s.ok(&["get", "pods", "-o", "name"]).lines().count(), 3);
    s.ok(&["create", "configmap", "owner"]);
    let uid = s.uid("cm", "owner");
    let children: String = (0..1000).map(|i| format!("---\n{}", cm(&format!("child-{i}"), &[("owner", &uid, false)]))).collect();
    s.apply_file("create", "children.yaml", &children);
    s.ok(&["delete", "cm", "owner", "--cascade=background", "--wait=false"]);
    assert_eq!(settle("30s").status.code(), Some(0));
    assert_eq!(s.ok(&["get", "cm", "-o", "name"]).trim(), "configmap/kube-root-ca.crt");
    let refused = settle("3x");
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains(r#"time: unknown unit "x" in duration "3x""#), "{refused:?}");
}

/// README.md's shell example, as it is written: on `kubegc serve --gc none`, `kubectl create -f
/// examples/owner.yaml` and a foreground delete leave the owner with the foregroundDeletion
/// finalizer and a deletionTimestamp, the API server's half of deletion.
#[test]
fn the_readme_shell_example_shows_the_api_server_s_half() {
    let readme = include_str!("../../README.md");
    assert!(readme.contains("kubectl create -f examples/owner.yaml && kubectl delete configmap owner --cascade=foreground --wait=false"));
    let s = support::Served::start_with_gc("none");
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/owner.yaml");
    s.ok(&["create", "-f", manifest.to_str().unwrap()]);
    s.ok(&["delete", "configmap", "owner", "--cascade=foreground", "--wait=false"]);
    let kept = s.json(&["get", "configmap", "owner", "-o", "json"]);
    assert_eq!(kept["metadata"]["finalizers"], serde_json::json!(["foregroundDeletion"]));
    assert!(kept["metadata"]["deletionTimestamp"].is_string(), "{kept}");
}
