@apiserver
Feature: Which garbage-collection finalizer a DELETE leaves on an object
  A DELETE does not say "orphan" or "cascade" to the garbage collector directly: the API server
  turns the request into finalizers on the object. `orphan` asks the collector to orphan the
  dependents; `foregroundDeletion` asks it to delete them first; no GC finalizer means the
  object goes at once and its dependents are collected in the background. Three inputs decide,
  in this order: the request's options (`propagationPolicy`, or the deprecated
  `orphanDependents`), then a GC finalizer the object already carries, then the resource's
  default policy (orphan for a v1 ReplicationController and a batch/v1 Job, background for the
  rest). `orphanDependents=false` means background, not foreground, and strips an existing
  `foregroundDeletion`. The API server rebuilds the list: both GC finalizers are taken out,
  other finalizers keep their order, and the chosen one is appended at the end; when the
  result is the same set as before, the list is left exactly as it was. An object left with
  finalizers is kept, with a deletionTimestamp; one left with none is removed at once.
  The scenarios look at the API server's answer to the DELETE, which shows its decision before
  any collector acts. A ConfigMap stands for a resource with no default policy (upstream's
  "defStrat"), a v1 ReplicationController for one that orphans by default ("orphStrat").
  `foo.com/x` and `bar.com/y` are finalizers of other controllers. Over HTTP, "empty options"
  are a body of `{}` and upstream's "nil options" a DELETE without a body.
  (Upstream store_test.go TestStoreDeleteWithOrphanDependents,
  TestStoreDeletionPropagation, TestDeletionFinalizersForGarbageCollection.)

  Scenario Outline: <case>: a <kind> with finalizers [<finalizers>] deleted <how>
    Given a <kind> named "<case>" with finalizers "<finalizers>"
    When <kind> "<case>" is deleted <how>
    Then the delete <result>

    @upstream(TestStoreDeleteWithOrphanDependents/pod1)
    Examples:
      | case | kind      | finalizers                   | how                                       | result                                                         |
      | pod1 | ConfigMap | foo.com/x, orphan, bar.com/y | with options '{"orphanDependents": true}' | kept the object with finalizers "foo.com/x, orphan, bar.com/y" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod2)
    Examples:
      | case | kind      | finalizers           | how                                       | result                                                         |
      | pod2 | ConfigMap | foo.com/x, bar.com/y | with options '{"orphanDependents": true}' | kept the object with finalizers "foo.com/x, bar.com/y, orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod3)
    Examples:
      | case | kind      | finalizers | how                                       | result                                   |
      | pod3 | ConfigMap |            | with options '{"orphanDependents": true}' | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod4)
    Examples:
      | case | kind      | finalizers | how                                       | result                                   |
      | pod4 | ConfigMap | orphan     | with options '{"orphanDependents": true}' | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod5)
    Examples:
      | case | kind                  | finalizers                   | how                                        | result                                                 |
      | pod5 | ReplicationController | foo.com/x, orphan, bar.com/y | with options '{"orphanDependents": false}' | kept the object with finalizers "foo.com/x, bar.com/y" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod6)
    Examples:
      | case | kind                  | finalizers           | how                                        | result                                                 |
      | pod6 | ReplicationController | foo.com/x, bar.com/y | with options '{"orphanDependents": false}' | kept the object with finalizers "foo.com/x, bar.com/y" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod7)
    Examples:
      | case | kind                  | finalizers | how                                        | result                     |
      | pod7 | ReplicationController |            | with options '{"orphanDependents": false}' | removed the object at once |

    @upstream(TestStoreDeleteWithOrphanDependents/pod8)
    Examples:
      | case | kind                  | finalizers | how                                        | result                     |
      | pod8 | ReplicationController | orphan     | with options '{"orphanDependents": false}' | removed the object at once |

    @upstream(TestStoreDeleteWithOrphanDependents/pod9)
    Examples:
      | case | kind      | finalizers                   | how               | result                                                         |
      | pod9 | ConfigMap | foo.com/x, orphan, bar.com/y | with options '{}' | kept the object with finalizers "foo.com/x, orphan, bar.com/y" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod10)
    Examples:
      | case  | kind                  | finalizers                   | how               | result                                                         |
      | pod10 | ReplicationController | foo.com/x, orphan, bar.com/y | with options '{}' | kept the object with finalizers "foo.com/x, orphan, bar.com/y" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod11)
    Examples:
      | case  | kind      | finalizers           | how               | result                                                 |
      | pod11 | ConfigMap | foo.com/x, bar.com/y | with options '{}' | kept the object with finalizers "foo.com/x, bar.com/y" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod12)
    Examples:
      | case  | kind                  | finalizers           | how               | result                                                         |
      | pod12 | ReplicationController | foo.com/x, bar.com/y | with options '{}' | kept the object with finalizers "foo.com/x, bar.com/y, orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod13)
    Examples:
      | case  | kind      | finalizers | how               | result                     |
      | pod13 | ConfigMap |            | with options '{}' | removed the object at once |

    @upstream(TestStoreDeleteWithOrphanDependents/pod14)
    Examples:
      | case  | kind                  | finalizers | how               | result                                   |
      | pod14 | ReplicationController |            | with options '{}' | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod15)
    Examples:
      | case  | kind      | finalizers | how               | result                                   |
      | pod15 | ConfigMap | orphan     | with options '{}' | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod16)
    Examples:
      | case  | kind                  | finalizers | how               | result                                   |
      | pod16 | ReplicationController | orphan     | with options '{}' | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod17)
    Examples:
      | case  | kind      | finalizers                   | how            | result                                                         |
      | pod17 | ConfigMap | foo.com/x, orphan, bar.com/y | without a body | kept the object with finalizers "foo.com/x, orphan, bar.com/y" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod18)
    Examples:
      | case  | kind                  | finalizers                   | how            | result                                                         |
      | pod18 | ReplicationController | foo.com/x, orphan, bar.com/y | without a body | kept the object with finalizers "foo.com/x, orphan, bar.com/y" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod19)
    Examples:
      | case  | kind      | finalizers           | how            | result                                                 |
      | pod19 | ConfigMap | foo.com/x, bar.com/y | without a body | kept the object with finalizers "foo.com/x, bar.com/y" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod20)
    Examples:
      | case  | kind                  | finalizers           | how            | result                                                         |
      | pod20 | ReplicationController | foo.com/x, bar.com/y | without a body | kept the object with finalizers "foo.com/x, bar.com/y, orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod21)
    Examples:
      | case  | kind      | finalizers | how            | result                     |
      | pod21 | ConfigMap |            | without a body | removed the object at once |

    @upstream(TestStoreDeleteWithOrphanDependents/pod22)
    Examples:
      | case  | kind                  | finalizers | how            | result                                   |
      | pod22 | ReplicationController |            | without a body | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod23)
    Examples:
      | case  | kind      | finalizers | how            | result                                   |
      | pod23 | ConfigMap | orphan     | without a body | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeleteWithOrphanDependents/pod24)
    Examples:
      | case  | kind                  | finalizers | how            | result                                   |
      | pod24 | ReplicationController | orphan     | without a body | kept the object with finalizers "orphan" |

  Scenario Outline: <existing>, <policy>, on a <kind>
    Given a <kind> named "object" with finalizers "<finalizers>"
    When <kind> "object" is deleted <how>
    Then the delete <result>

    @upstream(TestStoreDeletionPropagation/no-existing-finalizers-Foreground-defStrat)
    Examples:
      | existing               | finalizers | policy     | kind      | how                                | result                                               |
      | no existing finalizers |            | Foreground | ConfigMap | with propagation policy Foreground | kept the object with finalizers "foregroundDeletion" |

    @upstream(TestStoreDeletionPropagation/no-existing-finalizers-Foreground-orphStrat)
    Examples:
      | existing               | finalizers | policy     | kind                  | how                                | result                                               |
      | no existing finalizers |            | Foreground | ReplicationController | with propagation policy Foreground | kept the object with finalizers "foregroundDeletion" |

    @upstream(TestStoreDeletionPropagation/no-existing-finalizers-Background-defStrat)
    Examples:
      | existing               | finalizers | policy     | kind      | how                                | result                     |
      | no existing finalizers |            | Background | ConfigMap | with propagation policy Background | removed the object at once |

    @upstream(TestStoreDeletionPropagation/no-existing-finalizers-Background-orphStrat)
    Examples:
      | existing               | finalizers | policy     | kind                  | how                                | result                     |
      | no existing finalizers |            | Background | ReplicationController | with propagation policy Background | removed the object at once |

    @upstream(TestStoreDeletionPropagation/no-existing-finalizers-Orphan-defStrat)
    Examples:
      | existing               | finalizers | policy | kind      | how                            | result                                   |
      | no existing finalizers |            | Orphan | ConfigMap | with propagation policy Orphan | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeletionPropagation/no-existing-finalizers-Orphan-orphStrat)
    Examples:
      | existing               | finalizers | policy | kind                  | how                            | result                                   |
      | no existing finalizers |            | Orphan | ReplicationController | with propagation policy Orphan | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeletionPropagation/no-existing-finalizers-Default-defStrat)
    Examples:
      | existing               | finalizers | policy  | kind      | how               | result                     |
      | no existing finalizers |            | Default | ConfigMap | with options '{}' | removed the object at once |

    @upstream(TestStoreDeletionPropagation/no-existing-finalizers-Default-orphStrat)
    Examples:
      | existing               | finalizers | policy  | kind                  | how               | result                                   |
      | no existing finalizers |            | Default | ReplicationController | with options '{}' | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeletionPropagation/existing-orphan-finalizer-Foreground-defStrat)
    Examples:
      | existing                  | finalizers | policy     | kind      | how                                | result                                               |
      | existing orphan finalizer | orphan     | Foreground | ConfigMap | with propagation policy Foreground | kept the object with finalizers "foregroundDeletion" |

    @upstream(TestStoreDeletionPropagation/existing-orphan-finalizer-Foreground-orphStrat)
    Examples:
      | existing                  | finalizers | policy     | kind                  | how                                | result                                               |
      | existing orphan finalizer | orphan     | Foreground | ReplicationController | with propagation policy Foreground | kept the object with finalizers "foregroundDeletion" |

    @upstream(TestStoreDeletionPropagation/existing-orphan-finalizer-Background-defStrat)
    Examples:
      | existing                  | finalizers | policy     | kind      | how                                | result                     |
      | existing orphan finalizer | orphan     | Background | ConfigMap | with propagation policy Background | removed the object at once |

    @upstream(TestStoreDeletionPropagation/existing-orphan-finalizer-Background-orphStrat)
    Examples:
      | existing                  | finalizers | policy     | kind                  | how                                | result                     |
      | existing orphan finalizer | orphan     | Background | ReplicationController | with propagation policy Background | removed the object at once |

    @upstream(TestStoreDeletionPropagation/existing-orphan-finalizer-Orphan-defStrat)
    Examples:
      | existing                  | finalizers | policy | kind      | how                            | result                                   |
      | existing orphan finalizer | orphan     | Orphan | ConfigMap | with propagation policy Orphan | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeletionPropagation/existing-orphan-finalizer-Orphan-orphStrat)
    Examples:
      | existing                  | finalizers | policy | kind                  | how                            | result                                   |
      | existing orphan finalizer | orphan     | Orphan | ReplicationController | with propagation policy Orphan | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeletionPropagation/existing-orphan-finalizer-Default-defStrat)
    Examples:
      | existing                  | finalizers | policy  | kind      | how               | result                                   |
      | existing orphan finalizer | orphan     | Default | ConfigMap | with options '{}' | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeletionPropagation/existing-orphan-finalizer-Default-orphStrat)
    Examples:
      | existing                  | finalizers | policy  | kind                  | how               | result                                   |
      | existing orphan finalizer | orphan     | Default | ReplicationController | with options '{}' | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeletionPropagation/existing-deleteDependents-finalizer-Foreground-defStrat)
    Examples:
      | existing                            | finalizers         | policy     | kind      | how                                | result                                               |
      | existing deleteDependents finalizer | foregroundDeletion | Foreground | ConfigMap | with propagation policy Foreground | kept the object with finalizers "foregroundDeletion" |

    @upstream(TestStoreDeletionPropagation/existing-deleteDependents-finalizer-Foreground-orphStrat)
    Examples:
      | existing                            | finalizers         | policy     | kind                  | how                                | result                                               |
      | existing deleteDependents finalizer | foregroundDeletion | Foreground | ReplicationController | with propagation policy Foreground | kept the object with finalizers "foregroundDeletion" |

    @upstream(TestStoreDeletionPropagation/existing-deleteDependents-finalizer-Background-defStrat)
    Examples:
      | existing                            | finalizers         | policy     | kind      | how                                | result                     |
      | existing deleteDependents finalizer | foregroundDeletion | Background | ConfigMap | with propagation policy Background | removed the object at once |

    @upstream(TestStoreDeletionPropagation/existing-deleteDependents-finalizer-Background-orphStrat)
    Examples:
      | existing                            | finalizers         | policy     | kind                  | how                                | result                     |
      | existing deleteDependents finalizer | foregroundDeletion | Background | ReplicationController | with propagation policy Background | removed the object at once |

    @upstream(TestStoreDeletionPropagation/existing-deleteDependents-finalizer-Orphan-defStrat)
    Examples:
      | existing                            | finalizers         | policy | kind      | how                            | result                                   |
      | existing deleteDependents finalizer | foregroundDeletion | Orphan | ConfigMap | with propagation policy Orphan | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeletionPropagation/existing-deleteDependents-finalizer-Orphan-orphStrat)
    Examples:
      | existing                            | finalizers         | policy | kind                  | how                            | result                                   |
      | existing deleteDependents finalizer | foregroundDeletion | Orphan | ReplicationController | with propagation policy Orphan | kept the object with finalizers "orphan" |

    @upstream(TestStoreDeletionPropagation/existing-deleteDependents-finalizer-Default-defStrat)
    Examples:
      | existing                            | finalizers         | policy  | kind      | how               | result                                               |
      | existing deleteDependents finalizer | foregroundDeletion | Default | ConfigMap | with options '{}' | kept the object with finalizers "foregroundDeletion" |

    @upstream(TestStoreDeletionPropagation/existing-deleteDependents-finalizer-Default-orphStrat)
    Examples:
      | existing                            | finalizers         | policy  | kind                  | how               | result                                               |
      | existing deleteDependents finalizer | foregroundDeletion | Default | ReplicationController | with options '{}' | kept the object with finalizers "foregroundDeletion" |

  Scenario Outline: A <kind> deleted with empty options is <verdict>
    # The default policy depends on the resource and the version the request is made at:
    # only a v1 ReplicationController and a batch/v1 Job orphan by default.
    Given a <kind> named "defaults"
    When <kind> "defaults" is deleted with options '{}'
    Then the delete <result>

    Examples: kinds that orphan by default
      | kind                  | verdict                       | result                                   |
      | ReplicationController | kept to orphan its dependents | kept the object with finalizers "orphan" |
      | Job                   | kept to orphan its dependents | kept the object with finalizers "orphan" |

    @upstream(TestDeletionFinalizersForGarbageCollection/apps/v1)
    Examples: apps/v1 kinds, which no longer orphan by default
      | kind        | verdict         | result                     |
      | Deployment  | removed at once | removed the object at once |
      | ReplicaSet  | removed at once | removed the object at once |
      | DaemonSet   | removed at once | removed the object at once |
      | StatefulSet | removed at once | removed the object at once |

    Examples: other kinds
      | kind        | verdict         | result                     |
      | CronJob     | removed at once | removed the object at once |
      | ConfigMap   | removed at once | removed the object at once |
      | ClusterRole | removed at once | removed the object at once |

  Scenario: orphanDependents=false strips an existing foregroundDeletion
    Given a ConfigMap named "object" with finalizers "example.com/hold, foregroundDeletion"
    When ConfigMap "object" is deleted with options '{"orphanDependents": false}'
    Then the delete kept the object with finalizers "example.com/hold"
    And the request succeeds with status 202

  Scenario: Finalizers that are kept as a set keep their order
    Given a ConfigMap named "object" with finalizers "foo.com/x, orphan, bar.com/y"
    When ConfigMap "object" is deleted with propagation policy Orphan
    Then the delete kept the object with finalizers "foo.com/x, orphan, bar.com/y"

  Scenario: A switched GC finalizer is appended after the others
    Given a ConfigMap named "object" with finalizers "foo.com/x, orphan, bar.com/y"
    When ConfigMap "object" is deleted with propagation policy Foreground
    Then the delete kept the object with finalizers "foo.com/x, bar.com/y, foregroundDeletion"
