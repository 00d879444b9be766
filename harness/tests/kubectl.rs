//! The real `kubectl` against `kubegc serve`: every command a garbage-collection user runs
//! works with no extra flags, and deletion leaves the finalizers and deletionTimestamp a real
//! cluster would.

mod support;

use std::process::Stdio;

use serde_json::Value;

use support::{On, on_both_servers, strings};

on_both_servers!(
    create_apply_and_get,
    server_side_apply_conflicts_between_field_managers,
    unknown_fields_are_refused_as_kubectl_validates_strictly,
    generator_commands_send_protobuf_and_work,
    api_resources_lists_the_builtin_kinds,
    patch_finalizers_and_owner_references_with_every_patch_type,
    delete_cascade_modes_leave_the_right_finalizers,
    server_side_dry_run_delete_changes_nothing,
    wait_for_delete_returns_when_the_last_finalizer_goes,
    events_by_reason_across_namespaces,
    delete_namespace_deletes_its_contents_then_itself,
    a_deployment_makes_a_replica_set_and_pods_and_foreground_deletion_removes_them,
    a_job_makes_a_tracked_pod_and_foreground_deletion_removes_it,
    kubectl_scale_scales_through_the_scale_subresource,
    a_job_delete_that_names_no_policy_is_warned_that_the_pods_stay,
    a_create_naming_a_resource_version_is_refused_but_a_dry_run_keeps_it,
    a_definition_is_established_after_its_create_and_goes_after_its_objects,
    a_put_without_a_resource_version_updates_or_creates_as_each_kind_allows,
    a_binding_is_validated_as_rbac_validates_it
);

/// On `kubegc serve` (one node by default) pods run, as kubectl sees them: `kubectl rollout
/// status` completes, a Job made by `kubectl create job` completes on its own, and `kubectl get
/// pods -o wide` names the node and each pod's own address. (The upstream target has no nodes
/// that run pods yet.)
#[test]
fn pods_run_on_the_served_node() {
    let s = On::Fake.start();
    s.ok(&["create", "deployment", "web", "--image=nginx", "--replicas=3"]);
    let rolled = s.ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);
    assert!(rolled.contains("deployment \"web\" successfully rolled out"), "{rolled}");
    s.ok(&["create", "job", "done", "--image=busybox", "--", "sleep", "1"]);
    s.ok(&["wait", "--for=condition=complete", "job/done", "--timeout=60s"]);
    let wide = s.ok(&["get", "pods", "-o", "wide", "--no-headers"]);
    let lines: Vec<&str> = wide.lines().collect();
    assert_eq!(lines.len(), 4, "{wide}");
    assert!(lines.iter().all(|l| l.split_whitespace().nth(6) == Some("node-1")), "{wide}");
    let addresses: std::collections::BTreeSet<&str> = lines.iter().filter_map(|l| l.split_whitespace().nth(5)).collect();
    assert_eq!(addresses.len(), 4, "each pod has an address of its own: {wide}");
    assert!(lines.iter().filter(|l| l.contains("Completed")).count() == 1, "{wide}");
}

const OWNER: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owner\ndata:\n  a: \"1\"\n";

fn dependent(owner_uid: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependent\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: owner\n    uid: {owner_uid}\ndata:\n  b: \"2\"\n"
    )
}

fn create_apply_and_get(on: On) {
    let s = on.start();
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

/// `kubectl apply --server-side` by one field manager, then by another changing a value: the
/// real conflict, until `--force-conflicts` takes the field.
fn server_side_apply_conflicts_between_field_managers(on: On) {
    let s = on.start();
    let path = s.dir.path().join("ssa.yaml");
    let file = path.to_str().unwrap();
    std::fs::write(&path, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  key: \"1\"\n").unwrap();
    let first = s.ok(&["apply", "--server-side", "--field-manager=alpha", "-f", file]);
    assert!(first.contains("configmap/ssa serverside-applied"), "{first}");
    let entries = &s.json(&["get", "configmap", "ssa", "--show-managed-fields"])["metadata"]["managedFields"];
    assert_eq!(entries[0]["manager"], "alpha");
    assert_eq!(entries[0]["operation"], "Apply");

    std::fs::write(&path, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  key: \"2\"\n").unwrap();
    let out = s.kubectl(&["apply", "--server-side", "--field-manager=beta", "-f", file]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a conflicting apply fails");
    assert!(stderr.contains("Apply failed with 1 conflict: conflict with \"alpha\": .data.key"), "{stderr}");
    assert_eq!(s.json(&["get", "configmap", "ssa"])["data"]["key"], "1");

    let forced = s.ok(&["apply", "--server-side", "--field-manager=beta", "--force-conflicts", "-f", file]);
    assert!(forced.contains("configmap/ssa serverside-applied"), "{forced}");
    let cm = s.json(&["get", "configmap", "ssa", "--show-managed-fields"]);
    assert_eq!(cm["data"]["key"], "2");
    let managers = strings(&serde_json::Value::Array(
        cm["metadata"]["managedFields"].as_array().unwrap().iter().map(|e| e["manager"].clone()).collect(),
    ));
    assert_eq!(managers, ["beta"]);
}

fn unknown_fields_are_refused_as_kubectl_validates_strictly(on: On) {
    let s = on.start();
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

fn generator_commands_send_protobuf_and_work(on: On) {
    let s = on.start();
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

fn api_resources_lists_the_builtin_kinds(on: On) {
    let s = on.start();
    let out = s.ok(&["api-resources"]);
    for kind in ["Namespace", "Pod", "ReplicaSet", "Deployment", "CustomResourceDefinition", "ClusterRole", "Lease"] {
        assert!(out.contains(kind), "{kind} missing from:\n{out}");
    }
}

fn patch_finalizers_and_owner_references_with_every_patch_type(on: On) {
    // No collector: the references name owners that do not exist.
    let s = on.start_with_gc("none");
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
    // A strategic merge puts a new item before the live ones (upstream `normalizeElementOrder`).
    assert_eq!(strings(&s.json(&["get", "cm", "owner"])["metadata"]["finalizers"]), ["example.com/c", "example.com/a", "example.com/b"]);
    s.ok(&[
        "patch",
        "configmap",
        "owner",
        "--type",
        "strategic",
        "-p",
        r#"{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/b"]}}"#,
    ]);
    assert_eq!(strings(&s.json(&["get", "cm", "owner"])["metadata"]["finalizers"]), ["example.com/c", "example.com/a"]);

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
    let uids: Vec<&Value> = got["metadata"]["ownerReferences"].as_array().unwrap().iter().map(|r| &r["uid"]).collect();
    assert_eq!(uids, ["u2", "u1"], "strategic merge adds by uid, the new reference first: {got}");
    s.ok(&["patch", "cm", "dependent", "--type", "json", "-p", r#"[{"op":"remove","path":"/metadata/ownerReferences/0"}]"#]);
    assert_eq!(s.json(&["get", "cm", "dependent"])["metadata"]["ownerReferences"][0]["uid"], "u1");
}

fn delete_cascade_modes_leave_the_right_finalizers(on: On) {
    // No collector: what the apiserver's half of deletion leaves behind stays visible.
    let s = on.start_with_gc("none");
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

/// A batch/v1 Job DELETE that names no propagation policy orphans the Job's pods, and the API
/// server says so in a Warning (pkg/registry/batch/job/storage/storage.go); kubectl's own
/// `delete job` names `Background` and is not warned.
fn a_job_delete_that_names_no_policy_is_warned_that_the_pods_stay(on: On) {
    let s = on.start();
    let warning = "Warning: child pods are preserved by default when jobs are deleted";
    for name in ["raw", "named"] {
        s.ok(&["create", "job", name, "--image=registry.k8s.io/pause:3.10"]);
    }
    let namespace = s.json(&["get", "job", "raw"])["metadata"]["namespace"].as_str().unwrap().to_string();
    let raw = s.kubectl(&["delete", "--raw", &format!("/apis/batch/v1/namespaces/{namespace}/jobs/raw")]);
    assert!(raw.status.success() && String::from_utf8_lossy(&raw.stderr).contains(warning), "{raw:?}");
    let named = s.kubectl(&["delete", "job", "named"]);
    assert!(named.status.success() && !String::from_utf8_lossy(&named.stderr).contains(warning), "{named:?}");
}

/// A create that names a resourceVersion is refused by the storage (500, no reason), and nothing
/// is stored; a server-side dry run does not reach the storage and answers with the version sent.
fn a_create_naming_a_resource_version_is_refused_but_a_dry_run_keeps_it(on: On) {
    let s = on.start();
    s.apply_file("create", "probe.yaml", &OWNER.replace("name: owner", "name: probe"));
    let namespace = s.json(&["get", "configmap", "probe"])["metadata"]["namespace"].as_str().unwrap().to_string();
    // `kubectl create -f` drops the version; `--raw` sends the file as it is.
    let path = s.dir.path().join("versioned.json");
    let versioned = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner", "resourceVersion": "12345"}});
    std::fs::write(&path, versioned.to_string()).unwrap();
    let collection = format!("/api/v1/namespaces/{namespace}/configmaps");
    let raw = |query: &str| s.kubectl(&["create", "--raw", &format!("{collection}{query}"), "-f", path.to_str().unwrap()]);
    let refused = raw("");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && stderr.contains("resourceVersion should not be set on objects to be created"), "{refused:?}");
    assert!(!s.exists("configmap", "owner"), "nothing stored");
    let dry = raw("?dryRun=All");
    assert!(dry.status.success(), "{dry:?}");
    let answer: Value = serde_json::from_slice(&dry.stdout).unwrap();
    assert_eq!(answer["metadata"]["resourceVersion"], "12345", "{answer}");
    assert!(!s.exists("configmap", "owner"), "a dry run stores nothing");
}

fn server_side_dry_run_delete_changes_nothing(on: On) {
    let s = on.start();
    s.apply_file("create", "owner.yaml", OWNER);
    assert!(s.ok(&["delete", "cm", "owner", "--dry-run=server"]).contains("(server dry run)"));
    assert!(s.json(&["get", "cm", "owner"])["metadata"]["deletionTimestamp"].is_null());
}

fn wait_for_delete_returns_when_the_last_finalizer_goes(on: On) {
    let s = on.start_with_gc("none");
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

fn events_by_reason_across_namespaces(on: On) {
    let s = on.start();
    let event = "apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\n  namespace: kube-system\ninvolvedObject:\n  kind: ConfigMap\n  name: dependent\n  namespace: kube-system\nreason: OwnerRefInvalidNamespace\ntype: Warning\nmessage: ownerRef points to a namespaced owner in another namespace\nsource:\n  component: garbage-collector-controller\n";
    s.apply_file("create", "event.yaml", event);
    s.apply_file("create", "other.yaml", &event.replace("e1", "e2").replace("OwnerRefInvalidNamespace", "Other"));
    let names = s.ok(&["get", "events", "-A", "--field-selector", "reason=OwnerRefInvalidNamespace", "-o", "name"]);
    assert_eq!(names.trim(), "event/e1");
    // The table has no name column (it is only in `-o wide`), as on a cluster.
    let table = s.ok(&["get", "events", "-A", "--field-selector", "reason=OwnerRefInvalidNamespace"]);
    assert!(table.contains("configmap/dependent") && table.contains("OwnerRefInvalidNamespace"), "{table}");
}

fn delete_namespace_deletes_its_contents_then_itself(on: On) {
    let s = on.start();
    s.apply_file("create", "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: doomed\n");
    s.apply_file("create", "cm.yaml", &OWNER.replace("metadata:\n", "metadata:\n  namespace: doomed\n"));
    s.ok(&["delete", "namespace", "doomed", "--timeout=30s"]);
    let out = s.kubectl(&["get", "namespace", "doomed"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("NotFound"));
}

/// The owner references of every object of `kind`, by name.
fn owners(s: &support::Served, kind: &str) -> Vec<(String, Value)> {
    let list = s.json(&["get", kind]);
    let items = list["items"].as_array().cloned().unwrap_or_default();
    items.iter().map(|o| (o["metadata"]["name"].as_str().unwrap().to_string(), o["metadata"]["ownerReferences"].clone())).collect()
}

/// A controller reference to `kind/name`, as the workload controllers set it.
fn controlled_by(references: &Value, kind: &str, name: &str) -> bool {
    references.as_array().is_some_and(|r| {
        r.len() == 1 && r[0]["kind"] == kind && r[0]["name"] == name && r[0]["controller"] == true && r[0]["blockOwnerDeletion"] == true
    })
}

fn a_deployment_makes_a_replica_set_and_pods_and_foreground_deletion_removes_them(on: On) {
    let s = on.start();
    s.ok(&["create", "deployment", "web", "--image=registry.k8s.io/pause:3.10", "--replicas=2"]);
    s.eventually("a ReplicaSet controlled by the Deployment, with two Pods controlled by it", |s| {
        let sets = owners(s, "replicasets");
        let [(rs, by)] = sets.as_slice() else { return false };
        let pods = owners(s, "pods");
        controlled_by(by, "Deployment", "web") && pods.len() == 2 && pods.iter().all(|(_, by)| controlled_by(by, "ReplicaSet", rs))
    });
    let rs = owners(&s, "replicasets")[0].0.clone();
    assert!(rs.starts_with("web-"), "the ReplicaSet is named after the Deployment and a template hash: {rs}");
    s.ok(&["delete", "deployment", "web", "--cascade=foreground", "--timeout=60s"]);
    assert!(owners(&s, "replicasets").is_empty() && owners(&s, "pods").is_empty(), "the foreground deletion left dependents");
}

fn a_job_makes_a_tracked_pod_and_foreground_deletion_removes_it(on: On) {
    let s = on.start();
    s.ok(&["create", "job", "pi", "--image=registry.k8s.io/pause:3.10"]);
    s.eventually("a Pod controlled by the Job, kept by the tracking finalizer", |s| {
        let pods = s.json(&["get", "pods"]);
        let items = pods["items"].as_array().cloned().unwrap_or_default();
        let [pod] = items.as_slice() else { return false };
        controlled_by(&pod["metadata"]["ownerReferences"], "Job", "pi")
            && strings(&pod["metadata"]["finalizers"]) == ["batch.kubernetes.io/job-tracking"]
            && pod["metadata"]["labels"]["batch.kubernetes.io/job-name"] == "pi"
    });
    s.ok(&["delete", "job", "pi", "--cascade=foreground", "--timeout=60s"]);
    assert!(owners(&s, "pods").is_empty(), "the Job's pod outlived it");
}

fn kubectl_scale_scales_through_the_scale_subresource(on: On) {
    let s = on.start();
    s.ok(&["create", "namespace", "scaled"]);
    s.ok(&["-n", "scaled", "create", "deployment", "web", "--image=registry.k8s.io/pause:3.10", "--replicas=2"]);
    let out = s.ok(&["-n", "scaled", "scale", "deployment", "web", "--replicas=5"]);
    assert!(out.contains("deployment.apps/web scaled"), "{out}");
    assert_eq!(s.json(&["-n", "scaled", "get", "deployment", "web"])["spec"]["replicas"], 5);
    let out = s.ok(&["-n", "scaled", "scale", "deployment", "web", "--current-replicas=5", "--replicas=1"]);
    assert!(out.contains("scaled"), "{out}");
    let refused = s.kubectl(&["-n", "scaled", "scale", "deployment", "web", "--current-replicas=4", "--replicas=3"]);
    assert!(!refused.status.success(), "the current replicas are 1, not 4");
    assert_eq!(s.json(&["-n", "scaled", "get", "deployment", "web"])["spec"]["replicas"], 1);
}

/// A CustomResourceDefinition is created with no names accepted, then established by the
/// server's own controllers; its first delete only marks it (deletion time, the cleanup
/// finalizer, no new generation) and it goes once its objects are gone
/// (apiextensions-apiserver registry/customresourcedefinition strategy.go and etcd.go).
fn a_definition_is_established_after_its_create_and_goes_after_its_objects(on: On) {
    let s = on.start();
    // Definitions are cluster-wide, and the upstream control plane is shared: a group of our own.
    let group = format!("p{}.kubegc.example.com", std::process::id());
    let crd = format!("probes.{group}");
    let definition = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {crd}\nspec:\n  group: {group}\n  scope: Namespaced\n  names:\n    plural: probes\n    kind: Probe\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n"
    );
    let created = s.apply_file("create", "crd.yaml", &definition);
    assert!(created.contains("created"), "{created}");
    // A definition's status holds `conditions: null` until the server's controllers write it,
    // on which `kubectl wait` fails at once instead of waiting: it is asked again until then.
    let wait = ["wait", "--for=condition=Established", &format!("crd/{crd}"), "--timeout=60s"];
    for attempt in 0.. {
        let out = s.kubectl(&wait);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            break;
        }
        assert!(attempt < 100 && stderr.contains(".status.conditions accessor error"), "kubectl {wait:?} failed: {stderr}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let established = s.json(&["get", "crd", &crd, "--show-managed-fields"]);
    assert_eq!(established["status"]["acceptedNames"]["listKind"], "ProbeList", "{established}");
    assert_eq!(established["spec"]["names"]["singular"], "probe", "the names are defaulted");
    assert_eq!(established["spec"]["conversion"]["strategy"], "None");
    let by_server = established["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["manager"] == "kube-apiserver" && e["subresource"] == "status");
    assert!(by_server, "the server's controllers write the status: {established}");

    let held = format!("apiVersion: {group}/v1\nkind: Probe\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\n");
    s.apply_file("create", "held.yaml", &held);
    s.ok(&["delete", "crd", &crd, "--wait=false"]);
    let marked = s.json(&["get", "crd", &crd]);
    assert!(marked["metadata"]["deletionTimestamp"].is_string(), "{marked}");
    assert!(strings(&marked["metadata"]["finalizers"]).contains(&"customresourcecleanup.apiextensions.k8s.io".to_string()), "{marked}");
    assert_eq!(marked["metadata"]["generation"], 1, "marking is not a change of spec: {marked}");
    let terminating =
        marked["status"]["conditions"].as_array().unwrap().iter().any(|c| c["type"] == "Terminating" && c["status"] == "True");
    assert!(terminating, "{marked}");
    s.ok(&["patch", &format!("probes.{group}"), "held", "--type=merge", "-p", r#"{"metadata":{"finalizers":null}}"#]);
    s.ok(&["wait", "--for=delete", &format!("crd/{crd}"), "--timeout=60s"]);
}

/// A PUT names the version it replaces, unless the kind allows an unconditional update (most
/// do; Leases do not); a PUT of an absent object creates it where the kind allows that
/// (Leases, Services, RBAC, ...) and is NotFound elsewhere (`AllowUnconditionalUpdate` and
/// `AllowCreateOnUpdate` of pkg/registry/*/*/strategy.go).
fn a_put_without_a_resource_version_updates_or_creates_as_each_kind_allows(on: On) {
    let s = on.start();
    s.apply_file("create", "probe.yaml", &OWNER.replace("name: owner", "name: probe"));
    let namespace = s.json(&["get", "configmap", "probe"])["metadata"]["namespace"].as_str().unwrap().to_string();
    let put = |path: &str, body: serde_json::Value| {
        let file = s.dir.path().join("put.json");
        std::fs::write(&file, body.to_string()).unwrap();
        s.kubectl(&["replace", "--raw", path, "-f", file.to_str().unwrap()])
    };
    let lease = serde_json::json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "lock"}, "spec": {"holderIdentity": "a"}});
    let leases = format!("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/lock");
    let created = put(&leases, lease.clone());
    assert!(created.status.success(), "a Lease is created by a PUT: {created:?}");
    assert_eq!(s.json(&["get", "lease", "lock"])["spec"]["holderIdentity"], "a");
    let refused = put(&leases, lease);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && stderr.contains("metadata.resourceVersion: Invalid value: 0: must be specified for an update"),
        "{refused:?}"
    );

    let map = |name: &str| serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "2"}});
    let configmaps = format!("/api/v1/namespaces/{namespace}/configmaps");
    assert!(put(&format!("{configmaps}/probe"), map("probe")).status.success(), "a ConfigMap updates unconditionally");
    assert_eq!(s.json(&["get", "configmap", "probe"])["data"]["a"], "2");
    let absent = put(&format!("{configmaps}/absent"), map("absent"));
    assert!(!absent.status.success() && String::from_utf8_lossy(&absent.stderr).contains("NotFound"), "{absent:?}");
}

/// RoleBindings and ClusterRoleBindings are validated as upstream's RBAC validation does: a
/// ClusterRoleBinding's service account subject names its namespace, and binds only a
/// ClusterRole (pkg/apis/rbac/validation/validation.go).
fn a_binding_is_validated_as_rbac_validates_it(on: On) {
    let s = on.start();
    let name = format!("kubegc-binding-{}", std::process::id());
    let binding = |role: &str, subject: &str| {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: {name}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: {role}\n  name: view\nsubjects:\n- {subject}\n"
        )
    };
    let file = s.dir.path().join("binding.yaml");
    let create = |yaml: String| {
        std::fs::write(&file, yaml).unwrap();
        s.kubectl(&["create", "-f", file.to_str().unwrap()])
    };
    let refused = create(binding("ClusterRole", "{kind: ServiceAccount, name: robot}"));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("subjects[0].namespace: Required value"), "{refused:?}");
    let refused = create(binding("Role", "{kind: ServiceAccount, name: robot, namespace: default}"));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\""), "{refused:?}");
    let accepted = create(binding("ClusterRole", "{kind: ServiceAccount, name: robot, namespace: default}"));
    assert!(accepted.status.success(), "{accepted:?}");
    s.ok(&["delete", "clusterrolebinding", &name]);
}
