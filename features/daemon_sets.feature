@nodes @own-cluster
Feature: A DaemonSet's pods, one per node
  A DaemonSet runs one pod on every Node that should run it, and what it made goes with it:
  its pods and the ControllerRevisions that hold its template's history name it as their
  controller, so the garbage collector deletes them when it is deleted.

  A Node should run the pod when the template's node selector and required node affinity
  match it and the pod tolerates its NoSchedule and NoExecute taints. Every daemon pod
  tolerates what a Node goes through while it stays a member of the cluster — `not-ready` and
  `unreachable` (NoExecute), `disk-pressure`, `memory-pressure`, `pid-pressure` and
  `unschedulable` (NoSchedule) — so a daemon pod is not evicted from a Node that goes quiet.
  A taint the pod does not tolerate keeps a new pod off the Node, but a NoSchedule one does
  not take away the pod already there. Each pod is made for one Node: its required node
  affinity names that Node alone, and the scheduler binds it there. When a Node is deleted, no
  pod is made for it any more, and the one it had goes with the pod garbage collector
  (cloud_nodes.feature).

  Sources: kubernetes pkg/controller/daemon/daemon_controller.go (`podsShouldBeOnNode`,
  `nodeShouldRunDaemonPod`, `updateDaemonSetStatus`), pkg/controller/daemon/util/
  daemonset_util.go (`AddOrUpdateDaemonPodTolerations`,
  `ReplaceDaemonSetPodNodeNameNodeAffinity`).

  Scenario: A DaemonSet runs one pod on every node, each pod made for its node
    Given a cluster of its own with 2 nodes
    And a DaemonSet named "agent"
    Then DaemonSet "agent" controls 2 Pods
    And every Pod named "agent-*" is Running and Ready on a node
    And DaemonSet "agent" has "status.desiredNumberScheduled" set to "2"
    And DaemonSet "agent" has "status.currentNumberScheduled" set to "2"
    And DaemonSet "agent" has "status.numberReady" set to "2"
    And DaemonSet "agent" controls 1 ControllerRevision
    And a Pod named "agent-*" has "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.0.matchFields.0.key" set to "metadata.name"
    And a Pod named "agent-*" has "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.0.matchFields.0.values.0" set to "node-2"
    # The tolerations every daemon pod gets, first of them the NoExecute ones a Node that
    # goes quiet is tainted with.
    And a Pod named "agent-*" has "spec.tolerations.0.key" set to "node.kubernetes.io/not-ready"
    And a Pod named "agent-*" has "spec.tolerations.0.effect" set to "NoExecute"
    And a Pod named "agent-*" has "spec.tolerations.5.key" set to "node.kubernetes.io/unschedulable"

  Scenario: A taint the pod does not tolerate keeps new daemon pods off a node, but not the one already there
    Given a cluster of its own with 2 nodes
    And a DaemonSet named "before"
    Then DaemonSet "before" controls 2 Pods
    When Node "node-2" gets the out-of-service taint
    Given a DaemonSet named "after"
    Then DaemonSet "after" controls 1 Pod
    And every Pod named "after-*" is Running and Ready on node "node-1"
    And DaemonSet "after" has "status.desiredNumberScheduled" set to "1"
    And DaemonSet "before" controls 2 Pods
    And DaemonSet "before" has "status.desiredNumberScheduled" set to "1"
    And DaemonSet "before" has "status.numberMisscheduled" set to "1"

  Scenario: A DaemonSet deleted in the background takes its pods and its revisions
    Given a cluster of its own with 2 nodes
    And a DaemonSet named "agent"
    Then DaemonSet "agent" controls 2 Pods
    When DaemonSet "agent" is deleted with propagation policy Background
    Then DaemonSet "agent" is gone
    And no Pods or ControllerRevisions are left
