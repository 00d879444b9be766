@custom-resources
Feature: Custom resources
  Custom resources take part in garbage collection like built-in kinds: they can own and be
  owned, across the custom/built-in boundary, namespaced or cluster-scoped. The collector finds
  new kinds through discovery when their CustomResourceDefinition appears, and forgets them when
  it goes. Deleting a CustomResourceDefinition deletes its custom resources (the API server's
  clean-up finalizer does that, not the collector); the collector then collects what those
  resources owned. A kind defined again later takes part again.
  Custom resources do not accept strategic merge patches, so to remove a reference from one
  the collector falls back to a JSON merge patch of the whole reference list.
  (Upstream: TestCustomResourceCascadingDeletion, TestMixedRelationships,
  TestCRDDeletionCascading; e2e "should support cascading deletion of custom resources",
  "should support orphan deletion of custom resources".)

  @upstream(TestCustomResourceCascadingDeletion)
  Scenario: A custom resource owner takes its custom dependent with it
    Given a custom resource kind "Widget"
    And a Widget named "owner"
    And a Widget named "dependent" owned by Widget "owner" with blockOwnerDeletion
    When Widget "owner" is deleted with propagation policy Foreground
    Then Widget "dependent" is gone
    And Widget "owner" is gone

  @upstream(TestMixedRelationships)
  Scenario: Custom resources and ConfigMaps own each other
    Given a custom resource kind "Gizmo"
    And a Gizmo named "custom-owner"
    And a ConfigMap named "core-dependent" owned by Gizmo "custom-owner"
    And a ConfigMap named "core-owner"
    And a Gizmo named "custom-dependent" owned by ConfigMap "core-owner"
    When Gizmo "custom-owner" is deleted with propagation policy Foreground
    And ConfigMap "core-owner" is deleted with propagation policy Foreground
    Then ConfigMap "core-dependent" is gone
    And Gizmo "custom-dependent" is gone
    And Gizmo "custom-owner" is gone
    And ConfigMap "core-owner" is gone

  @upstream(TestCascadingDeleteOnCRDConversionFailure) @serial
  Scenario: A kind whose objects cannot be read does not stop the collector
    # Here every stored Gadget must go through a conversion webhook that does not run, so
    # nothing can list Gadgets: the collector's watch of that kind never syncs. Upstream once
    # waited for every kind to sync before collecting anything (fixed by PR #125796); a kind
    # that cannot be read must hold up only itself, and ConfigMaps are collected as ever.
    # @serial: the namespace controller lists every kind in a namespace it deletes, so while
    # Gadgets cannot be read no namespace on the cluster can be deleted, and it then retries
    # with a back-off of up to a minute; no other scenario runs beside this one.
    Given a custom resource kind "Gadget" served at versions "v1, v2"
    And a Gadget named "old"
    And a ConfigMap named "owner"
    And a ConfigMap named "child" owned by ConfigMap "owner"
    # The old Gadget is read on its own: a read of one object goes to storage and fails with
    # the conversion's 500. (A list is answered from the API server's watch cache, which cannot
    # fill itself and so answers 429 "storage is (re)initializing" instead.)
    When the custom resource kind "Gadget" stores version "v2" through a conversion webhook that is not running
    And Gadget "old" is read
    Then the request fails with status 500
    And the failure says "conversion webhook for"
    When ConfigMap "owner" is deleted
    Then ConfigMap "child" is gone
    When the custom resource kind "Gadget" converts without a webhook again
    And Gadget "old" is read
    Then the request succeeds

  @upstream(TestCRDDeletionCascading)
  @upstream(TestGarbageCollectorConstruction)
  Scenario: Deleting a kind deletes its resources, whose dependents are then collected; twice
    # The second pass shows that the collector watches a kind defined again.
    Given a custom resource kind "Sprocket"
    And a Sprocket named "owner"
    And a ConfigMap named "dependent" owned by Sprocket "owner"
    And the garbage collector has caught up
    When the custom resource kind "Sprocket" is deleted
    Then Sprocket "owner" is gone
    And ConfigMap "dependent" is gone
    Given the custom resource kind "Sprocket" is defined again
    And a Sprocket named "owner"
    And a ConfigMap named "dependent" owned by Sprocket "owner"
    And the garbage collector has caught up
    When the custom resource kind "Sprocket" is deleted
    Then Sprocket "owner" is gone
    And ConfigMap "dependent" is gone

  @upstream(should-support-cascading-deletion-of-custom-resources)
  Scenario: A cluster-scoped custom owner takes its custom dependent with it
    # The e2e test also creates and foreground-deletes a "canary" to learn that the collector
    # knows the kind; here the collector's catching up says so.
    Given a cluster-scoped custom resource kind "Gadget"
    And a Gadget named "kubegc-cr-owner"
    And a Gadget named "kubegc-cr-dependent" owned by Gadget "kubegc-cr-owner"
    When Gadget "kubegc-cr-owner" is deleted with propagation policy Background
    Then Gadget "kubegc-cr-owner" is gone
    And Gadget "kubegc-cr-dependent" is gone

  @upstream(should-support-orphan-deletion-of-custom-resources)
  Scenario: A cluster-scoped custom owner deleted with Orphan leaves its dependent
    Given a cluster-scoped custom resource kind "Gadget"
    And a Gadget named "kubegc-cr-orphan-owner"
    And a Gadget named "kubegc-cr-orphan-dependent" owned by Gadget "kubegc-cr-orphan-owner"
    And the garbage collector has caught up
    When Gadget "kubegc-cr-orphan-owner" is deleted with propagation policy Orphan
    Then Gadget "kubegc-cr-orphan-owner" is gone
    And Gadget "kubegc-cr-orphan-dependent" still exists
    And Gadget "kubegc-cr-orphan-dependent" has owner references to ""

  Scenario Outline: <policy> deletion of a custom owner: its custom dependent <fate>
    Given a custom resource kind "Widget"
    And a Widget named "owner"
    And a Widget named "dependent" owned by Widget "owner" with blockOwnerDeletion
    And the garbage collector has caught up
    When Widget "owner" is deleted with propagation policy <policy>
    Then Widget "owner" is gone
    And Widget "dependent" <outcome>

    Examples:
      | policy     | fate                | outcome                         |
      | Background | goes                | is gone                         |
      | Foreground | goes first          | is gone                         |
      | Orphan     | stays, unowned      | has owner references to ""      |

  Scenario: A custom dependent with a solid owner loses only its dangling reference
    # The collector's strategic merge patch is refused (415) for custom resources; it falls
    # back to a JSON merge patch.
    Given a custom resource kind "Widget"
    And a ConfigMap named "keeper"
    And a ConfigMap named "leaver"
    And a Widget named "shared" owned by ConfigMap "keeper" and ConfigMap "leaver"
    When ConfigMap "leaver" is deleted with propagation policy Background
    Then ConfigMap "leaver" is gone
    And Widget "shared" still exists
    And Widget "shared" has owner references to "keeper"

  Scenario: A cluster-scoped custom owner owns namespaced ConfigMaps
    Given a cluster-scoped custom resource kind "Gadget"
    And a Gadget named "kubegc-cr-cluster-owner"
    And a ConfigMap named "dependent" owned by Gadget "kubegc-cr-cluster-owner"
    When Gadget "kubegc-cr-cluster-owner" is deleted with propagation policy Background
    Then ConfigMap "dependent" is gone

  Scenario: A namespaced custom resource owned by a ClusterRole is collected with it
    Given a custom resource kind "Widget"
    And a ClusterRole named "kubegc-cr-role-owner"
    And a Widget named "dependent" owned by ClusterRole "kubegc-cr-role-owner"
    When ClusterRole "kubegc-cr-role-owner" is deleted with propagation policy Background
    Then Widget "dependent" is gone

  Scenario: A held custom dependent keeps a foreground ConfigMap owner waiting
    Given a custom resource kind "Widget"
    And a ConfigMap named "owner"
    And a Widget named "held" owned by ConfigMap "owner" with blockOwnerDeletion with finalizers "example.com/hold"
    And the garbage collector has caught up
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then Widget "held" is terminating with finalizers "example.com/hold"
    And ConfigMap "owner" is terminating with finalizers "foregroundDeletion"
    When the finalizer "example.com/hold" is removed from Widget "held"
    Then Widget "held" is gone
    And ConfigMap "owner" is gone
