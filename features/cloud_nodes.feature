@nodes @own-cluster
Feature: Nodes whose machines the cloud no longer has
  A Node object is not deleted because its kubelet went quiet: kube-controller-manager's node
  lifecycle controller only marks it. When neither the Node's status nor its Lease in
  `kube-node-lease` has been renewed for the grace period (`--node-monitor-grace-period`, 50 s),
  its Ready, MemoryPressure, DiskPressure and PIDPressure conditions become Unknown, reason
  NodeStatusUnknown, and it is tainted unreachable. The Node is deleted by a cloud's node
  lifecycle controller (run by a cloud-controller-manager, or an on-premises equivalent),
  and only once it is not Ready: it asks the cloud whether the Node's machine still exists, and
  deletes the Node, with a DeletingNode Event, when it does not; a machine that exists but is
  shut down earns the Node the NoSchedule taint `node.cloudprovider.kubernetes.io/shutdown`
  and nothing more. A Ready Node is never asked about, whatever the cloud says.

  Nothing deletes what the Node held directly. Its Lease names the Node as its owner (the
  kubelet sets that reference), so the garbage collector deletes the Lease; its pods are
  orphaned, and the pod garbage collector force-deletes pods whose node is gone once they have
  been so for its 40 s quarantine; their ReplicaSet then replaces them on a node that remains,
  while a DaemonSet, which runs one pod per Node, has one Node fewer to run on.

  On the fake the cloud is kubegc's fake cloud (`Cluster::cloud`) and a machine that is gone or
  shut down runs no node agent; on `--target upstream` the controller is the real one of
  `k8s.io/cloud-provider` (`kubegc-cloud-controller`) over a fake cloud the scenario writes,
  and the hollow node's kubelet is stopped with its machine.

  Sources: k8s.io/cloud-provider controllers/nodelifecycle/node_lifecycle_controller.go
  (`MonitorNodes`) and its tests `Test_NodesDeleted`, `Test_NodesShutdown`; kubernetes
  pkg/controller/nodelifecycle/node_lifecycle_controller.go (`tryUpdateNodeHealth`),
  pkg/kubelet/util/nodelease.go (`SetNodeOwnerFunc`), pkg/controller/podgc/gc_controller.go
  (`gcOrphaned`).

  @upstream(Test_NodesDeleted/node-ready-condition-is-unknown-node-doesn-t-exist)
  @upstream(Test_NodesDeleted/[instancev2]-node-ready-condition-is-unknown-node-doesn-t-exist)
  Scenario: A Node whose machine is gone is deleted once it is not Ready, and its Lease and pods go after it
    Given a cluster of its own with 2 nodes
    And a ReplicaSet named "spread" with 2 replicas
    And a DaemonSet named "agent"
    Then every Pod named "spread-*" is Running and Ready on a node
    And DaemonSet "agent" has "status.numberReady" set to "2"
    When the cloud no longer has the machine of Node "node-2"
    And 70 seconds pass
    Then Node "node-2" is gone
    And an event with reason "DeletingNode" was recorded for Node "node-2"
    And the Lease of Node "node-2" is gone
    When 50 seconds pass
    Then ReplicaSet "spread" has "status.readyReplicas" set to "2"
    And every Pod named "spread-*" is Running and Ready on a node
    # The DaemonSet's pod on node-2 went with the pod garbage collector; none is made for a
    # Node that is gone.
    And DaemonSet "agent" controls 1 Pod
    And DaemonSet "agent" has "status.desiredNumberScheduled" set to "1"

  @upstream(Test_NodesDeleted/node-is-ready-but-provider-said-it-is-deleted-maybe-a-bug-in-provider)
  @upstream(Test_NodesDeleted/[instancev2]-node-is-ready-but-provider-said-it-is-deleted-maybe-a-bug-in-provider)
  Scenario: A Node that is still Ready is not asked about, even when its machine is gone
    Given a cluster of its own with 2 nodes
    When the cloud no longer has the machine of Node "node-2"
    # The kubelet renewed its Lease at most 10 s ago: the Node stays Ready for the grace period.
    And 30 seconds pass
    Then Node "node-2" still exists
    And Node "node-2" has "status.conditions.3.status" set to "True"

  Scenario: A Node whose kubelet stops reporting is marked Unknown after the grace period
    Given a cluster of its own with 2 nodes
    When the cloud shuts down the machine of Node "node-2"
    And 65 seconds pass
    Then Node "node-2" has "status.conditions.3.type" set to "Ready"
    And Node "node-2" has "status.conditions.3.status" set to "Unknown"
    And Node "node-2" has "status.conditions.3.reason" set to "NodeStatusUnknown"
    And Node "node-2" has "status.conditions.3.message" set to "Kubelet stopped posting node status."
    And Node "node-2" has "status.conditions.0.status" set to "Unknown"
    And Node "node-2" has the taint "node.kubernetes.io/unreachable:NoSchedule"
    And Node "node-1" has "status.conditions.3.status" set to "True"

  @upstream(Test_NodesShutdown/node-is-not-ready-and-was-shutdown-but-exists)
  @upstream(Test_NodesShutdown/node-with-empty-spec-providerID-is-not-ready-and-was-shutdown-but-exists)
  Scenario: A Node whose machine is shut down is tainted and kept
    Given a cluster of its own with 2 nodes
    When the cloud shuts down the machine of Node "node-2"
    And 70 seconds pass
    Then Node "node-2" has the taint "node.cloudprovider.kubernetes.io/shutdown:NoSchedule"
    And Node "node-2" still exists
    And no event with reason "DeletingNode" was recorded for Node "node-2"
    And Node "node-1" has no taint "node.cloudprovider.kubernetes.io/shutdown:NoSchedule"

  @upstream(Test_NodesDeleted/node-is-not-ready-and-does-not-exist)
  @upstream(Test_NodesDeleted/[instance2]-node-is-not-ready-and-does-not-exist)
  @upstream(Test_NodesShutdown/node-is-not-ready-and-is-not-shutdown)
  Scenario: A Node that is not Ready and whose machine is gone is deleted at the controller's next look
    Given a cluster of its own with 1 node
    And a Node named "n1" that is not Ready
    When the cloud no longer has the machine of Node "n1"
    Then Node "n1" is gone
    And an event with reason "DeletingNode" was recorded for Node "n1"

  @upstream(Test_NodesDeleted/node-is-not-ready-but-still-exists)
  @upstream(Test_NodesDeleted/[instancev2]-node-is-not-ready-but-still-exists)
  @upstream(Test_NodesDeleted/node-ready-condition-is-unknown-node-exists)
  @upstream(Test_NodesDeleted/[instancev2]-node-ready-condition-is-unknown-node-exists)
  Scenario Outline: A Node that is not Ready but whose machine runs is kept as it is
    Given a cluster of its own with 1 node
    And a Node named "n1" <readiness>
    When 10 seconds pass
    Then Node "n1" still exists
    And Node "n1" has no taint "node.cloudprovider.kubernetes.io/shutdown:NoSchedule"
    And no event with reason "DeletingNode" was recorded for Node "n1"

    Examples:
      | readiness                  |
      | that is not Ready         |
      | whose readiness is Unknown |

  @upstream(Test_NodesShutdown/node-is-ready-but-provider-says-it-s-shutdown-maybe-a-bug-by-provider)
  Scenario: A Node that is still Ready is not tainted, even when its machine is shut down
    Given a cluster of its own with 2 nodes
    When the cloud shuts down the machine of Node "node-2"
    And 30 seconds pass
    Then Node "node-2" has "status.conditions.3.status" set to "True"
    And Node "node-2" has no taint "node.cloudprovider.kubernetes.io/shutdown:NoSchedule"
