@workloads @volumes
Feature: A StatefulSet's pods and the claims they leave behind
  A StatefulSet gives each pod a stable identity: pod `n` of set `db` is named `db-n`, its
  hostname is its name, its subdomain the set's service, and it carries its name and ordinal as
  labels. Each volume claim template `data` gives pod `db-n` a claim of its own, `data-db-n`,
  made before the pod and labelled with the set's selector. The set is the controller of its
  pods, so the garbage collector deletes them with it.

  Its claims are another matter: by default they outlive the pods and the set, so that data is
  never lost by deleting or scaling a workload. The retention policy
  (`persistentVolumeClaimRetentionPolicy`) hands them to the garbage collector instead, through
  owner references the StatefulSet controller writes: `whenDeleted: Delete` makes the set the
  controller of every claim, so they go with the set; `whenScaled: Delete` makes a pod that
  scaling down removes the controller of its claims before it is deleted, so they go with the
  pod. A claim that another object already controls is left alone. Nothing else deletes a
  claim: the controller only writes owner references, and the collector does the rest.

  `OrderedReady` (the default) makes one pod at a time, in ordinal order, each once the one
  before it is Running and Ready; `Parallel` makes them all at once. Without nodes no pod ever
  runs, so the ordered set stops at its first pod; the scenarios about claims use `Parallel`.

  Sources: kubernetes pkg/controller/statefulset/stateful_set_control.go (`updateStatefulSet`,
  `processReplica`, `processCondemned`), stateful_pod_control.go (`CreateStatefulPod`,
  `UpdatePodClaimForRetentionPolicy`, `PodClaimIsStale`) and stateful_set_utils.go
  (`getPersistentVolumeClaims`, `initIdentity`, `isClaimOwnerUpToDate`,
  `updateClaimOwnerRefForSetAndPod`); the e2e tests of test/e2e/apps/statefulset.go
  ("Non-retain StatefulSetPersistentVolumeClaimPolicy"), which need a default StorageClass.

  Scenario: An ordered StatefulSet makes its next pod only once the one before it runs and is ready
    Given a StatefulSet named "web" with 3 replicas
    Then the Pods are "web-0"
    And Pod "web-0" has "spec.hostname" set to "web-0"
    And Pod "web-0" has "spec.subdomain" set to "web"
    And Pod "web-0" has "metadata.labels[statefulset.kubernetes.io/pod-name]" set to "web-0"
    And Pod "web-0" has "metadata.labels[apps.kubernetes.io/pod-index]" set to "0"
    And StatefulSet "web" controls 1 Pod

  Scenario: A parallel StatefulSet makes every pod at once, each with a claim of its own
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data"
    Then the Pods are "db-0, db-1, db-2"
    And the PersistentVolumeClaims are "data-db-0, data-db-1, data-db-2"
    And Pod "db-1" has "spec.volumes.0.name" set to "data"
    And Pod "db-1" has "spec.volumes.0.persistentVolumeClaim.claimName" set to "data-db-1"
    And PersistentVolumeClaim "data-db-1" has "metadata.labels[kubegc.io/workload]" set to "db"
    # Retain and Retain: nothing owns the claims.
    And every PersistentVolumeClaim named "data-db-*" has owner references to ""

  Scenario: Claims outlive the StatefulSet that made them, by default
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data"
    And the PersistentVolumeClaims are "data-db-0, data-db-1, data-db-2"
    When StatefulSet "db" is deleted with propagation policy Background
    Then StatefulSet "db" is gone
    And the Pods are ""
    And the PersistentVolumeClaims are "data-db-0, data-db-1, data-db-2"

  Scenario: Claims outlive the pods a scale-down removes, by default, and serve them again
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data"
    And the Pods are "db-0, db-1, db-2"
    When StatefulSet "db" is scaled to 1 replica
    Then the Pods are "db-0"
    And the PersistentVolumeClaims are "data-db-0, data-db-1, data-db-2"
    When StatefulSet "db" is scaled to 3 replicas
    Then the Pods are "db-0, db-1, db-2"
    And Pod "db-2" has "spec.volumes.0.persistentVolumeClaim.claimName" set to "data-db-2"
    And the PersistentVolumeClaims are "data-db-0, data-db-1, data-db-2"

  @upstream(Non-retain-StatefulSetPersistentVolumeClaimPolicy/should-delete-PVCs-with-a-WhenDeleted-policy)
  Scenario: With whenDeleted Delete the set controls its claims, and they go with it
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data" deleted when the set is deleted
    Then PersistentVolumeClaim "data-db-2" has owner references:
      | kind        | name | controller | blockOwnerDeletion |
      | StatefulSet | db   | true       | true               |
    When StatefulSet "db" is deleted with propagation policy Background
    Then StatefulSet "db" is gone
    And the Pods are ""
    And the PersistentVolumeClaims are ""

  Scenario: With whenDeleted Delete an orphaning delete leaves the claims, no longer owned
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data" deleted when the set is deleted
    Then PersistentVolumeClaim "data-db-0" has owner references to "db"
    When StatefulSet "db" is deleted with propagation policy Orphan
    Then StatefulSet "db" is gone
    And the PersistentVolumeClaims are "data-db-0, data-db-1, data-db-2"
    And every PersistentVolumeClaim named "data-db-*" has owner references to ""
    And every Pod named "db-*" has owner references to ""

  @upstream(Non-retain-StatefulSetPersistentVolumeClaimPolicy/should-delete-PVCs-with-a-OnScaledown-policy)
  Scenario: With whenScaled Delete a pod removed by scaling down takes its claim with it
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data" deleted when the set scales down
    And the Pods are "db-0, db-1, db-2"
    # While the set keeps a pod, nothing owns its claim.
    Then every PersistentVolumeClaim named "data-db-*" has owner references to ""
    When StatefulSet "db" is scaled to 1 replica
    Then the Pods are "db-0"
    And the PersistentVolumeClaims are "data-db-0"
    And PersistentVolumeClaim "data-db-0" has owner references to ""

  Scenario: With whenScaled Delete alone, deleting the set keeps every claim
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data" deleted when the set scales down
    And the Pods are "db-0, db-1, db-2"
    When StatefulSet "db" is deleted with propagation policy Background
    Then StatefulSet "db" is gone
    And the Pods are ""
    And the PersistentVolumeClaims are "data-db-0, data-db-1, data-db-2"

  Scenario: With both Delete, a kept pod's claim is the set's and a removed pod's is the pod's
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data" deleted when the set is deleted or scales down
    Then PersistentVolumeClaim "data-db-2" has owner references to "db"
    When StatefulSet "db" is scaled to 2 replicas
    Then the Pods are "db-0, db-1"
    And the PersistentVolumeClaims are "data-db-0, data-db-1"
    And PersistentVolumeClaim "data-db-0" has owner references:
      | kind        | name | controller |
      | StatefulSet | db   | true       |
    When StatefulSet "db" is deleted with propagation policy Foreground
    Then StatefulSet "db" is gone
    And the PersistentVolumeClaims are ""

  @upstream(Non-retain-StatefulSetPersistentVolumeClaimPolicy/should-delete-PVCs-after-adopting-pod-WhenDeleted)
  Scenario: A pod orphaned by hand is adopted again, and its claim still goes with the set
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data" deleted when the set is deleted
    And the Pods are "db-0, db-1, db-2"
    When Pod "db-2" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": null}}
      """
    Then every Pod named "db-*" has owner references to "db"
    When StatefulSet "db" is deleted with propagation policy Background
    Then StatefulSet "db" is gone
    And the Pods are ""
    And the PersistentVolumeClaims are ""

  @upstream(Non-retain-StatefulSetPersistentVolumeClaimPolicy/should-delete-PVCs-after-adopting-pod-WhenScaled)
  Scenario: A pod orphaned by hand is adopted again, and its claim still goes when it is scaled away
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data" deleted when the set scales down
    And the Pods are "db-0, db-1, db-2"
    When Pod "db-2" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": null}}
      """
    And StatefulSet "db" is scaled to 1 replica
    Then the Pods are "db-0"
    And the PersistentVolumeClaims are "data-db-0"

  @upstream(Non-retain-StatefulSetPersistentVolumeClaimPolicy/should-not-delete-PVC-with-OnScaledown-policy-if-another-controller-owns-the-PVC)
  Scenario: A claim another object controls is left alone when its pod is scaled away
    # The other controller wins: the set writes no reference beside it, and takes the claim
    # back only once the other has let it go.
    Given a StatefulSet named "db" with 3 replicas started in parallel, each with a claim "data"
    And a ConfigMap named "keeper"
    And the PersistentVolumeClaims are "data-db-0, data-db-1, data-db-2"
    When PersistentVolumeClaim "data-db-1" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "keeper", "uid": "${ConfigMap/keeper}", "controller": true}]}}
      """
    And StatefulSet "db" is patched with a merge patch:
      """
      {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenScaled": "Delete"}}}
      """
    And StatefulSet "db" is scaled to 0 replicas
    Then the Pods are ""
    And the PersistentVolumeClaims are "data-db-1"
    And PersistentVolumeClaim "data-db-1" has owner references to "keeper"
    When PersistentVolumeClaim "data-db-1" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": null}}
      """
    And StatefulSet "db" is scaled to 2 replicas
    Then the PersistentVolumeClaims are "data-db-0, data-db-1"
    When StatefulSet "db" is scaled to 1 replica
    Then the PersistentVolumeClaims are "data-db-0"

  @upstream(Non-retain-StatefulSetPersistentVolumeClaimPolicy/should-not-delete-PVCs-when-there-is-another-controller)
  Scenario: The set becomes a claim's controller beside other owners, but never beside another controller
    # An owner that is not a controller does not stand in the way; a reference to the set without the
    # controller flag is made a controller one again; a controller reference to another set is
    # left alone, even one to a set that does not exist (which the garbage collector then
    # deletes the claim for, held here by a finalizer).
    Given a StatefulSet named "db" with 4 replicas started in parallel, each with a claim "data"
    And a ConfigMap named "keeper"
    And the PersistentVolumeClaims are "data-db-0, data-db-1, data-db-2, data-db-3"
    When PersistentVolumeClaim "data-db-1" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "keeper", "uid": "${ConfigMap/keeper}"}]}}
      """
    And PersistentVolumeClaim "data-db-3" is patched with a merge patch:
      """
      {"metadata": {"finalizers": ["kubegc.io/keep"], "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "unknown", "uid": "9d86d6ae-4e06-4ff1-bc55-f77f52e272e9", "controller": true, "blockOwnerDeletion": true}]}}
      """
    And StatefulSet "db" is patched with a merge patch:
      """
      {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"}}}
      """
    Then PersistentVolumeClaim "data-db-0" has owner references:
      | kind        | name | controller | blockOwnerDeletion |
      | StatefulSet | db   | true       | true               |
    And PersistentVolumeClaim "data-db-1" has owner references:
      | kind        | name   | controller |
      | ConfigMap   | keeper | unset      |
      | StatefulSet | db     | true       |
    And PersistentVolumeClaim "data-db-3" has owner references:
      | kind        | name    | controller |
      | StatefulSet | unknown | true       |
    When PersistentVolumeClaim "data-db-0" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "${StatefulSet/db}", "controller": false, "blockOwnerDeletion": true}]}}
      """
    And StatefulSet "db" is patched with a merge patch:
      """
      {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete", "whenScaled": "Delete"}}}
      """
    Then PersistentVolumeClaim "data-db-0" has owner references:
      | kind        | name | controller |
      | StatefulSet | db   | true       |
    When StatefulSet "db" is deleted with propagation policy Background
    Then StatefulSet "db" is gone
    And the PersistentVolumeClaims are "data-db-1, data-db-3"
    And PersistentVolumeClaim "data-db-1" has owner references to "keeper"
    And PersistentVolumeClaim "data-db-3" is terminating with finalizers "kubegc.io/keep"

  @nodes @own-cluster
  Scenario: On nodes an ordered StatefulSet starts every pod, and deleting it takes them all
    Given a cluster of its own with 1 node
    And a StatefulSet named "web" with 3 replicas
    Then every Pod named "web-*" is Running and Ready on a node
    And the Pods are "web-0, web-1, web-2"
    And StatefulSet "web" has "status.readyReplicas" set to "3"
    And StatefulSet "web" controls 1 ControllerRevision
    When StatefulSet "web" is deleted with propagation policy Foreground
    Then StatefulSet "web" is gone
    And no Pods or ControllerRevisions are left
