@pod-gc
Feature: The pod garbage collector
  Pods are not only collected through owner references. kube-controller-manager's pod garbage
  collector looks at every pod and node every 20 seconds and force-deletes (grace period 0):

  - terminated pods beyond a cluster-wide threshold (`--terminated-pod-gc-threshold`, 12,500 by
    default; 0 turns this rule, and only this one, off). A pod counts as terminated in any
    phase but Pending, Running and Unknown. Evicted pods (Failed with reason `Evicted`) go
    first, then the oldest by creation time, ties broken by name alone;
  - pods bound to a node that does not exist, once the node's name has waited out a quarantine
    of 40 seconds and a live read still finds no node. Pods in every phase go, and a pod not yet
    terminal first gets the condition DisruptionTarget (reason `DeletionByPodGC`, message
    `PodGC: node no longer exists`);
  - terminating pods on a node that is not Ready and carries the taint
    `node.kubernetes.io/out-of-service`, whatever its effect or value;
  - terminating pods that were never scheduled to a node.

  A pod that is not yet Succeeded or Failed is first patched to phase Failed: a pod held by a
  finalizer shows it. (Upstream: pkg/controller/podgc/gc_controller.go, gc, gcTerminated,
  gcTerminating, gcOrphaned, gcUnscheduledTerminating, markFailedAndDeletePodWithCondition; its
  unit tests gc_controller_test.go and the integration tests test/integration/podgc.)

  Every scenario runs with a pod garbage collector of its own: on the fake, a cluster of its
  own on a virtual clock with no kubelets (a pod bound to a node stays terminating until it is
  force-deleted); on the upstream control plane, a kube-controller-manager started for the
  scenario with the threshold as a flag. Upstream's tests create their pods an hour apart; here
  a second apart, enough for creation timestamps, which have a resolution of a second. The
  threshold counts terminated pods in the whole cluster, so on a shared control plane the
  scenarios that set one run alone (`@serial`).

  @own-cluster @serial
  Scenario Outline: Terminated pods beyond the threshold go, evicted ones first, then the oldest
    Given a cluster of its own whose pod garbage collector keeps <keeps> terminated pods
    And a Pod named "a" in phase <a>
    And a second has gone by
    And a Pod named "b" in phase <b>
    And a second has gone by
    And a Pod named "c" in phase <c>
    When 20 seconds pass
    Then the Pods left are "<left>"

    @upstream(TestGCTerminated/delete-pod-a-which-is-PodFailed-and-pod-b-which-is-PodSucceeded)
    @upstream(TestGCTerminated/threshold-1-delete-pod-a-which-is-PodFailed-and-pod-b-which-is-PodSucceeded)
    Examples: three terminated pods, one kept: the two oldest go
      | keeps | a      | b         | c                        | left |
      | 1     | Failed | Succeeded | Failed                   | c    |

    @upstream(TestGCTerminated/threshold-1-delete-pod-b-which-is-PodSucceeded)
    Examples: a running pod does not count and is never chosen
      | keeps | a       | b         | c      | left |
      | 1     | Running | Succeeded | Failed | a, c |

    @upstream(TestGCTerminated/7th)
    Examples: an evicted pod goes before older terminated pods
      | keeps | a      | b         | c                              | left |
      | 1     | Failed | Succeeded | Failed with reason "Evicted"   | b    |

    @upstream(TestGCTerminated/8th)
    Examples: with a running pod, only the evicted one goes
      | keeps | a       | b         | c                            | left |
      | 1     | Running | Succeeded | Failed with reason "Evicted" | a, b |

    @upstream(TestGCTerminated/threshold-5-don-t-delete-pod)
    Examples: under the threshold nothing goes
      | keeps | a      | b         | c       | left    |
      | 5     | Failed | Succeeded | Running | a, b, c |

  @own-cluster @serial @upstream(TestGCTerminated/threshold-1-delete-pod-a-which-is-PodFailed)
  Scenario: One terminated pod over the threshold: the older goes
    Given a cluster of its own whose pod garbage collector keeps 1 terminated pod
    And a Pod named "a" in phase Failed
    And a second has gone by
    And a Pod named "b" in phase Succeeded
    When 20 seconds pass
    Then the Pods left are "b"

  @own-cluster @upstream(TestGCTerminated/threshold-0-disables-terminated-pod-deletion)
  Scenario: A threshold of 0 keeps every terminated pod
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Pod named "a" in phase Failed
    And a Pod named "b" in phase Succeeded
    And a Pod named "c" in phase Failed with reason "Evicted"
    When 40 seconds pass
    Then the Pods left are "a, b, c"

  @own-cluster @serial @upstream(Pod-garbage-collector-should-handle-the-creation-of-1000-pods)
  Scenario: Many terminated pods are cut down to the threshold
    Upstream's e2e test makes 1,000 failed pods against a threshold of 100; this one makes 30
    against 10.

    Given a cluster of its own whose pod garbage collector keeps 10 terminated pods
    And 30 Pods in phase Failed, named "failed-" and a number
    When 20 seconds pass
    Then 10 Pods are left

  @own-cluster @upstream(TestGCOrphaned/no-nodes) @upstream(TestGCOrphaned/no-nodes-one-running-pod)
  Scenario: Pods on a node that never existed go after the quarantine; a running one is failed first
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Pod named "a" in phase Failed on node "kubegc-podgc-never-1"
    And a Pod named "b" in phase Succeeded on node "kubegc-podgc-never-1"
    And a Pod named "c" in phase Running on node "kubegc-podgc-never-1" with finalizer "example.com/hold"
    When 60 seconds pass
    Then the Pods left are "c"
    And Pod "c" is marked Failed with condition DisruptionTarget and reason "DeletionByPodGC"
    And Pod "c" is terminating with finalizers "example.com/hold"

  @own-cluster @upstream(TestGCOrphaned/quarantine-not-finished)
  Scenario: Within the quarantine, pods on a missing node stay
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Pod named "a" in phase Failed on node "kubegc-podgc-never-2"
    When 20 seconds pass
    Then the Pods left are "a"
    When 40 seconds pass
    Then every Pod named "*" is gone

  @own-cluster @upstream(TestGCOrphaned/nodes-present-in-lister)
  Scenario: Pods on nodes that exist are never orphaned
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Node named "kubegc-podgc-existing-1"
    And a Node named "kubegc-podgc-existing-2" that is not Ready
    And a Pod named "a" in phase Running on node "kubegc-podgc-existing-1"
    And a Pod named "b" in phase Failed on node "kubegc-podgc-existing-2"
    And a Pod named "c" in phase Succeeded on node "kubegc-podgc-existing-2"
    And a Pod named "gone" in phase Failed on node "kubegc-podgc-never-3"
    When 80 seconds pass
    Then the Pods left are "a, b, c"

  @own-cluster @upstream(TestGCOrphaned/wrong-nodes) @upstream(TestGCOrphaned/some-nodes-missing)
  Scenario: Only the pods of the missing node go
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Node named "kubegc-podgc-existing-3"
    And a Pod named "a" in phase Failed on node "kubegc-podgc-never-4"
    And a Pod named "b" in phase Failed on node "kubegc-podgc-existing-3"
    And a Pod named "c" in phase Succeeded on node "kubegc-podgc-never-4"
    And a Pod named "d" in phase Running on node "kubegc-podgc-never-4" with finalizer "example.com/hold"
    When 60 seconds pass
    Then the Pods left are "b, d"
    And Pod "d" is marked Failed with condition DisruptionTarget and reason "DeletionByPodGC"

  @own-cluster @upstream(TestGCOrphaned/node-added-to-informer-after-quarantine)
  Scenario: A node that appears during the quarantine keeps its pods
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Pod named "a" in phase Failed on node "kubegc-podgc-late"
    When 20 seconds pass
    And a Node named "kubegc-podgc-late" is created
    And 60 seconds pass
    Then the Pods left are "a"

  @own-cluster @upstream(TestGCOrphaned/node-deleted-from-client-after-quarantine) @upstream(TestGCOrphaned/node-deleted-from-informer-after-quarantine)
  Scenario: When a node is deleted, its name waits out a quarantine of its own
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Node named "kubegc-podgc-deleted"
    And a Pod named "a" in phase Failed on node "kubegc-podgc-deleted"
    When 20 seconds pass
    And Node "kubegc-podgc-deleted" is deleted
    And 20 seconds pass
    Then the Pods left are "a"
    When 40 seconds pass
    Then every Pod named "*" is gone

  @own-cluster
  @upstream(TestPodGcOrphanedPodsWithFinalizer/PodDisruptionConditions-enabled)
  @upstream(TestPodGcOrphanedPodsWithFinalizer/PodDisruptionConditions-and-PodReplacementPolicy-enabled)
  Scenario: A pending pod held by a finalizer on a deleted node is failed with a DisruptionTarget condition
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Node named "kubegc-podgc-node-held"
    And a Pod named "a" on node "kubegc-podgc-node-held" with finalizer "example.com/hold"
    When Node "kubegc-podgc-node-held" is deleted
    And 60 seconds pass
    Then Pod "a" is marked Failed with condition DisruptionTarget and reason "DeletionByPodGC"
    And Pod "a" is terminating with finalizers "example.com/hold"

  @own-cluster
  Scenario Outline: A terminal pod on a deleted node keeps its phase and gets no condition
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Node named "kubegc-podgc-terminal-<n>"
    And a Pod named "a" in phase <phase> on node "kubegc-podgc-terminal-<n>" with finalizer "example.com/hold"
    When Node "kubegc-podgc-terminal-<n>" is deleted
    And 60 seconds pass
    Then Pod "a" is terminating with finalizers "example.com/hold"
    And Pod "a" is marked <phase> without condition DisruptionTarget

    @upstream(TestPodGcOrphanedPodsWithFinalizer/PodDisruptionConditions-enabled-succeeded-pod)
    Examples: succeeded
      | n | phase     |
      | 1 | Succeeded |

    @upstream(TestPodGcOrphanedPodsWithFinalizer/PodDisruptionConditions-enabled-failed-pod)
    Examples: failed
      | n | phase  |
      | 2 | Failed |

  @own-cluster @upstream(TestGCInspectingPatchedPodBeforeDeletion/orphaned-pod-should-have-DisruptionTarget-condition-added-before-deletion)
  Scenario: The patch that fails an orphaned pod keeps its other conditions
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Pod named "a" in phase Running with condition Ready on node "kubegc-podgc-never-5" with finalizer "example.com/hold"
    When 60 seconds pass
    Then Pod "a" is marked Failed with condition DisruptionTarget and reason "DeletionByPodGC"
    And Pod "a" is marked Failed with condition Ready

  @own-cluster
  Scenario Outline: An orphaned pod whose spec repeats a key is failed all the same
    Strategic-merge patches merge lists by key, and a pod whose container repeats an
    environment variable or a port once made the collector's status patch fail (upstream
    issues 118261 and 113482); the status patch must not care.

    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Pod named "a" on node "kubegc-podgc-never-<n>" with finalizer "example.com/hold" whose container repeats <key>
    When 60 seconds pass
    Then Pod "a" is marked Failed with condition DisruptionTarget and reason "DeletionByPodGC"

    @upstream(TestPodGcForPodsWithDuplicatedFieldKeys/Orphan-pod-with-duplicated-env-vars)
    Examples: an environment variable
      | n | key                      |
      | 6 | an environment variable  |

    @upstream(TestPodGcForPodsWithDuplicatedFieldKeys/Orphan-pod-with-duplicated-ports-scenario-from-https-issues-k8s-io-113482)
    Examples: a port
      | n | key    |
      | 7 | a port |

  @own-cluster @upstream(TestGCUnscheduledTerminating/Unscheduled-pod-in-any-phase-must-be-deleted)
  Scenario: Terminating pods that were never scheduled are force-deleted, failed first
    The API server deletes an unscheduled pod at once, so only a finalizer keeps one
    terminating; the collector's patch shows on the one that was not terminal.

    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Pod named "a" in phase Failed with finalizer "example.com/hold"
    And a Pod named "b" in phase Succeeded with finalizer "example.com/hold"
    And a Pod named "c" in phase Running with finalizer "example.com/hold"
    When Pod "a" is deleted
    And Pod "b" is deleted
    And Pod "c" is deleted
    And 20 seconds pass
    Then Pod "c" is marked Failed without condition DisruptionTarget
    And Pod "a" is marked Failed
    And Pod "b" is marked Succeeded

  @own-cluster @upstream(TestGCUnscheduledTerminating/Scheduled-pod-in-any-phase-must-not-be-deleted)
  Scenario: Pods that are scheduled or not terminating are not force-deleted
    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Node named "kubegc-podgc-scheduled"
    And a Pod named "a" in phase Failed
    And a Pod named "b" in phase Succeeded on node "kubegc-podgc-scheduled"
    And a Pod named "c" in phase Running on node "kubegc-podgc-scheduled"
    When Pod "c" is deleted
    And 60 seconds pass
    Then the Pods left are "a, b, c"
    And Pod "c" is terminating with finalizers ""

  @own-cluster
  Scenario Outline: Terminating pods on a node go only when it is not Ready and has the out-of-service taint
    The rule takes the taint with any effect. With NoExecute, kube-controller-manager's
    taint-eviction controller would also evict the pod that is still running (that is eviction,
    not garbage collection), so the rows that keep a running pod use the other effects; upstream's
    unit test has NoExecute too.

    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Node named "<node>" <state>
    And a Pod named "terminating" in phase Running on node "<node>"
    And a Pod named "running" in phase Running on node "<node>"
    When Pod "terminating" is deleted
    And 20 seconds pass
    Then the Pods left are "<left>"

    @upstream(TestGCTerminating/pods-have-deletion-timestamp-set-and-the-corresponding-nodes-are-not-ready)
    Examples: not Ready, no taint: the terminating pod waits for its kubelet
      | node                  | state            | left                 |
      | kubegc-podgc-oos-none | that is not Ready | running, terminating |

    @upstream(TestGCTerminating/some-pods-have-deletion-timestamp-and-or-phase-set-and-some-of-the-corresponding-nodes-have-an-outofservice-taint-that-are-not-ready)
    Examples: the taint with any effect but NoExecute, or with a value, on a node that is not Ready
      | node                     | state                                                                   | left    |
      | kubegc-podgc-oos-sched   | that is not Ready with the out-of-service taint with effect NoSchedule       | running |
      | kubegc-podgc-oos-prefer  | that is not Ready with the out-of-service taint with effect PreferNoSchedule | running |
      | kubegc-podgc-oos-value   | that is not Ready with the out-of-service taint with effect NoSchedule and value "shutdown" | running |

    Examples: a Ready node keeps its terminating pods, tainted or not
      | node                    | state                                         | left                 |
      | kubegc-podgc-oos-ready  | that is Ready with the out-of-service taint with effect NoSchedule | running, terminating |

  @own-cluster @upstream(TestGCTerminating/pods-deleted-from-node-tainted-out-of-service)
  Scenario: Every terminating pod of an out-of-service node goes; only the running one is failed first
    (Effect NoSchedule: with NoExecute the taint-eviction controller would add a DisruptionTarget
    condition of its own to the running pod.)

    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Node named "kubegc-podgc-oos-all" that is not Ready with the out-of-service taint
    And a Pod named "running" in phase Running on node "kubegc-podgc-oos-all" with finalizer "example.com/hold"
    And a Pod named "failed" in phase Failed on node "kubegc-podgc-oos-all"
    And a Pod named "succeeded" in phase Succeeded on node "kubegc-podgc-oos-all"
    When Pod "running" is deleted
    And Pod "failed" is deleted
    And Pod "succeeded" is deleted
    And 20 seconds pass
    Then the Pods left are "running"
    And Pod "running" is marked Failed without condition DisruptionTarget

  @own-cluster
  Scenario Outline: The out-of-service taint added later releases a pod held in graceful deletion
    Upstream's integration test adds the taint with effect NoExecute, with only the pod garbage
    collector running; in a whole controller manager that effect also makes the taint-eviction
    controller add its own DisruptionTarget condition (reason DeletionByTaintManager), so here
    the taint has effect NoSchedule.

    Given a cluster of its own whose pod garbage collector keeps every terminated pod
    And a Node named "kubegc-podgc-oos-late-<n>" that is not Ready
    And a Pod named "a" on node "kubegc-podgc-oos-late-<n>" with finalizers "<finalizers>"
    When Pod "a" is deleted with options '{"gracePeriodSeconds": 300}'
    And 20 seconds pass
    Then the Pods left are "a"
    When Node "kubegc-podgc-oos-late-<n>" gets the out-of-service taint
    And 20 seconds pass
    Then <outcome>

    @upstream(TestTerminatingOnOutOfServiceNode/pod-has-phase-changed-to-Failed-when-PodDisruptionConditions-enabled)
    Examples: held by a finalizer, it is failed
      | n | finalizers       | outcome                                                     |
      | 1 | example.com/hold | Pod "a" is marked Failed without condition DisruptionTarget |

    @upstream(TestTerminatingOnOutOfServiceNode/pod-is-getting-deleted-when-no-finalizer-and-PodDisruptionConditions-enabled)
    Examples: without one, it is gone
      | n | finalizers | outcome                     |
      | 2 |            | every Pod named "*" is gone |
