@orphan
Feature: Orphaning
  With propagationPolicy=Orphan (or the legacy orphanDependents=true) the API server keeps the
  owner and adds the `orphan` finalizer. The garbage collector removes the owner's reference
  from every dependent it knows of, then removes the finalizer, and the owner disappears; the
  dependents stay, without that reference (their other references are untouched). This is how
  a user replaces an owner without disturbing what it made: a Deployment deleted this way
  leaves its ReplicaSets running, with no controller.
  An object can carry the `orphan` finalizer before it is deleted: a DELETE without options
  then orphans (the object's finalizers beat the resource's default), while an explicit
  background policy strips it. Surprisingly, a v1 ReplicationController and a batch/v1 Job orphan by
  default when deleted with no options at all (their registries' DefaultGarbageCollectionPolicy);
  kubectl always sends a policy, so users rarely see this.
  The collector only orphans the dependents it has already seen (issue #26120), so these
  scenarios, like upstream's tests, wait for it to catch up before deleting the owner.
  (Upstream: TestOrphaning; e2e "should orphan pods created by rc if delete options say so",
  "... if deleteOptions.OrphanDependents is nil", "should orphan RS created by deployment when
  deleteOptions.PropagationPolicy is Orphan".)

  @upstream(TestOrphaning)
  Scenario: orphanDependents=true leaves the pods without their ReplicationController
    Given a ReplicationController named "rc"
    And a Pod named "rc-1" owned by ReplicationController "rc" with blockOwnerDeletion
    And a Pod named "rc-2" owned by ReplicationController "rc" with blockOwnerDeletion
    And a Pod named "rc-3" owned by ReplicationController "rc" with blockOwnerDeletion
    And the garbage collector has caught up
    When ReplicationController "rc" is deleted with options:
      """
      {"orphanDependents": true}
      """
    Then the delete kept the object with finalizers "orphan"
    And ReplicationController "rc" is gone
    And 3 Pods named "rc-*" still exist
    And every Pod named "rc-*" has owner references to ""

  @upstream(should-orphan-pods-created-by-rc-if-delete-options-say-so)
  Scenario: propagationPolicy=Orphan with a UID precondition keeps every pod
    Given a ReplicationController named "simpletest.rc" owning 10 Pods
    And the garbage collector has caught up
    When ReplicationController "simpletest.rc" is deleted with options:
      """
      {"propagationPolicy": "Orphan", "preconditions": {"uid": "${ReplicationController/simpletest.rc}"}}
      """
    Then ReplicationController "simpletest.rc" is gone
    And 10 Pods named "simpletest.rc-*" still exist
    And every Pod named "simpletest.rc-*" has owner references to ""

  @upstream(should-orphan-pods-created-by-rc-if-deleteOptions.OrphanDependents-is-nil)
  Scenario: A v1 ReplicationController orphans its pods by default
    Given a ReplicationController named "rc"
    And a Pod named "rc-1" owned by ReplicationController "rc" with blockOwnerDeletion
    And a Pod named "rc-2" owned by ReplicationController "rc" with blockOwnerDeletion
    And the garbage collector has caught up
    When ReplicationController "rc" is deleted with options:
      """
      {"preconditions": {"uid": "${ReplicationController/rc}"}}
      """
    Then the delete kept the object with finalizers "orphan"
    And ReplicationController "rc" is gone
    And Pod "rc-1" still exists
    And Pod "rc-1" has owner references to ""
    And Pod "rc-2" still exists

  Scenario: A batch/v1 Job orphans its pods by default
    Given a Job named "job"
    And a Pod named "job-x1" owned by Job "job" with blockOwnerDeletion
    And the garbage collector has caught up
    When Job "job" is deleted
    Then the delete kept the object with finalizers "orphan"
    And Job "job" is gone
    And Pod "job-x1" still exists
    And Pod "job-x1" has owner references to ""

  Scenario: orphanDependents=false makes a ReplicationController cascade
    Given a ReplicationController named "rc"
    And a Pod named "rc-1" owned by ReplicationController "rc" with blockOwnerDeletion
    When ReplicationController "rc" is deleted with options:
      """
      {"orphanDependents": false}
      """
    Then the delete removed the object at once
    And Pod "rc-1" is gone

  @upstream(should-orphan-RS-created-by-deployment-when-deleteOptions.PropagationPolicy-is-Orphan)
  Scenario: A Deployment deleted with Orphan leaves its ReplicaSet without a controller
    Given the objects in "../fixtures/deployment-chain.yaml"
    And the garbage collector has caught up
    When Deployment "web" is deleted with options:
      """
      {"propagationPolicy": "Orphan", "preconditions": {"uid": "${Deployment/web}"}}
      """
    Then Deployment "web" is gone
    And ReplicaSet "web-7d9f8" still exists
    And ReplicaSet "web-7d9f8" has owner references to ""
    And Pod "web-7d9f8-a1" still exists
    And Pod "web-7d9f8-a1" has owner references to "web-7d9f8"
    And Pod "web-7d9f8-b2" still exists

  Scenario Outline: Orphaning keeps the <dependent> of a <owner>
    # A PersistentVolume also carries kubernetes.io/pv-protection, from the
    # StorageObjectInUseProtection admission plugin (see foreground.feature). Its dependent is
    # not a claim: a matching claim would be bound to it, and a bound volume is kept by
    # pv-protection until the claim goes.
    Given a <owner> named "<owner name>"
    And a <dependent> named "dependent" owned by <owner> "<owner name>" with blockOwnerDeletion
    And the garbage collector has caught up
    When <owner> "<owner name>" is deleted with propagation policy Orphan
    Then the delete kept the object with finalizers "<finalizers>"
    And <owner> "<owner name>" is gone
    And <dependent> "dependent" still exists
    And <dependent> "dependent" has owner references to ""

    Examples: namespaced owners
      | owner       | owner name | dependent  | finalizers                          |
      | ConfigMap   | owner      | Secret     | orphan                              |
      | Deployment  | owner      | ReplicaSet | orphan                              |
      | ReplicaSet  | owner      | Pod        | orphan                              |
      | StatefulSet | owner      | Pod        | orphan                              |
      | CronJob     | owner      | Job        | orphan                              |

    Examples: cluster-scoped owners
      | owner            | owner name                 | dependent | finalizers                          |
      | ClusterRole      | kubegc-orphan-owner-role   | ConfigMap | orphan                              |
      | PersistentVolume | kubegc-orphan-owner-volume | ConfigMap | kubernetes.io/pv-protection, orphan |

  Scenario: Orphaning removes only the deleted owner's reference
    Given a ConfigMap named "first"
    And a ConfigMap named "second"
    And a ConfigMap named "shared" owned by ConfigMap "first" and ConfigMap "second"
    And the garbage collector has caught up
    When ConfigMap "first" is deleted with propagation policy Orphan
    Then ConfigMap "first" is gone
    And ConfigMap "shared" still exists
    And ConfigMap "shared" has owner references to "second"

  Scenario: An orphan finalizer set beforehand makes a plain DELETE orphan
    # options > the object's finalizers > the resource's default: with no options, the
    # existing finalizer decides.
    Given a ConfigMap named "owner" with finalizers "orphan"
    And a ConfigMap named "child" owned by ConfigMap "owner"
    And the garbage collector has caught up
    When ConfigMap "owner" is deleted
    Then the delete kept the object with finalizers "orphan"
    And ConfigMap "owner" is gone
    And ConfigMap "child" still exists
    And ConfigMap "child" has owner references to ""

  Scenario: An explicit Background strips an orphan finalizer set beforehand
    Given a ConfigMap named "owner" with finalizers "orphan"
    And a ConfigMap named "child" owned by ConfigMap "owner"
    When ConfigMap "owner" is deleted with propagation policy Background
    Then the delete removed the object at once
    And ConfigMap "child" is gone

  Scenario: The legacy orphanDependents option orphans any kind
    Given a ConfigMap named "owner"
    And a ConfigMap named "child" owned by ConfigMap "owner"
    And the garbage collector has caught up
    When ConfigMap "owner" is deleted with options:
      """
      {"orphanDependents": true}
      """
    Then ConfigMap "owner" is gone
    And ConfigMap "child" still exists
    And ConfigMap "child" has owner references to ""

  Scenario: An orphaned dependent is collected by a later owner's deletion
    # A dependent of two owners: the first is deleted with Orphan, the second in the
    # background. The last owner's deletion decides its fate (the seed's design notes).
    Given a ConfigMap named "first"
    And a ConfigMap named "second"
    And a ConfigMap named "shared" owned by ConfigMap "first" and ConfigMap "second"
    And the garbage collector has caught up
    When ConfigMap "first" is deleted with propagation policy Orphan
    Then ConfigMap "first" is gone
    When ConfigMap "second" is deleted with propagation policy Background
    Then ConfigMap "shared" is gone
