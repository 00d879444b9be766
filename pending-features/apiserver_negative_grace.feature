Feature: Negative grace periods (pending)
  Kept out of the specification for now: the pod's 1-second grace period runs on the real clock,
  so the node agent may finish the deletion before a loaded machine checks the terminating pod.
  It needs the fake backend's virtual clock before it can come back.

  Scenario: A negative grace period counts as one second
    Given a Pod named "web" running on a node
    When Pod "web" is deleted with options '{"gracePeriodSeconds": -5}'
    Then Pod "web" is terminating with a grace period of 1 second

