@apiserver @validation
Feature: What the API server accepts in owner references, finalizers and deletion fields
  The API server checks the shape of owner references, not what they point at: each needs an
  apiVersion with a version, a kind, a name and a uid; a v1 Event cannot be an owner; and at
  most one reference may be the controller. That the owner exists, that its kind is served,
  that it lives in the same namespace, are never checked (maintainers declined to, issue
  #65200): the garbage collector deals with such references later.
  Finalizers must be qualified names, `orphan` and `foregroundDeletion` cannot both be set, and
  once an object is being deleted no finalizer can be added (removing is fine; only a DELETE
  may still add a GC finalizer). The deletion fields, `deletionTimestamp` and
  `deletionGracePeriodSeconds`, belong to the API server: no update can set, change or clear
  them. These checks run on creation and on every update.
  (Upstream apimachinery ValidateObjectMeta and ValidateObjectMetaUpdate; objectmeta_test.go.)

  @upstream(TestValidateObjectMetaOwnerReferences/simple-success-third-party-extension)
  Scenario: An owner of a kind no API serves is accepted
    When a ConfigMap named "child" is created with owner references:
      """
      [{"apiVersion": "customresourceVersion", "kind": "customresourceKind", "name": "name", "uid": "1"}]
      """
    Then the request succeeds

  @upstream(TestValidateObjectMetaOwnerReferences/event-shouldn't-be-set-as-an-owner)
  Scenario: A v1 Event cannot be an owner
    When a ConfigMap named "child" is created with owner references:
      """
      [{"apiVersion": "v1", "kind": "Event", "name": "name", "uid": "1"}]
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "is disallowed from being an owner"

  @upstream(TestValidateObjectMetaOwnerReferences/one-reference-with-Controller-set)
  Scenario: One controller reference among several is accepted
    When a ConfigMap named "child" is created with owner references:
      """
      [{"apiVersion": "customresourceVersion", "kind": "customresourceKind1", "name": "name", "uid": "1", "controller": false},
       {"apiVersion": "customresourceVersion", "kind": "customresourceKind2", "name": "name", "uid": "2", "controller": true},
       {"apiVersion": "customresourceVersion", "kind": "customresourceKind3", "name": "name", "uid": "3", "controller": false},
       {"apiVersion": "customresourceVersion", "kind": "customresourceKind4", "name": "name", "uid": "4"}]
      """
    Then the request succeeds

  @upstream(TestValidateObjectMetaOwnerReferences/two-references-with-Controller-set)
  Scenario: Two controller references are refused
    When a ConfigMap named "child" is created with owner references:
      """
      [{"apiVersion": "customresourceVersion", "kind": "customresourceKind1", "name": "name", "uid": "1", "controller": false},
       {"apiVersion": "customresourceVersion", "kind": "customresourceKind2", "name": "name", "uid": "2", "controller": true},
       {"apiVersion": "customresourceVersion", "kind": "customresourceKind3", "name": "name", "uid": "3", "controller": true},
       {"apiVersion": "customresourceVersion", "kind": "customresourceKind4", "name": "name", "uid": "4"}]
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "Only one reference can have Controller set to true. Found \"true\" in references for customresourceKind2/name and customresourceKind3/name"

  Scenario: A second controller reference added by an update is refused too
    Given a ConfigMap named "first"
    And a ConfigMap named "second"
    And a ConfigMap named "child" with owner references:
      """
      [{"apiVersion": "v1", "kind": "ConfigMap", "name": "first", "uid": "${ConfigMap/first}", "controller": true}]
      """
    When ConfigMap "child" is patched with a JSON patch:
      """
      [{"op": "add", "path": "/metadata/ownerReferences/-",
        "value": {"apiVersion": "v1", "kind": "ConfigMap", "name": "second", "uid": "${ConfigMap/second}", "controller": true}}]
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "Only one reference can have Controller set to true"
    And ConfigMap "child" has owner references to "first"

  Scenario Outline: An owner reference without <field> is refused
    When a ConfigMap named "child" is created with owner references:
      """
      [<reference>]
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "<message>"

    Examples:
      | field      | reference                                                               | message                   |
      | a version  | {"apiVersion": "example.com/", "kind": "Thing", "name": "t", "uid": "1"} | ownerReferences[0].apiVersion: Invalid value: "example.com/": must be <group>/<version> or <version> |
      | an apiVersion | {"apiVersion": "", "kind": "Thing", "name": "t", "uid": "1"}             | ownerReferences[0].apiVersion: Required value: must not be empty                                   |
      | a kind     | {"apiVersion": "v1", "kind": "", "name": "t", "uid": "1"}                | ownerReferences[0].kind: Required value: must not be empty                                         |
      | a name     | {"apiVersion": "v1", "kind": "Thing", "name": "", "uid": "1"}            | ownerReferences[0].name: Required value: must not be empty                                         |
      | a uid      | {"apiVersion": "v1", "kind": "Thing", "name": "t", "uid": ""}            | ownerReferences[0].uid: Required value: must not be empty                                          |

  Scenario: An owner in another namespace, or twice the same uid, is accepted
    Given a ConfigMap named "elsewhere" in another namespace
    When a ConfigMap named "child" is created with owner references:
      """
      [{"apiVersion": "v1", "kind": "ConfigMap", "name": "elsewhere", "uid": "${ConfigMap/elsewhere}"},
       {"apiVersion": "v1", "kind": "Secret", "name": "elsewhere", "uid": "${ConfigMap/elsewhere}"}]
      """
    Then the request succeeds

  @upstream(TestValidateFinalizersUpdate/invalid-adding-finalizers)
  Scenario: No finalizer can be added once an object is being deleted
    Given a ConfigMap named "held" with finalizers "x/a"
    When ConfigMap "held" is deleted
    And ConfigMap "held" is patched with a merge patch:
      """
      {"metadata": {"finalizers": ["x/a", "y/b"]}}
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "no new finalizers can be added if the object is being deleted"
    And the failure says "y/b"
    And ConfigMap "held" is terminating with finalizers "x/a"

  @upstream(TestValidateFinalizersUpdate/invalid-changing-finalizers)
  Scenario: No finalizer can be swapped for another once an object is being deleted
    Given a ConfigMap named "held" with finalizers "x/a"
    When ConfigMap "held" is deleted
    And ConfigMap "held" is patched with a merge patch:
      """
      {"metadata": {"finalizers": ["x/b"]}}
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "x/b"
    And ConfigMap "held" is terminating with finalizers "x/a"

  @upstream(TestValidateFinalizersUpdate/valid-removing-finalizers)
  Scenario: Finalizers can be removed while an object is being deleted
    Given a ConfigMap named "held" with finalizers "x/a, y/b"
    When ConfigMap "held" is deleted
    And ConfigMap "held" is patched with a merge patch:
      """
      {"metadata": {"finalizers": ["x/a"]}}
      """
    Then the request succeeds
    And ConfigMap "held" is terminating with finalizers "x/a"

  @upstream(TestValidateFinalizersUpdate/valid-adding-finalizers-for-objects-not-being-deleted)
  Scenario: Finalizers can be added to an object that is not being deleted
    Given a ConfigMap named "live" with finalizers "x/a"
    When ConfigMap "live" is patched with a merge patch:
      """
      {"metadata": {"finalizers": ["x/a", "y/b"]}}
      """
    Then the request succeeds
    And ConfigMap "live" has "metadata.finalizers.1" set to "y/b"

  @upstream(TestValidateFinalizersPreventConflictingFinalizers)
  Scenario: orphan and foregroundDeletion cannot both be set
    When a ConfigMap named "torn" is created with finalizers "orphan, foregroundDeletion"
    Then the request fails with status 422 and reason Invalid
    And the failure says "cannot be both set"

  Scenario: orphan and foregroundDeletion cannot both be set by an update either
    Given a ConfigMap named "torn" with finalizers "orphan"
    When ConfigMap "torn" is patched with a merge patch:
      """
      {"metadata": {"finalizers": ["orphan", "foregroundDeletion"]}}
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "cannot be both set"

  Scenario: A finalizer must be a qualified name
    When a ConfigMap named "odd" is created with finalizers "not a qualified name!"
    Then the request fails with status 422 and reason Invalid
    When a ConfigMap named "fine" is created with finalizers "orphan, x/y, example.com/clean-up"
    Then the request succeeds

  @upstream(TestValidateObjectMetaUpdatePreventsDeletionFieldMutation/valid-without-deletion-fields)
  Scenario: An update of an object that is not being deleted is accepted
    Given a ConfigMap named "live"
    When ConfigMap "live" is patched with a merge patch:
      """
      {"metadata": {"labels": {"touched": "yes"}}}
      """
    Then the request succeeds

  @upstream(TestValidateObjectMetaUpdatePreventsDeletionFieldMutation/valid-with-deletion-fields)
  Scenario: An update that keeps the deletion fields as they are is accepted
    Given a Pod named "web" running on a node
    When Pod "web" is deleted
    And Pod "web" is patched with a merge patch:
      """
      {"metadata": {"labels": {"touched": "yes"}}}
      """
    Then the request succeeds
    And Pod "web" is terminating with a grace period of 30 seconds

  @upstream(TestValidateObjectMetaUpdatePreventsDeletionFieldMutation/invalid-set-deletionTimestamp)
  Scenario: An update cannot set a deletionTimestamp
    Given a ConfigMap named "live"
    When ConfigMap "live" is patched with a merge patch:
      """
      {"metadata": {"deletionTimestamp": "2030-01-01T00:00:00Z"}}
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "field is immutable"
    And ConfigMap "live" still exists

  @upstream(TestValidateObjectMetaUpdatePreventsDeletionFieldMutation/invalid-clear-deletionTimestamp)
  Scenario: An update cannot clear a deletionTimestamp: the API server keeps it
    # Upstream's validation would refuse it, but the update never gets there: before
    # validating, the API server copies the stored deletionTimestamp into the update
    # (rest.BeforeUpdate), so the request succeeds and changes nothing.
    Given a ConfigMap named "held" with finalizers "x/a"
    When ConfigMap "held" is deleted
    And ConfigMap "held" is patched with a merge patch:
      """
      {"metadata": {"deletionTimestamp": null}}
      """
    Then the request succeeds
    And ConfigMap "held" is terminating with finalizers "x/a"

  @upstream(TestValidateObjectMetaUpdatePreventsDeletionFieldMutation/invalid-change-deletionTimestamp)
  Scenario: An update cannot change a deletionTimestamp: the API server keeps it
    Given a ConfigMap named "held" with finalizers "x/a"
    When ConfigMap "held" is deleted
    And ConfigMap "held" is patched with a merge patch:
      """
      {"metadata": {"deletionTimestamp": "2030-01-01T00:00:00Z"}}
      """
    Then the request succeeds
    And ConfigMap "held" was marked for deletion less than 5 seconds ago

  @upstream(TestValidateObjectMetaUpdatePreventsDeletionFieldMutation/invalid-set-deletionGracePeriodSeconds)
  Scenario: An update cannot set deletionGracePeriodSeconds
    Given a ConfigMap named "live"
    When ConfigMap "live" is patched with a merge patch:
      """
      {"metadata": {"deletionGracePeriodSeconds": 30}}
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "field is immutable"

  @upstream(TestValidateObjectMetaUpdatePreventsDeletionFieldMutation/invalid-clear-deletionGracePeriodSeconds)
  Scenario: An update cannot clear deletionGracePeriodSeconds: the API server keeps it
    # As with the deletionTimestamp, the stored value is copied into the update first.
    Given a Pod named "web" running on a node
    When Pod "web" is deleted
    And Pod "web" is patched with a merge patch:
      """
      {"metadata": {"deletionGracePeriodSeconds": null}}
      """
    Then the request succeeds
    And Pod "web" is terminating with a grace period of 30 seconds

  @upstream(TestValidateObjectMetaUpdatePreventsDeletionFieldMutation/invalid-change-deletionGracePeriodSeconds)
  Scenario: An update cannot change deletionGracePeriodSeconds
    Given a Pod named "web" running on a node
    When Pod "web" is deleted
    And Pod "web" is patched with a merge patch:
      """
      {"metadata": {"deletionGracePeriodSeconds": 40}}
      """
    Then the request fails with status 422 and reason Invalid
    And the failure says "field is immutable"
    And Pod "web" is terminating with a grace period of 30 seconds
