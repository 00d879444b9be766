//! The `scale` subresource of Deployments, ReplicaSets, StatefulSets, ReplicationControllers
//! and custom resources whose definition declares one, on the fake and on the upstream control
//! plane: what a Scale shows, how it is written (PUT, every patch type, dry run), and the
//! errors: conflicts, a missing parent, negative replicas.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::*;

on_both_servers!(
    the_scale_of_each_scalable_kind_shows_its_replicas_and_selector,
    a_scale_is_written_by_put_and_every_patch_type,
    a_dry_run_scale_changes_nothing,
    a_scale_is_applied_server_side,
    scale_preconditions_conflict,
    the_scale_of_a_missing_object_is_not_found,
    negative_replicas_are_invalid,
    discovery_lists_the_scale_subresources,
    a_custom_resource_scales_by_its_definition_s_paths,
);

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn template(app: &str) -> Value {
    json!({"metadata": {"labels": {"app": app, "tier": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}

/// The scalable kinds: collection path, a manifest named `name`, and the selector string its
/// Scale shows.
fn scalables(name: &str) -> Vec<(&'static str, Value, &'static str)> {
    let selector = json!({"matchLabels": {"app": name}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["web", "api"]}]});
    let apps = |kind: &str| {
        let mut spec = json!({"replicas": 2, "selector": selector, "template": template(name)});
        if kind == "StatefulSet" {
            spec["serviceName"] = json!(name);
        }
        json!({"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name}, "spec": spec})
    };
    let rc = json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name},
        "spec": {"replicas": 2, "selector": {"app": name, "tier": "web"}, "template": template(name)}});
    vec![
        (DEPLOYMENTS, apps("Deployment"), "app=NAME,tier in (api,web)"),
        ("/apis/apps/v1/namespaces/default/replicasets", apps("ReplicaSet"), "app=NAME,tier in (api,web)"),
        ("/apis/apps/v1/namespaces/default/statefulsets", apps("StatefulSet"), "app=NAME,tier in (api,web)"),
        ("/api/v1/namespaces/default/replicationcontrollers", rc, "app=NAME,tier=web"),
    ]
}

/// Creates `manifest` in `collection`, asserting success.
async fn create(server: &Server, collection: &str, manifest: Value) -> Value {
    let r = post(server, collection, manifest).await;
    assert_eq!(r.code, 201, "{collection}: {}", r.body);
    r.body
}

/// The parent and its Scale read at one resourceVersion (the upstream controllers write the
/// parent's status meanwhile: read until both agree).
async fn parent_and_scale(server: &Server, uri: &str) -> (Value, Value) {
    let start = Instant::now();
    loop {
        let parent = get(server, uri).await.body;
        let scale = get(server, &format!("{uri}/scale")).await;
        assert_eq!(scale.code, 200, "{uri}/scale: {}", scale.body);
        if scale.body["metadata"]["resourceVersion"] == parent["metadata"]["resourceVersion"] {
            return (parent, scale.body);
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{uri}: the parent keeps changing");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn the_scale_of_each_scalable_kind_shows_its_replicas_and_selector(server: Server) {
    for (collection, manifest, selector) in scalables("shown") {
        create(&server, collection, manifest).await;
        let uri = format!("{collection}/shown");
        let (parent, scale) = parent_and_scale(&server, &uri).await;
        let meta = &parent["metadata"];
        let expected = json!({
            "kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {"name": "shown", "namespace": server.namespace(), "uid": meta["uid"],
                "resourceVersion": meta["resourceVersion"], "creationTimestamp": meta["creationTimestamp"]},
            "spec": {"replicas": 2},
            "status": {"replicas": parent["status"]["replicas"].as_i64().unwrap_or(0), "selector": selector.replace("NAME", "shown")},
        });
        assert_eq!(scale, expected, "{uri}");
    }
}

async fn a_scale_is_written_by_put_and_every_patch_type(server: Server) {
    for (collection, manifest, _) in scalables("written") {
        create(&server, collection, manifest).await;
        let uri = format!("{collection}/written");
        let (parent, scale) = parent_and_scale(&server, &uri).await;
        let generation = parent["metadata"]["generation"].as_i64().unwrap();

        // No resourceVersion: the upstream controllers may write the parent's status meanwhile.
        let mut put_scale = scale.clone();
        put_scale["spec"]["replicas"] = json!(5);
        put_scale["metadata"].as_object_mut().unwrap().remove("resourceVersion");
        let r = put(&server, &format!("{uri}/scale?fieldManager=scaler"), put_scale).await;
        assert_eq!((r.code, &r.body["kind"], &r.body["spec"]["replicas"]), (200, &json!("Scale"), &json!(5)), "{uri}: {}", r.body);
        let written = get(&server, &uri).await.body;
        assert_eq!(written["spec"]["replicas"], 5, "{uri}");
        assert_eq!(written["metadata"]["generation"], generation + 1, "{uri}: a new generation");
        assert_ne!(written["metadata"]["resourceVersion"], parent["metadata"]["resourceVersion"]);
        let scaler = written["metadata"]["managedFields"].as_array().unwrap().iter().find(|e| e["manager"] == "scaler").cloned();
        let scaler = scaler.unwrap_or_else(|| panic!("{uri}: no entry of the scaler in {}", written["metadata"]["managedFields"]));
        assert_eq!(
            (&scaler["operation"], &scaler["subresource"], &scaler["fieldsV1"]),
            (&json!("Update"), &json!("scale"), &json!({"f:spec": {"f:replicas": {}}})),
            "{uri}"
        );

        let patches = [
            ("application/merge-patch+json", json!({"spec": {"replicas": 3}}), 3),
            ("application/json-patch+json", json!([{"op": "replace", "path": "/spec/replicas", "value": 4}]), 4),
            ("application/strategic-merge-patch+json", json!({"spec": {"replicas": 0}}), 0),
        ];
        for (content_type, body, replicas) in patches {
            let r = patch(&server, &format!("{uri}/scale"), content_type, body).await;
            assert_eq!(r.code, 200, "{uri} {content_type}: {}", r.body);
            assert_eq!(r.body["spec"]["replicas"].as_i64().unwrap_or(0), replicas, "{uri} {content_type}: {}", r.body);
            assert_eq!(get(&server, &uri).await.body["spec"]["replicas"], replicas, "{uri} {content_type}");
        }
        // 0 replicas: Go's encoder leaves the Scale's spec empty.
        assert_eq!(get(&server, &format!("{uri}/scale")).await.body["spec"], json!({}), "{uri}");
    }
}

async fn a_dry_run_scale_changes_nothing(server: Server) {
    create(&server, DEPLOYMENTS, scalables("dry").remove(0).1).await;
    let uri = format!("{DEPLOYMENTS}/dry");
    let (parent, scale) = parent_and_scale(&server, &uri).await;
    let mut bigger = scale.clone();
    bigger["spec"]["replicas"] = json!(9);
    bigger["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    let r = put(&server, &format!("{uri}/scale?dryRun=All"), bigger).await;
    assert_eq!((r.code, &r.body["spec"]["replicas"]), (200, &json!(9)), "{}", r.body);
    let r = patch(&server, &format!("{uri}/scale?dryRun=All"), "application/merge-patch+json", json!({"spec": {"replicas": 8}})).await;
    assert_eq!((r.code, &r.body["spec"]["replicas"]), (200, &json!(8)), "{}", r.body);
    let after = get(&server, &uri).await.body;
    assert_eq!(after["spec"]["replicas"], parent["spec"]["replicas"]);
    assert_eq!(after["metadata"]["generation"], parent["metadata"]["generation"]);
}

async fn a_scale_is_applied_server_side(server: Server) {
    create(&server, DEPLOYMENTS, scalables("applied").remove(0).1).await;
    let uri = format!("{DEPLOYMENTS}/applied/scale");
    let config = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "applied"}, "spec": {"replicas": 6}});
    let apply = async |query: &str| {
        let uri = format!("{uri}?fieldManager=hpa{query}");
        raw(&server, http::Method::PATCH, &uri, Some("application/apply-patch+yaml"), config.to_string()).await
    };
    let r = apply("").await;
    assert_eq!((r.code, r.body["reason"].as_str()), (409, Some("Conflict")), "the creator manages the replicas: {}", r.body);
    let r = apply("&force=true").await;
    assert_eq!((r.code, &r.body["kind"], &r.body["spec"]["replicas"]), (200, &json!("Scale"), &json!(6)), "{}", r.body);
    let parent = get(&server, &format!("{DEPLOYMENTS}/applied")).await.body;
    assert_eq!(parent["spec"]["replicas"], 6);
    let hpa = parent["metadata"]["managedFields"].as_array().unwrap().iter().find(|e| e["manager"] == "hpa").cloned().unwrap();
    assert_eq!(
        (&hpa["operation"], &hpa["subresource"], &hpa["fieldsV1"]),
        (&json!("Apply"), &json!("scale"), &json!({"f:spec": {"f:replicas": {}}}))
    );
}

async fn scale_preconditions_conflict(server: Server) {
    create(&server, DEPLOYMENTS, scalables("stale").remove(0).1).await;
    let uri = format!("{DEPLOYMENTS}/stale");
    let (_, scale) = parent_and_scale(&server, &uri).await;
    let r = put(&server, &format!("{uri}/scale"), json!({"metadata": {"name": "stale", "resourceVersion": "1"}, "spec": {"replicas": 3}}))
        .await;
    assert_eq!((r.code, r.body["reason"].as_str()), (409, Some("Conflict")), "{}", r.body);
    assert_eq!(
        r.body["message"],
        "Operation cannot be fulfilled on deployments.apps \"stale\": the object has been modified; please apply your changes to the latest version and try again"
    );
    assert_eq!(r.body["details"], json!({"name": "stale", "group": "apps", "kind": "deployments"}));

    let uid = "00000000-0000-0000-0000-000000000000";
    let r = put(&server, &format!("{uri}/scale"), json!({"metadata": {"name": "stale", "uid": uid}, "spec": {"replicas": 3}})).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (409, Some("Conflict")), "{}", r.body);
    let stored_uid = scale["metadata"]["uid"].as_str().unwrap();
    assert_eq!(
        r.body["message"],
        format!(
            "Operation cannot be fulfilled on deployments.apps \"stale\": StorageError: invalid object, Code: 4, Key: /registry/deployments/{}/stale, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {uid}, UID in object meta: {stored_uid}",
            server.namespace()
        )
    );

    let r = put(&server, &format!("{uri}/scale"), json!({"metadata": {"name": "other"}, "spec": {"replicas": 3}})).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (400, Some("BadRequest")), "{}", r.body);
    assert_eq!(r.body["message"], "the name of the object (other) does not match the name on the URL (stale)");

    // Without a resourceVersion the write is unconditional.
    let r = put(&server, &format!("{uri}/scale"), json!({"metadata": {"name": "stale"}, "spec": {"replicas": 3}})).await;
    assert_eq!((r.code, &r.body["spec"]["replicas"]), (200, &json!(3)), "{}", r.body);
}

async fn the_scale_of_a_missing_object_is_not_found(server: Server) {
    // Upstream's scale storage reads the parent first: its own resource is what is missing.
    let cases = [
        (DEPLOYMENTS, "deployments.apps", json!({"name": "missing", "group": "apps", "kind": "deployments"})),
        (
            "/api/v1/namespaces/default/replicationcontrollers",
            "replicationcontrollers",
            json!({"name": "missing", "kind": "replicationcontrollers"}),
        ),
    ];
    for (collection, read, details) in cases {
        let written = read;
        let uri = format!("{collection}/missing/scale");
        let r = get(&server, &uri).await;
        assert_eq!((r.code, r.body["reason"].as_str()), (404, Some("NotFound")), "{uri}: {}", r.body);
        assert_eq!(r.body["message"], format!("{read} \"missing\" not found"));
        let r = put(&server, &uri, json!({"metadata": {"name": "missing"}, "spec": {"replicas": 1}})).await;
        assert_eq!((r.code, &r.body["message"]), (404, &json!(format!("{written} \"missing\" not found"))), "{uri}: {}", r.body);
        assert_eq!(r.body["details"], details, "{uri}");
        let r = patch(&server, &uri, "application/merge-patch+json", json!({"spec": {"replicas": 1}})).await;
        assert_eq!((r.code, &r.body["message"]), (404, &json!(format!("{written} \"missing\" not found"))), "{uri}: {}", r.body);
    }
    // A resource without the subresource.
    create_cm(&server, "plain", &[]).await;
    let r = get(&server, &format!("{}/scale", cm_path("plain"))).await;
    assert_eq!((r.code, r.body["message"].as_str()), (404, Some("the server could not find the requested resource")), "{}", r.body);
}

async fn negative_replicas_are_invalid(server: Server) {
    create(&server, DEPLOYMENTS, scalables("negative").remove(0).1).await;
    let uri = format!("{DEPLOYMENTS}/negative/scale");
    let message = "Scale.autoscaling \"negative\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0";
    for r in [
        put(&server, &uri, json!({"metadata": {"name": "negative"}, "spec": {"replicas": -1}})).await,
        patch(&server, &uri, "application/merge-patch+json", json!({"spec": {"replicas": -1}})).await,
    ] {
        assert_eq!((r.code, r.body["reason"].as_str()), (422, Some("Invalid")), "{}", r.body);
        assert_eq!(r.body["message"], message);
        assert_eq!(r.body["details"]["kind"], "Scale");
        assert_eq!(r.body["details"]["group"], "autoscaling");
        let cause = &r.body["details"]["causes"][0];
        assert_eq!((&cause["reason"], &cause["field"]), (&json!("FieldValueInvalid"), &json!("spec.replicas")));
    }
    assert_eq!(get(&server, &format!("{DEPLOYMENTS}/negative")).await.body["spec"]["replicas"], 2);
}

async fn discovery_lists_the_scale_subresources(server: Server) {
    let entry = |list: &Value, name: &str| list["resources"].as_array().unwrap().iter().find(|r| r["name"] == name).cloned();
    let apps = get(&server, "/apis/apps/v1").await.body;
    let core = get(&server, "/api/v1").await.body;
    for (list, name) in [(&apps, "deployments"), (&apps, "replicasets"), (&apps, "statefulsets"), (&core, "replicationcontrollers")] {
        let scale = entry(list, &format!("{name}/scale")).unwrap_or_else(|| panic!("no {name}/scale"));
        let fields: Vec<&Value> =
            ["name", "singularName", "namespaced", "group", "version", "kind", "verbs"].iter().map(|f| &scale[*f]).collect();
        let expected = [
            json!(format!("{name}/scale")),
            json!(""),
            json!(true),
            json!("autoscaling"),
            json!("v1"),
            json!("Scale"),
            json!(["get", "patch", "update"]),
        ];
        assert_eq!(fields, expected.iter().collect::<Vec<_>>(), "{name}");
    }
    assert!(entry(&apps, "daemonsets/scale").is_none());
}

async fn a_custom_resource_scales_by_its_definition_s_paths(server: Server) {
    let definition = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "scalers.scale.kubegc.example"},
        "spec": {"group": "scale.kubegc.example", "scope": "Namespaced",
            "names": {"plural": "scalers", "singular": "scaler", "kind": "Scaler"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.count",
                    "labelSelectorPath": ".status.selector"}}}]}
    });
    let r = post(&server, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", definition).await;
    assert!(r.code == 201 || r.code == 409, "{}", r.body);
    let collection = "/apis/scale.kubegc.example/v1/namespaces/default/scalers";
    let start = Instant::now();
    let created = loop {
        let r = post(
            &server,
            collection,
            json!({"apiVersion": "scale.kubegc.example/v1", "kind": "Scaler", "metadata": {"name": "s"}, "spec": {"size": 2}}),
        )
        .await;
        if r.code == 201 {
            break r.body;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the definition is not served: {}", r.body);
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let uri = format!("{collection}/s");
    let status = json!({"status": {"count": 1, "selector": "app=s"}});
    let r = patch(&server, &format!("{uri}/status"), "application/merge-patch+json", status).await;
    assert_eq!(r.code, 200, "{}", r.body);

    let r = get(&server, &format!("{uri}/scale")).await;
    let expected = json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {"name": "s", "namespace": server.namespace(), "uid": created["metadata"]["uid"],
            "resourceVersion": r.body["metadata"]["resourceVersion"], "creationTimestamp": created["metadata"]["creationTimestamp"]},
        "spec": {"replicas": 2}, "status": {"replicas": 1, "selector": "app=s"}});
    assert_eq!((r.code, &r.body), (200, &expected));

    let r = patch(&server, &format!("{uri}/scale"), "application/merge-patch+json", json!({"spec": {"replicas": 4}})).await;
    assert_eq!((r.code, &r.body["spec"]["replicas"]), (200, &json!(4)), "{}", r.body);
    assert_eq!(get(&server, &uri).await.body["spec"]["size"], 4);

    let r = put(&server, &format!("{uri}/scale"), json!({"metadata": {"name": "s"}, "spec": {"replicas": -1}})).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (422, Some("Invalid")), "{}", r.body);
    assert_eq!(
        r.body["message"],
        "Scaler.scale.kubegc.example \"s\" is invalid: .spec.size: Invalid value: -1: should be a non-negative integer"
    );

    // Without its desired replicas, a custom resource has no Scale to show.
    let r = post(
        &server,
        collection,
        json!({"apiVersion": "scale.kubegc.example/v1", "kind": "Scaler", "metadata": {"name": "empty"}, "spec": {}}),
    )
    .await;
    assert_eq!(r.code, 201, "{}", r.body);
    let r = get(&server, &format!("{collection}/empty/scale")).await;
    assert_eq!(
        (r.code, r.body["message"].as_str()),
        (500, Some("Internal error occurred: the spec replicas field \".spec.size\" does not exist")),
        "{}",
        r.body
    );
    let r =
        patch(&server, &format!("{collection}/empty/scale"), "application/merge-patch+json", json!({"metadata": {"labels": {"a": "b"}}}))
            .await;
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some("the spec replicas field \".spec.size\" cannot be empty")), "{}", r.body);
}
