@events
Feature: Events expire
  kube-apiserver stores Events with a time to live, `--event-ttl`, an hour by default (upstream
  pkg/controlplane/apiserver/options/options.go). The Event registry
  (pkg/registry/core/event/storage/storage.go, NewREST) gives the same TTL to every create and
  every update, so an Event goes an hour after its last write, and each write starts the hour
  again; etcd removes the key when its lease runs out, and watches see the Event DELETED. No
  controller is involved, and events.k8s.io/v1 Events are the same stored objects, so the same
  TTL holds for them. (Etcd leases are shared between writes close together, so upstream an
  Event may outlive its hour by up to about a minute; these scenarios look a minute before and
  a minute after.)

  An hour is too long to wait on a real cluster and the upstream control plane keeps the
  default TTL, so these scenarios run only on the fake's virtual clock, on a cluster of their
  own.

  @own-cluster @virtual-clock
  Scenario: An Event goes an hour after it was written
    Given a cluster of its own
    And a watch on Events
    And an Event named "event"
    When 59 minutes pass
    Then Event "event" still exists
    When 2 minutes pass
    Then Event "event" is gone
    And the watch on Events saw Event "event" deleted

  @own-cluster @virtual-clock
  Scenario: Every update starts the Event's hour again
    Given a cluster of its own
    And an Event named "event"
    When 40 minutes pass
    And Event "event" is patched with a merge patch:
      """
      {"message": "seen again"}
      """
    And 40 minutes pass
    Then Event "event" still exists
    When 21 minutes pass
    Then Event "event" is gone

  @own-cluster @virtual-clock
  Scenario: An events.k8s.io Event expires as a core Event does
    Given a cluster of its own
    And an events.k8s.io Event named "event"
    When 59 minutes pass
    Then Event "event" still exists
    When 2 minutes pass
    Then Event "event" is gone
