@stress
Feature: Many objects at once
  The rules do not change with numbers: many owners deleted at the same moment, in different
  ways, each get their own outcome; a wide owner takes all its dependents; a long chain deleted
  in the foreground unwinds from the leaf up. The collector works on many objects in parallel
  (kube-controller-manager runs 20 workers per queue), and no work may be lost or done twice.
  (Upstream: TestStressingCascadingDeletion, at full size.)

  @upstream(TestStressingCascadingDeletion)
  Scenario: Fifty ReplicationControllers deleted at once, five ways
    # Ten of each of upstream's five collections, one ReplicationController and three pods:
    # c1 no finalizer and no options (a v1 ReplicationController orphans by default); c2 the
    # orphan finalizer and no options; c3 the orphan finalizer but orphanDependents=false;
    # c4 orphanDependents=true; c5 propagationPolicy=Orphan. Like upstream, the scenario waits
    # for the collector to know the pods before deleting, so that orphaning reaches them.
    Given 10 ReplicationControllers named "c1-{n}" each owning 3 Pods
    And 10 ReplicationControllers named "c2-{n}" with finalizers "orphan" each owning 3 Pods
    And 10 ReplicationControllers named "c3-{n}" with finalizers "orphan" each owning 3 Pods
    And 10 ReplicationControllers named "c4-{n}" each owning 3 Pods
    And 10 ReplicationControllers named "c5-{n}" each owning 3 Pods
    And the garbage collector has caught up
    When these deletions happen at once:
      | kind                  | names | options                         |
      | ReplicationController | c1-*  | none                            |
      | ReplicationController | c2-*  | none                            |
      | ReplicationController | c3-*  | {"orphanDependents": false}     |
      | ReplicationController | c4-*  | {"orphanDependents": true}      |
      | ReplicationController | c5-*  | {"propagationPolicy": "Orphan"} |
    Then every ReplicationController named "c*" is gone
    And every Pod named "c3-*" is gone
    And 30 Pods named "c1-*" still exist
    And 30 Pods named "c2-*" still exist
    And 30 Pods named "c4-*" still exist
    And 30 Pods named "c5-*" still exist
    And every Pod named "c1-*" has owner references to ""
    And every Pod named "c2-*" has owner references to ""
    And every Pod named "c4-*" has owner references to ""
    And every Pod named "c5-*" has owner references to ""

  Scenario: An owner of a hundred dependents takes them all
    Given a ConfigMap named "hub" owning 100 Secrets
    When ConfigMap "hub" is deleted with propagation policy Background
    Then every Secret named "hub-*" is gone

  Scenario: A foreground owner of fifty blocking dependents goes after the last of them
    Given a ReplicaSet named "wide" owning 50 Pods
    When ReplicaSet "wide" is deleted with propagation policy Foreground
    Then ReplicaSet "wide" is gone
    And every Pod named "wide-*" is gone

  Scenario: A chain of twenty ConfigMaps deleted in the foreground goes entirely
    # Each link owns the next, blocking; the last link holds on until released. (How long
    # the links above wait is best-effort: the collector's cycle check can see a link whose
    # own dependent is already deleting its dependents and make it non-blocking, as upstream
    # `attemptToDeleteItem` does; only the end is certain.)
    Given a chain of 20 ConfigMaps named "link-{n}", the last with finalizers "example.com/hold"
    When ConfigMap "link-1" is deleted with propagation policy Foreground
    Then ConfigMap "link-20" is terminating with finalizers "example.com/hold"
    When the finalizer "example.com/hold" is removed from ConfigMap "link-20"
    Then every ConfigMap named "link-*" is gone

  Scenario: Fifty owners of one dependent each, deleted at once in the background
    Given 50 ConfigMaps named "owner-{n}" each owning 1 Secret
    When these deletions happen at once:
      | kind      | names   | options                             |
      | ConfigMap | owner-* | {"propagationPolicy": "Background"} |
    Then every Secret named "owner-*" is gone
