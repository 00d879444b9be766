@foreground
Feature: Foreground cascading deletion
  With propagationPolicy=Foreground the API server keeps the owner, sets its deletionTimestamp
  and adds the `foregroundDeletion` finalizer. The garbage collector deletes the dependents
  first; once no dependent with `blockOwnerDeletion: true` is left, it removes the finalizer and
  the owner disappears. So a user who waits for the owner to go knows that its blocking
  dependents are gone too. A dependent that has dependents of its own is deleted in the
  foreground as well, so the wait reaches down the whole tree. A dependent that has another
  solid owner is not deleted: the collector removes the reference to the waiting owner instead.
  Non-blocking dependents are deleted too, but the owner does not wait for them.
  (Upstream: e2e "should keep the rc around until all its pods are deleted if the deleteOptions
  says so", "should not delete dependents that have both valid owner and owner that's waiting
  for dependents to be deleted"; TestSolidOwnerDoesNotBlockWaitingOwner.)

  @upstream(should-keep-the-rc-around-until-all-its-pods-are-deleted-if-the-deleteOptions-says-so)
  Scenario: The owner is kept until its blocking dependents are gone
    # One pod holds on with a finalizer of its own: the ReplicationController waits for it,
    # and goes only once it is gone.
    Given a ReplicationController named "rc"
    And a Pod named "rc-1" owned by ReplicationController "rc" with blockOwnerDeletion
    And a Pod named "rc-2" owned by ReplicationController "rc" with blockOwnerDeletion
    And a Pod named "rc-3" owned by ReplicationController "rc" with blockOwnerDeletion with finalizers "example.com/hold"
    And the garbage collector has caught up
    When ReplicationController "rc" is deleted with options:
      """
      {"propagationPolicy": "Foreground", "preconditions": {"uid": "${ReplicationController/rc}"}}
      """
    Then the delete kept the object with finalizers "foregroundDeletion"
    And Pod "rc-1" is gone
    And Pod "rc-2" is gone
    And Pod "rc-3" is terminating with finalizers "example.com/hold"
    And ReplicationController "rc" is terminating with finalizers "foregroundDeletion"
    When the finalizer "example.com/hold" is removed from Pod "rc-3"
    Then Pod "rc-3" is gone
    And ReplicationController "rc" is gone

  @upstream(TestSolidOwnerDoesNotBlockWaitingOwner)
  Scenario: A solid owner keeps a dependent of a foreground-deleted owner
    Given a ReplicationController named "rc1"
    And a ReplicationController named "rc2"
    And the following objects:
      | kind | name | owners                                               | blocking |
      | Pod  | pod  | ReplicationController/rc1, ReplicationController/rc2 | yes      |
    When ReplicationController "rc1" is deleted with propagation policy Foreground
    Then ReplicationController "rc1" is gone
    And Pod "pod" still exists
    And Pod "pod" has owner references to "rc2"

  @upstream(should-not-delete-dependents-that-have-both-valid-owner-and-owner-that's-waiting-for-dependents-to-be-deleted)
  Scenario: Dependents shared with a valid owner survive, with one reference left
    # Half of rc1's pods are also given to rc2 with a strategic merge patch, as the e2e test
    # does; rc1 is deleted in the foreground.
    Given a ReplicationController named "rc1"
    And a ReplicationController named "rc2"
    And a Pod named "p1" owned by ReplicationController "rc1" with blockOwnerDeletion
    And a Pod named "p2" owned by ReplicationController "rc1" with blockOwnerDeletion
    And a Pod named "p3" owned by ReplicationController "rc1" with blockOwnerDeletion
    And a Pod named "p4" owned by ReplicationController "rc1" with blockOwnerDeletion
    When Pod "p1" is patched with a strategic patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ReplicationController", "name": "rc2", "uid": "${ReplicationController/rc2}"}]}}
      """
    And Pod "p2" is patched with a strategic patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ReplicationController", "name": "rc2", "uid": "${ReplicationController/rc2}"}]}}
      """
    And ReplicationController "rc1" is deleted with propagation policy Foreground
    Then ReplicationController "rc1" is gone
    And Pod "p3" is gone
    And Pod "p4" is gone
    And Pod "p1" still exists
    And Pod "p1" has owner references to "rc2"
    And Pod "p2" still exists
    And Pod "p2" has owner references to "rc2"

  Scenario Outline: Foreground deletion of a <kind> with no dependents completes
    # The API server adds foregroundDeletion; with nothing to wait for, the collector removes
    # it at once and the object goes. A PersistentVolume also carries the
    # kubernetes.io/pv-protection finalizer the StorageObjectInUseProtection admission plugin
    # gave it at create; the pv-protection controller removes it from a volume that is not bound.
    Given a <kind> named "<name>"
    When <kind> "<name>" is deleted with propagation policy Foreground
    Then the delete kept the object with finalizers "<finalizers>"
    And <kind> "<name>" is gone

    Examples: namespaced built-in kinds
      | kind                  | name      | finalizers                                     |
      | ConfigMap             | lonely    | foregroundDeletion                             |
      | Deployment            | lonely    | foregroundDeletion                             |
      | ReplicationController | lonely    | foregroundDeletion                             |
      | Job                   | lonely    | foregroundDeletion                             |
      | ServiceAccount        | lonely    | foregroundDeletion                             |

    Examples: cluster-scoped built-in kinds
      | kind               | name                          | finalizers                                     |
      | ClusterRole        | kubegc-fg-lonely-role         | foregroundDeletion                             |
      | ClusterRoleBinding | kubegc-fg-lonely-binding      | foregroundDeletion                             |
      | PersistentVolume   | kubegc-fg-lonely-volume       | kubernetes.io/pv-protection, foregroundDeletion |

  Scenario: Foreground deletion reaches down the tree
    # "middle" has a dependent of its own, so the collector deletes it in the foreground too:
    # both wait for the leaf that holds on.
    Given a ConfigMap named "top"
    And a ConfigMap named "middle" owned by ConfigMap "top" with blockOwnerDeletion
    And a ConfigMap named "leaf" owned by ConfigMap "middle" with blockOwnerDeletion with finalizers "example.com/hold"
    When ConfigMap "top" is deleted with propagation policy Foreground
    Then ConfigMap "leaf" is terminating with finalizers "example.com/hold"
    And ConfigMap "middle" is terminating with finalizers "foregroundDeletion"
    And ConfigMap "top" is terminating with finalizers "foregroundDeletion"
    When the finalizer "example.com/hold" is removed from ConfigMap "leaf"
    Then ConfigMap "leaf" is gone
    And ConfigMap "middle" is gone
    And ConfigMap "top" is gone

  Scenario: Non-blocking dependents are deleted too, only not waited for
    Given a ConfigMap named "owner"
    And a ConfigMap named "free" owned by ConfigMap "owner"
    And a ConfigMap named "blocking" owned by ConfigMap "owner" with blockOwnerDeletion
    When ConfigMap "owner" is deleted with propagation policy Foreground
    Then ConfigMap "free" is gone
    And ConfigMap "blocking" is gone
    And ConfigMap "owner" is gone

  Scenario: A collected dependent that carries foregroundDeletion is deleted in the foreground
    # The collector deletes "middle" with the policy its own finalizers ask for: it waits for
    # its blocking dependent, which holds on.
    Given a ConfigMap named "top"
    And a ConfigMap named "middle" owned by ConfigMap "top" with finalizers "foregroundDeletion"
    And a ConfigMap named "leaf" owned by ConfigMap "middle" with blockOwnerDeletion with finalizers "example.com/hold"
    When ConfigMap "top" is deleted with propagation policy Background
    Then ConfigMap "top" is gone
    And ConfigMap "middle" is terminating with finalizers "foregroundDeletion"
    And ConfigMap "leaf" is terminating with finalizers "example.com/hold"
    When the finalizer "example.com/hold" is removed from ConfigMap "leaf"
    Then ConfigMap "middle" is gone

  Scenario: A foreground owner waits for a blocking dependent's own finalizers
    # The dependent is deleted (it gets a deletionTimestamp) but stays until its finalizer is
    # removed; the owner keeps waiting that long.
    Given a Deployment named "web"
    And a ReplicaSet named "web-1" owned by Deployment "web" with blockOwnerDeletion with finalizers "example.com/drain"
    And the garbage collector has caught up
    When Deployment "web" is deleted with propagation policy Foreground
    Then ReplicaSet "web-1" is terminating with finalizers "example.com/drain"
    And Deployment "web" is terminating with finalizers "foregroundDeletion"
    When the finalizer "example.com/drain" is removed from ReplicaSet "web-1"
    Then Deployment "web" is gone
