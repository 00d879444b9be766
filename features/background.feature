@background
Feature: Background cascading deletion
  When an owner is deleted with propagationPolicy=Background, the API server removes the owner
  at once. The garbage collector then notices that the owner's dependents point at an object
  that no longer exists and deletes them, level by level. A dependent that still has another
  owner that exists (a "solid" owner) is kept, and only loses its reference to the deleted one.
  Every kind deletes in the background by default, except a v1 ReplicationController and a
  batch/v1 Job (see orphan.feature). Kubernetes does it this way so that deleting an owner is
  one quick request, and the clean-up happens on the server, not in each client.
  The collector deletes a dependent with the policy its own finalizers ask for, and never
  touches an object that is already being deleted.
  (Upstream: TestCascadingDeletion, TestProcessEvent; e2e "should delete pods created by rc
  when not orphaning", "should delete RS created by deployment when not orphaning", "should
  delete jobs and pods created by cronjob".)

  @upstream(TestCascadingDeletion)
  Scenario: Only the dependents left without an owner are collected
    # Pod "b" is also owned by "rc2", which stays: it loses the reference to "rc1" and lives
    # on. Pod "c" has no owner at all. orphanDependents=false is the legacy spelling of
    # Background, needed because a v1 ReplicationController would otherwise orphan.
    Given a ReplicationController named "rc1"
    And a ReplicationController named "rc2"
    And the following objects:
      | kind | name | owners                                             |
      | Pod  | a    | ReplicationController/rc1                          |
      | Pod  | b    | ReplicationController/rc1, ReplicationController/rc2 |
      | Pod  | c    |                                                    |
    When ReplicationController "rc1" is deleted with options:
      """
      {"orphanDependents": false}
      """
    Then ReplicationController "rc1" is gone
    And Pod "a" is gone
    And Pod "b" still exists
    And Pod "b" has owner references to "rc2"
    And Pod "c" still exists

  Scenario Outline: A <dependent> owned by a <owner> is collected when the <owner> goes
    Given a <owner> named "owner"
    And a <dependent> named "dependent" owned by <owner> "owner"
    When <owner> "owner" is deleted with propagation policy Background
    Then the delete removed the object at once
    And <dependent> "dependent" is gone

    Examples: namespaced built-in kinds
      | owner                 | dependent          |
      | ConfigMap             | Secret             |
      | Secret                | ConfigMap          |
      | Deployment            | ReplicaSet         |
      | ReplicaSet            | Pod                |
      | StatefulSet           | ControllerRevision |
      | DaemonSet             | ControllerRevision |
      | Job                   | Pod                |
      | CronJob               | Job                |
      | ReplicationController | Pod                |
      | Service               | Endpoints          |
      | ServiceAccount        | Secret             |
      | Role                  | RoleBinding        |
      | Lease                 | ConfigMap          |
      | Pod                   | ConfigMap          |

  Scenario: A ConfigMap owned by a PersistentVolumeClaim is collected when the claim goes
    # The StorageObjectInUseProtection admission plugin, on by default, gives every new claim
    # the kubernetes.io/pvc-protection finalizer (upstream
    # plugin/pkg/admission/storage/storageobjectinuseprotection), so the delete keeps the claim
    # until the pvc-protection controller has seen that no pod uses it.
    Given a PersistentVolumeClaim named "owner"
    And a ConfigMap named "dependent" owned by PersistentVolumeClaim "owner"
    When PersistentVolumeClaim "owner" is deleted with propagation policy Background
    Then the delete kept the object with finalizers "kubernetes.io/pvc-protection"
    And PersistentVolumeClaim "owner" is gone
    And ConfigMap "dependent" is gone

  Scenario: A chain is collected level by level
    Given a ConfigMap named "grandparent"
    And a ConfigMap named "parent" owned by ConfigMap "grandparent"
    And a ConfigMap named "child" owned by ConfigMap "parent"
    When ConfigMap "grandparent" is deleted with propagation policy Background
    Then ConfigMap "parent" is gone
    And ConfigMap "child" is gone

  Scenario: The seed's Deployment, ReplicaSet and Pod chain goes level by level
    # No controllers run here: the scenario plays the Deployment and ReplicaSet controllers
    # by creating the dependents with the references those controllers would set.
    Given a Deployment named "web"
    And a ReplicaSet named "web-5d4f" owned by Deployment "web" with blockOwnerDeletion
    And a Pod named "web-5d4f-x1" owned by ReplicaSet "web-5d4f" with blockOwnerDeletion
    When Deployment "web" is deleted with propagation policy Background
    Then Deployment "web" is gone
    And ReplicaSet "web-5d4f" is gone
    And Pod "web-5d4f-x1" is gone

  @upstream(should-delete-pods-created-by-rc-when-not-orphaning)
  Scenario: A ReplicationController deleted in the background with a UID precondition takes its pods
    Given a ReplicationController named "simpletest.rc"
    And a Pod named "simpletest.rc-1" owned by ReplicationController "simpletest.rc" with blockOwnerDeletion
    And a Pod named "simpletest.rc-2" owned by ReplicationController "simpletest.rc" with blockOwnerDeletion
    When ReplicationController "simpletest.rc" is deleted with options:
      """
      {"propagationPolicy": "Background", "preconditions": {"uid": "${ReplicationController/simpletest.rc}"}}
      """
    Then ReplicationController "simpletest.rc" is gone
    And every Pod named "simpletest.rc-*" is gone

  @upstream(should-delete-RS-created-by-deployment-when-not-orphaning)
  Scenario: A Deployment deleted in the background takes its ReplicaSet and Pods
    # fixtures/deployment-chain.yaml holds the Deployment -> ReplicaSet -> Pods tree with the
    # references the real controllers would set.
    Given the objects in "../fixtures/deployment-chain.yaml"
    When Deployment "web" is deleted with options:
      """
      {"propagationPolicy": "Background", "preconditions": {"uid": "${Deployment/web}"}}
      """
    Then Deployment "web" is gone
    And ReplicaSet "web-7d9f8" is gone
    And Pod "web-7d9f8-a1" is gone
    And Pod "web-7d9f8-b2" is gone

  @upstream(should-delete-jobs-and-pods-created-by-cronjob)
  Scenario: A CronJob deleted in the background takes its Jobs and their Pods
    # The scenario plays the CronJob and Job controllers.
    Given a CronJob named "backup"
    And a Job named "backup-28934" owned by CronJob "backup" with blockOwnerDeletion
    And a Pod named "backup-28934-x7" owned by Job "backup-28934" with blockOwnerDeletion
    When CronJob "backup" is deleted with propagation policy Background
    Then CronJob "backup" is gone
    And Job "backup-28934" is gone
    And Pod "backup-28934-x7" is gone

  Scenario: A dependent already being deleted keeps its dangling reference
    # The collector never acts on an object that is being deleted (unless it is a foreground
    # owner): it neither re-deletes it nor strips the reference to the missing owner.
    Given a ConfigMap named "owner"
    And a ConfigMap named "held" owned by ConfigMap "owner" with finalizers "example.com/hold"
    When ConfigMap "owner" is deleted with propagation policy Background
    Then ConfigMap "owner" is gone
    And ConfigMap "held" is terminating with finalizers "example.com/hold"
    And ConfigMap "held" has owner references to "owner"
    When the finalizer "example.com/hold" is removed from ConfigMap "held"
    Then ConfigMap "held" is gone

  Scenario: A collected dependent that carries the orphan finalizer orphans its own dependents
    # The collector deletes a dependent with the policy its finalizers ask for: "middle" was
    # created with the orphan finalizer, so it is deleted with Orphan and "leaf" is kept.
    Given a ConfigMap named "top"
    And a ConfigMap named "middle" owned by ConfigMap "top" with finalizers "orphan"
    And a ConfigMap named "leaf" owned by ConfigMap "middle"
    And the garbage collector has caught up
    When ConfigMap "top" is deleted with propagation policy Background
    Then ConfigMap "middle" is gone
    And ConfigMap "leaf" still exists
    And ConfigMap "leaf" has owner references to ""

  Scenario: Events are never collected
    # The collector ignores events (kube-controller-manager's default ignored resources), so
    # an Event with an owner reference stays after its owner is gone.
    Given a ConfigMap named "owner"
    And an Event named "owner.1" owned by ConfigMap "owner"
    And a ConfigMap named "witness" owned by ConfigMap "owner"
    When ConfigMap "owner" is deleted with propagation policy Background
    Then ConfigMap "witness" is gone
    And Event "owner.1" still exists
    And Event "owner.1" has owner references to "owner"
