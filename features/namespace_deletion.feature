@namespaces
Feature: Namespace deletion
  Deleting a namespace first only marks it: it turns Terminating, with a deletionTimestamp. The
  namespace controller then deletes everything in it (in the background), its pods first and
  nothing else while a pod remains, and, once nothing is left, removes the namespace's `kubernetes` finalizer (in `spec.finalizers`); then the
  namespace goes. An object in it that holds a finalizer keeps the whole namespace Terminating
  until the finalizer is removed.
  A namespace is also an ordinary owner for the garbage collector: cluster-scoped objects can
  name it in their owner references, and the namespace's DELETE takes a propagation policy like
  any other (the GC finalizers go in `metadata.finalizers`). So a ClusterRole made for a
  namespace can be set to go with it, or be orphaned.
  Each scenario deletes its own namespace ("the namespace").
  (Upstream: the namespace registry's own Delete, and the namespace controller.)

  Scenario: Deleting a namespace deletes everything in it
    Given a ConfigMap named "settings"
    And a Deployment named "web"
    And a ReplicaSet named "web-1" owned by Deployment "web" with blockOwnerDeletion
    And a Pod named "web-1-a" owned by ReplicaSet "web-1" with blockOwnerDeletion
    When the namespace is deleted
    Then the namespace is gone
    And ConfigMap "settings" is gone
    And Deployment "web" is gone
    And ReplicaSet "web-1" is gone
    And Pod "web-1-a" is gone

  Scenario: An object holding a finalizer keeps its namespace terminating
    Given a ConfigMap named "held" with finalizers "example.com/hold"
    And a ConfigMap named "free"
    When the namespace is deleted
    Then ConfigMap "free" is gone
    And ConfigMap "held" is terminating with finalizers "example.com/hold"
    And the namespace is terminating with finalizers ""
    When the finalizer "example.com/hold" is removed from ConfigMap "held"
    Then ConfigMap "held" is gone
    And the namespace is gone

  # Upstream: the ordered deletion in pkg/controller/namespace/deletion/namespaced_resources_deleter.go
  # (`deleteAllContent`) and the e2e test "OrderedNamespaceDeletion namespace deletion should
  # delete pod first".
  Scenario: A namespace's pods go first: nothing else is deleted while a pod remains
    Given a Pod named "held" with finalizers "example.com/hold"
    And a ConfigMap named "settings"
    When the namespace is deleted
    Then Pod "held" is terminating with finalizers "example.com/hold"
    And ConfigMap "settings" still exists
    When the finalizer "example.com/hold" is removed from Pod "held"
    Then Pod "held" is gone
    And ConfigMap "settings" is gone
    And the namespace is gone

  Scenario: A cluster-scoped object owned by a namespace goes with it
    Given a ClusterRole named "kubegc-ns-owned-role" owned by the namespace
    And a ClusterRole named "kubegc-ns-unowned-role"
    When the namespace is deleted
    Then the namespace is gone
    And ClusterRole "kubegc-ns-owned-role" is gone
    And ClusterRole "kubegc-ns-unowned-role" still exists

  Scenario: A namespace deleted with Orphan leaves the cluster-scoped objects it owned
    Given a ClusterRole named "kubegc-ns-orphaned-role" owned by the namespace
    And the garbage collector has caught up
    When the namespace is deleted with propagation policy Orphan
    Then the namespace is gone
    And ClusterRole "kubegc-ns-orphaned-role" still exists
    And ClusterRole "kubegc-ns-orphaned-role" has owner references to ""

  Scenario: A namespace deleted in the foreground waits for its blocking cluster-scoped dependents
    Given a ClusterRole named "kubegc-ns-held-role" owned by the namespace with blockOwnerDeletion with finalizers "example.com/hold"
    And the garbage collector has caught up
    When the namespace is deleted with propagation policy Foreground
    Then ClusterRole "kubegc-ns-held-role" is terminating with finalizers "example.com/hold"
    And the namespace is terminating with finalizers "foregroundDeletion"
    When the finalizer "example.com/hold" is removed from ClusterRole "kubegc-ns-held-role"
    Then ClusterRole "kubegc-ns-held-role" is gone
    And the namespace is gone

  Scenario: Objects in the namespace owned from outside go with the namespace, their owner stays
    Given a ClusterRole named "kubegc-ns-outside-owner"
    And a ConfigMap named "inside" owned by ClusterRole "kubegc-ns-outside-owner"
    When the namespace is deleted
    Then the namespace is gone
    And ConfigMap "inside" is gone
    And ClusterRole "kubegc-ns-outside-owner" still exists
