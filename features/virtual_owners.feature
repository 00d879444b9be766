Feature: Virtual owners
  The collector learns of owners from references before (or without ever) seeing them. It puts
  a "virtual" node in its graph for such an owner and verifies it with a live GET. An owner that
  never existed is absent, so its dependents are collected, even if nothing was ever deleted.
  A reference whose uid exists but under other coordinates does not count as a solid owner.
  (Upstream: TestCreateWithNonExistentOwner, TestConflictingData.)

  @upstream(TestCreateWithNonExistentOwner)
  Scenario: A dependent of an owner that never existed is collected
    Given a ConfigMap named "orphan-from-birth" owned by a missing v1 ConfigMap "ghost"
    Then ConfigMap "orphan-from-birth" is gone

  Scenario: A dependent of an existing owner is left alone
    Given a ConfigMap named "owner"
    And a ConfigMap named "child" owned by ConfigMap "owner"
    Then ConfigMap "child" still exists
