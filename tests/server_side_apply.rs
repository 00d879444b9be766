//! Server-side apply and `metadata.managedFields`, on the fake and on the upstream API server:
//! create-on-apply, ownership of applied fields, removal of fields a manager stops applying,
//! conflicts with other appliers and with updaters (the real message and causes), `force`, the
//! options an apply needs, the `FieldsV1` shape of owner references (a map keyed by uid) and
//! finalizers (a set), and list items merged by key, for built-in kinds by their Go types'
//! markers and for custom resources by their schema. Times and uids are left out of every
//! comparison; everything else is compared whole.

mod support;

use axum::body::Body;
use http::{Method, Request};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use support::*;

on_both_servers!(
    create_on_apply_through_kube_client,
    an_apply_owns_its_fields_and_removes_what_it_stops_applying,
    appliers_conflict_over_a_value_and_force_takes_it,
    several_conflicts_are_listed_by_manager,
    an_apply_conflicts_with_an_update_manager,
    an_apply_needs_a_field_manager_and_a_matching_name,
    an_apply_may_not_bring_managed_fields,
    updates_record_their_manager_and_merge_into_one_entry,
    managed_fields_can_be_reset_by_an_update,
    owner_references_merge_by_uid_and_finalizers_as_a_set,
    containers_merge_by_name_and_ports_by_port_and_protocol,
    custom_resource_lists_follow_their_schema,
);

const APPLY: &str = "application/apply-patch+yaml";

/// A ConfigMap configuration with `data`.
fn config(name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})
}

/// Applies `body` to ConfigMap `name` for `manager` (with `force`), as raw YAML.
async fn apply(server: &Server, name: &str, manager: &str, force: bool, body: &Value) -> Raw {
    let force = if force { "&force=true" } else { "" };
    let yaml = serde_saphyr::to_string(body).unwrap();
    raw(server, Method::PATCH, &format!("{}?fieldManager={manager}{force}", cm_path(name)), Some(APPLY), yaml).await
}

/// The managedFields of an object without their times, by manager: (manager, operation,
/// apiVersion, fields). Entries are ordered by time to the second, which a test cannot pin.
fn managers(object: &Value) -> Vec<Value> {
    let mut entries: Vec<Value> = object["metadata"]["managedFields"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .map(|e| {
                    assert_eq!(e["fieldsType"], "FieldsV1");
                    json!([e["manager"], e["operation"], e["apiVersion"], e["fieldsV1"]])
                })
                .collect()
        })
        .unwrap_or_default();
    entries.sort_by_key(|e| e[0].as_str().unwrap_or_default().to_string());
    entries
}

/// The time of `manager`'s entry, if it has one.
fn time_of(object: &Value, manager: &str) -> Option<String> {
    let entries = object["metadata"]["managedFields"].as_array()?;
    entries.iter().find(|e| e["manager"] == manager)?["time"].as_str().map(String::from)
}

async fn create_on_apply_through_kube_client(server: Server) {
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let cm: ConfigMap = serde_json::from_value(config("kube-applied", json!({"key": "1"}))).unwrap();
    let created = api.patch("kube-applied", &PatchParams::apply("alpha"), &Patch::Apply(&cm)).await.unwrap();
    assert_eq!(created.data.unwrap()["key"], "1");
    assert!(created.metadata.uid.is_some());
    let got = serde_json::to_value(api.get("kube-applied").await.unwrap()).unwrap();
    assert_eq!(managers(&got), vec![json!(["alpha", "Apply", "v1", {"f:data": {"f:key": {}}}])]);

    let cm: ConfigMap = serde_json::from_value(config("kube-applied", json!({"key": "2"}))).unwrap();
    let updated = api.patch("kube-applied", &PatchParams::apply("alpha"), &Patch::Apply(&cm)).await.unwrap();
    assert_eq!(updated.data.unwrap()["key"], "2");
    assert_eq!(updated.metadata.uid, created.metadata.uid, "the second apply updates the same object");
}

async fn an_apply_owns_its_fields_and_removes_what_it_stops_applying(server: Server) {
    let first = apply(&server, "owned", "alpha", false, &config("owned", json!({"a": "1", "b": "2"}))).await;
    assert_eq!(first.code, 201, "create on apply: {}", first.body);
    let second = apply(&server, "owned", "alpha", false, &config("owned", json!({"a": "1"}))).await;
    assert_eq!(second.code, 200, "{}", second.body);
    assert_eq!(second.body["data"], json!({"a": "1"}), "b was applied by alpha alone, and alpha stopped applying it");
    assert_eq!(managers(&second.body), vec![json!(["alpha", "Apply", "v1", {"f:data": {"f:a": {}}}])]);

    assert!(time_of(&second.body, "alpha").is_some(), "an apply that changes the object stamps its entry");

    // A field another manager also owns stays when one of them stops applying it. Applying a
    // value the object already has changes only ownership: the new entry has no time.
    let shared = apply(&server, "owned", "beta", false, &config("owned", json!({"a": "1"}))).await;
    assert_eq!(shared.code, 200, "{}", shared.body);
    assert_eq!(time_of(&shared.body, "beta"), None, "{}", shared.body);
    let dropped = apply(&server, "owned", "alpha", false, &config("owned", json!({}))).await;
    assert_eq!(dropped.code, 200, "{}", dropped.body);
    assert_eq!(dropped.body["data"], json!({"a": "1"}));
    assert_eq!(
        managers(&dropped.body),
        vec![json!(["alpha", "Apply", "v1", {"f:data": {}}]), json!(["beta", "Apply", "v1", {"f:data": {"f:a": {}}}])],
        "an empty map applied is owned as a whole"
    );
}

async fn appliers_conflict_over_a_value_and_force_takes_it(server: Server) {
    assert_eq!(apply(&server, "contested", "alpha", false, &config("contested", json!({"key": "1"}))).await.code, 201);
    let before = get(&server, &cm_path("contested")).await.body;
    let conflict = apply(&server, "contested", "beta", false, &config("contested", json!({"key": "2"}))).await;
    assert_eq!(conflict.code, 409, "{}", conflict.body);
    assert_eq!(conflict.body["reason"], "Conflict");
    assert_eq!(conflict.body["message"], "Apply failed with 1 conflict: conflict with \"alpha\": .data.key");
    assert_eq!(
        conflict.body["details"],
        json!({"causes": [{"reason": "FieldManagerConflict", "message": "conflict with \"alpha\"", "field": ".data.key"}]})
    );
    assert_eq!(get(&server, &cm_path("contested")).await.body, before, "a refused apply changes nothing");

    let forced = apply(&server, "contested", "beta", true, &config("contested", json!({"key": "2"}))).await;
    assert_eq!(forced.code, 200, "{}", forced.body);
    assert_eq!(forced.body["data"]["key"], "2");
    assert_eq!(managers(&forced.body), vec![json!(["beta", "Apply", "v1", {"f:data": {"f:key": {}}}])]);
}

async fn several_conflicts_are_listed_by_manager(server: Server) {
    assert_eq!(apply(&server, "many", "alpha", false, &config("many", json!({"a": "1", "b": "1"}))).await.code, 201);
    let conflict = apply(&server, "many", "beta", false, &config("many", json!({"a": "2", "b": "2"}))).await;
    assert_eq!(conflict.code, 409, "{}", conflict.body);
    assert_eq!(conflict.body["message"], "Apply failed with 2 conflicts: conflicts with \"alpha\":\n- .data.a\n- .data.b");
    let fields: Vec<&Value> = conflict.body["details"]["causes"].as_array().unwrap().iter().map(|c| &c["field"]).collect();
    assert_eq!(fields, [".data.a", ".data.b"]);
}

async fn an_apply_conflicts_with_an_update_manager(server: Server) {
    let created = post(&server, &format!("{}?fieldManager=creator", cm_path("")), config("updated", json!({"key": "1"}))).await;
    assert_eq!(created.code, 201, "{}", created.body);
    let path = format!("{}?fieldManager=patcher", cm_path("updated"));
    let patched = patch(&server, &path, "application/merge-patch+json", json!({"data": {"key": "2"}})).await;
    assert_eq!(patched.code, 200, "{}", patched.body);
    let conflict = apply(&server, "updated", "alpha", false, &config("updated", json!({"key": "3"}))).await;
    assert_eq!(conflict.code, 409, "{}", conflict.body);
    assert_eq!(conflict.body["message"], "Apply failed with 1 conflict: conflict with \"patcher\" using v1: .data.key");
    assert_eq!(conflict.body["details"]["causes"][0]["message"], "conflict with \"patcher\" using v1");
}

async fn an_apply_needs_a_field_manager_and_a_matching_name(server: Server) {
    let body = serde_saphyr::to_string(&config("nameless", json!({}))).unwrap();
    let missing = raw(&server, Method::PATCH, &cm_path("nameless"), Some(APPLY), body).await;
    assert_eq!(missing.code, 422, "{}", missing.body);
    assert_eq!(missing.body["reason"], "Invalid");
    assert_eq!(
        missing.body["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
    assert_eq!(get(&server, &cm_path("nameless")).await.code, 404, "a refused apply creates nothing");

    let other = apply(&server, "here", "alpha", false, &config("there", json!({}))).await;
    assert_eq!(other.code, 400, "{}", other.body);
    assert_eq!(other.body["message"], "the name of the object (there) does not match the name on the URL (here)");
    assert_eq!(get(&server, &cm_path("here")).await.code, 404);

    let forced_merge = patch(&server, &format!("{}?force=true", cm_path("here")), "application/merge-patch+json", json!({})).await;
    assert_eq!(forced_merge.code, 422, "{}", forced_merge.body);
    assert_eq!(
        forced_merge.body["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch"
    );

    let cbor =
        raw(&server, Method::PATCH, &format!("{}?fieldManager=alpha", cm_path("here")), Some("application/apply-patch+cbor"), "").await;
    assert_eq!(cbor.code, 415, "CBOR apply is behind a disabled feature gate: {}", cbor.body);
}

async fn an_apply_may_not_bring_managed_fields(server: Server) {
    let mut body = config("carrying", json!({}));
    body["metadata"]["managedFields"] =
        json!([{"manager": "x", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {}}]);
    let refused = apply(&server, "carrying", "alpha", false, &body).await;
    assert_eq!(refused.code, 400, "{}", refused.body);
    assert_eq!(refused.body["reason"], "BadRequest");
    assert_eq!(refused.body["message"], "metadata.managedFields must be nil");
    let mut secret = config("carrying", json!({}));
    secret["kind"] = json!("Secret");
    let wrong = apply(&server, "carrying", "alpha", false, &secret).await;
    assert_eq!(wrong.code, 400, "{}", wrong.body);
    assert_eq!(wrong.body["message"], "invalid object type: /v1, Kind=Secret");
    assert_eq!(get(&server, &cm_path("carrying")).await.code, 404);
}

async fn updates_record_their_manager_and_merge_into_one_entry(server: Server) {
    let request = Request::builder()
        .method(Method::POST)
        .uri(cm_path(""))
        .header("content-type", "application/json")
        .header("user-agent", "probe/1.2.3 (linux/amd64)")
        .body(Body::from(config("agent", json!({"a": "1"})).to_string()))
        .unwrap();
    let created = server.send(request).await;
    assert_eq!(created.code, 201, "{}", created.body);
    assert_eq!(managers(&created.body), vec![json!(["probe", "Update", "v1", {"f:data": {".": {}, "f:a": {}}}])]);

    let path = format!("{}?fieldManager=probe", cm_path("agent"));
    let patched =
        patch(&server, &path, "application/merge-patch+json", json!({"data": {"b": "2"}, "metadata": {"labels": {"x": "y"}}})).await;
    assert_eq!(patched.code, 200, "{}", patched.body);
    assert_eq!(
        managers(&patched.body),
        vec![
            json!(["probe", "Update", "v1", {"f:data": {".": {}, "f:a": {}, "f:b": {}}, "f:metadata": {"f:labels": {".": {}, "f:x": {}}}}])
        ]
    );
    let other = format!("{}?fieldManager=other", cm_path("agent"));
    let moved = patch(&server, &other, "application/merge-patch+json", json!({"data": {"a": "changed"}})).await;
    assert_eq!(
        managers(&moved.body),
        vec![
            json!(["other", "Update", "v1", {"f:data": {"f:a": {}}}]),
            json!(["probe", "Update", "v1", {"f:data": {".": {}, "f:b": {}}, "f:metadata": {"f:labels": {".": {}, "f:x": {}}}}]),
        ]
    );
}

async fn managed_fields_can_be_reset_by_an_update(server: Server) {
    let created = apply(&server, "reset", "alpha", false, &config("reset", json!({"a": "1"}))).await;
    assert_eq!(created.code, 201, "{}", created.body);
    let mut body = created.body.clone();
    body["metadata"]["managedFields"] = json!([{}]);
    let replaced = put(&server, &cm_path("reset"), body).await;
    assert_eq!(replaced.code, 200, "{}", replaced.body);
    assert!(replaced.body["metadata"].get("managedFields").is_none(), "{}", replaced.body);
    assert!(get(&server, &cm_path("reset")).await.body["metadata"].get("managedFields").is_none());
}

async fn owner_references_merge_by_uid_and_finalizers_as_a_set(server: Server) {
    let owner = |uid: &str, name: &str| json!({"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid});
    let (u1, u2) = ("6b1f0a7e-0000-4000-8000-000000000001", "6b1f0a7e-0000-4000-8000-000000000002");
    let mut body = config("dependent", json!({"k": "v"}));
    body["metadata"]["ownerReferences"] = json!([owner(u1, "first")]);
    body["metadata"]["finalizers"] = json!(["example.com/first"]);
    let created = post(&server, &format!("{}?fieldManager=creator", cm_path("")), body).await;
    assert_eq!(created.code, 201, "{}", created.body);

    let mut applied = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dependent"}});
    applied["metadata"]["ownerReferences"] = json!([owner(u2, "second")]);
    applied["metadata"]["finalizers"] = json!(["example.com/second"]);
    let merged = apply(&server, "dependent", "alpha", false, &applied).await;
    assert_eq!(merged.code, 200, "{}", merged.body);
    let meta = &merged.body["metadata"];
    assert_eq!(meta["ownerReferences"], json!([owner(u1, "first"), owner(u2, "second")]));
    assert_eq!(meta["finalizers"], json!(["example.com/first", "example.com/second"]));
    let key = |uid: &str| format!("k:{{\"uid\":\"{uid}\"}}");
    assert_eq!(
        managers(&merged.body),
        vec![
            json!(["alpha", "Apply", "v1", {"f:metadata": {
                "f:finalizers": {"v:\"example.com/second\"": {}},
                "f:ownerReferences": {key(u2): {}},
            }}]),
            json!(["creator", "Update", "v1", {"f:data": {".": {}, "f:k": {}}, "f:metadata": {
                "f:finalizers": {".": {}, "v:\"example.com/first\"": {}},
                "f:ownerReferences": {".": {}, key(u1): {}},
            }}]),
        ]
    );

    // The applier lets go of its owner reference and finalizer: only those go.
    let mut released = applied.clone();
    released["metadata"] = json!({"name": "dependent"});
    let pruned = apply(&server, "dependent", "alpha", false, &released).await;
    assert_eq!(pruned.code, 200, "{}", pruned.body);
    assert_eq!(pruned.body["metadata"]["ownerReferences"], json!([owner(u1, "first")]));
    assert_eq!(pruned.body["metadata"]["finalizers"], json!(["example.com/first"]));
    let cleared = patch(&server, &cm_path("dependent"), "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await;
    assert_eq!(cleared.code, 200, "{}", cleared.body);
}

async fn containers_merge_by_name_and_ports_by_port_and_protocol(server: Server) {
    let api: Api<Deployment> = Api::default_namespaced(server.client());
    let labels = json!({"app": "ssa-web"});
    let alpha: Deployment = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "ssa-web"},
        "spec": {"replicas": 0, "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels},
            "spec": {"containers": [{"name": "a", "image": "registry.example/a:1", "ports": [{"containerPort": 80}]}]}}},
    }))
    .unwrap();
    api.patch("ssa-web", &PatchParams::apply("alpha"), &Patch::Apply(&alpha)).await.unwrap();
    let beta = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "ssa-web"},
        "spec": {"template": {"spec": {"containers": [{"name": "b", "image": "registry.example/b:1"}]}}}});
    let merged = api.patch("ssa-web", &PatchParams::apply("beta"), &Patch::Apply(&beta)).await.unwrap();
    let names: Vec<String> = merged.spec.template.spec.unwrap().containers.into_iter().map(|c| c.name).collect();
    assert_eq!(names, ["a", "b"]);

    let object = serde_json::to_value(api.get("ssa-web").await.unwrap()).unwrap();
    let entries = managers(&object);
    let alpha_fields = json!({"f:spec": {
        "f:replicas": {},
        "f:selector": {},
        "f:template": {"f:metadata": {"f:labels": {"f:app": {}}}, "f:spec": {"f:containers": {"k:{\"name\":\"a\"}": {
            ".": {}, "f:image": {}, "f:name": {},
            "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}},
        }}}},
    }});
    assert_eq!(entries[0], json!(["alpha", "Apply", "apps/v1", alpha_fields]));
    let beta_fields =
        json!({"f:spec": {"f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"b\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}});
    assert_eq!(entries[1], json!(["beta", "Apply", "apps/v1", beta_fields]));
}

async fn custom_resource_lists_follow_their_schema(server: Server) {
    // CRDs are cluster-wide: the group is the test's own.
    let group = format!("{}.ssa.example.com", server.namespace());
    let item = json!({"type": "object", "required": ["port"], "properties": {"port": {"type": "integer"}, "name": {"type": "string"}}});
    let spec = json!({"type": "object", "properties": {
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port"], "items": item},
        "tags": {"type": "array", "items": {"type": "string"}},
    }});
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("gadgets.{group}")},
        "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}}]}});
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    assert_eq!(post(&server, crds, crd).await.code, 201);
    let gadget = |spec: Value| json!({"apiVersion": format!("{group}/v1"), "kind": "Gadget", "metadata": {"name": "g"}, "spec": spec});
    let send = |manager: &str, body: Value| {
        let path = format!("/apis/{group}/v1/namespaces/default/gadgets/g?fieldManager={manager}");
        let server = server.clone();
        async move { raw(&server, Method::PATCH, &path, Some(APPLY), body.to_string()).await }
    };

    let alpha = gadget(json!({"ports": [{"port": 80, "name": "http"}], "tags": ["a"]}));
    let mut created = send("alpha", alpha.clone()).await;
    for _ in 0..50 {
        if created.code != 404 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await; // until the resource is served
        created = send("alpha", alpha.clone()).await;
    }
    assert_eq!(created.code, 201, "{}", created.body);
    let merged = send("beta", gadget(json!({"ports": [{"port": 443, "name": "https"}]}))).await;
    assert_eq!(merged.code, 200, "{}", merged.body);
    assert_eq!(merged.body["spec"]["ports"], json!([{"port": 80, "name": "http"}, {"port": 443, "name": "https"}]));
    assert_eq!(
        managers(&merged.body)[0],
        json!(["alpha", "Apply", format!("{group}/v1"), {"f:spec": {"f:ports": {"k:{\"port\":80}": {".": {}, "f:name": {}, "f:port": {}}}, "f:tags": {}}}])
    );
    let atomic = send("beta", gadget(json!({"tags": ["b"]}))).await;
    assert_eq!(atomic.code, 409, "a list with no list type is atomic: {}", atomic.body);
    assert_eq!(atomic.body["message"], "Apply failed with 1 conflict: conflict with \"alpha\": .spec.tags");
    assert_eq!(delete(&server, &format!("{crds}/gadgets.{group}"), Value::Null).await.code, 200);
}
