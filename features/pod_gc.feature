@pod-gc
Feature: The pod garbage collector
  Pods are not collected through owner references alone. kube-controller-manager's pod garbage
  collector looks at every pod and node every 20 seconds and force-deletes (grace period 0):
  terminated pods beyond a cluster-wide threshold (`--terminated-pod-gc-threshold`, 12,500 by
  default; 0 turns this rule off), evicted ones first, then the oldest; pods bound to a node
  that has been missing for a 40-second quarantine; terminating pods on a node that is not
  Ready and carries the `node.kubernetes.io/out-of-service` taint; and terminating pods no node
  was ever named for. A pod that is not yet Succeeded or Failed is first marked Failed; a pod
  orphaned by its node also gets the condition DisruptionTarget (reason DeletionByPodGC).
  (Upstream: pkg/controller/podgc/gc_controller.go and its tests.)

  Each scenario runs with a pod garbage collector of its own: on the fake a cluster of its own
  on a virtual clock, on the upstream control plane a kube-controller-manager started for it
  with the threshold as a flag. The threshold counts terminated pods in the whole cluster, so on
  a shared control plane those scenarios run alone (`@serial`).

  @own-cluster @serial @upstream(TestGCTerminated/threshold-1-delete-pod-a-which-is-PodFailed-and-pod-b-which-is-PodSucceeded)
  Scenario: Beyond the threshold, the oldest terminated pods go
    Given a cluster of its own whose pod garbage collector keeps 1 terminated pod
    And a Pod named "a" in phase Failed
    And a second has gone by
    And a Pod named "b" in phase Succeeded
    And a second has gone by
    And a Pod named "c" in phase Failed
    When 20 seconds pass
    Then Pod "a" is gone
    And Pod "b" is gone
    And Pod "c" still exists

  @own-cluster @upstream(TestGCOrphaned/no-nodes-one-running-pod)
  Scenario: Pods on a node that no longer exists go after the quarantine, failed first
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Pod named "a" in phase Failed on node "kubegc-podgc-gone-1"
    And a Pod named "c" in phase Running on node "kubegc-podgc-gone-1" with finalizer "example.com/hold"
    When 20 seconds pass
    Then Pod "a" still exists
    When 40 seconds pass
    Then Pod "a" is gone
    And Pod "c" is terminating with finalizers "example.com/hold"
    And Pod "c" has "status.phase" set to "Failed"
