@fake-only @kubelet @image-gc
Feature: Kubelet image garbage collection
  Every node cleans up its own images; no controller does it for it. The kubelet remembers, for
  each image, when it first saw it and when a container last used it. Every five minutes it
  deletes images nobody has used for longer than the maximum age (if one is set), then reads
  the image filesystem: if its usage is at or above the high threshold, it deletes unused
  images — least recently used first — until usage would be back at the low threshold.

  What surprises people:
  - An exited container keeps its image in use. Only when container garbage collection has
    removed the container can its image go.
  - Usage is `100 − ⌊available·100 / capacity⌋`: 84.9% used counts as 85%.
  - The minimum age protects an image for a while after *this kubelet* first saw it — not after
    it was pulled. A restarted kubelet protects every image again.
  - The maximum age ignores the minimum age: an image never used is deleted at the first pass
    after the wait, however recently it was pulled.
  - A high threshold of 100% disables image GC only when there is no maximum age.
  - "Freed" is the sum of the sizes the runtime reports, shared layers counted in every image.

  The model mirrors Kubernetes v1.37 (`pkg/kubelet/images/image_gc_manager.go` and its tests)
  and is judged against that code with `kubegc run --kubelet upstream`. Unless a scenario says
  otherwise the node has one 100 GiB filesystem, empty, the kubelet's defaults apply (high 85%,
  low 80%, minimum age 2m, no maximum age), and the clock reads 10:00 when the scenario starts,
  which is when the kubelet started. Time is virtual: "1m passes" moves the clock; nothing
  sleeps. "Image garbage collection runs" is one pass of the image manager's GarbageCollect, as
  the kubelet's loop calls it. Once "the kubelet runs", its loops (detection and image GC every
  five minutes, container GC every minute, each first at the kubelet's start) run whenever the
  clock moves, and only they record ImageGCFailed and ContainerGCFailed. "The zero time" is Go's zero time, the
  `lastUsed` of an image never used ("never"). Steps naming the image manager's internals
  (detection at a time, freeing bytes at a time) mirror upstream's unit tests; containers
  whose state is not given have exited, as upstream's test containers are not running.

  Rule: Detection records every image the runtime lists and when a container last used it

    @upstream(TestDetectImagesInitialDetect)
    Scenario: The first detection records every image, and the ones in use as used now
      Given the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
        | image-2 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-1 | foo | image-1 |
        | container-2 | foo | image-2 |
      When images are detected at the zero time
      Then the image records are:
        | record  | first detected | last used |
        | image-0 | the zero time  | never     |
        | image-1 | the zero time  | 10:00     |
        | image-2 | the zero time  | 10:00     |

    @upstream(TestDetectImagesInitialDetectWithRuntimeHandlerInImageCriAPIFeatureGate)
    Scenario: With RuntimeClassInImageCriAPI, images pulled for a runtime handler are recorded per handler
      Given the feature gate RuntimeClassInImageCriAPI is enabled
      And the runtime has images:
        | image   | size | runtime handler     |
        | image-0 | 1024 | test-runtimeHandler |
        | image-1 | 2048 | test-runtimeHandler |
        | image-2 | 2048 |                     |
      And the runtime has containers:
        | id          | pod | image   | runtime handler     |
        | container-1 | foo | image-1 | test-runtimeHandler |
        | container-2 | foo | image-2 |                     |
      When images are detected at the zero time
      Then the image records are:
        | record                      | first detected | last used | runtime handler     |
        | image-0,test-runtimeHandler | the zero time  | never     | test-runtimeHandler |
        | image-1,test-runtimeHandler | the zero time  | 10:00     | test-runtimeHandler |
        | image-2                     | the zero time  | 10:00     |                     |

    @upstream(TestDetectImagesWithNewImage)
    Scenario: A new image is first detected at the pass that sees it; known images keep their first detection
      Given the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-1 | foo | image-1 |
      When images are detected at the zero time
      And the runtime's images become:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 1024 |
        | image-2 | 1024 |
      And images are detected at the zero time + 1s
      Then the image records are:
        | record  | first detected     | last used | size |
        | image-0 | the zero time      | never     | 1024 |
        | image-1 | the zero time      | 10:00     | 1024 |
        | image-2 | the zero time + 1s | never     | 1024 |

    @upstream(TestDetectImagesContainerStopped)
    Scenario: When the container goes, its image keeps the last time it was seen in use
      Given the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-1 | foo | image-1 |
      When images are detected at the zero time
      And container "container-1" is removed from the runtime
      And 1m passes
      And images are detected at 10:01
      Then the image records are:
        | record  | first detected | last used |
        | image-0 | the zero time  | never     |
        | image-1 | the zero time  | 10:00     |

    @upstream(TestDetectImagesWithRemovedImages)
    Scenario: Records of images the runtime no longer lists are dropped
      Given the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-1 | foo | image-1 |
      When images are detected at the zero time
      And the runtime lists no images
      And images are detected at 10:00
      Then there are no image records

    Scenario: An exited container keeps its image in use until container GC removes it
      Given a minimum image age of 0s
      And the runtime has images:
        | image | size  |
        | app   | 1 GiB |
      And the runtime has containers:
        | id    | pod | image | state  | created |
        | web-1 | web | app   | exited | 09:00   |
      When unused images are deleted
      Then no image is removed
      When 1m passes
      And pod "web" has been deleted
      And container garbage collection runs
      And unused images are deleted
      Then image app is removed and 1 GiB is freed

    Scenario: A restarted kubelet forgets what it knew, so the minimum age protects every image again
      Given the runtime has an image "old" of 1 GiB
      And images were detected at 08:00
      When the kubelet restarts
      And unused images are deleted
      Then no image is removed
      When 2m passes
      And unused images are deleted
      Then image old is removed

    Scenario: A container that lives between two detection passes never marks its image as used
      Given a minimum image age of 0s
      And the runtime has images:
        | image | size  |
        | a     | 1 GiB |
        | b     | 1 GiB |
      When the kubelet runs until 10:01
      And the runtime starts containers:
        | id  | pod   | image | state   |
        | job | batch | b     | running |
      And the kubelet runs until 10:03
      And container "job" is removed from the runtime
      And the kubelet runs until 10:05
      Then the image records are:
        | record | first detected | last used |
        | a      | 10:00          | never     |
        | b      | 10:00          | never     |

  Rule: Space is freed least recently used first, skipping images in use, pinned, or too young

    Background:
      Given a minimum image age of 0s

    @upstream(TestDoNotDeletePinnedImage)
    Scenario: A pinned image is never freed
      Given the runtime has images:
        | image | size | pinned |
        | 1     | 1024 | yes    |
        | 2     | 1024 | no     |
      When the image manager frees 4096 bytes at 10:00
      Then freeing space succeeds
      And 1024 bytes are freed
      And the runtime has images "1"

    @upstream(TestDeleteUnPinnedImage)
    Scenario: Unpinned images are freed until enough is freed
      Given the runtime has images:
        | image | size | pinned |
        | 1     | 1024 | no     |
        | 2     | 1024 | no     |
      When the image manager frees 2048 bytes at 10:00
      Then 2048 bytes are freed
      And the runtime has no images

    @upstream(TestAllPinnedImages)
    Scenario: When every image is pinned nothing is freed, and that is not an error
      Given the runtime has images:
        | image | size | pinned |
        | 1     | 1024 | yes    |
        | 2     | 1024 | yes    |
      When the image manager frees 2048 bytes at 10:00
      Then freeing space succeeds
      And 0 bytes are freed
      And the runtime has images "1, 2"

    @upstream(TestFreeSpaceImagesInUseContainersAreIgnored)
    Scenario: An image in use is never freed, even when less than asked is freed
      Given the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-1 | foo | image-1 |
      When the image manager frees 2048 bytes at 10:00
      Then freeing space succeeds
      And 1024 bytes are freed
      And the runtime has images "image-1"

    @upstream(TestFreeSpaceRemoveByLeastRecentlyUsed)
    Scenario: The least recently used image goes first
      Given the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-0 | foo | image-0 |
        | container-1 | foo | image-1 |
      When images are detected at the zero time
      And container "container-0" is removed from the runtime
      And 1s passes
      And images are detected at 10:00:01
      And container "container-1" is removed from the runtime
      And images are detected at 10:00:01
      And the image manager frees 1024 bytes at 10:01:01
      Then 1024 bytes are freed
      And the runtime has images "image-1"

    @upstream(TestFreeSpaceTiesBrokenByDetectedTime)
    Scenario: An image never used goes before any image that was used
      Given the runtime has images:
        | image   | size |
        | image-0 | 1024 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-0 | foo | image-0 |
      When images are detected at the zero time
      And the runtime's images become:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
      And images are detected at 10:00
      And container "container-0" is removed from the runtime
      And images are detected at 10:00
      And the image manager frees 1024 bytes at 10:00
      Then 2048 bytes are freed
      And the runtime has images "image-0"

    @upstream(TestGarbageCollectImageNotOldEnough)
    Scenario: An image first detected less than the minimum age ago is not freed; exactly the minimum age is enough
      Given a minimum image age of 1m
      And the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-1 | foo | image-1 |
      When images are detected at 10:00
      And the image manager frees 1024 bytes at 10:00
      Then 0 bytes are freed
      And the runtime has images "image-0, image-1"
      When 1m passes
      And the image manager frees 1024 bytes at 10:01
      Then 1024 bytes are freed
      And the runtime has images "image-1"

    Scenario: Among images used equally long ago, the one detected first goes first
      Given the runtime has an image "old-a" of 1 GiB
      And images were detected at 09:00
      And the runtime has an image "new-b" of 1 GiB
      And images were detected at 09:30
      When the image manager frees 1 GiB at 10:00
      Then only image old-a is removed and 1 GiB is freed

    Scenario: Images tied on last use and first detection go in no defined order
      # Upstream gathers the candidates by ranging over its map of image records
      # (imagesInEvictionOrder, pkg/kubelet/images/image_gc_manager.go) and sorts them by last
      # use, then first detection, and by nothing else: images first detected in the same pass
      # and never used are tied, and Go's map order, different from pass to pass, picks between
      # them. Either may go; an image detected later never goes first.
      Given the runtime has an image "tied-a" of 1 GiB
      And the runtime has an image "tied-b" of 1 GiB
      And images were detected at 09:00
      And the runtime has an image "newer" of 1 GiB
      And images were detected at 09:30
      When the image manager frees 1 GiB at 10:00
      Then one of the images "tied-a, tied-b" is removed and 1 GiB is freed

    Scenario: An image seen in use at the pass's own instant is skipped as used too recently
      Given the runtime has images:
        | image | size  |
        | a     | 1 GiB |
      And the runtime has containers:
        | id | pod | image |
        | c  | foo | a     |
      When images are detected at 10:00
      And container "c" is removed from the runtime
      And the image manager frees 1 GiB at 10:00
      Then 0 bytes are freed
      And no image is removed

  Rule: Unused images can be deleted all at once (the eviction manager does), minimum age still applying

    Background:
      Given a minimum image age of 0s

    @upstream(TestDeleteUnusedImagesExemptSandboxImage)
    Scenario: The pinned sandbox image survives deleting every unused image
      Given the runtime has images:
        | image                              | size | pinned |
        | registry.k8s.io/pause-amd64:latest | 1024 | yes    |
      When unused images are deleted
      Then deleting unused images succeeds
      And the runtime has images "registry.k8s.io/pause-amd64:latest"

    @upstream(TestDeletePinnedImage)
    Scenario: Duplicate entries of one image collapse into one record; the last entry's pin wins
      Given the runtime has images:
        | image                              | size | pinned |
        | registry.k8s.io/pause-amd64:latest | 1024 | yes    |
        | registry.k8s.io/pause-amd64:latest | 1024 | no     |
      When unused images are deleted
      Then deleting unused images succeeds
      And the runtime lists 1 image

    @upstream(TestDeleteUnusedImagesRemoveAllUnusedImages)
    Scenario: Every unused image is deleted, whatever the disk usage
      Given the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
        | image-2 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-2 | foo | image-2 |
      When unused images are deleted
      Then deleting unused images succeeds
      And the runtime has images "image-2"

    @upstream(TestDeleteUnusedImagesLimitByImageLiveTime)
    Scenario: Deleting unused images still waits for the minimum age
      Given a minimum image age of 3s
      And the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
        | image-2 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-2 | foo | image-2 |
      When the image manager starts
      And unused images are deleted
      Then the runtime has images "image-0, image-1, image-2"
      When 3s passes
      And unused images are deleted
      Then the runtime has images "image-2"

    Scenario: Deleting unused images ignores the thresholds and the maximum age
      Given a minimum image age of 2m
      And a maximum image age of 1h
      And a node whose image filesystem is 100 GiB with 10 GiB used
      And the runtime has images:
        | image | size  |
        | a     | 1 GiB |
        | b     | 1 GiB |
      And images were detected at 10:00
      When unused images are deleted at 10:02
      Then images a and b are removed and 2 GiB is freed

  Rule: At or above the high threshold, image GC frees down to the low threshold

    @upstream(TestGarbageCollectBelowLowThreshold)
    Scenario: Below the high threshold nothing is deleted
      Given image GC thresholds high 90% low 80%
      And a minimum image age of 0s
      And a node whose image filesystem is 1000 bytes with 600 bytes available
      And the runtime has an image "image-0" of 450 bytes
      When image garbage collection runs
      Then image garbage collection succeeds
      And no image is removed

    @upstream(TestGarbageCollectCadvisorFailure)
    Scenario: When the image filesystem's stats cannot be read, image GC fails
      Given image GC thresholds high 90% low 80%
      And the image filesystem stats cannot be read
      When image garbage collection runs
      Then image garbage collection fails with "failed to get imageFs stats: unable to find data in memory cache"

    @upstream(TestGarbageCollectBelowSuccess)
    Scenario: Above the high threshold, unused images are deleted until usage is back at the low threshold
      Given image GC thresholds high 90% low 80%
      And a minimum image age of 0s
      And a node whose image filesystem is 1000 bytes with 50 bytes available
      And the runtime has an image "image-0" of 450 bytes
      When image garbage collection runs
      Then image garbage collection succeeds
      And image image-0 is removed and 450 bytes are freed

    @upstream(TestGarbageCollectNotEnoughFreed)
    Scenario: Freeing less than needed fails with FreeDiskSpaceFailed
      Given image GC thresholds high 90% low 80%
      And a minimum image age of 0s
      And a node whose image filesystem is 1000 bytes with 50 bytes available
      And the runtime has an image "image-0" of 50 bytes
      When image garbage collection runs
      Then image garbage collection fails with "Insufficient free disk space on the node's image filesystem (95% of 1000 B used). Failed to free sufficient space by deleting unused images (freed 50 bytes). Investigate disk usage, as it could be used by active images, logs, volumes, or other data."
      And a Warning event FreeDiskSpaceFailed is recorded on the node with message "Insufficient free disk space on the node's image filesystem (95% of 1000 B used). Failed to free sufficient space by deleting unused images (freed 50 bytes). Investigate disk usage, as it could be used by active images, logs, volumes, or other data."
      And image image-0 is removed

    Scenario: The issue's example — 90% used, thresholds 85/80: the least recently used images go until 10 GiB is freed
      Given a node whose image filesystem is 100 GiB with 90 GiB used
      And image GC thresholds high 85% low 80%
      And the runtime has images:
        | image | size  |
        | a     | 4 GiB |
        | b     | 8 GiB |
        | c     | 6 GiB |
      And the runtime has containers:
        | id  | pod | image |
        | c-a | one | a     |
        | c-b | two | b     |
        | c-c | six | c     |
      When images are detected at 10:00
      And container "c-a" is removed from the runtime
      And 1m passes
      And images are detected at 10:01
      And container "c-b" is removed from the runtime
      And 1m passes
      And images are detected at 10:02
      And container "c-c" is removed from the runtime
      When image garbage collection runs at 10:05
      Then images a and b are removed and 12 GiB is freed
      And image garbage collection succeeds
      And the image filesystem has 22 GiB available

    Scenario: Between the low and the high threshold nothing is deleted (hysteresis)
      Given a node whose image filesystem is 100 GiB with 82 GiB used
      And image GC thresholds high 85% low 80%
      And the runtime has an image "a" of 5 GiB
      And images were detected at 09:00
      When image garbage collection runs
      Then image garbage collection succeeds
      And no image is removed

    Scenario: Usage truncates the free percentage — 84.9% used counts as 85%
      Given a node whose image filesystem is 1000 bytes with 151 bytes available
      And image GC thresholds high 85% low 80%
      And a minimum image age of 0s
      And the runtime has an image "a" of 100 bytes
      When image garbage collection runs
      Then image a is removed and 100 bytes are freed
      And image garbage collection succeeds

    Scenario: With nothing left to free, image GC still deletes the first eligible image
      Given a node whose image filesystem is 1010 bytes with 161 bytes available
      And image GC thresholds high 85% low 84%
      And a minimum image age of 0s
      And the runtime has an image "a" of 10 bytes
      And images were detected at 10:00
      And the runtime has an image "b" of 10 bytes
      When image garbage collection runs at 10:05
      Then only image a is removed
      And image garbage collection succeeds

    Scenario: A high threshold of 0% frees down to the low threshold on every pass
      Given a node whose image filesystem is 1000 bytes with 900 bytes available
      And image GC thresholds high 0% low 0%
      And a minimum image age of 0s
      And the runtime has an image "a" of 60 bytes
      And images were detected at 09:00
      And the runtime has an image "b" of 60 bytes
      And images were detected at 09:01
      And the runtime has an image "c" of 60 bytes
      When image garbage collection runs
      Then images a and b are removed and 120 bytes are freed

    # The message (GarbageCollect in pkg/kubelet/images/image_gc_manager.go) gives the usage
    # before the pass and the capacity as formatSize writes it, not the bytes it had to free.
    Scenario: Not enough to free — what was deleted stays deleted, and FreeDiskSpaceFailed says how full the disk is and what was freed
      Given a node whose image filesystem is 100 GiB with 90 GiB used
      And the runtime has images:
        | image | size   |
        | a     | 3 GiB  |
        | b     | 20 GiB |
      And the runtime has containers:
        | id  | pod | image |
        | c-b | foo | b     |
      And images were detected at 10:00
      When image garbage collection runs at 10:05
      Then image a is removed and 3 GiB is freed
      And image garbage collection fails with "Insufficient free disk space on the node's image filesystem (90% of 100.0 GiB used). Failed to free sufficient space by deleting unused images (freed 3221225472 bytes). Investigate disk usage, as it could be used by active images, logs, volumes, or other data."
      And a Warning event FreeDiskSpaceFailed is recorded on the node with message "Insufficient free disk space on the node's image filesystem (90% of 100.0 GiB used). Failed to free sufficient space by deleting unused images (freed 3221225472 bytes). Investigate disk usage, as it could be used by active images, logs, volumes, or other data."
      And the post-GC hooks ran 1 time

    Scenario: A failed deletion does not stop the others; the error lists it, with no FreeDiskSpaceFailed event
      Given a node whose image filesystem is 100 GiB with 90 GiB used
      And the runtime has an image "a" of 6 GiB
      And images were detected at 09:00
      And the runtime has an image "b" of 6 GiB
      And images were detected at 09:30
      And removing image "a" fails
      When image garbage collection runs
      Then image b is removed and 6 GiB is freed
      And image garbage collection fails with "wanted to free 10737418240 bytes, but freed 6442450944 bytes space with errors in image deletion: failed to remove image "a": injected fault"
      And no FreeDiskSpaceFailed event is recorded
      And the post-GC hooks ran 0 times

    # The kubelet's image GC loop (StartGarbageCollection in pkg/kubelet/kubelet.go) records the
    # event, not the image manager: only the loop's passes count, every five minutes from the start.
    Scenario: A failure twice in a row becomes an ImageGCFailed event; a success resets the count
      Given the image filesystem stats cannot be read
      When the kubelet runs until 10:04
      Then no ImageGCFailed event is recorded
      When the kubelet runs until 10:05
      Then a Warning event ImageGCFailed is recorded on the node with message "failed to get imageFs stats: unable to find data in memory cache"
      When the image filesystem stats can be read again
      And the kubelet runs until 10:10
      And the image filesystem stats cannot be read
      And the kubelet runs until 10:15
      Then 1 ImageGCFailed event is recorded
      When the kubelet runs until 10:20
      Then 2 ImageGCFailed events are recorded

    Scenario: A filesystem reporting no capacity is an InvalidDiskCapacity warning
      Given a node whose image filesystem reports no capacity
      When image garbage collection runs
      Then image garbage collection fails with "invalid capacity 0 on image filesystem"
      And a Warning event InvalidDiskCapacity is recorded on the node with message "invalid capacity 0 on image filesystem"

    Scenario: More available than capacity counts as 0% used
      Given a node whose image filesystem is 1000 bytes with 1200 bytes available
      And image GC thresholds high 0% low 0%
      And a minimum image age of 0s
      And the runtime has an image "a" of 10 bytes
      When image garbage collection runs
      Then image a is removed

    Scenario: An image first seen during a pass is too young to be deleted in that pass
      Given a node whose image filesystem is 100 GiB with 90 GiB used
      And the runtime has an image "fresh" of 20 GiB
      When image garbage collection runs
      Then no image is removed
      And image garbage collection fails with "Insufficient free disk space on the node's image filesystem (90% of 100.0 GiB used). Failed to free sufficient space by deleting unused images (freed 0 bytes). Investigate disk usage, as it could be used by active images, logs, volumes, or other data."

    Scenario: Freed bytes are the images' reported sizes, even when shared layers stay on disk
      Given a node whose image filesystem is 100 GiB with 90 GiB used
      And the runtime has images:
        | image | size   | released |
        | a     | 10 GiB | 2 GiB    |
        | b     | 10 GiB |          |
      And the runtime has containers:
        | id  | pod | image | state   |
        | c-b | api | b     | running |
      And images were detected at 10:00
      When image garbage collection runs at 10:05
      Then image a is removed and 10 GiB is freed
      And image garbage collection succeeds
      And the image filesystem has 12 GiB available

  Rule: With a maximum age, images unused for longer are deleted once that age has passed since the kubelet started

    @upstream(TestGarbageCollectImageTooOld)
    Scenario: An image unused for longer than the maximum age is deleted; exactly the maximum age is not enough
      Given a minimum image age of 0s
      And a maximum image age of 1m
      And the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-0 | foo | image-0 |
        | container-1 | foo | image-1 |
      When images are detected at 10:00
      And container "container-0" is removed from the runtime
      And images unused for longer than the maximum age are freed at 10:00, the GC loop having begun at 10:00
      Then the candidates left are "image-0"
      And the runtime has images "image-0, image-1"
      When images unused for longer than the maximum age are freed at 10:01, the GC loop having begun at 09:00
      Then the candidates left are "image-0"
      When images unused for longer than the maximum age are freed at 10:01:00.000000001, the GC loop having begun at 10:00
      Then the candidates left are ""
      And the runtime has images "image-1"

    @upstream(TestGarbageCollectImageMaxAgeDisabled)
    Scenario: A maximum age of 0 disables age-based deletion, even at the end of time
      Given a minimum image age of 0s
      And a maximum image age of 0s
      And the runtime has images:
        | image   | size |
        | image-0 | 1024 |
        | image-1 | 2048 |
      And the runtime has containers:
        | id          | pod | image   |
        | container-1 | foo | image-1 |
      When images unused for longer than the maximum age are freed at 10:00, the GC loop having begun at 10:00
      Then the candidates left are "image-0"
      When images unused for longer than the maximum age are freed at the latest representable time, the GC loop having begun at 10:00
      Then the candidates left are "image-0"
      And the runtime has images "image-0, image-1"

    Scenario: No age-based deletion until more than the maximum age has passed since the kubelet started
      Given a maximum image age of 1h
      And the runtime has an image "stale" of 1 GiB
      When image garbage collection runs at 10:55
      Then no image is removed
      When image garbage collection runs at 11:00
      Then no image is removed
      When image garbage collection runs at 11:05
      Then image stale is removed
      And 1 image was collected for reason age

    Scenario: Age-based deletion happens before the filesystem is read, so it survives a stats failure
      Given a maximum image age of 1h
      And the runtime has an image "stale" of 1 GiB
      And the image filesystem stats cannot be read
      When image garbage collection runs at 11:05
      Then image stale is removed
      And image garbage collection fails with "failed to get imageFs stats: unable to find data in memory cache"

    Scenario: The maximum age ignores the minimum age — an image never used goes however recently it was pulled
      Given a maximum image age of 1h
      When the kubelet runs until 11:04
      And the runtime pulls an image "fresh" of 1 GiB
      And the kubelet runs until 11:05
      Then image fresh is removed

    Scenario: A high threshold of 100% does not disable age-based GC
      Given image GC thresholds high 100% low 80%
      And a maximum image age of 1h
      And the runtime has an image "stale" of 1 GiB
      When the kubelet runs until 11:05
      Then image garbage collection is running
      And the runtime has no images

    Scenario: At a high threshold of 100% with a maximum age, space GC still runs when less than 1% is free
      Given a node whose image filesystem is 1000 bytes with 9 bytes available
      And image GC thresholds high 100% low 80%
      And a maximum image age of 1h
      And a minimum image age of 0s
      And the runtime has an image "big" of 500 bytes
      When image garbage collection runs
      Then image big is removed
      And 1 image was collected for reason space

    Scenario: A high threshold of 100% without a maximum age disables image GC altogether
      Given a node whose image filesystem is 100 GiB with 100 GiB used
      And image GC thresholds high 100% low 80%
      And the runtime has an image "a" of 1 GiB
      And images were detected at 09:00
      When the kubelet runs until 11:00
      Then image garbage collection is not running
      And the runtime has images "a"

    Scenario: A pinned image is never deleted by age either
      Given a maximum image age of 1h
      And the runtime has an image "pause" of 1 MiB that is pinned
      When the kubelet runs until 11:10
      Then the runtime has images "pause"

  Rule: The image GC manager checks its thresholds, more loosely than the kubelet configuration does

    @upstream(TestValidateImageGCPolicy/LowThresholdPercent-<-HighThresholdPercent)
    Scenario: A low threshold below the high one is accepted
      When the image GC manager is created with thresholds high 2% low 1%
      Then it is accepted

    @upstream(TestValidateImageGCPolicy/HighThresholdPercent-<-0)
    Scenario: A negative high threshold is rejected
      When the image GC manager is created with thresholds high -1% low 0%
      Then it is rejected with "invalid HighThresholdPercent -1, must be in range [0-100]"

    @upstream(TestValidateImageGCPolicy/HighThresholdPercent->-100)
    Scenario: A high threshold above 100 is rejected
      When the image GC manager is created with thresholds high 101% low 0%
      Then it is rejected with "invalid HighThresholdPercent 101, must be in range [0-100]"

    @upstream(TestValidateImageGCPolicy/LowThresholdPercent-<-0)
    Scenario: A negative low threshold is rejected
      When the image GC manager is created with thresholds high 0% low -1%
      Then it is rejected with "invalid LowThresholdPercent -1, must be in range [0-100]"

    @upstream(TestValidateImageGCPolicy/LowThresholdPercent->-100)
    Scenario: A low threshold above 100 is rejected
      When the image GC manager is created with thresholds high 0% low 101%
      Then it is rejected with "invalid LowThresholdPercent 101, must be in range [0-100]"

    @upstream(TestValidateImageGCPolicy/LowThresholdPercent->-HighThresholdPercent)
    Scenario: A low threshold above the high one is rejected
      When the image GC manager is created with thresholds high 1% low 2%
      Then it is rejected with "LowThresholdPercent 2 can not be higher than HighThresholdPercent 1"

    Scenario: Equal thresholds pass the manager's check (the kubelet configuration rejects them)
      When the image GC manager is created with thresholds high 80% low 80%
      Then it is accepted
