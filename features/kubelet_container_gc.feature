@fake-only @kubelet @container-gc
Feature: Kubelet container garbage collection
  Every minute the kubelet removes dead containers, pod sandboxes nothing uses any more, and
  the log directories of pods that are gone. A dead container (created, exited or unknown —
  never running) becomes collectable once it was *created* at least the minimum age ago; dead
  containers are counted per pod and container name ("evict unit") and on the whole node:
  - a deleted pod loses all of its dead containers — but only once the kubelet has seen all its
    config sources, so that it knows which pods really are gone;
  - each unit keeps at most MaxPerPodContainer, the oldest going first;
  - if the node still has more than MaxContainers, each unit is cut to an equal share (at
    least one), then the oldest across the node go until the limit holds — so when there are
    more units than the limit, some units lose every dead container.
  A negative limit means no limit. Containers in unknown state are stopped before removal.
  A sandbox goes when it is not ready and no container (in any state) belongs to it, except
  that a live pod always keeps its newest sandbox. The eviction path
  (`DeleteAllUnusedContainers`) also removes everything of pods that terminated but are not
  deleted yet.

  The kubelet's flags default to a minimum age of 0, one dead container per container, and no
  node limit. The model mirrors Kubernetes v1.37 (`pkg/kubelet/kuberuntime/kuberuntime_gc.go`
  and its tests, which order containers by creation time only) and is judged against that code
  with `kubegc run --kubelet upstream`. The clock reads 10:00 when a
  scenario starts; a pod's name is also its UID; pods that containers or sandboxes belong to
  are running unless a step says otherwise. In the upstream tests containers are created at
  nanosecond 0 to 4 — long ago; here `06:00` to `06:04`.

  Rule: Dead containers are removed oldest first, within the per-container and node limits

    Background:
      Given container GC keeps dead containers for at least 1h, at most 2 per container and 6 on the node

    @upstream(TestContainerGC/all-containers-should-be-removed-when-max-container-limit-is-0)
    Scenario: A node limit of 0 removes every dead container
      Given container GC keeps dead containers for at least 1m, at most 1 per container and 0 on the node
      And the runtime has containers:
        | id | pod | container | created | state  |
        | 0  | foo | bar       | 06:00   | exited |
      When dead containers are evicted
      Then no containers remain

    @upstream(TestContainerGC/max-containers-should-be-complied-when-no-max-per-pod-container-limit-is-set)
    Scenario: Without a per-container limit the node limit still holds, oldest first
      Given container GC keeps dead containers for at least 1m, at most unlimited per container and 4 on the node
      And the runtime has containers:
        | id | pod | container | created | state  |
        | 0  | foo | bar       | 06:04   | exited |
        | 1  | foo | bar       | 06:03   | exited |
        | 2  | foo | bar       | 06:02   | exited |
        | 3  | foo | bar       | 06:01   | exited |
        | 4  | foo | bar       | 06:00   | exited |
      When dead containers are evicted
      Then the remaining containers are "0, 1, 2, 3"

    @upstream(TestContainerGC/no-containers-should-be-removed-if-both-max-container-and-per-pod-container-limits-are-not-set)
    Scenario: Without any limit no dead container is removed
      Given container GC keeps dead containers for at least 1m, at most unlimited per container and unlimited on the node
      And the runtime has containers:
        | id | pod | container | created | state  |
        | 0  | foo | bar       | 06:02   | exited |
        | 1  | foo | bar       | 06:01   | exited |
        | 2  | foo | bar       | 06:00   | exited |
      When dead containers are evicted
      Then the remaining containers are "0, 1, 2"

    @upstream(TestContainerGC/recently-started-containers-should-not-be-removed)
    Scenario: Containers created less than the minimum age ago are not removed
      Given the runtime has containers:
        | id | pod | container | created | state  |
        | 0  | foo | bar       | 10:00   | exited |
        | 1  | foo | bar       | 10:00   | exited |
        | 2  | foo | bar       | 10:00   | exited |
      When dead containers are evicted
      Then the remaining containers are "0, 1, 2"

    @upstream(TestContainerGC/oldest-containers-should-be-removed-when-per-pod-container-limit-exceeded)
    Scenario: Over the per-container limit, the oldest go
      Given the runtime has containers:
        | id | pod | container | created | state  |
        | 0  | foo | bar       | 06:02   | exited |
        | 1  | foo | bar       | 06:01   | exited |
        | 2  | foo | bar       | 06:00   | exited |
      When dead containers are evicted
      Then the remaining containers are "0, 1"

    @upstream(TestContainerGC/running-containers-should-not-be-removed)
    Scenario: Running containers are neither removed nor counted
      Given the runtime has containers:
        | id | pod | container | created | state   |
        | 0  | foo | bar       | 06:02   | exited  |
        | 1  | foo | bar       | 06:01   | exited  |
        | 2  | foo | bar       | 06:00   | running |
      When dead containers are evicted
      Then the remaining containers are "0, 1, 2"

    @upstream(TestContainerGC/no-containers-should-be-removed-when-limits-are-not-exceeded)
    Scenario: Within the limits nothing is removed
      Given the runtime has containers:
        | id | pod | container | created | state  |
        | 0  | foo | bar       | 06:01   | exited |
        | 1  | foo | bar       | 06:00   | exited |
      When dead containers are evicted
      Then the remaining containers are "0, 1"

    @upstream(TestContainerGC/max-container-count-should-apply-per-(UID,-container)-pair)
    Scenario: The per-container limit applies to each pod and container name
      Given the runtime has containers:
        | id | pod  | container | created | state  |
        | 0  | foo  | bar       | 06:02   | exited |
        | 1  | foo  | bar       | 06:01   | exited |
        | 2  | foo  | bar       | 06:00   | exited |
        | 3  | foo1 | baz       | 06:02   | exited |
        | 4  | foo1 | baz       | 06:01   | exited |
        | 5  | foo1 | baz       | 06:00   | exited |
        | 6  | foo2 | bar       | 06:02   | exited |
        | 7  | foo2 | bar       | 06:01   | exited |
        | 8  | foo2 | bar       | 06:00   | exited |
      When dead containers are evicted
      Then the remaining containers are "0, 1, 3, 4, 6, 7"

    @upstream(TestContainerGC/max-limit-should-apply-and-try-to-keep-from-every-pod)
    Scenario: Over the node limit, every unit is cut to an equal share first
      Given the runtime has containers:
        | id | pod  | container | created | state  |
        | 0  | foo  | bar       | 06:01   | exited |
        | 1  | foo  | bar       | 06:00   | exited |
        | 2  | foo1 | bar1      | 06:01   | exited |
        | 3  | foo1 | bar1      | 06:00   | exited |
        | 4  | foo2 | bar2      | 06:01   | exited |
        | 5  | foo2 | bar2      | 06:00   | exited |
        | 6  | foo3 | bar3      | 06:01   | exited |
        | 7  | foo3 | bar3      | 06:00   | exited |
        | 8  | foo4 | bar4      | 06:01   | exited |
        | 9  | foo4 | bar4      | 06:00   | exited |
      When dead containers are evicted
      Then the remaining containers are "0, 2, 4, 6, 8"

    @upstream(TestContainerGC/oldest-pods-should-be-removed-if-limit-exceeded)
    Scenario: With more units than the limit, the share is one and the oldest units lose everything
      Given the runtime has containers:
        | id | pod  | container | created | state  |
        | 0  | foo  | bar       | 06:02   | exited |
        | 1  | foo  | bar       | 06:01   | exited |
        | 2  | foo1 | bar1      | 06:02   | exited |
        | 3  | foo1 | bar1      | 06:01   | exited |
        | 4  | foo2 | bar2      | 06:01   | exited |
        | 5  | foo3 | bar3      | 06:00   | exited |
        | 6  | foo4 | bar4      | 06:01   | exited |
        | 7  | foo5 | bar5      | 06:00   | exited |
        | 8  | foo6 | bar6      | 06:02   | exited |
        | 9  | foo7 | bar7      | 06:01   | exited |
      When dead containers are evicted
      Then the remaining containers are "0, 2, 4, 6, 8, 9"

    @upstream(TestContainerGC/all-non-running-containers-should-be-removed-when-evictTerminatingPods-is-set)
    Scenario: On the eviction path, terminated pods lose every dead container
      Given the runtime has containers:
        | id | pod     | container | created | state   |
        | 0  | foo     | bar       | 06:02   | exited  |
        | 1  | foo     | bar       | 06:01   | exited  |
        | 2  | foo1    | bar1      | 06:02   | exited  |
        | 3  | foo1    | bar1      | 06:01   | exited  |
        | 4  | running | bar2      | 06:01   | exited  |
        | 5  | foo3    | bar3      | 06:00   | running |
      And pods "foo, foo1, foo3" have terminated
      When dead containers are evicted including terminated pods
      Then the remaining containers are "4, 5"

    @upstream(TestContainerGC/containers-for-deleted-pods-should-be-removed)
    Scenario: A deleted pod loses its dead containers, except those younger than the minimum age
      Given the runtime has containers:
        | id | pod     | container | created | attempt | state  |
        | 0  | foo     | bar       | 06:01   | 1       | exited |
        | 1  | foo     | bar       | 06:00   | 0       | exited |
        | 2  | deleted | bar1      | 10:00   | 2       | exited |
        | 3  | deleted | bar1      | 06:01   | 1       | exited |
        | 4  | deleted | bar1      | 06:00   | 0       | exited |
      And pod "deleted" has been deleted
      When dead containers are evicted
      Then the remaining containers are "0, 1, 2"

    @upstream(TestContainerGC/containers-for-deleted-pods-may-not-be-removed-if-allSourcesReady-is-set-false)
    Scenario: Before all config sources are ready, a deleted pod's containers stay
      Given the runtime has containers:
        | id | pod     | container | created | state  |
        | 0  | deleted | bar1      | 06:00   | exited |
      And pod "deleted" has been deleted
      And the kubelet's config sources are not all ready
      When dead containers are evicted including terminated pods
      Then the remaining containers are "0"

    @upstream(TestUnknownStateContainerGC)
    Scenario: A container in unknown state is stopped before it is removed
      Given container GC keeps dead containers for at least 1h, at most 0 per container and 0 on the node
      And the runtime has containers:
        | id | pod | container | created | state   |
        | 0  | foo | bar       | 06:00   | unknown |
      When dead containers are evicted
      Then the runtime was asked to stop container "0" before removing it
      And no containers remain

    Scenario: A container in unknown state that cannot be stopped is not removed
      Given container GC keeps dead containers for at least 1h, at most 0 per container and 0 on the node
      And the runtime has containers:
        | id | pod | container | created | state   |
        | u  | foo | bar       | 06:00   | unknown |
      And stopping container "u" fails
      When dead containers are evicted
      Then the remaining containers are "u"

    Scenario: The minimum age counts from creation — a container created long ago is collectable the moment it exits
      Given container GC keeps dead containers for at least 1h, at most 0 per container and unlimited on the node
      And the runtime has containers:
        | id    | pod | container | created | state   |
        | web-1 | web | nginx     | 08:00   | running |
      When container "web-1" exits
      And container garbage collection runs
      Then no containers remain

    Scenario: A dead container younger than the minimum age does not count toward the node limit
      Given container GC keeps dead containers for at least 1h, at most unlimited per container and 1 on the node
      And the runtime has containers:
        | id    | pod | container | created | state  |
        | young | a   | app       | 09:30   | exited |
        | old-1 | b   | app       | 08:00   | exited |
        | old-2 | c   | app       | 07:00   | exited |
      When dead containers are evicted
      Then the remaining containers are "young, old-1"

    Scenario: A container whose removal failed still counts as removed in that pass
      Given container GC keeps dead containers for at least 0s, at most 1 per container and 2 on the node
      And the runtime has containers:
        | id | pod | container | created | state  |
        | a1 | a   | app       | 09:01   | exited |
        | a0 | a   | app       | 09:00   | exited |
        | b1 | b   | app       | 08:01   | exited |
        | b0 | b   | app       | 08:00   | exited |
        | c0 | c   | app       | 07:00   | exited |
      And removing container "a0" fails
      When dead containers are evicted
      Then the remaining containers are "a0, a1, b1"

    Scenario: The oldest container is the earliest created, whatever its restart attempt says
      Given container GC keeps dead containers for at least 0s, at most 1 per container and unlimited on the node
      And the runtime has containers:
        | id        | pod | container | created | attempt | state  |
        | restarted | web | app       | 08:00   | 1       | exited |
        | first     | web | app       | 07:00   | 5       | exited |
      When dead containers are evicted
      Then the remaining containers are "restarted"

    Scenario: A negative minimum age is rejected
      When container GC is created with a minimum age of -1s
      Then it is rejected with "invalid minimum garbage collection age: -1s"

    # evictContainers walks the units (a pod's container of one name) by ranging over a Go map,
    # and evictSandboxes walks the pods likewise (pkg/kubelet/kuberuntime/kuberuntime_gc.go):
    # which unit, or which pod's sandboxes, goes first differs from pass to pass. What goes is
    # defined, and so is the order within one unit: oldest first.
    Scenario: Units of different containers are trimmed in no defined order, each oldest first
      Given container GC keeps dead containers for at least 1m, at most 1 per container and unlimited on the node
      And the runtime has containers:
        | id | pod | container | created | state  |
        | 0  | foo | bar       | 06:02   | exited |
        | 1  | foo | bar       | 06:01   | exited |
        | 2  | foo | bar       | 06:00   | exited |
        | 3  | baz | qux       | 06:01   | exited |
        | 4  | baz | qux       | 06:00   | exited |
      When dead containers are evicted
      Then the remaining containers are "0, 3"

  Rule: A sandbox is removed when not ready and unused, except a live pod's newest

    @upstream(TestSandboxGC/notready-sandboxes-without-containers-for-deleted-pods-should-be-garbage-collected)
    Scenario: A deleted pod's not-ready sandbox without containers is removed
      Given the runtime has sandboxes:
        | id | pod     | attempt | state    | created |
        | s0 | deleted | 0       | notready | 06:00   |
      And pod "deleted" has been deleted
      When pod sandboxes are evicted
      Then no sandboxes remain

    @upstream(TestSandboxGC/ready-sandboxes-without-containers-for-deleted-pods-should-not-be-garbage-collected)
    Scenario: A deleted pod's ready sandbox stays
      Given the runtime has sandboxes:
        | id | pod     | attempt | state | created |
        | s0 | deleted | 0       | ready | 06:00   |
      And pod "deleted" has been deleted
      When pod sandboxes are evicted
      Then the remaining sandboxes are "s0"

    @upstream(TestSandboxGC/sandboxes-for-existing-pods-should-not-be-garbage-collected)
    Scenario: A live pod keeps its only sandbox, ready or not
      Given the runtime has sandboxes:
        | id | pod  | attempt | state    | created |
        | s0 | foo1 | 0       | ready    | 06:00   |
        | s1 | foo2 | 0       | notready | 06:00   |
      When pod sandboxes are evicted
      Then the remaining sandboxes are "s0, s1"

    @upstream(TestSandboxGC/older-exited-sandboxes-without-containers-for-existing-pods-should-be-garbage-collected-if-there-are-more-than-one-exited-sandboxes)
    Scenario: A live pod's older unused sandboxes go; its newest stays
      Given the runtime has sandboxes:
        | id | pod  | attempt | state    | created |
        | s0 | foo1 | 1       | notready | 06:01   |
        | s1 | foo1 | 0       | notready | 06:00   |
      When pod sandboxes are evicted
      Then the remaining sandboxes are "s0"

    @upstream(TestSandboxGC/older-exited-sandboxes-with-containers-for-existing-pods-should-not-be-garbage-collected-even-if-there-are-more-than-one-exited-sandboxes)
    Scenario: An older sandbox that still holds a container, even an exited one, stays
      Given the runtime has sandboxes:
        | id | pod  | attempt | state    | created |
        | s0 | foo1 | 1       | notready | 06:01   |
        | s1 | foo1 | 0       | notready | 06:00   |
      And the runtime has containers:
        | id | pod  | container | sandbox | state  |
        | c0 | foo1 | bar1      | s1      | exited |
      When pod sandboxes are evicted
      Then the remaining sandboxes are "s0, s1"

    @upstream(TestSandboxGC/non-running-sandboxes-for-existing-pods-should-be-garbage-collected-if-evictTerminatingPods-is-set)
    Scenario: On the eviction path, a terminated pod loses even its newest not-ready sandbox
      Given the runtime has sandboxes:
        | id | pod  | attempt | state    | created |
        | s0 | foo1 | 0       | ready    | 06:00   |
        | s1 | foo2 | 0       | notready | 06:00   |
      And pods "foo1, foo2" have terminated
      When pod sandboxes are evicted including terminated pods
      Then the remaining sandboxes are "s0"

    @upstream(TestSandboxGC/sandbox-with-containers-should-not-be-garbage-collected)
    Scenario: A sandbox holding a container stays
      Given the runtime has sandboxes:
        | id | pod  | attempt | state    | created |
        | s0 | foo1 | 0       | notready | 06:00   |
      And the runtime has containers:
        | id | pod  | container | sandbox | state  |
        | c0 | foo1 | bar1      | s0      | exited |
      When pod sandboxes are evicted
      Then the remaining sandboxes are "s0"

    @upstream(TestSandboxGC/multiple-sandboxes-should-be-handled-properly)
    Scenario: Several pods' sandboxes at once
      Given the runtime has sandboxes:
        | id | pod     | attempt | state    | created |
        | s0 | foo1    | 1       | ready    | 06:01   |
        | s1 | foo1    | 0       | notready | 06:00   |
        | s2 | foo2    | 1       | notready | 06:01   |
        | s3 | foo2    | 0       | notready | 06:00   |
        | s4 | deleted | 0       | notready | 06:00   |
      And the runtime has containers:
        | id | pod  | container | sandbox | state  |
        | c0 | foo2 | bar3      | s2      | exited |
      And pod "deleted" has been deleted
      When pod sandboxes are evicted
      Then the remaining sandboxes are "s0, s2"

  Rule: Log directories of removed pods go once all config sources are ready; dangling log symlinks always

    @upstream(TestPodLogDirectoryGC/allSourcesReady-true)
    Scenario: The log directories of removed pods are removed, in listing order
      Given pods "123, 456, 321" are running
      And pods "012, 789, 654" have been deleted
      And the pod logs directory holds "123, 456, 789, 012, name_namespace_321, name_namespace_654"
      When pod log directories are evicted
      Then the removed log paths are "/var/log/pods/789, /var/log/pods/012, /var/log/pods/name_namespace_654"

    @upstream(TestPodLogDirectoryGC/allSourcesReady-false)
    Scenario: Before all config sources are ready no log directory is removed
      Given pods "123, 456, 321" are running
      And pods "012, 789, 654" have been deleted
      And the pod logs directory holds "123, 456, 789, 012, name_namespace_321, name_namespace_654"
      And the kubelet's config sources are not all ready
      When pod log directories are evicted
      Then no log paths are removed

    Scenario: A pod the pod workers do not know is cleaned up once they have synced, not before
      Given the pod logs directory holds "ns_gone_999"
      And the pod workers have not synced yet
      When pod log directories are evicted
      Then no log paths are removed
      When the pod workers have synced
      And pod log directories are evicted
      Then the removed log paths are "/var/log/pods/ns_gone_999"

    Scenario: Dangling container log symlinks are removed even before all config sources are ready, unless their container still runs
      Given the runtime has containers:
        | id     | pod | container | state   |
        | abc123 | web | nginx     | exited  |
        | def456 | web | sidecar   | running |
      And pod "web" has been deleted
      And the pod logs directory holds "default_web_web"
      And the container log symlinks are:
        | symlink                        | target  |
        | web_default_nginx-abc123.log   | missing |
        | web_default_sidecar-def456.log | missing |
        | web_default_old-ghi789.log     | missing |
        | web_default_current-jkl012.log | exists  |
      And the kubelet's config sources are not all ready
      When pod log directories are evicted
      Then the removed log paths are "/var/log/containers/web_default_nginx-abc123.log, /var/log/containers/web_default_old-ghi789.log"

    # Surprising, and found by running this specification on the kubelet's own code: the ID is
    # read from the name only when it has at least 6 characters (pkg/kubelet/kuberuntime/legacy.go,
    # getContainerIDFromLegacyLogSymlink); otherwise the kubelet cannot ask the runtime about the
    # container and removes the dangling symlink even though its container still runs.
    Scenario: A dangling symlink whose container ID is shorter than 6 characters is removed even while its container runs
      Given the runtime has containers:
        | id  | pod | container | state   |
        | def | web | sidecar   | running |
      And the container log symlinks are:
        | symlink                     | target  |
        | web_default_sidecar-def.log | missing |
      When pod log directories are evicted
      Then the removed log paths are "/var/log/containers/web_default_sidecar-def.log"

    Scenario: Removing a container removes its legacy log symlink first, whatever the symlink's target
      # removeContainer removes the container's logs before the container (removeContainerLog,
      # pkg/kubelet/kuberuntime/kuberuntime_container.go): the legacy symlink
      # <pod>_<namespace>_<container>-<id>.log goes with its container, even while its log exists.
      Given container GC keeps dead containers for at least 0s, at most 0 per container and unlimited on the node
      And the runtime has containers:
        | id     | pod | container | state   |
        | abc123 | web | nginx     | exited  |
        | def456 | web | sidecar   | running |
      And the container log symlinks are:
        | symlink                        | target |
        | web_default_nginx-abc123.log   | exists |
        | web_default_sidecar-def456.log | exists |
      When container garbage collection runs
      Then the remaining containers are "def456"
      And the removed log paths are "/var/log/containers/web_default_nginx-abc123.log"

  Rule: The loop runs every minute from the kubelet's start, and a failing step does not stop the others

    Scenario: With the kubelet's default flags, one dead container per container is kept and the node has no limit
      Given the runtime has containers:
        | id | pod | container | created | state  |
        | w2 | web | nginx     | 08:02   | exited |
        | w1 | web | nginx     | 08:01   | exited |
        | w0 | web | nginx     | 08:00   | exited |
        | a0 | api | app       | 08:00   | exited |
      When container garbage collection runs
      Then the remaining containers are "w2, a0"

    Scenario: Dead containers of deleted pods go as soon as the kubelet starts, then every minute
      Given the runtime has containers:
        | id  | pod  | container | created | state  |
        | old | gone | app       | 09:00   | exited |
      And pod "gone" has been deleted
      When the kubelet runs until 10:00
      Then no containers remain
      When 30s passes
      And the runtime starts containers:
        | id   | pod  | container | state  |
        | late | gone | app       | exited |
      And the kubelet runs until 10:00:59
      Then the remaining containers are "late"
      When the kubelet runs until 10:01
      Then no containers remain

    Scenario: When listing containers fails, pod logs are still cleaned
      Given pod "gone" has been deleted
      And the pod logs directory holds "ns_gone_gone"
      And listing containers fails with "rpc error: code = Unavailable desc = connection refused"
      When container garbage collection runs
      Then container garbage collection fails with "rpc error: code = Unavailable desc = connection refused"
      And the removed log paths are "/var/log/pods/ns_gone_gone"

    # The kubelet's container GC loop (StartGarbageCollection in pkg/kubelet/kubelet.go) records
    # the event on every failed pass, unlike the image GC loop.
    Scenario: A failed container GC pass is a ContainerGCFailed event at once, and every minute it fails again
      Given listing containers fails with "rpc error: code = Unavailable desc = connection refused"
      When the kubelet runs until 10:00
      Then a Warning event ContainerGCFailed is recorded on the node with message "rpc error: code = Unavailable desc = connection refused"
      When the kubelet runs until 10:02
      Then 3 ContainerGCFailed events are recorded
