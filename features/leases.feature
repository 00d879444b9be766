@leases
Feature: Leases that go when what they stand for is gone
  A kubelet keeps a Lease named after its Node in the kube-node-lease namespace, with one owner
  reference to the Node (v1, Node, its name and uid; upstream pkg/kubelet/util/nodelease.go,
  SetNodeOwnerFunc). No controller is specific to node leases: when the Node is deleted, the
  garbage collector deletes the Lease through that reference.

  kube-apiserver keeps an identity Lease in kube-system, labelled
  apiserver.kubernetes.io/identity=kube-apiserver, renewed every 10 seconds with a duration of
  an hour; so that the leases of API servers that are gone do not pile up, every kube-apiserver
  runs a collector (upstream pkg/controlplane/controller/apiserverleasegc/gc_controller.go) that
  every hour lists the kube-system leases with that label and deletes each one that has expired:
  no renewTime, no leaseDurationSeconds, or renewTime + leaseDurationSeconds in the past; it
  reads the lease again before it deletes it. Leases in other namespaces, or with another value
  of the label, are left alone. These scenarios need hours to pass (the collector looks hourly
  and its period is no flag), which only the fake's virtual clock allows: they are skipped on
  the upstream control plane. There, the real kube-apiserver's own identity lease is also in
  kube-system; it is renewed every 10 seconds, so the collector never takes it.

  @upstream(NodeLease/should-have-OwnerReferences-set)
  Scenario: A node's lease goes with the Node that owns it
    Given a Node named "kubegc-lease-node" that is Ready
    And a Lease named "kubegc-lease-node" in namespace "kube-node-lease" owned by Node "kubegc-lease-node"
    When Node "kubegc-lease-node" is deleted
    Then Lease "kubegc-lease-node" is gone

  @own-cluster @virtual-clock
  @upstream(Test_Controller/lease-expired-due-to-expired-renew-time)
  @upstream(Test_Controller/lease-expired-due-to-nil-renew-time)
  @upstream(Test_Controller/lease-expired-due-to-nil-lease-duration-seconds)
  @upstream(TestLeaseGarbageCollection/expired-apiserver-lease-should-be-garbage-collected)
  Scenario: Expired kube-apiserver identity leases go at the next hourly pass
    Given a cluster of its own
    And an identity lease named "expired" renewed now for 3600 seconds
    And an identity lease named "unrenewed" with no renew time for 3600 seconds
    And an identity lease named "endless" renewed now with no duration
    When 2 hours pass
    Then Lease "expired" is gone
    And Lease "unrenewed" is gone
    And Lease "endless" is gone

  @own-cluster @virtual-clock
  @upstream(Test_Controller/lease-not-expired)
  @upstream(TestLeaseGarbageCollection/fresh-apiserver-lease-should-not-be-garbage-collected)
  Scenario: An identity lease that has not expired stays
    Given a cluster of its own
    And an identity lease named "fresh" renewed now for 10800 seconds
    And an identity lease named "expired" renewed now for 3600 seconds
    When 2 hours pass
    Then Lease "expired" is gone
    And Lease "fresh" still exists

  @own-cluster @virtual-clock
  @upstream(Test_Controller/expired-lease-but-with-a-different-component-label)
  @upstream(TestLeaseGarbageCollection/expired-non-identity-lease-should-not-be-garbage-collected)
  @upstream(TestLeaseGarbageCollection/expired-non-system-identity-lease-should-not-be-garbage-collected)
  Scenario: Only kube-system leases labelled as kube-apiserver identities are collected
    Given a cluster of its own
    And an identity lease named "expired" renewed now for 60 seconds
    And an identity lease named "controller-manager" labelled "apiserver.kubernetes.io/identity=kube-controller-manager" renewed now for 60 seconds
    And an identity lease named "unlabelled" labelled "kubegc.io/example=yes" renewed now for 60 seconds
    And a Lease named "elsewhere" in namespace "default" labelled "apiserver.kubernetes.io/identity=kube-apiserver" renewed now for 60 seconds
    When 2 hours pass
    Then Lease "expired" is gone
    And Lease "controller-manager" still exists
    And Lease "unlabelled" still exists
    And Lease "elsewhere" still exists
