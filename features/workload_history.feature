@workloads @nodes @own-cluster
Feature: What a workload keeps of its past
  Controllers delete what they made once it is only history. A CronJob keeps its newest
  `successfulJobsHistoryLimit` Jobs that succeeded (3 unless told otherwise) and its newest
  `failedJobsHistoryLimit` that failed (1), and deletes older finished ones in the background,
  so that their pods go with them through the garbage collector; a Job still running is never
  history, and a limit of 0 keeps none. A Deployment keeps `revisionHistoryLimit` old
  ReplicaSets (10 unless told otherwise) once they have scaled to nothing, and deletes the
  oldest beyond it.

  A CronJob makes a Job at each time its schedule names, on the cluster's clock: scenarios that
  let minutes pass need the fake's virtual clock (`@virtual-clock`); Kubernetes' own e2e tests
  of these limits run on every target in the e2e `deletion` selection.

  Sources: kubernetes pkg/controller/cronjob/cronjob_controllerv2.go (`cleanupFinishedJobs`,
  `removeOldestJobs`), pkg/controller/deployment/sync.go (`cleanupDeployment`); e2e
  test/e2e/apps/cronjob.go ("should delete successful finished jobs with limit of one
  successful job", "should delete failed finished jobs with limit of one job"),
  test/e2e/apps/deployment.go ("deployment should delete old replica sets").

  @virtual-clock
  Scenario: A CronJob keeps its three newest successful Jobs unless told otherwise
    Given a cluster of its own with 1 node
    And a CronJob named "tick" that runs "true" every minute
    When 6 minutes pass
    Then CronJob "tick" controls 3 Jobs
    And 3 Pods are left

  @virtual-clock
  Scenario: A CronJob keeps its newest failed Job unless told otherwise
    Given a cluster of its own with 1 node
    And a CronJob named "tick" that runs "false" every minute
    When 4 minutes pass
    Then CronJob "tick" controls 1 Job
    And 1 Pod is left

  @virtual-clock
  Scenario Outline: A history limit of <limit> keeps <kept> of the Jobs that <ended>
    Given a cluster of its own with 1 node
    And a CronJob named "tick" that runs "<command>" every minute, keeping <limit> successful and <limit> failed Jobs
    When 4 minutes pass
    Then CronJob "tick" controls <kept> Jobs

    Examples:
      | command | ended     | limit | kept |
      | true    | succeeded | 0     | 0    |
      | false   | failed    | 0     | 0    |
      | true    | succeeded | 2     | 2    |
      | false   | failed    | 2     | 2    |

    @upstream(CronJob/should-delete-successful-finished-jobs-with-limit-of-one-successful-job)
    Examples: the e2e test's limit of one successful Job
      | command | ended     | limit | kept |
      | true    | succeeded | 1     | 1    |

    @upstream(CronJob/should-delete-failed-finished-jobs-with-limit-of-one-job)
    Examples: the e2e test's limit of one failed Job
      | command | ended  | limit | kept |
      | false   | failed | 1     | 1    |

  @upstream(Deployment/deployment-should-delete-old-replica-sets)
  Scenario: A Deployment keeps as many old ReplicaSets as its revision history limit
    Given a cluster of its own with 1 node
    And a Deployment named "web" with 1 replica that keeps 1 old ReplicaSet
    Then Deployment "web" controls 1 ReplicaSet
    When Deployment "web" rolls out a new template
    Then Deployment "web" has "status.observedGeneration" set to "2"
    And Deployment "web" controls 2 ReplicaSets
    When Deployment "web" rolls out a new template
    Then Deployment "web" has "status.observedGeneration" set to "3"
    # The oldest goes once the rollout is complete: the new one and one old one are left.
    And Deployment "web" has "status.updatedReplicas" set to "1"
    And Deployment "web" has "status.replicas" set to "1"
    And Deployment "web" controls 2 ReplicaSets
