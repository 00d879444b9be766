@nodes @fake-only @own-cluster
Feature: The kubelet's garbage collection and evictions, seen through the API
  A kubelet keeps its node's disk from filling: every minute it removes dead containers beyond
  one per container (`--maximum-dead-containers-per-container`), every five minutes it removes
  unused images once the disk is 85% full, and every ten seconds its eviction manager checks
  the disk against the hard eviction thresholds (`nodefs.available<10%`,
  `imagefs.available<15%`). When one is crossed it records `EvictionThresholdMet`, reports
  `DiskPressure` — which the node lifecycle controller turns into the
  `node.kubernetes.io/disk-pressure:NoSchedule` taint — and first removes unused containers
  and images; only if the disk is still short does it evict a pod, the one using the most disk
  beyond its request, with a one-second grace period. The evicted pod ends Failed with reason
  `Evicted`, a message that says which resource ran short, and a `DisruptionTarget`
  condition; its controller makes a replacement, which the taint keeps off the node until the
  pressure has been gone for the transition period (five minutes). A cluster user sees all of
  this only through the API: node conditions, taints and `status.images`, pod phases, Events.

  On the fake the kubelet model (the `@kubelet` features) runs each node: the pods' containers
  are its runtime's, their images its image store's. Nothing really runs, so the disk fills by
  rule: each node has one filesystem of the size the scenario gives, an image takes the size
  the scenario gives it (100 MiB otherwise) from its first use, and a container's writable
  layer takes what its command writes with `fallocate -l SIZE FILE`. The hollow nodes of the
  upstream control plane have no disk to fill, hence `@fake-only`.

  Sources: kubernetes pkg/kubelet/eviction/eviction_manager.go (`synchronize`, `evictPod`),
  pkg/kubelet/images/image_gc_manager.go, pkg/kubelet/kuberuntime/kuberuntime_gc.go,
  pkg/kubelet/nodestatus/setters.go (`Images`, `DiskPressureCondition`).

  Scenario: A node lists the images of its pods, largest first
    Given a cluster of its own with 1 node whose disk holds 10Gi, where images take:
      | image  | size |
      | big:1  | 2Gi  |
    And the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: small}
      spec:
        containers: [{name: c, image: busybox, command: [sleep, infinity]}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: big}
      spec:
        containers: [{name: c, image: "big:1", command: [sleep, infinity]}]
      """
    Then every Pod named "*" is Running and Ready on a node
    And Node "node-1" has "status.images.0.names.1" set to "docker.io/library/big:1"
    And Node "node-1" has "status.images.0.sizeBytes" set to "2147483648"
    And Node "node-1" has "status.images.1.names.1" set to "docker.io/library/busybox:latest"
    And Node "node-1" has "status.capacity.ephemeral-storage" set to "10Gi"

  Scenario: A disk short of space gets it back from an unused image, without evicting anything
    Given a cluster of its own with 1 node whose disk holds 10Gi, where images take:
      | image  | size |
      | old:1  | 5Gi  |
      | new:1  | 4Gi  |
    And the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: old}
      spec:
        restartPolicy: Never
        containers: [{name: c, image: "old:1", command: ["true"]}]
      """
    Then every Pod named "old" is Succeeded on a node
    # A finished pod's dead container keeps its image in use until the pod is deleted. An
    # image is only removed two minutes (imageMinimumGCAge) after the kubelet first detected
    # it, which it does every five minutes.
    When Pod "old" is deleted
    And 8 minutes pass
    Then Node "node-1" has "status.images.0.names.1" set to "docker.io/library/old:1"
    Given the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: new}
      spec:
        containers: [{name: c, image: "new:1", command: [sleep, infinity]}]
      """
    Then every Pod named "new" is Running and Ready on a node
    # 9 GiB of 10 used: 1 GiB free is less than the 15% imagefs.available asks for.
    When 10 seconds pass
    Then an event was recorded for Node "node-1" with:
      | type    | Warning                                |
      | reason  | EvictionThresholdMet                   |
      | message | Attempting to reclaim ephemeral-storage |
    And Node "node-1" has "status.images.0.names.1" set to "docker.io/library/new:1"
    And Node "node-1" has "status.images.1" set to "unset"
    And every Pod named "new" is Running and Ready on a node
    # DiskPressure outlasts the shortage by the transition period, and so does the taint.
    And Node "node-1" has "status.conditions.1.type" set to "DiskPressure"
    And Node "node-1" has "status.conditions.1.status" set to "True"
    And Node "node-1" has "spec.taints.0.key" set to "node.kubernetes.io/disk-pressure"
    When 5 minutes pass
    Then Node "node-1" has "status.conditions.1.status" set to "False"
    And Node "node-1" has "spec.taints" set to "unset"

  Scenario: A pod that fills the disk is evicted, and the taint keeps its replacement off the node
    Given a cluster of its own with 1 node whose disk holds 10Gi
    And the objects:
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: filler}
      spec:
        replicas: 1
        selector: {matchLabels: {app: filler}}
        template:
          metadata: {labels: {app: filler}}
          spec:
            containers: [{name: c, image: busybox, command: [sh, -c, "fallocate -l 9G /data; sleep infinity"]}]
      """
    Then every Pod named "filler-*" is Running and Ready on a node
    # The eviction manager's next pass finds 924 MiB free and evicts the pod; `sleep` ignores
    # SIGTERM and is killed when the one-second grace period ends.
    When 11 seconds pass
    Then a Pod named "filler-*" has "status.reason" set to "Evicted"
    And a Pod named "filler-*" has "status.phase" set to "Failed"
    And a Pod named "filler-*" has "status.message" set to "The node was low on resource: ephemeral-storage. Threshold quantity: 1610612800, available: 924Mi. "
    And a Pod named "filler-*" has "status.conditions.5.type" set to "DisruptionTarget"
    And a Pod named "filler-*" has "status.conditions.5.reason" set to "TerminationByKubelet"
    And a Pod named "filler-*" has "status.containerStatuses.0.state.terminated.exitCode" set to "137"
    And Node "node-1" has "spec.taints.0.key" set to "node.kubernetes.io/disk-pressure"
    And a Pod named "filler-*" has "status.conditions.0.reason" set to "Unschedulable"
    # The eviction manager's next pass, at 20 s, removes the evicted pod's dead container
    # (reclaim deletes every unused container) and sees the disk recovered; the pressure is
    # reported for five minutes more, until 320 s, then the replacement runs — and fills the
    # disk again.
    When 5 minutes pass
    Then Node "node-1" has "status.conditions.1.status" set to "True"
    And a Pod named "filler-*" has "status.conditions.0.reason" set to "Unschedulable"
    When 10 seconds pass
    Then Node "node-1" has "status.conditions.1.status" set to "False"
    And a Pod named "filler-*" has "status.phase" set to "Running"

  Scenario: Dead containers beyond one per container are removed, so a crash loop does not fill the disk
    Given a cluster of its own with 1 node whose disk holds 10Gi
    And the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: crash}
      spec:
        containers: [{name: c, image: busybox, command: [sh, -c, "fallocate -l 2G /f; exit 1"]}]
      """
    # Runs start at 0, 0, 10, 30, 70, 150, 310 and 610 seconds: seven dead containers of
    # 2 GiB each would fill the disk, but each minute the kubelet keeps only the newest.
    When 11 minutes pass
    Then Pod "crash" has "status.containerStatuses.0.restartCount" set to "7"
    And Pod "crash" has "status.phase" set to "Running"
    And no event with reason "EvictionThresholdMet" was recorded for Node "node-1"
    And Node "node-1" has "status.conditions.1.status" set to "False"
