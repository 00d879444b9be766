//! Upstream `TestConflictingData` as upstream writes it: a table of
//! cases, each a list of steps (objects created or deleted, informer events applied, queue items
//! processed) and of the state expected after them (the API calls the collector made, the events
//! it recorded, the graph, the pending graph changes, the queues and the absent-owner cache), and
//! one driver that runs the cases and names every one that fails.
//!
//! Objects have upstream's names and UIDs ([`POD1NS1`] is `poduid1`). The server gives a
//! created object a UID of its own, which then stands for upstream's in every name that shares
//! it ([`POD2NS1`] is [`POD2NS2`] seen from ns1 once that one is created); an object that is never
//! created keeps upstream's UID, made up. The non-preferred but served Role version of upstream's
//! `rbac.authorization.k8s.io/v1beta1` is a custom resource served as `rbac.example.com/v1`
//! (preferred) and `v1beta1`; `extensions/v1beta1` Deployments are not served by the fake
//! apiserver, as by a current kube-apiserver.

mod gc_support;
mod support;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;

use futures::FutureExt as _;
use gc_support::{Change, Harness, State, delete_call, get_call, make_add_event, make_delete_event, make_id, make_virtual_delete_event};
use gc_support::{node, queued, queued_virtual, virtual_node};
use kubegc::gc::Config;
use kubegc::gc::graph::Identity;
use serde_json::json;

use Call::*;
use GraphNode::*;
use PendingChange::*;
use QueueEntry::*;
use Step::*;

/// An object as upstream's `makeID` names it.
#[derive(Clone, Copy)]
struct Id {
    api_version: &'static str,
    kind: &'static str,
    namespace: &'static str,
    name: &'static str,
    /// Upstream's UID; the server's once an object with it is created.
    uid: &'static str,
}

/// Upstream `makeID`.
const fn id(api_version: &'static str, kind: &'static str, namespace: &'static str, name: &'static str, uid: &'static str) -> Id {
    Id { api_version, kind, namespace, name, uid }
}

const POD1NS1: Id = id("v1", "Pod", "ns1", "podname1", "poduid1");
const POD2NS1: Id = id("v1", "Pod", "ns1", "podname2", "poduid2");
const POD2NS2: Id = id("v1", "Pod", "ns2", "podname2", "poduid2");
const NODE1: Id = id("v1", "Node", "", "nodename", "nodeuid1");
const ROLE1V1: Id = id("rbac.example.com/v1", "Role", "ns1", "role1", "roleuid1");
const ROLE1V1BETA1: Id = id("rbac.example.com/v1beta1", "Role", "ns1", "role1", "roleuid1");
const DEPLOYMENT1APPS: Id = id("apps/v1", "Deployment", "ns1", "deployment1", "deploymentuid1");
/// Not served, still referenced.
const DEPLOYMENT1EXTENSIONS: Id = id("extensions/v1beta1", "Deployment", "ns1", "deployment1", "deploymentuid1");
/// When a namespaced object refers to node1, its virtual node takes the dependent's namespace.
const NODE1_WITH_NAMESPACE: Id = id("v1", "Node", "ns1", "nodename", "nodeuid1");
/// When a cluster-scoped object refers to pod1, its virtual node has no namespace.
const POD1_NO_NAMESPACE: Id = id("v1", "Pod", "", "podname1", "poduid1");
/// A Secret that does not exist, with deployment1's UID.
const BAD_SECRET_REFERENCE: Id = id("v1", "Secret", "ns1", "secretname", "deploymentuid1");
const BAD_CHILD: Id = id("v1", "Pod", "ns1", "badpod", "badpoduid");
const GOOD_CHILD: Id = id("v1", "Pod", "ns1", "goodpod", "goodpoduid");

/// What a case does, or checks, next (upstream's `step` constructors).
enum Step {
    /// Serves `Role` as `rbac.example.com/v1` (preferred) and `v1beta1`, and lets the
    /// collector's REST mapper learn it.
    ServeRolesInTwoVersions,
    /// Creates the object with references to the owners (upstream `createObjectInClient`).
    Create(Id, &'static [Id]),
    /// Deletes the object from the server (upstream `deleteObjectFromClient`).
    DeleteFromClient(Id),
    /// Applies an informer add of the object referencing the owners (upstream `processEvent`).
    AddEvent(Id, &'static [Id]),
    /// Applies an informer delete of the object referencing the owners (upstream `processEvent`).
    DeleteEvent(Id, &'static [Id]),
    /// Puts an informer add ahead of the pending graph changes (upstream `insertEvent`).
    InsertAddEvent(Id, &'static [Id]),
    /// Processes one attemptToDelete item (upstream `processAttemptToDelete(1)`).
    AttemptToDelete,
    /// Applies one pending graph change (upstream `processPendingGraphChanges(1)`).
    GraphChange,
    /// Asserts the state (upstream `assertState`).
    Assert(Expected),
    /// Steps several cases share.
    Steps(&'static [Step]),
}

/// What [`Step::Assert`] expects (upstream `state`); empty fields expect nothing.
#[derive(Clone, Copy)]
struct Expected {
    /// Names the assertion in failure messages.
    name: &'static str,
    events: &'static [InvalidNamespace],
    client_actions: &'static [Call],
    graph_nodes: &'static [GraphNode],
    pending_graph_changes: &'static [PendingChange],
    pending_attempt_to_delete: &'static [QueueEntry],
    absent_owner_cache: &'static [Id],
}

/// The state with nothing in it, which each [`Expected`] fills in.
const NOTHING: Expected = Expected {
    name: "",
    events: &[],
    client_actions: &[],
    graph_nodes: &[],
    pending_graph_changes: &[],
    pending_attempt_to_delete: &[],
    absent_owner_cache: &[],
};

/// The Warning event for a reference to an owner (its coordinates in the dependent's namespace)
/// from a dependent of a kind.
#[derive(Clone, Copy)]
struct InvalidNamespace(Id, &'static str);

/// A request of the collector.
#[derive(Clone, Copy)]
enum Call {
    Get(Id),
    Delete(Id),
}

/// A node of the graph (upstream `makeNode`).
#[derive(Clone, Copy)]
enum GraphNode {
    /// An observed object referencing owners.
    Node(Id, &'static [Id]),
    VirtualNode(Id),
}

/// A waiting graph change.
#[derive(Clone, Copy)]
enum PendingChange {
    /// Upstream `makeAddEvent`.
    PendingAdd(Id, &'static [Id]),
    /// Upstream `makeVirtualDeleteEvent`.
    PendingVirtualDelete(Id),
}

/// An attemptToDelete item.
#[derive(Clone, Copy)]
enum QueueEntry {
    Queued(Id),
    QueuedVirtual(Id),
}

/// A case of upstream's table.
struct Case {
    name: &'static str,
    steps: &'static [Step],
}

/// Runs every case against a server and collector of its own, and fails naming each case that
/// failed; the panic of a failed case says at which assertion and what differed.
#[tokio::test]
async fn conflicting_data() {
    let mut failed = Vec::new();
    for case in CASES {
        // A failed case must not hide the ones after it.
        if AssertUnwindSafe(run(case)).catch_unwind().await.is_err() {
            failed.push(case.name);
        }
    }
    assert!(failed.is_empty(), "failed cases: {failed:#?}");
}

/// Runs `case`'s steps, panicking at the first that fails.
async fn run(case: &Case) {
    let mut run = Run { h: Harness::new(Config::default()).await, uids: HashMap::new() };
    run.steps(case.name, case.steps).await;
}

/// A case being run: its harness, and the UIDs the server gave the objects created, under
/// upstream's.
struct Run {
    h: Harness,
    uids: HashMap<&'static str, String>,
}

impl Run {
    /// Takes `steps` of `case` in order.
    async fn steps(&mut self, case: &str, steps: &[Step]) {
        for step in steps {
            let h = &self.h;
            match *step {
                ServeRolesInTwoVersions => serve_roles_in_two_versions(h).await,
                Create(object, owners) => {
                    let created = h.create(&self.identity(object), &self.identities(owners).iter().collect::<Vec<_>>()).await;
                    self.uids.insert(object.uid, created.uid.to_string());
                }
                DeleteFromClient(object) => h.delete_object(&self.identity(object)).await,
                AddEvent(object, owners) => h.process_event(self.with_owners(make_add_event, object, owners)).await,
                DeleteEvent(object, owners) => h.process_event(self.with_owners(make_delete_event, object, owners)).await,
                InsertAddEvent(object, owners) => h.gc.insert_graph_change(self.with_owners(make_add_event, object, owners)),
                AttemptToDelete => h.process_attempt_to_delete(1).await,
                GraphChange => h.process_pending_graph_changes(1).await,
                Assert(expected) => h.assert_state(&format!("{case}: {}", expected.name), self.state(&expected)).await,
                Steps(steps) => Box::pin(self.steps(case, steps)).await,
            }
        }
    }

    /// The identity `object` names, with the UID the server gave it if it was created.
    fn identity(&self, object: Id) -> Identity {
        let uid = self.uids.get(object.uid).map_or(object.uid, String::as_str);
        make_id(object.api_version, object.kind, object.namespace, object.name, uid)
    }

    /// The identities `objects` name.
    fn identities(&self, objects: &[Id]) -> Vec<Identity> {
        each(objects, |object| self.identity(object))
    }

    /// `make` (an upstream builder such as `makeAddEvent`) of `object` referencing `owners`.
    fn with_owners<T>(&self, make: impl FnOnce(&Identity, &[&Identity]) -> T, object: Id, owners: &[Id]) -> T {
        let owners = self.identities(owners);
        make(&self.identity(object), &owners.iter().collect::<Vec<_>>())
    }

    /// `expected` in identities, as [`Harness::assert_state`] takes it.
    fn state(&self, expected: &Expected) -> State {
        let id = |object| self.identity(object);
        State {
            events: each(expected.events, |InvalidNamespace(owner, kind)| invalid_namespace_event(&id(owner), kind)),
            client_actions: each(expected.client_actions, |call| match call {
                Get(object) => get_call(&id(object)),
                Delete(object) => delete_call(&id(object)),
            }),
            graph_nodes: each(expected.graph_nodes, |graph_node| match graph_node {
                Node(object, owners) => self.with_owners(node, object, owners),
                VirtualNode(object) => virtual_node(&id(object)),
            }),
            pending_graph_changes: each(expected.pending_graph_changes, |change| match change {
                PendingAdd(object, owners) => Change::of(&self.with_owners(make_add_event, object, owners)),
                PendingVirtualDelete(object) => make_virtual_delete_event(&id(object)),
            }),
            pending_attempt_to_delete: each(expected.pending_attempt_to_delete, |entry| match entry {
                Queued(object) => queued(&id(object)),
                QueuedVirtual(object) => queued_virtual(&id(object)),
            }),
            absent_owner_cache: self.identities(expected.absent_owner_cache),
            ..State::default()
        }
    }
}

/// `f` of each of `items`.
fn each<T: Copy, U>(items: &[T], f: impl FnMut(T) -> U) -> Vec<U> {
    items.iter().copied().map(f).collect()
}

/// The Warning event upstream's fake recorder shows for a reference to `owner` (coordinates in
/// the dependent's namespace) from a dependent of `kind`.
fn invalid_namespace_event(owner: &Identity, kind: &str) -> String {
    format!(
        "Warning OwnerRefInvalidNamespace ownerRef [{}/{}, namespace: {}, name: {}, uid: {}] does not exist in namespace \"{}\" involvedObject{{kind={kind},apiVersion=v1}}",
        owner.api_version, owner.kind, owner.namespace, owner.name, owner.uid, owner.namespace
    )
}

/// Serves the custom resource `Role` as `rbac.example.com/v1` (preferred) and `v1beta1`.
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

/// The end of both "bad cluster-scoped child -> owner in ns1" cases: the bad child is looked up,
/// neither deleted nor retried.
const BAD_CLUSTER_SCOPED_CHILD_KEPT: &[Step] = &[
    AttemptToDelete,
    Assert(Expected {
        name: "final",
        client_actions: &[Get(NODE1)],
        graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), Node(POD1NS1, &[])],
        ..NOTHING
    }),
];

/// The end of both "existing owner with inaccessible API version" cases: the child's reference
/// to the unserved apiVersion cannot be mapped, so the child is requeued, before and after its
/// parent is deleted, and never deleted.
const CHILD_UNMAPPABLE_BEFORE_AND_AFTER_PARENT_DELETE: &[Step] = &[
    // the child's reference cannot be mapped: requeued
    AttemptToDelete,
    Assert(Expected {
        name: "child unmappable",
        client_actions: &[Get(POD1NS1)],
        graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), Node(DEPLOYMENT1APPS, &[])],
        pending_attempt_to_delete: &[Queued(POD1NS1)],
        ..NOTHING
    }),
    // teardown, and the delete observed via apps/v1
    DeleteFromClient(DEPLOYMENT1APPS),
    DeleteEvent(DEPLOYMENT1APPS, &[]),
    Assert(Expected {
        name: "parent deleted",
        graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS])],
        absent_owner_cache: &[DEPLOYMENT1APPS],
        pending_attempt_to_delete: &[Queued(POD1NS1)],
        ..NOTHING
    }),
    // still unmappable, still queued, never deleted
    AttemptToDelete,
    Assert(Expected {
        name: "final",
        client_actions: &[Get(POD1NS1)],
        graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS])],
        absent_owner_cache: &[DEPLOYMENT1APPS],
        pending_attempt_to_delete: &[Queued(POD1NS1)],
        ..NOTHING
    }),
];

/// The objects of the incorrect-API-version cases: deployment1, a bad pod referencing a Secret
/// with the deployment's UID, and a good pod referencing the deployment.
const CREATE_BAD_AND_GOOD_CHILD: &[Step] =
    &[Create(DEPLOYMENT1APPS, &[]), Create(BAD_CHILD, &[BAD_SECRET_REFERENCE]), Create(GOOD_CHILD, &[DEPLOYMENT1APPS])];

/// Both children of the incorrect-API-version cases and their parent: a virtual Secret, a
/// virtual deployment, or the observed deployment.
const CHILDREN_AND_VIRTUAL_SECRET: &[GraphNode] =
    &[Node(GOOD_CHILD, &[DEPLOYMENT1APPS]), Node(BAD_CHILD, &[BAD_SECRET_REFERENCE]), VirtualNode(BAD_SECRET_REFERENCE)];
const CHILDREN_AND_VIRTUAL_DEPLOYMENT: &[GraphNode] =
    &[Node(GOOD_CHILD, &[DEPLOYMENT1APPS]), Node(BAD_CHILD, &[BAD_SECRET_REFERENCE]), VirtualNode(DEPLOYMENT1APPS)];
const CHILDREN_AND_DEPLOYMENT: &[GraphNode] =
    &[Node(GOOD_CHILD, &[DEPLOYMENT1APPS]), Node(BAD_CHILD, &[BAD_SECRET_REFERENCE]), Node(DEPLOYMENT1APPS, &[])];
/// What is left once the bad child is gone.
const GOOD_CHILD_AND_DEPLOYMENT: &[GraphNode] = &[Node(GOOD_CHILD, &[DEPLOYMENT1APPS]), Node(DEPLOYMENT1APPS, &[])];

/// Observes the bad child, then the good one, and lets the collector look up the bad parent
/// (absent: a virtual delete event waits) and the good child (its parent exists): steps 3-10 of
/// the two "bad child, good child" cases.
const INCORRECT_VERSION_BAD_CHILD_THEN_GOOD_CHILD: &[Step] = &[
    // 3,4: observe bad child
    AddEvent(BAD_CHILD, &[BAD_SECRET_REFERENCE]),
    Assert(Expected {
        name: "observe bad child",
        graph_nodes: &[Node(BAD_CHILD, &[BAD_SECRET_REFERENCE]), VirtualNode(BAD_SECRET_REFERENCE)],
        pending_attempt_to_delete: &[QueuedVirtual(BAD_SECRET_REFERENCE)],
        ..NOTHING
    }),
    // 5,6: observe good child: its reference disagrees with the virtual node, queued
    AddEvent(GOOD_CHILD, &[DEPLOYMENT1APPS]),
    Assert(Expected {
        name: "observe good child",
        graph_nodes: CHILDREN_AND_VIRTUAL_SECRET,
        pending_attempt_to_delete: &[QueuedVirtual(BAD_SECRET_REFERENCE), Queued(GOOD_CHILD)],
        ..NOTHING
    }),
    // 7,8: the bad parent is not found: a virtual delete event is queued
    AttemptToDelete,
    Assert(Expected {
        name: "bad parent absent",
        client_actions: &[Get(BAD_SECRET_REFERENCE)],
        pending_graph_changes: &[PendingVirtualDelete(BAD_SECRET_REFERENCE)],
        graph_nodes: CHILDREN_AND_VIRTUAL_SECRET,
        pending_attempt_to_delete: &[Queued(GOOD_CHILD)],
        ..NOTHING
    }),
    // 9,10: the good child's parent exists: kept
    AttemptToDelete,
    Assert(Expected {
        name: "good child kept",
        client_actions: &[Get(GOOD_CHILD), Get(DEPLOYMENT1APPS)],
        pending_graph_changes: &[PendingVirtualDelete(BAD_SECRET_REFERENCE)],
        graph_nodes: CHILDREN_AND_VIRTUAL_SECRET,
        ..NOTHING
    }),
];

/// The end of two incorrect-API-version cases, once the bad child is deleted and the deployment
/// queued: the deployment is observed, then the delete of the bad child, and the deployment is
/// looked up; the good child was never deleted.
const OBSERVE_GOOD_PARENT_THEN_BAD_CHILD_DELETE: &[Step] = &[
    // observe good parent: the queued node is no longer virtual
    AddEvent(DEPLOYMENT1APPS, &[]),
    Assert(Expected {
        name: "observe good parent",
        graph_nodes: CHILDREN_AND_DEPLOYMENT,
        absent_owner_cache: &[BAD_SECRET_REFERENCE],
        pending_attempt_to_delete: &[Queued(DEPLOYMENT1APPS)],
        ..NOTHING
    }),
    // observe the delete of the bad child
    DeleteEvent(BAD_CHILD, &[BAD_SECRET_REFERENCE]),
    Assert(Expected {
        name: "bad child delete observed",
        graph_nodes: GOOD_CHILD_AND_DEPLOYMENT,
        absent_owner_cache: &[BAD_SECRET_REFERENCE],
        pending_attempt_to_delete: &[Queued(DEPLOYMENT1APPS)],
        ..NOTHING
    }),
    // the good parent is looked up; the good child was never deleted
    AttemptToDelete,
    Assert(Expected {
        name: "final",
        client_actions: &[Get(DEPLOYMENT1APPS)],
        graph_nodes: GOOD_CHILD_AND_DEPLOYMENT,
        absent_owner_cache: &[BAD_SECRET_REFERENCE],
        ..NOTHING
    }),
];

/// The cluster-scoped bad child, the namespaced good child, and the virtual parent of both,
/// without a namespace.
const NODE1_POD2_AND_VIRTUAL_POD1: &[GraphNode] =
    &[Node(NODE1, &[POD1_NO_NAMESPACE]), Node(POD2NS1, &[POD1NS1]), VirtualNode(POD1_NO_NAMESPACE)];

/// The start of both "cluster-scoped bad child, namespaced good child" cases: the bad child is
/// observed, then the good child; the virtual parent, namespaced but without a namespace, is
/// forgotten without a call.
const CLUSTER_SCOPED_BAD_CHILD_THEN_GOOD_CHILD: &[Step] = &[
    // observe bad child
    AddEvent(NODE1, &[POD1_NO_NAMESPACE]),
    Assert(Expected {
        name: "observe bad child",
        graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1_NO_NAMESPACE)],
        pending_attempt_to_delete: &[QueuedVirtual(POD1_NO_NAMESPACE)],
        ..NOTHING
    }),
    // observe good child: the virtual parent looks cluster-scoped, so the child is queued
    AddEvent(POD2NS1, &[POD1NS1]),
    Assert(Expected {
        name: "observe good child",
        graph_nodes: NODE1_POD2_AND_VIRTUAL_POD1,
        pending_attempt_to_delete: &[QueuedVirtual(POD1_NO_NAMESPACE), Queued(POD2NS1)],
        ..NOTHING
    }),
    // the namespaced virtual parent without a namespace: no call, forgotten
    AttemptToDelete,
    Assert(Expected {
        name: "virtual parent forgotten",
        graph_nodes: NODE1_POD2_AND_VIRTUAL_POD1,
        pending_attempt_to_delete: &[Queued(POD2NS1)],
        ..NOTHING
    }),
];

/// Upstream's table, in upstream's order and with its names.
const CASES: &[Case] = &[
    Case {
        name: "good child in ns1 -> cluster-scoped owner",
        steps: &[
            Create(NODE1, &[]),
            Create(POD1NS1, &[NODE1]),
            // observe namespaced child with not-yet-observed cluster-scoped parent
            AddEvent(POD1NS1, &[NODE1]),
            Assert(Expected {
                name: "observe child",
                graph_nodes: &[Node(POD1NS1, &[NODE1]), VirtualNode(NODE1_WITH_NAMESPACE)],
                pending_attempt_to_delete: &[QueuedVirtual(NODE1_WITH_NAMESPACE)],
                ..NOTHING
            }),
            // handle queued delete of virtual node: still not observed, requeued
            AttemptToDelete,
            Assert(Expected {
                name: "virtual node1 verified",
                client_actions: &[Get(NODE1)],
                graph_nodes: &[Node(POD1NS1, &[NODE1]), VirtualNode(NODE1_WITH_NAMESPACE)],
                pending_attempt_to_delete: &[QueuedVirtual(NODE1_WITH_NAMESPACE)],
                ..NOTHING
            }),
            // observe cluster-scoped parent: observed, namespace fixed; the stale virtual copy stays queued
            AddEvent(NODE1, &[]),
            Assert(Expected {
                name: "observe node1",
                graph_nodes: &[Node(POD1NS1, &[NODE1]), Node(NODE1, &[])],
                pending_attempt_to_delete: &[QueuedVirtual(NODE1_WITH_NAMESPACE)],
                ..NOTHING
            }),
            // the stale virtual copy is dropped without a call
            AttemptToDelete,
            Assert(Expected { name: "final", graph_nodes: &[Node(POD1NS1, &[NODE1]), Node(NODE1, &[])], ..NOTHING }),
        ],
    },
    Case {
        name: "bad child in ns1 -> owner in ns2 (child first)",
        steps: &[
            Create(POD2NS2, &[]),
            Create(POD1NS1, &[POD2NS1]),
            // 2,3: observe namespaced child with not-yet-observed namespace-scoped parent
            AddEvent(POD1NS1, &[POD2NS2]),
            Assert(Expected {
                name: "observe child",
                graph_nodes: &[Node(POD1NS1, &[POD2NS2]), VirtualNode(POD2NS1)],
                pending_attempt_to_delete: &[QueuedVirtual(POD2NS1)],
                ..NOTHING
            }),
            // 4,5: observe parent: namespace corrected; the bad child disagrees and is queued
            AddEvent(POD2NS2, &[]),
            Assert(Expected {
                name: "observe parent",
                graph_nodes: &[Node(POD1NS1, &[POD2NS2]), Node(POD2NS2, &[])],
                pending_attempt_to_delete: &[QueuedVirtual(POD2NS1), Queued(POD1NS1)],
                events: &[InvalidNamespace(POD2NS1, "Pod")],
                ..NOTHING
            }),
            // 6,7: handle queued delete of virtual parent
            AttemptToDelete,
            Assert(Expected {
                name: "stale virtual parent dropped",
                graph_nodes: &[Node(POD1NS1, &[POD2NS2]), Node(POD2NS2, &[])],
                pending_attempt_to_delete: &[Queued(POD1NS1)],
                ..NOTHING
            }),
            // 8,9: handle queued delete of bad child
            AttemptToDelete,
            Assert(Expected {
                name: "bad child deleted",
                client_actions: &[Get(POD1NS1), Get(POD2NS1), Delete(POD1NS1)],
                graph_nodes: &[Node(POD1NS1, &[POD2NS2]), Node(POD2NS2, &[])],
                absent_owner_cache: &[POD2NS1],
                ..NOTHING
            }),
            // 10,11: observe the delete issued in step 8
            DeleteEvent(POD1NS1, &[]),
            Assert(Expected { name: "final", graph_nodes: &[Node(POD2NS2, &[])], absent_owner_cache: &[POD2NS1], ..NOTHING }),
        ],
    },
    Case {
        name: "bad child in ns1 -> owner in ns2 (owner first)",
        steps: &[
            Create(POD2NS2, &[]),
            Create(POD1NS1, &[POD2NS1]),
            // 2,3: observe parent
            AddEvent(POD2NS2, &[]),
            Assert(Expected { name: "observe parent", graph_nodes: &[Node(POD2NS2, &[])], ..NOTHING }),
            // 4,5: observe namespaced child with invalid cross-namespace reference to parent
            AddEvent(POD1NS1, &[POD2NS1]),
            Assert(Expected {
                name: "observe child",
                graph_nodes: &[Node(POD1NS1, &[POD2NS1]), Node(POD2NS2, &[])],
                pending_attempt_to_delete: &[Queued(POD1NS1)],
                events: &[InvalidNamespace(POD2NS1, "Pod")],
                ..NOTHING
            }),
            // 6,7: handle queued delete of bad child
            AttemptToDelete,
            Assert(Expected {
                name: "bad child deleted",
                client_actions: &[Get(POD1NS1), Get(POD2NS1), Delete(POD1NS1)],
                graph_nodes: &[Node(POD1NS1, &[POD2NS1]), Node(POD2NS2, &[])],
                absent_owner_cache: &[POD2NS1],
                ..NOTHING
            }),
            // 8,9: observe the delete issued in step 6
            DeleteEvent(POD1NS1, &[]),
            Assert(Expected { name: "final", graph_nodes: &[Node(POD2NS2, &[])], absent_owner_cache: &[POD2NS1], ..NOTHING }),
        ],
    },
    Case {
        name: "bad cluster-scoped child -> owner in ns1 (child first)",
        steps: &[
            Create(POD1NS1, &[]),
            Create(NODE1, &[POD1NS1]),
            // 2,3: observe cluster-scoped child with not-yet-observed namespaced parent
            AddEvent(NODE1, &[POD1NS1]),
            Assert(Expected {
                name: "observe child",
                graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1_NO_NAMESPACE)],
                pending_attempt_to_delete: &[QueuedVirtual(POD1_NO_NAMESPACE)],
                ..NOTHING
            }),
            // 4,5: a namespaced virtual node without a namespace: no call, not requeued
            AttemptToDelete,
            Assert(Expected {
                name: "virtual pod1 forgotten",
                graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1_NO_NAMESPACE)],
                ..NOTHING
            }),
            // 6,7: observe namespace-scoped parent: namespace corrected, event for the node, node queued
            AddEvent(POD1NS1, &[]),
            Assert(Expected {
                name: "observe parent",
                graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), Node(POD1NS1, &[])],
                events: &[InvalidNamespace(POD1_NO_NAMESPACE, "Node")],
                pending_attempt_to_delete: &[Queued(NODE1)],
                ..NOTHING
            }),
            // 8,9: the bad cluster-scoped child is looked up, neither deleted nor retried
            Steps(BAD_CLUSTER_SCOPED_CHILD_KEPT),
        ],
    },
    Case {
        name: "bad cluster-scoped child -> owner in ns1 (owner first)",
        steps: &[
            Create(POD1NS1, &[]),
            Create(NODE1, &[POD1NS1]),
            // 2,3: observe namespace-scoped parent
            AddEvent(POD1NS1, &[]),
            Assert(Expected { name: "observe parent", graph_nodes: &[Node(POD1NS1, &[])], ..NOTHING }),
            // 4,5: observe cluster-scoped child
            AddEvent(NODE1, &[POD1NS1]),
            Assert(Expected {
                name: "observe child",
                graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), Node(POD1NS1, &[])],
                events: &[InvalidNamespace(POD1_NO_NAMESPACE, "Node")],
                pending_attempt_to_delete: &[Queued(NODE1)],
                ..NOTHING
            }),
            // 6,7: the bad cluster-scoped child is looked up, neither deleted nor retried
            Steps(BAD_CLUSTER_SCOPED_CHILD_KEPT),
        ],
    },
    Case {
        name: "good child -> existing owner with non-preferred accessible API version",
        steps: &[
            ServeRolesInTwoVersions,
            Create(ROLE1V1, &[]),
            Create(POD1NS1, &[ROLE1V1BETA1]),
            // 3,4: observe child
            AddEvent(POD1NS1, &[ROLE1V1BETA1]),
            Assert(Expected {
                name: "observe child",
                graph_nodes: &[Node(POD1NS1, &[ROLE1V1BETA1]), VirtualNode(ROLE1V1BETA1)],
                pending_attempt_to_delete: &[QueuedVirtual(ROLE1V1BETA1)],
                ..NOTHING
            }),
            // 5,6: the virtual parent exists through v1beta1; not yet observed, still queued
            AttemptToDelete,
            Assert(Expected {
                name: "virtual parent verified",
                client_actions: &[Get(ROLE1V1BETA1)],
                graph_nodes: &[Node(POD1NS1, &[ROLE1V1BETA1]), VirtualNode(ROLE1V1BETA1)],
                pending_attempt_to_delete: &[QueuedVirtual(ROLE1V1BETA1)],
                ..NOTHING
            }),
            // 7,8: observe parent via v1: version corrected, mismatched child queued
            AddEvent(ROLE1V1, &[]),
            Assert(Expected {
                name: "observe parent via v1",
                graph_nodes: &[Node(POD1NS1, &[ROLE1V1BETA1]), Node(ROLE1V1, &[])],
                pending_attempt_to_delete: &[QueuedVirtual(ROLE1V1BETA1), Queued(POD1NS1)],
                ..NOTHING
            }),
            // 9,10: the stale virtual parent is dropped
            AttemptToDelete,
            Assert(Expected {
                name: "stale virtual parent dropped",
                graph_nodes: &[Node(POD1NS1, &[ROLE1V1BETA1]), Node(ROLE1V1, &[])],
                pending_attempt_to_delete: &[Queued(POD1NS1)],
                ..NOTHING
            }),
            // 11,12: the child's owner is solid through v1beta1
            AttemptToDelete,
            Assert(Expected {
                name: "child kept",
                client_actions: &[Get(POD1NS1), Get(ROLE1V1BETA1)],
                graph_nodes: &[Node(POD1NS1, &[ROLE1V1BETA1]), Node(ROLE1V1, &[])],
                ..NOTHING
            }),
            // 13-16: teardown, and the delete observed via v1
            DeleteFromClient(ROLE1V1),
            DeleteEvent(ROLE1V1, &[]),
            Assert(Expected {
                name: "parent deleted",
                graph_nodes: &[Node(POD1NS1, &[ROLE1V1BETA1])],
                absent_owner_cache: &[ROLE1V1],
                pending_attempt_to_delete: &[Queued(POD1NS1)],
                ..NOTHING
            }),
            // 17,18: the child is collected
            AttemptToDelete,
            Assert(Expected {
                name: "child deleted",
                client_actions: &[Get(POD1NS1), Get(ROLE1V1BETA1), Delete(POD1NS1)],
                absent_owner_cache: &[ROLE1V1, ROLE1V1BETA1],
                graph_nodes: &[Node(POD1NS1, &[ROLE1V1BETA1])],
                ..NOTHING
            }),
            // 19,20: observe the delete; the graph is empty
            DeleteEvent(POD1NS1, &[]),
            Assert(Expected { name: "final", absent_owner_cache: &[ROLE1V1, ROLE1V1BETA1], ..NOTHING }),
        ],
    },
    Case {
        name: "child -> existing owner with inaccessible API version (child first)",
        steps: &[
            Create(DEPLOYMENT1APPS, &[]),
            Create(POD1NS1, &[DEPLOYMENT1EXTENSIONS]),
            // 2,3: observe child
            AddEvent(POD1NS1, &[DEPLOYMENT1EXTENSIONS]),
            Assert(Expected {
                name: "observe child",
                graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), VirtualNode(DEPLOYMENT1EXTENSIONS)],
                pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                ..NOTHING
            }),
            // 4,5: requeued on the REST mapping error
            AttemptToDelete,
            Assert(Expected {
                name: "virtual parent unmappable",
                graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), VirtualNode(DEPLOYMENT1EXTENSIONS)],
                pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                ..NOTHING
            }),
            // 6,7: observe parent via apps/v1: corrected; mismatched child queued
            AddEvent(DEPLOYMENT1APPS, &[]),
            Assert(Expected {
                name: "observe parent",
                graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), Node(DEPLOYMENT1APPS, &[])],
                pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1EXTENSIONS), Queued(POD1NS1)],
                ..NOTHING
            }),
            // 8,9: the stale virtual parent is dropped
            AttemptToDelete,
            Assert(Expected {
                name: "stale virtual parent dropped",
                graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), Node(DEPLOYMENT1APPS, &[])],
                pending_attempt_to_delete: &[Queued(POD1NS1)],
                ..NOTHING
            }),
            // 10-18: the child's reference cannot be mapped, before and after the parent is deleted
            Steps(CHILD_UNMAPPABLE_BEFORE_AND_AFTER_PARENT_DELETE),
        ],
    },
    Case {
        name: "child -> existing owner with inaccessible API version (owner first)",
        steps: &[
            Create(DEPLOYMENT1APPS, &[]),
            Create(POD1NS1, &[DEPLOYMENT1EXTENSIONS]),
            // 2,3: observe parent via apps/v1
            AddEvent(DEPLOYMENT1APPS, &[]),
            Assert(Expected { name: "observe parent", graph_nodes: &[Node(DEPLOYMENT1APPS, &[])], ..NOTHING }),
            // 4,5: observe child: mismatched, queued
            AddEvent(POD1NS1, &[DEPLOYMENT1EXTENSIONS]),
            Assert(Expected {
                name: "observe child",
                graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), Node(DEPLOYMENT1APPS, &[])],
                pending_attempt_to_delete: &[Queued(POD1NS1)],
                ..NOTHING
            }),
            // 6-12: the child's reference cannot be mapped, before and after the parent is deleted
            Steps(CHILD_UNMAPPABLE_BEFORE_AND_AFTER_PARENT_DELETE),
        ],
    },
    Case {
        name: "child -> non-existent owner with inaccessible API version (inaccessible parent apiVersion first)",
        steps: {
            /// Both children, and the parent of the unserved version, virtual.
            const BOTH_CHILDREN: &[GraphNode] =
                &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), VirtualNode(DEPLOYMENT1EXTENSIONS), Node(POD2NS1, &[DEPLOYMENT1APPS])];
            &[
                Create(POD1NS1, &[DEPLOYMENT1EXTENSIONS]),
                Create(POD2NS1, &[DEPLOYMENT1APPS]),
                // 2,3: observe child pointing at the unserved apiVersion
                AddEvent(POD1NS1, &[DEPLOYMENT1EXTENSIONS]),
                Assert(Expected {
                    name: "observe child of unserved version",
                    graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), VirtualNode(DEPLOYMENT1EXTENSIONS)],
                    pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                    ..NOTHING
                }),
                // 4,5: observe child pointing at the served apiVersion: mismatched, queued
                AddEvent(POD2NS1, &[DEPLOYMENT1APPS]),
                Assert(Expected {
                    name: "observe child of served version",
                    graph_nodes: BOTH_CHILDREN,
                    pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1EXTENSIONS), Queued(POD2NS1)],
                    ..NOTHING
                }),
                // 6,7: the virtual parent cannot be mapped: requeued to the end
                AttemptToDelete,
                Assert(Expected {
                    name: "virtual parent unmappable",
                    graph_nodes: BOTH_CHILDREN,
                    pending_attempt_to_delete: &[Queued(POD2NS1), QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                    ..NOTHING
                }),
                // 8,9: the mismatched child has a verifiably absent parent: deleted
                AttemptToDelete,
                Assert(Expected {
                    name: "legitimate child deleted",
                    client_actions: &[Get(POD2NS1), Get(DEPLOYMENT1APPS), Delete(POD2NS1)],
                    graph_nodes: BOTH_CHILDREN,
                    absent_owner_cache: &[DEPLOYMENT1APPS],
                    pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                    ..NOTHING
                }),
                // 10,11: observe the delete issued in step 8
                DeleteEvent(POD2NS1, &[]),
                Assert(Expected {
                    name: "child delete observed",
                    graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), VirtualNode(DEPLOYMENT1EXTENSIONS)],
                    absent_owner_cache: &[DEPLOYMENT1APPS],
                    pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                    ..NOTHING
                }),
                // 12,13: the unmappable parent keeps being requeued
                AttemptToDelete,
                Assert(Expected {
                    name: "final",
                    graph_nodes: &[Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS]), VirtualNode(DEPLOYMENT1EXTENSIONS)],
                    absent_owner_cache: &[DEPLOYMENT1APPS],
                    pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                    ..NOTHING
                }),
            ]
        },
    },
    Case {
        name: "child -> non-existent owner with inaccessible API version (accessible parent apiVersion first)",
        steps: {
            /// Both children, and their parent, virtual, under the served apiVersion, then under the
            /// unserved one.
            const PARENT_SERVED: &[GraphNode] =
                &[Node(POD2NS1, &[DEPLOYMENT1APPS]), VirtualNode(DEPLOYMENT1APPS), Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS])];
            const PARENT_UNSERVED: &[GraphNode] =
                &[Node(POD2NS1, &[DEPLOYMENT1APPS]), VirtualNode(DEPLOYMENT1EXTENSIONS), Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS])];
            &[
                Create(POD1NS1, &[DEPLOYMENT1EXTENSIONS]),
                Create(POD2NS1, &[DEPLOYMENT1APPS]),
                // 2,3: observe child pointing at the served apiVersion, whose owner does not exist
                AddEvent(POD2NS1, &[DEPLOYMENT1APPS]),
                Assert(Expected {
                    name: "observe child of served version",
                    graph_nodes: &[Node(POD2NS1, &[DEPLOYMENT1APPS]), VirtualNode(DEPLOYMENT1APPS)],
                    pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1APPS)],
                    ..NOTHING
                }),
                // 4,5: observe child pointing at the unserved apiVersion: mismatched, queued
                AddEvent(POD1NS1, &[DEPLOYMENT1EXTENSIONS]),
                Assert(Expected {
                    name: "observe child of unserved version",
                    graph_nodes: PARENT_SERVED,
                    pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1APPS), Queued(POD1NS1)],
                    ..NOTHING
                }),
                // 6,7: the virtual parent is not found: a virtual delete event is queued
                AttemptToDelete,
                Assert(Expected {
                    name: "virtual parent absent",
                    client_actions: &[Get(DEPLOYMENT1APPS)],
                    pending_graph_changes: &[PendingVirtualDelete(DEPLOYMENT1APPS)],
                    graph_nodes: PARENT_SERVED,
                    pending_attempt_to_delete: &[Queued(POD1NS1)],
                    ..NOTHING
                }),
                // 8,9: the child of the unserved version cannot be mapped: requeued
                AttemptToDelete,
                Assert(Expected {
                    name: "child unmappable",
                    client_actions: &[Get(POD1NS1)],
                    pending_graph_changes: &[PendingVirtualDelete(DEPLOYMENT1APPS)],
                    graph_nodes: PARENT_SERVED,
                    pending_attempt_to_delete: &[Queued(POD1NS1)],
                    ..NOTHING
                }),
                // 10,11: the virtual delete: the node switches to the alternate (extensions) identity
                GraphChange,
                Assert(Expected {
                    name: "alternate identity",
                    graph_nodes: PARENT_UNSERVED,
                    absent_owner_cache: &[DEPLOYMENT1APPS],
                    pending_attempt_to_delete: &[Queued(POD1NS1), Queued(POD2NS1), QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                    ..NOTHING
                }),
                // 12,13: the child of the unserved version: requeued to the end
                AttemptToDelete,
                Assert(Expected {
                    name: "child of unserved version requeued",
                    client_actions: &[Get(POD1NS1)],
                    graph_nodes: PARENT_UNSERVED,
                    absent_owner_cache: &[DEPLOYMENT1APPS],
                    pending_attempt_to_delete: &[Queued(POD2NS1), QueuedVirtual(DEPLOYMENT1EXTENSIONS), Queued(POD1NS1)],
                    ..NOTHING
                }),
                // 14,15: the child of the served version: owner absence cached, deleted without an owner GET
                AttemptToDelete,
                Assert(Expected {
                    name: "child of served version deleted",
                    client_actions: &[Get(POD2NS1), Delete(POD2NS1)],
                    graph_nodes: PARENT_UNSERVED,
                    absent_owner_cache: &[DEPLOYMENT1APPS],
                    pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1EXTENSIONS), Queued(POD1NS1)],
                    ..NOTHING
                }),
                // 16,17: the virtual parent of the unserved version: requeued to the end
                AttemptToDelete,
                Assert(Expected {
                    name: "virtual parent requeued",
                    graph_nodes: PARENT_UNSERVED,
                    absent_owner_cache: &[DEPLOYMENT1APPS],
                    pending_attempt_to_delete: &[Queued(POD1NS1), QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                    ..NOTHING
                }),
                // 18,19: observe the delete of pod2; both remaining nodes keep polling with back-off
                DeleteEvent(POD2NS1, &[]),
                Assert(Expected {
                    name: "final",
                    graph_nodes: &[VirtualNode(DEPLOYMENT1EXTENSIONS), Node(POD1NS1, &[DEPLOYMENT1EXTENSIONS])],
                    absent_owner_cache: &[DEPLOYMENT1APPS],
                    pending_attempt_to_delete: &[Queued(POD1NS1), QueuedVirtual(DEPLOYMENT1EXTENSIONS)],
                    ..NOTHING
                }),
            ]
        },
    },
    Case {
        name: "bad child -> existing owner with incorrect API version (bad child, good child, bad parent delete, good parent)",
        steps: &[
            Steps(CREATE_BAD_AND_GOOD_CHILD),
            Steps(INCORRECT_VERSION_BAD_CHILD_THEN_GOOD_CHILD),
            // 11,12: the virtual delete: the node switches to the deployment's identity, still virtual
            GraphChange,
            Assert(Expected {
                name: "alternate identity",
                graph_nodes: CHILDREN_AND_VIRTUAL_DEPLOYMENT,
                absent_owner_cache: &[BAD_SECRET_REFERENCE],
                pending_attempt_to_delete: &[Queued(BAD_CHILD), QueuedVirtual(DEPLOYMENT1APPS)],
                ..NOTHING
            }),
            // 13,14: the bad child is deleted (absence of its parent is cached)
            AttemptToDelete,
            Assert(Expected {
                name: "bad child deleted",
                client_actions: &[Get(BAD_CHILD), Delete(BAD_CHILD)],
                graph_nodes: CHILDREN_AND_VIRTUAL_DEPLOYMENT,
                absent_owner_cache: &[BAD_SECRET_REFERENCE],
                pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1APPS)],
                ..NOTHING
            }),
            // 15,16: the new virtual parent exists; not yet observed, requeued
            AttemptToDelete,
            Assert(Expected {
                name: "virtual parent verified",
                client_actions: &[Get(DEPLOYMENT1APPS)],
                graph_nodes: CHILDREN_AND_VIRTUAL_DEPLOYMENT,
                absent_owner_cache: &[BAD_SECRET_REFERENCE],
                pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1APPS)],
                ..NOTHING
            }),
            // 17-22: observe good parent, then the bad child's delete; the good child stays
            Steps(OBSERVE_GOOD_PARENT_THEN_BAD_CHILD_DELETE),
        ],
    },
    Case {
        name: "bad child -> existing owner with incorrect API version (bad child, good child, good parent, bad parent delete)",
        steps: &[
            Steps(CREATE_BAD_AND_GOOD_CHILD),
            Steps(INCORRECT_VERSION_BAD_CHILD_THEN_GOOD_CHILD),
            // 11,12: the good parent's add event sneaks in ahead of the virtual delete
            InsertAddEvent(DEPLOYMENT1APPS, &[]),
            Assert(Expected {
                name: "good parent add queued first",
                pending_graph_changes: &[PendingAdd(DEPLOYMENT1APPS, &[]), PendingVirtualDelete(BAD_SECRET_REFERENCE)],
                graph_nodes: CHILDREN_AND_VIRTUAL_SECRET,
                ..NOTHING
            }),
            // 13,14: the add fixes the node (observed); the bad child disagrees and is queued
            GraphChange,
            Assert(Expected {
                name: "observe good parent",
                pending_graph_changes: &[PendingVirtualDelete(BAD_SECRET_REFERENCE)],
                graph_nodes: CHILDREN_AND_DEPLOYMENT,
                pending_attempt_to_delete: &[Queued(BAD_CHILD)],
                ..NOTHING
            }),
            // 15,16: the virtual delete meets a real node with other coordinates: absence recorded
            GraphChange,
            Assert(Expected {
                name: "bad parent absent",
                graph_nodes: CHILDREN_AND_DEPLOYMENT,
                absent_owner_cache: &[BAD_SECRET_REFERENCE],
                pending_attempt_to_delete: &[Queued(BAD_CHILD)],
                ..NOTHING
            }),
            // 17,18: the bad child is deleted (absence of its parent is cached)
            AttemptToDelete,
            Assert(Expected {
                name: "bad child deleted",
                client_actions: &[Get(BAD_CHILD), Delete(BAD_CHILD)],
                graph_nodes: CHILDREN_AND_DEPLOYMENT,
                absent_owner_cache: &[BAD_SECRET_REFERENCE],
                ..NOTHING
            }),
            // 19,20: observe the delete of the bad child
            DeleteEvent(BAD_CHILD, &[BAD_SECRET_REFERENCE]),
            Assert(Expected {
                name: "final",
                graph_nodes: GOOD_CHILD_AND_DEPLOYMENT,
                absent_owner_cache: &[BAD_SECRET_REFERENCE],
                ..NOTHING
            }),
        ],
    },
    Case {
        name: "bad child -> existing owner with incorrect API version (good child, bad child, good parent)",
        steps: &[
            Steps(CREATE_BAD_AND_GOOD_CHILD),
            // 3,4: observe good child
            AddEvent(GOOD_CHILD, &[DEPLOYMENT1APPS]),
            Assert(Expected {
                name: "observe good child",
                graph_nodes: &[Node(GOOD_CHILD, &[DEPLOYMENT1APPS]), VirtualNode(DEPLOYMENT1APPS)],
                pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1APPS)],
                ..NOTHING
            }),
            // 5,6: observe bad child: its reference disagrees, queued
            AddEvent(BAD_CHILD, &[BAD_SECRET_REFERENCE]),
            Assert(Expected {
                name: "observe bad child",
                graph_nodes: CHILDREN_AND_VIRTUAL_DEPLOYMENT,
                pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1APPS), Queued(BAD_CHILD)],
                ..NOTHING
            }),
            // 7,8: the virtual parent exists: requeued to the end, still virtual
            AttemptToDelete,
            Assert(Expected {
                name: "virtual parent verified",
                client_actions: &[Get(DEPLOYMENT1APPS)],
                graph_nodes: CHILDREN_AND_VIRTUAL_DEPLOYMENT,
                pending_attempt_to_delete: &[Queued(BAD_CHILD), QueuedVirtual(DEPLOYMENT1APPS)],
                ..NOTHING
            }),
            // 9,10: the bad child's parent is absent: deleted
            AttemptToDelete,
            Assert(Expected {
                name: "bad child deleted",
                client_actions: &[Get(BAD_CHILD), Get(BAD_SECRET_REFERENCE), Delete(BAD_CHILD)],
                graph_nodes: CHILDREN_AND_VIRTUAL_DEPLOYMENT,
                absent_owner_cache: &[BAD_SECRET_REFERENCE],
                pending_attempt_to_delete: &[QueuedVirtual(DEPLOYMENT1APPS)],
                ..NOTHING
            }),
            // 11-16: observe good parent, then the bad child's delete; the good child stays
            Steps(OBSERVE_GOOD_PARENT_THEN_BAD_CHILD_DELETE),
        ],
    },
    Case {
        name: "cluster-scoped bad child, namespaced good child, missing parent",
        steps: &[
            Create(POD2NS1, &[POD1NS1]),
            Create(NODE1, &[POD1_NO_NAMESPACE]),
            // 2-7: observe bad child, then good child; the virtual parent is forgotten
            Steps(CLUSTER_SCOPED_BAD_CHILD_THEN_GOOD_CHILD),
            // 8,9: the good child's parent is missing: deleted
            AttemptToDelete,
            Assert(Expected {
                name: "good child deleted",
                client_actions: &[Get(POD2NS1), Get(POD1NS1), Delete(POD2NS1)],
                graph_nodes: NODE1_POD2_AND_VIRTUAL_POD1,
                absent_owner_cache: &[POD1NS1],
                ..NOTHING
            }),
            // 10,11: steady state: the bad cluster-scoped child and its virtual parent, no retries
            DeleteEvent(POD2NS1, &[POD1NS1]),
            Assert(Expected {
                name: "final",
                graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1_NO_NAMESPACE)],
                absent_owner_cache: &[POD1NS1],
                ..NOTHING
            }),
        ],
    },
    Case {
        name: "cluster-scoped bad child, namespaced good child, late observed parent",
        steps: &[
            Create(POD1NS1, &[]),
            Create(POD2NS1, &[POD1NS1]),
            Create(NODE1, &[POD1_NO_NAMESPACE]),
            // 3-8: observe bad child, then good child; the virtual parent is forgotten
            Steps(CLUSTER_SCOPED_BAD_CHILD_THEN_GOOD_CHILD),
            // 9,10: the good child's parent exists: kept
            AttemptToDelete,
            Assert(Expected {
                name: "good child kept",
                client_actions: &[Get(POD2NS1), Get(POD1NS1)],
                graph_nodes: NODE1_POD2_AND_VIRTUAL_POD1,
                ..NOTHING
            }),
            // 11,12: late observation of the parent: warn about the node's reference, queue the node
            AddEvent(POD1NS1, &[]),
            Assert(Expected {
                name: "observe parent",
                graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), Node(POD2NS1, &[POD1NS1]), Node(POD1NS1, &[])],
                events: &[InvalidNamespace(POD1_NO_NAMESPACE, "Node")],
                pending_attempt_to_delete: &[Queued(NODE1)],
                ..NOTHING
            }),
            // 13,14: steady state: the bad cluster-scoped child stays, with no retries
            AttemptToDelete,
            Assert(Expected {
                name: "final",
                client_actions: &[Get(NODE1)],
                graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), Node(POD2NS1, &[POD1NS1]), Node(POD1NS1, &[])],
                ..NOTHING
            }),
        ],
    },
    Case {
        name: "namespaced good child, cluster-scoped bad child, missing parent",
        steps: &[
            Create(POD2NS1, &[POD1NS1]),
            Create(NODE1, &[POD1_NO_NAMESPACE]),
            // 2,3: observe good child
            AddEvent(POD2NS1, &[POD1NS1]),
            Assert(Expected {
                name: "observe good child",
                graph_nodes: &[Node(POD2NS1, &[POD1NS1]), VirtualNode(POD1NS1)],
                pending_attempt_to_delete: &[QueuedVirtual(POD1NS1)],
                ..NOTHING
            }),
            // 4,5: observe bad child: mismatched, queued
            AddEvent(NODE1, &[POD1_NO_NAMESPACE]),
            Assert(Expected {
                name: "observe bad child",
                graph_nodes: &[Node(POD2NS1, &[POD1NS1]), Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1NS1)],
                pending_attempt_to_delete: &[QueuedVirtual(POD1NS1), Queued(NODE1)],
                ..NOTHING
            }),
            // 6,7: the virtual parent is not found: a virtual delete event is queued
            AttemptToDelete,
            Assert(Expected {
                name: "virtual parent absent",
                client_actions: &[Get(POD1NS1)],
                graph_nodes: &[Node(POD2NS1, &[POD1NS1]), Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1NS1)],
                pending_graph_changes: &[PendingVirtualDelete(POD1NS1)],
                pending_attempt_to_delete: &[Queued(NODE1)],
                ..NOTHING
            }),
            // 8,9: the bad cluster-scoped child: looked up, not deleted, not retried
            AttemptToDelete,
            Assert(Expected {
                name: "bad child kept",
                client_actions: &[Get(NODE1)],
                graph_nodes: &[Node(POD2NS1, &[POD1NS1]), Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1NS1)],
                pending_graph_changes: &[PendingVirtualDelete(POD1NS1)],
                ..NOTHING
            }),
            // 10,11: the virtual delete: the node switches to the coordinates without a namespace
            GraphChange,
            Assert(Expected {
                name: "alternate identity",
                graph_nodes: &[Node(POD2NS1, &[POD1NS1]), Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1_NO_NAMESPACE)],
                absent_owner_cache: &[POD1NS1],
                pending_attempt_to_delete: &[Queued(POD2NS1), QueuedVirtual(POD1_NO_NAMESPACE)],
                ..NOTHING
            }),
            // 12,13: the good child is deleted (absence of its parent is cached)
            AttemptToDelete,
            Assert(Expected {
                name: "good child deleted",
                client_actions: &[Get(POD2NS1), Delete(POD2NS1)],
                graph_nodes: &[Node(POD2NS1, &[POD1NS1]), Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1_NO_NAMESPACE)],
                absent_owner_cache: &[POD1NS1],
                pending_attempt_to_delete: &[QueuedVirtual(POD1_NO_NAMESPACE)],
                ..NOTHING
            }),
            // 14,15: observe the delete of the good child
            DeleteEvent(POD2NS1, &[POD1NS1]),
            Assert(Expected {
                name: "good child delete observed",
                graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1_NO_NAMESPACE)],
                absent_owner_cache: &[POD1NS1],
                pending_attempt_to_delete: &[QueuedVirtual(POD1_NO_NAMESPACE)],
                ..NOTHING
            }),
            // 16,17: steady state: the virtual parent without a namespace is forgotten without a call
            AttemptToDelete,
            Assert(Expected {
                name: "final",
                graph_nodes: &[Node(NODE1, &[POD1_NO_NAMESPACE]), VirtualNode(POD1_NO_NAMESPACE)],
                absent_owner_cache: &[POD1NS1],
                ..NOTHING
            }),
        ],
    },
];
