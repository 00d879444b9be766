@propagation-policies
Feature: The three propagation policies, on a Deployment
  A Deployment owns a ReplicaSet, which owns the Pods (fixtures/deployment-chain.yaml holds the
  objects with the references the Deployment and ReplicaSet controllers set: the controller's,
  blocking). A DELETE of the Deployment says what should happen to the rest:
  - Background (the default): the Deployment goes at once; the collector then deletes the
    ReplicaSet, and then the Pods.
  - Foreground: the Deployment stays, marked for deletion with the `foregroundDeletion`
    finalizer, until the collector has deleted the ReplicaSet and the Pods (the ReplicaSet
    waits for its Pods in the same way). Whoever waits for the Deployment to go knows the whole
    tree is gone.
  - Orphan: the Deployment stays with the `orphan` finalizer until the collector has removed
    its reference from the ReplicaSet, then goes. The ReplicaSet and the Pods live on; the Pods
    still belong to the ReplicaSet.
  kubectl's `--cascade=background|foreground|orphan` sends these policies.
  (From the seed's design notes, "Life of a Deployment and its descendants".)

  Scenario Outline: <policy>: the ReplicaSet <replicaset> and the Pods <pods>
    Given the objects in "../fixtures/deployment-chain.yaml"
    And the garbage collector has caught up
    When Deployment "web" is deleted with propagation policy <policy>
    Then the delete <answer>
    And Deployment "web" is gone
    And ReplicaSet "web-7d9f8" <replicaset outcome>
    And Pod "web-7d9f8-a1" <pod outcome>
    And Pod "web-7d9f8-b2" <pod outcome>

    Examples:
      | policy     | replicaset          | pods                   | answer                                               | replicaset outcome         | pod outcome                         |
      | Background | goes                | go                     | removed the object at once                           | is gone                    | is gone                             |
      | Foreground | goes first          | go before it           | kept the object with finalizers "foregroundDeletion" | is gone                    | is gone                             |
      | Orphan     | stays, with no owner | stay with the ReplicaSet | kept the object with finalizers "orphan"           | has owner references to "" | has owner references to "web-7d9f8" |

  Scenario: Foreground: every level waits for the level below
    # One Pod holds on with a finalizer of its own: the ReplicaSet waits for it, and the
    # Deployment waits for the ReplicaSet.
    Given the objects in "../fixtures/deployment-chain.yaml"
    When Pod "web-7d9f8-a1" is patched with a merge patch:
      """
      {"metadata": {"finalizers": ["example.com/hold"]}}
      """
    And the garbage collector has caught up
    And Deployment "web" is deleted with propagation policy Foreground
    Then Pod "web-7d9f8-b2" is gone
    And Pod "web-7d9f8-a1" is terminating with finalizers "example.com/hold"
    And ReplicaSet "web-7d9f8" is terminating with finalizers "foregroundDeletion"
    And Deployment "web" is terminating with finalizers "foregroundDeletion"
    When the finalizer "example.com/hold" is removed from Pod "web-7d9f8-a1"
    Then ReplicaSet "web-7d9f8" is gone
    And Deployment "web" is gone

  Scenario: Background: the Deployment is gone before its ReplicaSet
    # The Pod's own finalizer keeps it, and only it, after the collector has deleted it.
    Given the objects in "../fixtures/deployment-chain.yaml"
    When Pod "web-7d9f8-a1" is patched with a merge patch:
      """
      {"metadata": {"finalizers": ["example.com/hold"]}}
      """
    And Deployment "web" is deleted with propagation policy Background
    Then the delete removed the object at once
    And ReplicaSet "web-7d9f8" is gone
    And Pod "web-7d9f8-b2" is gone
    And Pod "web-7d9f8-a1" is terminating with finalizers "example.com/hold"

  Scenario: Orphan, then Background: a new owner can adopt what was orphaned
    # After orphaning, a new Deployment whose selector matches takes the ReplicaSet over: the
    # Deployment controller adopts it where one runs, and the patch below sets the same
    # reference where none does. Deleting the new one in the background then takes the tree.
    Given the objects in "../fixtures/deployment-chain.yaml"
    And the garbage collector has caught up
    When Deployment "web" is deleted with propagation policy Orphan
    Then ReplicaSet "web-7d9f8" has owner references to ""
    Given the objects in "../fixtures/deployment-web-v2.yaml"
    When ReplicaSet "web-7d9f8" is patched with a merge patch:
      """
      {"metadata": {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web-v2",
        "uid": "${Deployment/web-v2}", "controller": true, "blockOwnerDeletion": true}]}}
      """
    And Deployment "web-v2" is deleted with propagation policy Background
    Then ReplicaSet "web-7d9f8" is gone
    And Pod "web-7d9f8-a1" is gone
    And Pod "web-7d9f8-b2" is gone
