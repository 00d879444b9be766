//! Deliberately broken API servers, for judging a specification: each mutant breaks one rule
//! of the API server's half of deletion (catalogue B.1-B.4), and the specification must have a
//! scenario that fails against every one. Select one with [`crate::apiserver::Config::mutant`]
//! (`kubegc run --apiserver-mutant`); never outside such a check.

crate::mutants::define_mutants! {
    "the API server";
    /// DeleteOptions preconditions (uid, resourceVersion) are not checked (B.3 rows 2-3).
    IgnorePreconditions = "ignore-preconditions",
    /// A foreground delete never adds the `foregroundDeletion` finalizer (B.1).
    NeverAddForegroundFinalizer = "never-add-foreground-finalizer",
    /// An orphaning delete never adds the `orphan` finalizer (B.1).
    NeverAddOrphanFinalizer = "never-add-orphan-finalizer",
    /// The deprecated `orphanDependents` field is ignored (B.1).
    IgnoreOrphanDependents = "ignore-orphan-dependents",
    /// Every resource defaults to background deletion, even the legacy orphaning ones (B.2).
    IgnoreDefaultPolicies = "ignore-default-policies",
    /// A `orphan` or `foregroundDeletion` finalizer already on the object does not choose the
    /// policy of a delete that names none (B.1).
    IgnoreExistingGcFinalizers = "ignore-existing-gc-finalizers",
    /// A delete removes the object at once even when finalizers are pending (B.3).
    RemoveDespiteFinalizers = "remove-despite-finalizers",
    /// Removing the last finalizer of an object being deleted leaves it stored (B.3 row 13).
    KeepAfterLastFinalizer = "keep-after-last-finalizer",
    /// A second delete moves an earlier deletionTimestamp to now (B.3, markAsDeleting).
    MoveDeletionTimestamp = "move-deletion-timestamp",
    /// Pods are not graceful: a delete removes a running pod at once (B.3 row 9).
    PodsNotGraceful = "pods-not-graceful",
    /// `metadata.ownerReferences` are stored unvalidated (B.4).
    AcceptInvalidOwnerReferences = "accept-invalid-owner-references",
    /// Finalizers may be added to an object that is being deleted (B.3).
    AllowFinalizersWhileDeleting = "allow-finalizers-while-deleting",
    /// `metadata.finalizers` are stored unvalidated: any name, and `orphan` with
    /// `foregroundDeletion` (B.3 rows 16-17).
    AcceptInvalidFinalizers = "accept-invalid-finalizers",
    /// An update may set or change deletionTimestamp and deletionGracePeriodSeconds (B.3 row 15).
    AllowDeletionTimestampUpdates = "allow-deletion-timestamp-updates",
    /// `dryRun` is ignored by DELETE: the object really goes (B.3).
    IgnoreDryRun = "ignore-dry-run",
    /// Events get GC finalizers like any other object (B.2).
    EventsGetGcFinalizers = "events-get-gc-finalizers",
    /// A DELETE answers with the object where it should answer with a `Status`, and the other
    /// way round (B.3).
    SwapDeleteAnswers = "swap-delete-answers",
    /// DELETE on a collection ignores the label and field selectors (B.3 row 25).
    IgnoreCollectionSelector = "ignore-collection-selector",
    /// A delete with no finalizers pending marks the object instead of removing it (B.3).
    KeepWithoutFinalizers = "keep-without-finalizers",
    /// Owner references are held to rules the API server does not have: an apiVersion must be
    /// `v1` or `group/version`, and a uid may appear once (B.4).
    StrictOwnerReferences = "strict-owner-references",
    /// No finalizer may ever be added by an update, not only while the object is being deleted
    /// (B.3).
    ForbidFinalizerAdditions = "forbid-finalizer-additions",
    /// DeleteOptions are not validated (B.1): an unknown `propagationPolicy` or `dryRun` value
    /// is ignored, and `orphanDependents` with `propagationPolicy` is accepted (the latter wins).
    AcceptInvalidDeleteOptions = "accept-invalid-delete-options",
    /// A requested grace period of 0 is taken as "the pod's default" (B.3 row 9).
    GraceZeroIgnored = "grace-zero-ignored",
    /// Unscheduled and terminated pods keep their grace period (B.3 row 9).
    UnscheduledPodsGraceful = "unscheduled-pods-graceful",
    /// The namespace controller removes its finalizer without deleting the namespace's objects.
    NamespaceKeepsContents = "namespace-keeps-contents",
    /// New claims and volumes get no storage-protection finalizer (the StorageObjectInUseProtection
    /// admission plugin is off).
    NoStorageProtection = "no-storage-protection",
    /// A resourceVersion precondition survives an update that only looked at finalizers, so the
    /// removal succeeds (upstream's store conflicts, catalogue B.3 row 23 as the real server has it).
    PreconditionSurvivesFinalizerUpdate = "precondition-survives-finalizer-update",
}
