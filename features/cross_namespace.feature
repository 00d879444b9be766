Feature: Cross-namespace references
  A namespaced dependent may only be owned by cluster-scoped objects or by objects in its own
  namespace: the collector looks a namespaced owner up in the dependent's namespace only. A
  reference to an owner in another namespace therefore points at an absent owner, and the
  dependent is collected. When the collector has actually seen the referenced uid in the other
  namespace, it records a Warning event OwnerRefInvalidNamespace on the dependent.
  (Upstream: TestCrossNamespaceReferencesWithWatchCache, TestConflictingData; PR #92743.)

  @upstream(TestCrossNamespaceReferencesWithWatchCache)
  Scenario: A reference to an owner in another namespace is invalid
    Given a ConfigMap named "parent" in another namespace
    And a ConfigMap named "child" owned by ConfigMap "parent"
    Then ConfigMap "child" is gone
    And an event with reason "OwnerRefInvalidNamespace" was recorded for ConfigMap "child"
