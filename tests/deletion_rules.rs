//! One test per rule of the apiserver's half of garbage collection, in four groups by the prefix
//! of their names: `policy_` resolves a request's propagation policy (upstream
//! `shouldOrphanDependents` and `shouldDeleteDependents`), `per_kind_` the default policy per
//! resource (`DefaultGarbageCollectionPolicy`), `request_` what a request does to the stored
//! object, one situation at a time (`Delete` in `store.go`, `rest.BeforeDelete`), and
//! `validation_` ownerReference validation (apimachinery `ValidateOwnerReferences`).

mod support;

use chrono::Duration;
use kubegc::apiserver::{ApiServer, Config};
use kubegc::clock::{Clock, parse_time};
use serde_json::{Value, json};
use support::*;

// Every rule holds on the upstream control plane too, but for those that need the fake's
// virtual clock, its switches or its simulated controllers (marked `#[tokio::test]` below).
on_both_servers!(
    policy_options_take_precedence_over_existing_finalizers,
    policy_existing_finalizers_take_precedence_over_the_default_policy,
    policy_orphan_dependents_true_adds_the_orphan_finalizer,
    policy_orphan_dependents_false_means_background_and_strips_foreground,
    policy_orphan_dependents_and_propagation_policy_together_are_invalid,
    policy_unknown_propagation_policy_is_not_supported,
    policy_dry_run_values_other_than_all_are_invalid,
    policy_finalizer_list_is_rebuilt_with_gc_finalizers_appended,
    policy_background_and_delete_dependents_default_add_no_finalizer,
    per_kind_v1_replicationcontroller_orphans_by_default,
    per_kind_batch_v1_job_orphans_by_default,
    per_kind_events_do_not_support_gc_policies,
    per_kind_other_kinds_delete_in_background_by_default,
    request_delete_of_a_missing_object_is_not_found,
    request_uid_precondition_mismatch_is_a_conflict,
    request_resource_version_precondition_mismatch_is_a_conflict,
    request_object_without_finalizers_is_removed_at_once,
    request_finalizers_keep_the_object_with_deletion_timestamp_and_zero_grace,
    request_foreground_adds_foreground_deletion_and_removing_it_deletes,
    request_orphan_adds_the_orphan_finalizer,
    request_background_strips_a_lone_gc_finalizer_and_deletes,
    request_unscheduled_and_terminal_pods_go_at_once,
    request_negative_grace_becomes_one_and_zero_grace_with_finalizers_is_kept,
    request_redelete_during_pending_graceful_deletion_changes_nothing,
    request_update_removing_the_last_finalizer_deletes,
    request_no_new_finalizers_while_deleting,
    request_deletion_timestamp_cannot_be_set_changed_or_cleared_by_update,
    request_both_gc_finalizers_are_refused,
    request_finalizer_names_must_be_qualified_names,
    request_creating_over_a_terminating_object_is_already_exists,
    request_dry_run_persists_nothing,
    request_unsupported_policy_ignores_options_but_honours_user_finalizers,
    request_http_delete_without_options_is_not_a_nil_options_delete,
    request_resource_version_precondition_survives_only_a_written_update,
    request_delete_racing_with_updates_is_not_refused_for_a_conflict,
    request_deletecollection_deletes_each_selected_item_and_returns_them_as_listed,
    validation_owner_reference_needs_a_version,
    validation_owner_reference_needs_kind_name_and_uid,
    validation_v1_event_cannot_be_an_owner,
    validation_at_most_one_controller_reference,
    validation_existence_kind_and_namespace_of_owners_are_not_validated,
    validation_owner_references_are_validated_on_update_too,
    request_namespace_deletion_terminates_then_removes_when_empty,
    status_writes_change_metadata_but_not_spec_nor_a_pod_s_owner_references,
);

fn rc(name: &str, finalizers: &[&str]) -> Value {
    json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name, "finalizers": finalizers},
        "spec": {"replicas": 0, "selector": {"app": name}, "template": {"metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
}

fn pod(name: &str, node: Option<&str>, finalizers: &[&str]) -> Value {
    let mut p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "finalizers": finalizers},
        "spec": {"containers": [{"name": "c", "image": "i"}]}});
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
    }
    p
}

const PODS: &str = "/api/v1/namespaces/default/pods";
const RCS: &str = "/api/v1/namespaces/default/replicationcontrollers";

async fn finalizers_after_delete(server: &Server, name: &str, options: Value) -> Vec<String> {
    let r = delete(server, &cm_path(name), options).await;
    assert!(r.code == 200 || r.code == 202, "{}", r.body);
    strings(&get(server, &cm_path(name)).await.body["metadata"]["finalizers"])
}

// ---------- policy_: policy resolution ----------

async fn policy_options_take_precedence_over_existing_finalizers(s: Server) {
    create_cm(&s, "x", &["example.com/hold", "orphan"]).await;
    let f = finalizers_after_delete(&s, "x", json!({"propagationPolicy": "Foreground"})).await;
    assert_eq!(f, ["example.com/hold", "foregroundDeletion"]);
}

async fn policy_existing_finalizers_take_precedence_over_the_default_policy(s: Server) {
    // A v1 ReplicationController orphans by default, but a pre-set foreground finalizer wins.
    assert_eq!(post(&s, RCS, rc("r", &["example.com/hold", "foregroundDeletion"])).await.code, 201);
    assert_eq!(delete(&s, &format!("{RCS}/r"), Value::Null).await.code, 200);
    let f = strings(&get(&s, &format!("{RCS}/r")).await.body["metadata"]["finalizers"]);
    assert_eq!(f, ["example.com/hold", "foregroundDeletion"]);
}

async fn policy_orphan_dependents_true_adds_the_orphan_finalizer(s: Server) {
    create_cm(&s, "x", &["example.com/hold"]).await;
    assert_eq!(finalizers_after_delete(&s, "x", json!({"orphanDependents": true})).await, ["example.com/hold", "orphan"]);
}

async fn policy_orphan_dependents_false_means_background_and_strips_foreground(s: Server) {
    create_cm(&s, "x", &["example.com/hold", "foregroundDeletion"]).await;
    let r = delete(&s, &cm_path("x"), json!({"orphanDependents": false})).await;
    assert_eq!(r.code, 202, "202 Accepted only for an explicit orphanDependents=false");
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["example.com/hold"]);
}

async fn policy_orphan_dependents_and_propagation_policy_together_are_invalid(s: Server) {
    create_cm(&s, "x", &[]).await;
    let r = delete(&s, &cm_path("x"), json!({"orphanDependents": true, "propagationPolicy": "Orphan"})).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (422, Some("Invalid")));
    assert!(r.body["message"].as_str().unwrap().contains("orphanDependents and deletionPropagation cannot be both set"));
    assert_eq!(get(&s, &cm_path("x")).await.code, 200, "a rejected delete changes nothing");
}

async fn policy_unknown_propagation_policy_is_not_supported(s: Server) {
    create_cm(&s, "x", &[]).await;
    let r = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Sideways"})).await;
    assert_eq!(r.code, 422);
    assert!(r.body["message"].as_str().unwrap().contains("Unsupported value: \"Sideways\""), "{}", r.body);
}

async fn policy_dry_run_values_other_than_all_are_invalid(s: Server) {
    create_cm(&s, "x", &[]).await;
    let r = delete(&s, &cm_path("x"), json!({"dryRun": ["Some"]})).await;
    assert_eq!(r.code, 422);
    assert_eq!(get(&s, &cm_path("x")).await.code, 200);
}

async fn policy_finalizer_list_is_rebuilt_with_gc_finalizers_appended(s: Server) {
    create_cm(&s, "x", &["orphan", "a.io/x", "b.io/y"]).await;
    let f = finalizers_after_delete(&s, "x", json!({"propagationPolicy": "Foreground"})).await;
    assert_eq!(f, ["a.io/x", "b.io/y", "foregroundDeletion"]);
}

async fn policy_background_and_delete_dependents_default_add_no_finalizer(s: Server) {
    create_cm(&s, "x", &[]).await;
    let r = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Background"})).await;
    assert_eq!((r.code, r.body["status"].as_str()), (200, Some("Success")));
    assert_eq!(get(&s, &cm_path("x")).await.code, 404);
}

// ---------- per_kind_: default policy per resource ----------

async fn per_kind_v1_replicationcontroller_orphans_by_default(s: Server) {
    assert_eq!(post(&s, RCS, rc("r", &[])).await.code, 201);
    let r = delete(&s, &format!("{RCS}/r"), Value::Null).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["orphan"]);
}

async fn per_kind_batch_v1_job_orphans_by_default(s: Server) {
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}});
    assert_eq!(post(&s, "/apis/batch/v1/namespaces/default/jobs", job).await.code, 201);
    let r = delete(&s, "/apis/batch/v1/namespaces/default/jobs/j", Value::Null).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["orphan"]);
}

async fn per_kind_events_do_not_support_gc_policies(s: Server) {
    for (path, body) in [
        (
            "/api/v1/namespaces/default/events",
            json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": s.namespace()}, "reason": "R"}),
        ),
        (
            "/apis/events.k8s.io/v1/namespaces/default/events",
            json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "e2"}, "regarding": {"kind": "Pod", "name": "p", "namespace": s.namespace()}, "reason": "R", "type": "Normal",
            "action": "A", "reportingController": "example.com/c", "reportingInstance": "i", "eventTime": "2024-01-01T00:00:00.000000Z"}),
        ),
    ] {
        let created = post(&s, path, body.clone()).await;
        assert_eq!(created.code, 201, "{}", created.body);
        let name = body["metadata"]["name"].as_str().unwrap();
        let r = delete(&s, &format!("{path}/{name}"), json!({"propagationPolicy": "Foreground"})).await;
        assert_eq!(r.code, 200);
        assert_eq!(get(&s, &format!("{path}/{name}")).await.code, 404, "{path}: the policy is ignored and the event goes");
    }
}

async fn per_kind_other_kinds_delete_in_background_by_default(s: Server) {
    let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let path = "/apis/apps/v1/namespaces/default/replicasets";
    assert_eq!(post(&s, path, rs).await.code, 201);
    assert_eq!(delete(&s, &format!("{path}/rs"), Value::Null).await.code, 200);
    assert_eq!(get(&s, &format!("{path}/rs")).await.code, 404);
}

// ---------- request_: request -> resulting object state ----------

async fn request_delete_of_a_missing_object_is_not_found(s: Server) {
    let r = delete(&s, &cm_path("nope"), Value::Null).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (404, Some("NotFound")));
    assert_eq!(r.body["message"], "configmaps \"nope\" not found");
}

async fn request_uid_precondition_mismatch_is_a_conflict(s: Server) {
    create_cm(&s, "x", &[]).await;
    let r = delete(&s, &cm_path("x"), json!({"preconditions": {"uid": "not-the-uid"}})).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (409, Some("Conflict")));
    assert!(r.body["message"].as_str().unwrap().contains("The object might have been deleted and then recreated"));
    assert_eq!(get(&s, &cm_path("x")).await.code, 200);
}

async fn request_resource_version_precondition_mismatch_is_a_conflict(s: Server) {
    create_cm(&s, "x", &[]).await;
    let r = delete(&s, &cm_path("x"), json!({"preconditions": {"resourceVersion": "1"}})).await;
    assert_eq!(r.code, 409);
    assert!(r.body["message"].as_str().unwrap().contains("The object might have been modified"));
}

async fn request_object_without_finalizers_is_removed_at_once(s: Server) {
    let created = create_cm(&s, "x", &[]).await;
    let r = delete(&s, &cm_path("x"), Value::Null).await;
    assert_eq!(r.code, 200);
    assert_eq!(r.body["kind"], "Status");
    assert_eq!(r.body["details"], json!({"name": "x", "kind": "configmaps", "uid": created["metadata"]["uid"]}));
    assert_eq!(get(&s, &cm_path("x")).await.code, 404);
}

async fn request_finalizers_keep_the_object_with_deletion_timestamp_and_zero_grace(s: Server) {
    let path = "/apis/apps/v1/namespaces/default/deployments";
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "finalizers": ["example.com/hold"]},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let created = post(&s, path, d).await.body;
    assert_eq!(created["metadata"]["generation"], 1);
    let r = delete(&s, &format!("{path}/d"), Value::Null).await;
    assert_eq!(r.code, 200);
    let m = &r.body["metadata"];
    assert!(m["deletionTimestamp"].is_string());
    assert_eq!(m["deletionGracePeriodSeconds"], 0);
    assert_eq!(m["generation"], 2, "the first deletion bumps generation");
    assert_eq!(strings(&m["finalizers"]), ["example.com/hold"]);
}

async fn request_foreground_adds_foreground_deletion_and_removing_it_deletes(s: Server) {
    create_cm(&s, "x", &[]).await;
    let r = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Foreground"})).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["foregroundDeletion"]);
    let r = patch(&s, &cm_path("x"), "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await;
    assert_eq!(r.code, 200);
    assert_eq!(get(&s, &cm_path("x")).await.code, 404);
}

async fn request_orphan_adds_the_orphan_finalizer(s: Server) {
    create_cm(&s, "x", &[]).await;
    let r = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Orphan"})).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["orphan"]);
    assert_eq!(r.body["metadata"]["deletionGracePeriodSeconds"], 0);
}

async fn request_background_strips_a_lone_gc_finalizer_and_deletes(s: Server) {
    create_cm(&s, "x", &["orphan"]).await;
    let r = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Background"})).await;
    assert_eq!(r.code, 200);
    assert_eq!(get(&s, &cm_path("x")).await.code, 404);
}

#[tokio::test]
async fn request_scheduled_pod_terminates_for_its_grace_period() {
    let clock = Clock::virtual_at(parse_time("2030-01-01T00:00:00Z").unwrap());
    let s = with_default_account(ApiServer::with_config(Config { clock: clock.clone(), ..Config::default() }));
    assert_eq!(post(&s, PODS, pod("p", Some("node-1"), &[])).await.code, 201);
    let r = delete(&s, &format!("{PODS}/p"), Value::Null).await;
    assert_eq!(r.code, 200);
    assert_eq!(r.body["metadata"]["deletionGracePeriodSeconds"], 30);
    assert_eq!(r.body["metadata"]["deletionTimestamp"], "2030-01-01T00:00:30Z");
    s.run_controllers();
    assert_eq!(get(&s, &format!("{PODS}/p")).await.code, 200, "still terminating before the grace period ends");
    clock.advance(Duration::seconds(30));
    s.run_controllers();
    assert_eq!(get(&s, &format!("{PODS}/p")).await.code, 404, "the node agent finishes the deletion");
}

async fn request_unscheduled_and_terminal_pods_go_at_once(s: Server) {
    assert_eq!(post(&s, PODS, pod("unscheduled", None, &[])).await.code, 201);
    let r = delete(&s, &format!("{PODS}/unscheduled"), Value::Null).await;
    assert_eq!((r.code, r.body["kind"].as_str()), (200, Some("Pod")), "pods return the deleted object");
    assert_eq!(get(&s, &format!("{PODS}/unscheduled")).await.code, 404);

    assert_eq!(post(&s, PODS, pod("done", Some("node-1"), &[])).await.code, 201);
    let status = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "done"}, "status": {"phase": "Succeeded"}});
    let current = get(&s, &format!("{PODS}/done")).await.body;
    let mut with_status = current.clone();
    with_status["status"] = status["status"].clone();
    assert_eq!(put(&s, &format!("{PODS}/done/status"), with_status).await.code, 200);
    delete(&s, &format!("{PODS}/done"), Value::Null).await;
    assert_eq!(get(&s, &format!("{PODS}/done")).await.code, 404);
}

async fn request_negative_grace_becomes_one_and_zero_grace_with_finalizers_is_kept(s: Server) {
    assert_eq!(post(&s, PODS, pod("neg", Some("n"), &[])).await.code, 201);
    let r = delete(&s, &format!("{PODS}/neg"), json!({"gracePeriodSeconds": -5})).await;
    assert_eq!(r.body["metadata"]["deletionGracePeriodSeconds"], 1);
    assert_eq!(post(&s, PODS, pod("fin", Some("n"), &["example.com/hold"])).await.code, 201);
    let r = delete(&s, &format!("{PODS}/fin"), json!({"gracePeriodSeconds": 0})).await;
    assert_eq!(r.body["metadata"]["deletionGracePeriodSeconds"], 0);
    assert_eq!(get(&s, &format!("{PODS}/fin")).await.code, 200);
}

async fn request_redelete_during_pending_graceful_deletion_changes_nothing(s: Server) {
    assert_eq!(post(&s, PODS, pod("p", Some("n"), &[])).await.code, 201);
    let first = delete(&s, &format!("{PODS}/p"), Value::Null).await.body;
    let again = delete(&s, &format!("{PODS}/p"), json!({"propagationPolicy": "Foreground"})).await;
    assert_eq!(again.code, 200);
    assert_eq!(again.body["metadata"]["resourceVersion"], first["metadata"]["resourceVersion"]);
    assert!(again.body["metadata"]["finalizers"].is_null(), "finalizers are not recomputed while graceful deletion is pending");
}

#[tokio::test]
async fn request_redelete_with_shorter_grace_moves_the_timestamp_and_recomputes_finalizers() {
    let clock = Clock::virtual_at(parse_time("2030-01-01T00:00:00Z").unwrap());
    let s = with_default_account(ApiServer::with_config(Config { clock, ..Config::default() }));
    assert_eq!(post(&s, PODS, pod("p", Some("n"), &["example.com/hold"])).await.code, 201);
    delete(&s, &format!("{PODS}/p"), Value::Null).await;
    let r = delete(&s, &format!("{PODS}/p"), json!({"gracePeriodSeconds": 10, "propagationPolicy": "Foreground"})).await;
    assert_eq!(r.body["metadata"]["deletionTimestamp"], "2030-01-01T00:00:10Z");
    assert_eq!(r.body["metadata"]["deletionGracePeriodSeconds"], 10);
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["example.com/hold", "foregroundDeletion"]);
}

#[tokio::test]
async fn request_redelete_of_an_object_being_deleted_can_switch_policy() {
    let clock = Clock::virtual_at(parse_time("2030-01-01T00:00:00Z").unwrap());
    let s = with_default_account(ApiServer::with_config(Config { clock: clock.clone(), ..Config::default() }));
    create_cm(&s, "x", &["example.com/hold"]).await;
    let first = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Orphan"})).await.body;
    assert_eq!(strings(&first["metadata"]["finalizers"]), ["example.com/hold", "orphan"]);
    clock.advance(Duration::seconds(5));
    let second = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Foreground"})).await.body;
    assert_eq!(strings(&second["metadata"]["finalizers"]), ["example.com/hold", "foregroundDeletion"]);
    assert_eq!(second["metadata"]["deletionTimestamp"], first["metadata"]["deletionTimestamp"], "the earlier timestamp is kept");
    let third = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Background"})).await.body;
    assert_eq!(strings(&third["metadata"]["finalizers"]), ["example.com/hold"]);
}

async fn request_update_removing_the_last_finalizer_deletes(s: Server) {
    create_cm(&s, "x", &["example.com/hold"]).await;
    delete(&s, &cm_path("x"), Value::Null).await;
    let mut current = get(&s, &cm_path("x")).await.body;
    current["metadata"]["finalizers"] = json!([]);
    let r = put(&s, &cm_path("x"), current).await;
    assert_eq!(r.code, 200);
    assert_eq!(get(&s, &cm_path("x")).await.code, 404);

    // A pod still in its grace period is not deleted by the update.
    assert_eq!(post(&s, PODS, pod("p", Some("n"), &["example.com/hold"])).await.code, 201);
    delete(&s, &format!("{PODS}/p"), Value::Null).await;
    let r = patch(&s, &format!("{PODS}/p"), "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await;
    assert_eq!(r.code, 200);
    assert_eq!(get(&s, &format!("{PODS}/p")).await.code, 200);
}

async fn request_no_new_finalizers_while_deleting(s: Server) {
    create_cm(&s, "x", &["example.com/hold"]).await;
    delete(&s, &cm_path("x"), Value::Null).await;
    let r = patch(
        &s,
        &cm_path("x"),
        "application/merge-patch+json",
        json!({"metadata": {"finalizers": ["example.com/hold", "example.com/new"]}}),
    )
    .await;
    assert_eq!(r.code, 422);
    assert!(r.body["message"].as_str().unwrap().contains("no new finalizers can be added if the object is being deleted"), "{}", r.body);
    // The DELETE path may still add GC finalizers.
    let r = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Orphan"})).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["example.com/hold", "orphan"]);
}

async fn request_deletion_timestamp_cannot_be_set_changed_or_cleared_by_update(s: Server) {
    create_cm(&s, "x", &["example.com/hold"]).await;
    let r =
        patch(&s, &cm_path("x"), "application/merge-patch+json", json!({"metadata": {"deletionTimestamp": "2030-01-01T00:00:00Z"}})).await;
    assert_eq!(r.code, 422, "setting a deletionTimestamp on a live object: {}", r.body);
    assert!(r.body["message"].as_str().unwrap().contains("field is immutable"));
    let deleted = delete(&s, &cm_path("x"), Value::Null).await.body;
    // Upstream rest.BeforeUpdate carries the stored timestamp over: a change or a clear is ignored.
    let r = patch(&s, &cm_path("x"), "application/merge-patch+json", json!({"metadata": {"deletionTimestamp": null}})).await;
    assert_eq!(r.code, 200);
    assert_eq!(r.body["metadata"]["deletionTimestamp"], deleted["metadata"]["deletionTimestamp"]);
    let r = patch(&s, &cm_path("x"), "application/merge-patch+json", json!({"metadata": {"deletionGracePeriodSeconds": 5}})).await;
    assert_eq!(r.code, 422, "changing the grace period is refused");
}

async fn request_both_gc_finalizers_are_refused(s: Server) {
    let r = post(&s, &cm_path(""), configmap("x", &["orphan", "foregroundDeletion"])).await;
    assert_eq!(r.code, 422);
    assert!(r.body["message"].as_str().unwrap().contains("finalizer orphan and foregroundDeletion cannot be both set"));
    create_cm(&s, "y", &["orphan"]).await;
    let r = patch(&s, &cm_path("y"), "application/merge-patch+json", json!({"metadata": {"finalizers": ["orphan", "foregroundDeletion"]}}))
        .await;
    assert_eq!(r.code, 422);
}

async fn request_finalizer_names_must_be_qualified_names(s: Server) {
    create_cm(&s, "ok", &["orphan", "x/y", "example.com/hold"]).await;
    for bad in ["has space", "-leading", "a/b/c", "/empty-prefix"] {
        let r = post(&s, &cm_path(""), configmap("bad", &[bad])).await;
        assert_eq!(r.code, 422, "{bad}: {}", r.body);
    }
}

async fn request_creating_over_a_terminating_object_is_already_exists(s: Server) {
    create_cm(&s, "x", &["example.com/hold"]).await;
    delete(&s, &cm_path("x"), Value::Null).await;
    let r = post(&s, &cm_path(""), configmap("x", &[])).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (409, Some("AlreadyExists")));
    assert!(r.body["message"].as_str().unwrap().starts_with("object is being deleted: "));
}

async fn request_dry_run_persists_nothing(s: Server) {
    create_cm(&s, "kept", &["example.com/hold"]).await;
    let r = delete(&s, &cm_path("kept"), json!({"dryRun": ["All"], "propagationPolicy": "Foreground"})).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["example.com/hold", "foregroundDeletion"], "the would-be object");
    let stored = get(&s, &cm_path("kept")).await.body;
    assert!(stored["metadata"]["deletionTimestamp"].is_null());
    create_cm(&s, "plain", &[]).await;
    assert_eq!(delete(&s, &cm_path("plain"), json!({"dryRun": ["All"]})).await.code, 200);
    assert_eq!(get(&s, &cm_path("plain")).await.code, 200);
    assert_eq!(delete(&s, &cm_path("plain"), json!({"dryRun": ["All"], "preconditions": {"uid": "x"}})).await.code, 409);
    assert_eq!(delete(&s, &cm_path("missing"), json!({"dryRun": ["All"]})).await.code, 404);
}

async fn request_unsupported_policy_ignores_options_but_honours_user_finalizers(s: Server) {
    let ev = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "finalizers": ["example.com/hold"]},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": s.namespace()}});
    assert_eq!(post(&s, "/api/v1/namespaces/default/events", ev).await.code, 201);
    let r = delete(&s, "/api/v1/namespaces/default/events/e", json!({"propagationPolicy": "Orphan"})).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["example.com/hold"]);
}

#[tokio::test]
async fn request_with_garbage_collection_disabled_no_gc_finalizers_are_added() {
    let s = ApiServer::with_config(Config { garbage_collection: false, ..Config::default() });
    create_cm(&s, "x", &["example.com/hold"]).await;
    let r = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Foreground"})).await;
    assert_eq!(strings(&r.body["metadata"]["finalizers"]), ["example.com/hold"]);
    create_cm(&s, "y", &[]).await;
    delete(&s, &cm_path("y"), json!({"propagationPolicy": "Orphan"})).await;
    assert_eq!(get(&s, &cm_path("y")).await.code, 404);
}

/// On a control plane with no controller manager nobody empties a deleted namespace: it stays
/// `Terminating` (the fake with `Config::namespace_controller` off, as `kubegc fuzz
/// --differential` runs it).
#[tokio::test]
async fn request_without_the_namespace_controller_a_deleted_namespace_stays_terminating() {
    let s = ApiServer::with_config(Config {
        namespace_controller: false,
        controller_interval: std::time::Duration::from_millis(5),
        ..Config::default()
    });
    assert_eq!(post(&s, "/api/v1/namespaces", json!({"metadata": {"name": "ns1"}})).await.code, 201);
    let deleting = delete(&s, "/api/v1/namespaces/ns1", Value::Null).await;
    assert_eq!(deleting.code, 200);
    // The namespace registry's delete sets no grace period (pkg/registry/core/namespace/storage).
    assert!(deleting.body["metadata"].get("deletionGracePeriodSeconds").is_none(), "{}", deleting.body);
    s.run_controllers();
    let r = get(&s, "/api/v1/namespaces/ns1").await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!(r.body["status"]["phase"], "Terminating");
    assert_eq!(strings(&r.body["spec"]["finalizers"]), ["kubernetes"]);
    // Finalizing is an update through a copy of the namespace store, which removes a deleted
    // namespace left with no finalizer in its metadata or its spec, its delete having set no
    // grace period (`NewREST` and `ShouldDeleteNamespaceDuringUpdate` there; the generic
    // `ShouldDeleteDuringUpdate`, k8s.io/apiserver pkg/registry/generic/registry/store.go).
    let mut finalized = r.body.clone();
    finalized["spec"]["finalizers"] = json!([]);
    assert_eq!(put(&s, "/api/v1/namespaces/ns1/finalize", finalized).await.code, 200);
    assert_eq!(get(&s, "/api/v1/namespaces/ns1").await.code, 404);
}

async fn request_http_delete_without_options_is_not_a_nil_options_delete(s: Server) {
    assert_eq!(post(&s, PODS, pod("p", Some("n"), &[])).await.code, 201);
    let r = delete(&s, &format!("{PODS}/p"), Value::Null).await;
    assert_eq!(r.body["metadata"]["deletionGracePeriodSeconds"], 30, "grace comes from the pod spec, not 0");
}

/// As the real API server has it (v1.37.2, seen by the specification on the upstream
/// control plane): the store advances a resourceVersion precondition past its own update only
/// when that update wrote something, as a graceful deletion does (an unscheduled pod goes at
/// once). An update that only looks at finalizers and decides on removal writes nothing, and the
/// precondition is then checked against an empty resourceVersion: Conflict, object unchanged.
async fn request_resource_version_precondition_survives_only_a_written_update(s: Server) {
    let created = post(&s, PODS, pod("p", None, &[])).await.body;
    let rv = created["metadata"]["resourceVersion"].clone();
    let r = delete(&s, &format!("{PODS}/p"), json!({"preconditions": {"resourceVersion": rv}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!(get(&s, &format!("{PODS}/p")).await.code, 404);

    create_cm(&s, "x", &[]).await;
    let kept = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Orphan"})).await.body;
    let rv = kept["metadata"]["resourceVersion"].clone();
    let r = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Background", "preconditions": {"resourceVersion": rv}})).await;
    assert_eq!(r.code, 409, "{}", r.body);
    let message = r.body["message"].as_str().unwrap();
    assert!(message.contains("Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: "), "{message}");
    let unchanged = get(&s, &cm_path("x")).await.body;
    assert_eq!(unchanged["metadata"]["finalizers"], json!(["orphan"]));
    assert_eq!(unchanged["metadata"]["resourceVersion"], rv);
}

async fn request_delete_racing_with_updates_is_not_refused_for_a_conflict(s: Server) {
    create_cm(&s, "x", &["example.com/hold"]).await;
    let writers: Vec<_> = (0..8)
        .map(|i| {
            let s = s.clone();
            tokio::spawn(async move {
                patch(&s, &cm_path("x"), "application/merge-patch+json", json!({"data": {"n": i.to_string()}})).await.code
            })
        })
        .collect();
    let r = delete(&s, &cm_path("x"), json!({"propagationPolicy": "Foreground"})).await;
    assert_eq!(r.code, 200);
    for w in writers {
        assert_eq!(w.await.unwrap(), 200);
    }
    assert!(get(&s, &cm_path("x")).await.body["metadata"]["deletionTimestamp"].is_string());
}

async fn request_deletecollection_deletes_each_selected_item_and_returns_them_as_listed(s: Server) {
    for (name, fins, label) in [("a", vec![], "yes"), ("b", vec!["example.com/hold"], "yes"), ("c", vec![], "no")] {
        let mut cm = configmap(name, &fins);
        cm["metadata"]["labels"] = json!({"pick": label});
        assert_eq!(post(&s, &cm_path(""), cm).await.code, 201);
    }
    let r = delete(&s, &format!("{}?labelSelector=pick%3Dyes", cm_path("")), json!({"propagationPolicy": "Background"})).await;
    assert_eq!(r.code, 200);
    assert_eq!(r.body["kind"], "ConfigMapList");
    let listed: Vec<&Value> = r.body["items"].as_array().unwrap().iter().collect();
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().all(|i| i["metadata"]["deletionTimestamp"].is_null()), "items as listed, before deletion");
    assert_eq!(get(&s, &cm_path("a")).await.code, 404);
    let b = get(&s, &cm_path("b")).await.body;
    assert!(b["metadata"]["deletionTimestamp"].is_string(), "b is terminating, held by its finalizer");
    assert_eq!(get(&s, &cm_path("c")).await.code, 200);
}

// ---------- validation_: ownerReference validation ----------

fn owned_cm(name: &str, refs: Value) -> Value {
    let mut cm = configmap(name, &[]);
    cm["metadata"]["ownerReferences"] = refs;
    cm
}

fn owner_ref(api_version: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid})
}

async fn refused(s: &Server, refs: Value, needle: &str) {
    let r = post(s, &cm_path(""), owned_cm("x", refs)).await;
    assert_eq!(r.code, 422, "{}", r.body);
    assert!(r.body["message"].as_str().unwrap().contains(needle), "{needle:?} not in {}", r.body["message"]);
}

async fn validation_owner_reference_needs_a_version(s: Server) {
    refused(&s, json!([owner_ref("", "ConfigMap", "o", "u")]), "ownerReferences[0].apiVersion: Required value: must not be empty").await;
    let unparsable = "ownerReferences[0].apiVersion: Invalid value: \"apps/\": must be <group>/<version> or <version>";
    refused(&s, json!([owner_ref("apps/", "ReplicaSet", "o", "u")]), unparsable).await;
}

async fn validation_owner_reference_needs_kind_name_and_uid(s: Server) {
    refused(&s, json!([owner_ref("v1", "", "o", "u")]), "ownerReferences[0].kind: Required value: must not be empty").await;
    refused(&s, json!([owner_ref("v1", "ConfigMap", "", "u")]), "ownerReferences[0].name: Required value: must not be empty").await;
    refused(&s, json!([owner_ref("v1", "ConfigMap", "o", "")]), "ownerReferences[0].uid: Required value: must not be empty").await;
}

async fn validation_v1_event_cannot_be_an_owner(s: Server) {
    refused(&s, json!([owner_ref("v1", "Event", "e", "u")]), "is disallowed from being an owner").await;
    // The ban names core v1 Event only.
    let r = post(&s, &cm_path(""), owned_cm("ok", json!([owner_ref("events.k8s.io/v1", "Event", "e", "u")]))).await;
    assert_eq!(r.code, 201);
}

async fn validation_at_most_one_controller_reference(s: Server) {
    let mut a = owner_ref("apps/v1", "ReplicaSet", "a", "1");
    let mut b = owner_ref("apps/v1", "ReplicaSet", "b", "2");
    a["controller"] = json!(true);
    b["controller"] = json!(true);
    refused(
        &s,
        json!([a, b]),
        "Only one reference can have Controller set to true. Found \"true\" in references for ReplicaSet/a and ReplicaSet/b",
    )
    .await;
}

async fn validation_existence_kind_and_namespace_of_owners_are_not_validated(s: Server) {
    let r = post(&s, &cm_path(""), owned_cm("x", json!([owner_ref("third.party.io/v9", "Imaginary", "ghost", "no-such-uid")]))).await;
    assert_eq!(r.code, 201, "{}", r.body);
}

async fn validation_owner_references_are_validated_on_update_too(s: Server) {
    create_cm(&s, "x", &[]).await;
    let r = patch(
        &s,
        &cm_path("x"),
        "application/merge-patch+json",
        json!({"metadata": {"ownerReferences": [owner_ref("v1", "ConfigMap", "o", "")]}}),
    )
    .await;
    assert_eq!(r.code, 422);
    assert!(get(&s, &cm_path("x")).await.body["metadata"]["ownerReferences"].is_null(), "the stored object is unchanged");
}

async fn request_namespace_deletion_terminates_then_removes_when_empty(s: Server) {
    assert_eq!(post(&s, "/api/v1/namespaces", json!({"metadata": {"name": "ns1"}})).await.code, 201);
    let in_ns = "/api/v1/namespaces/ns1/configmaps";
    assert_eq!(post(&s, in_ns, configmap("c", &[])).await.code, 201);
    let r = delete(&s, "/api/v1/namespaces/ns1", json!({"propagationPolicy": "Background"})).await;
    assert_eq!(r.code, 200);
    assert_eq!(r.body["status"]["phase"], "Terminating");
    assert_eq!(strings(&r.body["spec"]["finalizers"]), ["kubernetes"]);
    assert!(r.body["metadata"]["deletionTimestamp"].is_string());
    let refused = post(&s, in_ns, configmap("late", &[])).await;
    assert_eq!(refused.code, 403, "no new content in a terminating namespace");
    // The namespace controller (simulated on the fake) empties it, then removes it.
    until_gone(&s, "/api/v1/namespaces/ns1").await;
    assert_eq!(get(&s, &format!("{in_ns}/c")).await.code, 404);
}

/// Polls until a GET of `path` answers 404 (at most a minute: the upstream namespace
/// controller takes seconds).
async fn until_gone(s: &Server, path: &str) {
    let start = std::time::Instant::now();
    while get(s, path).await.code != 404 {
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "{path} is still there after a minute");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// A status write of a built-in kind keeps the stored spec but writes the request's metadata:
/// an annotation, and a finalizer that then holds a deletion. A pod's owner references are the
/// exception (upstream pkg/registry/core/pod/strategy.go: old kubelets corrupted them).
async fn status_writes_change_metadata_but_not_spec_nor_a_pod_s_owner_references(s: Server) {
    assert_eq!(post(&s, RCS, rc("st", &[])).await.code, 201);
    let change = json!({"metadata": {"annotations": {"a": "b"}, "finalizers": ["example.com/hold"]},
        "spec": {"replicas": 5}, "status": {"replicas": 0}});
    let r = patch(&s, &format!("{RCS}/st/status"), "application/merge-patch+json", change).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let stored = get(&s, &format!("{RCS}/st")).await.body;
    assert_eq!(stored["metadata"]["annotations"]["a"], "b");
    assert_eq!(strings(&stored["metadata"]["finalizers"]), ["example.com/hold"]);
    assert_eq!(stored["spec"]["replicas"], 0);
    delete(&s, &format!("{RCS}/st"), Value::Null).await;
    assert_eq!(get(&s, &format!("{RCS}/st")).await.code, 200, "the finalizer written through status holds the deletion");

    assert_eq!(post(&s, PODS, pod("owned", None, &[])).await.code, 201);
    let owner = json!([{"apiVersion": "v1", "kind": "ReplicationController", "name": "st", "uid": stored["metadata"]["uid"]}]);
    let change = json!({"metadata": {"annotations": {"a": "b"}, "ownerReferences": owner}});
    assert_eq!(patch(&s, &format!("{PODS}/owned/status"), "application/merge-patch+json", change).await.code, 200);
    let pod = get(&s, &format!("{PODS}/owned")).await.body;
    assert_eq!(pod["metadata"]["annotations"]["a"], "b");
    assert!(pod["metadata"]["ownerReferences"].is_null(), "{pod}");
}
