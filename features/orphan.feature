Feature: Orphaning
  With propagationPolicy=Orphan (or the legacy orphanDependents=true) the API server adds the
  `orphan` finalizer. The garbage collector removes the owner's reference from every dependent
  it knows of, then removes the finalizer, and the owner disappears; the dependents stay.
  Surprisingly, a v1 ReplicationController and a batch/v1 Job orphan by default when deleted
  with no options at all (their registries' DefaultGarbageCollectionPolicy; catalogue B.2).
  (Upstream: TestOrphaning; e2e "should orphan pods created by rc if delete options say so".)

  @upstream(TestOrphaning)
  Scenario: Orphaned dependents lose their reference and stay
    Given a ConfigMap named "owner"
    And a ConfigMap named "child" owned by ConfigMap "owner" with blockOwnerDeletion
    When ConfigMap "owner" is deleted with propagation policy Orphan
    Then ConfigMap "owner" is gone
    And ConfigMap "child" still exists
    And ConfigMap "child" has owner references to ""

  @upstream(e2e/should-orphan-pods-created-by-rc-if-deleteOptions.OrphanDependents-is-nil)
  Scenario: A v1 ReplicationController orphans its pods by default
    Given a ReplicationController named "rc"
    And a Pod named "pod" owned by ReplicationController "rc" with blockOwnerDeletion
    When ReplicationController "rc" is deleted
    Then ReplicationController "rc" is gone
    And Pod "pod" still exists
    And Pod "pod" has owner references to ""

  Scenario: The legacy orphanDependents option
    Given a ConfigMap named "owner"
    And a ConfigMap named "child" owned by ConfigMap "owner"
    When ConfigMap "owner" is deleted with options:
      """
      {"orphanDependents": true}
      """
    Then ConfigMap "owner" is gone
    And ConfigMap "child" still exists
