@ttl-after-finished
Feature: The TTL-after-finished controller
  A Job may ask to be deleted some time after it finishes: `spec.ttlSecondsAfterFinished`.
  kube-controller-manager's TTL-after-finished controller (on by default) watches Jobs and
  takes one that is not being deleted, has that field, and has finished — a `Complete` or
  `Failed` condition with status `True`. The Job finished at that condition's
  `lastTransitionTime`, and expires when the TTL has passed since then on the controller's
  clock (a TTL of 0 expires at once); the time it was created does not count. Before deleting,
  the controller reads the Job afresh and decides again on that copy, so a TTL removed or
  raised in the meantime is honoured, and an update that shortens it is acted on at once. It
  deletes with propagation policy `Foreground` and the Job's uid as a precondition: the Job's
  pods go first, then the Job. Jobs without a TTL, and Jobs that never finish, stay.
  (Upstream: pkg/controller/ttlafterfinished/ttlafterfinished_controller.go — `needsCleanup`,
  `jobFinishTime`, `timeLeft`, `processJob`; `IsJobFinished` in pkg/controller/job/util/utils.go;
  the test TestTimeLeft and the e2e test test/e2e/apps/ttl_after_finished.go.)

  No kubelet is needed: each Job here runs one pod with no retries, and the scenario ends that
  pod by setting its phase through the status subresource, as a kubelet reports it; the job
  controller then counts the pod and finishes the Job. Each scenario runs in a cluster of its
  own so that, on the fake, its time passes on a virtual clock; on the upstream control plane
  the TTLs are short enough to wait for. There a check that the Job still exists looks well
  before its TTL is over: the condition's time is kept in whole seconds, and the Job is seen
  finished a moment after the job controller wrote it.

  @own-cluster @upstream(TestTimeLeft/Job-completed-now-0s-TTL)
  @upstream(sig-apps-TTLAfterFinished/job-should-be-deleted-once-it-finishes-after-TTL-seconds)
  Scenario: A Job that completed with a TTL of 0 is deleted at once, in the foreground
    Given a cluster of its own
    And a Job named "pi" with a TTL of 0 seconds after it finishes whose pod has finalizer "example.com/hold"
    When the pod of Job "pi" succeeds
    Then Job "pi" is terminating with finalizers "foregroundDeletion"
    When the finalizer "example.com/hold" is removed from the pod of Job "pi"
    Then Job "pi" is gone

  @own-cluster @upstream(TestTimeLeft/Job-failed-now-0s-TTL)
  Scenario: A Job that failed with a TTL of 0 is deleted at once
    Given a cluster of its own
    And a Job named "pi" with a TTL of 0 seconds after it finishes
    When the pod of Job "pi" fails
    Then Job "pi" is gone

  @own-cluster @upstream(TestTimeLeft/Job-completed-now-10s-TTL) @upstream(TestTimeLeft/Job-completed-10s-ago-15s-TTL)
  Scenario: A completed Job is kept until its TTL has passed since it finished, not since it was created
    Given a cluster of its own
    And a Job named "pi" with a TTL of 15 seconds after it finishes
    And 20 seconds pass
    When the pod of Job "pi" succeeds
    Then Job "pi" has finished with the condition Complete
    When 5 seconds pass
    Then Job "pi" still exists
    When 15 seconds pass
    Then Job "pi" is gone

  @own-cluster @upstream(TestTimeLeft/Job-failed-now-10s-TTL) @upstream(TestTimeLeft/Job-failed-10s-ago-15s-TTL)
  Scenario: A failed Job is kept until its TTL has passed since it failed
    Given a cluster of its own
    And a Job named "pi" with a TTL of 15 seconds after it finishes
    And 20 seconds pass
    When the pod of Job "pi" fails
    Then Job "pi" has finished with the condition Failed
    When 5 seconds pass
    Then Job "pi" still exists
    When 15 seconds pass
    Then Job "pi" is gone

  @own-cluster @upstream(TestTimeLeft/Error-case-Job-unfinished)
  Scenario: A Job that has not finished is never deleted, whatever its TTL
    Given a cluster of its own
    And a Job named "pi" with a TTL of 0 seconds after it finishes
    When 20 seconds pass
    Then Job "pi" still exists
    When the pod of Job "pi" succeeds
    Then Job "pi" is gone

  @own-cluster @upstream(TestTimeLeft/Error-case-Job-completed-now-no-TTL) @upstream(TestTimeLeft/Error-case-Job-failed-now-no-TTL)
  Scenario: A finished Job without a TTL stays
    Given a cluster of its own
    And a Job named "done" with no TTL after it finishes
    And a Job named "broken" with no TTL after it finishes
    And a Job named "timed" with a TTL of 0 seconds after it finishes
    When the pod of Job "done" succeeds
    And the pod of Job "broken" fails
    And the pod of Job "timed" succeeds
    Then Job "timed" is gone
    And Job "done" has finished with the condition Complete
    And Job "broken" has finished with the condition Failed
    When 20 seconds pass
    Then Job "done" still exists
    And Job "broken" still exists

  @own-cluster
  Scenario: A TTL shortened after the Job finished is applied at once
    Given a cluster of its own
    And a Job named "pi" with a TTL of 3600 seconds after it finishes
    And the pod of Job "pi" succeeds
    And Job "pi" has finished with the condition Complete
    When Job "pi" is patched with a merge patch:
      """
      {"spec": {"ttlSecondsAfterFinished": 0}}
      """
    Then Job "pi" is gone

  @own-cluster
  Scenario: A TTL removed before it expired is honoured
    Given a cluster of its own
    And a Job named "pi" with a TTL of 10 seconds after it finishes
    And a Job named "timed" with a TTL of 10 seconds after it finishes
    And the pod of Job "pi" succeeds
    And the pod of Job "timed" succeeds
    And Job "pi" has finished with the condition Complete
    When Job "pi" is patched with a merge patch:
      """
      {"spec": {"ttlSecondsAfterFinished": null}}
      """
    And 15 seconds pass
    Then Job "timed" is gone
    And Job "pi" still exists
