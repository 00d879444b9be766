@workloads @background @foreground @orphan
Feature: The textbook cascade, built by the workload controllers
  The seeds' first example of garbage collection: a Deployment owns a ReplicaSet, which owns
  Pods. Nobody writes those owner references by hand: the deployment controller creates the
  ReplicaSet with a controller reference to the Deployment, and the replica set controller
  creates the Pods with one to the ReplicaSet, both with blockOwnerDeletion set
  (kube-controller-manager's deployment and replicaset controllers; on the fake, kubegc's
  workload controllers). The job controller does the same for a Job's Pods and also puts its
  batch.kubernetes.io/job-tracking finalizer on them, which it removes once it has counted the
  Pod, and at once when the Job is being deleted. These scenarios let the controllers build the
  tree, then delete its root.

  Scenario: The controllers build the tree
    Given a Deployment named "web" with 2 replicas
    Then Deployment "web" controls 1 ReplicaSet, which controls 2 Pods

  Scenario: Foreground deletion of the Deployment takes the ReplicaSet and the Pods with it
    # The collector deletes the ReplicaSet in the foreground too, because its owner is being
    # deleted in the foreground, so the Pods go before the ReplicaSet, which goes before the
    # Deployment.
    Given a Deployment named "web" with 2 replicas
    And Deployment "web" controls 1 ReplicaSet, which controls 2 Pods
    When Deployment "web" is deleted with propagation policy Foreground
    Then Deployment "web" is gone
    And no ReplicaSets or Pods are left

  Scenario: Orphaning the Deployment leaves the ReplicaSet, which keeps its Pods
    # The controllers' tree existing is not the collector knowing it: an orphaning reaches only
    # the dependents already in the collector's graph (upstream issue #26120).
    Given a Deployment named "web" with 2 replicas
    And Deployment "web" controls 1 ReplicaSet, which controls 2 Pods
    And the garbage collector has caught up
    When Deployment "web" is deleted with propagation policy Orphan
    Then Deployment "web" is gone
    And 1 ReplicaSet is left, with no owner references, controlling 2 Pods

  Scenario: A ReplicationController's Pods go with it in the background
    Given a ReplicationController named "rc" with 3 replicas
    And ReplicationController "rc" controls 3 Pods
    When ReplicationController "rc" is deleted with propagation policy Background
    Then ReplicationController "rc" is gone
    And no Pods are left

  Scenario: A Job deleted in the foreground waits for its Pods, which its controller lets go
    # Without the job controller, the Pods' job-tracking finalizer would keep them, and the
    # Job, forever.
    Given a Job named "pi" with 2 pods
    And Job "pi" controls 2 Pods
    When Job "pi" is deleted with propagation policy Foreground
    Then Job "pi" is gone
    And no Pods are left
