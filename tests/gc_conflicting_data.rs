//! Upstream `TestConflictingData` (catalogue C.2, rows 18-33), one test per sub-case: the
//! collector stepped by hand against the fake apiserver, asserting after each step the API calls
//! it made, the events it recorded, the graph, the pending graph changes, the queues and the
//! absent-owner cache.
//!
//! UIDs are the server's, so expected strings are built with them. The non-preferred but served
//! Role version of upstream's `rbac.authorization.k8s.io/v1beta1` is a custom resource served as
//! `rbac.example.com/v1` (preferred) and `v1beta1`; `extensions/v1beta1` Deployments are not
//! served by the fake apiserver, as by a current kube-apiserver.

mod gc_support;
mod support;

use gc_support::*;
use kubegc::gc::Config;
use kubegc::gc::graph::Identity;
use serde_json::json;

/// The Warning event upstream's fake recorder shows for a reference to `owner` (coordinates in
/// the dependent's namespace) from a dependent of `kind`.
fn invalid_namespace_event(owner: &Identity, kind: &str) -> String {
    format!(
        "Warning OwnerRefInvalidNamespace ownerRef [{}/{}, namespace: {}, name: {}, uid: {}] does not exist in namespace \"{}\" involvedObject{{kind={kind},apiVersion=v1}}",
        owner.api_version, owner.kind, owner.namespace, owner.name, owner.uid, owner.namespace
    )
}

fn id_in(namespace: &str, identity: &Identity) -> Identity {
    identity.in_namespace(namespace.into())
}

async fn harness() -> Harness {
    Harness::new(Config::default()).await
}

/// A pod, node, deployment or secret that is not created: its UID is made up.
fn absent(api_version: &str, kind: &str, namespace: &str, name: &str, uid: &str) -> Identity {
    make_id(api_version, kind, namespace, name, uid)
}

/// Creates a pod named `name` in ns1 referencing `owners`.
async fn pod(h: &Harness, name: &str, owners: &[&Identity]) -> Identity {
    h.create(&make_id("v1", "Pod", "ns1", name, ""), owners).await
}

/// Creates node `nodename` referencing `owners`.
async fn node1(h: &Harness, owners: &[&Identity]) -> Identity {
    h.create(&make_id("v1", "Node", "", "nodename", ""), owners).await
}

/// Creates deployment `deployment1` in ns1.
async fn deployment1(h: &Harness) -> Identity {
    h.create(&make_id("apps/v1", "Deployment", "ns1", "deployment1", ""), &[]).await
}

/// `deployment` as referenced through the unserved `extensions/v1beta1`.
fn extensions(deployment: &Identity) -> Identity {
    Identity { api_version: "extensions/v1beta1".into(), ..deployment.clone() }
}

#[tokio::test]
async fn test_conflicting_data_good_child_in_ns1_cluster_scoped_owner() {
    let h = harness().await;
    let node1 = node1(&h, &[]).await;
    let pod1ns1 = pod(&h, "podname1", &[&node1]).await;
    // When a namespaced resource refers to node1, its virtual node takes the child's namespace.
    let node1_with_namespace = id_in("ns1", &node1);

    // observe namespaced child with not-yet-observed cluster-scoped parent
    h.process_event(make_add_event(&pod1ns1, &[&node1])).await;
    h.assert_state(
        "observe child",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&node1]), virtual_node(&node1_with_namespace)],
            pending_attempt_to_delete: vec![queued_virtual(&node1_with_namespace)],
            ..State::default()
        },
    )
    .await;

    // handle queued delete of virtual node: still not observed, requeued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual node1 verified",
        State {
            client_actions: vec![get_call(&node1)],
            graph_nodes: vec![node(&pod1ns1, &[&node1]), virtual_node(&node1_with_namespace)],
            pending_attempt_to_delete: vec![queued_virtual(&node1_with_namespace)],
            ..State::default()
        },
    )
    .await;

    // observe cluster-scoped parent: observed, namespace fixed; the stale virtual copy stays queued
    h.process_event(make_add_event(&node1, &[])).await;
    h.assert_state(
        "observe node1",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&node1]), node(&node1, &[])],
            pending_attempt_to_delete: vec![queued_virtual(&node1_with_namespace)],
            ..State::default()
        },
    )
    .await;

    // the stale virtual copy is dropped without a call
    h.process_attempt_to_delete(1).await;
    h.assert_state("final", State { graph_nodes: vec![node(&pod1ns1, &[&node1]), node(&node1, &[])], ..State::default() }).await;
}

#[tokio::test]
async fn test_conflicting_data_bad_child_in_ns1_owner_in_ns2_child_first() {
    let h = harness().await;
    let pod2ns2 = h.create(&make_id("v1", "Pod", "ns2", "podname2", ""), &[]).await;
    let pod2ns1 = id_in("ns1", &pod2ns2);
    let pod1ns1 = pod(&h, "podname1", &[&pod2ns1]).await;

    // 2,3: observe namespaced child with not-yet-observed namespace-scoped parent
    h.process_event(make_add_event(&pod1ns1, &[&pod2ns2])).await;
    h.assert_state(
        "observe child",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&pod2ns2]), virtual_node(&pod2ns1)],
            pending_attempt_to_delete: vec![queued_virtual(&pod2ns1)],
            ..State::default()
        },
    )
    .await;

    // 4,5: observe parent: namespace corrected; the bad child disagrees and is queued
    h.process_event(make_add_event(&pod2ns2, &[])).await;
    h.assert_state(
        "observe parent",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&pod2ns2]), node(&pod2ns2, &[])],
            pending_attempt_to_delete: vec![queued_virtual(&pod2ns1), queued(&pod1ns1)],
            events: vec![invalid_namespace_event(&pod2ns1, "Pod")],
            ..State::default()
        },
    )
    .await;

    // 6,7: handle queued delete of virtual parent
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "stale virtual parent dropped",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&pod2ns2]), node(&pod2ns2, &[])],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 8,9: handle queued delete of bad child
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "bad child deleted",
        State {
            client_actions: vec![get_call(&pod1ns1), get_call(&pod2ns1), delete_call(&pod1ns1)],
            graph_nodes: vec![node(&pod1ns1, &[&pod2ns2]), node(&pod2ns2, &[])],
            absent_owner_cache: vec![pod2ns1.clone()],
            ..State::default()
        },
    )
    .await;

    // 10,11: observe the delete issued in step 8
    h.process_event(make_delete_event(&pod1ns1, &[])).await;
    h.assert_state("final", State { graph_nodes: vec![node(&pod2ns2, &[])], absent_owner_cache: vec![pod2ns1], ..State::default() }).await;
}

#[tokio::test]
async fn test_conflicting_data_bad_child_in_ns1_owner_in_ns2_owner_first() {
    let h = harness().await;
    let pod2ns2 = h.create(&make_id("v1", "Pod", "ns2", "podname2", ""), &[]).await;
    let pod2ns1 = id_in("ns1", &pod2ns2);
    let pod1ns1 = pod(&h, "podname1", &[&pod2ns1]).await;

    // 2,3: observe parent
    h.process_event(make_add_event(&pod2ns2, &[])).await;
    h.assert_state("observe parent", State { graph_nodes: vec![node(&pod2ns2, &[])], ..State::default() }).await;

    // 4,5: observe namespaced child with invalid cross-namespace reference to parent
    h.process_event(make_add_event(&pod1ns1, &[&pod2ns1])).await;
    h.assert_state(
        "observe child",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&pod2ns1]), node(&pod2ns2, &[])],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            events: vec![invalid_namespace_event(&pod2ns1, "Pod")],
            ..State::default()
        },
    )
    .await;

    // 6,7: handle queued delete of bad child
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "bad child deleted",
        State {
            client_actions: vec![get_call(&pod1ns1), get_call(&pod2ns1), delete_call(&pod1ns1)],
            graph_nodes: vec![node(&pod1ns1, &[&pod2ns1]), node(&pod2ns2, &[])],
            absent_owner_cache: vec![pod2ns1.clone()],
            ..State::default()
        },
    )
    .await;

    // 8,9: observe the delete issued in step 6
    h.process_event(make_delete_event(&pod1ns1, &[])).await;
    h.assert_state("final", State { graph_nodes: vec![node(&pod2ns2, &[])], absent_owner_cache: vec![pod2ns1], ..State::default() }).await;
}

#[tokio::test]
async fn test_conflicting_data_bad_cluster_scoped_child_owner_in_ns1_child_first() {
    let h = harness().await;
    let pod1ns1 = pod(&h, "podname1", &[]).await;
    let pod1nonamespace = id_in("", &pod1ns1);
    let node1 = node1(&h, &[&pod1ns1]).await;

    // 2,3: observe cluster-scoped child with not-yet-observed namespaced parent
    h.process_event(make_add_event(&node1, &[&pod1ns1])).await;
    h.assert_state(
        "observe child",
        State {
            graph_nodes: vec![node(&node1, &[&pod1nonamespace]), virtual_node(&pod1nonamespace)],
            pending_attempt_to_delete: vec![queued_virtual(&pod1nonamespace)],
            ..State::default()
        },
    )
    .await;

    // 4,5: a namespaced virtual node without a namespace: no call, not requeued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual pod1 forgotten",
        State { graph_nodes: vec![node(&node1, &[&pod1nonamespace]), virtual_node(&pod1nonamespace)], ..State::default() },
    )
    .await;

    // 6,7: observe namespace-scoped parent: namespace corrected, event for the node, node queued
    h.process_event(make_add_event(&pod1ns1, &[])).await;
    h.assert_state(
        "observe parent",
        State {
            graph_nodes: vec![node(&node1, &[&pod1nonamespace]), node(&pod1ns1, &[])],
            events: vec![invalid_namespace_event(&pod1nonamespace, "Node")],
            pending_attempt_to_delete: vec![queued(&node1)],
            ..State::default()
        },
    )
    .await;

    // 8,9: the bad cluster-scoped child is looked up, neither deleted nor retried
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "final",
        State {
            client_actions: vec![get_call(&node1)],
            graph_nodes: vec![node(&node1, &[&pod1nonamespace]), node(&pod1ns1, &[])],
            ..State::default()
        },
    )
    .await;
}

#[tokio::test]
async fn test_conflicting_data_bad_cluster_scoped_child_owner_in_ns1_owner_first() {
    let h = harness().await;
    let pod1ns1 = pod(&h, "podname1", &[]).await;
    let pod1nonamespace = id_in("", &pod1ns1);
    let node1 = node1(&h, &[&pod1ns1]).await;

    // 2,3: observe namespace-scoped parent
    h.process_event(make_add_event(&pod1ns1, &[])).await;
    h.assert_state("observe parent", State { graph_nodes: vec![node(&pod1ns1, &[])], ..State::default() }).await;

    // 4,5: observe cluster-scoped child
    h.process_event(make_add_event(&node1, &[&pod1ns1])).await;
    h.assert_state(
        "observe child",
        State {
            graph_nodes: vec![node(&node1, &[&pod1nonamespace]), node(&pod1ns1, &[])],
            events: vec![invalid_namespace_event(&pod1nonamespace, "Node")],
            pending_attempt_to_delete: vec![queued(&node1)],
            ..State::default()
        },
    )
    .await;

    // 6,7: the bad cluster-scoped child is looked up, neither deleted nor retried
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "final",
        State {
            client_actions: vec![get_call(&node1)],
            graph_nodes: vec![node(&node1, &[&pod1nonamespace]), node(&pod1ns1, &[])],
            ..State::default()
        },
    )
    .await;
}

/// A custom resource `Role` served as `rbac.example.com/v1` (preferred) and `v1beta1`.
async fn serve_roles_in_two_versions(h: &Harness) {
    let version = |name: &str, storage: bool| {
        json!({"name": name, "served": true, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
    };
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "roles.rbac.example.com"},
        "spec": {"group": "rbac.example.com", "scope": "Namespaced",
            "names": {"plural": "roles", "singular": "role", "kind": "Role"},
            "versions": [version("v1", true), version("v1beta1", false)]}
    });
    h.create_raw("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd).await;
    h.gc.refresh_rest_mapper().await.expect("discovery");
    h.take_calls();
}

#[tokio::test]
async fn test_conflicting_data_good_child_existing_owner_with_non_preferred_accessible_api_version() {
    let h = harness().await;
    serve_roles_in_two_versions(&h).await;
    let role1v1 = h.create(&make_id("rbac.example.com/v1", "Role", "ns1", "role1", ""), &[]).await;
    let role1v1beta1 = Identity { api_version: "rbac.example.com/v1beta1".into(), ..role1v1.clone() };
    let pod1ns1 = pod(&h, "podname1", &[&role1v1beta1]).await;

    // 3,4: observe child
    h.process_event(make_add_event(&pod1ns1, &[&role1v1beta1])).await;
    h.assert_state(
        "observe child",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&role1v1beta1]), virtual_node(&role1v1beta1)],
            pending_attempt_to_delete: vec![queued_virtual(&role1v1beta1)],
            ..State::default()
        },
    )
    .await;

    // 5,6: the virtual parent exists through v1beta1; not yet observed, still queued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent verified",
        State {
            client_actions: vec![get_call(&role1v1beta1)],
            graph_nodes: vec![node(&pod1ns1, &[&role1v1beta1]), virtual_node(&role1v1beta1)],
            pending_attempt_to_delete: vec![queued_virtual(&role1v1beta1)],
            ..State::default()
        },
    )
    .await;

    // 7,8: observe parent via v1: version corrected, mismatched child queued
    h.process_event(make_add_event(&role1v1, &[])).await;
    h.assert_state(
        "observe parent via v1",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&role1v1beta1]), node(&role1v1, &[])],
            pending_attempt_to_delete: vec![queued_virtual(&role1v1beta1), queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 9,10: the stale virtual parent is dropped
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "stale virtual parent dropped",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&role1v1beta1]), node(&role1v1, &[])],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 11,12: the child's owner is solid through v1beta1
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "child kept",
        State {
            client_actions: vec![get_call(&pod1ns1), get_call(&role1v1beta1)],
            graph_nodes: vec![node(&pod1ns1, &[&role1v1beta1]), node(&role1v1, &[])],
            ..State::default()
        },
    )
    .await;

    // 13-16: teardown, and the delete observed via v1
    h.delete_object(&role1v1).await;
    h.process_event(make_delete_event(&role1v1, &[])).await;
    h.assert_state(
        "parent deleted",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&role1v1beta1])],
            absent_owner_cache: vec![role1v1.clone()],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 17,18: the child is collected
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "child deleted",
        State {
            client_actions: vec![get_call(&pod1ns1), get_call(&role1v1beta1), delete_call(&pod1ns1)],
            absent_owner_cache: vec![role1v1.clone(), role1v1beta1.clone()],
            graph_nodes: vec![node(&pod1ns1, &[&role1v1beta1])],
            ..State::default()
        },
    )
    .await;

    // 19,20: observe the delete; the graph is empty
    h.process_event(make_delete_event(&pod1ns1, &[])).await;
    h.assert_state("final", State { absent_owner_cache: vec![role1v1, role1v1beta1], ..State::default() }).await;
}

#[tokio::test]
async fn test_conflicting_data_child_existing_owner_with_inaccessible_api_version_child_first() {
    let h = harness().await;
    let deployment1apps = deployment1(&h).await;
    let deployment1extensions = extensions(&deployment1apps);
    let pod1ns1 = pod(&h, "podname1", &[&deployment1extensions]).await;

    // 2,3: observe child
    h.process_event(make_add_event(&pod1ns1, &[&deployment1extensions])).await;
    h.assert_state(
        "observe child",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions]), virtual_node(&deployment1extensions)],
            pending_attempt_to_delete: vec![queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;

    // 4,5: requeued on the REST mapping error
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent unmappable",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions]), virtual_node(&deployment1extensions)],
            pending_attempt_to_delete: vec![queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;

    // 6,7: observe parent via apps/v1: corrected; mismatched child queued
    h.process_event(make_add_event(&deployment1apps, &[])).await;
    h.assert_state(
        "observe parent",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions]), node(&deployment1apps, &[])],
            pending_attempt_to_delete: vec![queued_virtual(&deployment1extensions), queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 8,9: the stale virtual parent is dropped
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "stale virtual parent dropped",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions]), node(&deployment1apps, &[])],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 10,11: the child's reference cannot be mapped: requeued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "child unmappable",
        State {
            client_actions: vec![get_call(&pod1ns1)],
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions]), node(&deployment1apps, &[])],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 12-14: teardown, and the delete observed via apps/v1
    h.delete_object(&deployment1apps).await;
    h.process_event(make_delete_event(&deployment1apps, &[])).await;
    h.assert_state(
        "parent deleted",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions])],
            absent_owner_cache: vec![deployment1apps.clone()],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 17,18: still unmappable, still queued, never deleted
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "final",
        State {
            client_actions: vec![get_call(&pod1ns1)],
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions])],
            absent_owner_cache: vec![deployment1apps],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;
}

#[tokio::test]
async fn test_conflicting_data_child_existing_owner_with_inaccessible_api_version_owner_first() {
    let h = harness().await;
    let deployment1apps = deployment1(&h).await;
    let deployment1extensions = extensions(&deployment1apps);
    let pod1ns1 = pod(&h, "podname1", &[&deployment1extensions]).await;

    // 2,3: observe parent via apps/v1
    h.process_event(make_add_event(&deployment1apps, &[])).await;
    h.assert_state("observe parent", State { graph_nodes: vec![node(&deployment1apps, &[])], ..State::default() }).await;

    // 4,5: observe child: mismatched, queued
    h.process_event(make_add_event(&pod1ns1, &[&deployment1extensions])).await;
    h.assert_state(
        "observe child",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions]), node(&deployment1apps, &[])],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 6,7: the child's reference cannot be mapped: requeued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "child unmappable",
        State {
            client_actions: vec![get_call(&pod1ns1)],
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions]), node(&deployment1apps, &[])],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 8-10: teardown, and the delete observed via apps/v1
    h.delete_object(&deployment1apps).await;
    h.process_event(make_delete_event(&deployment1apps, &[])).await;
    h.assert_state(
        "parent deleted",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions])],
            absent_owner_cache: vec![deployment1apps.clone()],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 11,12: the child with an unresolvable reference stays, queued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "final",
        State {
            client_actions: vec![get_call(&pod1ns1)],
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions])],
            absent_owner_cache: vec![deployment1apps],
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;
}

#[tokio::test]
async fn test_conflicting_data_child_non_existent_owner_with_inaccessible_api_version_inaccessible_parent_api_version_first() {
    let h = harness().await;
    let deployment1apps = absent("apps/v1", "Deployment", "ns1", "deployment1", "deploymentuid1");
    let deployment1extensions = extensions(&deployment1apps);
    let pod1ns1 = pod(&h, "podname1", &[&deployment1extensions]).await;
    let pod2ns1 = pod(&h, "podname2", &[&deployment1apps]).await;

    // 2,3: observe child pointing at the unserved apiVersion
    h.process_event(make_add_event(&pod1ns1, &[&deployment1extensions])).await;
    h.assert_state(
        "observe child of unserved version",
        State {
            graph_nodes: vec![node(&pod1ns1, &[&deployment1extensions]), virtual_node(&deployment1extensions)],
            pending_attempt_to_delete: vec![queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;

    // 4,5: observe child pointing at the served apiVersion: mismatched, queued
    h.process_event(make_add_event(&pod2ns1, &[&deployment1apps])).await;
    let graph =
        || vec![node(&pod1ns1, &[&deployment1extensions]), virtual_node(&deployment1extensions), node(&pod2ns1, &[&deployment1apps])];
    h.assert_state(
        "observe child of served version",
        State {
            graph_nodes: graph(),
            pending_attempt_to_delete: vec![queued_virtual(&deployment1extensions), queued(&pod2ns1)],
            ..State::default()
        },
    )
    .await;

    // 6,7: the virtual parent cannot be mapped: requeued to the end
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent unmappable",
        State {
            graph_nodes: graph(),
            pending_attempt_to_delete: vec![queued(&pod2ns1), queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;

    // 8,9: the mismatched child has a verifiably absent parent: deleted
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "legitimate child deleted",
        State {
            client_actions: vec![get_call(&pod2ns1), get_call(&deployment1apps), delete_call(&pod2ns1)],
            graph_nodes: graph(),
            absent_owner_cache: vec![deployment1apps.clone()],
            pending_attempt_to_delete: vec![queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;

    // 10,11: observe the delete issued in step 8
    h.process_event(make_delete_event(&pod2ns1, &[])).await;
    let graph = || vec![node(&pod1ns1, &[&deployment1extensions]), virtual_node(&deployment1extensions)];
    h.assert_state(
        "child delete observed",
        State {
            graph_nodes: graph(),
            absent_owner_cache: vec![deployment1apps.clone()],
            pending_attempt_to_delete: vec![queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;

    // 12,13: the unmappable parent keeps being requeued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "final",
        State {
            graph_nodes: graph(),
            absent_owner_cache: vec![deployment1apps],
            pending_attempt_to_delete: vec![queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;
}

#[tokio::test]
async fn test_conflicting_data_child_non_existent_owner_with_inaccessible_api_version_accessible_parent_api_version_first() {
    let h = harness().await;
    let deployment1apps = absent("apps/v1", "Deployment", "ns1", "deployment1", "deploymentuid1");
    let deployment1extensions = extensions(&deployment1apps);
    let pod1ns1 = pod(&h, "podname1", &[&deployment1extensions]).await;
    let pod2ns1 = pod(&h, "podname2", &[&deployment1apps]).await;

    // 2,3: observe child pointing at the served apiVersion, whose owner does not exist
    h.process_event(make_add_event(&pod2ns1, &[&deployment1apps])).await;
    h.assert_state(
        "observe child of served version",
        State {
            graph_nodes: vec![node(&pod2ns1, &[&deployment1apps]), virtual_node(&deployment1apps)],
            pending_attempt_to_delete: vec![queued_virtual(&deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 4,5: observe child pointing at the unserved apiVersion: mismatched, queued
    h.process_event(make_add_event(&pod1ns1, &[&deployment1extensions])).await;
    let graph =
        |parent: &Identity| vec![node(&pod2ns1, &[&deployment1apps]), virtual_node(parent), node(&pod1ns1, &[&deployment1extensions])];
    h.assert_state(
        "observe child of unserved version",
        State {
            graph_nodes: graph(&deployment1apps),
            pending_attempt_to_delete: vec![queued_virtual(&deployment1apps), queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 6,7: the virtual parent is not found: a virtual delete event is queued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent absent",
        State {
            client_actions: vec![get_call(&deployment1apps)],
            pending_graph_changes: vec![make_virtual_delete_event(&deployment1apps)],
            graph_nodes: graph(&deployment1apps),
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 8,9: the child of the unserved version cannot be mapped: requeued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "child unmappable",
        State {
            client_actions: vec![get_call(&pod1ns1)],
            pending_graph_changes: vec![make_virtual_delete_event(&deployment1apps)],
            graph_nodes: graph(&deployment1apps),
            pending_attempt_to_delete: vec![queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 10,11: the virtual delete: the node switches to the alternate (extensions) identity
    h.process_pending_graph_changes(1).await;
    h.assert_state(
        "alternate identity",
        State {
            graph_nodes: graph(&deployment1extensions),
            absent_owner_cache: vec![deployment1apps.clone()],
            pending_attempt_to_delete: vec![queued(&pod1ns1), queued(&pod2ns1), queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;

    // 12,13: the child of the unserved version: requeued to the end
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "child of unserved version requeued",
        State {
            client_actions: vec![get_call(&pod1ns1)],
            graph_nodes: graph(&deployment1extensions),
            absent_owner_cache: vec![deployment1apps.clone()],
            pending_attempt_to_delete: vec![queued(&pod2ns1), queued_virtual(&deployment1extensions), queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 14,15: the child of the served version: owner absence cached, deleted without an owner GET
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "child of served version deleted",
        State {
            client_actions: vec![get_call(&pod2ns1), delete_call(&pod2ns1)],
            graph_nodes: graph(&deployment1extensions),
            absent_owner_cache: vec![deployment1apps.clone()],
            pending_attempt_to_delete: vec![queued_virtual(&deployment1extensions), queued(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 16,17: the virtual parent of the unserved version: requeued to the end
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent requeued",
        State {
            graph_nodes: graph(&deployment1extensions),
            absent_owner_cache: vec![deployment1apps.clone()],
            pending_attempt_to_delete: vec![queued(&pod1ns1), queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;

    // 18,19: observe the delete of pod2; both remaining nodes keep polling with back-off
    h.process_event(make_delete_event(&pod2ns1, &[])).await;
    h.assert_state(
        "final",
        State {
            graph_nodes: vec![virtual_node(&deployment1extensions), node(&pod1ns1, &[&deployment1extensions])],
            absent_owner_cache: vec![deployment1apps],
            pending_attempt_to_delete: vec![queued(&pod1ns1), queued_virtual(&deployment1extensions)],
            ..State::default()
        },
    )
    .await;
}

/// The objects of the incorrect-API-version scenarios: deployment1, a bad pod referencing a
/// Secret with the deployment's UID, and a good pod referencing the deployment.
struct BadSecretReference {
    deployment1apps: Identity,
    bad_secret_reference: Identity,
    bad_child: Identity,
    good_child: Identity,
}

async fn bad_secret_reference(h: &Harness) -> BadSecretReference {
    let deployment1apps = deployment1(h).await;
    let bad_secret_reference =
        Identity { api_version: "v1".into(), kind: "Secret".into(), name: "secretname".into(), ..deployment1apps.clone() };
    let bad_child = pod(h, "badpod", &[&bad_secret_reference]).await;
    let good_child = pod(h, "goodpod", &[&deployment1apps]).await;
    BadSecretReference { deployment1apps, bad_secret_reference, bad_child, good_child }
}

impl BadSecretReference {
    /// Both children, and the parent node as `parent` (virtual or not).
    fn graph(&self, parent: ExpectedNode) -> Vec<ExpectedNode> {
        vec![node(&self.good_child, &[&self.deployment1apps]), node(&self.bad_child, &[&self.bad_secret_reference]), parent]
    }

    /// Observes the bad child, then the good one, and lets the collector look up the bad
    /// parent (absent: a virtual delete event waits) and the good child (its parent exists):
    /// steps 3-10 of the two "bad child, good child" sub-cases.
    async fn observe_bad_child_then_good_child(&self, h: &Harness) {
        let s = self;
        // 3,4: observe bad child
        h.process_event(make_add_event(&s.bad_child, &[&s.bad_secret_reference])).await;
        h.assert_state(
            "observe bad child",
            State {
                graph_nodes: vec![node(&s.bad_child, &[&s.bad_secret_reference]), virtual_node(&s.bad_secret_reference)],
                pending_attempt_to_delete: vec![queued_virtual(&s.bad_secret_reference)],
                ..State::default()
            },
        )
        .await;

        // 5,6: observe good child: its reference disagrees with the virtual node, queued
        h.process_event(make_add_event(&s.good_child, &[&s.deployment1apps])).await;
        h.assert_state(
            "observe good child",
            State {
                graph_nodes: s.graph(virtual_node(&s.bad_secret_reference)),
                pending_attempt_to_delete: vec![queued_virtual(&s.bad_secret_reference), queued(&s.good_child)],
                ..State::default()
            },
        )
        .await;

        // 7,8: the bad parent is not found: a virtual delete event is queued
        h.process_attempt_to_delete(1).await;
        h.assert_state(
            "bad parent absent",
            State {
                client_actions: vec![get_call(&s.bad_secret_reference)],
                pending_graph_changes: vec![make_virtual_delete_event(&s.bad_secret_reference)],
                graph_nodes: s.graph(virtual_node(&s.bad_secret_reference)),
                pending_attempt_to_delete: vec![queued(&s.good_child)],
                ..State::default()
            },
        )
        .await;

        // 9,10: the good child's parent exists: kept
        h.process_attempt_to_delete(1).await;
        h.assert_state(
            "good child kept",
            State {
                client_actions: vec![get_call(&s.good_child), get_call(&s.deployment1apps)],
                pending_graph_changes: vec![make_virtual_delete_event(&s.bad_secret_reference)],
                graph_nodes: s.graph(virtual_node(&s.bad_secret_reference)),
                ..State::default()
            },
        )
        .await;
    }
}

#[tokio::test]
async fn test_conflicting_data_bad_child_existing_owner_with_incorrect_api_version_bad_child_good_child_bad_parent_delete_good_parent() {
    let h = harness().await;
    let s = bad_secret_reference(&h).await;
    s.observe_bad_child_then_good_child(&h).await;
    let absent = || vec![s.bad_secret_reference.clone()];

    // 11,12: the virtual delete: the node switches to the deployment's identity, still virtual
    h.process_pending_graph_changes(1).await;
    h.assert_state(
        "alternate identity",
        State {
            graph_nodes: s.graph(virtual_node(&s.deployment1apps)),
            absent_owner_cache: absent(),
            pending_attempt_to_delete: vec![queued(&s.bad_child), queued_virtual(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 13,14: the bad child is deleted (absence of its parent is cached)
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "bad child deleted",
        State {
            client_actions: vec![get_call(&s.bad_child), delete_call(&s.bad_child)],
            graph_nodes: s.graph(virtual_node(&s.deployment1apps)),
            absent_owner_cache: absent(),
            pending_attempt_to_delete: vec![queued_virtual(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 15,16: the new virtual parent exists; not yet observed, requeued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent verified",
        State {
            client_actions: vec![get_call(&s.deployment1apps)],
            graph_nodes: s.graph(virtual_node(&s.deployment1apps)),
            absent_owner_cache: absent(),
            pending_attempt_to_delete: vec![queued_virtual(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 17,18: observe good parent: the queued node is no longer virtual
    h.process_event(make_add_event(&s.deployment1apps, &[])).await;
    h.assert_state(
        "observe good parent",
        State {
            graph_nodes: s.graph(node(&s.deployment1apps, &[])),
            absent_owner_cache: absent(),
            pending_attempt_to_delete: vec![queued(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 19,20: observe the delete of the bad child
    h.process_event(make_delete_event(&s.bad_child, &[&s.bad_secret_reference])).await;
    let graph = || vec![node(&s.good_child, &[&s.deployment1apps]), node(&s.deployment1apps, &[])];
    h.assert_state(
        "bad child delete observed",
        State {
            graph_nodes: graph(),
            absent_owner_cache: absent(),
            pending_attempt_to_delete: vec![queued(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 21,22: the good parent is looked up; the good child was never deleted
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "final",
        State {
            client_actions: vec![get_call(&s.deployment1apps)],
            graph_nodes: graph(),
            absent_owner_cache: absent(),
            ..State::default()
        },
    )
    .await;
}

#[tokio::test]
async fn test_conflicting_data_bad_child_existing_owner_with_incorrect_api_version_bad_child_good_child_good_parent_bad_parent_delete() {
    let h = harness().await;
    let s = bad_secret_reference(&h).await;
    s.observe_bad_child_then_good_child(&h).await;
    let absent = || vec![s.bad_secret_reference.clone()];

    // 11,12: the good parent's add event sneaks in ahead of the virtual delete
    h.gc.insert_graph_change(make_add_event(&s.deployment1apps, &[]));
    let add_event = Change::of(&make_add_event(&s.deployment1apps, &[]));
    h.assert_state(
        "good parent add queued first",
        State {
            pending_graph_changes: vec![add_event, make_virtual_delete_event(&s.bad_secret_reference)],
            graph_nodes: s.graph(virtual_node(&s.bad_secret_reference)),
            ..State::default()
        },
    )
    .await;

    // 13,14: the add fixes the node (observed); the bad child disagrees and is queued
    h.process_pending_graph_changes(1).await;
    h.assert_state(
        "observe good parent",
        State {
            pending_graph_changes: vec![make_virtual_delete_event(&s.bad_secret_reference)],
            graph_nodes: s.graph(node(&s.deployment1apps, &[])),
            pending_attempt_to_delete: vec![queued(&s.bad_child)],
            ..State::default()
        },
    )
    .await;

    // 15,16: the virtual delete meets a real node with other coordinates: absence recorded
    h.process_pending_graph_changes(1).await;
    h.assert_state(
        "bad parent absent",
        State {
            graph_nodes: s.graph(node(&s.deployment1apps, &[])),
            absent_owner_cache: absent(),
            pending_attempt_to_delete: vec![queued(&s.bad_child)],
            ..State::default()
        },
    )
    .await;

    // 17,18: the bad child is deleted (absence of its parent is cached)
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "bad child deleted",
        State {
            client_actions: vec![get_call(&s.bad_child), delete_call(&s.bad_child)],
            graph_nodes: s.graph(node(&s.deployment1apps, &[])),
            absent_owner_cache: absent(),
            ..State::default()
        },
    )
    .await;

    // 19,20: observe the delete of the bad child
    h.process_event(make_delete_event(&s.bad_child, &[&s.bad_secret_reference])).await;
    h.assert_state(
        "final",
        State {
            graph_nodes: vec![node(&s.good_child, &[&s.deployment1apps]), node(&s.deployment1apps, &[])],
            absent_owner_cache: absent(),
            ..State::default()
        },
    )
    .await;
}

#[tokio::test]
async fn test_conflicting_data_bad_child_existing_owner_with_incorrect_api_version_good_child_bad_child_good_parent() {
    let h = harness().await;
    let s = bad_secret_reference(&h).await;
    let absent = || vec![s.bad_secret_reference.clone()];

    // 3,4: observe good child
    h.process_event(make_add_event(&s.good_child, &[&s.deployment1apps])).await;
    h.assert_state(
        "observe good child",
        State {
            graph_nodes: vec![node(&s.good_child, &[&s.deployment1apps]), virtual_node(&s.deployment1apps)],
            pending_attempt_to_delete: vec![queued_virtual(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 5,6: observe bad child: its reference disagrees, queued
    h.process_event(make_add_event(&s.bad_child, &[&s.bad_secret_reference])).await;
    h.assert_state(
        "observe bad child",
        State {
            graph_nodes: s.graph(virtual_node(&s.deployment1apps)),
            pending_attempt_to_delete: vec![queued_virtual(&s.deployment1apps), queued(&s.bad_child)],
            ..State::default()
        },
    )
    .await;

    // 7,8: the virtual parent exists: requeued to the end, still virtual
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent verified",
        State {
            client_actions: vec![get_call(&s.deployment1apps)],
            graph_nodes: s.graph(virtual_node(&s.deployment1apps)),
            pending_attempt_to_delete: vec![queued(&s.bad_child), queued_virtual(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 9,10: the bad child's parent is absent: deleted
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "bad child deleted",
        State {
            client_actions: vec![get_call(&s.bad_child), get_call(&s.bad_secret_reference), delete_call(&s.bad_child)],
            graph_nodes: s.graph(virtual_node(&s.deployment1apps)),
            absent_owner_cache: absent(),
            pending_attempt_to_delete: vec![queued_virtual(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 11,12: observe good parent: the queued node is no longer virtual
    h.process_event(make_add_event(&s.deployment1apps, &[])).await;
    h.assert_state(
        "observe good parent",
        State {
            graph_nodes: s.graph(node(&s.deployment1apps, &[])),
            absent_owner_cache: absent(),
            pending_attempt_to_delete: vec![queued(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 13,14: observe the delete of the bad child
    h.process_event(make_delete_event(&s.bad_child, &[&s.bad_secret_reference])).await;
    let graph = || vec![node(&s.good_child, &[&s.deployment1apps]), node(&s.deployment1apps, &[])];
    h.assert_state(
        "bad child delete observed",
        State {
            graph_nodes: graph(),
            absent_owner_cache: absent(),
            pending_attempt_to_delete: vec![queued(&s.deployment1apps)],
            ..State::default()
        },
    )
    .await;

    // 15,16: the good parent is looked up; nothing left to do
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "final",
        State {
            client_actions: vec![get_call(&s.deployment1apps)],
            graph_nodes: graph(),
            absent_owner_cache: absent(),
            ..State::default()
        },
    )
    .await;
}

#[tokio::test]
async fn test_conflicting_data_cluster_scoped_bad_child_namespaced_good_child_missing_parent() {
    let h = harness().await;
    let pod1ns1 = absent("v1", "Pod", "ns1", "podname1", "poduid1");
    let pod1nonamespace = id_in("", &pod1ns1);
    let pod2ns1 = pod(&h, "podname2", &[&pod1ns1]).await;
    let node1 = node1(&h, &[&pod1nonamespace]).await;

    // 2,3: observe bad child
    h.process_event(make_add_event(&node1, &[&pod1nonamespace])).await;
    h.assert_state(
        "observe bad child",
        State {
            graph_nodes: vec![node(&node1, &[&pod1nonamespace]), virtual_node(&pod1nonamespace)],
            pending_attempt_to_delete: vec![queued_virtual(&pod1nonamespace)],
            ..State::default()
        },
    )
    .await;

    // 4,5: observe good child: the virtual parent looks cluster-scoped, so the child is queued
    h.process_event(make_add_event(&pod2ns1, &[&pod1ns1])).await;
    let graph = || vec![node(&node1, &[&pod1nonamespace]), node(&pod2ns1, &[&pod1ns1]), virtual_node(&pod1nonamespace)];
    h.assert_state(
        "observe good child",
        State {
            graph_nodes: graph(),
            pending_attempt_to_delete: vec![queued_virtual(&pod1nonamespace), queued(&pod2ns1)],
            ..State::default()
        },
    )
    .await;

    // 6,7: the namespaced virtual parent without a namespace: no call, forgotten
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent forgotten",
        State { graph_nodes: graph(), pending_attempt_to_delete: vec![queued(&pod2ns1)], ..State::default() },
    )
    .await;

    // 8,9: the good child's parent is missing: deleted
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "good child deleted",
        State {
            client_actions: vec![get_call(&pod2ns1), get_call(&pod1ns1), delete_call(&pod2ns1)],
            graph_nodes: graph(),
            absent_owner_cache: vec![pod1ns1.clone()],
            ..State::default()
        },
    )
    .await;

    // 10,11: steady state: the bad cluster-scoped child and its virtual parent, no retries
    h.process_event(make_delete_event(&pod2ns1, &[&pod1ns1])).await;
    h.assert_state(
        "final",
        State {
            graph_nodes: vec![node(&node1, &[&pod1nonamespace]), virtual_node(&pod1nonamespace)],
            absent_owner_cache: vec![pod1ns1],
            ..State::default()
        },
    )
    .await;
}

#[tokio::test]
async fn test_conflicting_data_cluster_scoped_bad_child_namespaced_good_child_late_observed_parent() {
    let h = harness().await;
    let pod1ns1 = pod(&h, "podname1", &[]).await;
    let pod1nonamespace = id_in("", &pod1ns1);
    let pod2ns1 = pod(&h, "podname2", &[&pod1ns1]).await;
    let node1 = node1(&h, &[&pod1nonamespace]).await;

    // 3,4: observe bad child
    h.process_event(make_add_event(&node1, &[&pod1nonamespace])).await;
    h.assert_state(
        "observe bad child",
        State {
            graph_nodes: vec![node(&node1, &[&pod1nonamespace]), virtual_node(&pod1nonamespace)],
            pending_attempt_to_delete: vec![queued_virtual(&pod1nonamespace)],
            ..State::default()
        },
    )
    .await;

    // 5,6: observe good child: queued
    h.process_event(make_add_event(&pod2ns1, &[&pod1ns1])).await;
    let graph = |parent: ExpectedNode| vec![node(&node1, &[&pod1nonamespace]), node(&pod2ns1, &[&pod1ns1]), parent];
    h.assert_state(
        "observe good child",
        State {
            graph_nodes: graph(virtual_node(&pod1nonamespace)),
            pending_attempt_to_delete: vec![queued_virtual(&pod1nonamespace), queued(&pod2ns1)],
            ..State::default()
        },
    )
    .await;

    // 7,8: the namespaced virtual parent without a namespace: no call, forgotten
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent forgotten",
        State { graph_nodes: graph(virtual_node(&pod1nonamespace)), pending_attempt_to_delete: vec![queued(&pod2ns1)], ..State::default() },
    )
    .await;

    // 9,10: the good child's parent exists: kept
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "good child kept",
        State {
            client_actions: vec![get_call(&pod2ns1), get_call(&pod1ns1)],
            graph_nodes: graph(virtual_node(&pod1nonamespace)),
            ..State::default()
        },
    )
    .await;

    // 11,12: late observation of the parent: warn about the node's reference, queue the node
    h.process_event(make_add_event(&pod1ns1, &[])).await;
    h.assert_state(
        "observe parent",
        State {
            graph_nodes: graph(node(&pod1ns1, &[])),
            events: vec![invalid_namespace_event(&pod1nonamespace, "Node")],
            pending_attempt_to_delete: vec![queued(&node1)],
            ..State::default()
        },
    )
    .await;

    // 13,14: steady state: the bad cluster-scoped child stays, with no retries
    h.process_attempt_to_delete(1).await;
    h.assert_state("final", State { client_actions: vec![get_call(&node1)], graph_nodes: graph(node(&pod1ns1, &[])), ..State::default() })
        .await;
}

#[tokio::test]
async fn test_conflicting_data_namespaced_good_child_cluster_scoped_bad_child_missing_parent() {
    let h = harness().await;
    let pod1ns1 = absent("v1", "Pod", "ns1", "podname1", "poduid1");
    let pod1nonamespace = id_in("", &pod1ns1);
    let pod2ns1 = pod(&h, "podname2", &[&pod1ns1]).await;
    let node1 = node1(&h, &[&pod1nonamespace]).await;

    // 2,3: observe good child
    h.process_event(make_add_event(&pod2ns1, &[&pod1ns1])).await;
    h.assert_state(
        "observe good child",
        State {
            graph_nodes: vec![node(&pod2ns1, &[&pod1ns1]), virtual_node(&pod1ns1)],
            pending_attempt_to_delete: vec![queued_virtual(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 4,5: observe bad child: mismatched, queued
    h.process_event(make_add_event(&node1, &[&pod1nonamespace])).await;
    let graph = |parent: &Identity| vec![node(&pod2ns1, &[&pod1ns1]), node(&node1, &[&pod1nonamespace]), virtual_node(parent)];
    h.assert_state(
        "observe bad child",
        State {
            graph_nodes: graph(&pod1ns1),
            pending_attempt_to_delete: vec![queued_virtual(&pod1ns1), queued(&node1)],
            ..State::default()
        },
    )
    .await;

    // 6,7: the virtual parent is not found: a virtual delete event is queued
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "virtual parent absent",
        State {
            client_actions: vec![get_call(&pod1ns1)],
            graph_nodes: graph(&pod1ns1),
            pending_graph_changes: vec![make_virtual_delete_event(&pod1ns1)],
            pending_attempt_to_delete: vec![queued(&node1)],
            ..State::default()
        },
    )
    .await;

    // 8,9: the bad cluster-scoped child: looked up, not deleted, not retried
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "bad child kept",
        State {
            client_actions: vec![get_call(&node1)],
            graph_nodes: graph(&pod1ns1),
            pending_graph_changes: vec![make_virtual_delete_event(&pod1ns1)],
            ..State::default()
        },
    )
    .await;

    // 10,11: the virtual delete: the node switches to the coordinates without a namespace
    h.process_pending_graph_changes(1).await;
    h.assert_state(
        "alternate identity",
        State {
            graph_nodes: graph(&pod1nonamespace),
            absent_owner_cache: vec![pod1ns1.clone()],
            pending_attempt_to_delete: vec![queued(&pod2ns1), queued_virtual(&pod1nonamespace)],
            ..State::default()
        },
    )
    .await;

    // 12,13: the good child is deleted (absence of its parent is cached)
    h.process_attempt_to_delete(1).await;
    h.assert_state(
        "good child deleted",
        State {
            client_actions: vec![get_call(&pod2ns1), delete_call(&pod2ns1)],
            graph_nodes: graph(&pod1nonamespace),
            absent_owner_cache: vec![pod1ns1.clone()],
            pending_attempt_to_delete: vec![queued_virtual(&pod1nonamespace)],
            ..State::default()
        },
    )
    .await;

    // 14,15: observe the delete of the good child
    h.process_event(make_delete_event(&pod2ns1, &[&pod1ns1])).await;
    let graph = || vec![node(&node1, &[&pod1nonamespace]), virtual_node(&pod1nonamespace)];
    h.assert_state(
        "good child delete observed",
        State {
            graph_nodes: graph(),
            absent_owner_cache: vec![pod1ns1.clone()],
            pending_attempt_to_delete: vec![queued_virtual(&pod1nonamespace)],
            ..State::default()
        },
    )
    .await;

    // 16,17: steady state: the virtual parent without a namespace is forgotten without a call
    h.process_attempt_to_delete(1).await;
    h.assert_state("final", State { graph_nodes: graph(), absent_owner_cache: vec![pod1ns1], ..State::default() }).await;
}
