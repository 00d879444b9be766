@virtual-owners
Feature: Virtual owners
  The collector learns of owners from references before (or without ever) seeing them. It puts
  a "virtual" node in its graph for such an owner and checks it with a live GET of the name the
  reference gives. An owner counts only if that GET finds an object with the reference's uid:
  - an owner that never existed is absent, so its dependents are collected, even if nothing was
    ever deleted;
  - an owner deleted and re-created under the same name has a new uid: absent too;
  - a reference with a real uid under another kind or name is absent (the object the reference
    names does not exist), and a reference to a kind or version the API server does not serve
    can never be checked: such a dependent is kept, and retried, forever;
  - a reference through another served version of the same kind is fine.
  The collector keys its graph by uid, so one uid can be named by references that disagree. It
  then judges each dependent by its own reference (trying the other identities in turn), and a
  wrong reference never hurts the dependents that name the owner correctly.
  (Upstream: TestCreateWithNonExistentOwner, TestAttemptToDeleteItem, TestConflictingData,
  TestGetAlternateOwnerIdentity, TestClusterScopedOwners "cm-invalid".)

  @upstream(TestCreateWithNonExistentOwner)
  Scenario: A dependent of an owner that never existed is collected
    # As upstream, the reference's uid is not even a uid.
    Given a Pod named "pod" with owner references:
      """
      [{"apiVersion": "v1", "kind": "ReplicationController", "name": "to-be-deleted-rc", "uid": "doesn't matter"}]
      """
    Then Pod "pod" is gone

  @upstream(TestAttemptToDeleteItem)
  Scenario: A pod whose ReplicationController is not found is deleted
    Given a Pod named "tobedeletedpod" owned by a missing v1 ReplicationController "owner1"
    Then Pod "tobedeletedpod" is gone

  Scenario: A dependent whose missing owner's name has a space is collected
    # The API server checks only that an owner reference's name is not empty (apimachinery
    # `ValidateOwnerReferences`), so "doesn't matter" is a valid name. The collector escapes it
    # in the request path (`.../replicationcontrollers/doesn't%20matter`), the API server answers
    # 404, and the owner is absent like any other (upstream `isDangling`).
    Given a Pod named "pod" owned by a missing v1 ReplicationController "doesn't matter"
    Then Pod "pod" is gone

  Scenario: An owner re-created under the same name does not count
    # The reference names ConfigMap "owner" but with the uid of an earlier incarnation; the
    # ConfigMap that has the name now is another object, and is not touched.
    Given a ConfigMap named "owner"
    And a ConfigMap named "child" owned by a missing v1 ConfigMap "owner"
    Then ConfigMap "child" is gone
    And ConfigMap "owner" still exists

  @upstream(TestConflictingData/bad-child-existing-owner-with-incorrect-API-version-bad-child-good-child-bad-parent-delete-good-parent)
  @upstream(TestConflictingData/bad-child-existing-owner-with-incorrect-API-version-bad-child-good-child-good-parent-bad-parent-delete)
  Scenario: A reference with a real uid but the wrong kind does not count, and hurts no one (bad child first)
    # "badpod" names a Secret with the Deployment's uid; "goodpod" names the Deployment. The
    # collector may see the Deployment before or after processing the Secret's absence;
    # upstream checks both orders, with the same outcome.
    Given a Deployment named "deployment1"
    And a Pod named "badpod" owned by v1 Secret "secretname" with the uid of Deployment "deployment1"
    And a Pod named "goodpod" owned by Deployment "deployment1"
    Then Pod "badpod" is gone
    And Pod "goodpod" still exists
    And Deployment "deployment1" still exists

  @upstream(TestConflictingData/bad-child-existing-owner-with-incorrect-API-version-good-child-bad-child-good-parent)
  Scenario: A reference with a real uid but the wrong kind does not count, and hurts no one (good child first)
    Given a Deployment named "deployment1"
    And a Pod named "goodpod" owned by Deployment "deployment1"
    And a Pod named "badpod" owned by v1 Secret "secretname" with the uid of Deployment "deployment1"
    Then Pod "badpod" is gone
    And Pod "goodpod" still exists
    And Deployment "deployment1" still exists

  Scenario: A reference with a real uid but the wrong name does not count
    # The owner is looked up by the name the reference gives.
    Given a ConfigMap named "owner"
    And a ConfigMap named "misnamed" owned by v1 ConfigMap "not-the-owner" with the uid of ConfigMap "owner"
    And a ConfigMap named "named" owned by ConfigMap "owner"
    Then ConfigMap "misnamed" is gone
    And ConfigMap "named" still exists

  @upstream(TestConflictingData/child-existing-owner-with-inaccessible-API-version-child-first)
  @upstream(TestConflictingData/child-existing-owner-with-inaccessible-API-version-owner-first)
  Scenario: A reference through a version that is not served is never resolved, even once the owner is gone
    # extensions/v1beta1 Deployments are no longer served: the collector cannot map the
    # reference, so it keeps retrying the dependent and never deletes it. (Which of the two
    # the collector sees first cannot be chosen; upstream checks both, with one outcome.)
    Given a Deployment named "deployment1"
    And a Pod named "pod1" owned by extensions/v1beta1 Deployment "deployment1" with the uid of Deployment "deployment1"
    Then Pod "pod1" still exists
    When Deployment "deployment1" is deleted with propagation policy Background
    Then Deployment "deployment1" is gone
    And Pod "pod1" still exists
    And Pod "pod1" has owner references to "deployment1"

  @upstream(TestConflictingData/child-non-existent-owner-with-inaccessible-API-version-inaccessible-parent-apiVersion-first)
  Scenario: Of two references to one missing uid, the servable one is collected (unservable first)
    Given a Pod named "pod1" owned by a missing extensions/v1beta1 Deployment "deployment1"
    And a Pod named "pod2" owned by a missing apps/v1 Deployment "deployment1"
    Then Pod "pod2" is gone
    And Pod "pod1" still exists

  @upstream(TestConflictingData/child-non-existent-owner-with-inaccessible-API-version-accessible-parent-apiVersion-first)
  Scenario: Of two references to one missing uid, the servable one is collected (servable first)
    Given a Pod named "pod2" owned by a missing apps/v1 Deployment "deployment1"
    And a Pod named "pod1" owned by a missing extensions/v1beta1 Deployment "deployment1"
    Then Pod "pod2" is gone
    And Pod "pod1" still exists

  @upstream(TestConflictingData/good-child-existing-owner-with-non-preferred-accessible-API-version)
  Scenario: A reference through another served version of the owner's kind counts
    # Widgets are served at v1 (preferred) and v1beta1; the dependent names its owner through
    # v1beta1. The owner is found, so the dependent stays until the owner goes.
    Given a custom resource kind "Widget" served at versions "v1, v1beta1"
    And a Widget named "role1"
    And a ConfigMap named "child" owned by Widget "role1" through version v1beta1
    Then ConfigMap "child" still exists
    When Widget "role1" is deleted with propagation policy Background
    Then ConfigMap "child" is gone

  Scenario: A reference to a kind no API serves keeps its dependent forever
    Given a ConfigMap named "cm-invalid" owned by a missing unknown.group/v1 UnknownType "unknown"
    And a ConfigMap named "cm-missing" owned by a missing v1 ConfigMap "missing"
    Then ConfigMap "cm-missing" is gone
    And ConfigMap "cm-invalid" still exists

  @upstream(TestGetAlternateOwnerIdentity/namespaced-alternate-kind)
  Scenario: One missing uid named as two kinds: each dependent is judged by its own reference
    Given a ConfigMap named "child1" owned by a missing v1 ConfigMap "parent"
    And a ConfigMap named "child2" owned by a missing v1 Secret "parent"
    Then ConfigMap "child1" is gone
    And ConfigMap "child2" is gone

  @upstream(TestGetAlternateOwnerIdentity/namespaced-alternate-name)
  Scenario: One missing uid under two names: both dependents are collected
    Given a ConfigMap named "child1" owned by a missing v1 ConfigMap "parent"
    And a ConfigMap named "child2" owned by v1 ConfigMap "another-name" with the uid of ConfigMap "parent"
    Then ConfigMap "child1" is gone
    And ConfigMap "child2" is gone

  @upstream(TestGetAlternateOwnerIdentity/namespaced-alternate-version)
  Scenario: One missing uid through two versions: the unservable one is kept
    Given a ConfigMap named "child1" owned by a missing v1 ConfigMap "parent"
    And a ConfigMap named "child2" owned by a missing xx ConfigMap "parent"
    Then ConfigMap "child1" is gone
    And ConfigMap "child2" still exists

  @upstream(TestGetAlternateOwnerIdentity/namespaced-alternate-namespace)
  Scenario: One missing namespaced uid named from two namespaces: both dependents are collected
    Given a ConfigMap named "child1" owned by a missing v1 ConfigMap "parent"
    And a ConfigMap named "child2" in another namespace owned by a missing v1 ConfigMap "parent"
    Then ConfigMap "child1" is gone
    And ConfigMap "child2" is gone

  @upstream(TestGetAlternateOwnerIdentity/cluster-alternate-kind)
  Scenario: One missing cluster-scoped uid also named as a namespaced kind: both are collected
    Given a ConfigMap named "child1" owned by a missing rbac.authorization.k8s.io/v1 ClusterRole "parent"
    And a ConfigMap named "child2" owned by a missing rbac.authorization.k8s.io/v1 Role "parent"
    Then ConfigMap "child1" is gone
    And ConfigMap "child2" is gone

  @upstream(TestGetAlternateOwnerIdentity/cluster-alternate-name)
  Scenario: One missing cluster-scoped uid under two names: both dependents are collected
    Given a ConfigMap named "child1" owned by a missing rbac.authorization.k8s.io/v1 ClusterRole "parent"
    And a ConfigMap named "child2" owned by rbac.authorization.k8s.io/v1 ClusterRole "other-parent" with the uid of ClusterRole "parent"
    Then ConfigMap "child1" is gone
    And ConfigMap "child2" is gone

  @upstream(TestGetAlternateOwnerIdentity/cluster-alternate-version)
  Scenario: One missing cluster-scoped uid through two versions: the unservable one is kept
    Given a ConfigMap named "child1" owned by a missing rbac.authorization.k8s.io/v1 ClusterRole "parent"
    And a ConfigMap named "child2" owned by a missing rbac.authorization.k8s.io/xx ClusterRole "parent"
    Then ConfigMap "child1" is gone
    And ConfigMap "child2" still exists

  @upstream(TestGetAlternateOwnerIdentity/cluster-alternate-namespace)
  Scenario: One missing cluster-scoped owner named from two namespaces: both dependents are collected
    Given a ConfigMap named "child1" owned by a missing rbac.authorization.k8s.io/v1 ClusterRole "parent"
    And a ConfigMap named "child2" in another namespace owned by a missing rbac.authorization.k8s.io/v1 ClusterRole "parent"
    Then ConfigMap "child1" is gone
    And ConfigMap "child2" is gone

  @upstream(TestGetAlternateOwnerIdentity/ignore-matches)
  Scenario: Dependents naming a missing owner identically are all collected together
    Given a Secret named "child1" owned by a missing v1 ConfigMap "parent"
    And a Secret named "child2" owned by a missing v1 ConfigMap "parent"
    And a Secret named "child3" owned by a missing v1 ConfigMap "parent"
    Then Secret "child1" is gone
    And Secret "child2" is gone
    And Secret "child3" is gone
