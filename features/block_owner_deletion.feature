Feature: blockOwnerDeletion and cycles
  Only dependents whose reference has `blockOwnerDeletion: true` hold up an owner's foreground
  deletion; the others are deleted too, but the owner does not wait for them. References can
  form a cycle (a owns b owns c owns a): the collector notices that an item's owner waits for
  its dependents while one of the item's own dependents does too, makes the item's blocking
  references non-blocking, and deletes it in the foreground, which breaks the cycle.
  (Upstream: TestNonBlockingOwnerRefDoesNotBlock; e2e "should not be blocked by dependency circle".)

  @upstream(TestNonBlockingOwnerRefDoesNotBlock)
  Scenario: Non-blocking dependents do not hold up the owner
    Given a ConfigMap named "owner"
    And the following objects:
      | kind      | name | owners          | blocking | finalizers |
      | ConfigMap | p1   | ConfigMap/owner | no       | x/y        |
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then ConfigMap "owner" is gone
    And ConfigMap "p1" is terminating with finalizers "x/y"

  @upstream(e2e/should-not-be-blocked-by-dependency-circle)
  Scenario: A cycle of blocking references is broken
    # a is owned by c, c by b, b by a, every reference blocking: a foreground deletion of a waits
    # for b, which waits for c, which waits for a, until the collector breaks the cycle.
    Given a ConfigMap named "a"
    And a ConfigMap named "b" owned by ConfigMap "a" with blockOwnerDeletion
    And a ConfigMap named "c" owned by ConfigMap "b" with blockOwnerDeletion
    When ConfigMap "a" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "c",
        "uid": "${ConfigMap/c}", "blockOwnerDeletion": true}]}}
      """
    And ConfigMap "a" is deleted with propagation policy Foreground
    Then ConfigMap "a" is gone
    And ConfigMap "b" is gone
    And ConfigMap "c" is gone
