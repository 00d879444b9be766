Feature: Background cascading deletion
  When an owner is deleted with propagationPolicy=Background, the API server removes the owner
  at once. The garbage collector then notices that the owner's dependents point at an object
  that no longer exists and deletes them, level by level. A dependent that still has another
  owner that exists (a "solid" owner) is kept, and only loses its reference to the deleted one.
  (Upstream: TestCascadingDeletion; e2e "should delete pods created by rc when not orphaning".)

  @upstream(TestCascadingDeletion)
  Scenario: A dependent of a deleted owner is collected
    Given a ConfigMap named "owner"
    And a ConfigMap named "child" owned by ConfigMap "owner"
    When ConfigMap "owner" is deleted with propagation policy Background
    Then ConfigMap "owner" is gone
    And ConfigMap "child" is gone

  @upstream(TestCascadingDeletion)
  Scenario: A dependent with another solid owner survives, without the deleted owner's reference
    Given a ConfigMap named "rc1"
    And a ConfigMap named "rc2"
    And the following objects:
      | kind      | name  | owners                  |
      | ConfigMap | a     | ConfigMap/rc1           |
      | ConfigMap | b     | ConfigMap/rc1, ConfigMap/rc2 |
      | ConfigMap | c     |                         |
    When ConfigMap "rc1" is deleted with propagation policy Background
    Then ConfigMap "a" is gone
    And ConfigMap "b" still exists
    And ConfigMap "b" has owner references to "rc2"
    And ConfigMap "c" still exists

  Scenario: The seed's Deployment, ReplicaSet and Pod chain goes level by level
    # No controllers run here: the scenario plays the Deployment and ReplicaSet controllers
    # by creating the dependents with the references those controllers would set.
    Given a Deployment named "web"
    And a ReplicaSet named "web-5d4f" owned by Deployment "web" with blockOwnerDeletion
    And a Pod named "web-5d4f-x1" owned by ReplicaSet "web-5d4f" with blockOwnerDeletion
    When Deployment "web" is deleted with propagation policy Background
    Then Deployment "web" is gone
    And ReplicaSet "web-5d4f" is gone
    And Pod "web-5d4f-x1" is gone

  Scenario: A tree loaded from a fixture is collected level by level
    # fixtures/deployment-chain.yaml holds the Deployment -> ReplicaSet -> Pods tree with the
    # references the real controllers would set.
    Given the objects in "fixtures/deployment-chain.yaml"
    When Deployment "web" is deleted with propagation policy Background
    Then ReplicaSet "web-7d9f8" is gone
    And Pod "web-7d9f8-a1" is gone
    And Pod "web-7d9f8-b2" is gone
