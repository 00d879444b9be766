@cross-namespace
Feature: Cross-namespace references
  A namespaced dependent may only be owned by cluster-scoped objects or by objects in its own
  namespace: the collector looks a namespaced owner up in the dependent's namespace only. A
  reference to an owner in another namespace therefore points at an absent owner, and the
  dependent is collected once all its owners are absent (while another owner is solid, the
  collector only removes that reference). Namespaces are a boundary: an object in one namespace
  cannot keep alive, or be deleted through, an object in another.
  When the collector has actually seen the referenced uid in the other namespace, it records a
  Warning event `OwnerRefInvalidNamespace` on the dependent, from `garbage-collector-controller`,
  saying `ownerRef [<apiVersion>/<kind>, namespace: <dependent's namespace>, name: <name>,
  uid: <uid>] does not exist in namespace "<dependent's namespace>"`. When the uid exists
  nowhere, no event is recorded. Before Kubernetes 1.20 the outcome depended on which object
  the collector saw first, and could even delete the real owner's legitimate dependents
  (issue #65200, fixed by PR #92743).
  (Upstream: TestCrossNamespaceReferencesWithWatchCache, ...WithoutWatchCache,
  TestConflictingData "bad child in ns1 -> owner in ns2".)

  @upstream(TestConflictingData/bad-child-in-ns1-owner-in-ns2-child-first)
  @upstream(TestConflictingData/bad-child-in-ns1-owner-in-ns2-owner-first)
  Scenario: A dependent naming an owner in another namespace is collected, with a warning
    # Upstream checks both orders in which the collector can see the two objects; which one it
    # sees first cannot be chosen through the API, and the outcome is the same.
    Given a Pod named "podname2" in another namespace
    And a Pod named "podname1" owned by Pod "podname2"
    Then Pod "podname1" is gone
    And Pod "podname2" still exists
    And an event was recorded for Pod "podname1" with:
      | type                 | Warning                                                                                                        |
      | reason               | OwnerRefInvalidNamespace                                                                                       |
      | message              | ownerRef [v1/Pod, namespace: ${namespace}, name: podname2, uid: ${Pod/podname2}] does not exist in namespace "${namespace}" |
      | source.component     | garbage-collector-controller                                                                                   |
      | involvedObject.kind  | Pod                                                                                                            |
      | involvedObject.uid   | ${Pod/podname1}                                                                                                |
      | metadata.namespace   | ${namespace}                                                                                                   |

  @upstream(TestCrossNamespaceReferencesWithWatchCache)
  @upstream(TestCrossNamespaceReferencesWithoutWatchCache)
  Scenario: Invalid dependents in another namespace go; the owner's own dependents stay
    # The parent lives in the other namespace with two valid dependents. The invalid ones, in
    # this namespace, carry the parent's uid under other coordinates (kind Secret, name
    # "invalid"), as upstream's test does; one more is created once the collector has caught
    # up. (The fake API server has no watch cache to switch off; both upstream variants expect
    # the same.)
    Given a ConfigMap named "parent" in another namespace
    And a ConfigMap named "valid-1" in another namespace owned by ConfigMap "parent"
    And a ConfigMap named "valid-2" in another namespace owned by ConfigMap "parent"
    And a ConfigMap named "invalid-1" owned by v1 Secret "invalid" with the uid of ConfigMap "parent"
    And a ConfigMap named "invalid-2" owned by v1 Secret "invalid" with the uid of ConfigMap "parent"
    Then ConfigMap "invalid-1" is gone
    And ConfigMap "invalid-2" is gone
    And an event with reason "OwnerRefInvalidNamespace" was recorded for ConfigMap "invalid-1"
    And an event with reason "OwnerRefInvalidNamespace" was recorded for ConfigMap "invalid-2"
    And ConfigMap "valid-1" still exists
    And ConfigMap "valid-2" still exists
    And ConfigMap "parent" still exists
    Given the garbage collector has caught up
    And a ConfigMap named "invalid-late" owned by v1 Secret "invalid" with the uid of ConfigMap "parent"
    Then ConfigMap "invalid-late" is gone
    And an event was recorded for ConfigMap "invalid-late" with:
      | reason               | OwnerRefInvalidNamespace     |
      | source.component     | garbage-collector-controller |
      | involvedObject.name  | invalid-late                 |
      | metadata.namespace   | ${namespace}                 |
    And ConfigMap "valid-1" still exists

  Scenario Outline: A <kind> in another namespace cannot own a ConfigMap
    # The warning needs the collector to have seen the owner: were the dependent seen first,
    # its owner would be looked up in the dependent's namespace, found absent and the dependent
    # collected without one (the header above). Each kind has its own watch, so the order in
    # which the collector sees the two is only known once it has caught up.
    Given a <kind> named "owner" in another namespace
    And the garbage collector has caught up
    And a ConfigMap named "dependent" owned by <kind> "owner"
    Then ConfigMap "dependent" is gone
    And an event with reason "OwnerRefInvalidNamespace" was recorded for ConfigMap "dependent"
    And <kind> "owner" still exists

    Examples:
      | kind           |
      | ConfigMap      |
      | Secret         |
      | Deployment     |
      | ServiceAccount |

  Scenario: A solid owner in the namespace keeps the dependent; only the foreign reference goes
    Given a ConfigMap named "foreign" in another namespace
    And a ConfigMap named "local"
    And a ConfigMap named "dependent" owned by ConfigMap "local" and ConfigMap "foreign"
    Then an event with reason "OwnerRefInvalidNamespace" was recorded for ConfigMap "dependent"
    And ConfigMap "dependent" still exists
    And ConfigMap "dependent" has owner references to "local"
    And ConfigMap "foreign" still exists

  Scenario: No warning is recorded when the uid exists nowhere
    Given a ConfigMap named "dependent" owned by a missing v1 ConfigMap "nowhere"
    Then ConfigMap "dependent" is gone
    And no event with reason "OwnerRefInvalidNamespace" was recorded for ConfigMap "dependent"

  Scenario: An owner's own dependents are collected as usual when it goes
    # A cross-namespace reference to the owner changes nothing for the owner's namespace.
    Given a ConfigMap named "parent" in another namespace
    And a ConfigMap named "child" in another namespace owned by ConfigMap "parent"
    And a ConfigMap named "stranger" owned by ConfigMap "parent"
    Then ConfigMap "stranger" is gone
    And ConfigMap "child" still exists
    When ConfigMap "parent" is deleted with propagation policy Background
    Then ConfigMap "child" is gone
