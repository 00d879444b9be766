@block-owner-deletion @cycles
Feature: blockOwnerDeletion and cycles
  Only dependents whose reference has `blockOwnerDeletion: true` hold up an owner's foreground
  deletion; the others are deleted too, but the owner does not wait for them. The field matters
  only for foreground deletion: a background or orphaning owner never waits. A blocking
  reference that is removed, or made non-blocking, releases a waiting owner at once.
  References can form a cycle (a owns b owns c owns a): the collector notices that an item's
  owner waits for its dependents while one of the item's own dependents does too, makes the
  item's blocking references non-blocking (a strategic merge patch re-sending only those
  references, with `blockOwnerDeletion: false`), and deletes it in the foreground, which breaks
  the cycle.
  (Upstream: TestNonBlockingOwnerRefDoesNotBlock, TestBlockingOwnerRefDoesBlock,
  TestUnblockOwnerReference; e2e "should not be blocked by dependency circle".)

  @upstream(TestNonBlockingOwnerRefDoesNotBlock)
  Scenario: Non-blocking dependents do not hold up the owner
    # Both pods are held by a finalizer nobody removes; one reference leaves
    # blockOwnerDeletion unset, the other sets it to false.
    Given a ReplicationController named "rc"
    And the following objects:
      | kind | name | owners                   | blocking | finalizers |
      | Pod  | pod1 | ReplicationController/rc |          | x/y        |
      | Pod  | pod2 | ReplicationController/rc | no       | x/y        |
    When ReplicationController "rc" is deleted with propagation policy Foreground
    Then ReplicationController "rc" is gone
    And Pod "pod1" is terminating with finalizers "x/y"
    And Pod "pod2" is terminating with finalizers "x/y"

  @upstream(TestBlockingOwnerRefDoesBlock)
  Scenario: A blocking dependent held by its own finalizer keeps the owner waiting
    Given a ReplicationController named "rc"
    And the following objects:
      | kind | name | owners                   | blocking | finalizers |
      | Pod  | pod  | ReplicationController/rc | yes      | x/y        |
    And the garbage collector has caught up
    When ReplicationController "rc" is deleted with propagation policy Foreground
    Then ReplicationController "rc" is terminating with finalizers "foregroundDeletion"
    And Pod "pod" is terminating with finalizers "x/y"

  Scenario Outline: A held dependent whose reference has blockOwnerDeletion <value> <verdict> a foreground owner
    Given a ConfigMap named "owner"
    And the following objects:
      | kind      | name | owners          | blocking   | finalizers       |
      | ConfigMap | held | ConfigMap/owner | <blocking> | example.com/hold |
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then ConfigMap "held" is terminating with finalizers "example.com/hold"
    And ConfigMap "owner" <owner>

    Examples:
      | value | blocking | verdict         | owner                                            |
      | true  | yes      | holds up        | is terminating with finalizers "foregroundDeletion" |
      | false | no       | does not hold up | is gone                                          |
      | unset |          | does not hold up | is gone                                          |

  Scenario Outline: A blocking dependent does not hold up a <policy> deletion
    Given a ConfigMap named "owner"
    And a ConfigMap named "held" owned by ConfigMap "owner" with blockOwnerDeletion with finalizers "example.com/hold"
    And the garbage collector has caught up
    When ConfigMap "owner" is deleted with propagation policy <policy>
    Then ConfigMap "owner" is gone

    Examples:
      | policy     |
      | Background |
      | Orphan     |

  Scenario: Removing a blocking reference releases the waiting owner
    Given a ConfigMap named "owner"
    And a ConfigMap named "held" owned by ConfigMap "owner" with blockOwnerDeletion with finalizers "example.com/hold"
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then ConfigMap "owner" is terminating with finalizers "foregroundDeletion"
    When ConfigMap "held" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": null}}
      """
    Then ConfigMap "owner" is gone
    And ConfigMap "held" is terminating with finalizers "example.com/hold"

  Scenario: Making a reference non-blocking releases the waiting owner
    Given a ConfigMap named "owner"
    And a ConfigMap named "held" owned by ConfigMap "owner" with blockOwnerDeletion with finalizers "example.com/hold"
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then ConfigMap "owner" is terminating with finalizers "foregroundDeletion"
    When ConfigMap "held" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
        "uid": "${ConfigMap/owner}", "blockOwnerDeletion": false}]}}
      """
    Then ConfigMap "owner" is gone
    And ConfigMap "held" has owner references to "owner"

  @upstream(should-not-be-blocked-by-dependency-circle)
  Scenario: A cycle of three blocking references is broken
    # The e2e test's pods: pod1 is owned by pod3, pod2 by pod1, pod3 by pod2, every reference
    # the controller's and blocking; pod1 is deleted in the foreground with a UID precondition.
    Given a Pod named "pod1"
    And a Pod named "pod2"
    And a Pod named "pod3"
    When Pod "pod1" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "pod3", "uid": "${Pod/pod3}", "controller": true, "blockOwnerDeletion": true}]}}
      """
    And Pod "pod2" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "pod1", "uid": "${Pod/pod1}", "controller": true, "blockOwnerDeletion": true}]}}
      """
    And Pod "pod3" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "pod2", "uid": "${Pod/pod2}", "controller": true, "blockOwnerDeletion": true}]}}
      """
    And Pod "pod1" is deleted with options:
      """
      {"propagationPolicy": "Foreground", "preconditions": {"uid": "${Pod/pod1}"}}
      """
    Then Pod "pod1" is gone
    And Pod "pod2" is gone
    And Pod "pod3" is gone

  Scenario: A cycle of two blocking references is broken
    Given a ConfigMap named "a"
    And a ConfigMap named "b" owned by ConfigMap "a" with blockOwnerDeletion
    When ConfigMap "a" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "b",
        "uid": "${ConfigMap/b}", "blockOwnerDeletion": true}]}}
      """
    And ConfigMap "a" is deleted with propagation policy Foreground
    Then ConfigMap "a" is gone
    And ConfigMap "b" is gone

  @upstream(TestUnblockOwnerReference)
  Scenario: Breaking a cycle unblocks only the blocking references
    # "item" is owned by "waiting" (blocking), by "other-1" (blockOwnerDeletion false) and by
    # "other-2" (unset); both others are already waiting in the foreground for a held dependent each. The
    # dependent "busy" of "item" is itself deleting its dependents (stuck on "stuck"). When
    # "waiting" is deleted in the foreground, no owner of "item" is solid and one of its
    # dependents waits too: a possible cycle. The collector re-sends the blocking reference with
    # blockOwnerDeletion false, leaves the other two as they were, and deletes "item" in the
    # foreground. Its own finalizer keeps "item" around to be looked at; "waiting" is no longer
    # blocked and goes.
    Given a ConfigMap named "waiting"
    And a ConfigMap named "other-1"
    And a ConfigMap named "other-2"
    And a ConfigMap named "anchor-1" owned by ConfigMap "other-1" with blockOwnerDeletion with finalizers "example.com/hold"
    And a ConfigMap named "anchor-2" owned by ConfigMap "other-2" with blockOwnerDeletion with finalizers "example.com/hold"
    When ConfigMap "other-1" is deleted with propagation policy Foreground
    And ConfigMap "other-2" is deleted with propagation policy Foreground
    Then ConfigMap "other-1" is terminating with finalizers "foregroundDeletion"
    And ConfigMap "other-2" is terminating with finalizers "foregroundDeletion"
    Given a ConfigMap named "item" with finalizers "example.com/hold" and owner references:
      """
      [{"apiVersion": "v1", "kind": "ConfigMap", "name": "waiting", "uid": "${ConfigMap/waiting}", "blockOwnerDeletion": true},
       {"apiVersion": "v1", "kind": "ConfigMap", "name": "other-1", "uid": "${ConfigMap/other-1}", "blockOwnerDeletion": false},
       {"apiVersion": "v1", "kind": "ConfigMap", "name": "other-2", "uid": "${ConfigMap/other-2}"}]
      """
    And a ConfigMap named "busy" owned by ConfigMap "item" with blockOwnerDeletion
    And a ConfigMap named "stuck" owned by ConfigMap "busy" with blockOwnerDeletion with finalizers "example.com/hold"
    When ConfigMap "busy" is deleted with propagation policy Foreground
    Then ConfigMap "busy" is terminating with finalizers "foregroundDeletion"
    When ConfigMap "waiting" is deleted with propagation policy Foreground
    Then ConfigMap "waiting" is gone
    And ConfigMap "item" is terminating with finalizers "example.com/hold, foregroundDeletion"
    And ConfigMap "item" has owner references:
      | name    | blockOwnerDeletion |
      | waiting | false              |
      | other-1 | false              |
      | other-2 | unset              |
