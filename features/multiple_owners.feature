@multiple-owners
Feature: Multiple owners and mixed relationships
  An object may have several owners, of any kinds, and may itself own others. It is collected
  only when none of its owners is left: while one is solid (exists and is not waiting in the
  foreground), the collector only removes the references to those that are gone or waiting, in
  one patch. So the last owner to go decides: if it orphans, the object stays; if it goes in
  the background, so does the object. Owner references can change at any time: the collector
  follows the references an object has now, not those it was created with.
  (Upstream: TestProcessEvent test1-test3, TestDeleteOwnerRefPatch,
  TestSolidOwnerDoesNotBlockWaitingOwner; the design notes' first open question.)

  @upstream(TestProcessEvent/test1)
  Scenario: An object owned by an owner and by that owner's dependent goes with both
    # 2 is owned by 1; 3 is owned by 1 and 2. Deleting 1 takes 2, and with it 3.
    Given a ConfigMap named "1"
    And a ConfigMap named "2" owned by ConfigMap "1"
    And a ConfigMap named "3" owned by ConfigMap "1" and ConfigMap "2"
    When ConfigMap "1" is deleted with propagation policy Background
    Then ConfigMap "2" is gone
    And ConfigMap "3" is gone

  @upstream(TestProcessEvent/test2)
  Scenario: Deleting a middle owner takes only what depended on it alone
    # As test1, plus 4 owned by 2; then 2 is deleted.
    Given a ConfigMap named "1"
    And a ConfigMap named "2" owned by ConfigMap "1"
    And a ConfigMap named "3" owned by ConfigMap "1" and ConfigMap "2"
    And a ConfigMap named "4" owned by ConfigMap "2"
    When ConfigMap "2" is deleted with propagation policy Background
    Then ConfigMap "4" is gone
    And ConfigMap "3" still exists
    And ConfigMap "3" has owner references to "1"
    And ConfigMap "1" still exists

  @upstream(TestProcessEvent/test3)
  Scenario: A dependent re-parented by an update follows its new owner
    # 4 is owned by 3; 2 starts owned by 1 and is updated to be owned by 4 instead.
    Given a ConfigMap named "1"
    And a ConfigMap named "3"
    And a ConfigMap named "4" owned by ConfigMap "3"
    And a ConfigMap named "2" owned by ConfigMap "1"
    When ConfigMap "2" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "4", "uid": "${ConfigMap/4}"}]}}
      """
    And ConfigMap "1" is deleted with propagation policy Background
    Then ConfigMap "1" is gone
    And ConfigMap "2" still exists
    When ConfigMap "3" is deleted with propagation policy Background
    Then ConfigMap "4" is gone
    And ConfigMap "2" is gone

  @upstream(TestDeleteOwnerRefPatch)
  Scenario: The references to every owner that is gone are removed, the solid one kept
    Given a ConfigMap named "1"
    And a ConfigMap named "2"
    And a ConfigMap named "3"
    And a Pod named "pod" owned by ConfigMap "1" and ConfigMap "2" and ConfigMap "3"
    When ConfigMap "2" is deleted with propagation policy Background
    And ConfigMap "3" is deleted with propagation policy Background
    Then Pod "pod" still exists
    And Pod "pod" has owner references to "1"

  Scenario: A dependent of a ConfigMap and a Deployment outlives either alone
    Given a ConfigMap named "config"
    And a Deployment named "web"
    And a Secret named "shared" owned by ConfigMap "config" and Deployment "web"
    When Deployment "web" is deleted with propagation policy Background
    Then Deployment "web" is gone
    And Secret "shared" still exists
    And Secret "shared" has owner references to "config"
    When ConfigMap "config" is deleted with propagation policy Background
    Then Secret "shared" is gone

  Scenario: The last owner to go orphans: the dependent stays
    Given a ConfigMap named "first"
    And a ConfigMap named "second"
    And a ConfigMap named "shared" owned by ConfigMap "first" and ConfigMap "second"
    When ConfigMap "first" is deleted with propagation policy Background
    Then ConfigMap "shared" has owner references to "second"
    When ConfigMap "second" is deleted with propagation policy Orphan
    Then ConfigMap "second" is gone
    And ConfigMap "shared" still exists
    And ConfigMap "shared" has owner references to ""

  Scenario: A dependent of a foreground owner and a solid owner loses only the waiting reference
    Given a ConfigMap named "waiting"
    And a ConfigMap named "solid"
    And a ConfigMap named "shared" owned by ConfigMap "waiting" and ConfigMap "solid" with blockOwnerDeletion
    And a ConfigMap named "alone" owned by ConfigMap "waiting" with blockOwnerDeletion
    When ConfigMap "waiting" is deleted with propagation policy Foreground
    Then ConfigMap "alone" is gone
    And ConfigMap "waiting" is gone
    And ConfigMap "shared" still exists
    And ConfigMap "shared" has owner references to "solid"

  Scenario: Two owners deleted in the foreground at once both wait for the shared dependent
    Given a ConfigMap named "left"
    And a ConfigMap named "right"
    And a ConfigMap named "shared" owned by ConfigMap "left" and ConfigMap "right" with blockOwnerDeletion with finalizers "example.com/hold"
    And the garbage collector has caught up
    When these deletions happen at once:
      | kind      | names | options                            |
      | ConfigMap | left  | {"propagationPolicy": "Foreground"} |
      | ConfigMap | right | {"propagationPolicy": "Foreground"} |
    Then ConfigMap "shared" is terminating with finalizers "example.com/hold"
    When the finalizer "example.com/hold" is removed from ConfigMap "shared"
    Then ConfigMap "shared" is gone
    And ConfigMap "left" is gone
    And ConfigMap "right" is gone

  Scenario: A dependent owned across scopes goes when its last owner does
    Given a ClusterRole named "kubegc-mo-cluster-owner"
    And a ConfigMap named "namespaced-owner"
    And a Secret named "shared" owned by ClusterRole "kubegc-mo-cluster-owner" and ConfigMap "namespaced-owner"
    When ClusterRole "kubegc-mo-cluster-owner" is deleted with propagation policy Background
    Then Secret "shared" has owner references to "namespaced-owner"
    When ConfigMap "namespaced-owner" is deleted with propagation policy Background
    Then Secret "shared" is gone

  Scenario: Adding an owner by an update protects a dependent from its first owner's deletion
    Given a ConfigMap named "first"
    And a ConfigMap named "second"
    And a ConfigMap named "child" owned by ConfigMap "first"
    When ConfigMap "child" is patched with a strategic patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "second", "uid": "${ConfigMap/second}"}]}}
      """
    And ConfigMap "first" is deleted with propagation policy Background
    Then ConfigMap "first" is gone
    And ConfigMap "child" still exists
    And ConfigMap "child" has owner references to "second"

  Scenario: An owner reference added by server-side apply merges by uid with those of other managers
    # Server-side apply treats ownerReferences as a map keyed by uid: the applied reference is
    # added beside the one its creator set, and protects the dependent as an update would.
    Given a ConfigMap named "first"
    And a ConfigMap named "second"
    And a ConfigMap named "child" owned by ConfigMap "first"
    When ConfigMap "child" is patched with an apply patch:
      """
      {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "child", "ownerReferences": [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "second", "uid": "${ConfigMap/second}"}]}}
      """
    Then ConfigMap "child" has owner references to "first, second"
    When ConfigMap "first" is deleted with propagation policy Background
    Then ConfigMap "first" is gone
    And ConfigMap "child" still exists
    And ConfigMap "child" has owner references to "second"

  Scenario: An owner reference a server-side applier stops applying is removed
    # The applier owned the reference alone: when its next configuration leaves it out, the
    # reference goes. An object with no owner references left is nobody's dependent: it stays.
    Given a ConfigMap named "first"
    And a ConfigMap named "second"
    And a ConfigMap named "child" owned by ConfigMap "first"
    When ConfigMap "child" is patched with an apply patch:
      """
      {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "child", "ownerReferences": [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "second", "uid": "${ConfigMap/second}"}]}}
      """
    And ConfigMap "first" is deleted with propagation policy Background
    Then ConfigMap "child" has owner references to "second"
    When ConfigMap "child" is patched with an apply patch:
      """
      {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "child"}}
      """
    Then ConfigMap "child" has owner references to ""
    And ConfigMap "child" still exists
