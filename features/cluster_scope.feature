Feature: Cluster-scoped owners and dependents
  Cluster-scoped owners can own objects in any namespace. A cluster-scoped dependent, however,
  can only be owned by cluster-scoped objects: a reference from it to a namespaced kind can
  never be resolved, so the collector neither deletes it nor retries it (issue #98040).
  (Upstream: TestClusterScopedOwners, TestConflictingData "bad cluster-scoped child".)

  @upstream(TestClusterScopedOwners)
  Scenario: A namespaced dependent of a cluster-scoped owner is collected with it
    Given a ClusterRole named "kubegc-owner-role"
    And a ConfigMap named "child" owned by ClusterRole "kubegc-owner-role"
    When ClusterRole "kubegc-owner-role" is deleted with propagation policy Background
    Then ConfigMap "child" is gone

  @upstream(TestConflictingData/bad-cluster-scoped-child-to-owner-in-ns1)
  Scenario: A cluster-scoped dependent of a namespaced kind is never collected
    Given a ConfigMap named "namespaced-owner"
    And a ClusterRole named "kubegc-confused-role" owned by ConfigMap "namespaced-owner"
    When ConfigMap "namespaced-owner" is deleted with propagation policy Background
    Then ClusterRole "kubegc-confused-role" still exists
