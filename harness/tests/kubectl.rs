//! The real `kubectl` against `kubegc serve`: every command a garbage-collection user runs
//! works with no extra flags, and deletion leaves the finalizers and deletionTimestamp a real
//! cluster would.

mod support;

use std::process::Stdio;

use support::{Served, strings};

const OWNER: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owner\ndata:\n  a: \"1\"\n";

fn dependent(owner_uid: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependent\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: owner\n    uid: {owner_uid}\ndata:\n  b: \"2\"\n"
    )
}

#[test]
fn create_apply_and_get() {
    let s = Served::start();
    assert!(s.apply_file("create", "owner.yaml", OWNER).contains("configmap/owner created"));
    let uid = s.json(&["get", "configmap", "owner"])["metadata"]["uid"].as_str().unwrap().to_string();
    assert!(s.apply_file("apply", "dep.yaml", &dependent(&uid)).contains("configmap/dependent created"));
    let changed = dependent(&uid).replace("\"2\"", "\"3\"");
    assert!(s.apply_file("apply", "dep.yaml", &changed).contains("configmap/dependent configured"));
    let dep = s.json(&["get", "configmap", "dependent"]);
    assert_eq!(dep["data"]["b"], "3");
    assert_eq!(dep["metadata"]["ownerReferences"][0]["uid"], uid.as_str());

    let table = s.ok(&["get", "configmaps"]);
    assert!(table.lines().next().unwrap().starts_with("NAME"), "{table}");
    assert!(table.contains("owner") && table.contains("dependent"));
    let yaml = s.ok(&["get", "configmap", "owner", "-o", "yaml"]);
    assert!(yaml.contains("kind: ConfigMap") && yaml.contains("resourceVersion:"));
}

#[test]
fn unknown_fields_are_refused_as_kubectl_validates_strictly() {
    let s = Served::start();
    let path = s.dir.path().join("typo.yaml");
    std::fs::write(&path, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\ndatta:\n  a: \"1\"\n").unwrap();
    let out = s.kubectl(&["create", "-f", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("strict decoding error: unknown field \"datta\""), "{stderr}");
    // Without strict validation the unknown field is dropped, as a real apiserver drops it.
    s.ok(&["create", "-f", path.to_str().unwrap(), "--validate=false"]);
    assert!(s.json(&["get", "cm", "typo"]).get("datta").is_none());
}

#[test]
fn generator_commands_send_protobuf_and_work() {
    let s = Served::start();
    s.ok(&["create", "namespace", "gen"]);
    s.ok(&["-n", "gen", "create", "configmap", "c", "--from-literal=a=b"]);
    s.ok(&["-n", "gen", "create", "secret", "generic", "s", "--from-literal=k=v"]);
    s.ok(&["-n", "gen", "create", "deployment", "d", "--image=nginx", "--replicas=2"]);
    s.ok(&["-n", "gen", "run", "p", "--image=nginx"]);
    assert_eq!(s.json(&["-n", "gen", "get", "cm", "c"])["data"]["a"], "b");
    assert_eq!(s.json(&["-n", "gen", "get", "secret", "s"])["data"]["k"], "dg==");
    assert_eq!(s.json(&["-n", "gen", "get", "deployment", "d"])["spec"]["replicas"], 2);
    assert_eq!(s.json(&["-n", "gen", "get", "pod", "p"])["spec"]["containers"][0]["image"], "nginx");
}

#[test]
fn api_resources_lists_the_builtin_kinds() {
    let s = Served::start();
    let out = s.ok(&["api-resources"]);
    for kind in ["Namespace", "Pod", "ReplicaSet", "Deployment", "CustomResourceDefinition", "ClusterRole", "Lease"] {
        assert!(out.contains(kind), "{kind} missing from:\n{out}");
    }
}

#[test]
fn patch_finalizers_and_owner_references_with_every_patch_type() {
    // No collector: the references name owners that do not exist.
    let s = Served::start_with_gc("none");
    s.apply_file("create", "owner.yaml", OWNER);
    s.ok(&["patch", "configmap", "owner", "--type", "merge", "-p", r#"{"metadata":{"finalizers":["example.com/a"]}}"#]);
    s.ok(&[
        "patch",
        "configmap",
        "owner",
        "--type",
        "json",
        "-p",
        r#"[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/b"}]"#,
    ]);
    s.ok(&["patch", "configmap", "owner", "--type", "strategic", "-p", r#"{"metadata":{"finalizers":["example.com/c"]}}"#]);
    assert_eq!(strings(&s.json(&["get", "cm", "owner"])["metadata"]["finalizers"]), ["example.com/a", "example.com/b", "example.com/c"]);
    s.ok(&[
        "patch",
        "configmap",
        "owner",
        "--type",
        "strategic",
        "-p",
        r#"{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/b"]}}"#,
    ]);
    assert_eq!(strings(&s.json(&["get", "cm", "owner"])["metadata"]["finalizers"]), ["example.com/a", "example.com/c"]);

    let refs = |uid: &str, name: &str| format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","name":"{name}","uid":"{uid}"}}"#);
    s.apply_file("create", "dep.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependent\n");
    s.ok(&[
        "patch",
        "cm",
        "dependent",
        "--type",
        "merge",
        "-p",
        &format!(r#"{{"metadata":{{"ownerReferences":[{}]}}}}"#, refs("u1", "one")),
    ]);
    s.ok(&[
        "patch",
        "cm",
        "dependent",
        "--type",
        "strategic",
        "-p",
        &format!(r#"{{"metadata":{{"ownerReferences":[{}]}}}}"#, refs("u2", "two")),
    ]);
    let got = s.json(&["get", "cm", "dependent"]);
    assert_eq!(got["metadata"]["ownerReferences"].as_array().unwrap().len(), 2, "strategic merge adds by uid: {got}");
    s.ok(&["patch", "cm", "dependent", "--type", "json", "-p", r#"[{"op":"remove","path":"/metadata/ownerReferences/0"}]"#]);
    assert_eq!(s.json(&["get", "cm", "dependent"])["metadata"]["ownerReferences"][0]["uid"], "u2");
}

#[test]
fn delete_cascade_modes_leave_the_right_finalizers() {
    // No collector: what the apiserver's half of deletion leaves behind stays visible.
    let s = Served::start_with_gc("none");
    for name in ["orphaned", "background", "foreground"] {
        s.apply_file("create", &format!("{name}.yaml"), &OWNER.replace("name: owner", &format!("name: {name}")));
    }
    s.ok(&["delete", "cm", "orphaned", "--cascade=orphan", "--wait=false"]);
    let o = s.json(&["get", "cm", "orphaned"]);
    assert_eq!(strings(&o["metadata"]["finalizers"]), ["orphan"]);
    assert!(o["metadata"]["deletionTimestamp"].is_string());

    s.ok(&["delete", "cm", "foreground", "--cascade=foreground", "--wait=false"]);
    let f = s.json(&["get", "cm", "foreground"]);
    assert_eq!(strings(&f["metadata"]["finalizers"]), ["foregroundDeletion"]);
    assert_eq!(f["metadata"]["deletionGracePeriodSeconds"], 0);

    s.ok(&["delete", "cm", "background", "--cascade=background"]);
    let gone = s.kubectl(&["get", "cm", "background"]);
    assert!(String::from_utf8_lossy(&gone.stderr).contains("NotFound"));
}

#[test]
fn server_side_dry_run_delete_changes_nothing() {
    let s = Served::start();
    s.apply_file("create", "owner.yaml", OWNER);
    assert!(s.ok(&["delete", "cm", "owner", "--dry-run=server"]).contains("(server dry run)"));
    assert!(s.json(&["get", "cm", "owner"])["metadata"]["deletionTimestamp"].is_null());
}

#[test]
fn wait_for_delete_returns_when_the_last_finalizer_goes() {
    let s = Served::start_with_gc("none");
    s.apply_file("create", "owner.yaml", &OWNER.replace("metadata:\n", "metadata:\n  finalizers: [example.com/hold]\n"));
    s.ok(&["delete", "cm", "owner", "--wait=false"]);
    let waiter = s
        .kubectl_command()
        .args(["wait", "--for=delete", "configmap/owner", "--timeout=30s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    s.ok(&["patch", "cm", "owner", "--type", "merge", "-p", r#"{"metadata":{"finalizers":null}}"#]);
    let out = waiter.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn events_by_reason_across_namespaces() {
    let s = Served::start();
    let event = "apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\n  namespace: kube-system\ninvolvedObject:\n  kind: ConfigMap\n  name: dependent\n  namespace: kube-system\nreason: OwnerRefInvalidNamespace\ntype: Warning\nmessage: ownerRef points to a namespaced owner in another namespace\nsource:\n  component: garbage-collector-controller\n";
    s.apply_file("create", "event.yaml", event);
    s.apply_file("create", "other.yaml", &event.replace("e1", "e2").replace("OwnerRefInvalidNamespace", "Other"));
    let out = s.ok(&["get", "events", "-A", "--field-selector", "reason=OwnerRefInvalidNamespace"]);
    assert!(out.contains("e1") && out.contains("OwnerRefInvalidNamespace"), "{out}");
    assert!(!out.contains("e2"));
}

#[test]
fn delete_namespace_deletes_its_contents_then_itself() {
    let s = Served::start();
    s.apply_file("create", "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: doomed\n");
    s.apply_file("create", "cm.yaml", &OWNER.replace("metadata:\n", "metadata:\n  namespace: doomed\n"));
    s.ok(&["delete", "namespace", "doomed", "--timeout=30s"]);
    let out = s.kubectl(&["get", "namespace", "doomed"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("NotFound"));
}
