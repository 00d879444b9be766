@cluster-scope
Feature: Cluster-scoped owners and dependents
  Cluster-scoped owners can own objects in any namespace: the collector looks a cluster-scoped
  owner up cluster-wide, whatever the dependent's namespace, and collects the dependents
  everywhere when it goes. A cluster-scoped dependent, however, can only be owned by
  cluster-scoped objects: a reference from it to a namespaced kind can never be resolved (there
  is no namespace to look in), so the collector neither deletes it nor retries it, even when
  the namespaced owner is missing and even when another, valid owner is gone (issue #98040).
  When the referenced namespaced object does exist, the collector records a Warning event
  `OwnerRefInvalidNamespace` on the cluster-scoped dependent; it lands in the `default`
  namespace, where client-go's recorder puts events about cluster-scoped objects.
  (Upstream: TestClusterScopedOwners, TestConflictingData "good child in ns1 -> cluster-scoped
  owner", "bad cluster-scoped child -> owner in ns1", "cluster-scoped bad child, namespaced good
  child, ...".)

  Scenario Outline: A namespaced dependent of a <owner> is collected with it
    Given a <owner> named "<name>"
    And a ConfigMap named "child" owned by <owner> "<name>"
    Then ConfigMap "child" still exists
    When <owner> "<name>" is deleted with propagation policy Background
    Then ConfigMap "child" is gone

    Examples:
      | owner              | name                        |
      | ClusterRole        | kubegc-cs-owner-role        |
      | ClusterRoleBinding | kubegc-cs-owner-binding     |
      | PersistentVolume   | kubegc-cs-owner-volume      |

    @upstream(TestConflictingData/good-child-in-ns1-cluster-scoped-owner)
    Examples: a Node, as upstream's test uses
      | owner | name               |
      | Node  | kubegc-cs-nodename |

  @upstream(TestClusterScopedOwners)
  Scenario: Namespaced dependents of cluster-scoped owners: valid, missing and unmappable
    # cm-valid's PersistentVolume exists; cm-missing's never did; cm-invalid names a kind no
    # API server serves, so its owner can never be checked. (Upstream also delays the
    # collector's PersistentVolume watch, to show that it checks owners with a live GET.)
    Given a PersistentVolume named "kubegc-cs-pv-valid"
    And a ConfigMap named "cm-valid" owned by PersistentVolume "kubegc-cs-pv-valid"
    And a ConfigMap named "cm-missing" owned by a missing v1 PersistentVolume "missing-name"
    And a ConfigMap named "cm-invalid" owned by a missing unknown.group/v1 UnknownType "unknown"
    Then ConfigMap "cm-missing" is gone
    And ConfigMap "cm-valid" still exists
    And ConfigMap "cm-invalid" still exists

  Scenario: A cluster-scoped owner's dependents in several namespaces all go with it
    Given a ClusterRole named "kubegc-cs-spanning-role"
    And a ConfigMap named "here" owned by ClusterRole "kubegc-cs-spanning-role"
    And a ConfigMap named "there" in another namespace owned by ClusterRole "kubegc-cs-spanning-role"
    When ClusterRole "kubegc-cs-spanning-role" is deleted with propagation policy Background
    Then ConfigMap "here" is gone
    And ConfigMap "there" is gone

  Scenario: A cluster-scoped dependent of a cluster-scoped owner is collected
    Given a ClusterRole named "kubegc-cs-parent-role"
    And a ClusterRoleBinding named "kubegc-cs-child-binding" owned by ClusterRole "kubegc-cs-parent-role"
    When ClusterRole "kubegc-cs-parent-role" is deleted with propagation policy Background
    Then ClusterRoleBinding "kubegc-cs-child-binding" is gone

  @upstream(TestConflictingData/bad-cluster-scoped-child-owner-in-ns1-child-first)
  @upstream(TestConflictingData/bad-cluster-scoped-child-owner-in-ns1-owner-first)
  Scenario: A cluster-scoped dependent of a namespaced owner is never collected, with a warning
    # Upstream checks both orders in which the collector can see the two objects, with one
    # outcome. The event lands in "default" and names an empty namespace.
    Given a Pod named "podname1"
    And a Node named "kubegc-cs-bad-node" owned by Pod "podname1"
    Then an event was recorded for Node "kubegc-cs-bad-node" with:
      | type                 | Warning                                                                                             |
      | reason               | OwnerRefInvalidNamespace                                                                            |
      | message              | ownerRef [v1/Pod, namespace: , name: podname1, uid: ${Pod/podname1}] does not exist in namespace "" |
      | involvedObject.kind  | Node                                                                                                |
      | metadata.namespace   | default                                                                                             |
    And Node "kubegc-cs-bad-node" still exists
    When Pod "podname1" is deleted with propagation policy Background
    Then Pod "podname1" is gone
    And Node "kubegc-cs-bad-node" still exists

  @upstream(TestConflictingData/cluster-scoped-bad-child-namespaced-good-child-missing-parent)
  @upstream(TestConflictingData/namespaced-good-child-cluster-scoped-bad-child-missing-parent)
  Scenario: A missing namespaced owner: its namespaced dependent goes, its cluster-scoped one stays
    # Both name the same missing Pod. Upstream checks both orders, with one outcome; as the uid
    # exists nowhere, no event is recorded.
    Given a ClusterRole named "kubegc-cs-bad-child-role" owned by a missing v1 Pod "pod1"
    And a ConfigMap named "good-child" owned by a missing v1 Pod "pod1"
    Then ConfigMap "good-child" is gone
    And ClusterRole "kubegc-cs-bad-child-role" still exists
    And no event with reason "OwnerRefInvalidNamespace" was recorded for ClusterRole "kubegc-cs-bad-child-role"

  @upstream(TestConflictingData/cluster-scoped-bad-child-namespaced-good-child-late-observed-parent)
  Scenario: An existing namespaced owner: both its dependents stay, and the cluster-scoped one is reported
    Given a Pod named "pod1"
    And a ClusterRole named "kubegc-cs-late-role" owned by Pod "pod1"
    And a ConfigMap named "good-child" owned by Pod "pod1"
    Then an event with reason "OwnerRefInvalidNamespace" was recorded for ClusterRole "kubegc-cs-late-role"
    And ConfigMap "good-child" still exists
    And ClusterRole "kubegc-cs-late-role" still exists

  Scenario: One unresolvable reference keeps a cluster-scoped dependent even when its valid owner goes
    # Classifying the dependent stops at the reference it cannot resolve (upstream `isDangling`
    # fails, #98040).
    Given a ConfigMap named "namespaced"
    And a ClusterRole named "kubegc-cs-valid-owner"
    And a ClusterRole named "kubegc-cs-two-owners" owned by ClusterRole "kubegc-cs-valid-owner" and ConfigMap "namespaced"
    When ClusterRole "kubegc-cs-valid-owner" is deleted with propagation policy Background
    Then ClusterRole "kubegc-cs-valid-owner" is gone
    And ClusterRole "kubegc-cs-two-owners" still exists
    And ClusterRole "kubegc-cs-two-owners" has owner references to "kubegc-cs-valid-owner, namespaced"

  Scenario: An orphaning that strips the namespaced reference lets the collector judge a cluster-scoped dependent again
    # Found by kubegc chaos (seed 980). Orphaning strips every reference naming the owner's uid
    # (upstream orphanDependents), the one the collector cannot resolve included; with no
    # namespaced kind left to stop it, the dependent is classified again, and goes with its
    # last owner. The collector must know the dependent before the orphaning: an orphaning pass
    # only reaches the dependents already in its graph (upstream issue #26120).
    Given a ConfigMap named "namespaced"
    And a ClusterRole named "kubegc-cs-orphaned-valid-owner"
    And a ClusterRole named "kubegc-cs-orphaned-two-owners" owned by ClusterRole "kubegc-cs-orphaned-valid-owner" and ConfigMap "namespaced"
    And the garbage collector has caught up
    When ConfigMap "namespaced" is deleted with propagation policy Orphan
    Then ConfigMap "namespaced" is gone
    And ClusterRole "kubegc-cs-orphaned-two-owners" has owner references to "kubegc-cs-orphaned-valid-owner"
    When ClusterRole "kubegc-cs-orphaned-valid-owner" is deleted with propagation policy Background
    Then ClusterRole "kubegc-cs-orphaned-two-owners" is gone

  Scenario: A foreground deletion waits for a blocking cluster-scoped dependent the collector leaves alone
    # Found by kubegc chaos (seed 1549). An owner's blocking dependents are every object whose
    # reference names its uid (upstream blockingDependents), so the cluster-scoped dependent
    # counts; the collector forgets it without deleting it (isDangling answers
    # namespacedOwnerOfClusterScopedObjectErr), so the owner keeps its foregroundDeletion
    # finalizer until someone else deletes the dependent.
    Given a ConfigMap named "owner"
    And a ClusterRole named "kubegc-cs-blocking-role" owned by ConfigMap "owner" with blockOwnerDeletion
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then ConfigMap "owner" is terminating with finalizers "foregroundDeletion"
    And ClusterRole "kubegc-cs-blocking-role" still exists
    When ClusterRole "kubegc-cs-blocking-role" is deleted with propagation policy Background
    Then ConfigMap "owner" is gone
