//! Requests the API server fuzzer (`kubegc fuzz`) found answered unlike upstream, each named
//! with the seed that found it; every one is checked against the real API server too.

mod support;

use axum::body::Body;
use http::{Method, Request};
use kubegc::Clock;
use kubegc::apiserver::{ApiServer, Config};
use serde_json::{Value, json};
use support::*;

on_both_servers!(
    across_namespaces_only_list_and_watch_are_served,
    unroutable_paths_under_served_groups_are_a_not_found_status,
    a_path_with_a_doubled_leading_slash_is_the_mux_plain_not_found,
    discovery_paths_refuse_other_methods_and_the_mux_serves_any,
    names_that_cannot_be_path_segments_are_bad_requests,
    routes_are_found_before_the_answer_is_negotiated,
    a_patch_that_is_not_json_is_refused_before_the_object_is_read,
    a_put_without_a_name_is_refused_and_null_is_an_empty_object,
    answers_and_errors_are_protobuf_when_asked,
    a_write_is_done_before_its_answer_is_refused,
    an_empty_list_sent_for_a_field_without_omitempty_is_managed,
    a_definition_deleted_with_its_collection_is_not_first_marked,
    ephemeral_containers_are_written_through_their_subresource,
    refusals_name_what_the_route_serves_and_quote_names_as_go_does,
    a_binding_assigns_a_pod_to_a_node_once,
    openapi_documents_are_the_pinned_releases_named_by_their_hash,
    a_patch_whose_result_does_not_decode_is_invalid_in_the_patch_handler_s_words,
    discovery_is_negotiated_as_other_answers_are,
    discovery_documents_are_protobuf_when_asked,
    a_watch_streams_protobuf_frames_when_asked,
    a_namespace_of_dots_is_a_key_storage_refuses,
    lists_answer_as_their_storage_builds_them,
    custom_resource_paths_the_handler_cannot_serve_are_the_mux_plain_not_found,
    ephemeral_containers_have_no_table,
    definitions_are_tabled_by_their_own_convertor,
    bodies_of_a_type_go_cannot_parse_are_unsupported,
    the_root_lists_the_paths_and_groups_come_in_priority_order,
    lists_continue_and_read_revisions_as_the_storage_does,
    custom_resources_are_served_by_the_verb_their_request_names,
    a_kind_the_scheme_does_not_register_is_named_as_such,
    bodies_nest_as_deep_as_go_decodes_them,
    a_body_of_another_kind_is_decoded_as_that_kind_first,
    a_group_without_a_version_is_no_version,
    yaml_the_reader_refuses_and_patches_of_no_object_are_refused_in_go_words,
    a_list_an_apply_empties_stays_its_creator_s,
    nulls_a_custom_resource_s_schema_does_not_allow_are_dropped,
    repeated_owner_references_are_dropped_with_a_warning_and_refused_in_an_apply,
    timestamps_decode_as_go_parses_them,
    micro_times_decode_with_six_digits_of_fraction,
    a_namespace_s_finalize_writes_all_but_its_status,
    a_pod_s_log_is_only_read,
    a_json_patch_of_null_changes_nothing,
    a_json_patch_operation_is_typed_by_the_handler_and_understood_as_it_is_applied,
    names_that_are_not_utf8_are_quoted_by_their_bytes,
    kube_system_holds_the_server_s_own_config_maps,
    kube_system_holds_the_server_s_identity_lease,
    decoding_errors_name_go_s_named_types,
    events_served_as_events_k8s_io_leave_out_what_is_empty,
    core_events_finalizers_meet_only_the_generic_rules,
    a_yaml_body_that_is_no_object_is_refused_as_json_is,
    a_custom_resource_s_metadata_decodes_as_object_meta,
    label_selectors_parse_as_upstream_s_lexer_reads_them,
    paths_below_version_are_a_not_found_status,
    an_apply_s_values_of_the_wrong_type_are_refused_before_its_name,
    an_apply_without_a_name_names_the_url_s,
    a_put_that_creates_decodes_and_checks_the_name_first,
    an_update_s_finalizer_errors_come_in_the_order_upstream_checks_them,
    a_patched_scale_is_decoded_as_the_patch_handler_decodes_it,
    yaml_syntax_errors_are_go_yaml_s_words_and_lines,
    ownership_through_the_scale_is_passed_as_the_scale_handler_passes_it,
    a_daemon_set_s_metadata_alone_has_no_template_generation,
    a_collection_s_delete_asking_to_watch_deletes,
    a_strategic_merge_patch_of_null_changes_nothing,
    a_job_keeps_the_selector_it_was_given,
    a_create_s_resource_version_counts_only_as_a_number,
    a_deleted_definition_s_condition_follows_its_finalizer,
    a_deleted_namespace_goes_with_the_update_that_removes_its_last_finalizer,
    a_get_at_a_version_that_is_no_number_is_an_unexpected_error,
    a_field_selector_term_of_nothing_selects_everything,
    version_consumes_json_alone_and_watches_stream_no_yaml,
    a_custom_resource_is_not_created_while_its_definition_is_terminating,
    a_custom_resource_patch_s_type_is_read_before_its_name,
    a_job_s_unknown_field_label_is_named_for_jobs,
    admission_names_what_the_request_named,
    paths_past_a_subresource_reach_only_custom_resources,
    a_built_in_subresource_has_no_watch_route,
    a_custom_resource_answers_head_as_a_get,
    the_core_group_lists_its_resources_as_upstream_does,
    a_put_compares_names_before_the_key_refuses_one,
    yaml_nests_as_deep_as_go_yaml_reads_it,
    a_json_patch_is_decoded_as_its_field_validation_asks,
    a_lease_s_finalizers_are_any_qualified_names,
    a_custom_resource_s_metadata_decodes_before_its_kind_is_checked,
    an_apply_checks_the_namespace_before_the_name,
    a_custom_resource_s_status_write_without_status_removes_it,
    an_ephemeral_containers_write_owns_every_field_it_sent,
    an_apply_s_managed_fields_of_the_wrong_type_fail_its_typing,
    a_collection_delete_reads_its_selectors_then_lists_every_broken_option,
    a_scale_put_names_its_object,
    a_continue_token_is_read_before_the_key,
    a_custom_resource_s_watch_path_watches_one_object_of_every_namespace,
    an_apply_s_timestamps_are_typed_as_any_scalar,
    a_put_s_uid_is_a_precondition_on_what_is_stored,
    owner_references_are_validated_before_finalizers,
    custom_resources_list_their_metadata_update_errors_three_times,
    a_namespace_s_phase_follows_its_deletion,
    an_update_that_ends_a_deletion_answers_with_the_request_s_object,
    a_custom_resource_s_body_names_its_kind_and_version,
    events_are_validated_by_the_rules_of_the_api_they_are_written_through,
    an_apply_to_a_subresource_finds_its_object_before_it_reads_the_configuration,
    a_service_s_status_put_creates_it_through_the_status_store,
    a_set_s_items_are_scalars_and_a_volume_s_phase_change_is_timed,
    the_kubernetes_service_of_default_sends_to_the_api_server,
    a_volume_s_spec_needs_access_modes_a_storage_capacity_and_one_source,
    a_claim_s_spec_needs_access_modes_and_a_storage_request_and_changes_little,
    a_volume_s_source_and_mode_are_immutable,
    an_event_written_through_events_k8s_io_changes_only_its_series,
    discovery_routes_consume_the_api_s_media_types,
    paths_of_the_empty_group_are_the_mux_s,
    an_openapi_document_asked_for_in_no_media_range_is_empty,
    managers_at_a_version_the_object_does_not_convert_to_are_dropped,
    an_unknown_field_holding_null_is_unknown,
    a_strategic_merge_patch_s_type_meta_is_ignored,
    a_definition_is_validated_in_apiextensions_order_and_words,
    a_watch_from_now_that_allows_bookmarks_ends_its_initial_events_with_one,
    a_delete_s_uid_and_resource_version_parameters_are_preconditions,
    a_finalized_namespace_is_deleted_by_the_generic_store,
    a_deletion_timestamp_sent_in_an_update_is_its_writer_s,
    a_removed_custom_resource_is_answered_with_a_status,
    a_definition_deleted_again_keeps_its_mark_while_the_finalizer_waits,
    a_custom_resource_s_patched_metadata_is_decoded_by_the_patch_handler,
    a_custom_resource_has_no_list_to_give_as_metadata,
    an_apply_through_the_scale_finds_its_object_first,
    an_applied_time_that_does_not_convert_fails_the_field_manager,
    a_collection_delete_lists_in_pages_whose_limit_makes_a_version_exact,
    a_replication_controller_needs_a_selector_and_a_template_it_matches,
    a_bookmark_carries_an_empty_object_as_go_encodes_it,
    a_job_s_pods_restart_on_failure_or_never_and_a_cron_job_needs_a_schedule,
    a_cron_job_s_schedule_is_read_as_the_cron_parser_reads_it,
    a_full_page_continues_while_any_object_follows_selected_or_not,
    an_ignored_merge_patch_that_is_a_list_becomes_the_document,
    a_generate_name_is_read_as_a_prefix_of_the_names_of_its_kind,
    a_strategic_merge_of_lists_of_two_types_is_refused_before_it_is_applied,
    a_discovery_route_refuses_what_it_cannot_produce_before_its_handler,
    json_is_indented_when_asked_and_the_version_always,
);

/// Seed 7: `DELETE /api/v1/configmaps` removed every ConfigMap of every namespace.
async fn across_namespaces_only_list_and_watch_are_served(server: Server) {
    create_cm(&server, "kept", &[]).await;
    let r = delete(&server, "/api/v1/configmaps", json!({"kind": "DeleteOptions", "apiVersion": "v1"})).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{}", r.body);
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": server.namespace()}});
    let r = post(&server, "/api/v1/configmaps", body).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{}", r.body);
    assert_eq!(get(&server, &cm_path("kept")).await.code, 200);
    assert_eq!(get(&server, "/api/v1/configmaps").await.code, 200);
}

/// Seeds 4, 6 and 9: paths under a served group that name no resource got the mux's plain text.
async fn unroutable_paths_under_served_groups_are_a_not_found_status(server: Server) {
    for path in [
        "/apis/batch/v1//jobs",
        "/apis/apps/v1/namespaces/default/deployments/b/./ephemeralcontainers",
        "/apis/apps/v2/namespaces/default/deployments/c/status/binding",
    ] {
        let r = get(&server, path).await;
        assert_eq!((r.code, r.body["kind"].as_str(), r.body["reason"].as_str()), (404, Some("Status"), Some("NotFound")), "{path}");
    }
}

/// Found beside seed 1: `//api/v1/namespaces` was served as `/api/v1/namespaces`.
async fn a_path_with_a_doubled_leading_slash_is_the_mux_plain_not_found(server: Server) {
    let r = get(&server, "//api/v1/namespaces").await;
    assert_eq!((r.code, r.body.is_null()), (404, true), "{}", r.body);
}

/// Seeds 1, 2, 3, 5 and 11: other methods on discovery, OpenAPI and health paths got an empty
/// 405, or a 200 for a HEAD the REST router does not route.
async fn discovery_paths_refuse_other_methods_and_the_mux_serves_any(server: Server) {
    for (method, path) in
        [(Method::POST, "/version"), (Method::DELETE, "/api"), (Method::PUT, "/api/v1"), (Method::DELETE, "/apis/apps/v1")]
    {
        let r = raw(&server, method.clone(), path, None, Body::empty()).await;
        assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{method} {path}");
    }
    for (method, path) in
        [(Method::POST, "/apis"), (Method::POST, "/apis/apps"), (Method::DELETE, "/openapi/v3"), (Method::POST, "/healthz")]
    {
        assert_eq!(raw(&server, method.clone(), path, None, Body::empty()).await.code, 200, "{method} {path}");
    }
    // Seed 11: HEAD too, which has no body to read a reason from.
    for path in ["/version", "/api", "/api/v1/", "/apis/apps/v1"] {
        assert_eq!(raw(&server, Method::HEAD, path, None, Body::empty()).await.code, 405, "HEAD {path}");
    }
    for path in ["/apis", "/apis/apps"] {
        assert_eq!(raw(&server, Method::HEAD, path, None, Body::empty()).await.code, 200, "HEAD {path}");
    }
}

/// Seed 1: `GET .../replicationcontrollers/.` was 404; the registry's key refuses such a name.
async fn names_that_cannot_be_path_segments_are_bad_requests(server: Server) {
    for (method, name, why) in [(Method::GET, "..", "may not be '..'"), (Method::DELETE, ".", "may not be '.'")] {
        let r = raw(&server, method.clone(), &cm_path(name), Some("application/json"), Body::empty()).await;
        let message = format!("Name parameter invalid: \"{name}\": {why}");
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message.as_str())), "{method} {name}: {}", r.body);
    }
}

/// Seed 1: an Accept header the fake cannot produce was refused (406) before the path and the
/// method had found a route; the REST router answers 404 and 405 first.
async fn routes_are_found_before_the_answer_is_negotiated(server: Server) {
    let unproducible = "application/x-unknown";
    for (method, path, code) in [
        (Method::POST, cm_path("x"), 405),
        (Method::HEAD, cm_path("x"), 405),
        (Method::GET, format!("{}/nosuch", cm_path("x")), 404),
        (Method::GET, "/api/v1/namespaces/default/persistentvolumes".to_string(), 404),
    ] {
        let request = http::Request::builder().method(method.clone()).uri(&path).header("accept", unproducible);
        let r = server.send(request.body(Body::empty()).unwrap()).await;
        assert_eq!(r.code, code, "{method} {path}");
    }
}

/// Seed 1: a merge patch in YAML was read only after the object, with serde's words.
async fn a_patch_that_is_not_json_is_refused_before_the_object_is_read(server: Server) {
    let r = raw(&server, Method::PATCH, &cm_path("absent"), Some("application/merge-patch+json"), "kind: ConfigMap\n").await;
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some("invalid JSON patch")), "{}", r.body);
}

/// Seed 1: a PUT of `null` was "unrecognized", and one without a name took the URL's.
async fn a_put_without_a_name_is_refused_and_null_is_an_empty_object(server: Server) {
    create_cm(&server, "named", &[]).await;
    let undeterminable = "the name of the object (named based on URL) was undeterminable: name must be provided";
    for body in ["null", r#"{"apiVersion":"v1","kind":"ConfigMap","data":{"k":"changed"}}"#] {
        let r = raw(&server, Method::PUT, &cm_path("named"), Some("application/json"), body).await;
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some(undeterminable)), "{body}: {}", r.body);
    }
    assert_eq!(get(&server, &cm_path("named")).await.body["data"]["k"], "v", "the object is unchanged");
}

/// Seed 9 (a Pod whose `spec` is an array), seed 243 (a Job whose `spec` is a number) and seed
/// 1494 (a Namespace whose `spec` is a number) made the server panic while it defaulted them. Upstream refuses them with 400 (they do not
/// decode), and so does the fake.
#[tokio::test]
async fn a_spec_of_the_wrong_type_does_not_panic_the_server() {
    let server = Server::fake();
    for (path, object) in [
        ("/api/v1/namespaces/default/pods", json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": ["x"]})),
        ("/apis/batch/v1/namespaces/default/jobs", json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": -1})),
        ("/api/v1/namespaces", json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}, "spec": 1e308})),
    ] {
        let r = post(&server, path, object).await;
        assert_eq!(r.code, 400, "{path}: {}", r.body);
    }
    let r = get(&server, "/api/v1/namespaces/default/configmaps").await;
    assert_eq!(r.code, 200, "the server still serves");
}

/// Sends `body` (if any) with an `Accept` header.
async fn accepting(server: &Server, method: Method, uri: &str, accept: &str, body: Option<Value>) -> Raw {
    accepting_as(server, method, uri, accept, "application/json", body).await
}

/// [`accepting`] with a body of `content_type`.
async fn accepting_as(server: &Server, method: Method, uri: &str, accept: &str, content_type: &str, body: Option<Value>) -> Raw {
    let request = http::Request::builder().method(method).uri(uri).header("accept", accept).header("content-type", content_type);
    let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
    server.send(request.body(body).unwrap()).await
}

/// Seed 1: a client asking for protobuf (as client-go's typed clients do) got 406, though the
/// write it asked for was made upstream; answers and errors are protobuf, read back here by
/// k8s-pb's types.
async fn answers_and_errors_are_protobuf_when_asked(server: Server) {
    const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
    let r = accepting(&server, Method::POST, "/api/v1/namespaces/default/configmaps", PROTOBUF, Some(configmap("pb", &[]))).await;
    assert_eq!((r.code, r.body["kind"].as_str(), r.body["data"]["k"].as_str()), (201, Some("ConfigMap"), Some("v")), "{}", r.body);
    assert_eq!(r.body["metadata"]["name"], "pb");
    let r = accepting(&server, Method::GET, "/api/v1/namespaces/default/configmaps", PROTOBUF, None).await;
    assert_eq!((r.code, r.body["kind"].as_str()), (200, Some("ConfigMapList")), "{}", r.body);
    let names: Vec<&str> = r.body["items"].as_array().unwrap().iter().filter_map(|i| i["metadata"]["name"].as_str()).collect();
    assert!(names.contains(&"pb"), "{names:?}");
    let r = accepting(&server, Method::GET, &cm_path("missing"), PROTOBUF, None).await;
    assert_eq!((r.code, r.body["kind"].as_str(), r.body["reason"].as_str()), (404, Some("Status"), Some("NotFound")), "{}", r.body);
    assert_eq!(r.body["message"], "configmaps \"missing\" not found");
}

/// Seed 1: a write asking for the metadata of a list was refused before it was made; upstream
/// makes it, then finds it cannot answer so.
async fn a_write_is_done_before_its_answer_is_refused(server: Server) {
    let accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let r = accepting(&server, Method::POST, "/api/v1/namespaces/default/configmaps", accept, Some(configmap("made", &[]))).await;
    let message = "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)";
    assert_eq!((r.code, r.body["reason"].as_str(), r.body["message"].as_str()), (406, Some("NotAcceptable"), Some(message)), "{}", r.body);
    assert_eq!(get(&server, &cm_path("made")).await.code, 200, "the ConfigMap was created");
    let accept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    let r = accepting(&server, Method::GET, "/api/v1/namespaces/default/configmaps", accept, None).await;
    let message = "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)";
    assert_eq!((r.code, r.body["message"].as_str()), (406, Some(message)), "{}", r.body);
}

/// Seed 1: a Role sent with `rules: []` had no managedFields; the field manager sees the
/// decoded Go object, whose empty slice protobuf storage then drops.
async fn an_empty_list_sent_for_a_field_without_omitempty_is_managed(server: Server) {
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "empty"}, "rules": []});
    let r = post(&server, "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", role).await;
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(r.body["rules"], Value::Null, "stored without its empty list");
    assert_eq!(r.body["metadata"]["managedFields"][0]["fieldsV1"], json!({"f:rules": {}}), "{}", r.body);
}

/// Seed 1: a CustomResourceDefinition deleted with its collection stayed, marked for deletion
/// as its own DELETE marks it; a collection delete calls the generic store's `Delete` on each
/// item, and the definition, which has no finalizer, is gone.
async fn a_definition_deleted_with_its_collection_is_not_first_marked(server: Server) {
    let (group, name) = ("collection.findings.example.com", "gizmos.collection.findings.example.com");
    let definition = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": name, "labels": {"findings": "collection"}},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"kind": "Gizmo", "listKind": "GizmoList", "plural": "gizmos", "singular": "gizmo"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]},
    });
    let definitions = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let r = post(&server, definitions, definition).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let r = delete(&server, &format!("{definitions}?labelSelector=findings%3Dcollection"), Value::Null).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let r = get(&server, &format!("{definitions}/{name}")).await;
    assert_eq!(r.code, 404, "the definition is gone, not terminating: {}", r.body);
}

/// Seed 1: `pods/ephemeralcontainers` was no route. It writes a pod's ephemeral containers and
/// nothing else, and refuses to remove one (`ValidatePodEphemeralContainersUpdate`).
async fn ephemeral_containers_are_written_through_their_subresource(server: Server) {
    create_pod(&server, "debugged").await;
    let path = "/api/v1/namespaces/default/pods/debugged/ephemeralcontainers";
    let added = json!({"metadata": {"labels": {"ignored": "yes"}}, "spec": {"ephemeralContainers": [{"name": "dbg", "image": "busybox"}]}});
    let r = patch(&server, path, "application/strategic-merge-patch+json", added).await;
    assert_eq!((r.code, r.body["spec"]["ephemeralContainers"][0]["name"].as_str()), (200, Some("dbg")), "{}", r.body);
    assert_eq!(r.body["spec"]["ephemeralContainers"][0]["terminationMessagePolicy"], "File", "defaulted: {}", r.body);
    assert_eq!(r.body["metadata"]["labels"], Value::Null, "only ephemeral containers are written: {}", r.body);
    let r = patch(&server, path, "application/merge-patch+json", json!({"spec": {"ephemeralContainers": null}})).await;
    let message =
        "Pod \"debugged\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be removed\n";
    assert_eq!((r.code, r.body["message"].as_str()), (422, Some(message)), "{}", r.body);
    let r = delete(&server, path, Value::Null).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{}", r.body);
    let r = get(&server, path).await;
    assert_eq!((r.code, r.body["kind"].as_str()), (200, Some("Pod")), "{}", r.body);
}

/// Seed 1: a 406 of a list named only the object media types, where the list route also
/// produces the watch streams; names in messages were not quoted as Go's `%q` quotes them.
async fn refusals_name_what_the_route_serves_and_quote_names_as_go_does(server: Server) {
    let r = accepting(&server, Method::GET, &cm_path(""), "text/html", None).await;
    let representations = "application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch";
    assert_eq!(r.code, 406, "{}", r.body);
    assert_eq!(r.body["message"].as_str(), Some(format!("406: Not Acceptable\n\nAvailable representations: {representations}").as_str()));
    let r = accepting(&server, Method::GET, &cm_path("one"), "text/html", None).await;
    assert!(!r.body["message"].as_str().unwrap_or("").contains("stream=watch"), "{}", r.body);
    let r = get(&server, &cm_path("%00")).await;
    assert_eq!((r.code, r.body["message"].as_str()), (404, Some("configmaps \"\\x00\" not found")), "{}", r.body);
}

/// Creates pod `name` in `default`, asserting success. Upstream's ServiceAccount admission
/// refuses it until the namespace's default account exists, which its controller makes.
async fn create_pod(server: &Server, name: &str) {
    let pod =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let mut created = post(server, "/api/v1/namespaces/default/pods", pod.clone()).await;
    for _ in 0..100 {
        if created.code != 403 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        created = post(server, "/api/v1/namespaces/default/pods", pod.clone()).await;
    }
    assert_eq!(created.code, 201, "{}", created.body);
}

/// Seed 1: `pods/binding` was no route. A scheduler's Binding gives the pod its node, the
/// binding's labels and a true `PodScheduled` condition; a second one is a conflict, a
/// binding without a target an error with no reason, and the route serves POST alone.
async fn a_binding_assigns_a_pod_to_a_node_once(server: Server) {
    create_pod(&server, "bound").await;
    let path = "/api/v1/namespaces/default/pods/bound/binding";
    let binding = |node: &str| json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "bound", "labels": {"zone": "a"}}, "target": {"name": node}});
    let r = post(&server, path, json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "bound"}, "target": {}})).await;
    assert_eq!(
        (r.code, r.body["reason"].as_str(), r.body["message"].as_str()),
        (500, None, Some("target.name: Required value")),
        "{}",
        r.body
    );
    let r = post(&server, path, binding("n1")).await;
    assert_eq!((r.code, r.body["status"].as_str()), (201, Some("Success")), "{}", r.body);
    let pod = get(&server, "/api/v1/namespaces/default/pods/bound").await.body;
    assert_eq!((pod["spec"]["nodeName"].as_str(), pod["metadata"]["labels"]["zone"].as_str()), (Some("n1"), Some("a")), "{pod}");
    let scheduled = pod["status"]["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "PodScheduled").cloned();
    assert_eq!(scheduled.map(|c| c["status"].clone()), Some(json!("True")), "{pod}");
    let r = post(&server, path, binding("n2")).await;
    let message = "Operation cannot be fulfilled on pods/binding \"bound\": pod bound is already assigned to node \"n1\"";
    assert_eq!((r.code, r.body["message"].as_str()), (409, Some(message)), "{}", r.body);
    let r = get(&server, path).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{}", r.body);
}

/// Seed 1: the OpenAPI index named no hashes and the documents held no schemas. Each path of
/// the index carries the hash of its document, whatever the method asking; another hash is a
/// redirect to the current one; a client that takes no JSON gets 406, a path with no document
/// an empty 404.
async fn openapi_documents_are_the_pinned_releases_named_by_their_hash(server: Server) {
    let index = raw(&server, Method::DELETE, "/openapi/v3", None, Body::empty()).await;
    assert_eq!(index.code, 200);
    let url = index.body["paths"]["apis/apps/v1"]["serverRelativeURL"].as_str().unwrap().to_string();
    let (path, hash) = url.split_once("?hash=").unwrap();
    assert_eq!((path, hash.len()), ("/openapi/v3/apis/apps/v1", 128), "{url}");
    let r = raw(&server, Method::POST, &url, None, Body::empty()).await;
    assert_eq!(r.code, 200);
    let deployment = &r.body["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentStrategy"]["properties"]["type"];
    assert_eq!(deployment["enum"], json!(["Recreate", "RollingUpdate"]), "{deployment}");
    assert_eq!(get(&server, &format!("{path}?hash=0{}", &hash[1..])).await.code, 301);
    assert_eq!(accepting(&server, Method::GET, path, "application/yaml", None).await.code, 406);
    let r = get(&server, "/openapi/v3/apis/apps/v2").await;
    assert_eq!((r.code, r.body.is_null()), (404, true), "{}", r.body);
}

/// Seed 1: a patch whose result holds a value of the wrong type was the decoder's 400; the
/// patch handler decodes the result itself and answers 422 at `patch`, showing the strategic
/// patch as Go prints its map with the unstructured converter's words, or a JSON or merge
/// patch's result with the JSON decoder's. The object is left as it was.
async fn a_patch_whose_result_does_not_decode_is_invalid_in_the_patch_handler_s_words(server: Server) {
    create_cm(&server, "typed", &[]).await;
    let strategic = "application/strategic-merge-patch+json";
    let owner = json!({"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u", "blockOwnerDeletion": "yes"}]}});
    let r = patch(&server, &cm_path("typed"), strategic, owner.clone()).await;
    let invalid = "Invalid value: \"map[metadata:map[ownerReferences:[map[apiVersion:v1 blockOwnerDeletion:yes kind:ConfigMap name:o uid:u]]]]\": unrecognized type: bool";
    assert_eq!((r.code, r.body["reason"].as_str()), (422, Some("Invalid")), "{}", r.body);
    assert_eq!(r.body["message"].as_str(), Some(format!(" \"\" is invalid: patch: {invalid}").as_str()));
    assert_eq!(r.body["details"], json!({"causes": [{"reason": "FieldValueInvalid", "message": invalid, "field": "patch"}]}));
    for (labels, printed, why) in [
        (json!({"a": 1}), "map[a:1]", "cannot convert int64 to string"),
        (json!({"a": 1.5e7}), "map[a:1.5e+07]", "unrecognized type: string"),
    ] {
        let r = patch(&server, &cm_path("typed"), strategic, json!({"metadata": {"labels": labels}})).await;
        let message = r.body["message"].as_str().unwrap_or_default();
        assert!(message.ends_with(&format!("\"map[metadata:map[labels:{printed}]]\": {why}")), "{message}");
    }
    // Seed 1 at 100,000 requests: a named string type (`types.UID`) is a string to the
    // converter, and a patch nested deeper than serde_json reads is printed all the same.
    let deep = (0..200).fold(json!(1), |inner, _| json!({"a": inner}));
    for (meta, why) in [
        (json!({"uid": [null, true]}), "unrecognized type: string"),
        (json!({"uid": 7}), "cannot convert int64 to types.UID"),
        (json!({"labels": deep}), "unrecognized type: string"),
    ] {
        let r = patch(&server, &cm_path("typed"), strategic, json!({"metadata": meta})).await;
        let message = r.body["message"].as_str().unwrap_or_default();
        assert!(r.code == 422 && message.ends_with(&format!("]]\": {why}")), "{}", r.body);
    }
    // Seed 11: a time is decoded by its own UnmarshalJSON, a string first.
    for (time, why) in [
        (json!(["a"]), "json: cannot unmarshal array into Go value of type string".to_string()),
        (json!("2020-13-01T00:00:00Z"), "parsing time \"2020-13-01T00:00:00Z\": month out of range".to_string()),
    ] {
        let r = patch(&server, &cm_path("typed"), strategic, json!({"metadata": {"creationTimestamp": time}})).await;
        let message = r.body["message"].as_str().unwrap_or_default();
        assert_eq!(r.code, 422, "{}", r.body);
        assert!(message.ends_with(&format!("]]\": {why}")), "{message}");
    }
    let r = patch(&server, &cm_path("typed"), "application/merge-patch+json", owner).await;
    let message = r.body["message"].as_str().unwrap_or_default();
    assert_eq!((r.code, r.body["details"]["causes"][0]["field"].as_str()), (422, Some("patch")), "{}", r.body);
    assert!(message.starts_with(" \"\" is invalid: patch: Invalid value: \"{\\\"apiVersion\\\":\\\"v1\\\","), "{message}");
    assert!(
        message.ends_with(
            "\": json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.blockOwnerDeletion of type bool"
        ),
        "{message}"
    );
    let stored = get(&server, &cm_path("typed")).await.body;
    assert!(stored["metadata"]["ownerReferences"].is_null() && stored["metadata"]["labels"].is_null(), "{stored}");
}

/// Seed 1: discovery answered JSON whatever the client accepted. It is negotiated: YAML when
/// asked (errors too), 406 for a rendering as another kind, JSON when a later clause takes it
/// (as kubectl's aggregated-discovery header offers).
async fn discovery_is_negotiated_as_other_answers_are(server: Server) {
    let metadata = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let r = accepting(&server, Method::GET, "/apis/apps", metadata, None).await;
    let message = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf";
    assert_eq!((r.code, r.body["message"].as_str()), (406, Some(message)), "{}", r.body);
    let aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let r = accepting(&server, Method::GET, "/apis/apps", aggregated, None).await;
    assert_eq!((r.code, r.body["kind"].as_str()), (200, Some("APIGroup")), "{}", r.body);
    for (method, path, code) in [(Method::GET, "/api/v1", 200), (Method::POST, "/apis/apps", 200), (Method::DELETE, "/api/", 405)] {
        let r = accepting(&server, method.clone(), path, "application/yaml", None).await;
        assert_eq!((r.code, r.body.is_null()), (code, true), "{method} {path}: not YAML: {}", r.body);
    }
}

/// Seed 11: discovery answered JSON to a client asking for protobuf. Upstream's discovery
/// handlers write their documents with the API's serializers, protobuf among them, in an envelope
/// naming the version their JSON shows: none for `APIVersions` and the core `APIResourceList`
/// (k8s.io/apiserver pkg/endpoints/discovery).
async fn discovery_documents_are_protobuf_when_asked(server: Server) {
    const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
    let documents = [
        ("/api", "", "APIVersions"),
        ("/api/v1", "", "APIResourceList"),
        ("/apis", "v1", "APIGroupList"),
        ("/apis/apps", "v1", "APIGroup"),
        ("/apis/apps/v1", "v1", "APIResourceList"),
    ];
    for (path, api_version, kind) in documents {
        let r = accepting(&server, Method::GET, path, PROTOBUF, None).await;
        let read = (r.code, r.body["apiVersion"].as_str(), r.body["kind"].as_str());
        assert_eq!(read, (200, Some(api_version), Some(kind)), "{path}: {}", r.body);
    }
    let r = accepting(&server, Method::GET, "/apis/apps/v1", PROTOBUF, None).await;
    assert_eq!(r.body["groupVersion"], "apps/v1", "{}", r.body);
    let names: Vec<&str> = r.body["resources"].as_array().unwrap().iter().filter_map(|r| r["name"].as_str()).collect();
    assert!(names.contains(&"deployments") && names.contains(&"deployments/scale"), "{names:?}");
    let deployments = r.body["resources"].as_array().unwrap().iter().find(|r| r["name"] == "deployments").unwrap();
    assert!(strings(&deployments["verbs"]).contains(&"watch".to_string()), "{deployments}");
    let r = accepting(&server, Method::GET, "/api/v1/absent", PROTOBUF, None).await;
    assert_eq!((r.code, r.body["kind"].as_str()), (404, Some("Status")), "{}", r.body);
}

/// Seed 11: a watch asking for protobuf streamed JSON lines. kube-apiserver streams
/// length-prefixed `WatchEvent` frames, each object a protobuf body of its own
/// (k8s.io/apiserver pkg/endpoints/handlers/watch.go).
async fn a_watch_streams_protobuf_frames_when_asked(server: Server) {
    const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
    create_cm(&server, "framed", &[]).await;
    let watch = "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dframed";
    let r = accepting(&server, Method::GET, watch, PROTOBUF, None).await;
    let events = r.body.as_array().unwrap_or_else(|| panic!("no protobuf frames: {} {}", r.code, r.body));
    let seen: Vec<_> =
        events.iter().map(|e| (e["type"].as_str(), e["object"]["kind"].as_str(), e["object"]["metadata"]["name"].as_str())).collect();
    assert_eq!(seen, [(Some("ADDED"), Some("ConfigMap"), Some("framed"))], "{}", r.body);
    assert_eq!(events[0]["object"]["data"]["k"], "v", "{}", r.body);
}

/// Seed 1: a list in namespace `.` answered an empty list. etcd3's store refuses any key with
/// a `.` or `..` segment (500, the key under the resource's etcd prefix); a create is refused
/// earlier by the NamespaceLifecycle plugin's lookup of the namespace.
async fn a_namespace_of_dots_is_a_key_storage_refuses(server: Server) {
    for (path, key) in [
        ("/api/v1/namespaces/./configmaps", "/configmaps/."),
        ("/api/v1/namespaces/../configmaps/x", "/configmaps/../x"),
        ("/api/v1/namespaces/./services/x", "/services/specs/./x"),
        ("/apis/apps/v1/namespaces/./deployments?watch=1", "/deployments/."),
    ] {
        let r = get(&server, path).await;
        let message = format!("invalid key: \"{key}\"");
        assert_eq!(
            (r.code, r.body["reason"].as_str(), r.body["message"].as_str()),
            (500, None, Some(message.as_str())),
            "{path}: {}",
            r.body
        );
    }
    let r = post(&server, "/api/v1/namespaces/./configmaps", configmap("dot", &[])).await;
    let why = "invalid resource name \".\": [may not be '.']";
    assert_eq!((r.code, r.body["reason"].as_str()), (500, Some("InternalError")), "{}", r.body);
    assert_eq!(r.body["message"].as_str(), Some(format!("Internal error occurred: {why}").as_str()));
    assert_eq!(r.body["details"]["causes"], json!([{"message": why}]));
}

/// Seed 1: an empty list of metadata had `items: []`, a custom resource's list no `continue`,
/// and a list at any resource version (`resourceVersion=0`) was cut at its limit. Upstream
/// appends metadata to a nil slice (`null`), sets an unstructured list's `continue` even when
/// empty, and serves `resourceVersion=0` whole from its watch cache.
async fn lists_answer_as_their_storage_builds_them(server: Server) {
    let metadata = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let r = accepting(&server, Method::GET, "/apis/apps/v1/namespaces/default/deployments?labelSelector=none", metadata, None).await;
    assert_eq!((r.code, &r.body["items"]), (200, &Value::Null), "{}", r.body);
    for name in ["l1", "l2", "l3"] {
        create_cm(&server, name, &[]).await;
    }
    let r = get(&server, &format!("{}?limit=2&resourceVersion=0", cm_path(""))).await;
    assert!(r.body["items"].as_array().unwrap().len() >= 3, "{}", r.body);
    assert_eq!(r.body["metadata"]["continue"], Value::Null, "{}", r.body);
    let r = get(&server, &format!("{}?limit=2", cm_path(""))).await;
    assert_eq!(r.body["items"].as_array().unwrap().len(), 2, "{}", r.body);
    let group = define_widgets(&server, "lists").await;
    let r = get(&server, &format!("/apis/{group}/v1/namespaces/default/widgets")).await;
    assert_eq!((r.code, &r.body["metadata"]["continue"]), (200, &json!("")), "{}", r.body);
}

/// Seed 1: paths of a custom resource's group that its handler does not serve were a
/// NotFound Status (or served): the apiextensions server hands them to the mux's plain 404:
/// an unknown resource, a namespaced resource without a namespace outside list and watch.
/// It negotiates before anything else: a refused Accept header leaves the object unmade.
async fn custom_resource_paths_the_handler_cannot_serve_are_the_mux_plain_not_found(server: Server) {
    let group = define_widgets(&server, "paths").await;
    let group_version = format!("/apis/{group}/v1");
    let widgets = format!("{group_version}/namespaces/default/widgets");
    let elsewhere = format!("{group_version}/namespaces//widgets");
    for (method, path) in [
        (Method::GET, format!("{group_version}/nothing")),
        (Method::GET, format!("{group_version}//widgets")),
        (Method::GET, format!("{group_version}/widgets/a")),
        (Method::POST, elsewhere.clone()),
        (Method::GET, format!("{elsewhere}/a")),
    ] {
        let r = raw(&server, method.clone(), &path, Some("application/json"), "{}").await;
        assert_eq!((r.code, r.body.is_null()), (404, true), "{method} {path}: {}", r.body);
    }
    assert_eq!(get(&server, &elsewhere).await.code, 200, "a list across namespaces");
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": "w"}});
    let r = accepting(&server, Method::POST, &widgets, "application/vnd.kubernetes.protobuf", Some(widget)).await;
    let message = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf";
    assert_eq!((r.code, r.body["message"].as_str()), (406, Some(message)), "{}", r.body);
    assert_eq!(get(&server, &format!("{widgets}/w")).await.code, 404, "refused before it was made");
}

/// Seed 1: a Table of a pod's ephemeral containers was looked up (404); their storage has no
/// table convertor, so the handler refuses the Table before reading the pod, or takes the
/// next media type the client accepts.
async fn ephemeral_containers_have_no_table(server: Server) {
    let path = "/api/v1/namespaces/default/pods/missing/ephemeralcontainers";
    let table = "application/json;as=Table;g=meta.k8s.io;v=v1";
    let r = accepting(&server, Method::GET, path, table, None).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (406, Some("NotAcceptable")), "{}", r.body);
    let r = accepting(&server, Method::GET, path, &format!("{table},application/json"), None).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (404, Some("NotFound")), "{}", r.body);
}

/// Seed 11: a Table of CustomResourceDefinitions had the default convertor's columns; theirs
/// are their own, the wide ones filled too (k8s.io/apiextensions-apiserver
/// pkg/registry/customresourcedefinition/tableconvertor).
async fn definitions_are_tabled_by_their_own_convertor(server: Server) {
    let group = define_widgets(&server, "tabled").await;
    let table = "application/json;as=Table;g=meta.k8s.io;v=v1";
    let path = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{group}");
    // Served once its names are accepted, a definition is established a moment later.
    for _ in 0..100 {
        let conditions = get(&server, &path).await.body["status"]["conditions"].clone();
        if conditions.as_array().into_iter().flatten().any(|c| c["type"] == "Established" && c["status"] == "True") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let r = accepting(&server, Method::GET, &path, table, None).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let columns: Vec<&str> = r.body["columnDefinitions"].as_array().unwrap().iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(columns, ["Name", "Scope", "Versions", "Created At", "Group", "Kind", "ShortNames", "Established"]);
    let cells = r.body["rows"][0]["cells"].as_array().unwrap();
    assert_eq!(cells[1..3], [json!("Namespaced"), json!("v1(storage)")], "{cells:?}");
    assert_eq!(cells[4..8], [json!(group), json!("Widget"), json!(""), json!(true)], "{cells:?}");
    assert_eq!(cells[3], r.body["rows"][0]["object"]["metadata"]["creationTimestamp"], "{cells:?}");
    // Seed 11: the convertor appends a row per definition to no rows at all, so a table of
    // none has null rows where the printers' tables have an empty list.
    let none = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?labelSelector=absent%3Dx";
    let r = accepting(&server, Method::GET, none, table, None).await;
    assert_eq!((r.code, &r.body["rows"]), (200, &Value::Null), "{}", r.body);
    let r = accepting(&server, Method::GET, "/api/v1/namespaces/default/configmaps?labelSelector=absent%3Dx", table, None).await;
    assert_eq!((r.code, &r.body["rows"]), (200, &json!([])), "{}", r.body);
    // Seed 1 at 100,000 requests (#53756): so does the default convertor of the kinds no
    // printer handles, roles among them, for a list and for what a collection's delete deleted
    // (k8s.io/apiserver pkg/registry/rest/table.go).
    let roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles?labelSelector=absent%3Dx";
    for method in [Method::GET, Method::DELETE] {
        let r = accepting(&server, method.clone(), roles, table, None).await;
        assert_eq!((r.code, &r.body["rows"]), (200, &Value::Null), "{method} {}", r.body);
    }
}

/// Defines the namespaced custom resource `widgets` in group `{tag}.findings.example.com`, its
/// schema keeping whatever fields it is sent, and returns the group once its collection in
/// `default` is served.
async fn define_widgets(server: &Server, tag: &str) -> String {
    define_widgets_with(server, tag, json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})).await
}

/// [`define_widgets`] with `schema` as the version's `openAPIV3Schema`.
async fn define_widgets_with(server: &Server, tag: &str, schema: Value) -> String {
    let group = format!("{tag}.findings.example.com");
    let definition = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{group}")},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema}}]},
    });
    let r = post(server, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", definition).await;
    assert!(r.code == 201 || r.code == 409, "{}", r.body);
    let path = format!("/apis/{group}/v1/namespaces/default/widgets");
    for _ in 0..100 {
        if get(server, &path).await.code == 200 {
            return group;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{path} is not served");
}

/// Seed 1: `Content-Type: application/json;;;` was read as JSON, and a create in a type no
/// serializer reads was refused for its options first. Go's `mime.ParseMediaType` refuses the
/// type (415); a create picks its body's serializer before reading its options, an update
/// after (k8s.io/apiserver pkg/endpoints/handlers/create.go, update.go).
async fn bodies_of_a_type_go_cannot_parse_are_unsupported(server: Server) {
    create_cm(&server, "typed", &[]).await;
    let r = raw(&server, Method::POST, &cm_path(""), Some("application/json;;;"), configmap("semicolons", &[]).to_string()).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (415, Some("UnsupportedMediaType")), "{}", r.body);
    let r =
        raw(&server, Method::DELETE, &cm_path("typed"), Some("application/json;;;"), r#"{"kind":"DeleteOptions","apiVersion":"v1"}"#).await;
    assert_eq!(r.code, 415, "{}", r.body);
    assert_eq!(get(&server, &cm_path("typed")).await.code, 200, "not deleted");
    let bad_options = format!("{}?dryRun=Nope", cm_path(""));
    let r = raw(&server, Method::POST, &bad_options, Some("garbage"), configmap("garbage", &[]).to_string()).await;
    assert_eq!(r.code, 415, "a create's serializer first: {}", r.body);
    let r =
        raw(&server, Method::PUT, &format!("{}?dryRun=Nope", cm_path("typed")), Some("garbage"), configmap("typed", &[]).to_string()).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (422, Some("Invalid")), "an update's options first: {}", r.body);
}

/// Seed 1: `/` was 404 and `/apis` listed groups by name. The index lists the paths served,
/// whatever the method, a custom resource's group among them; discovery lists groups by their
/// priority (the aggregator's `ByGroupPriorityMinimum`).
async fn the_root_lists_the_paths_and_groups_come_in_priority_order(server: Server) {
    let group = define_widgets(&server, "root").await;
    let r = raw(&server, Method::DELETE, "/", None, Body::empty()).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let paths = strings(&r.body["paths"]);
    for path in ["/api/v1", "/apis/apps/v1", "/version"] {
        assert!(paths.iter().any(|p| p == path), "{path} in {paths:?}");
    }
    assert!(paths.contains(&format!("/apis/{group}/v1")), "{paths:?}");
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    let listed: Vec<String> =
        get(&server, "/apis").await.body["groups"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap().to_string()).collect();
    let position = |name: &str| listed.iter().position(|g| g == name).unwrap_or_else(|| panic!("{name} in {listed:?}"));
    let order = [
        "apps",
        "events.k8s.io",
        "batch",
        "certificates.k8s.io",
        "rbac.authorization.k8s.io",
        "apiextensions.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        &group,
    ];
    assert!(order.windows(2).all(|w| position(w[0]) < position(w[1])), "{listed:?}");
}

/// Seed 1: a continue token in upstream's own format was refused, `continue=%%%` was read as a
/// token, and a list at an older resourceVersion was served as the latest. The token is the
/// storage's (k8s.io/apiserver pkg/storage/continue.go): the key after the page's last, from the
/// list's key prefix, at the first page's revision; a list at an exact revision is the
/// collection as it was then; Go's query parser drops a parameter it cannot unescape.
async fn lists_continue_and_read_revisions_as_the_storage_does(server: Server) {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut revisions = Vec::new();
    for name in ["p1", "p2", "p3"] {
        let mut cm = configmap(name, &[]);
        cm["metadata"]["labels"] = json!({"finding": "pages"});
        let r = post(&server, &cm_path(""), cm).await;
        assert_eq!(r.code, 201, "{}", r.body);
        revisions.push(r.body["metadata"]["resourceVersion"].as_str().unwrap().to_string());
    }
    let pages = format!("{}?labelSelector=finding%3Dpages", cm_path(""));
    let names = |r: Raw| -> Vec<String> {
        let items = r.body["items"].as_array().unwrap_or_else(|| panic!("{}", r.body));
        items.iter().map(|i| i["metadata"]["name"].as_str().unwrap().to_string()).collect()
    };
    let first = get(&server, &format!("{pages}&limit=1")).await;
    let token = first.body["metadata"]["continue"].as_str().unwrap().to_string();
    let decoded: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(&token).unwrap()).unwrap();
    assert_eq!(decoded, json!({"v": "meta.k8s.io/v1", "rv": decoded["rv"], "start": "/p1\u{0}"}));
    assert_eq!(names(first), ["p1"]);
    assert_eq!(names(get(&server, &format!("{pages}&limit=1&continue={token}")).await), ["p2"]);
    let made = URL_SAFE_NO_PAD.encode(r#"{"v":"meta.k8s.io/v1","rv":-1,"start":"p2"}"#);
    assert_eq!(names(get(&server, &format!("{pages}&continue={made}")).await), ["p2", "p3"]);
    let r = get(&server, &format!("{pages}&resourceVersion={}&resourceVersionMatch=Exact", revisions[1])).await;
    assert_eq!(r.body["metadata"]["resourceVersion"].as_str(), Some(revisions[1].as_str()), "{}", r.body);
    assert_eq!(names(r), ["p1", "p2"]);
    for (token, why) in [("abc", "invalid character 'i' looking for beginning of value"), ("ab=c", "illegal base64 data at input byte 2")] {
        let r = get(&server, &format!("{pages}&continue={token}")).await;
        let message = format!("invalid continue token: continue key is not valid: {why}");
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message.as_str())), "{}", r.body);
    }
    assert_eq!(names(get(&server, &format!("{pages}&continue=%%%")).await), ["p1", "p2", "p3"]);
}

/// Seed 1: the fake answered a custom resource's requests by the REST router's method table.
/// The apiextensions server's handler serves them by the verb the request names (`serveResource`,
/// k8s.io/apiextensions-apiserver pkg/apiserver/customresource_handler.go): a method that is no
/// verb is its 405 with an empty verb, a create names its object in its body whatever the URL
/// says, and an update or patch of the collection names no object (the namer's 400).
async fn custom_resources_are_served_by_the_verb_their_request_names(server: Server) {
    let group = define_widgets(&server, "verbs").await;
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let unsupported = format!(" is not supported on resources of kind \"widgets.{group}\"");
    for path in [widgets.clone(), format!("{widgets}/x")] {
        let r = raw(&server, Method::OPTIONS, &path, None, Body::empty()).await;
        assert_eq!((r.code, r.body["message"].as_str()), (405, Some(unsupported.as_str())), "{path}: {}", r.body);
    }
    let r = raw(&server, Method::OPTIONS, &format!("/apis/{group}/v1/widgets"), None, Body::empty()).await;
    assert_eq!((r.code, r.body.is_null()), (404, true), "no namespace: the mux's 404");
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": "y"}});
    let r = post(&server, &format!("{widgets}/x"), widget.clone()).await;
    assert_eq!((r.code, r.body["metadata"]["name"].as_str()), (201, Some("y")), "{}", r.body);
    let unnamed = [
        put(&server, &widgets, widget.clone()).await,
        patch(&server, &format!("{widgets}?fieldManager=m"), "application/apply-patch+yaml", widget).await,
        patch(&server, &widgets, "application/merge-patch+json", json!({})).await,
    ];
    for r in unnamed {
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some("name must be provided")), "{}", r.body);
    }
}

/// Seed 1: a body naming a kind the scheme does not register (a typo, a date) got the error of
/// one it registers but cannot convert. The scheme tells them apart (k8s.io/apimachinery
/// pkg/runtime/scheme.go): a registered kind has no conversion to the endpoint's, any other is
/// not registered for the body's version.
async fn a_kind_the_scheme_does_not_register_is_named_as_such(server: Server) {
    let unregistered = |kind: &str, version: &str, group_version: &str, expected: &str| {
        format!(
            "{kind} in version \"{version}\" cannot be handled as a {expected}: no kind \"{kind}\" is registered for version \"{group_version}\" in scheme \"pkg/runtime/scheme.go:111\""
        )
    };
    let cases = [
        (cm_path(""), "v1", "Confgmap", unregistered("Confgmap", "v1", "v1", "ConfigMap")),
        (
            cm_path(""),
            "v1",
            "Secret",
            "Secret in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion".into(),
        ),
        (
            cm_path(""),
            "v1",
            "PodLogOptions",
            "PodLogOptions in version \"v1\" cannot be handled as a ConfigMap: converting (v1.PodLogOptions) to (core.ConfigMap): unknown conversion"
                .into(),
        ),
        (
            "/apis/apps/v1/namespaces/default/deployments".into(),
            "apps/v1",
            "Deploymnet",
            unregistered("Deploymnet", "v1", "apps/v1", "Deployment"),
        ),
    ];
    for (path, api_version, kind, message) in cases {
        let r = post(&server, &path, json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "typo"}})).await;
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message.as_str())), "{kind}: {}", r.body);
    }
}

/// Seed 1: a body nested past serde_json's 128 levels was refused as undecodable, and one of
/// 200,000 levels overflowed the fake's stack and aborted it. Go's decoder takes 10,000 levels
/// (encoding/json scanner.go `maxNestingDepth`; deeper is its scanner's syntax error): a
/// nested value where the kind has a string is the decoder's type error, one in a field the
/// kind does not know is dropped.
async fn bodies_nest_as_deep_as_go_decodes_them(server: Server) {
    let nested = |depth: usize| format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
    let send =
        |body: String| raw(&server, Method::POST, "/api/v1/namespaces/default/configmaps?dryRun=All", Some("application/json"), body);
    let r = send(format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"deep","labels":{}}}}}"#, nested(9_990))).await;
    let wrong_type = "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal object into Go struct field ObjectMeta.metadata.labels of type string";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(wrong_type)), "{}", r.body);
    let r = send(format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"deep"}},"x":{}}}"#, nested(9_990))).await;
    assert_eq!((r.code, r.body["metadata"]["name"].as_str()), (201, Some("deep")), "{}", r.body);
    assert!(r.body.get("x").is_none(), "a field the kind does not know is dropped: {}", r.body);
    let r = send("[".repeat(200_000)).await;
    let too_deep = format!(
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({} ...)",
        "5b".repeat(30)
    );
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(too_deep.as_str())), "{}", r.body);
    assert_eq!(get(&server, &cm_path("")).await.code, 200, "the server still serves");
}

/// Seed 1: a body of another kind was refused for its `apiVersion` before anything else.
/// Upstream's decoder reads it as its own kind first (`DecoderToVersion`, k8s.io/apimachinery
/// pkg/runtime/serializer/versioning; then k8s.io/apiserver pkg/endpoints/handlers/create.go):
/// a kind its scheme does not register, else the first field of the wrong type for that kind,
/// else no conversion to the endpoint's kind, and only then a version the endpoint does not
/// take. The apiextensions server's scheme holds its own group and core `v1`'s options.
async fn a_body_of_another_kind_is_decoded_as_that_kind_first(server: Server) {
    let not_registered = |kind: &str, version: &str, group_version: &str, expected: &str| {
        format!(
            "{kind} in version \"{version}\" cannot be handled as a {expected}: no kind \"{kind}\" is registered for version \"{group_version}\" in scheme \"pkg/runtime/scheme.go:111\""
        )
    };
    let unconvertible = |kind: &str, version: &str, expected: &str, internal: &str| {
        format!(
            "{kind} in version \"{version}\" cannot be handled as a {expected}: converting ({version}.{kind}) to ({internal}.{expected}): unknown conversion"
        )
    };
    let mismatch =
        |data: &str, expected: &str| format!("the API version in the data ({data}) does not match the expected API version ({expected})");
    let daemonsets = "/apis/apps/v1/namespaces/default/daemonsets";
    let events = "/api/v1/namespaces/default/events";
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let configmaps = cm_path("");
    let cases = [
        (daemonsets, json!({"apiVersion": "batch/v1", "kind": "CronJob"}), unconvertible("CronJob", "v1", "DaemonSet", "apps")),
        (
            &configmaps,
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": "x"}}),
            "Deployment in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32".into(),
        ),
        (&configmaps, json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "spec": {"replicas": "x"}}), unconvertible("DaemonSet", "v1", "ConfigMap", "core")),
        (&configmaps, json!({"apiVersion": "apps/v1", "kind": "ConfigMap"}), not_registered("ConfigMap", "v1", "apps/v1", "ConfigMap")),
        (
            &configmaps,
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}),
            not_registered("CustomResourceDefinition", "v1", "apiextensions.k8s.io/v1", "ConfigMap"),
        ),
        (&configmaps, json!({"apiVersion": "foo.example/v1", "kind": "DeleteOptions"}), not_registered("DeleteOptions", "v1", "foo.example/v1", "ConfigMap")),
        (&configmaps, json!({"apiVersion": "foo.example/v1", "kind": "Status"}), unconvertible("Status", "v1", "ConfigMap", "core")),
        (events, json!({"apiVersion": "events.k8s.io/v1", "kind": "Event"}), mismatch("events.k8s.io/v1", "v1")),
        (
            events,
            json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "note": 5}),
            "Event in version \"v1\" cannot be handled as a Event: json: cannot unmarshal number into Go struct field Event.note of type string".into(),
        ),
        (crds, json!({"apiVersion": "v1", "kind": "ConfigMap"}), not_registered("ConfigMap", "v1", "v1", "CustomResourceDefinition")),
        (crds, json!({"apiVersion": "apps/v1", "kind": "DeleteOptions"}), not_registered("DeleteOptions", "v1", "apps/v1", "CustomResourceDefinition")),
        (crds, json!({"apiVersion": "v1", "kind": "DeleteOptions"}), unconvertible("DeleteOptions", "v1", "CustomResourceDefinition", "apiextensions")),
        (
            crds,
            json!({"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition"}),
            mismatch("apiextensions.k8s.io/v1beta1", "apiextensions.k8s.io/v1"),
        ),
        (
            "/api/v1/namespaces/default/pods",
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": "2020-13-45T99:99:99Z"}),
            "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field Pod.metadata of type v1.ObjectMeta".into(),
        ),
    ];
    for (path, mut body, message) in cases {
        if body.get("metadata").is_none() {
            body["metadata"] = json!({"name": "other"});
        }
        let r = post(&server, path, body.clone()).await;
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message.as_str())), "{body}: {}", r.body);
    }
}

/// Seed 1: YAML the reader refuses was refused in another parser's words, and a patch that
/// decodes to no object in the fake's. A YAML body goes through go-yaml's reader, which refuses
/// a control character before it scans anything (go.yaml.in/yaml/v2 readerc.go); an apply
/// converts a body that does not start like JSON from YAML first ("error encoding patch"), then
/// unmarshals it into a map ("error decoding patch"); a strategic patch's decoding error is the
/// decoder's alone (k8s.io/apiserver pkg/endpoints/handlers/patch.go).
async fn yaml_the_reader_refuses_and_patches_of_no_object_are_refused_in_go_words(server: Server) {
    create_cm(&server, "patched", &[]).await;
    let r = raw(&server, Method::POST, &cm_path(""), Some("application/yaml"), &b"a: \x01"[..]).await;
    let unrecognized =
        "the object provided is unrecognized (must be of type ConfigMap): yaml: control characters are not allowed (613a2001)";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(unrecognized)), "{}", r.body);
    let apply = format!("{}?fieldManager=fuzz", cm_path("patched"));
    let apply_yaml = Some("application/apply-patch+yaml");
    let cases: [(&[u8], &str); 4] = [
        (b"a: \x01", "error encoding patch: yaml: control characters are not allowed"),
        (b"{\"a\": \x01}", "error decoding patch: error converting YAML to JSON: yaml: control characters are not allowed"),
        (
            b"\"a string\"",
            "error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}",
        ),
        (
            b"[1, 2]",
            "error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}",
        ),
    ];
    for (body, message) in cases {
        let r = raw(&server, Method::PATCH, &apply, apply_yaml, body).await;
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message)), "{}: {}", String::from_utf8_lossy(body), r.body);
    }
    let r = raw(&server, Method::PATCH, &cm_path("patched"), Some("application/strategic-merge-patch+json"), "[1,2,3]").await;
    let strategic = "json: cannot unmarshal array into Go value of type map[string]interface {}";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(strategic)), "{}", r.body);
}

/// Seed 1: a Secret created with an owner reference, whose reference an apply then took (forced)
/// and dropped: the fake removed the emptied list, and with it its creator's ownership of the
/// list, so a later apply of a reference by another manager was not a conflict. A removal leaves
/// an emptied list null (structured-merge-diff's typed/remove.go), so the list's own field stays
/// its creator's; the object is stored without it, as Go's `omitempty` writes it.
async fn a_list_an_apply_empties_stays_its_creator_s(server: Server) {
    let reference =
        |name: &str| json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": "00000000-0000-0000-0000-000000000001"}]);
    let path = "/api/v1/namespaces/default/configmaps/emptied";
    let mut cm = configmap("emptied", &[]);
    cm["metadata"]["ownerReferences"] = reference("first");
    assert_eq!(post(&server, &format!("{}?fieldManager=creator", cm_path("")), cm).await.code, 201);
    let apply = |manager: &str, force: bool, references: Option<Value>| {
        let mut config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "emptied"}});
        if let Some(references) = references {
            config["metadata"]["ownerReferences"] = references;
        }
        let uri = format!("{path}?fieldManager={manager}&force={force}");
        let server = server.clone();
        async move { patch(&server, &uri, "application/apply-patch+yaml", config).await }
    };
    assert_eq!(apply("a", true, Some(reference("second"))).await.code, 200);
    let r = apply("a", false, None).await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert!(r.body["metadata"].get("ownerReferences").is_none(), "{}", r.body);
    let creator = r.body["metadata"]["managedFields"].as_array().unwrap().iter().find(|e| e["manager"] == "creator").cloned();
    assert_eq!(creator.map(|e| e["fieldsV1"]["f:metadata"].clone()), Some(json!({"f:ownerReferences": {}})), "{}", r.body);
    let r = apply("b", false, Some(reference("third"))).await;
    assert_eq!(r.code, 409, "{}", r.body);
    assert_eq!(r.body["message"], "Apply failed with 1 conflict: conflict with \"creator\" using v1: .metadata.ownerReferences");
}

/// Found beside seed 1: a custom resource kept the nulls its body sent for fields its schema
/// declares. The apiextensions apiserver's decoder drops a null whose schema is neither
/// `nullable` nor defaulted (`PruneNonNullableNullsWithoutDefaults`, pkg/apiserver/schema/
/// defaulting/prunenulls.go), after pruning.
async fn nulls_a_custom_resource_s_schema_does_not_allow_are_dropped(server: Server) {
    let spec = json!({"type": "object", "properties": {
        "plain": {"type": "object", "additionalProperties": {"type": "string"}},
        "nullable": {"type": "string", "nullable": true},
        "items": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}}});
    let group = define_widgets_with(&server, "nulls", json!({"type": "object", "properties": {"spec": spec}})).await;
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": "w"},
        "spec": {"plain": null, "nullable": null, "items": [{"a": null}]}});
    let r = post(&server, &format!("/apis/{group}/v1/namespaces/default/widgets"), widget).await;
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(r.body["spec"], json!({"nullable": null, "items": [{}]}), "{}", r.body);
}

/// Seed 1: a Secret sent with the same owner reference twice was stored with both. The write
/// handlers drop exact repeats with a warning naming their uids, a create or update before
/// field management, a patch after admission in its own words (`dedupOwnerReferencesAndAddWarning`,
/// k8s.io/apiserver pkg/endpoints/handlers/rest.go); an apply's configuration that repeats a key
/// is no typed object at all (structured-merge-diff's typed/validate.go), a 500.
async fn repeated_owner_references_are_dropped_with_a_warning_and_refused_in_an_apply(server: Server) {
    let reference =
        |n: u8| json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": format!("00000000-0000-0000-0000-00000000000{n}")});
    let warning = |after: &str, uids: &str| {
        format!(
            ".metadata.ownerReferences contains duplicate entries{after}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: {uids}"
        )
    };
    let mut cm = configmap("repeats", &[]);
    cm["metadata"]["ownerReferences"] = json!([reference(1), reference(2), reference(1), reference(2)]);
    let r = post(&server, &cm_path(""), cm).await;
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(r.body["metadata"]["ownerReferences"], json!([reference(1), reference(2)]));
    assert_eq!(r.warnings, [warning("", "00000000-0000-0000-0000-000000000001, 00000000-0000-0000-0000-000000000002")]);
    let mut renamed = reference(1);
    renamed["name"] = json!("other");
    let body = json!({"metadata": {"ownerReferences": [reference(1), reference(1), renamed]}});
    let r = patch(&server, &cm_path("repeats"), "application/merge-patch+json", body).await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!(r.body["metadata"]["ownerReferences"], json!([reference(1), renamed]), "a reference that differs stays");
    assert_eq!(r.warnings, [warning(" after mutating admission happens", "00000000-0000-0000-0000-000000000001")]);
    let config =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "repeats", "ownerReferences": [reference(2), reference(2)]}});
    let r = patch(&server, &format!("{}?fieldManager=a", cm_path("repeats")), "application/apply-patch+yaml", config).await;
    assert_eq!(r.code, 500, "{}", r.body);
    assert_eq!(
        r.body["message"],
        "failed to create typed patch object (/repeats; /v1, Kind=ConfigMap): .metadata.ownerReferences: duplicate entries for key [uid=\"00000000-0000-0000-0000-000000000002\"]"
    );
}

/// Seed 1: a Secret whose `deletionTimestamp` was no time was decoded without it (and then met
/// the name of another). `metav1.Time` parses with Go's `time.Parse(time.RFC3339, ...)`, and a
/// body it refuses cannot be handled, in Go's words (src/time/format.go).
async fn timestamps_decode_as_go_parses_them(server: Server) {
    let layout = "2006-01-02T15:04:05Z07:00";
    for (field, value, error) in [
        ("deletionTimestamp", "xxxx", format!("parsing time \"xxxx\" as \"{layout}\": cannot parse \"xxxx\" as \"2006\"")),
        ("creationTimestamp", "2020-13-45T99:99:99Z", "parsing time \"2020-13-45T99:99:99Z\": month out of range".to_string()),
        (
            "creationTimestamp",
            "2020-01-02T03:04:05",
            format!("parsing time \"2020-01-02T03:04:05\" as \"{layout}\": cannot parse \"\" as \"Z07:00\""),
        ),
    ] {
        let mut cm = configmap("timed", &[]);
        cm["metadata"][field] = json!(value);
        let r = post(&server, &cm_path(""), cm).await;
        assert_eq!(r.code, 400, "{value}: {}", r.body);
        assert_eq!(r.body["message"], format!("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: {error}"), "{value}");
    }
    assert_eq!(get(&server, &cm_path("timed")).await.code, 404);
}

/// Seed 11: a Lease's `renewTime` and an Event's `eventTime` without a fraction of a second
/// were taken. `metav1.MicroTime` parses with `metav1.RFC3339Micro`, which wants exactly six
/// digits of it (apimachinery pkg/apis/meta/v1/micro_time.go), and answers in UTC with six.
async fn micro_times_decode_with_six_digits_of_fraction(server: Server) {
    let layout = "2006-01-02T15:04:05.000000Z07:00";
    let leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
    let lease = |name: &str, renew: &str| {
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
            "spec": {"holderIdentity": "a", "renewTime": renew}})
    };
    let r = post(&server, leases, lease("whole", "2020-01-02T03:04:05Z")).await;
    assert_eq!(r.code, 400, "{}", r.body);
    assert_eq!(
        r.body["message"],
        format!(
            "Lease in version \"v1\" cannot be handled as a Lease: parsing time \"2020-01-02T03:04:05Z\" as \"{layout}\": cannot parse \"Z\" as \".000000\""
        )
    );
    assert_eq!(get(&server, &format!("{leases}/whole")).await.code, 404);
    let r = post(&server, leases, lease("micro", "2020-01-02T03:04:05.123456+01:00")).await;
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(r.body["spec"]["renewTime"], "2020-01-02T02:04:05.123456Z");
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e"},
        "eventTime": "2020-01-02T03:04:05.123Z", "reportingController": "c/d", "reportingInstance": "i", "action": "A", "reason": "R",
        "regarding": {"kind": "Pod", "name": "p", "namespace": "default"}, "type": "Normal"});
    let r = post(&server, "/apis/events.k8s.io/v1/namespaces/default/events", event).await;
    assert_eq!(r.code, 400, "{}", r.body);
    assert_eq!(
        r.body["message"],
        format!(
            "Event in version \"v1\" cannot be handled as a Event: parsing time \"2020-01-02T03:04:05.123Z\" as \"{layout}\": cannot parse \".123Z\" as \".000000\""
        )
    );
}

/// Seed 1: a namespace's `finalize` took only `spec.finalizers` from the request; its strategy
/// keeps only the stored status (kubernetes pkg/registry/core/namespace/strategy.go,
/// `namespaceFinalizeStrategy.PrepareForUpdate`), so labels written through it stay.
async fn a_namespace_s_finalize_writes_all_but_its_status(server: Server) {
    let name = format!("{}-finalized", server.namespace());
    let r = post(&server, "/api/v1/namespaces", json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let mut namespace = r.body;
    namespace["metadata"]["labels"]["app"] = json!("y");
    namespace["spec"]["finalizers"] = json!(["kubernetes", "example.com/other"]);
    namespace["status"]["phase"] = json!("Terminating");
    let r = put(&server, &format!("/api/v1/namespaces/{name}/finalize"), namespace).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let stored = get(&server, &format!("/api/v1/namespaces/{name}")).await.body;
    assert_eq!(stored["metadata"]["labels"]["app"], "y", "{stored}");
    assert_eq!(strings(&stored["spec"]["finalizers"]), ["kubernetes", "example.com/other"]);
    assert_eq!(stored["status"]["phase"], "Active");
    let finalize = stored["metadata"]["managedFields"].as_array().unwrap().iter().find(|e| e["subresource"] == "finalize").cloned();
    assert!(finalize.is_some_and(|e| e["fieldsV1"]["f:metadata"]["f:labels"]["f:app"].is_object()), "{stored}");
    let mut emptied = stored.clone();
    emptied["spec"]["finalizers"] = json!([]);
    assert_eq!(put(&server, &format!("/api/v1/namespaces/{name}/finalize"), emptied).await.code, 200);
    assert_eq!(delete(&server, &format!("/api/v1/namespaces/{name}"), Value::Null).await.code, 200);
}

/// Seed 1: PATCH and DELETE of `pods/NAME/log` were 404; the log is served for GET alone
/// (kubernetes pkg/registry/core/pod/rest/log.go), so another method is 405.
async fn a_pod_s_log_is_only_read(server: Server) {
    create_pod(&server, "logged").await;
    let log = "/api/v1/namespaces/default/pods/logged/log";
    let r = patch(&server, log, "application/merge-patch+json", json!({})).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{}", r.body);
    let r = delete(&server, log, Value::Null).await;
    assert_eq!((r.code, r.body["reason"].as_str()), (405, Some("MethodNotAllowed")), "{}", r.body);
    // Seed 11: the log of an absent pod was a 404 of the path. The handler reads the pod, then
    // its container; a pod no node runs has no log to stream (204).
    let r = get(&server, "/api/v1/namespaces/default/pods/unlogged/log").await;
    assert_eq!((r.code, r.body["message"].as_str()), (404, Some(r#"pods "unlogged" not found"#)), "{}", r.body);
    let r = get(&server, &format!("{log}?container=other")).await;
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some("container other is not valid for pod logged")), "{}", r.body);
    assert_eq!(get(&server, log).await.code, 204);
    // Seed 1 at 100,000 requests: the route produces text/plain too, first in its 406; a
    // request for it alone reaches the handler, and with no log to stream gets the error
    // writer's 406, as an absent pod does (its error has no plain-text form).
    let r = accepting(&server, Method::GET, log, "text/html", None).await;
    let refused = "406: Not Acceptable\n\nAvailable representations: text/plain, application/json, application/yaml, application/vnd.kubernetes.protobuf";
    assert_eq!((r.code, r.body["message"].as_str()), (406, Some(refused)), "{}", r.body);
    let refused = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf";
    for pod in ["logged", "unlogged"] {
        let r = accepting(&server, Method::GET, &format!("/api/v1/namespaces/default/pods/{pod}/log"), "text/plain", None).await;
        assert_eq!((r.code, r.body["message"].as_str()), (406, Some(refused)), "{}", r.body);
    }
}

/// Seed 1: a JSON patch of `null` was refused; Go decodes it as no operations.
async fn a_json_patch_of_null_changes_nothing(server: Server) {
    let created = create_cm(&server, "unpatched", &[]).await;
    let r = raw(&server, Method::PATCH, &cm_path("unpatched"), Some("application/json-patch+json"), "null").await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!(r.body["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
}

/// Seed 11: a JSON patch operation of an unknown `op` was refused as undecodable (400). The
/// handler decodes each operation's `op`, `path` and `from` as strings (400 when one is not,
/// unless told to ignore unknown fields); json-patch takes any object as an operation and
/// refuses one it cannot apply as it applies it (422; k8s.io/apiserver
/// pkg/endpoints/handlers/patch.go, `applyJSPatch`).
async fn a_json_patch_operation_is_typed_by_the_handler_and_understood_as_it_is_applied(server: Server) {
    let created = create_cm(&server, "operated", &[]).await;
    let send = |query: &'static str, ops: &'static str| {
        let server = &server;
        async move { raw(server, Method::PATCH, &format!("{}{query}", cm_path("operated")), Some("application/json-patch+json"), ops).await }
    };
    for ops in [r#"[{"op":"frob","path":"/metadata/uid","from":"/nowhere","value":null}]"#, r#"[{"op":"add","value":1}]"#] {
        let r = send("", ops).await;
        assert_eq!(
            (r.code, &r.body["message"]),
            (422, &json!("the server rejected our request due to an error in our request")),
            "{ops}: {}",
            r.body
        );
    }
    let r = send("", r#"[{"op":"add","path":5,"value":1}]"#).await;
    let typed = "error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(typed)), "{}", r.body);
    let r = send("?fieldValidation=Ignore", r#"[{"op":"add","path":5,"value":1}]"#).await;
    assert_eq!(r.code, 422, "{}", r.body);
    assert_eq!(get(&server, &cm_path("operated")).await.body["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
}

/// Seed 1: a name of bytes that are not UTF-8 was quoted as its replacement characters; Go's
/// strings hold any bytes, and `%q` writes each such byte as `\xNN`.
async fn names_that_are_not_utf8_are_quoted_by_their_bytes(server: Server) {
    let r = get(&server, "/api/v1/namespaces/default/secrets/%FF%FEa").await;
    assert_eq!((r.code, r.body["message"].as_str()), (404, Some(r#"secrets "\xff\xfea" not found"#)), "{}", r.body);
    let r = raw(&server, Method::PATCH, "/api/v1/namespaces/%FF", Some("application/merge-patch+json"), "{}").await;
    assert_eq!((r.code, r.body["message"].as_str()), (404, Some(r#"namespaces "\xff" not found"#)), "{}", r.body);
}

/// Seed 11: kube-system held no Lease; kube-apiserver keeps its identity there, named by a hash
/// of its host name (k8s.io/apiserver pkg/server/config.go), which a collection's delete
/// across every namespace then meets first: it has no key without a namespace.
async fn kube_system_holds_the_server_s_identity_lease(server: Server) {
    let r = get(
        &server,
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver",
    )
    .await;
    let items = r.body["items"].as_array().cloned().unwrap_or_default();
    assert_eq!(items.len(), 1, "{}", r.body);
    let (lease, name) = (&items[0], items[0]["metadata"]["name"].as_str().unwrap_or_default());
    assert!(name.starts_with("apiserver-") && name.len() == "apiserver-".len() + 26, "{lease}");
    assert!(lease["spec"]["holderIdentity"].as_str().is_some_and(|h| h.starts_with(&format!("{name}_"))), "{lease}");
    assert_eq!(lease["spec"]["leaseDurationSeconds"], 3600);
    assert!(lease["metadata"]["labels"]["kubernetes.io/hostname"].is_string(), "{lease}");
    // A server that listens names its address for peers (pkg/controlplane/apiserver/server.go,
    // `labelAPIServerHeartbeatFunc`): the fake once it serves over TCP, at its next renewal.
    let listening = match &server {
        Server::Fake(api) => Some(api.serve("127.0.0.1:0".parse().unwrap()).await.unwrap().0.to_string()),
        _ => None,
    };
    let path = format!("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/{name}");
    let mut address = Value::Null;
    for _ in 0..100 {
        address = get(&server, &path).await.body["metadata"]["annotations"]["kubernetes.io/peer-advertise-address"].clone();
        if address.is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let address = address.as_str().unwrap_or_default();
    assert!(address.parse::<std::net::SocketAddr>().is_ok() && listening.as_deref().is_none_or(|l| l == address), "{address}");
    let r = raw(&server, Method::DELETE, "/apis/coordination.k8s.io/v1/namespaces//leases", None, Body::empty()).await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("Namespace parameter required.")), "{}", r.body);
}

/// Seed 1: kube-system held no ConfigMaps; kube-apiserver's own controllers write two there,
/// the client CA (pkg/controlplane/controller/clusterauthenticationtrust) and the day legacy
/// token tracking began (pkg/controlplane/controller/legacytokentracking).
async fn kube_system_holds_the_server_s_own_config_maps(server: Server) {
    let path = "/api/v1/namespaces/kube-system/configmaps";
    let authentication = get(&server, &format!("{path}/extension-apiserver-authentication")).await.body;
    let ca = authentication["data"]["client-ca-file"].as_str().unwrap_or_default();
    assert!(ca.starts_with("-----BEGIN CERTIFICATE-----"), "{authentication}");
    assert_eq!(authentication["metadata"]["managedFields"][0]["manager"], "kube-apiserver");
    let tracking = get(&server, &format!("{path}/kube-apiserver-legacy-service-account-token-tracking")).await.body;
    let since = tracking["data"]["since"].as_str().unwrap_or_default();
    assert!(since.len() == 10 && since.split('-').count() == 3, "{tracking}");
    // Seed 1 at 100,000 requests: the client CA stayed deleted. Its controller writes it again
    // at once (pkg/controlplane/controller/clusterauthenticationtrust).
    let authentication = format!("{path}/extension-apiserver-authentication");
    assert_eq!(delete(&server, &authentication, Value::Null).await.code, 200);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut back = get(&server, &authentication).await;
    while back.code == 404 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        back = get(&server, &authentication).await;
    }
    assert_eq!((back.code, &back.body["data"]["client-ca-file"]), (200, &json!(ca)), "{}", back.body);
}

/// Seed 1: a wrong type for a field of a named Go type was named as its underlying type;
/// Go's decoder names the field's own type (`types.UID`, `v1.PullPolicy`).
async fn decoding_errors_name_go_s_named_types(server: Server) {
    let mut secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "typed", "uid": []}});
    let r = post(&server, "/api/v1/namespaces/default/secrets", secret.clone()).await;
    let uid = "Secret in version \"v1\" cannot be handled as a Secret: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.uid of type types.UID";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(uid)), "{}", r.body);
    secret["metadata"]["uid"] = Value::Null;
    secret["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": 1}]);
    let r = post(&server, "/api/v1/namespaces/default/secrets", secret).await;
    let owner = "Secret in version \"v1\" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(owner)), "{}", r.body);
    // Seed 11: bytes (Secret.data, ConfigMap.binaryData) were named by the fake's decoder.
    let cases = [
        ("secrets", json!({"kind": "Secret", "data": {"a": {"b": 1}}}), "Secret.data of type []uint8"),
        ("secrets", json!({"kind": "Secret", "data": "x"}), "Secret.data of type map[string][]uint8"),
        ("configmaps", json!({"kind": "ConfigMap", "binaryData": [1]}), "ConfigMap.binaryData of type map[string][]uint8"),
    ];
    for (resource, mut body, field) in cases {
        body["apiVersion"] = json!("v1");
        body["metadata"] = json!({"name": "bytes"});
        let r = post(&server, &format!("/api/v1/namespaces/default/{resource}"), body.clone()).await;
        let message = r.body["message"].as_str().unwrap_or_default();
        assert!(r.code == 400 && message.ends_with(&format!(" into Go struct field {field}")), "{body}: {}", r.body);
    }
}

/// Seed 1: events.k8s.io/v1 Events were served with empty `reportingController` and
/// `reportingInstance`; they are written from their own Go type, where both are `omitempty`.
async fn events_served_as_events_k8s_io_leave_out_what_is_empty(server: Server) {
    let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "unreported"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": server.namespace()}, "reason": "R", "message": "m"});
    assert_eq!(post(&server, "/api/v1/namespaces/default/events", event).await.code, 201);
    let r = get(&server, "/apis/events.k8s.io/v1/namespaces/default/events/unreported").await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!(r.body["note"], "m");
    assert!(r.body.get("reportingController").is_none() && r.body.get("reportingInstance").is_none(), "{}", r.body);
}

/// Seed 11: a core Event's finalizer without a `/` was refused as kube-apiserver's own kinds
/// refuse one; core Events skip core's rules for their metadata, events.k8s.io's do not
/// (kubernetes pkg/apis/core/validation/events.go).
async fn core_events_finalizers_meet_only_the_generic_rules(server: Server) {
    let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "held", "finalizers": ["local"]},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": server.namespace()}, "reason": "R", "message": "m"});
    let r = post(&server, "/api/v1/namespaces/default/events", event).await;
    assert_eq!((r.code, &r.body["metadata"]["finalizers"]), (201, &json!(["local"])), "{}", r.body);
    let r = patch(
        &server,
        "/api/v1/namespaces/default/events/held",
        "application/merge-patch+json",
        json!({"metadata": {"finalizers": ["not a finalizer"]}}),
    )
    .await;
    assert_eq!((r.code, r.body["details"]["causes"].as_array().map(Vec::len)), (422, Some(1)), "{}", r.body);
    let r = patch(
        &server,
        "/apis/events.k8s.io/v1/namespaces/default/events/held",
        "application/merge-patch+json",
        json!({"metadata": {"finalizers": ["other"]}}),
    )
    .await;
    assert_eq!((r.code, &r.body["details"]["causes"][0]["field"]), (422, &json!("metadata.finalizers[0]")), "{}", r.body);
    let r =
        patch(&server, "/api/v1/namespaces/default/events/held", "application/merge-patch+json", json!({"metadata": {"finalizers": null}}))
            .await;
    assert_eq!(r.code, 200, "{}", r.body);
}

/// Seed 11: a Pod of `apiVersion: example.com/` was refused as a kind of another version; a
/// group without a version other than the URL's has none, and the serializer says so, quoting
/// the body (`gvkWithDefaults`, k8s.io/apimachinery pkg/runtime/serializer/json).
async fn a_group_without_a_version_is_no_version(server: Server) {
    let body = r#"{"apiVersion": "example.com/", "metadata": {"name": "versionless"}, "data": {"a": "b"}}"#;
    let r = raw(&server, Method::POST, &cm_path(""), Some("application/json"), body).await;
    let message = format!("ConfigMap in version \"\" cannot be handled as a ConfigMap: Object 'apiVersion' is missing in '{body}'");
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message.as_str())), "{}", r.body);
    let r = raw(
        &server,
        Method::POST,
        "/apis/apps/v1/namespaces/default/deployments",
        Some("application/json"),
        r#"{"apiVersion": "apps/", "metadata": {"name": "x"}}"#,
    )
    .await;
    assert_eq!(r.code, 422, "the URL's group takes the URL's version: {}", r.body);
}

/// Seed 11: an apply whose configuration names no object was refused as naming another; the
/// patch handler's `checkName` finds no name to compare (k8s.io/apiserver
/// pkg/endpoints/handlers/rest.go).
async fn an_apply_without_a_name_names_the_url_s(server: Server) {
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}, "data": {"a": "b"}});
    let r = patch(&server, &format!("{}?fieldManager=a", cm_path("nameless")), "application/apply-patch+yaml", config).await;
    let message = "the name of the object (nameless based on URL) was undeterminable: name must be provided";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message)), "{}", r.body);
}

/// Seed 1: a YAML body holding a list was refused without the serializer's words; the YAML
/// serializer reads the JSON it converts to as the JSON serializer reads a body.
async fn a_yaml_body_that_is_no_object_is_refused_as_json_is(server: Server) {
    let r = raw(&server, Method::POST, &cm_path(""), Some("application/yaml"), "[1, 2]").await;
    let kind_struct = r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;
    let message = format!(
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type {kind_struct} (5b312c20325d)"
    );
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message.as_str())), "{}", r.body);
}

/// Seed 1: a custom resource whose metadata held a value of the wrong type was created; the
/// apiextensions server decodes the metadata into `metav1.ObjectMeta` alone and refuses it in
/// the decoder's words (apiextensions-apiserver pkg/apiserver/schema/objectmeta/coerce.go).
async fn a_custom_resource_s_metadata_decodes_as_object_meta(server: Server) {
    let group = define_widgets(&server, "meta").await;
    let (api_version, widgets) = (format!("{group}/v1"), format!("/apis/{group}/v1/namespaces/default/widgets"));
    for (field, value, error) in [
        (
            "deletionGracePeriodSeconds",
            json!({"x": 1}),
            "cannot unmarshal object into Go struct field ObjectMeta.deletionGracePeriodSeconds of type int64",
        ),
        ("uid", json!([]), "cannot unmarshal array into Go struct field ObjectMeta.uid of type types.UID"),
    ] {
        let mut widget = json!({"apiVersion": api_version, "kind": "Widget", "metadata": {"name": "mistyped"}});
        widget["metadata"][field] = value;
        let r = post(&server, &widgets, widget).await;
        let message = format!("Widget in version \"v1\" cannot be handled as a Widget: json: {error}");
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message.as_str())), "{}", r.body);
    }
    assert_eq!(get(&server, &format!("{widgets}/mistyped")).await.code, 404);
    // Seed 11: metadata that is no object names no field.
    let r = post(&server, &widgets, json!({"apiVersion": api_version, "kind": "Widget", "metadata": 7})).await;
    let message =
        "Widget in version \"v1\" cannot be handled as a Widget: json: cannot unmarshal number into Go value of type v1.ObjectMeta";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message)), "{}", r.body);
}

/// Seed 1: label selectors were split at commas and operators, so one that does not parse was
/// refused in words of the fake's own; upstream's lexer and parser name the token they found
/// (k8s.io/apimachinery pkg/labels/selector.go).
async fn label_selectors_parse_as_upstream_s_lexer_reads_them(server: Server) {
    for (selector, message) in [
        ("a%20b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        ("a%2C", "found '', expected: identifier after ','"),
        ("!a%3Db", "found '=', expected: ',' or 'end of string'"),
        ("a%20in%20(b%20c)", "unable to parse requirement: found 'c', expected: ',' or ')'"),
        ("a%3E", "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer"),
        ("a%3D%3D%3Db", "unable to parse requirement: found '=', expected: identifier"),
    ] {
        let r = get(&server, &format!("{}?labelSelector={selector}", cm_path(""))).await;
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message)), "{selector}");
    }
    create_cm(&server, "selected", &[]).await;
    let selected = "labelSelector=x%20notin%20(%2C%2Cin)%2C!y&fieldSelector=metadata.name%3Dselected";
    let r = get(&server, &format!("{}?{selected}", cm_path(""))).await;
    assert_eq!((r.code, r.body["items"].as_array().map(Vec::len)), (200, Some(1)), "{}", r.body);
}

/// Seed 1: `GET /version/binding/scale` was the mux's plain 404; the REST router that owns
/// `/version` answers a Status below it.
async fn paths_below_version_are_a_not_found_status(server: Server) {
    for method in [Method::GET, Method::POST] {
        let r = raw(&server, method.clone(), "/version/binding/scale", None, Body::empty()).await;
        assert_eq!((r.code, r.body["kind"].as_str(), r.body["reason"].as_str()), (404, Some("Status"), Some("NotFound")), "{method}");
    }
}

/// Seed 1: an apply whose configuration held a string for `metadata.generation` was refused
/// for its name; structured-merge-diff types the configuration first, and refuses a value of
/// the wrong type in its own words (sigs.k8s.io/structured-merge-diff typed/validate.go).
async fn an_apply_s_values_of_the_wrong_type_are_refused_before_its_name(server: Server) {
    let ns = server.namespace().to_string();
    for (config, error) in [
        (json!({"metadata": {"name": "other", "generation": "2"}}), ".metadata.generation: expected numeric (int or float), got string"),
        (json!({"metadata": {"name": "other"}, "data": {"k": 1}}), ".data.k: expected string, got &value.valueUnstructured{Value:1}"),
        (json!({"metadata": {"name": "other", "labels": ["a"]}}), ".metadata.labels: expected map, got &{[a]}"),
    ] {
        let mut config = config;
        config["apiVersion"] = json!("v1");
        config["kind"] = json!("ConfigMap");
        config["metadata"]["namespace"] = json!(ns);
        let r = patch(&server, &format!("{}?fieldManager=f", cm_path("typed")), "application/apply-patch+yaml", config).await;
        let message = format!("failed to create typed patch object ({ns}/other; /v1, Kind=ConfigMap): {error}");
        assert_eq!((r.code, r.body["message"].as_str()), (500, Some(message.as_str())), "{}", r.body);
    }
}

/// Seed 1: a PUT that creates an Event checked the name before decoding the body, and filled
/// an empty name from the URL; the update handler decodes, then checks the name, before the
/// store finds nothing to update (k8s.io/apiserver pkg/endpoints/handlers/update.go).
async fn a_put_that_creates_decodes_and_checks_the_name_first(server: Server) {
    let path = "/api/v1/namespaces/default/events/put-created";
    let event =
        |metadata: Value, involved: Value| json!({"apiVersion": "v1", "kind": "Event", "metadata": metadata, "involvedObject": involved});
    let r = put(&server, path, event(json!({"name": "other"}), json!({"name": 1}))).await;
    let decoding = "Event in version \"v1\" cannot be handled as a Event: json: cannot unmarshal number into Go struct field ObjectReference.involvedObject.name of type string";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(decoding)), "{}", r.body);
    let r = put(&server, path, event(json!({}), json!({}))).await;
    let unnamed = "the name of the object (put-created based on URL) was undeterminable: name must be provided";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(unnamed)), "{}", r.body);
    assert_eq!(get(&server, path).await.code, 404);
}

/// Seed 1: refusing a finalizer added to an object being deleted, the fake named core's rule
/// for finalizer names before the update's; `rest.BeforeUpdate` checks the generic rules (the
/// new metadata's, then the update's) before the kind's strategy adds core's.
async fn an_update_s_finalizer_errors_come_in_the_order_upstream_checks_them(server: Server) {
    create_cm(&server, "held", &["example.com/hold"]).await;
    assert_eq!(delete(&server, &cm_path("held"), Value::Null).await.code, 200);
    let body = json!({"metadata": {"finalizers": ["example.com/hold", "not a finalizer"]}});
    let r = patch(&server, &cm_path("held"), "application/merge-patch+json", body).await;
    assert_eq!(r.code, 422, "{}", r.body);
    let fields: Vec<(&str, &str)> = r.body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["field"].as_str().unwrap(), c["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fields,
        [
            ("metadata.finalizers", "FieldValueInvalid"),
            ("metadata.finalizers", "FieldValueForbidden"),
            ("metadata.finalizers[1]", "FieldValueInvalid")
        ]
    );
    let body = json!({"metadata": {"finalizers": null}});
    assert_eq!(patch(&server, &cm_path("held"), "application/merge-patch+json", body).await.code, 200);
}

/// Seed 1: a strategic merge patch of a Deployment's Scale naming another version and kind
/// was refused for them; the patch handler's converter takes neither, and refuses what does not
/// decode in its own words, as a JSON or merge patch's decoder refuses a version and kind it
/// does not register (k8s.io/apiserver pkg/endpoints/handlers/patch.go).
async fn a_patched_scale_is_decoded_as_the_patch_handler_decodes_it(server: Server) {
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    let template = json!({"metadata": {"labels": {"app": "s"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let spec = json!({"replicas": 1, "selector": {"matchLabels": {"app": "s"}}, "template": template});
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "scaled"}, "spec": spec});
    assert_eq!(post(&server, deployments, deployment).await.code, 201);
    let scale = format!("{deployments}/scaled/scale");
    let strategic = "application/strategic-merge-patch+json";
    let r = patch(&server, &scale, strategic, json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 2}})).await;
    assert_eq!((r.code, r.body["kind"].as_str(), &r.body["spec"]["replicas"]), (200, Some("Scale"), &json!(2)), "{}", r.body);
    let r = patch(&server, &scale, strategic, json!({"metadata": {"annotations": [{"a": 1}]}})).await;
    let message = " \"\" is invalid: patch: Invalid value: \"map[metadata:map[annotations:[map[a:1]]]]\": cannot restore map from slice";
    assert_eq!((r.code, r.body["message"].as_str()), (422, Some(message)), "{}", r.body);
    let r = patch(&server, &scale, "application/merge-patch+json", json!({"apiVersion": "apps/v1"})).await;
    let unregistered = "no kind \"Scale\" is registered for version \"apps/v1\" in scheme \"pkg/runtime/scheme.go:111\"";
    assert_eq!(r.code, 422, "{}", r.body);
    assert!(r.body["message"].as_str().unwrap().ends_with(unregistered), "{}", r.body);
}

/// Seed 1: a YAML body cut short was refused in the words of the fake's YAML parser ("unclosed
/// bracket"); go-yaml's are libyaml's, on the line its parser error marks (decode.go `fail`).
async fn yaml_syntax_errors_are_go_yaml_s_words_and_lines(server: Server) {
    let cases: [(&str, &str); 5] = [
        ("{\"metadata\": ", "line 1: did not find expected node content ({\"metadata\": )"),
        ("{\"meta", "found unexpected end of stream ({\"meta)"),
        ("a: b: c", "mapping values are not allowed in this context (613a20623a2063)"),
        ("a:\n  b: 1\n c: 2", "line 2: did not find expected key (613a0a2020623a20310a20633a2032)"),
        ("- a\nb: c", "line 1: did not find expected '-' indicator (2d20610a623a2063)"),
    ];
    for (body, words) in cases {
        let r = raw(&server, Method::POST, &cm_path(""), Some("application/yaml"), body.to_string()).await;
        let message = format!("the object provided is unrecognized (must be of type ConfigMap): yaml: {words}");
        assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message.as_str())), "{body:?}: {}", r.body);
    }
    create_cm(&server, "yaml-applied", &[]).await;
    let apply = format!("{}?fieldManager=fuzz", cm_path("yaml-applied"));
    let r = raw(&server, Method::PATCH, &apply, Some("application/apply-patch+yaml"), "{\"metadata\": ").await;
    let message = "error decoding patch: error converting YAML to JSON: yaml: line 1: did not find expected node content";
    assert_eq!((r.code, r.body["message"].as_str()), (400, Some(message)), "{}", r.body);
}

/// Seed 1: a StatefulSet's creator kept its replicas after a patch of its Scale's metadata and
/// an apply of the same replicas; upstream's `ScaleHandler` splits an updater's replicas into an
/// entry of the same identity with no time (its Scale identity is at autoscaling/v1), which the
/// next write's decoding drops (a later entry of an identity wins), so the applier owns them
/// alone. A writer of the Scale's replicas gets an entry with no time.
async fn ownership_through_the_scale_is_passed_as_the_scale_handler_passes_it(server: Server) {
    let sets = "/apis/apps/v1/namespaces/default/statefulsets";
    let template = json!({"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let spec = json!({"replicas": 0, "selector": {"matchLabels": {"app": "x"}}, "serviceName": "s", "template": template});
    let set = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "scaled-set"}, "spec": spec});
    assert_eq!(post(&server, &format!("{sets}?fieldManager=creator"), set.clone()).await.code, 201);
    let scale = format!("{sets}/scaled-set/scale?fieldManager=creator");
    let r = patch(&server, &scale, "application/strategic-merge-patch+json", json!({"metadata": {"finalizers": ["kubernetes"]}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
    // (manager, time, what it owns of the replicas) of this test's managers, in order; the
    // StatefulSet controller's status entry (upstream) is not one of them.
    let managed = |body: &Value| -> Vec<(String, Option<String>, Value)> {
        let entries = body["metadata"]["managedFields"].as_array().cloned().unwrap_or_default();
        entries
            .iter()
            .filter(|e| ["creator", "applier", "scaler"].contains(&e["manager"].as_str().unwrap_or("")))
            .map(|e| {
                (
                    e["manager"].as_str().unwrap().to_string(),
                    e["time"].as_str().map(String::from),
                    e["fieldsV1"]["f:spec"]["f:replicas"].clone(),
                )
            })
            .collect()
    };
    let after_scale = managed(&get(&server, &format!("{sets}/scaled-set")).await.body);
    assert_eq!(after_scale.len(), 2, "{after_scale:?}");
    assert_eq!((after_scale[0].1.is_none(), &after_scale[0].2), (true, &json!({})), "{after_scale:?}");
    assert_eq!((after_scale[1].1.is_some(), &after_scale[1].2), (true, &Value::Null), "{after_scale:?}");
    let r = raw(
        &server,
        Method::PATCH,
        &format!("{sets}/scaled-set?fieldManager=applier"),
        Some("application/apply-patch+yaml"),
        set.to_string(),
    )
    .await;
    assert_eq!(r.code, 200, "{}", r.body);
    let after_apply = managed(&r.body);
    let replicas_owners: Vec<&str> =
        after_apply.iter().filter(|(_, _, replicas)| !replicas.is_null()).map(|(m, _, _)| m.as_str()).collect();
    assert_eq!((after_apply.len(), replicas_owners), (2, vec!["applier"]), "{after_apply:?}");
    let r = patch(
        &server,
        &format!("{sets}/scaled-set/scale?fieldManager=scaler"),
        "application/merge-patch+json",
        json!({"spec": {"replicas": 2}}),
    )
    .await;
    assert_eq!(r.code, 200, "{}", r.body);
    let after_scaling = managed(&get(&server, &format!("{sets}/scaled-set")).await.body);
    let scaler: Vec<_> = after_scaling.iter().filter(|(m, _, _)| m == "scaler").collect();
    assert_eq!(scaler, [&("scaler".to_string(), None, json!({}))], "{after_scaling:?}");
}

/// Seed 1: a DaemonSet's Table rows (and its metadata alone) showed the annotation apps/v1
/// keeps its template generation in; upstream renders metadata from the internal object, where
/// the generation is a field of the spec.
async fn a_daemon_set_s_metadata_alone_has_no_template_generation(server: Server) {
    let sets = "/apis/apps/v1/namespaces/default/daemonsets";
    let template = json!({"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let spec = json!({"selector": {"matchLabels": {"app": "d"}}, "template": template});
    let set =
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "annotated", "annotations": {"x": "y"}}, "spec": spec});
    let r = post(&server, sets, set).await;
    assert_eq!((r.code, &r.body["metadata"]["annotations"]["deprecated.daemonset.template.generation"]), (201, &json!("1")), "{}", r.body);
    let metadata = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    let r = accepting(&server, Method::GET, &format!("{sets}/annotated"), metadata, None).await;
    assert_eq!(r.body["metadata"]["annotations"], json!({"x": "y"}), "{}", r.body);
    let table = "application/json;as=Table;g=meta.k8s.io;v=v1";
    let r = accepting(&server, Method::GET, sets, table, None).await;
    assert_eq!(r.body["rows"][0]["object"]["metadata"]["annotations"], json!({"x": "y"}), "{}", r.body);
}

/// Seed 2: `DELETE .../clusterroles?watch=true` opened a watch on the fake, which never
/// answered; a collection's DELETE is a deletecollection whatever its `watch`. Its `watch`
/// gets the WatchList defaults there too (k8s.io/apiserver pkg/endpoints/handlers/delete.go),
/// so upstream may list from a watch cache that has not seen the create yet and delete
/// nothing (seen once in CI); the fake, with no cache, deletes it.
async fn a_collection_s_delete_asking_to_watch_deletes(server: Server) {
    let mut labelled = configmap("watch-deleted", &[]);
    labelled["metadata"]["labels"] = json!({"app": "watch-deleted"});
    assert_eq!(post(&server, &cm_path(""), labelled).await.code, 201);
    let uri = format!("{}?labelSelector=app%3Dwatch-deleted&watch=true", cm_path(""));
    let r = tokio::time::timeout(std::time::Duration::from_secs(20), raw(&server, Method::DELETE, &uri, None, Body::empty())).await;
    let r = r.expect("a collection's DELETE answers");
    let deleted: Vec<&str> = r.body["items"].as_array().into_iter().flatten().filter_map(|i| i["metadata"]["name"].as_str()).collect();
    assert_eq!((r.code, r.body["kind"].as_str()), (200, Some("ConfigMapList")), "{}", r.body);
    let expected: &[&str] = if matches!(server, Server::Fake(_)) { &["watch-deleted"] } else { &[] };
    assert!(deleted == ["watch-deleted"] || deleted == expected, "{}", r.body);
    let gone = if deleted.is_empty() { 200 } else { 404 };
    assert_eq!(get(&server, &cm_path("watch-deleted")).await.code, gone);
}

/// Seed 2: a strategic merge patch of `null` was refused; the handler decodes it into a nil
/// map, which changes nothing.
async fn a_strategic_merge_patch_of_null_changes_nothing(server: Server) {
    let created = create_cm(&server, "null-patched", &[]).await;
    let r = raw(&server, Method::PATCH, &cm_path("null-patched"), Some("application/strategic-merge-patch+json"), "null").await;
    assert_eq!((r.code, &r.body["data"]), (200, &created["data"]), "{}", r.body);
    assert_eq!(r.body["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"], "{}", r.body);
}

/// Seed 2: a PUT of a Job without its selector was accepted. The selector is required, must
/// match the template's labels, and may not change (`ValidateJobSpecUpdate`,
/// pkg/apis/batch/validation/validation.go).
async fn a_job_keeps_the_selector_it_was_given(server: Server) {
    let jobs = "/apis/batch/v1/namespaces/default/jobs";
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "kept"},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}});
    let r = post(&server, jobs, job.clone()).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let r = put(&server, &format!("{jobs}/kept"), job).await;
    assert_eq!(r.code, 422, "{}", r.body);
    assert_eq!(
        r.body["message"],
        "Job.batch \"kept\" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`, spec.selector: Invalid value: null: field is immutable]"
    );
}

/// Seed 2: a create naming a resourceVersion that is not a number was refused with a 500. The
/// storage refuses only a version it reads as a number other than 0 (`Create` in
/// k8s.io/apiserver/pkg/storage/etcd3/store.go); any other is overwritten.
async fn a_create_s_resource_version_counts_only_as_a_number(server: Server) {
    for (name, version, code) in
        [("rv-word", "example.com/hold", 201), ("rv-zero", "0", 201), ("rv-signed", "+7", 201), ("rv-seven", "7", 500)]
    {
        let mut map = configmap(name, &[]);
        map["metadata"]["resourceVersion"] = json!(version);
        let r = post(&server, "/api/v1/namespaces/default/configmaps", map).await;
        assert_eq!(r.code, code, "{version}: {}", r.body);
        if code == 201 {
            assert_ne!(r.body["metadata"]["resourceVersion"], version);
        }
    }
}

/// Seed 2: a deleted definition's `Terminating` condition stayed as its delete marked it. The
/// CRD finalizer sets it in progress, deletes the definition's objects, and once none is left
/// sets it completed as it removes its finalizer (apiextensions-apiserver
/// pkg/controller/finalizer/crd_finalizer.go); a definition still holding another finalizer
/// stays until that goes, and goes with the update that removes it, its delete having set no
/// grace period (`ShouldDeleteDuringUpdate`, k8s.io/apiserver pkg/registry/generic/registry).
async fn a_deleted_definition_s_condition_follows_its_finalizer(server: Server) {
    // A definition never established has served nothing to delete (`NeverEstablished`).
    let (group, definition) = define_established_widgets(&server, "terminating").await;
    let held = json!({"metadata": {"finalizers": ["example.com/hold"]}});
    let r = patch(&server, &definition, "application/merge-patch+json", held.clone()).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": "w"}});
    let r = post(&server, &widgets, widget).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let r = patch(&server, &format!("{widgets}/w"), "application/merge-patch+json", held).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let r = delete(&server, &definition, Value::Null).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let terminating = |r: &Raw| {
        let conditions = r.body["status"]["conditions"].as_array().cloned().unwrap_or_default();
        conditions.into_iter().find(|c| c["type"] == "Terminating").unwrap_or(Value::Null)
    };
    let condition = eventually(&server, &definition, |r| terminating(r)["reason"] != "InstanceDeletionPending").await;
    let condition = terminating(&condition);
    assert_eq!((&condition["status"], &condition["message"]), (&json!("True"), &json!("CustomResource deletion is in progress")));
    let r = patch(&server, &format!("{widgets}/w"), "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let finalized = eventually(&server, &definition, |r| strings(&r.body["metadata"]["finalizers"]) == ["example.com/hold"]).await;
    let condition = terminating(&finalized);
    assert_eq!((&condition["status"], &condition["reason"]), (&json!("False"), &json!("InstanceDeletionCompleted")));
    assert_eq!(condition["message"], "removed all instances");
    let r = patch(&server, &definition, "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!(get(&server, &definition).await.code, 404, "the last finalizer's removal deletes the definition");
}

/// [`define_widgets`], and the definition's path once it is established.
async fn define_established_widgets(server: &Server, tag: &str) -> (String, String) {
    let group = define_widgets(server, tag).await;
    let definition = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{group}");
    let established = |r: &Raw| {
        r.body["status"]["conditions"].as_array().is_some_and(|cs| cs.iter().any(|c| c["type"] == "Established" && c["status"] == "True"))
    };
    eventually(server, &definition, established).await;
    (group, definition)
}

/// The answer of a GET of `uri` once `done` holds of it (within 30 s).
async fn eventually(server: &Server, uri: &str, done: impl Fn(&Raw) -> bool) -> Raw {
    for _ in 0..300 {
        let r = get(server, uri).await;
        if done(&r) {
            return r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{uri} never became what was awaited: {}", get(server, uri).await.body);
}

/// Seed 2 (through definitions, whose delete sets no grace period either): a deleted namespace
/// whose last metadata finalizer an update removed stayed. An update removes a deleted object
/// left with no finalizer when its delete set no grace period or one of 0; of a namespace, once
/// its spec holds no finalizer either (`ShouldDeleteDuringUpdate`, k8s.io/apiserver
/// pkg/registry/generic/registry/store.go; `ShouldDeleteNamespaceDuringUpdate`, kubernetes
/// pkg/registry/core/namespace/storage/storage.go).
async fn a_deleted_namespace_goes_with_the_update_that_removes_its_last_finalizer(server: Server) {
    let name = format!("{}-held", server.namespace());
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "finalizers": ["example.com/hold"]}});
    let r = post(&server, "/api/v1/namespaces", namespace).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let path = format!("/api/v1/namespaces/{name}");
    assert_eq!(delete(&server, &path, Value::Null).await.code, 200);
    eventually(&server, &path, |r| strings(&r.body["spec"]["finalizers"]).is_empty()).await;
    let r = patch(&server, &path, "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!(get(&server, &path).await.code, 404, "the update that removed the last finalizer deleted the namespace");
}

/// Seed 2: a GET of one object ignored its `resourceVersion`. The storage parses it first, and
/// one that is not a number is an error with no Status, a 500, whether or not the object
/// exists (`APIObjectVersioner.ParseResourceVersion`, k8s.io/apiserver pkg/storage).
async fn a_get_at_a_version_that_is_no_number_is_an_unexpected_error(server: Server) {
    create_cm(&server, "versioned", &[]).await;
    for name in ["versioned", "absent"] {
        let r = get(&server, &format!("{}?resourceVersion=abc", cm_path(name))).await;
        assert_eq!(r.code, 500, "{}", r.body);
        assert_eq!(r.body["message"], "resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax");
    }
    assert_eq!(get(&server, &format!("{}?resourceVersion=0", cm_path("versioned"))).await.code, 200);
}

/// Seed 2: `fieldSelector===` was refused as a field no resource has. A term with neither a
/// field nor a value selects everything (`hasTerm.Transform`, apimachinery pkg/fields).
async fn a_field_selector_term_of_nothing_selects_everything(server: Server) {
    create_cm(&server, "selected", &[]).await;
    for selector in ["%3D%3D", "%3D", "%21%3D", "metadata.name%3Dselected,%3D%3D"] {
        let r = get(&server, &format!("{}?fieldSelector={selector}", cm_path(""))).await;
        assert_eq!(r.code, 200, "{selector}: {}", r.body);
        assert!(r.body["items"].as_array().unwrap().iter().any(|i| i["metadata"]["name"] == "selected"), "{selector}");
    }
}

/// Seed 2: `/version` answered whatever body type a request named, and a watch asked for YAML
/// streamed JSON. The version route consumes JSON alone (go-restful's router refuses another
/// type, k8s.io/apiserver pkg/server/routes/version.go); a watch has no YAML stream
/// (`serveWatchHandler`, k8s.io/apiserver pkg/endpoints/handlers/watch.go).
async fn version_consumes_json_alone_and_watches_stream_no_yaml(server: Server) {
    let r = raw(&server, Method::GET, "/version", Some("application/json-patch+json"), Body::empty()).await;
    assert_eq!((r.code, &r.body["message"]), (415, &json!("415: Unsupported Media Type")), "{}", r.body);
    let r = raw(&server, Method::GET, "/version", Some("application/json; charset=utf-8"), Body::empty()).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let r = accepting(&server, Method::GET, "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1", "application/yaml", None)
        .await;
    // (The refusal is itself YAML, as errors are negotiated.)
    assert_eq!(r.code, 406);
    // Seed 1 at 100,000 requests: a custom resource's serializer has no YAML stream either
    // (`unstructuredNegotiatedSerializer`, apiextensions-apiserver
    // pkg/apiserver/customresource_handler.go), through either watch path.
    let group = define_widgets(&server, "yamlless").await;
    for path in
        [format!("/apis/{group}/v1/namespaces/default/widgets?watch=true&timeoutSeconds=1"), format!("/apis/{group}/v1/watch/widgets/w")]
    {
        // Upstream's watch cache of a new definition answers 429 until it has started.
        let mut r = accepting(&server, Method::GET, &path, "application/yaml", None).await;
        for _ in 0..50 {
            if r.code != 429 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            r = accepting(&server, Method::GET, &path, "application/yaml", None).await;
        }
        assert_eq!(r.code, 406, "{path}");
    }
}

/// Seed 2: a custom resource was created while its definition was being deleted (and then
/// listed and deleted where upstream had none). The apiextensions server's handler wraps
/// admission to refuse any create then (`forbidCreateAdmission`, apiextensions-apiserver
/// pkg/apiserver/customresource_handler.go).
async fn a_custom_resource_is_not_created_while_its_definition_is_terminating(server: Server) {
    let (group, definition) = define_established_widgets(&server, "doomed").await;
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let widget = |name: &str| json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": name}});
    let mut held = widget("held");
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    assert_eq!(post(&server, &widgets, held).await.code, 201);
    assert_eq!(delete(&server, &definition, Value::Null).await.code, 200);
    // Upstream's handler reads the definition from its informer, which learns of the delete a
    // moment later: creates until then succeed (and the finalizer deletes what they made).
    let mut attempt = 0;
    let r = loop {
        let r = post(&server, &widgets, widget(&format!("late-{attempt}"))).await;
        if r.code != 201 || attempt == 100 {
            break r;
        }
        attempt += 1;
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(r.code, 403, "{}", r.body);
    let why =
        format!("widgets.{group} \"late-{attempt}\" is forbidden: create not allowed while custom resource definition is terminating");
    assert_eq!(r.body["message"], why);
    let r = patch(&server, &format!("{widgets}/held"), "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
}

/// Seed 2: a PATCH of a custom resource's collection in a type no patch takes was refused
/// for naming no object, or in the REST router's words. The patch handler reads the type
/// first, and refuses it itself (k8s.io/apiserver pkg/endpoints/handlers/patch.go,
/// `PatchResource`).
async fn a_custom_resource_patch_s_type_is_read_before_its_name(server: Server) {
    let group = define_widgets(&server, "unnamed").await;
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let unknown = "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";
    for content_type in ["application/json", "garbage"] {
        let r = raw(&server, Method::PATCH, &widgets, Some(content_type), Body::from("\"a string\"")).await;
        assert_eq!((r.code, &r.body["message"]), (415, &json!(unknown)), "{content_type}: {}", r.body);
    }
    let r = raw(&server, Method::PATCH, &widgets, Some("application/merge-patch+json"), Body::from("{}")).await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("name must be provided")), "{}", r.body);
}

/// Seed 2: a Job's unknown field label was refused in the words of other kinds. The Job's
/// conversion function names its kind (kubernetes pkg/apis/batch/v1/conversion.go).
async fn a_job_s_unknown_field_label_is_named_for_jobs(server: Server) {
    let r = get(&server, "/apis/batch/v1/namespaces/default/jobs?fieldSelector=nope%3D1").await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("field label \"nope\" not supported for Job")), "{}", r.body);
}

/// Seed 2: a create refused by admission for lack of a name was named by nothing, and one
/// posted to a custom resource's `NAME` by its body. Admission names the URL's name, else the
/// body's, else its generateName, else `Unknown` (`extractResourceName`, k8s.io/apiserver
/// pkg/admission/errors.go).
async fn admission_names_what_the_request_named(server: Server) {
    let group = define_widgets(&server, "admitted").await;
    let name = format!("{}-closing", server.namespace());
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "finalizers": ["example.com/hold"]}});
    assert_eq!(post(&server, "/api/v1/namespaces", namespace).await.code, 201);
    assert_eq!(delete(&server, &format!("/api/v1/namespaces/{name}"), Value::Null).await.code, 200);
    let why = format!("is forbidden: unable to create new content in namespace {name} because it is being terminated");
    let maps = format!("/api/v1/namespaces/{name}/configmaps");
    let r = raw(&server, Method::POST, &maps, Some("application/json"), Body::from("null")).await;
    assert_eq!((r.code, &r.body["message"]), (403, &json!(format!("configmaps \"Unknown\" {why}"))), "{}", r.body);
    let r = post(&server, &maps, json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}})).await;
    assert_eq!((r.code, &r.body["message"]), (403, &json!(format!("configmaps \"gen-\" {why}"))), "{}", r.body);
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": "w"}});
    let r = post(&server, &format!("/apis/{group}/v1/namespaces/{name}/widgets/from-url"), widget).await;
    assert_eq!((r.code, &r.body["message"]), (403, &json!(format!("widgets.{group} \"from-url\" {why}"))), "{}", r.body);
    let r =
        patch(&server, &format!("/api/v1/namespaces/{name}"), "application/merge-patch+json", json!({"metadata": {"finalizers": null}}))
            .await;
    assert_eq!(r.code, 200, "{}", r.body);
}

/// Seed 2: `OPTIONS .../widgets/a/./status` was the mux's plain 404. The apiextensions server
/// reads a path's first three parts past the namespace as resource, name and subresource and
/// ignores the rest (`RequestInfoFactory.NewRequestInfo`, k8s.io/apiserver
/// pkg/endpoints/request/requestinfo.go), so an unknown subresource is an absent object; no
/// route of a built-in resource goes that deep.
async fn paths_past_a_subresource_reach_only_custom_resources(server: Server) {
    let group = define_widgets(&server, "deep").await;
    for method in [Method::OPTIONS, Method::GET] {
        let r = raw(&server, method.clone(), &format!("/apis/{group}/v1/namespaces/default/widgets/a/./status"), None, Body::empty()).await;
        assert_eq!((r.code, &r.body["message"]), (404, &json!(format!("widgets.{group} \"a\" not found"))), "{method}: {}", r.body);
    }
    let r = get(&server, &format!("{}/status/more", cm_path("a"))).await;
    assert_eq!((r.code, &r.body["message"]), (404, &json!("the server could not find the requested resource")), "{}", r.body);
}

/// Seed 11: `/watch/.../{name}/status` of a definition was watched; the REST routes of a
/// built-in resource's `/watch/` paths name an object and none of its subresources.
async fn a_built_in_subresource_has_no_watch_route(server: Server) {
    let watches = [
        "/apis/apiextensions.k8s.io/v1/watch/customresourcedefinitions/absent/status",
        "/api/v1/watch/namespaces/default/pods/absent/status",
        "/api/v1/watch/namespaces/default/pods/absent/binding",
    ];
    for path in watches {
        let r = get(&server, path).await;
        assert_eq!((r.code, &r.body["message"]), (404, &json!("the server could not find the requested resource")), "{path}: {}", r.body);
    }
}

/// Seed 2: a HEAD of a custom resource was refused (405). The apiextensions server's verb of a
/// HEAD is a GET's (`RequestInfoFactory.NewRequestInfo`); the REST routes of built-in
/// resources serve no HEAD.
async fn a_custom_resource_answers_head_as_a_get(server: Server) {
    let group = define_widgets(&server, "heads").await;
    let r = raw(&server, Method::HEAD, &format!("/apis/{group}/v1/namespaces/default/widgets/absent"), None, Body::empty()).await;
    assert_eq!(r.code, 404);
    let r = raw(&server, Method::HEAD, &format!("/apis/{group}/v1/namespaces/default/widgets"), None, Body::empty()).await;
    assert_eq!(r.code, 200);
    let r = raw(&server, Method::HEAD, &cm_path("absent"), None, Body::empty()).await;
    assert_eq!(r.code, 405);
}

/// Seed 2: `/api/v1/` listed its resources with an apiVersion, subresources out of order, no
/// storage version hashes and a collection delete of namespaces. The legacy group's list has
/// no apiVersion, is sorted by name, and names each resource's storage version by a hash
/// (k8s.io/apiserver pkg/endpoints/discovery, `StorageVersionHash`); namespaces are not
/// deleted as a collection.
async fn the_core_group_lists_its_resources_as_upstream_does(server: Server) {
    let r = get(&server, "/api/v1/").await;
    assert_eq!(r.code, 200);
    assert!(r.body.get("apiVersion").is_none(), "{}", r.body["apiVersion"]);
    let resources = r.body["resources"].as_array().unwrap();
    let names: Vec<&str> = resources.iter().filter_map(|r| r["name"].as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    let entry = |name: &str| resources.iter().find(|r| r["name"] == name).unwrap().clone();
    assert_eq!(entry("configmaps")["storageVersionHash"], "qFsyl6wFWjQ=");
    assert!(!strings(&entry("namespaces")["verbs"]).contains(&"deletecollection".to_string()));
    let r = get(&server, "/apis/apiextensions.k8s.io/v1").await;
    let definitions = r.body["resources"].as_array().unwrap().iter().find(|r| r["name"] == "customresourcedefinitions").unwrap().clone();
    // Definitions are stored at v1beta1 (kubernetes pkg/controlplane/apiserver/apiextensions.go).
    assert_eq!((&definitions["storageVersionHash"], &definitions["categories"]), (&json!("jfWCUB31mvA="), &json!(["api-extensions"])));
}

/// Seed 2: a PUT of a Lease named `.` was refused for its name before the body's name was
/// compared with it. The update handler compares them first; the store's key function refuses
/// the name after (k8s.io/apiserver pkg/endpoints/handlers/update.go, `checkName`).
async fn a_put_compares_names_before_the_key_refuses_one(server: Server) {
    let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "held"}});
    let r = put(&server, "/apis/coordination.k8s.io/v1/namespaces/default/leases/.", lease).await;
    let why = "the name of the object (held) does not match the name on the URL (.)";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
}

/// Seed 2: an apply nested 70 levels deep was refused by the YAML reader's own depth budget,
/// and a DELETE's YAML body of bad syntax in that reader's words. go-yaml nests collections to
/// 10,000 levels (go.yaml.in/yaml/v2 scannerc.go) and words its syntax errors its own way.
async fn yaml_nests_as_deep_as_go_yaml_reads_it(server: Server) {
    let mut deep = json!("x");
    for _ in 0..70 {
        deep = json!({"a": deep});
    }
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deep", "labels": deep}});
    let r = patch(&server, "/api/v1/namespaces/default/secrets/deep?fieldManager=f", "application/apply-patch+yaml", config).await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("invalid object type: /v1, Kind=ConfigMap")), "{}", r.body);
    let r = raw(&server, Method::DELETE, &cm_path("absent"), Some("application/yaml"), "{\"metadata\": ").await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("yaml: line 1: did not find expected node content")), "{}", r.body);
}

/// Seed 2: a JSON patch that is no list was refused as the handler's decoding refuses it,
/// though the request ignored unknown fields. The handler decodes its operations itself only
/// when unknown fields are warned of or refused; json-patch's decoding then refuses in its own
/// words (`jsonPatcher.applyJSPatch`, k8s.io/apiserver pkg/endpoints/handlers/patch.go). Seed 3:
/// an operation that is no object was refused in serde's words.
async fn a_json_patch_is_decoded_as_its_field_validation_asks(server: Server) {
    create_cm(&server, "patched", &[]).await;
    let json_patch = "application/json-patch+json";
    let r = patch(&server, &format!("{}?fieldValidation=Ignore", cm_path("patched")), json_patch, json!({})).await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("json: cannot unmarshal object into Go value of type jsonpatch.Patch")));
    let r = patch(&server, &cm_path("patched"), json_patch, json!({})).await;
    let why = "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)));
    let r = patch(&server, &cm_path("patched"), json_patch, json!([1, 2])).await;
    let why = "error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
    let r = patch(&server, &format!("{}?fieldValidation=Ignore", cm_path("patched")), json_patch, json!(["op"])).await;
    let why = "json: cannot unmarshal string into Go value of type jsonpatch.Operation";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
}

/// Seed 2: a Lease's finalizer named without a `/` was refused as the API server's own kinds
/// refuse one. Leases validate their metadata with apimachinery's rules alone (kubernetes
/// pkg/apis/coordination/validation), which take any qualified name.
async fn a_lease_s_finalizers_are_any_qualified_names(server: Server) {
    let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "held", "finalizers": ["plain"]}});
    let r = post(&server, "/apis/coordination.k8s.io/v1/namespaces/default/leases", lease).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let r = post(&server, &cm_path(""), configmap("held", &["plain"])).await;
    assert_eq!(r.code, 422, "{}", r.body);
    let lease = "/apis/coordination.k8s.io/v1/namespaces/default/leases/held";
    assert_eq!(patch(&server, lease, "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await.code, 200);
}

/// Seed 2: a custom resource's PUT of another version and kind was refused for them, though
/// its metadata did not decode. Its decoder reads the metadata of any kind as an ObjectMeta
/// first (`schemaCoercingDecoder`, apiextensions-apiserver pkg/apiserver/customresource_handler.go).
async fn a_custom_resource_s_metadata_decodes_before_its_kind_is_checked(server: Server) {
    let group = define_widgets(&server, "decoded").await;
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w", "labels": {"a": {}}}});
    let r = put(&server, &format!("/apis/{group}/v1/namespaces/default/widgets/w"), body).await;
    let why = "ConfigMap in version \"v1\" cannot be handled as a Widget: json: cannot unmarshal object into Go struct field ObjectMeta.labels of type string";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
}

/// Seed 2: an apply of an object of another namespace and no name was refused for its name.
/// The patch handler checks the patched object's namespace first (`patcher.applyPatch`,
/// k8s.io/apiserver pkg/endpoints/handlers/patch.go).
async fn an_apply_checks_the_namespace_before_the_name(server: Server) {
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": "elsewhere"}});
    let r = patch(&server, &format!("{}?fieldManager=f", cm_path("nameless")), "application/apply-patch+yaml", config).await;
    let why = "the namespace of the provided object does not match the namespace sent on the request";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
}

/// Seed 2: a custom resource's status write that sent no status stored a null one and gave
/// the writer its ownership. The status strategy removes a status the request does not hold
/// (apiextensions-apiserver pkg/registry/customresource/status_strategy.go).
async fn a_custom_resource_s_status_write_without_status_removes_it(server: Server) {
    let group = format!("{}.findings.example.com", "statused");
    let definition = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("gizmos.{group}")},
        "spec": {"group": group, "scope": "Namespaced", "names": {"kind": "Gizmo", "plural": "gizmos"},
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]},
    });
    let r = post(&server, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", definition).await;
    assert!(r.code == 201 || r.code == 409, "{}", r.body);
    let gizmos = format!("/apis/{group}/v1/namespaces/default/gizmos");
    let gizmo = json!({"apiVersion": format!("{group}/v1"), "kind": "Gizmo", "metadata": {"name": "g"}, "spec": {"size": 1}});
    let created = eventually(&server, &gizmos, |r| r.code == 200).await;
    assert_eq!(created.code, 200);
    assert_eq!(post(&server, &gizmos, gizmo).await.code, 201);
    let r =
        patch(&server, &format!("{gizmos}/g/status"), "application/merge-patch+json", json!({"metadata": {"labels": {"app": "x"}}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert!(r.body.get("status").is_none(), "{}", r.body);
    let managers: Vec<&Value> = r.body["metadata"]["managedFields"].as_array().unwrap().iter().collect();
    assert!(managers.iter().all(|m| m.get("subresource").is_none()), "{managers:?}");
}

/// Seed 2: a patch of a pod's ephemeral containers that also changed its labels recorded no
/// ownership of them. The handler's field manager gives the writer every field its request
/// changed; the strategy then drops all but the ephemeral containers (`podEphemeralContainersStrategy`,
/// kubernetes pkg/registry/core/pod/strategy.go, resets no field the manager records).
async fn an_ephemeral_containers_write_owns_every_field_it_sent(server: Server) {
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "debugged"},
        "spec": {"containers": [{"name": "main", "image": "busybox"}]}});
    assert_eq!(post(&server, "/api/v1/namespaces/default/pods", pod).await.code, 201);
    let change = json!({"metadata": {"labels": {"app": "x"}},
        "spec": {"ephemeralContainers": [{"name": "debug", "image": "busybox"}], "containers": [{"name": "main", "image": "nginx"}]}});
    let uri = "/api/v1/namespaces/default/pods/debugged/ephemeralcontainers?fieldManager=debugger";
    let r = patch(&server, uri, "application/strategic-merge-patch+json", change).await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert!(r.body["metadata"].get("labels").is_none(), "{}", r.body["metadata"]);
    assert_eq!(r.body["spec"]["containers"][0]["image"], "busybox");
    let debugger = r.body["metadata"]["managedFields"].as_array().unwrap().iter().find(|m| m["manager"] == "debugger").unwrap().clone();
    assert_eq!(debugger["subresource"], "ephemeralcontainers");
    assert_eq!(debugger["fieldsV1"]["f:metadata"], json!({"f:labels": {".": {}, "f:app": {}}}));
    assert_eq!(debugger["fieldsV1"]["f:spec"]["f:containers"], json!({"k:{\"name\":\"main\"}": {"f:image": {}}}));
    let r = delete(&server, "/api/v1/namespaces/default/pods/debugged", json!({"gracePeriodSeconds": 0})).await;
    assert_eq!(r.code, 200);
}

/// Seed 2: an apply whose managedFields was a number was refused as one that brings
/// managedFields, and numbers in an apply's typing errors were printed as floats. The field
/// manager finds managed fields only in a list (the unstructured accessor), so a number fails
/// the typing of the configuration, which apimachinery's `yaml.Unmarshal` read with its
/// integers kept (k8s.io/apimachinery pkg/util/yaml).
async fn an_apply_s_managed_fields_of_the_wrong_type_fail_its_typing(server: Server) {
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "typed", "managedFields": 4347108077821797530_i64}});
    let r = patch(&server, &format!("{}?fieldManager=f", cm_path("typed")), "application/apply-patch+yaml", config).await;
    let why = "failed to create typed patch object (/typed; /v1, Kind=ConfigMap): .metadata.managedFields: expected list, got &{4347108077821797530}";
    assert_eq!((r.code, &r.body["message"]), (500, &json!(why)), "{}", r.body);
    // Seed 11: a list of entries that are not objects was refused as managed fields given.
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "typed", "managedFields": ["a"]}});
    let r = patch(&server, &format!("{}?fieldManager=f", cm_path("typed")), "application/apply-patch+yaml", config).await;
    let why = "failed to create typed patch object (/typed; /v1, Kind=ConfigMap): .metadata.managedFields[0]: expected map, got &{a}";
    assert_eq!((r.code, &r.body["message"]), (500, &json!(why)), "{}", r.body);
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "typed", "managedFields": [{"manager": "m"}]}});
    let r = patch(&server, &format!("{}?fieldManager=f", cm_path("typed")), "application/apply-patch+yaml", config).await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("metadata.managedFields must be nil")), "{}", r.body);
}

/// Seed 3: a collection's DELETE with an unknown propagation policy and a dry run of `all`
/// named only the policy, and one with a body of another kind was refused for the body before
/// its field selector. The handler decodes and converts the list options first, then the body,
/// then lists every rule the options break (`DeleteCollection`, k8s.io/apiserver
/// pkg/endpoints/handlers/delete.go; `ValidateDeleteOptions`).
async fn a_collection_delete_reads_its_selectors_then_lists_every_broken_option(server: Server) {
    let r = delete(&server, &format!("{}?propagationPolicy=orphan&dryRun=all", cm_path("")), Value::Null).await;
    assert_eq!(r.code, 422, "{}", r.body);
    let fields: Vec<&Value> = r.body["details"]["causes"].as_array().unwrap().iter().map(|c| &c["field"]).collect();
    assert_eq!(fields, [&json!("propagationPolicy"), &json!("dryRun")]);
    let r = delete(&server, &format!("{}?fieldSelector=nope%3D1", cm_path("")), configmap("body", &[])).await;
    let why = "\"nope\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
}

/// Seed 3: a Scale PUT of `null` scaled the StatefulSet. The update handler needs the body's
/// name (`checkName`, k8s.io/apiserver pkg/endpoints/handlers/rest.go).
async fn a_scale_put_names_its_object(server: Server) {
    let sets = "/apis/apps/v1/namespaces/default/statefulsets";
    let set = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "scaled"},
        "spec": {"selector": {"matchLabels": {"app": "s"}}, "template": {"metadata": {"labels": {"app": "s"}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}});
    assert_eq!(post(&server, sets, set).await.code, 201);
    let r = raw(&server, Method::PUT, &format!("{sets}/scaled/scale"), Some("application/json"), "null").await;
    let why = "the name of the object (scaled based on URL) was undeterminable: name must be provided";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
    // Seed 11: a body of the parent's kind was refused for an absent parent as not found; the
    // handler decodes the body as a Scale before it reads the parent.
    let parent = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "unscaled"}});
    let r = put(&server, &format!("{sets}/unscaled/scale"), parent).await;
    let why = "StatefulSet in version \"v1\" cannot be handled as a Scale: converting (v1.StatefulSet) to (autoscaling.Scale): unknown conversion";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
}

/// Seed 3: a list in the namespace `..` with a continue token that does not decode was
/// refused for its key. The storage reads the token first (k8s.io/apiserver pkg/storage).
async fn a_continue_token_is_read_before_the_key(server: Server) {
    let r = get(&server, "/api/v1/namespaces/../configmaps?continue=%25%25%25").await;
    let why = "invalid continue token: continue key is not valid: illegal base64 data at input byte 0";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
}

/// Seed 3: a DELETE through a custom resource's `/watch/` path naming an object across
/// namespaces was a 404. The apiextensions server watches there whatever the method, one
/// object of every namespace too (`crdHandler.serveResource`), so its options are checked.
async fn a_custom_resource_s_watch_path_watches_one_object_of_every_namespace(server: Server) {
    let group = define_widgets(&server, "watched").await;
    let uri = format!("/apis/{group}/v1/watch/widgets/w?fieldSelector=nope%3D1");
    let r = raw(&server, Method::DELETE, &uri, None, Body::empty()).await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("field label not supported: nope")), "{}", r.body);
}

/// Seeds 2 and 3: an apply whose timestamps were objects was refused by the decoding after
/// it, or for its name. Field management types the configuration first: a time is any scalar
/// to it (kube-openapi schemaconv makes a `date-time` string an untyped scalar), and the
/// refusal is a 500 (apimachinery managedfields/internal/structuredmerge.go).
async fn an_apply_s_timestamps_are_typed_as_any_scalar(server: Server) {
    let config =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other", "creationTimestamp": {"a": [null, true, 1.5]}}});
    let r = patch(&server, &format!("{}?fieldManager=f", cm_path("timed")), "application/apply-patch+yaml", config).await;
    let why = "failed to create typed patch object (/other; /v1, Kind=ConfigMap): .metadata.creationTimestamp: expected any scalar, got &{map[a:[<nil> true 1.5]]}";
    assert_eq!((r.code, &r.body["message"]), (500, &json!(why)), "{}", r.body);
}

/// Seed 11: a PUT whose uid was not the stored object's was refused as an immutable field.
/// The update handler makes the body's uid a precondition (`defaultUpdatedObjectInfo.
/// Preconditions`, k8s.io/apiserver pkg/registry/rest/update.go), which the store checks
/// before the update (etcd3 `GuaranteedUpdate`): a 409, also where a PUT would create. A
/// PATCH has no precondition, so the patched uid is the immutable field.
async fn a_put_s_uid_is_a_precondition_on_what_is_stored(server: Server) {
    let stored = create_cm(&server, "uid-held", &[]).await;
    let uid = stored["metadata"]["uid"].as_str().unwrap();
    let mut body = stored.clone();
    body["metadata"]["uid"] = json!("other");
    let r = put(&server, &cm_path("uid-held"), body).await;
    let key = format!("/registry/configmaps/{}/uid-held", server.namespace());
    let why = format!(
        "Operation cannot be fulfilled on configmaps \"uid-held\": StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: {uid}"
    );
    assert_eq!((r.code, &r.body["message"]), (409, &json!(why)), "{}", r.body);
    let leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
    let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "uid-new", "uid": "other"}});
    let r = put(&server, &format!("{leases}/uid-new"), lease).await;
    assert_eq!(r.code, 409, "{}", r.body);
    assert!(r.body["message"].as_str().unwrap().ends_with("UID in precondition: other, UID in object meta: "), "{}", r.body);
    let r = patch(&server, &cm_path("uid-held"), "application/merge-patch+json", json!({"metadata": {"uid": "other"}})).await;
    assert_eq!((r.code, &r.body["details"]["causes"][0]["field"]), (422, &json!("metadata.uid")), "{}", r.body);
}

/// The fields of a refused write's causes.
fn cause_fields(r: &Raw) -> Vec<&str> {
    r.body["details"]["causes"].as_array().unwrap().iter().map(|c| c["field"].as_str().unwrap()).collect()
}

/// Seed 11: a ConfigMap with a broken owner reference and finalizer was refused for the
/// finalizer first. apimachinery's `ValidateObjectMetaAccessor` checks owner references
/// before finalizers.
async fn owner_references_are_validated_before_finalizers(server: Server) {
    let mut body = configmap("ordered", &["not a finalizer"]);
    body["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": ""}]);
    let r = post(&server, &cm_path(""), body).await;
    assert_eq!(r.code, 422, "{}", r.body);
    assert_eq!(cause_fields(&r), ["metadata.ownerReferences[0].uid", "metadata.finalizers", "metadata.finalizers[0]"]);
}

/// Seed 11: an update of a custom resource (or a definition) with bad labels was refused once
/// for them. apiextensions-apiserver keeps every error of `rest.BeforeUpdate`'s common rules,
/// the create rules and then the update rules (which check labels, annotations and owner
/// references again), and of its strategy's `ValidateObjectMetaUpdate` after them
/// (pkg/registry/customresource/validator.go `ValidateUpdate`); kube-apiserver's own kinds
/// answer each error once. The message, an aggregate, names each error once.
async fn custom_resources_list_their_metadata_update_errors_three_times(server: Server) {
    let group = define_widgets(&server, "thrice").await;
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": "w"}});
    let created = post(&server, &widgets, widget).await;
    assert_eq!(created.code, 201, "{}", created.body);
    let mut body = created.body.clone();
    body["metadata"]["labels"] = json!({"bad key!": "v"});
    body["metadata"]["finalizers"] = json!(["not a finalizer"]);
    let r = put(&server, &format!("{widgets}/w"), body).await;
    assert_eq!(r.code, 422, "{}", r.body);
    assert_eq!(cause_fields(&r), ["metadata.labels", "metadata.finalizers", "metadata.labels", "metadata.labels"]);
    // The message names each error once (`ErrorList.ToAggregate`).
    assert_eq!(r.body["message"].as_str().unwrap().matches("metadata.labels:").count(), 1, "{}", r.body);
    let mut body = create_cm(&server, "once", &[]).await;
    body["metadata"]["labels"] = json!({"bad key!": "v"});
    let r = put(&server, &cm_path("once"), body).await;
    assert_eq!(cause_fields(&r), ["metadata.labels"], "{}", r.body);
}

/// Seed 11: a status PUT without a phase on a terminating namespace was accepted and left it
/// with no phase. A namespace's phase defaults to `Active` (`SetDefaults_NamespaceStatus`,
/// pkg/apis/core/v1/defaults.go) and a status write must keep it to the deletion
/// (`ValidateNamespaceStatusUpdate`, pkg/apis/core/validation).
async fn a_namespace_s_phase_follows_its_deletion(server: Server) {
    let name = format!("{}-phase", server.namespace());
    let namespace = |status: Value| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, "status": status});
    let mut held = namespace(json!({}));
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    assert_eq!(post(&server, "/api/v1/namespaces", held).await.code, 201);
    let status = format!("/api/v1/namespaces/{name}/status");
    let r = put(&server, &status, namespace(json!({"phase": "Terminating"}))).await;
    let active_only = "may only be 'Active' if `deletionTimestamp` is empty";
    assert_eq!(
        (r.code, &r.body["details"]["causes"][0]["message"]),
        (422, &json!(format!("Invalid value: \"Terminating\": {active_only}")))
    );
    assert_eq!(delete(&server, &format!("/api/v1/namespaces/{name}"), Value::Null).await.code, 200);
    let r = put(&server, &status, namespace(json!({}))).await;
    let terminating_only = "Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty";
    assert_eq!((r.code, &r.body["details"]["causes"][0]["field"]), (422, &json!("status.Phase")), "{}", r.body);
    assert_eq!(r.body["details"]["causes"][0]["message"], json!(terminating_only));
    assert_eq!(get(&server, &format!("/api/v1/namespaces/{name}")).await.body["status"]["phase"], json!("Terminating"));
    let r =
        patch(&server, &format!("/api/v1/namespaces/{name}"), "application/merge-patch+json", json!({"metadata": {"finalizers": null}}))
            .await;
    assert_eq!(r.code, 200, "{}", r.body);
}

/// Seed 11: a PUT that removed the last finalizer of a deleted ClusterRole answered with
/// `rules: null` where it sent `rules: []`. The store deletes the object and answers with the
/// request's object as decoded, not as stored (`deleteWithoutFinalizers`, k8s.io/apiserver
/// pkg/registry/generic/registry/store.go), and a decoded Go slice that is empty is still `[]`.
async fn an_update_that_ends_a_deletion_answers_with_the_request_s_object(server: Server) {
    let roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
    let name = format!("{}-ended", server.namespace());
    let role = |finalizers: Value| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name, "finalizers": finalizers}, "rules": []})
    };
    let created = post(&server, roles, role(json!(["example.com/hold"]))).await;
    assert_eq!((created.code, &created.body["rules"]), (201, &Value::Null), "stored without the empty list: {}", created.body);
    assert_eq!(delete(&server, &format!("{roles}/{name}"), Value::Null).await.code, 200);
    let r = put(&server, &format!("{roles}/{name}"), role(Value::Null)).await;
    assert_eq!((r.code, &r.body["rules"]), (200, &json!([])), "{}", r.body);
    assert_eq!(get(&server, &format!("{roles}/{name}")).await.code, 404);
}

/// Seed 11: a custom resource PUT of `null` was refused for its name, and bodies without a
/// kind or a version took the URL's. The unstructured decoder reads both from the body alone
/// (k8s.io/apimachinery pkg/runtime/serializer/json `Serializer.Decode`): no kind is a decode
/// error quoting the whole body, no version one the handler refuses.
async fn a_custom_resource_s_body_names_its_kind_and_version(server: Server) {
    let group = define_widgets(&server, "unkinded").await;
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let r = raw(&server, Method::PUT, &format!("{widgets}/w"), Some("application/json"), "null").await;
    let missing = "the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in 'null' (6e756c6c)";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(missing)), "{}", r.body);
    let body = format!(r#"{{"apiVersion":"{group}/v1","metadata":{{"name":"w"}}}}"#);
    let r = raw(&server, Method::POST, &widgets, Some("application/json"), body.clone()).await;
    let summary = format!("{} ...", &body[..30]);
    let missing = format!("the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in '{body}' ({summary})");
    assert_eq!((r.code, &r.body["message"]), (400, &json!(missing)), "{}", r.body);
    let r = post(&server, &widgets, json!({"kind": "Widget", "metadata": {"name": "w"}})).await;
    let unversioned = format!("the API version in the data () does not match the expected API version ({group}/v1)");
    assert_eq!((r.code, &r.body["message"]), (400, &json!(unversioned)), "{}", r.body);
}

/// Seed 11: an events.k8s.io/v1 Event's metadata errors came before the Event's own. Its
/// validation (`ValidateEventCreate`, kubernetes pkg/apis/core/validation/events.go) runs the
/// old form's rules, then the metadata's, then the new form's; a core/v1 Event's checks no
/// metadata, so only the common rule of `BeforeCreate` (any path segment as a name) follows,
/// once the Event passed.
async fn events_are_validated_by_the_rules_of_the_api_they_are_written_through(server: Server) {
    let ns = server.namespace();
    let core = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "Old_Form"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": ns}, "reason": "R"});
    let r = post(&server, "/api/v1/namespaces/default/events", core).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let mut event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e"},
        "regarding": {"kind": "Pod", "name": "p"}, "reason": "R", "action": "A", "type": "Normal",
        "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "example.com/c", "reportingInstance": "i"});
    let r = post(&server, "/apis/events.k8s.io/v1/namespaces//events", event.clone()).await;
    let fields = ["involvedObject.namespace", "metadata.namespace"];
    assert_eq!((r.code, cause_fields(&r)), (422, fields.to_vec()), "{}", r.body);
    event["regarding"]["namespace"] = json!(ns);
    event["metadata"]["name"] = json!("New_Form");
    event["type"] = json!("Odd");
    event["deprecatedCount"] = json!(3);
    let r = post(&server, "/apis/events.k8s.io/v1/namespaces/default/events", event).await;
    assert_eq!((r.code, cause_fields(&r)), (422, vec!["metadata.name", "type", "count"]), "{}", r.body);
    let odd = r.body["details"]["causes"][1]["message"].as_str();
    assert_eq!(odd, Some("Invalid value: \"\": has invalid value: Odd"), "{}", r.body);
}

/// Seed 11: an apply of YAML that does not parse to a pod's status or ephemeral containers was
/// refused for its YAML where the pod was absent. The apply patcher reads the configuration once
/// the store found the object, and only the main resource is created when absent.
async fn an_apply_to_a_subresource_finds_its_object_before_it_reads_the_configuration(server: Server) {
    for sub in ["status", "ephemeralcontainers"] {
        let path = format!("/api/v1/namespaces/default/pods/unapplied/{sub}?fieldManager=f");
        let r = raw(&server, Method::PATCH, &path, Some("application/apply-patch+yaml"), "{\"metadata\": ").await;
        assert_eq!((r.code, r.body["message"].as_str()), (404, Some(r#"pods "unapplied" not found"#)), "{sub}: {}", r.body);
    }
    let r = raw(
        &server,
        Method::PATCH,
        "/api/v1/namespaces/default/pods/unapplied?fieldManager=f",
        Some("application/apply-patch+yaml"),
        "{\"metadata\": ",
    )
    .await;
    assert_eq!(r.code, 400, "{}", r.body);
}

/// Seed 11: a PUT of an absent Service's status was 404. The status store inherits the
/// Service's create on update, so it creates the Service: status reset as on any create, the
/// writer owning no spec, and nothing allocated (kubernetes pkg/registry/core/service/storage
/// `StatusREST`).
async fn a_service_s_status_put_creates_it_through_the_status_store(server: Server) {
    let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "unallocated", "labels": {"app": "x"}},
        "spec": {"ports": [{"port": 80}]}, "status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}});
    let r = put(&server, "/api/v1/namespaces/default/services/unallocated/status", service.clone()).await;
    assert_eq!((r.code, &r.body["status"], &r.body["spec"]["clusterIP"]), (201, &json!({"loadBalancer": {}}), &Value::Null), "{}", r.body);
    let entry = &r.body["metadata"]["managedFields"][0];
    assert_eq!(entry["subresource"], "status", "{}", r.body);
    assert!(entry["fieldsV1"].get("f:spec").is_none() && entry["fieldsV1"]["f:status"].is_object(), "{}", r.body);
    // Seed 1 at 100,000 requests: an apply through the status store creates too, where a
    // merge patch finds nothing to patch (`patcher.applyPatch`, k8s.io/apiserver
    // pkg/endpoints/handlers/patch.go) and a pod's status store creates nothing.
    let status = "/api/v1/namespaces/default/services/applied/status?fieldManager=f";
    let mut config = service.clone();
    config["metadata"]["name"] = json!("applied");
    let r = patch(&server, status, "application/apply-patch+yaml", config).await;
    assert_eq!((r.code, &r.body["status"]), (201, &json!({"loadBalancer": {}})), "{}", r.body);
    assert_eq!(r.body["metadata"]["managedFields"][0]["operation"], "Apply", "{}", r.body);
    let r = patch(&server, "/api/v1/namespaces/default/services/merged/status", "application/merge-patch+json", json!({})).await;
    assert_eq!(r.code, 404, "{}", r.body);
    let pod =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "unmade"}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
    let r = patch(&server, "/api/v1/namespaces/default/pods/unmade/status?fieldManager=f", "application/apply-patch+yaml", pod).await;
    assert_eq!(r.code, 404, "{}", r.body);
}

/// Seed 11: an applied finalizer that was an object was typed as a string, and a volume's
/// status write that changed its phase kept no time of the change. A set's item is a scalar
/// (structured-merge-diff typed/helpers.go `setItemToPathElement`); a changed phase is timed
/// unless the writer timed it (`persistentvolumeStatusStrategy.PrepareForUpdate`).
async fn a_set_s_items_are_scalars_and_a_volume_s_phase_change_is_timed(server: Server) {
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "finalized", "finalizers": [{"a": 1}]}});
    let r = patch(&server, &format!("{}?fieldManager=f", cm_path("finalized")), "application/apply-patch+yaml", config).await;
    let why = "failed to create typed patch object (/finalized; /v1, Kind=ConfigMap): .metadata.finalizers: element 0: associative list without keys has an element that's a map type";
    assert_eq!((r.code, r.body["message"].as_str()), (500, Some(why)), "{}", r.body);
    let name = format!("{}-timed", server.namespace());
    let volume = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/x"},
            "claimRef": {"namespace": server.namespace(), "name": "missing"}}});
    let created = post(&server, "/api/v1/persistentvolumes", volume).await;
    assert_eq!(created.code, 201, "{}", created.body);
    // Upstream's volume controller writes the status too: a volume bound to a claim that does
    // not exist it keeps Released (pkg/controller/volume/persistentvolume/pv_controller.go,
    // `syncVolume`), and unconditional writes do not race it for the resourceVersion.
    let mut released = created.body.clone();
    released["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    released["status"] = json!({"phase": "Released"});
    let r = put(&server, &format!("/api/v1/persistentvolumes/{name}/status"), released.clone()).await;
    assert_eq!((r.code, r.body["status"]["phase"].as_str()), (200, Some("Released")), "{}", r.body);
    assert!(r.body["status"]["lastPhaseTransitionTime"].is_string(), "{}", r.body);
    released["status"] = json!({"phase": "Released"});
    let again = put(&server, &format!("/api/v1/persistentvolumes/{name}/status"), released).await;
    assert_eq!(again.body["status"]["lastPhaseTransitionTime"], r.body["status"]["lastPhaseTransitionTime"], "{}", again.body);
    assert_eq!(delete(&server, &format!("/api/v1/persistentvolumes/{name}"), Value::Null).await.code, 200);
}

/// Seed 11: a list of every namespace's Services lacked `kubernetes`, which kube-apiserver
/// creates in `default` (kubernetes pkg/controlplane/controller/kubernetesservice/controller.go).
async fn the_kubernetes_service_of_default_sends_to_the_api_server(server: Server) {
    let selector = "fieldSelector=metadata.namespace%3Ddefault,metadata.name%3Dkubernetes";
    let only = |path: &'static str| {
        let server = server.clone();
        async move {
            let r = get(&server, &format!("{path}?{selector}")).await;
            assert_eq!((r.code, r.body["items"].as_array().map(Vec::len)), (200, Some(1)), "{path}: {}", r.body);
            r.body["items"][0].clone()
        }
    };
    let service = only("/api/v1/services").await;
    assert_eq!(service["metadata"]["labels"], json!({"component": "apiserver", "provider": "kubernetes"}));
    assert_eq!(service["metadata"]["managedFields"][0]["manager"], "kube-apiserver");
    assert_eq!((&service["spec"]["clusterIP"], &service["spec"]["type"]), (&json!("10.96.0.1"), &json!("ClusterIP")));
    let port = &service["spec"]["ports"][0];
    assert_eq!((&port["name"], &port["port"], &port["protocol"]), (&json!("https"), &json!(443), &json!("TCP")));
    assert!(port["targetPort"].is_u64(), "the secure port: {port}");
    let port_fields = json!({".": {}, "f:name": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {}});
    let spec_fields = json!({"f:clusterIP": {}, "f:internalTrafficPolicy": {}, "f:ipFamilyPolicy": {}, "f:sessionAffinity": {}, "f:type": {},
        "f:ports": {".": {}, "k:{\"port\":443,\"protocol\":\"TCP\"}": port_fields}});
    let labels = json!({".": {}, "f:component": {}, "f:provider": {}});
    assert_eq!(service["metadata"]["managedFields"][0]["fieldsV1"], json!({"f:metadata": {"f:labels": labels}, "f:spec": spec_fields}));
    // No Endpoints: kubegc's upstream control plane runs without the endpoint reconciler (it
    // refuses a loopback address), and the fake starts as that control plane does.
    let endpoints = get(&server, &format!("/api/v1/endpoints?{selector}")).await;
    assert_eq!(endpoints.body["items"], json!([]), "{}", endpoints.body);
}

/// Seed 11: a PersistentVolume POSTed as `null` was refused for its name alone, and a volume of
/// no source was accepted. `ValidatePersistentVolume` checks the spec beside the metadata:
/// access modes, a capacity of storage only, exactly one source and that source's own fields
/// (kubernetes pkg/apis/core/validation/validation.go, `ValidatePersistentVolumeSpec`).
async fn a_volume_s_spec_needs_access_modes_a_storage_capacity_and_one_source(server: Server) {
    let r = post(&server, "/api/v1/persistentvolumes", Value::Null).await;
    let why = "PersistentVolume \"\" is invalid: [metadata.name: Required value: name or generateName is required, spec.accessModes: Required value, spec.capacity: Required value, spec.capacity: Unsupported value: null: supported values: \"storage\", spec: Required value: must specify a volume type]";
    assert_eq!((r.code, r.body["message"].as_str()), (422, Some(why)), "{}", r.body);
    let volume = |spec: Value| json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "checked"}, "spec": spec});
    let dry_run = "/api/v1/persistentvolumes?dryRun=All";
    let many = json!({"accessModes": ["ReadWriteOncePod", "ReadWriteOnce", "Sometimes"], "capacity": {"storage": "1Gi"},
        "hostPath": {"path": "/a"}, "nfs": {"server": "s", "path": "/p"}, "cephfs": {"monitors": ["m"]}, "local": {"path": "/l"},
        "persistentVolumeReclaimPolicy": "Keep", "volumeMode": "Raw"});
    let r = post(&server, dry_run, volume(many)).await;
    assert_eq!(r.code, 422, "{}", r.body);
    let fields = [
        "spec.accessModes",
        "spec.accessModes",
        "spec.persistentVolumeReclaimPolicy",
        "spec.nfs",
        "spec.cephFS",
        "spec.local",
        "spec.volumeMode",
    ];
    assert_eq!(cause_fields(&r), fields, "{}", r.body);
    let sources = json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi", "cpu": "1"}, "nfs": {"path": "relative"}});
    let r = post(&server, dry_run, volume(sources)).await;
    assert_eq!(cause_fields(&r), ["spec.capacity", "spec.nfs.server", "spec.nfs.path"], "{}", r.body);
    for (source, fields) in [
        (json!({"csi": {}}), vec!["spec.csi.driver", "spec.csi.volumeHandle"]),
        (json!({"local": {"path": "/l"}}), vec!["spec.nodeAffinity"]),
        (json!({"hostPath": {}}), vec!["spec.hostPath.path"]),
    ] {
        let mut spec = json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}});
        spec.as_object_mut().unwrap().extend(source.as_object().unwrap().clone());
        let r = post(&server, dry_run, volume(spec)).await;
        assert_eq!(cause_fields(&r), fields, "{source}: {}", r.body);
    }
}

/// Seed 11: a claim without access modes or a storage request was created, and any field of
/// its spec changed later. Upstream `ValidatePersistentVolumeClaimSpec` and
/// `ValidatePersistentVolumeClaimUpdate` (kubernetes pkg/apis/core/validation/validation.go):
/// an update may set the volume name once and a class where none was, nothing else.
async fn a_claim_s_spec_needs_access_modes_and_a_storage_request_and_changes_little(server: Server) {
    let claims = "/api/v1/namespaces/default/persistentvolumeclaims";
    let claim =
        |name: &str, spec: Value| json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec});
    let r = post(&server, claims, claim("empty", json!({}))).await;
    let why = "PersistentVolumeClaim \"empty\" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]";
    assert_eq!((r.code, r.body["message"].as_str()), (422, Some(why)), "{}", r.body);
    let bad = json!({"accessModes": ["ReadWriteOncePod", "ReadOnlyMany", "Sometimes"], "resources": {"requests": {"storage": "0"}},
        "storageClassName": "Not_A_Name", "volumeMode": "Raw"});
    let r = post(&server, &format!("{claims}?dryRun=All"), claim("bad", bad)).await;
    let fields = ["spec.accessModes", "spec.accessModes", "spec.resources[storage]", "spec.storageClassName", "spec.volumeMode"];
    assert_eq!(cause_fields(&r), fields, "{}", r.body);
    let good = json!({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}});
    let r = post(&server, claims, claim("kept", good)).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let mut stored = r.body;
    let at = format!("{claims}/kept");
    stored["spec"]["volumeName"] = json!("pv-1");
    stored["spec"]["storageClassName"] = json!("fast");
    let r = put(&server, &at, stored.clone()).await;
    assert_eq!(r.code, 200, "the volume name once and a first class may be set: {}", r.body);
    for (field, value) in [("storageClassName", json!("slow")), ("volumeName", json!("pv-2")), ("accessModes", json!(["ReadOnlyMany"]))] {
        let mut changed = r.body.clone();
        changed["spec"][field] = value;
        let refused = put(&server, &at, changed).await;
        assert_eq!(cause_fields(&refused), ["spec"], "{field}: {}", refused.body);
        let message = refused.body["details"]["causes"][0]["message"].as_str().unwrap();
        let why = "Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n";
        assert!(message.starts_with(why), "{field}: {message}");
    }
}

/// Seed 11: a volume's source and mode changed after creation. Upstream
/// `ValidatePersistentVolumeUpdate` (kubernetes pkg/apis/core/validation/validation.go).
async fn a_volume_s_source_and_mode_are_immutable(server: Server) {
    let name = format!("source-{}", server.namespace());
    let spec = json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}, "hostPath": {"path": "/a"}});
    let body = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec});
    let r = post(&server, "/api/v1/persistentvolumes", body).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let at = format!("/api/v1/persistentvolumes/{name}?dryRun=All");
    let stored = r.body;
    let mut changed = stored.clone();
    changed["spec"]["hostPath"]["path"] = json!("/b");
    changed["spec"]["volumeMode"] = json!("Block");
    changed["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    let r = put(&server, &at, changed).await;
    assert_eq!(cause_fields(&r), ["spec.persistentvolumesource", "volumeMode"], "{}", r.body);
    let message = r.body["details"]["causes"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("Forbidden: spec.persistentvolumesource is immutable after creation\n"), "{message}");
    assert_eq!(r.body["details"]["causes"][1]["message"], "Invalid value: \"Block\": field is immutable", "{}", r.body);
    let mut reclaimed = stored;
    reclaimed["spec"]["persistentVolumeReclaimPolicy"] = json!("Delete");
    // Unconditional: upstream's volume controller may have written the status since.
    reclaimed["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    assert_eq!(put(&server, &at, reclaimed).await.code, 200, "the reclaim policy may change");
}

/// Seed 11: an events.k8s.io/v1 Event's note and regarding object changed on update. Upstream
/// `ValidateEventUpdate` (kubernetes pkg/apis/core/validation/events.go) keeps every field but
/// the series through that API, names them by the internal type and shows its values as Go
/// writes them; core/v1 updates keep only the legacy rules.
async fn an_event_written_through_events_k8s_io_changes_only_its_series(server: Server) {
    let events = "/apis/events.k8s.io/v1/namespaces/default/events";
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "kept"},
        "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "fuzz", "reportingInstance": "fuzz",
        "action": "Fuzz", "reason": "Fuzz", "type": "Normal", "note": "first", "regarding": {"kind": "Pod", "name": "a", "namespace": server.namespace()}});
    let r = post(&server, events, event).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let stored = r.body;
    let mut changed = stored.clone();
    changed["note"] = json!("second");
    changed["reason"] = json!("Other");
    changed["regarding"]["name"] = json!("b");
    changed["related"] = json!({"kind": "Node", "name": "n"});
    changed["series"] = json!({"count": 1});
    changed["eventTime"] = json!("2024-01-01T00:00:00.000000+00:00");
    let r = put(&server, &format!("{events}/kept"), changed).await;
    assert_eq!(r.code, 422, "{}", r.body);
    let fields = ["series.count", "series.lastObservedTime", "involvedObject", "reason", "message", "related"];
    assert_eq!(cause_fields(&r), fields, "{}", r.body);
    let causes = r.body["details"]["causes"].as_array().unwrap();
    let messages: Vec<&str> = causes.iter().map(|c| c["message"].as_str().unwrap()).collect();
    let regarding = format!(
        r#"Invalid value: {{"Kind":"Pod","Namespace":"{}","Name":"b","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}}: field is immutable"#,
        server.namespace()
    );
    assert_eq!(messages[2], regarding);
    assert_eq!(messages[4], r#"Invalid value: "second": field is immutable"#);
    let mut series = stored.clone();
    series["series"] = json!({"count": 2, "lastObservedTime": "2024-01-01T00:01:00.000000Z"});
    assert_eq!(put(&server, &format!("{events}/kept"), series).await.code, 200);
    let r = get(&server, "/api/v1/namespaces/default/events/kept").await;
    let mut legacy = r.body;
    legacy["message"] = json!("changed through core/v1");
    assert_eq!(put(&server, "/api/v1/namespaces/default/events/kept", legacy).await.code, 200);
}

/// Seed 11: discovery's REST routes answered a GET whatever body type it named. Each is a
/// go-restful route that consumes the serializers' media types (k8s.io/apiserver
/// pkg/endpoints/discovery/legacy.go and version.go), and go-restful checks the body type
/// before what the client accepts; the group's document is the aggregator's, which checks none.
async fn discovery_routes_consume_the_api_s_media_types(server: Server) {
    for (path, content_type, code) in [
        ("/api/v1/", "application/json-patch+json", 415),
        ("/apis/apps/v1", "application/merge-patch+json", 415),
        ("/apis/apps/v1", "application/cbor", 415),
        ("/api", "application/yaml", 200),
        ("/api/v1", "application/vnd.kubernetes.protobuf; charset=utf-8", 200),
        ("/apis/apps", "application/merge-patch+json", 200),
        ("/apis/apps/v0", "application/merge-patch+json", 404),
    ] {
        let r = raw(&server, Method::GET, path, Some(content_type), Body::empty()).await;
        assert_eq!(r.code, code, "{path} with {content_type}: {}", r.body);
    }
    let metadata = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    let request =
        http::Request::builder().uri("/api/").header("accept", metadata).header("content-type", "application/strategic-merge-patch+json");
    let r = server.send(request.body(Body::empty()).unwrap()).await;
    assert_eq!((r.code, r.body["message"].as_str()), (415, Some("415: Unsupported Media Type")), "{}", r.body);
}

/// Seed 11: paths under `/apis//` got a NotFound Status. They name the empty group, which no
/// REST router owns: the mux answers its plain 404.
async fn paths_of_the_empty_group_are_the_mux_s(server: Server) {
    let frob = Method::from_bytes(b"FROB").unwrap();
    for (method, path) in [
        (Method::DELETE, "/apis//binding"),
        (Method::POST, "/apis//scale"),
        (Method::PUT, "/apis//finalize"),
        (Method::PATCH, "/apis//ephemeralcontainers"),
        (frob, "/apis//scale"),
    ] {
        let r = raw(&server, method.clone(), path, Some("application/merge-patch+json"), "{}").await;
        assert_eq!((r.code, r.body.is_null()), (404, true), "{method} {path}: {}", r.body);
    }
}

/// Seed 11: an OpenAPI v3 document asked for with an Accept header of no media range got 406;
/// kube-openapi's handler (pkg/handler3/handler.go) writes nothing when goautoneg finds no
/// clause in it.
async fn an_openapi_document_asked_for_in_no_media_range_is_empty(server: Server) {
    for method in [Method::GET, Method::DELETE] {
        let request = http::Request::builder().method(method.clone()).uri("/openapi/v3/api/v1").header("accept", ";;;");
        let r = server.send(request.body(Body::empty()).unwrap()).await;
        assert_eq!((r.code, r.body.is_null()), (200, true), "{method}: {}", r.body);
    }
}

/// Seed 11: an Event created through events.k8s.io/v1 and patched through core v1 kept its
/// events.k8s.io manager. structured-merge-diff's updater drops every other manager whose
/// version the object cannot be converted to (`Updater.update`, merge/update.go): another
/// group's, or a version not served; an apiVersion that is no group/version fails the update,
/// which then keeps the stored managers (apimachinery managedfields `UpdateNoErrors`).
async fn managers_at_a_version_the_object_does_not_convert_to_are_dropped(server: Server) {
    let managers = |r: &Raw| -> Vec<(String, String)> {
        let entries = r.body["metadata"]["managedFields"].as_array().cloned().unwrap_or_default();
        entries.iter().map(|e| (e["manager"].as_str().unwrap().to_string(), e["apiVersion"].as_str().unwrap().to_string())).collect()
    };
    let pair = |m: &str, v: &str| (m.to_string(), v.to_string());
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "moved"},
        "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "fuzz", "reportingInstance": "fuzz",
        "action": "Fuzz", "reason": "Fuzz", "type": "Normal", "regarding": {"kind": "Pod", "name": "a", "namespace": server.namespace()}});
    let r = post(&server, "/apis/events.k8s.io/v1/namespaces/default/events?fieldManager=new", event).await;
    assert_eq!(managers(&r), [pair("new", "events.k8s.io/v1")], "{}", r.body);
    let labels = json!({"metadata": {"labels": {"app": "x"}}});
    let r = patch(&server, "/api/v1/namespaces/default/events/moved?fieldManager=core", "application/merge-patch+json", labels).await;
    assert_eq!(managers(&r), [pair("core", "v1")], "{}", r.body);

    let r = post(&server, "/api/v1/namespaces/default/configmaps", json!({"metadata": {"name": "versions"}, "data": {"x": "1", "y": "2"}}))
        .await;
    assert_eq!(r.code, 201, "{}", r.body);
    let entry = |manager: &str, version: &str, key: &str| json!({"manager": manager, "operation": "Update", "apiVersion": version, "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {key: {}}}});
    let set = |entries: Vec<Value>| json!({"metadata": {"managedFields": entries}, "data": {"x": "1", "y": "2"}});
    let body = set(vec![entry("old", "v9", "f:x"), entry("other", "apps/v1", "f:y"), entry("kept", "v1", "f:y")]);
    let r = patch(&server, &format!("{}?fieldManager=m", cm_path("versions")), "application/merge-patch+json", body).await;
    assert_eq!(managers(&r), [pair("kept", "v1")], "{}", r.body);
    let mut body = set(vec![entry("bad", "a/b/c", "f:x")]);
    body["metadata"]["labels"] = json!({"app": "x"});
    let r = patch(&server, &format!("{}?fieldManager=m", cm_path("versions")), "application/merge-patch+json", body).await;
    assert_eq!((managers(&r), r.body["metadata"]["labels"].clone()), (vec![pair("kept", "v1")], json!({"app": "x"})), "{}", r.body);
}

/// Seed 11: a field no Go type declares went unwarned when it held null (the fake read a null
/// as an absent known field). sigs.k8s.io/json's strict decoding reports an unknown key
/// whatever it holds; the update handler warns before it compares the names.
async fn an_unknown_field_holding_null_is_unknown(server: Server) {
    let body = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "other", "labels": null, "bogus": null},
        "spec": {"app": null, "containers": [{"name": "c", "image": "i", "extra": null}], "nodeName": null}});
    let r = put(&server, "/api/v1/namespaces/default/pods/status", body).await;
    assert_eq!(r.code, 400, "{}", r.body);
    let fields = ["metadata.bogus", "spec.app", "spec.containers[0].extra"];
    let named = |w: &String, f: &str| w.starts_with(r#"unknown field \""#) && w.contains(&format!(r#"\"{f}\"#));
    assert!(r.warnings.len() == 3 && r.warnings.iter().zip(fields).all(|(w, f)| named(w, f)), "{:?}", r.warnings);
}

/// Seed 11: a strategic merge patch naming another kind was refused as that kind. The strategic
/// patcher converts its result into the endpoint's type and then to the internal version, which
/// keeps no apiVersion or kind (k8s.io/apiserver pkg/endpoints/handlers/patch.go); a merge
/// patch's result is decoded as it reads, its kind included.
async fn a_strategic_merge_patch_s_type_meta_is_ignored(server: Server) {
    create_cm(&server, "typed", &[]).await;
    let path = format!("{}?dryRun=All", cm_path("typed"));
    let smp = "application/strategic-merge-patch+json";
    for body in [json!({"kind": "Pod", "apiVersion": "v9", "data": {"c": "d"}}), json!({"kind": null, "apiVersion": null})] {
        let r = patch(&server, &path, smp, body).await;
        assert_eq!((r.code, &r.body["kind"], &r.body["apiVersion"]), (200, &json!("ConfigMap"), &json!("v1")), "{}", r.body);
    }
    let r = patch(&server, &path, smp, json!({"apiVersion": 5})).await;
    assert_eq!(
        (r.code, r.body["message"].as_str()),
        (422, Some(r#" "" is invalid: patch: Invalid value: "map[apiVersion:5]": cannot convert int64 to string"#)),
        "{}",
        r.body
    );
    for (kind, api_version, why) in [
        ("Pod", "v1", "converting (v1.Pod) to (core.ConfigMap): unknown conversion"),
        ("ConfigMap", "v9", r#"no kind "ConfigMap" is registered for version "v9" in scheme "pkg/runtime/scheme.go:111""#),
    ] {
        let r = patch(&server, &path, "application/merge-patch+json", json!({"kind": kind, "apiVersion": api_version})).await;
        let message = r.body["message"].as_str().unwrap_or_default();
        assert!(r.code == 422 && message.ends_with(&format!(": {why}")), "{}", r.body);
    }
}

/// Seed 11: a definition of `null` got the fake's few checks in its own order, and one with no
/// schema was accepted. apiextensions validates the internal object (`ValidateCustomResourceDefinition`,
/// apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go): a schema for every
/// version, names, the stored versions, and versions shown with Go's field names, what all share
/// moved to the spec by the conversion.
async fn a_definition_is_validated_in_apiextensions_order_and_words(server: Server) {
    let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All";
    let r = raw(&server, Method::POST, path, Some("application/json"), "null").await;
    let fields = [
        "metadata.name",
        "spec.group",
        "spec.scope",
        "spec.versions",
        "spec.names.plural",
        "spec.names.singular",
        "spec.names.kind",
        "spec.names.listKind",
        "status.storedVersions",
    ];
    assert_eq!((r.code, cause_fields(&r)), (422, fields.to_vec()), "{}", r.body);
    let definition = |versions: Value| {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "foos.x.example.com"},
            "spec": {"group": "x.example.com", "scope": "Namespaced", "names": {"plural": "foos", "kind": "Foo"}, "versions": versions}})
    };
    let r = post(
        &server,
        path,
        definition(json!([{"name": "v1", "served": true, "storage": true}, {"name": "v2", "served": true, "storage": true}])),
    )
    .await;
    let version = |name: &str| {
        format!(
            r#"{{"Name":"{name}","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}}"#
        )
    };
    let message = format!(
        r#"CustomResourceDefinition.apiextensions.k8s.io "foos.x.example.com" is invalid: [spec.versions[0].schema.openAPIV3Schema: Required value, spec.versions[1].schema.openAPIV3Schema: Required value, spec.versions: Invalid value: [{},{}]: must have exactly one version marked as storage version, status.storedVersions: Invalid value: ["v1"]: must have the storage version v2]"#,
        version("v1"),
        version("v2")
    );
    assert_eq!(r.body["message"].as_str(), Some(message.as_str()), "{}", r.body);
    let schema = |properties: Value| json!({"openAPIV3Schema": {"type": "object", "properties": properties}});
    let r = post(
        &server,
        path,
        definition(json!([
            {"name": "v1", "served": true, "storage": false, "schema": schema(json!({"spec": {"type": "object"}}))},
            {"name": "V2", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
        ])),
    )
    .await;
    assert_eq!(cause_fields(&r), ["spec.versions[1].name", "spec.versions", "status.storedVersions"], "{}", r.body);
    let shown = r.body["details"]["causes"][1]["message"].as_str().unwrap_or_default();
    assert!(shown.starts_with(r#"Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":{"OpenAPIV3Schema":{"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","#), "{shown}");
}

/// Seed 11: a watch from no resourceVersion that allowed bookmarks sent none. The WatchList
/// defaults give such a watch `sendInitialEvents=true` (`SetListOptionsDefaults`,
/// k8s.io/apimachinery pkg/apis/meta/internalversion/defaults.go, as the watch handler reads its
/// `watch` parameter), so its initial events end with the annotated bookmark; a path under
/// `/watch/` is no `watch` parameter and keeps the legacy watch.
async fn a_watch_from_now_that_allows_bookmarks_ends_its_initial_events_with_one(server: Server) {
    const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
    create_cm(&server, "marked", &[]).await;
    let query = "allowWatchBookmarks=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dmarked";
    let seen = |r: &Raw| -> Vec<(String, String)> {
        let events = r.body.as_array().unwrap_or_else(|| panic!("no frames: {} {}", r.code, r.body));
        let initial_end = |e: &Value| e["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true";
        // A bookmark the server chooses to send (one before the watch's timeout) is not asked for.
        let asked = events.iter().filter(|e| e["type"] != "BOOKMARK" || initial_end(e));
        asked
            .map(|e| (e["type"].as_str().unwrap_or("").to_string(), e["object"]["metadata"]["name"].as_str().unwrap_or("").to_string()))
            .collect()
    };
    let pair = |t: &str, n: &str| (t.to_string(), n.to_string());
    for rv in ["", "&resourceVersion=0"] {
        let r =
            accepting(&server, Method::GET, &format!("/api/v1/namespaces/default/configmaps?watch=true&{query}{rv}"), PROTOBUF, None).await;
        assert_eq!(seen(&r), [pair("ADDED", "marked"), pair("BOOKMARK", "")], "{rv}: {}", r.body);
    }
    let r = accepting(&server, Method::GET, &format!("/api/v1/watch/namespaces/default/configmaps?{query}"), PROTOBUF, None).await;
    assert_eq!(seen(&r), [pair("ADDED", "marked")], "{}", r.body);
}

/// Seed 1 at 100,000 requests: a collection's DELETE with `resourceVersion=0` deleted what it
/// listed. Without a body, a DELETE's `uid` and `resourceVersion` query parameters are
/// preconditions (`Convert_url_Values_To_v1_DeleteOptions`, k8s.io/apimachinery
/// pkg/apis/meta/v1/conversion.go), of a collection's every item too, where the first that
/// fails them ends the delete (k8s.io/apiserver pkg/registry/generic/registry/store.go).
async fn a_delete_s_uid_and_resource_version_parameters_are_preconditions(server: Server) {
    let created = create_cm(&server, "preconditioned", &[]).await;
    let rv = created["metadata"]["resourceVersion"].as_str().unwrap();
    let r = delete(&server, &format!("{}?resourceVersion=1", cm_path("preconditioned")), Value::Null).await;
    let modified = format!(
        "Operation cannot be fulfilled on ConfigMap \"preconditioned\": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record ({rv}). The object might have been modified"
    );
    assert_eq!((r.code, r.body["message"].as_str()), (409, Some(modified.as_str())), "{}", r.body);
    let r = delete(&server, &format!("{}?uid=other", cm_path("preconditioned")), Value::Null).await;
    assert_eq!(r.code, 409, "{}", r.body);
    assert!(r.body["message"].as_str().unwrap().contains("the UID in the precondition (other) does not match"), "{}", r.body);
    assert_eq!(delete(&server, &format!("{}?resourceVersion={rv}", cm_path("preconditioned")), Value::Null).await.code, 200);

    let mut first = configmap("preconditioned-a", &[]);
    first["metadata"]["labels"] = json!({"app": "preconditioned"});
    assert_eq!(post(&server, &cm_path(""), first).await.code, 201);
    let mut second = configmap("preconditioned-b", &[]);
    second["metadata"]["labels"] = json!({"app": "preconditioned"});
    let second = post(&server, &cm_path(""), second).await.body;
    let rv = second["metadata"]["resourceVersion"].as_str().unwrap();
    let r = delete(&server, &format!("{}?labelSelector=app%3Dpreconditioned&resourceVersion={rv}", cm_path("")), Value::Null).await;
    assert_eq!(r.code, 409, "{}", r.body);
    assert!(
        r.body["message"].as_str().unwrap().starts_with("Operation cannot be fulfilled on ConfigMap \"preconditioned-a\""),
        "{}",
        r.body
    );
    assert_eq!(get(&server, &cm_path("preconditioned-b")).await.code, 200);
}

/// Seed 1 at 100,000 requests: a namespace whose `spec.finalizers` are empty but which keeps
/// a GC finalizer was left as it was by a second delete. The namespace registry hands such a
/// delete to the generic store (pkg/registry/core/namespace/storage/storage.go), which marks
/// it as deleting with a grace period of 0 (`markAsDeleting`, k8s.io/apiserver
/// pkg/registry/generic/registry/store.go).
async fn a_finalized_namespace_is_deleted_by_the_generic_store(server: Server) {
    let namespace = "/api/v1/namespaces/store-deleted";
    assert_eq!(post(&server, "/api/v1/namespaces", json!({"metadata": {"name": "store-deleted"}})).await.code, 201);
    let r = delete(&server, namespace, json!({"propagationPolicy": "Orphan"})).await;
    assert_eq!((r.code, &r.body["metadata"]["finalizers"]), (200, &json!(["orphan"])), "{}", r.body);
    let finalized = json!({"metadata": {"name": "store-deleted", "finalizers": ["orphan"]}, "spec": {"finalizers": []}});
    let r = put(&server, &format!("{namespace}/finalize"), finalized).await;
    assert_eq!((r.code, &r.body["metadata"]["deletionGracePeriodSeconds"]), (200, &Value::Null), "{}", r.body);
    let r = delete(&server, namespace, Value::Null).await;
    assert_eq!((r.code, &r.body["metadata"]["deletionGracePeriodSeconds"]), (200, &json!(0)), "{}", r.body);
    assert_eq!(get(&server, namespace).await.body["metadata"]["deletionGracePeriodSeconds"], 0);
}

/// Seed 1 at 100,000 requests: a PUT that sent another deletion timestamp for an object being
/// deleted was not recorded as its writer's. The handler's field manager compares the object
/// as sent with the stored one before the store puts the stored timestamp back
/// (`rest.BeforeUpdate`, k8s.io/apiserver pkg/registry/rest/update.go), and it ignores no
/// deletion field (`stripMeta`, k8s.io/apimachinery pkg/util/managedfields/internal).
async fn a_deletion_timestamp_sent_in_an_update_is_its_writer_s(server: Server) {
    create_cm(&server, "redated", &["example.com/hold"]).await;
    assert_eq!(delete(&server, &cm_path("redated"), Value::Null).await.code, 200);
    let mut deleting = get(&server, &cm_path("redated")).await.body;
    let stamped = deleting["metadata"]["deletionTimestamp"].clone();
    deleting["metadata"]["deletionTimestamp"] = json!("2001-02-03T04:05:06Z");
    let r = put(&server, &format!("{}?fieldManager=redater", cm_path("redated")), deleting).await;
    assert_eq!((r.code, &r.body["metadata"]["deletionTimestamp"]), (200, &stamped), "{}", r.body);
    let entries = r.body["metadata"]["managedFields"].as_array().unwrap();
    let redater = entries.iter().find(|e| e["manager"] == "redater").unwrap_or_else(|| panic!("{}", r.body));
    assert_eq!(redater["fieldsV1"], json!({"f:metadata": {"f:deletionTimestamp": {}}}), "{}", r.body);
    let r = patch(&server, &cm_path("redated"), "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
}

/// Seed 1 at 100,000 requests: a pod naming no account was created in a namespace without a
/// `default` ServiceAccount. The ServiceAccount plugin looks that account up ten times,
/// 100–200 ms apart, as the service account controller makes it soon after its namespace,
/// then refuses the pod (`getServiceAccount`, kubernetes
/// plugin/pkg/admission/serviceaccount/admission.go). The fake alone runs no such controller;
/// the upstream side's makes the account again too soon for a refusal to be seen there.
#[tokio::test(start_paused = true)]
async fn a_pod_waits_a_while_for_its_default_service_account() {
    let server = Server::fake();
    let pods = "/api/v1/namespaces/default/pods";
    let pod = |name: &str| json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
    let account = "/api/v1/namespaces/default/serviceaccounts/default";
    assert!(matches!(delete(&server, account, Value::Null).await.code, 200 | 404));
    let r = post(&server, pods, pod("refused")).await;
    assert_eq!(r.code, 403, "{}", r.body);
    let why = "pods \"refused\" is forbidden: error looking up service account default/default: serviceaccount \"default\" not found";
    assert_eq!(r.body["message"], why);
    let maker = server.clone();
    let made = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        post(&maker, "/api/v1/namespaces/default/serviceaccounts", json!({"metadata": {"name": "default"}})).await.code
    });
    let r = post(&server, pods, pod("admitted")).await;
    assert_eq!((r.code, made.await.unwrap()), (201, 201), "{}", r.body);
    assert_eq!(r.body["spec"]["serviceAccountName"], "default");
}

/// Seed 1 at 43,500 requests: a custom resource a DELETE removed was answered with the object.
/// The custom resource store leaves `ReturnDeletedObject` unset, so the answer is a `Status`
/// naming it (apiextensions-apiserver pkg/registry/customresource/etcd.go; k8s.io/apiserver
/// pkg/registry/generic/registry/store.go, `finalizeDelete`).
async fn a_removed_custom_resource_is_answered_with_a_status(server: Server) {
    let group = define_widgets(&server, "answered").await;
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": "w"}});
    let uid = post(&server, &widgets, widget).await.body["metadata"]["uid"].clone();
    let r = delete(&server, &format!("{widgets}/w"), json!({"propagationPolicy": "Background"})).await;
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!((&r.body["kind"], &r.body["status"]), (&json!("Status"), &json!("Success")), "{}", r.body);
    assert_eq!(r.body["details"], json!({"name": "w", "group": group, "kind": "widgets", "uid": uid}));
}

/// Seed 1 at 43,500 requests: a definition deleted, removed by hand while its objects were left
/// and made again, was marked `InstanceDeletionInProgress` as soon as it was deleted again.
/// Upstream's CRD finalizer polls for a minute for the objects it deleted to be gone, and its
/// queue syncs one definition name at a time, so the new definition keeps the mark of its
/// delete (`InstanceDeletionPending`) until that wait is over
/// (apiextensions-apiserver pkg/controller/finalizer/crd_finalizer.go, `deleteInstances`).
async fn a_definition_deleted_again_keeps_its_mark_while_the_finalizer_waits(server: Server) {
    let (widgets, definition) = delete_again_while_held(&server, "again").await;
    settle(&server).await;
    assert_eq!(terminating(&get(&server, &definition).await), "InstanceDeletionPending");
    let unheld = json!({"metadata": {"finalizers": null}});
    assert_eq!(patch(&server, &format!("{widgets}/held"), "application/merge-patch+json", unheld).await.code, 200);
    eventually(&server, &definition, |r| r.code == 404).await;
}

/// Seed 1 at 100,000 requests (#43460, #43555): the wait of
/// [`a_definition_deleted_again_keeps_its_mark_while_the_finalizer_waits`] ended only after a
/// minute; upstream's finalizer lists through the storage of the definition it began with,
/// which the handler tears down a second after that definition is gone, so its next list,
/// every 5 s, fails and a fresh sync marks the new definition in progress (apiextensions-apiserver
/// pkg/apiserver/customresource_handler.go, `removeDeadStorage` and `tearDown`; seen on the
/// upstream server within seconds).
#[tokio::test]
async fn the_finalizer_s_wait_ends_at_its_first_list_after_the_definition_is_gone() {
    let clock = Clock::virtual_at(kubegc::clock::parse_time("2030-01-01T00:00:00Z").unwrap());
    let server = Server::Fake(with_default_account(ApiServer::with_config(Config { clock: clock.clone(), ..Config::default() })));
    let (_, definition) = delete_again_while_held(&server, "again").await;
    clock.advance(chrono::Duration::seconds(4));
    server.fake_server().run_controllers();
    assert_eq!(terminating(&get(&server, &definition).await), "InstanceDeletionPending");
    clock.advance(chrono::Duration::seconds(1));
    server.fake_server().run_controllers();
    assert_eq!(terminating(&get(&server, &definition).await), "InstanceDeletionInProgress");
}

/// Defines widgets of group `tag`, makes a widget held by a finalizer, deletes the definition,
/// removes it by hand once its finalizer has begun, makes it again and deletes it again; the
/// widgets' collection path and the definition's path.
async fn delete_again_while_held(server: &Server, tag: &str) -> (String, String) {
    let (group, definition) = define_established_widgets(server, tag).await;
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget",
        "metadata": {"name": "held", "finalizers": ["example.com/hold"]}});
    assert_eq!(post(server, &widgets, widget).await.code, 201);
    assert_eq!(delete(server, &definition, Value::Null).await.code, 200);
    eventually(server, &definition, |r| terminating(r) == "InstanceDeletionInProgress").await;
    let unheld = json!({"metadata": {"finalizers": null}});
    assert_eq!(patch(server, &definition, "application/merge-patch+json", unheld).await.code, 200);
    assert_eq!(get(server, &definition).await.code, 404);
    define_established_widgets(server, tag).await;
    assert_eq!(delete(server, &definition, Value::Null).await.code, 200);
    (widgets, definition)
}

/// The reason of the `Terminating` condition of the definition `r` holds, if any.
fn terminating(r: &Raw) -> Value {
    let conditions = r.body["status"]["conditions"].as_array().cloned().unwrap_or_default();
    conditions.into_iter().find(|c| c["type"] == "Terminating").map_or(Value::Null, |c| c["reason"].clone())
}

/// Waits until the fake's simulated controllers have nothing to do, or gives upstream's
/// controllers, which answer within milliseconds, a second.
async fn settle(server: &Server) {
    let Server::Fake(fake) = server else {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        return;
    };
    loop {
        let next = fake.activity().armed();
        if fake.controllers_idle() {
            return;
        }
        next.await;
    }
}

/// Seed 1 at 100,000 requests: a merge patch of a custom resource whose result held metadata of
/// the wrong type was the decoder's 400. The patch handler decodes the result itself, its
/// metadata as `ObjectMeta`, and answers 422 at `patch` with the result's JSON
/// (k8s.io/apiserver pkg/endpoints/handlers/patch.go, `jsonPatcher`).
async fn a_custom_resource_s_patched_metadata_is_decoded_by_the_patch_handler(server: Server) {
    let group = define_widgets(&server, "patched").await;
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": "w"}});
    assert_eq!(post(&server, &widgets, widget).await.code, 201);
    let owner = json!({"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u", "blockOwnerDeletion": "yes"}]}});
    let r = patch(&server, &format!("{widgets}/w"), "application/merge-patch+json", owner).await;
    let message = r.body["message"].as_str().unwrap_or_default();
    assert_eq!((r.code, r.body["details"]["causes"][0]["field"].as_str()), (422, Some("patch")), "{}", r.body);
    let start = format!(" \"\" is invalid: patch: Invalid value: \"{{\\\"apiVersion\\\":\\\"{group}/v1\\\",\\\"kind\\\":\\\"Widget\\\",");
    assert!(message.starts_with(&start), "{message}");
    let why = "\": json: cannot unmarshal string into Go struct field OwnerReference.ownerReferences.blockOwnerDeletion of type bool";
    assert!(message.ends_with(why), "{message}");
}

/// Seed 1 at 100,000 requests: a custom resource asked for as a `PartialObjectMetadataList`
/// was refused 406, as a built-in object is. An unstructured object has a list's methods, so
/// the conversion goes on to walk its items and fails with a 500
/// (`asPartialObjectMetadataList`, k8s.io/apiserver pkg/endpoints/handlers/response.go;
/// `Unstructured.EachListItem`); a patch is written first.
async fn a_custom_resource_has_no_list_to_give_as_metadata(server: Server) {
    let group = define_widgets(&server, "listless").await;
    let widgets = format!("/apis/{group}/v1/namespaces/default/widgets");
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget", "metadata": {"name": "w"}});
    assert_eq!(post(&server, &widgets, widget).await.code, 201);
    let as_list = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let r = accepting(&server, Method::GET, &format!("{widgets}/w"), as_list, None).await;
    assert_eq!((r.code, &r.body["message"], &r.body["reason"]), (500, &json!("content is not a list"), &Value::Null), "{}", r.body);
    let labelled = json!({"metadata": {"labels": {"app": "y"}}});
    let merge = "application/merge-patch+json";
    let r = accepting_as(&server, Method::PATCH, &format!("{widgets}/w"), as_list, merge, Some(labelled)).await;
    assert_eq!((r.code, &r.body["message"]), (500, &json!("content is not a list")), "{}", r.body);
    assert_eq!(get(&server, &format!("{widgets}/w")).await.body["metadata"]["labels"], json!({"app": "y"}));
    let r = accepting(&server, Method::GET, &cm_path("absent"), as_list, None).await;
    assert_eq!(r.code, 404, "{}", r.body);
}

/// Seed 1 at 100,000 requests: an apply to the scale of an absent Deployment was refused for
/// its configuration. As for any subresource, the store finds the object before the apply
/// patcher reads the configuration (k8s.io/apiserver pkg/endpoints/handlers/patch.go).
async fn an_apply_through_the_scale_finds_its_object_first(server: Server) {
    let path = "/apis/apps/v1/namespaces/default/deployments/unscaled/scale?fieldManager=f";
    let r = raw(&server, Method::PATCH, path, Some("application/apply-patch+yaml"), "[1]").await;
    assert_eq!((r.code, &r.body["message"]), (404, &json!("deployments.apps \"unscaled\" not found")), "{}", r.body);
}

/// Seed 1 at 100,000 requests: an apply of a number as a time was the decoder's 400 after the
/// name check. A time is an untyped scalar to the structured merge, so the field manager
/// merges it and fails converting the result to the Go type, before the handler checks the
/// name (`structuredMergeManager.Apply`, apimachinery managedfields/internal/structuredmerge.go).
async fn an_applied_time_that_does_not_convert_fails_the_field_manager(server: Server) {
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other", "creationTimestamp": 12}});
    let r = patch(&server, &format!("{}?fieldManager=f", cm_path("timed")), "application/apply-patch+yaml", config).await;
    let why = "failed to convert new object (/other; /v1, Kind=ConfigMap) to proper version: unable to convert unstructured object to /v1, Kind=ConfigMap: json: cannot unmarshal number into Go value of type string";
    assert_eq!((r.code, &r.body["message"]), (500, &json!(why)), "{}", r.body);
}

/// Seed 1 at 100,000 requests: a collection delete through an empty namespace segment at
/// `resourceVersion=1` was refused for having no namespace. The store lists a collection
/// delete in pages of 10,000 when the request gives no limit, and a limit makes the version
/// exact: the list at revision 1 holds nothing, so nothing is deleted and nothing refused
/// (`Store.DeleteCollection`, k8s.io/apiserver pkg/registry/generic/registry/store.go). At the
/// latest revision the server's own Lease is listed and its delete has no namespace. A
/// request's own limit deletes one page and answers its continue token.
async fn a_collection_delete_lists_in_pages_whose_limit_makes_a_version_exact(server: Server) {
    let everywhere = "/apis/coordination.k8s.io/v1/namespaces//leases";
    let r = delete(&server, &format!("{everywhere}?resourceVersion=1"), Value::Null).await;
    assert_eq!((r.code, &r.body["kind"], &r.body["items"]), (200, &json!("LeaseList"), &json!([])), "{}", r.body);
    let r = delete(&server, everywhere, Value::Null).await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("Namespace parameter required.")), "{}", r.body);
    let leases = get(&server, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases").await;
    assert_eq!(leases.body["items"].as_array().map(Vec::len), Some(1), "{}", leases.body);
    for name in ["p1", "p2", "p3"] {
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"app": "paged"}}});
        assert_eq!(post(&server, &cm_path(""), map).await.code, 201);
    }
    let r = delete(&server, &format!("{}?labelSelector=app%3Dpaged&limit=2", cm_path("")), Value::Null).await;
    let names: Vec<&Value> =
        r.body["items"].as_array().map(|items| items.iter().map(|i| &i["metadata"]["name"]).collect()).unwrap_or_default();
    assert_eq!((r.code, names), (200, vec![&json!("p1"), &json!("p2")]), "{}", r.body);
    assert!(r.body["metadata"]["continue"].as_str().is_some_and(|t| !t.is_empty()), "{}", r.body);
    assert_eq!(get(&server, &cm_path("p3")).await.code, 200);
}

/// Seed 1 at 100,000 requests (a window before #28059): a ReplicationController without a
/// spec was refused for its template's containers. Its template is a pointer, absent here, so
/// upstream asks for the selector and the template and checks no pod spec
/// (`ValidateReplicationControllerSpec`, kubernetes pkg/apis/core/validation/validation.go).
async fn a_replication_controller_needs_a_selector_and_a_template_it_matches(server: Server) {
    let path = "/api/v1/namespaces/default/replicationcontrollers";
    let rc = |spec: Value| json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": spec});
    let r = post(&server, path, rc(json!({}))).await;
    let message = "ReplicationController \"rc\" is invalid: [spec.selector: Required value, spec.template: Required value]";
    assert_eq!((r.code, &r.body["message"]), (422, &json!(message)), "{}", r.body);
    let template = json!({"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let r = post(&server, path, rc(json!({"selector": {"app": "b"}, "template": template}))).await;
    let message = "ReplicationController \"rc\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"a\"}: `selector` does not match template `labels`";
    assert_eq!((r.code, &r.body["message"]), (422, &json!(message)), "{}", r.body);
    let r = post(&server, path, rc(json!({"template": template}))).await;
    assert_eq!((r.code, &r.body["spec"]["selector"]), (201, &json!({"app": "a"})), "{}", r.body);
}

/// Seed 1 at 100,000 requests: the bookmark ending a watch's initial events held only a kind,
/// a version and metadata. The watch cache's bookmark holds an empty object of the kind
/// (`newFunc()`, k8s.io/apiserver pkg/storage/cacher), converted and encoded as any object:
/// the fields Go writes even when zero, and what converting an internal type writes (a
/// Deployment's replica count, a DaemonSet's template generation annotation).
async fn a_bookmark_carries_an_empty_object_as_go_encodes_it(server: Server) {
    let end = json!({"k8s.io/initial-events-end": "true"});
    let empty_template = json!({"metadata": {}, "spec": {"containers": null}});
    let cases = [
        ("/api/v1/namespaces/default/pods", json!({"kind": "Pod", "apiVersion": "v1", "spec": {"containers": null}, "status": {}})),
        (
            "/apis/events.k8s.io/v1/namespaces/default/events",
            json!({"kind": "Event", "apiVersion": "events.k8s.io/v1", "eventTime": null, "regarding": {}, "deprecatedSource": {},
                "deprecatedFirstTimestamp": null, "deprecatedLastTimestamp": null}),
        ),
        (
            "/apis/apps/v1/namespaces/default/deployments",
            json!({"kind": "Deployment", "apiVersion": "apps/v1",
                "spec": {"replicas": 0, "selector": null, "template": empty_template, "strategy": {}}, "status": {}}),
        ),
        (
            "/apis/apps/v1/namespaces/default/daemonsets",
            json!({"kind": "DaemonSet", "apiVersion": "apps/v1", "spec": {"selector": null, "template": empty_template, "updateStrategy": {}},
                "status": {"currentNumberScheduled": 0, "desiredNumberScheduled": 0, "numberMisscheduled": 0, "numberReady": 0}}),
        ),
    ];
    let query = "watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1&labelSelector=none%3Dnone";
    for (path, mut expected) in cases {
        let r = get(&server, &format!("{path}?{query}")).await;
        let events = match &r.body {
            Value::Array(events) => events.clone(),
            one @ Value::Object(_) => vec![one.clone()],
            _ => panic!("{path}: no events: {} {}", r.code, r.body),
        };
        let mut bookmark = events.iter().find(|e| e["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true").cloned();
        let bookmark = bookmark.as_mut().map(|b| &mut b["object"]).unwrap_or_else(|| panic!("{path}: no bookmark: {}", r.body));
        bookmark["metadata"].as_object_mut().map(|m| m.remove("resourceVersion"));
        let annotations = if path.ends_with("daemonsets") {
            json!({"k8s.io/initial-events-end": "true", "deprecated.daemonset.template.generation": "0"})
        } else {
            end.clone()
        };
        expected["metadata"] = json!({"annotations": annotations});
        assert_eq!(*bookmark, expected, "{path}");
    }
}

/// Seed 1 at 100,000 requests (a window before #61472): a CronJob of nothing was refused for
/// its containers alone, and a Job whose pods restart `Always` (the default) was accepted.
/// A Job's pods restart on failure or never (`validateJobSpec`, kubernetes
/// pkg/apis/batch/validation/validation.go); a CronJob's schedule is required by declarative
/// validation, whose errors follow the handwritten ones.
async fn a_job_s_pods_restart_on_failure_or_never_and_a_cron_job_needs_a_schedule(server: Server) {
    let containers = json!([{"name": "c", "image": "busybox"}]);
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "restarting"},
        "spec": {"template": {"spec": {"containers": containers}}}});
    let r = post(&server, "/apis/batch/v1/namespaces/default/jobs", job).await;
    let why =
        "Job.batch \"restarting\" is invalid: spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"";
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "restarting"},
        "spec": {"template": {"spec": {"restartPolicy": "Sometimes", "containers": containers}}}});
    let r = post(&server, "/apis/batch/v1/namespaces/default/jobs", job).await;
    let why = "Job.batch \"restarting\" is invalid: [spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\", spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"OnFailure\", \"Never\"]";
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
    let r = raw(&server, Method::POST, "/apis/batch/v1/namespaces/default/cronjobs", Some("application/json"), "null").await;
    let why = "CronJob.batch \"\" is invalid: [metadata.name: Required value: name or generateName is required, spec.jobTemplate.spec.template.spec.containers: Required value, spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\", spec.schedule: Required value]";
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
}

/// A newcomer's `kubectl create cronjob --schedule` with a typo was accepted: the API server
/// reads a schedule with robfig/cron's standard parser and quotes its error
/// (`validateScheduleFormat`, kubernetes pkg/apis/batch/validation/validation.go), refuses a
/// time zone written into a new schedule, and loads `spec.timeZone` (`validateTimeZone`).
async fn a_cron_job_s_schedule_is_read_as_the_cron_parser_reads_it(server: Server) {
    let cron_job = |name: &str, schedule: &str, zone: Value| {
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name},
            "spec": {"schedule": schedule, "timeZone": zone, "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}})
    };
    let path = "/apis/batch/v1/namespaces/default/cronjobs";
    for (schedule, why) in [
        ("*/5 * * *", "expected exactly 5 fields, found 4: [*/5 * * *]"),
        ("0 25 * * *", "end of range (25) above maximum (23): 25"),
        ("0 0 * * mon-x", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"),
        ("*/0 * * * *", "step of range should be a positive number: */0"),
        ("@every 5", "failed to parse duration @every 5: time: missing unit in duration \"5\""),
        ("@sometimes", "unrecognized descriptor: @sometimes"),
        ("TZ=Nowhere/City 0 * * * *", "provided bad location Nowhere/City: unknown time zone Nowhere/City"),
        ("TZ=UTC", "invalid schedule format: runtime error: slice bounds out of range [:-1]"),
    ] {
        let r = post(&server, path, cron_job("typo", schedule, Value::Null)).await;
        let mut message = format!("CronJob.batch \"typo\" is invalid: spec.schedule: Invalid value: {schedule:?}: {why}");
        if schedule.contains("TZ") {
            let tz =
                format!("spec.schedule: Invalid value: {schedule:?}: cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
            message = format!("CronJob.batch \"typo\" is invalid: [spec.schedule: Invalid value: {schedule:?}: {why}, {tz}]");
        }
        assert_eq!((r.code, &r.body["message"]), (422, &json!(message)), "{schedule}: {}", r.body);
    }
    let r = post(&server, path, cron_job("zoned", "@hourly", json!("Nowhere/City"))).await;
    let why = "CronJob.batch \"zoned\" is invalid: spec.timeZone: Invalid value: \"Nowhere/City\": unknown time zone Nowhere/City";
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
    let r = post(&server, path, cron_job("fine", "30 6 * JAN-mar MON-fri/2", json!("Europe/Paris"))).await;
    assert_eq!(r.code, 201, "{}", r.body);
}

/// Seed 1 at 100,000 requests (#66129, #67658): a selected list whose page was full gave no
/// continue token when nothing after it was selected. The watch cache pages over every stored
/// object: more remain when any follows the page's last, selected or not
/// (`hasMoreListItems`, k8s.io/apiserver pkg/storage/cacher/cacher.go), and the next page may
/// then be empty.
async fn a_full_page_continues_while_any_object_follows_selected_or_not(server: Server) {
    let namespace = format!("{}-paged", server.namespace());
    assert_eq!(post(&server, "/api/v1/namespaces", json!({"metadata": {"name": namespace}})).await.code, 201);
    let path = &format!("/api/v1/namespaces/{namespace}/configmaps");
    for (name, labels) in [("a", json!({"app": "x"})), ("b", json!({"app": "x"})), ("c", json!({"app": "y"}))] {
        assert_eq!(post(&server, path, json!({"metadata": {"name": name, "labels": labels}})).await.code, 201);
    }
    let names = |r: &Raw| r.body["items"].as_array().map(|i| i.iter().map(|o| o["metadata"]["name"].clone()).collect::<Vec<_>>());
    let r = get(&server, &format!("{path}?limit=2&labelSelector=app%3Dx")).await;
    assert_eq!((r.code, names(&r)), (200, Some(vec![json!("a"), json!("b")])), "{}", r.body);
    assert_eq!(r.body["metadata"].get("remainingItemCount"), None, "{}", r.body);
    let token = r.body["metadata"]["continue"].as_str().unwrap_or_else(|| panic!("no continue token: {}", r.body)).to_string();
    let r = get(&server, &format!("{path}?limit=2&labelSelector=app%3Dx&continue={token}")).await;
    assert_eq!((r.code, names(&r), &r.body["metadata"].get("continue")), (200, Some(vec![]), &None), "{}", r.body);
    let r = get(&server, &format!("{path}?limit=2&labelSelector=app%3Dy")).await;
    assert_eq!((r.code, names(&r), &r.body["metadata"].get("continue")), (200, Some(vec![json!("c")]), &None), "{}", r.body);
}

/// Seed 1 at 100,000 requests (#84934): a merge patch that is a list, sent with
/// `fieldValidation=Ignore`, was refused as a patch no map decodes from. Ignoring unknown
/// fields, the handler applies the patch undecoded: json-patch's merge makes a list the
/// document, which the decoder refuses for its type meta (`jsonPatcher.applyJSPatch`,
/// k8s.io/apiserver pkg/endpoints/handlers/patch.go); a scalar is no merge patch at all.
async fn an_ignored_merge_patch_that_is_a_list_becomes_the_document(server: Server) {
    create_cm(&server, "listed", &[]).await;
    let uri = format!("{}?fieldValidation=Ignore", cm_path("listed"));
    let r = raw(&server, Method::PATCH, &uri, Some("application/merge-patch+json"), "[1, {\"a\": null}, null]").await;
    let go_type = r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;
    let why = format!(
        " \"\" is invalid: patch: Invalid value: \"[1,{{}},null]\": couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type {go_type}"
    );
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
    let r = raw(&server, Method::PATCH, &uri, Some("application/merge-patch+json"), "7").await;
    assert_eq!((r.code, &r.body["message"]), (400, &json!("Invalid JSON Patch")), "{}", r.body);
    let r = raw(&server, Method::PATCH, &cm_path("listed"), Some("application/merge-patch+json"), "[1]").await;
    let why = "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}";
    assert_eq!((r.code, &r.body["message"]), (400, &json!(why)), "{}", r.body);
}

/// Seed 1 at 100,000 requests (#97250): a PersistentVolume patched to a `generateName` no DNS
/// name begins with was accepted, and so was any new object's. A create reads `generateName`
/// by the kind's name rule as a prefix (a trailing dash allowed); an update's generic rules
/// read it as a path segment's prefix, and the kinds whose update validates the whole object
/// again, ConfigMaps and volumes among them but not leases, read it by their rule once more
/// (`ValidateObjectMetaAccessor`, k8s.io/apimachinery pkg/api/validation/objectmeta.go;
/// `validateCommonFields`, k8s.io/apiserver pkg/registry/rest/update.go;
/// `ValidateConfigMapUpdate`, `ValidatePersistentVolumeUpdate`, kubernetes
/// pkg/apis/core/validation/validation.go).
async fn a_generate_name_is_read_as_a_prefix_of_the_names_of_its_kind(server: Server) {
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let r = post(&server, &cm_path(""), json!({"metadata": {"name": "prefixed", "generateName": "Bad_"}})).await;
    let why = format!("ConfigMap \"prefixed\" is invalid: metadata.generateName: Invalid value: \"Bad_\": {subdomain}");
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
    let r = post(&server, &cm_path(""), json!({"metadata": {"name": "prefixed", "generateName": "good-"}})).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let r = patch(&server, &cm_path("prefixed"), "application/merge-patch+json", json!({"metadata": {"generateName": "Bad_"}})).await;
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
    let r = patch(&server, &cm_path("prefixed"), "application/merge-patch+json", json!({"metadata": {"generateName": "a/b%"}})).await;
    let why = format!(
        "ConfigMap \"prefixed\" is invalid: [metadata.generateName: Invalid value: \"a/b%\": may not contain '/', metadata.generateName: Invalid value: \"a/b%\": may not contain '%', metadata.generateName: Invalid value: \"a/b%\": {subdomain}]"
    );
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
    let leases = format!("/apis/coordination.k8s.io/v1/namespaces/{}/leases", server.namespace());
    let r = post(&server, &leases, json!({"metadata": {"name": "prefixed", "generateName": "good-"}})).await;
    assert_eq!(r.code, 201, "{}", r.body);
    let lease = format!("{leases}/prefixed");
    let r = patch(&server, &lease, "application/merge-patch+json", json!({"metadata": {"generateName": "Bad_"}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let r = patch(&server, &lease, "application/merge-patch+json", json!({"metadata": {"generateName": "a/b%"}})).await;
    let why = "Lease.coordination.k8s.io \"prefixed\" is invalid: [metadata.generateName: Invalid value: \"a/b%\": may not contain '/', metadata.generateName: Invalid value: \"a/b%\": may not contain '%']";
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
    let name = format!("{}-prefixed", server.namespace());
    let volume = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/x"}}});
    assert_eq!(post(&server, "/api/v1/persistentvolumes", volume).await.code, 201);
    let uri = format!("/api/v1/persistentvolumes/{name}");
    let r = patch(&server, &uri, "application/strategic-merge-patch+json", json!({"metadata": {"generateName": "Bad_"}})).await;
    let why = format!("PersistentVolume {name:?} is invalid: metadata.generateName: Invalid value: \"Bad_\": {subdomain}");
    assert_eq!((r.code, &r.body["message"]), (422, &json!(why)), "{}", r.body);
}

/// Seed 1 at 100,000 requests (#45421): a watch with a negative `timeoutSeconds` streamed the
/// initial events. Upstream's watch handler starts a timer of that duration, already fired, and
/// ends the stream when it sees it (k8s.io/apiserver pkg/endpoints/handlers/watch.go); which of
/// it and a first event its `select` takes is Go's random choice, so only the fake is held to
/// the likelier answer, an empty stream. A zero timeout is the server's own, which is long.
#[tokio::test]
async fn a_watch_whose_timeout_is_negative_ends_before_its_first_event() {
    let server = Server::fake();
    create_cm(&server, "watched-briefly", &[]).await;
    let selected = format!("{}?watch=1&fieldSelector=metadata.name%3Dwatched-briefly", cm_path(""));
    let r = get(&server, &format!("{selected}&timeoutSeconds=-1")).await;
    assert_eq!((r.code, &r.body), (200, &Value::Null), "{}", r.body);
    let r = get(&server, &format!("{selected}&timeoutSeconds=1")).await;
    assert_eq!((r.code, &r.body["object"]["metadata"]["name"]), (200, &json!("watched-briefly")), "{}", r.body);
}

/// Seed 1 at 100,000 requests (#45423): a strategic merge patch giving finalizers objects was
/// applied and the result refused as undecodable (422). Strategic merge first checks that a
/// merged list's elements, live and patched, are of one type, and its refusal is no `Status`:
/// a 500 with its text (`sliceElementType`, k8s.io/apimachinery pkg/util/strategicpatch).
async fn a_strategic_merge_of_lists_of_two_types_is_refused_before_it_is_applied(server: Server) {
    create_cm(&server, "two-typed", &["example.com/a"]).await;
    let r =
        patch(&server, &cm_path("two-typed"), "application/strategic-merge-patch+json", json!({"metadata": {"finalizers": [{"a": 1}]}}))
            .await;
    let why = "list element types are not identical: [[example.com/a] [map[a:1]]]";
    assert_eq!((r.code, &r.body["reason"], &r.body["message"]), (500, &json!(null), &json!(why)), "{}", r.body);
    let r = patch(&server, &cm_path("two-typed"), "application/merge-patch+json", json!({"metadata": {"finalizers": null}})).await;
    assert_eq!(r.code, 200, "{}", r.body);
}

/// Seed 1 at 100,000 requests (#28950): discovery of `/api/v1/` asked for `text/html` was
/// refused in the handler's words. The REST router refuses first a request that accepts no
/// type the route produces, in go-restful's words (`RouterJSR311.detectRoute`); a type it
/// produces asked as something else (a Table) reaches the handler.
async fn a_discovery_route_refuses_what_it_cannot_produce_before_its_handler(server: Server) {
    let available =
        "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf";
    for path in ["/api/v1/", "/api/v1", "/api"] {
        let r = accepting(&server, Method::GET, path, "text/html", None).await;
        assert_eq!((r.code, &r.body["message"]), (406, &json!(available)), "{path}: {}", r.body);
    }
    let r = accepting(&server, Method::GET, "/api/v1", "application/json;as=Table;v=v1;g=meta.k8s.io", None).await;
    let handler = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf";
    assert_eq!((r.code, &r.body["message"]), (406, &json!(handler)), "{}", r.body);
}

/// Seed 1 at 100,000 requests (#14284): a `GET` of a definition with `pretty=true` was answered
/// in one line, where upstream indents it as Go's `json.MarshalIndent` does; so it does for a
/// request from curl, and always for `/version` (`isPrettyPrint`, k8s.io/apiserver
/// pkg/endpoints/handlers/negotiation/negotiate.go; `WriteRawJSON`,
/// pkg/endpoints/handlers/responsewriters/writers.go).
async fn json_is_indented_when_asked_and_the_version_always(server: Server) {
    create_cm(&server, "indented", &[]).await;
    let compact = get(&server, &cm_path("indented")).await;
    let text = |r: &Raw| String::from_utf8_lossy(&r.bytes).into_owned();
    assert!(!text(&compact).trim_end().contains('\n'), "{}", text(&compact));
    for query in ["pretty=true", "pretty=1&pretty=0"] {
        let r = get(&server, &format!("{}?{query}", cm_path("indented"))).await;
        // The fake writes members in another order than Go's struct fields: only the layout is
        // the same.
        assert!(text(&r).contains("\n  \"metadata\": {\n    \""), "{query}: {}", text(&r));
        assert!(text(&r).contains("\n    \"name\": \"indented\",\n"), "{query}: {}", text(&r));
        assert_eq!(r.body, compact.body, "{query}");
    }
    let r = get(&server, &format!("{}?pretty=yes", cm_path("indented"))).await;
    assert!(!text(&r).trim_end().contains('\n'), "not a Go bool: {}", text(&r));
    let curl = Request::get(cm_path("indented")).header("user-agent", "curl/8.5.0").body(Body::empty()).unwrap();
    assert!(text(&server.send(curl).await).contains("\n  \"metadata\": {\n"));
    let r = get(&server, "/version").await;
    assert!(text(&r).starts_with("{\n  \"") && text(&r).contains("\n  \"major\": \"1\",\n"), "{}", text(&r));
}
