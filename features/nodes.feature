@nodes @own-cluster
Feature: Nodes that run pods
  On a cluster, the scheduler binds each new pod to a node that fits it, and the node's kubelet
  runs it: the pod is accepted (Pending, its containers being created), its containers start
  and, once their readiness probes pass, the pod is Ready; a container that exits is restarted
  as the pod's restartPolicy says, after a back-off that doubles from 10 s; when every
  container of a pod that is not restarted has exited, the pod is Succeeded if each exited 0,
  else Failed. A deleted pod's containers are sent SIGTERM and, when its grace period ends,
  SIGKILL; once none runs the kubelet writes the pod's last status and deletes it for good.
  Everything that cleans up after pods — owners' controllers, TTL after finished, the pod
  garbage collector — sees these lives.

  The fake runs a node agent per node in place of a kubelet (`node-1`, `node-2`, …: `kubegc
  serve --nodes`, `Cluster::builder().nodes(n)`) and a small scheduler; since it runs no image,
  a container's command says what it does: `sleep N` exits 0 after N seconds, `true` and
  `false` exit 0 and 1 at once, `sh -c` runs a script of those and `exit N`; anything else
  runs until stopped. `sleep` and shells run as PID 1 ignore SIGTERM, so they are killed when
  the grace period ends (exit 137); anything else stops at once with 0 (`kubegc program --
  ARGV` prints what a command does).

  On the upstream control plane a cluster of its own has kube-scheduler and hollow nodes: the
  release's kubelet, as Kubernetes' scalability tests run it (kubemark), on a fake container
  runtime whose containers follow the same rule. Scenarios that hold a moment to the second
  (`@virtual-clock`) need the fake's virtual clock; on a real one, the kubelet's syncs (every
  10 s on a hollow node) and the scenario's own steps move every moment by a second or more.

  Sources: kubernetes pkg/kubelet/kubelet_pods.go (`getPhase`, `generateAPIPodStatus`),
  pkg/kubelet/kuberuntime (`doBackOff`, `killContainer`), pkg/scheduler (`FitError`).

  Scenario: A Deployment's pods are scheduled, started and become ready
    Given a cluster of its own with 2 nodes
    And a Deployment named "web" with 3 replicas
    Then Deployment "web" has "status.availableReplicas" set to "3"
    And every Pod named "web-*" is Running and Ready on a node

  Scenario: A Job's pods finish on their own and the Job completes
    Given a cluster of its own with 2 nodes
    And the objects:
      """
      apiVersion: batch/v1
      kind: Job
      metadata: {name: count}
      spec:
        completions: 2
        parallelism: 2
        template:
          spec:
            restartPolicy: Never
            containers: [{name: count, image: busybox, command: [sh, -c, "sleep 20"]}]
      """
    # Long enough for both pods to be seen running together on a real clock, where the two
    # start a moment apart.
    Then every Pod named "count-*" is Running and Ready on a node
    When 20 seconds pass
    Then Job "count" has "status.succeeded" set to "2"
    And every Pod named "count-*" is Succeeded on a node

  @virtual-clock
  Scenario: A Job that really finished is removed when its time to live is over
    Given a cluster of its own with 1 node
    And the objects:
      """
      apiVersion: batch/v1
      kind: Job
      metadata: {name: once}
      spec:
        ttlSecondsAfterFinished: 30
        template:
          spec:
            restartPolicy: Never
            containers: [{name: once, image: busybox, command: [sleep, "10"]}]
      """
    When 10 seconds pass
    Then Job "once" has "status.succeeded" set to "1"
    When 29 seconds pass
    Then Job "once" still exists
    When 1 second passes
    Then Job "once" is gone
    And every Pod named "once-*" is gone

  Scenario: A container that fails under restartPolicy Never fails its pod
    Given a cluster of its own with 1 node
    And the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: broken}
      spec:
        restartPolicy: Never
        containers: [{name: broken, image: busybox, command: [sh, -c, "sleep 2; exit 3"]}]
      """
    When 2 seconds pass
    Then Pod "broken" has "status.phase" set to "Failed"
    And Pod "broken" has "status.containerStatuses.0.state.terminated.exitCode" set to "3"
    And Pod "broken" has "status.conditions.2.reason" set to "PodFailed"

  # Known difference: the fake says CrashLoopBackOff as soon as the container exits; the
  # kubelet says it only at its next sync of the pod (until then the container shows as
  # terminated, `Error`), 10 to 15 s later on a hollow node (pkg/kubelet/pod_workers.go).
  @virtual-clock
  Scenario: A crashing container is restarted after a back-off that doubles
    Given a cluster of its own with 1 node
    And the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: crash}
      spec:
        containers: [{name: crash, image: busybox, command: ["false"]}]
      """
    Then Pod "crash" has "status.phase" set to "Running"
    And Pod "crash" has "status.containerStatuses.0.restartCount" set to "1"
    And Pod "crash" has "status.containerStatuses.0.state.waiting.reason" set to "CrashLoopBackOff"
    And an event was recorded for Pod "crash" with:
      | type                    | Warning                                                                    |
      | reason                  | BackOff                                                                    |
      | message                 | Back-off restarting failed container crash in pod crash_${namespace}(${Pod/crash}) |
      | involvedObject.fieldPath | spec.containers{crash}                                                    |
      | source.component        | kubelet                                                                    |
    When 10 seconds pass
    Then Pod "crash" has "status.containerStatuses.0.restartCount" set to "2"
    When 19 seconds pass
    Then Pod "crash" has "status.containerStatuses.0.restartCount" set to "2"
    When 1 second passes
    Then Pod "crash" has "status.containerStatuses.0.restartCount" set to "3"

  @virtual-clock
  Scenario: A deleted pod whose process ignores SIGTERM goes when its grace period ends
    Given a cluster of its own with 1 node
    And the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: sleeper}
      spec:
        containers: [{name: sleeper, image: busybox, command: [sleep, "3600"]}]
      """
    And every Pod named "sleeper" is Running and Ready on a node
    When Pod "sleeper" is deleted
    # kube-scheduler records through events.k8s.io/v1: a reporting controller and an action,
    # no source (pkg/scheduler/schedule_one.go, client-go tools/events).
    Then an event was recorded for Pod "sleeper" with:
      | reason             | Scheduled                                            |
      | message            | Successfully assigned ${namespace}/sleeper to node-1 |
      | reportingComponent | default-scheduler                                    |
      | action             | Binding                                              |
      | source.component   | unset                                                |
    And an event was recorded for Pod "sleeper" with:
      | reason  | Started           |
      | message | Container started |
    And an event was recorded for Pod "sleeper" with:
      | reason  | Killing                    |
      | message | Stopping container sleeper |
    When 29 seconds pass
    Then Pod "sleeper" is terminating with a grace period of 30 seconds
    When 1 second passes
    Then Pod "sleeper" is gone

  Scenario: A deleted pod whose program stops on SIGTERM goes at once
    Given a cluster of its own with 1 node
    And the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: server}
      spec:
        containers: [{name: server, image: nginx}]
      """
    And every Pod named "server" is Running and Ready on a node
    When Pod "server" is deleted
    Then Pod "server" is gone

  Scenario: A pod no node fits stays pending and says why
    Given a cluster of its own with 2 nodes
    And the objects:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: picky}
      spec:
        nodeSelector: {disktype: ssd}
        containers: [{name: picky, image: nginx}]
      """
    Then Pod "picky" has "status.phase" set to "Pending"
    And Pod "picky" has "spec.nodeName" set to "unset"
    And Pod "picky" has "status.conditions.0.reason" set to "Unschedulable"
    # The default preemption plugin adds what it found: evicting pods cannot make a node match.
    And Pod "picky" has "status.conditions.0.message" set to "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."

  # A real kubelet whose Node object is deleted registers it again (seen on hollow nodes), so
  # the replacement may land on node-2 once more; the fake's node agent does not re-register.
  Scenario: The pods of a deleted node are collected and their ReplicaSet replaces them
    Given a cluster of its own with 2 nodes
    And a ReplicaSet named "spread" with 2 replicas
    And every Pod named "spread-*" is Running and Ready on a node
    When Node "node-2" is deleted
    And 60 seconds pass
    Then ReplicaSet "spread" has "status.readyReplicas" set to "2"
    And every Pod named "spread-*" is Running and Ready on a node
