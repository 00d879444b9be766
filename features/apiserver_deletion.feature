Feature: The API server's half of deletion
  Before any garbage collector acts, the API server decides what a DELETE does: it checks
  preconditions, computes the finalizers from the options, the object's existing finalizers
  and the resource's default policy (options > finalizers > default), and either removes the
  object or keeps it with a deletionTimestamp until its finalizers are gone.
  (Catalogue section B; upstream store_test.go.)

  Scenario: A user finalizer keeps a deleted object until it is removed
    Given a ConfigMap named "held" with finalizers "example.com/hold"
    When ConfigMap "held" is deleted
    Then ConfigMap "held" is terminating with finalizers "example.com/hold"
    When the finalizer "example.com/hold" is removed from ConfigMap "held"
    Then ConfigMap "held" is gone

  Scenario: orphanDependents and propagationPolicy together are refused
    Given a ConfigMap named "x"
    When ConfigMap "x" is deleted with options:
      """
      {"orphanDependents": true, "propagationPolicy": "Orphan"}
      """
    Then the request fails with status 422 and reason Invalid
    And ConfigMap "x" still exists

  Scenario: A UID precondition that does not match is a conflict
    Given a ConfigMap named "x"
    When ConfigMap "x" is deleted with options:
      """
      {"preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}}
      """
    Then the request fails with status 409 and reason Conflict
    And ConfigMap "x" still exists
