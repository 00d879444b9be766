//! Deliberately broken API servers, for judging a specification: each mutant breaks one rule
//! of the API server's half of deletion (k8s.io/apiserver's generic store, apimachinery's
//! metadata validation), and the specification must have a scenario that fails against every
//! one. Select one with [`crate::apiserver::Config::mutant`] (`kubegc run --apiserver-mutant`);
//! never outside such a check.
//!
//! The reference rules ([`crate::apiserver::deletion`], [`crate::apiserver::validation`],
//! [`crate::apiserver::admission`], the kinds' hooks in [`crate::apiserver::kinds`]) know
//! nothing of mutants. Whoever takes a rule's decision on to the next step — the dispatch in
//! [`crate::apiserver::http`] (DeleteOptions), the verbs of [`crate::apiserver::storage`]
//! (create, update, delete, and the [`crate::apiserver::storage::delete::DeletePlanner`] that a
//! kind's delete is planned with) and the namespace controller — passes it through
//! [`Mutable`] first, the one place where a mutant reaches the server; the implementations below say what
//! each mutant makes of the decision of the rule it breaks. The rules that two mutants add, which
//! the API server does not have, live here too.

use serde_json::{Value, json};

use crate::apiserver::admission::Admission;
use crate::apiserver::catalogue::DefaultGcPolicy;
use crate::apiserver::catalogue::NamespacedResources;
use crate::apiserver::deletion::{
    AfterUpdate, DeleteAnswer, DeleteOptions, DeleteRequest, Ending, FinalizerChange, GracePeriod, PolicySources, PreconditionCheck,
};
use crate::apiserver::selectors::Selection;
use crate::apiserver::status::FieldError;
use crate::apiserver::validation::{MetaRule, MetaValidation, new_finalizers_refused};
use crate::metadata::{FINALIZER_FOREGROUND, FINALIZER_ORPHAN};

crate::mutants::define_mutants! {
    "the API server";
    /// DeleteOptions preconditions (uid, resourceVersion) are not checked (upstream
    /// `rest.BeforeDelete`).
    IgnorePreconditions = "ignore-preconditions",
    /// A foreground delete never adds the `foregroundDeletion` finalizer (upstream
    /// `deletionFinalizersForGarbageCollection`).
    NeverAddForegroundFinalizer = "never-add-foreground-finalizer",
    /// An orphaning delete never adds the `orphan` finalizer (upstream
    /// `deletionFinalizersForGarbageCollection`).
    NeverAddOrphanFinalizer = "never-add-orphan-finalizer",
    /// The deprecated `orphanDependents` field is ignored (upstream `shouldOrphanDependents`,
    /// `shouldDeleteDependents`).
    IgnoreOrphanDependents = "ignore-orphan-dependents",
    /// Every resource defaults to background deletion, even the legacy orphaning ones (upstream
    /// `DefaultGarbageCollectionPolicy`).
    IgnoreDefaultPolicies = "ignore-default-policies",
    /// A `orphan` or `foregroundDeletion` finalizer already on the object does not choose the
    /// policy of a delete that names none (upstream `shouldOrphanDependents`,
    /// `shouldDeleteDependents`).
    IgnoreExistingGcFinalizers = "ignore-existing-gc-finalizers",
    /// A delete removes the object at once even when finalizers are pending (upstream `Delete`
    /// in `store.go`).
    RemoveDespiteFinalizers = "remove-despite-finalizers",
    /// Removing the last finalizer of an object being deleted leaves it stored (upstream
    /// `ShouldDeleteDuringUpdate`).
    KeepAfterLastFinalizer = "keep-after-last-finalizer",
    /// A second delete moves an earlier deletionTimestamp to now (upstream `markAsDeleting`).
    MoveDeletionTimestamp = "move-deletion-timestamp",
    /// Pods are not graceful: a delete removes a running pod at once (upstream pod strategy's
    /// `CheckGracefulDelete`).
    PodsNotGraceful = "pods-not-graceful",
    /// `metadata.ownerReferences` are stored unvalidated (apimachinery `ValidateOwnerReferences`).
    AcceptInvalidOwnerReferences = "accept-invalid-owner-references",
    /// Finalizers may be added to an object that is being deleted (apimachinery
    /// `ValidateObjectMetaUpdate`).
    AllowFinalizersWhileDeleting = "allow-finalizers-while-deleting",
    /// `metadata.finalizers` are stored unvalidated: any name, and `orphan` with
    /// `foregroundDeletion` (apimachinery `ValidateObjectMeta`).
    AcceptInvalidFinalizers = "accept-invalid-finalizers",
    /// An update may set or change deletionTimestamp and deletionGracePeriodSeconds (apimachinery
    /// `ValidateObjectMetaUpdate`).
    AllowDeletionTimestampUpdates = "allow-deletion-timestamp-updates",
    /// `dryRun` is ignored by DELETE: the object really goes (upstream `Delete` in `store.go`).
    IgnoreDryRun = "ignore-dry-run",
    /// Events get GC finalizers like any other object (upstream, their
    /// `DefaultGarbageCollectionPolicy` is `Unsupported`).
    EventsGetGcFinalizers = "events-get-gc-finalizers",
    /// A DELETE answers with the object where it should answer with a `Status`, and the other
    /// way round (upstream store's `ReturnDeletedObject`).
    SwapDeleteAnswers = "swap-delete-answers",
    /// DELETE on a collection ignores the label and field selectors (upstream `DeleteCollection`).
    IgnoreCollectionSelector = "ignore-collection-selector",
    /// A delete with no finalizers pending marks the object instead of removing it (upstream
    /// `Delete` in `store.go`).
    KeepWithoutFinalizers = "keep-without-finalizers",
    /// Owner references are held to rules the API server does not have: an apiVersion must be
    /// `v1` or `group/version`, and a uid may appear once (neither is in apimachinery
    /// `ValidateOwnerReferences`).
    StrictOwnerReferences = "strict-owner-references",
    /// No finalizer may ever be added by an update, not only while the object is being deleted
    /// (apimachinery `ValidateObjectMetaUpdate`).
    ForbidFinalizerAdditions = "forbid-finalizer-additions",
    /// DeleteOptions are not validated (upstream's delete handler and `rest.BeforeDelete` do): an
    /// unknown `propagationPolicy` or `dryRun` value is ignored, and `orphanDependents` with
    /// `propagationPolicy` is accepted (the latter wins).
    AcceptInvalidDeleteOptions = "accept-invalid-delete-options",
    /// A requested grace period of 0 is taken as "the pod's default" (upstream
    /// `CheckGracefulDelete`).
    GraceZeroIgnored = "grace-zero-ignored",
    /// Unscheduled and terminated pods keep their grace period (upstream `CheckGracefulDelete`).
    UnscheduledPodsGraceful = "unscheduled-pods-graceful",
    /// The namespace controller removes its finalizer without deleting the namespace's objects.
    NamespaceKeepsContents = "namespace-keeps-contents",
    /// New claims and volumes get no storage-protection finalizer (the StorageObjectInUseProtection
    /// admission plugin is off).
    NoStorageProtection = "no-storage-protection",
    /// A resourceVersion precondition survives an update that only looked at finalizers, so the
    /// removal succeeds (upstream `Delete` in `store.go` conflicts, as the real server shows).
    PreconditionSurvivesFinalizerUpdate = "precondition-survives-finalizer-update",
    /// An Event's time to live counts from its create only: updates do not restart it
    /// (upstream's Event storage, `NewREST`, restarts it on every write).
    EventTtlNotRestarted = "event-ttl-not-restarted",
    /// Events never expire: the API server keeps them however long ago they were written
    /// (upstream's Event storage, `NewREST`, gives every write a time to live).
    EventTtlNeverExpires = "event-ttl-never-expires",
}

/// A decision of the reference rules that a mutant may change.
pub trait Mutable: Sized {
    /// The decision as `mutant` makes it; a mutant of another rule leaves it as it is.
    fn mutated(self, mutant: Mutant) -> Self;

    /// The decision as the server's mutant makes it, as the rule made it when the server runs
    /// none.
    fn mutated_by(self, mutant: Option<Mutant>) -> Self {
        match mutant {
            Some(mutant) => self.mutated(mutant),
            None => self,
        }
    }
}

/// DeleteOptions as read, before validation (upstream `rest.BeforeDelete`).
impl Mutable for DeleteRequest {
    fn mutated(self, mutant: Mutant) -> Self {
        if mutant != Mutant::AcceptInvalidDeleteOptions {
            return self;
        }
        let propagation = self.propagation.or(Ok(None));
        // With a policy set, orphanDependents gives way instead of conflicting.
        let orphan_dependents = match propagation {
            Ok(Some(_)) => None,
            _ => self.orphan_dependents,
        };
        Self { propagation, orphan_dependents, dry_run: self.dry_run.or(Ok(false)), ..self }
    }
}

/// DeleteOptions as the delete uses them.
impl Mutable for DeleteOptions {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::IgnoreDryRun => Self { dry_run: false, ..self },
            _ => self,
        }
    }
}

impl Mutable for PreconditionCheck {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::IgnorePreconditions => Self { conflict: None },
            _ => self,
        }
    }
}

impl Mutable for GracePeriod {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::PodsNotGraceful => Self { graceful: false, ..self },
            Mutant::GraceZeroIgnored => Self { requested: self.requested.filter(|g| *g != 0), ..self },
            Mutant::UnscheduledPodsGraceful => Self { not_running: false, ..self },
            _ => self,
        }
    }
}

impl Mutable for PolicySources {
    fn mutated(self, mutant: Mutant) -> Self {
        match (mutant, self.default) {
            (Mutant::IgnoreOrphanDependents, _) => Self { orphan_dependents: None, ..self },
            (Mutant::IgnoreExistingGcFinalizers, _) => Self { finalizers: None, ..self },
            (Mutant::IgnoreDefaultPolicies, DefaultGcPolicy::OrphanDependents)
            | (Mutant::EventsGetGcFinalizers, DefaultGcPolicy::Unsupported) => Self { default: DefaultGcPolicy::DeleteDependents, ..self },
            _ => self,
        }
    }
}

impl Mutable for FinalizerChange {
    fn mutated(mut self, mutant: Mutant) -> Self {
        let never_added = match mutant {
            Mutant::NeverAddForegroundFinalizer => FINALIZER_FOREGROUND,
            Mutant::NeverAddOrphanFinalizer => FINALIZER_ORPHAN,
            _ => return self,
        };
        if !self.current.iter().any(|f| f == never_added) {
            self.new.retain(|f| f != never_added);
        }
        self
    }
}

impl Mutable for Ending {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::RemoveDespiteFinalizers => Self { pending_finalizers: false, ..self },
            // A delete without grace waits as if a finalizer were pending.
            Mutant::KeepWithoutFinalizers if self.grace.is_none() => Self { pending_finalizers: true, ..self },
            Mutant::PreconditionSurvivesFinalizerUpdate => Self { loses_resource_version: false, ..self },
            Mutant::MoveDeletionTimestamp => Self { keeps_timestamp: false, ..self },
            _ => self,
        }
    }
}

impl Mutable for DeleteAnswer {
    fn mutated(self, mutant: Mutant) -> Self {
        match (mutant, self) {
            (Mutant::SwapDeleteAnswers, DeleteAnswer::Object) => DeleteAnswer::Status,
            (Mutant::SwapDeleteAnswers, DeleteAnswer::Status) => DeleteAnswer::Object,
            (_, answer) => answer,
        }
    }
}

impl Mutable for AfterUpdate {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::KeepAfterLastFinalizer => AfterUpdate::Stored,
            _ => self,
        }
    }
}

/// The objects a DELETE on a collection selects.
impl Mutable for Selection {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::IgnoreCollectionSelector => Selection::default(),
            _ => self,
        }
    }
}

impl Mutable for Admission {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::NoStorageProtection => Admission { protection_finalizer: None, ..self },
            _ => self,
        }
    }
}

impl Mutable for NamespacedResources {
    fn mutated(self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::NamespaceKeepsContents => NamespacedResources::default(),
            _ => self,
        }
    }
}

impl Mutable for MetaValidation<'_> {
    fn mutated(mut self, mutant: Mutant) -> Self {
        match mutant {
            Mutant::AcceptInvalidFinalizers => without(&mut self.errors, &[MetaRule::Finalizers, MetaRule::KubeFinalizerNames]),
            Mutant::AcceptInvalidOwnerReferences => without(&mut self.errors, &[MetaRule::OwnerReferences]),
            Mutant::AllowDeletionTimestampUpdates => without(&mut self.errors, &[MetaRule::ImmutableDeletion]),
            Mutant::AllowFinalizersWhileDeleting => without(&mut self.errors, &[MetaRule::NoNewFinalizersWhileDeleting]),
            Mutant::StrictOwnerReferences => {
                // The errors go where the rule runs: right after the owner-reference rule.
                let at = self.errors.iter().position(|(rule, _)| *rule > MetaRule::OwnerReferences).unwrap_or(self.errors.len());
                let strict = strict_owner_reference_problems(&self.new["ownerReferences"]);
                self.errors.splice(at..at, strict.into_iter().map(|e| (MetaRule::OwnerReferences, e)));
            }
            Mutant::ForbidFinalizerAdditions => {
                if let Some(old) = self.old {
                    // The rule holds whether or not the object is being deleted.
                    without(&mut self.errors, &[MetaRule::NoNewFinalizersWhileDeleting]);
                    let refused = new_finalizers_refused(self.new, old);
                    self.errors.extend(refused.into_iter().map(|e| (MetaRule::NoNewFinalizersWhileDeleting, e)));
                }
            }
            _ => {}
        }
        self
    }
}

/// Drops the errors of `rules`.
fn without(errors: &mut Vec<(MetaRule, FieldError)>, rules: &[MetaRule]) {
    errors.retain(|(rule, _)| !rules.contains(rule));
}

/// The rules [`Mutant::StrictOwnerReferences`] adds, which the API server does not have.
fn strict_owner_reference_problems(refs: &Value) -> Vec<FieldError> {
    let mut seen = std::collections::BTreeSet::new();
    let mut errs = Vec::new();
    for r in refs.as_array().into_iter().flatten() {
        let api_version = r["apiVersion"].as_str().unwrap_or("");
        if api_version != "v1" && !api_version.contains('/') {
            errs.push(FieldError::invalid("metadata.ownerReferences", json!(api_version), "apiVersion must be v1 or group/version"));
        }
        if !seen.insert(r["uid"].as_str().unwrap_or("")) {
            errs.push(FieldError::invalid("metadata.ownerReferences", r["uid"].clone(), "a uid may appear once"));
        }
    }
    errs
}
