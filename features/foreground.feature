Feature: Foreground cascading deletion
  With propagationPolicy=Foreground the API server keeps the owner, sets its deletionTimestamp
  and adds the `foregroundDeletion` finalizer. The garbage collector deletes the dependents
  first; once no dependent with `blockOwnerDeletion: true` is left, it removes the finalizer and
  the owner disappears. A dependent that has another solid owner is not deleted: the collector
  removes the reference to the waiting owner instead.
  (Upstream: e2e "should keep the rc around until all its pods are deleted if the deleteOptions
  says so", TestSolidOwnerDoesNotBlockWaitingOwner.)

  @upstream(e2e/should-keep-the-rc-around-until-all-its-pods-are-deleted)
  Scenario: The owner goes after its dependents
    Given a ReplicaSet named "rs"
    And a Pod named "p1" owned by ReplicaSet "rs" with blockOwnerDeletion
    And a Pod named "p2" owned by ReplicaSet "rs" with blockOwnerDeletion
    When ReplicaSet "rs" is deleted with propagation policy Foreground
    Then Pod "p1" is gone
    And Pod "p2" is gone
    And ReplicaSet "rs" is gone

  @upstream(TestSolidOwnerDoesNotBlockWaitingOwner)
  Scenario: A solid owner keeps a dependent of a foreground-deleted owner
    Given a ConfigMap named "rc1"
    And a ConfigMap named "rc2"
    And the following objects:
      | kind      | name | owners                       | blocking |
      | ConfigMap | pod  | ConfigMap/rc1, ConfigMap/rc2 | yes      |
    When ConfigMap "rc1" is deleted with propagation policy Foreground
    Then ConfigMap "rc1" is gone
    And ConfigMap "pod" still exists
    And ConfigMap "pod" has owner references to "rc2"

  @upstream(TestBlockingOwnerRefDoesBlock)
  Scenario: A blocking dependent held by its own finalizer keeps the owner waiting
    Given a ConfigMap named "owner"
    And the following objects:
      | kind      | name  | owners          | blocking | finalizers |
      | ConfigMap | stuck | ConfigMap/owner | yes      | x/y        |
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then ConfigMap "owner" is terminating with finalizers "foregroundDeletion"
    And ConfigMap "stuck" is terminating with finalizers "x/y"
