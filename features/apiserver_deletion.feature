@apiserver
Feature: The API server's half of deletion
  Before any garbage collector acts, the API server decides what a DELETE does. It checks the
  preconditions (a uid or resourceVersion the caller expects), computes the finalizers from the
  options, the object's finalizers and the resource's default (apiserver_policies.feature), and
  then either removes the object at once or keeps it with a deletionTimestamp until its
  finalizers are gone. A kept object gets `deletionGracePeriodSeconds: 0`, its generation is
  bumped once, and an earlier deletionTimestamp is never moved. An update that removes the last
  finalizer of such an object removes it.
  Pods are graceful: a pod on a node is kept for its grace period (the kubelet deletes it once
  its containers have stopped), and a second DELETE changes nothing unless it shortens the
  grace period. Objects kept with no grace period, by contrast, take a second DELETE like a
  first, so its policy can switch a deletion from foreground to orphan or background.
  Events never get a GC finalizer. A dry run persists nothing. DELETE on a collection deletes
  each selected object, as if one by one, and returns them as listed. The answer to a DELETE
  that removed the object is a Success status naming it (pods return the object instead).
  (Upstream store.go Delete; store_test.go, dryrun_test.go, TestDoubleDeletionWithFinalizer.)

  @upstream(TestStoreDelete)
  Scenario: Deleting a missing object is NotFound; deleting an object with no finalizers removes it
    When ConfigMap "never-created" is deleted
    Then the request fails with status 404 and reason NotFound
    Given a ConfigMap named "object"
    When ConfigMap "object" is deleted without a body
    Then the delete removed the object at once
    And ConfigMap "object" is gone

  @upstream(TestFinalizeDelete)
  Scenario Outline: Removing a <kind> answers with a Success status naming the <resource>
    Given a <kind> named "<name>"
    When <kind> "<name>" is deleted with propagation policy Background
    Then the response has "kind" set to "Status"
    And the response has "status" set to "Success"
    And the response has "details.name" set to "<name>"
    And the response has "details.kind" set to "<resource>"
    And the response has "details.group" set to "<group>"
    And the response has "details.uid" set to "${<kind>/<name>}"

    Examples:
      | kind        | name                  | resource     | group                     |
      | ConfigMap   | object                | configmaps   | unset                     |
      | ReplicaSet  | object                | replicasets  | apps                      |
      | Job         | object                | jobs         | batch                     |
      | ClusterRole | kubegc-api-final-role | clusterroles | rbac.authorization.k8s.io |

  Scenario: Removing a pod answers with the pod itself
    Given a Pod named "object"
    When Pod "object" is deleted
    Then the response has "kind" set to "Pod"
    And the response has "metadata.uid" set to "${Pod/object}"
    And Pod "object" is gone

  Scenario: A UID precondition that does not match is a conflict
    Given a ConfigMap named "x"
    When ConfigMap "x" is deleted with options:
      """
      {"preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}}
      """
    Then the request fails with status 409 and reason Conflict
    And the failure says "The object might have been deleted and then recreated"
    And ConfigMap "x" still exists

  Scenario: A resourceVersion precondition that does not match is a conflict
    Given a ConfigMap named "x"
    When ConfigMap "x" is deleted with options:
      """
      {"preconditions": {"resourceVersion": "1"}}
      """
    Then the request fails with status 409 and reason Conflict
    And the failure says "The object might have been modified"
    And ConfigMap "x" still exists

  @upstream(TestStoreGracefulDeleteWithResourceVersion)
  Scenario: A running pod deleted with grace 0 and its current resourceVersion goes at once
    Given a Pod named "web" running on a node
    When Pod "web" is deleted with options:
      """
      {"gracePeriodSeconds": 0, "preconditions": {"resourceVersion": "${resourceVersion}"}}
      """
    Then the delete removed the object at once
    And Pod "web" is gone

  Scenario: A resourceVersion precondition conflicts with the delete's own update
    # Kubernetes is surprising here. Taking the orphan finalizer off is an update, which changes
    # the resourceVersion; the store then checks the caller's precondition again against the
    # updated object (apiserver registry/generic/registry/store.go, Delete), whose
    # resourceVersion it reads back empty, so the removal fails with a Conflict naming an empty
    # precondition, and the object is left as it was.
    Given a ConfigMap named "x" with finalizers "orphan"
    When ConfigMap "x" is deleted with options:
      """
      {"propagationPolicy": "Background", "preconditions": {"resourceVersion": "${resourceVersion}"}}
      """
    Then the request fails with status 409 and reason Conflict
    And the failure says "Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: "
    And ConfigMap "x" still exists with finalizers "orphan"

  @upstream(TestNonGracefulStoreHandleFinalizers)
  Scenario: A finalizer keeps a deleted object, until an update removes the finalizer
    Given a Deployment named "web" with finalizers "example.com/hold"
    When Deployment "web" is deleted without a body
    Then the delete kept the object with finalizers "example.com/hold"
    And Deployment "web" has "metadata.deletionGracePeriodSeconds" set to "0"
    And Deployment "web" has "metadata.generation" set to "2"
    And Deployment "web" was marked for deletion less than 5 seconds ago
    When Deployment "web" is patched with a merge patch:
      """
      {"metadata": {"labels": {"still": "here"}}}
      """
    Then Deployment "web" is terminating with finalizers "example.com/hold"
    When the finalizer "example.com/hold" is removed from Deployment "web"
    Then Deployment "web" is gone

  Scenario: Only orphanDependents=false gets 202 Accepted for a kept object
    Given a ConfigMap named "legacy" with finalizers "example.com/hold"
    And a ConfigMap named "modern" with finalizers "example.com/hold"
    When ConfigMap "legacy" is deleted with options '{"orphanDependents": false}'
    Then the request succeeds with status 202
    When ConfigMap "modern" is deleted with propagation policy Foreground
    Then the request succeeds with status 200

  @upstream(TestMarkAsDeleting/unset)
  @upstream(TestMarkAsDeleting/set-to-past)
  Scenario: A second DELETE never moves an earlier deletionTimestamp
    Given a ConfigMap named "held" with finalizers "example.com/hold"
    When ConfigMap "held" is deleted
    Then ConfigMap "held" was marked for deletion less than 5 seconds ago
    When a second has gone by
    And ConfigMap "held" is deleted
    Then ConfigMap "held" still has the deletionTimestamp of its first deletion

  Scenario: A running pod is kept for its grace period
    Given a Pod named "web" running on a node
    When Pod "web" is deleted
    Then Pod "web" is terminating with a grace period of 30 seconds

  Scenario: A negative grace period counts as one second
    # Upstream's pod strategy turns a negative grace period into 1 second. The answer to the
    # DELETE shows it; the pod itself is gone a second later, when the node finishes it. (Beside
    # the upstream control plane no kubelet runs: there the pod garbage collector removes the
    # pod once its node has been missing for 40 s, checking every 20 s.)
    Given a Pod named "web" running on a node
    When Pod "web" is deleted with options '{"gracePeriodSeconds": -5}'
    Then the response has "metadata.deletionGracePeriodSeconds" set to "1"
    And Pod "web" is gone

  Scenario: An unscheduled pod goes at once, whatever its grace period
    Given a Pod named "pending"
    When Pod "pending" is deleted with options '{"gracePeriodSeconds": 30}'
    Then the delete removed the object at once

  Scenario: A pod deleted with grace 0 but with finalizers is kept
    Given a Pod named "web" running on a node with finalizers "example.com/hold"
    When Pod "web" is deleted with options '{"gracePeriodSeconds": 0}'
    Then Pod "web" is terminating with finalizers "example.com/hold"
    And Pod "web" has "metadata.deletionGracePeriodSeconds" set to "0"

  Scenario: A second DELETE of a terminating pod changes nothing, not even its finalizers
    Given a Pod named "web" running on a node
    When Pod "web" is deleted
    And Pod "web" is deleted with propagation policy Orphan
    Then the response has "metadata.finalizers" set to "unset"
    And Pod "web" is terminating with a grace period of 30 seconds

  Scenario: A second DELETE that shortens the grace period also recomputes the finalizers
    Given a Pod named "web" running on a node
    When Pod "web" is deleted
    And Pod "web" is deleted with options '{"gracePeriodSeconds": 10, "propagationPolicy": "Orphan"}'
    Then the delete kept the object with finalizers "orphan"
    And Pod "web" is terminating with a grace period of 10 seconds

  @upstream(TestGracefulStoreHandleFinalizers)
  Scenario: A graceful pod deleted with grace 0 waits for its finalizer, then goes
    Given a Pod named "web" running on a node with finalizers "x/y"
    When Pod "web" is deleted with options '{"gracePeriodSeconds": 0}'
    Then Pod "web" is terminating with finalizers "x/y"
    When Pod "web" is patched with a merge patch:
      """
      {"metadata": {"labels": {"still": "here"}}}
      """
    Then Pod "web" is terminating with finalizers "x/y"
    When the finalizer "x/y" is removed from Pod "web"
    Then Pod "web" is gone

  Scenario: Removing the last finalizer of a pod still in its grace period does not delete it
    Given a Pod named "web" running on a node with finalizers "x/y"
    When Pod "web" is deleted
    And the finalizer "x/y" is removed from Pod "web"
    Then Pod "web" is terminating with finalizers ""
    And Pod "web" is terminating with a grace period of 30 seconds

  @upstream(TestDoubleDeletionWithFinalizer)
  Scenario: A second foreground DELETE adds foregroundDeletion again
    # "lucy" is not scheduled, so it is deleted with grace 0: a second DELETE is computed
    # afresh. Each time, the collector finds nothing to wait for and removes foregroundDeletion.
    Given a Pod named "lucy" with finalizers "x/y"
    When Pod "lucy" is deleted with propagation policy Foreground
    Then the delete kept the object with finalizers "x/y, foregroundDeletion"
    And Pod "lucy" is terminating with finalizers "x/y"
    When Pod "lucy" is deleted with propagation policy Foreground
    Then the delete kept the object with finalizers "x/y, foregroundDeletion"
    And Pod "lucy" is terminating with finalizers "x/y"
    When Pod "lucy" is patched with a JSON patch:
      """
      [{"op": "remove", "path": "/metadata/finalizers"}]
      """
    Then Pod "lucy" is gone

  @upstream(TestGracefulStoreCanDeleteIfExistingGracePeriodZero)
  Scenario: A second DELETE switches a waiting foreground deletion to orphaning
    Given a ConfigMap named "owner"
    And a ConfigMap named "held" owned by ConfigMap "owner" with blockOwnerDeletion with finalizers "example.com/hold"
    And a ConfigMap named "kept" owned by ConfigMap "owner"
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then ConfigMap "owner" is terminating with finalizers "foregroundDeletion"
    When ConfigMap "owner" is deleted with propagation policy Orphan
    Then the delete kept the object with finalizers "orphan"
    And ConfigMap "owner" is gone
    And ConfigMap "held" has owner references to ""

  Scenario: A second DELETE switches a waiting foreground deletion to background
    Given a ConfigMap named "owner"
    And a ConfigMap named "held" owned by ConfigMap "owner" with blockOwnerDeletion with finalizers "example.com/hold"
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then ConfigMap "owner" is terminating with finalizers "foregroundDeletion"
    When ConfigMap "owner" is deleted with propagation policy Background
    Then the delete removed the object at once

  @upstream(TestStoreCreate)
  Scenario: A name cannot be reused while its object is still being deleted
    Given a Pod named "web" running on a node
    When Pod "web" is deleted with options '{"gracePeriodSeconds": 50}'
    And a Pod named "web" is created
    Then the request fails with status 409 and reason AlreadyExists
    And the failure says "object is being deleted:"

  @upstream(TestDryRunDeleteDoesntDelete)
  @upstream(TestDryRunDeleteReturnsObject)
  Scenario: A dry-run DELETE answers as a real one would, and keeps the object
    # A pod's DELETE answers with the pod it deleted (or would have).
    Given a Pod named "object"
    When Pod "object" is deleted with options '{"dryRun": ["All"]}'
    Then the response has "kind" set to "Pod"
    And the response has "metadata.uid" set to "${Pod/object}"
    And Pod "object" still exists

  Scenario: A dry-run DELETE of a ConfigMap answers with the Success status it would give
    Given a ConfigMap named "object"
    When ConfigMap "object" is deleted with options '{"dryRun": ["All"]}'
    Then the response has "status" set to "Success"
    And the response has "details.uid" set to "${ConfigMap/object}"
    And ConfigMap "object" still exists

  Scenario: A dry-run foreground DELETE shows the would-be finalizers and persists none
    Given a ConfigMap named "object"
    When ConfigMap "object" is deleted with query "dryRun=All&propagationPolicy=Foreground"
    Then the delete kept the object with finalizers "foregroundDeletion"
    And ConfigMap "object" still exists
    And ConfigMap "object" has "metadata.finalizers" set to "unset"

  @upstream(TestDryRunDeleteMissingObjectFails)
  Scenario: A dry-run DELETE of a missing object is NotFound
    When ConfigMap "never-created" is deleted with options '{"dryRun": ["All"]}'
    Then the request fails with status 404 and reason NotFound

  Scenario: A dry-run DELETE still checks preconditions
    Given a ConfigMap named "object"
    When ConfigMap "object" is deleted with options '{"dryRun": ["All"], "preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}}'
    Then the request fails with status 409 and reason Conflict
    And ConfigMap "object" still exists

  Scenario: Options can come from the query when there is no body
    Given a ConfigMap named "object"
    When ConfigMap "object" is deleted with query "propagationPolicy=Orphan"
    Then the delete kept the object with finalizers "orphan"

  Scenario Outline: An Event is never given a GC finalizer (<policy>)
    Given an Event named "<name>"
    When Event "<name>" is deleted with propagation policy <policy>
    Then the delete removed the object at once

    Examples:
      | policy     | name            |
      | Orphan     | orphaned.1      |
      | Foreground | foregrounded.1  |

  Scenario: An Event with a finalizer of its own keeps only that one
    Given an Event named "held.1" with finalizers "example.com/hold"
    When Event "held.1" is deleted with propagation policy Orphan
    Then the delete kept the object with finalizers "example.com/hold"

  @upstream(TestStoreDeleteCollection)
  Scenario: DELETE on a collection deletes every object and returns them as listed
    # Secrets, not ConfigMaps: on a cluster every namespace also holds the kube-root-ca.crt
    # ConfigMap that the root-CA publisher puts there, and it would be listed too.
    Given a Secret named "c1"
    And a Secret named "c2"
    And a Secret named "c3"
    When all Secrets are deleted as a collection
    Then the response lists "c1, c2, c3"
    And Secret "c1" is gone
    And Secret "c2" is gone
    And Secret "c3" is gone

  Scenario: DELETE on a collection applies the options to each object
    Given a ConfigMap named "owner-1"
    And a ConfigMap named "owner-2"
    And a Secret named "child-1" owned by ConfigMap "owner-1"
    And a Secret named "child-2" owned by ConfigMap "owner-2"
    And the garbage collector has caught up
    When all ConfigMaps are deleted as a collection with options '{"propagationPolicy": "Orphan"}'
    Then every ConfigMap named "owner-*" is gone
    And Secret "child-1" still exists
    And Secret "child-1" has owner references to ""
    And Secret "child-2" has owner references to ""

  Scenario: DELETE on a collection deletes only the selected objects
    Given the objects in "../fixtures/labelled-configmaps.yaml"
    When all ConfigMaps are deleted as a collection with label selector "tier=cache"
    Then the response lists "cache-1, cache-2"
    And ConfigMap "cache-1" is gone
    And ConfigMap "web-1" still exists

  @upstream(TestStoreDeleteCollectionNotFound)
  Scenario: Two DELETEs on the same collection at once both succeed
    Given a ConfigMap named "batch" owning 20 Secrets
    When all Secrets are deleted as a collection by two clients at once
    Then every Secret named "batch-*" is gone

  @upstream(TestStoreDeleteCollectionWithWatch)
  Scenario: A watcher sees each object of a deleted collection go
    Given a ConfigMap named "watched"
    And a watch on ConfigMaps
    When all ConfigMaps are deleted as a collection
    Then the watch on ConfigMaps saw ConfigMap "watched" deleted

  Scenario: orphanDependents and propagationPolicy together are refused
    Given a ConfigMap named "x"
    When ConfigMap "x" is deleted with options:
      """
      {"orphanDependents": true, "propagationPolicy": "Orphan"}
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "orphanDependents and deletionPropagation cannot be both set"
    And ConfigMap "x" still exists

  Scenario: An unknown propagation policy is refused
    Given a ConfigMap named "x"
    When ConfigMap "x" is deleted with options '{"propagationPolicy": "Sideways"}'
    Then the request fails with status 422 and reason Invalid
    And the failure says "supported values"
    And ConfigMap "x" still exists

  Scenario: A dry-run value other than All is refused
    Given a ConfigMap named "x"
    When ConfigMap "x" is deleted with options '{"dryRun": ["Some"]}'
    Then the request fails with status 422 and reason Invalid
    And ConfigMap "x" still exists
