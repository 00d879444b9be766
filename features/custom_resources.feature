Feature: Custom resources
  Custom resources take part in garbage collection like built-in kinds: they can own and be
  owned, across the custom/built-in boundary, namespaced or cluster-scoped. The collector finds
  new kinds through discovery when their CustomResourceDefinition appears.
  (Upstream: TestCustomResourceCascadingDeletion, TestMixedRelationships.)

  @upstream(TestCustomResourceCascadingDeletion)
  Scenario: A custom resource owner takes its custom dependent with it
    Given a custom resource kind "Widget"
    And a Widget named "owner"
    And a Widget named "dependent" owned by Widget "owner" with blockOwnerDeletion
    When Widget "owner" is deleted with propagation policy Foreground
    Then Widget "dependent" is gone
    And Widget "owner" is gone

  @upstream(TestMixedRelationships)
  Scenario: A custom resource owns a ConfigMap
    Given a custom resource kind "Gizmo"
    And a Gizmo named "owner"
    And a ConfigMap named "dependent" owned by Gizmo "owner"
    When Gizmo "owner" is deleted with propagation policy Background
    Then ConfigMap "dependent" is gone
