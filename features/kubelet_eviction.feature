@fake-only @kubelet @eviction
Feature: Kubelet eviction-driven reclaim
  When a disk signal crosses its eviction threshold, the kubelet reports DiskPressure and first
  tries to get space back without killing anything: it runs container GC
  (`DeleteAllUnusedContainers`, which also clears terminated pods) and image GC
  (`DeleteUnusedImages`, every unused image old enough) — which of them depends on the disks.
  It then reads the disks again: only if a threshold is still met *with its minimum reclaim
  added* does it evict a pod, one per pass, with a one-second grace period for a hard
  threshold. DiskPressure stays for the pressure transition period (5m) after the signal
  recovers, without further reclaim.

  | Disks | nodefs pressure | imagefs pressure |
  |---|---|---|
  | one filesystem | containers, then images | containers, then images |
  | a dedicated image filesystem | nothing (evict at once) | containers, then images |
  | image filesystem split from the container filesystem | containers only | images only |

  Containers go before images because an exited container keeps its image in use. Image GC
  under pressure still honours the minimum image age, so a just-pulled image cannot be
  reclaimed. The image GC thresholds play no part: even a kubelet whose image GC loop is off
  (high threshold 100%) deletes images under disk pressure.

  The model mirrors Kubernetes v1.37 (`pkg/kubelet/eviction`, `TestNodeReclaimFuncs`). In the
  upstream test the garbage collectors are mocks that set the disk's stats; here they really
  run, so each phase pulls an unused image (or leaves a terminated pod's container) of exactly
  the size the mock would have given back. Pods are ranked: those using more disk than they
  requested first, then lower priority, then larger usage. A pod's disk usage is its
  container's writable layer, which counts only where the kubelet measures it: not for node
  filesystem pressure beside a dedicated image filesystem (logs and local volumes only), nor
  for pressure on an image filesystem split from the container filesystem (images only). The
  clock reads 10:00 when a scenario starts.

  Background:
    Given a minimum image age of 0s
    And a maximum pod grace period of 5 seconds

  @upstream(TestNodeReclaimFuncs/eviction-due-to-disk-pressure;-no-image-fs)
  Scenario: Node filesystem pressure on a single filesystem: reclaim first, evict only when reclaim falls short of the minimum reclaim
    Given a node with a single filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "nodefs.available<1Gi" with minimum reclaim "500Mi"
    And the pods on the node:
      | pod                      | priority | disk usage |
      | low-priority-high-usage  | low      | 900Mi      |
      | below-requests           | default  | 50Mi       |
      | above-requests           | default  | 400Mi      |
      | high-priority-high-usage | high     | 400Mi      |
      | low-priority-low-usage   | low      | 100Mi      |
    When the eviction manager synchronizes
    Then the node does not report DiskPressure
    # Pressure that reclaim fully relieves: no pod is evicted.
    When 1m passes
    And the runtime pulls an image "cache-1" of 15634Mi
    And the node filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And the eviction manager reclaimed with container GC, then image GC
    And no pod is evicted
    And the node filesystem has 16 GiB available
    # The pressure is long gone.
    When 20m passes
    And the eviction manager synchronizes
    Then the node does not report DiskPressure
    # Reclaim gets above the threshold but not above threshold + minimum reclaim: one pod goes.
    When 1m passes
    And the runtime pulls an image "cache-2" of 313568000 bytes
    And the node filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And the eviction manager reclaimed with container GC, then image GC
    And the node filesystem has 1.1G available
    And pod "low-priority-high-usage" is evicted with a grace period of 1 second
    # Reclaim that finds nothing: the lowest-priority, highest-usage pod goes.
    When pod "low-priority-high-usage" is recreated
    And 20m passes
    And the node filesystem recovers to 16 GiB available
    And the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the node filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the eviction manager reclaimed with container GC, then image GC
    And pod "low-priority-high-usage" is evicted with a grace period of 1 second
    # Recovered a minute later: DiskPressure stays for the transition period, nothing runs.
    When 1m passes
    And the node filesystem recovers to 16 GiB available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And no node-level reclaim ran
    And no pod is evicted

  @upstream(TestNodeReclaimFuncs/eviction-due-to-image-disk-pressure;-image-fs)
  Scenario: Image filesystem pressure on a dedicated image filesystem reclaims containers, then images
    Given a node with a dedicated image filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the image filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "imagefs.available<1Gi" with minimum reclaim "500Mi"
    And the pods on the node:
      | pod                      | priority | disk usage |
      | low-priority-high-usage  | low      | 900Mi      |
      | below-requests           | default  | 50Mi       |
      | above-requests           | default  | 400Mi      |
      | high-priority-high-usage | high     | 400Mi      |
      | low-priority-low-usage   | low      | 100Mi      |
    When the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the runtime pulls an image "cache-1" of 15634Mi
    And the image filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And the eviction manager reclaimed with container GC, then image GC
    And no pod is evicted
    And the image filesystem has 16 GiB available
    When 20m passes
    And the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the runtime pulls an image "cache-2" of 313568000 bytes
    And the image filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And the eviction manager reclaimed with container GC, then image GC
    And pod "low-priority-high-usage" is evicted with a grace period of 1 second
    When pod "low-priority-high-usage" is recreated
    And 20m passes
    And the image filesystem recovers to 16 GiB available
    And the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the image filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the eviction manager reclaimed with container GC, then image GC
    And pod "low-priority-high-usage" is evicted with a grace period of 1 second
    When 1m passes
    And the image filesystem recovers to 16 GiB available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And no node-level reclaim ran
    And no pod is evicted

  @upstream(TestNodeReclaimFuncs/eviction-due-to-container-disk-pressure;-container-fs)
  Scenario: With the image filesystem split off, node filesystem pressure reclaims containers only
    Given a node with an image filesystem split from its container filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the image filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "nodefs.available<1Gi" with minimum reclaim "500Mi"
    And the pods on the node:
      | pod                      | priority | disk usage |
      | low-priority-high-usage  | low      | 900Mi      |
      | below-requests           | default  | 50Mi       |
      | above-requests           | default  | 400Mi      |
      | high-priority-high-usage | high     | 400Mi      |
      | low-priority-low-usage   | low      | 100Mi      |
    When the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the runtime has containers:
      | id    | pod     | container | state  | size    |
      | job-1 | batch-1 | app       | exited | 15634Mi |
    And pod "batch-1" has terminated
    And the node filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And the eviction manager reclaimed with container GC only
    And no pod is evicted
    And the node filesystem has 16 GiB available
    When 20m passes
    And the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the runtime has containers:
      | id    | pod     | container | state  | size            |
      | job-2 | batch-2 | app       | exited | 313568000 bytes |
    And pod "batch-2" has terminated
    And the node filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And the eviction manager reclaimed with container GC only
    And pod "low-priority-high-usage" is evicted with a grace period of 1 second
    When pod "low-priority-high-usage" is recreated
    And 20m passes
    And the node filesystem recovers to 16 GiB available
    And the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the node filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the eviction manager reclaimed with container GC only
    And pod "low-priority-high-usage" is evicted with a grace period of 1 second
    When 1m passes
    And the node filesystem recovers to 16 GiB available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And no node-level reclaim ran
    And no pod is evicted

  @upstream(TestNodeReclaimFuncs/eviction-due-to-image-disk-pressure;-container-fs)
  Scenario: With the image filesystem split off, image filesystem pressure reclaims images only
    Given a node with an image filesystem split from its container filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the image filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "imagefs.available<1Gi" with minimum reclaim "500Mi"
    And the pods on the node:
      | pod                      | priority | disk usage |
      | low-priority-high-usage  | low      | 900Mi      |
      | below-requests           | default  | 50Mi       |
      | above-requests           | default  | 400Mi      |
      | high-priority-high-usage | high     | 400Mi      |
      | low-priority-low-usage   | low      | 100Mi      |
    When the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the runtime pulls an image "cache-1" of 15634Mi
    And the image filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And the eviction manager reclaimed with image GC only
    And no pod is evicted
    And the image filesystem has 16 GiB available
    When 20m passes
    And the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the runtime pulls an image "cache-2" of 313568000 bytes
    And the image filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And the eviction manager reclaimed with image GC only
    And pod "low-priority-high-usage" is evicted with a grace period of 1 second
    When pod "low-priority-high-usage" is recreated
    And 20m passes
    And the image filesystem recovers to 16 GiB available
    And the eviction manager synchronizes
    Then the node does not report DiskPressure
    When 1m passes
    And the image filesystem drops to 750Mi available
    And the eviction manager synchronizes
    Then the eviction manager reclaimed with image GC only
    And pod "low-priority-high-usage" is evicted with a grace period of 1 second
    When 1m passes
    And the image filesystem recovers to 16 GiB available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And no node-level reclaim ran
    And no pod is evicted

  Scenario: With a dedicated image filesystem, node filesystem pressure reclaims nothing and evicts at once
    Given a node with a dedicated image filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "nodefs.available<1Gi" with minimum reclaim "500Mi"
    And the runtime has an image "old" of 4 GiB
    And images were detected at 09:00
    And the pods on the node:
      | pod      | priority | disk usage |
      | logger   | low      | 2Gi        |
    When the node filesystem drops to 500Mi available
    And the eviction manager synchronizes
    Then the node reports DiskPressure
    And no node-level reclaim ran
    And pod "logger" is evicted with a grace period of 1 second
    And the runtime has images "old"

  # When two thresholds are met at once, which of them drives the pass is Go's map order
  # (thresholdsMetGracePeriod ranges over thresholdsObservedAt, pkg/kubelet/eviction/helpers.go):
  # here node filesystem pressure would evict at once, and image filesystem pressure would first
  # reclaim, in vain, with nothing to reclaim. Either way one pod goes, the same one.
  Scenario: Two thresholds met at once: either may drive the pass, and one pod goes
    Given a node with a dedicated image filesystem
    And the node filesystem is 20 GiB with 500Mi available
    And the image filesystem is 20 GiB with 500Mi available
    And the eviction hard threshold "nodefs.available<1Gi"
    And the eviction hard threshold "imagefs.available<1Gi"
    And the pods on the node:
      | pod      | priority | disk usage |
      | database | high     | 5Gi        |
      | batch    | low      | 100Mi      |
    When the eviction manager synchronizes
    Then the node reports DiskPressure
    And pod "batch" is evicted with a grace period of 1 second

  # A pass acts only on thresholds whose stats are newer than the last pass's
  # (thresholdsUpdatedStats, pkg/kubelet/eviction/helpers.go). A kubelet's passes are ten
  # seconds apart and its stats move on between them; two passes at one instant read the same
  # stats, so the second keeps the node's conditions but neither reclaims nor evicts.
  Scenario: A second pass on the same stats neither reclaims nor evicts
    Given a node with a dedicated image filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "nodefs.available<1Gi"
    And the pods on the node:
      | pod    | priority | disk usage |
      | logger | low      | 2Gi        |
      | batch  | low      | 1Gi        |
    When the node filesystem drops to 500Mi available
    And the eviction manager synchronizes
    Then pod "logger" is evicted with a grace period of 1 second
    When the eviction manager synchronizes
    Then the node reports DiskPressure
    And no pod is evicted
    When 10s passes
    And the eviction manager synchronizes
    Then pod "batch" is evicted with a grace period of 1 second

  # The kubelet holds a percentage threshold in single precision (ParsePercentage,
  # pkg/kubelet/eviction/helpers.go): 38% is 0.37999999523, so 38% of 1000 bytes is 379 bytes.
  Scenario: A percentage threshold is taken in single precision: 38% of 1000 bytes is 379 bytes
    Given a node with a single filesystem
    And the node filesystem is 1000 bytes with 379 bytes available
    And the eviction hard threshold "nodefs.available<38%"
    When the eviction manager synchronizes
    Then the node does not report DiskPressure
    When the node filesystem drops to 378 bytes available
    And 10s passes
    And the eviction manager synchronizes
    Then the node reports DiskPressure

  Scenario: Containers are reclaimed before images, so a terminated pod's image can go too
    Given a node with a single filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "nodefs.available<1Gi" with minimum reclaim "500Mi"
    And the runtime has images:
      | image       | size  |
      | batch-image | 4 GiB |
    And the runtime has containers:
      | id  | pod   | container | image       | state  |
      | job | batch | main      | batch-image | exited |
    And pod "batch" has terminated
    And the pods on the node:
      | pod | priority | disk usage |
      | web | low      | 1Gi        |
    When the node filesystem drops to 500Mi available
    And the eviction manager synchronizes
    Then the eviction manager reclaimed with container GC, then image GC
    And no containers remain
    And the runtime has no images
    And no pod is evicted

  Scenario: Under pressure, image GC still honours the minimum image age: a just-pulled image cannot be reclaimed
    Given a minimum image age of 2m
    And a node with a single filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "nodefs.available<1Gi" with minimum reclaim "500Mi"
    And the pods on the node:
      | pod | priority | disk usage |
      | web | low      | 1Gi        |
    When the runtime pulls an image "fresh" of 4 GiB
    And the node filesystem drops to 500Mi available
    And the eviction manager synchronizes
    Then the eviction manager reclaimed with container GC, then image GC
    And the runtime has images "fresh"
    And pod "web" is evicted with a grace period of 1 second

  Scenario: Under pressure, images are deleted even when the image GC loop is off (high threshold 100%)
    Given image GC thresholds high 100% low 80%
    And a minimum image age of 2m
    And a node with a single filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "nodefs.available<1Gi" with minimum reclaim "500Mi"
    And the runtime has an image "old" of 4 GiB
    And the pods on the node:
      | pod | priority | disk usage |
      | web | low      | 1Gi        |
    When the kubelet runs until 10:10
    Then image garbage collection is not running
    And the runtime has images "old"
    When the node filesystem drops to 500Mi available
    And the eviction manager synchronizes
    Then the runtime has no images
    And no pod is evicted

  Scenario: A lower-priority pod is evicted before a higher-priority one using more disk
    Given a node with a single filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "nodefs.available<1Gi"
    And the pods on the node:
      | pod      | priority | disk usage |
      | database | high     | 5Gi        |
      | batch    | low      | 100Mi      |
    When the node filesystem drops to 500Mi available
    And the eviction manager synchronizes
    Then pod "batch" is evicted with a grace period of 1 second

  # Node filesystem pressure beside a dedicated image filesystem ranks pods by their logs and
  # local volumes (buildSignalToRankFunc in pkg/kubelet/eviction/helpers.go); the writable
  # layers live on the image filesystem. Equal pods keep the order the kubelet lists them in.
  Scenario: Beside a dedicated image filesystem, node filesystem pressure ranks pods without their writable layers
    Given a node with a dedicated image filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "nodefs.available<1Gi"
    And the pods on the node:
      | pod    | priority | disk usage |
      | idle   | low      | 100Mi      |
      | writer | low      | 5Gi        |
    When the node filesystem drops to 500Mi available
    And the eviction manager synchronizes
    Then pod "idle" is evicted with a grace period of 1 second

  # Pressure on an image filesystem split from the container filesystem ranks pods by the
  # images they use (buildSignalToRankFunc), which containerUsage in helpers.go never counts:
  # every pod weighs nothing, and priority alone decides.
  Scenario: On a split image filesystem, image filesystem pressure ranks pods by priority alone
    Given a node with an image filesystem split from its container filesystem
    And the node filesystem is 20 GiB with 16 GiB available
    And the image filesystem is 20 GiB with 16 GiB available
    And the eviction hard threshold "imagefs.available<1Gi"
    And the pods on the node:
      | pod    | priority | disk usage |
      | idle   | low      | 100Mi      |
      | writer | low      | 5Gi        |
    When the image filesystem drops to 500Mi available
    And the eviction manager synchronizes
    Then the eviction manager reclaimed with image GC only
    And pod "idle" is evicted with a grace period of 1 second

  # Since v1.37 the defaults include imagefs.inodesFree (DefaultEvictionHard in
  # pkg/kubelet/eviction/defaults_linux.go); the kubelet fills them in when it loads its
  # configuration file (loadConfigFile in cmd/kubelet/app/server.go).
  Scenario: The default hard eviction thresholds on Linux
    Then the eviction hard thresholds in force are "memory.available<100Mi, nodefs.available<10%, nodefs.inodesFree<5%, imagefs.available<15%, imagefs.inodesFree<5%"

  Scenario: Setting evictionHard replaces the defaults: signals not set are not defaulted
    Given the kubelet's evictionHard sets "imagefs.available<10%"
    Then the eviction hard thresholds in force are "imagefs.available<10%"

  Scenario: With mergeDefaultEvictionSettings, signals not set keep their defaults
    Given the kubelet's evictionHard sets "imagefs.available<10%" with mergeDefaultEvictionSettings
    Then the eviction hard thresholds in force are "memory.available<100Mi, nodefs.available<10%, nodefs.inodesFree<5%, imagefs.available<10%, imagefs.inodesFree<5%"

  Scenario: Which reclaim functions a disk signal runs depends on the layout
    Then the reclaim functions are:
      | signal                | layout                       | functions                   |
      | nodefs.available      | a single filesystem          | container GC, then image GC |
      | nodefs.inodesFree     | a single filesystem          | container GC, then image GC |
      | imagefs.available     | a single filesystem          | container GC, then image GC |
      | imagefs.inodesFree    | a single filesystem          | container GC, then image GC |
      | containerfs.available | a single filesystem          | container GC, then image GC |
      | nodefs.available      | a dedicated image filesystem | nothing                     |
      | nodefs.inodesFree     | a dedicated image filesystem | nothing                     |
      | imagefs.available     | a dedicated image filesystem | container GC, then image GC |
      | imagefs.inodesFree    | a dedicated image filesystem | container GC, then image GC |
      | containerfs.available | a dedicated image filesystem | container GC, then image GC |
      | nodefs.available      | a split image filesystem     | container GC only           |
      | nodefs.inodesFree     | a split image filesystem     | container GC only           |
      | imagefs.available     | a split image filesystem     | image GC only               |
      | imagefs.inodesFree    | a split image filesystem     | image GC only               |
      | containerfs.available | a split image filesystem     | container GC only           |
