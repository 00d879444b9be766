@volumes
Feature: Reclaiming PersistentVolumes, and the storage-protection finalizers
  A PersistentVolume outlives its claim. kube-controller-manager's PersistentVolume controller
  (upstream pkg/controller/volume/persistentvolume/pv_controller.go, syncVolume) marks a volume
  Released once the claim its claimRef names (by uid) is gone, or replaced by another claim of
  the same name; a volume pre-bound to a claim by name alone (no uid) stays Available. A volume
  whose claim is bound to another volume is Released too if it was provisioned
  (pv.kubernetes.io/provisioned-by) with policy Delete; otherwise it loses the claim's uid (or,
  had the controller bound it, its whole claimRef) and is Available again. Then the
  reclaim policy decides (reclaimVolume): Retain keeps the volume Released for an
  administrator; Delete hands it to its deleter (findDeletablePlugin) — an external
  provisioner when the provisioned-by annotation names one without the kubernetes.io/ prefix,
  or when the volume is a CSI volume, and the controller then leaves it Released — and when no
  plugin can delete it, the volume becomes Failed with the message "no volume plugin matched"
  and a Warning event VolumeFailedDelete; Recycle without a recycler plugin
  (recycleVolumeOperation) makes it Failed with "No recycler plugin found for the volume!" and
  a Warning event VolumeFailedRecycle. The volumes here are `local` volumes, which no plugin of
  the controller manager deletes or recycles, or CSI volumes; a pair is bound as a pre-bound
  claim and volume bind on any cluster.

  Two finalizers protect storage in use. The StorageObjectInUseProtection admission plugin
  gives every new claim kubernetes.io/pvc-protection and every new volume
  kubernetes.io/pv-protection, and the pvc-protection and pv-protection controllers add them to
  any live object that lacks them. The pvc-protection controller (pkg/controller/volume/
  pvcprotection/pvc_protection_controller.go, podUsesPVC) removes the finalizer from a
  terminating claim once no scheduled pod uses it: a pod that names the claim counts whatever
  its phase, so a finished pod that still exists keeps the claim, and a pod no node was named
  for does not count. The pv-protection controller (pkg/controller/volume/pvprotection/
  pv_protection_controller.go) removes its finalizer from a terminating volume whose phase is
  not Bound.

  Volumes are cluster-scoped, so their names are unique to each scenario. A scenario that lets
  time pass to show that nothing more happens has a cluster of its own: on the fake one on a
  virtual clock; on the upstream control plane the shared controller manager, whose
  PersistentVolume controller resyncs every 15 seconds.

  @own-cluster
  Scenario: A volume whose claim is deleted is Released, and Retain keeps it so
    Given a cluster of its own
    And a PersistentVolume named "kubegc-pv-retain" bound to PersistentVolumeClaim "claim" with reclaim policy Retain
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolumeClaim "claim" is gone
    And PersistentVolume "kubegc-pv-retain" becomes Released
    When 20 seconds pass
    Then PersistentVolume "kubegc-pv-retain" has "status.phase" set to "Released"

  Scenario: A claim of the same name but another uid does not hold the volume
    Given a PersistentVolume named "kubegc-pv-replaced" bound to PersistentVolumeClaim "claim" with reclaim policy Retain
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolumeClaim "claim" is gone
    When a PersistentVolumeClaim named "claim" is created
    Then PersistentVolume "kubegc-pv-replaced" becomes Released

  @own-cluster
  Scenario: A volume reserved for a claim by name alone stays Available
    Given a cluster of its own
    And a PersistentVolume named "kubegc-pv-reserved" reserved for PersistentVolumeClaim "missing" with reclaim policy Delete
    Then PersistentVolume "kubegc-pv-reserved" becomes Available
    When 20 seconds pass
    Then PersistentVolume "kubegc-pv-reserved" has "status.phase" set to "Available"

  @upstream(TestDeleteSync/8-3-plugin-not-found)
  Scenario: Delete with no plugin able to delete the volume makes it Failed, with a warning
    Given a PersistentVolume named "kubegc-pv-no-plugin" bound to PersistentVolumeClaim "claim" with reclaim policy Delete
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolume "kubegc-pv-no-plugin" becomes Failed
    And PersistentVolume "kubegc-pv-no-plugin" gets a message containing "no volume plugin matched"
    And an event was recorded for PersistentVolume "kubegc-pv-no-plugin" with:
      | type              | Warning                     |
      | reason            | VolumeFailedDelete          |
      | source.component  | persistentvolume-controller |

  @own-cluster @upstream(TestDeleteSync/8-10-1-external-deleter-when-volume-is-dynamic-provisioning)
  Scenario: Delete leaves a volume of an external provisioner Released
    Given a cluster of its own
    And a PersistentVolume named "kubegc-pv-external" bound to PersistentVolumeClaim "claim" with reclaim policy Delete provisioned by "example.com/provisioner"
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolume "kubegc-pv-external" becomes Released
    When 20 seconds pass
    Then PersistentVolume "kubegc-pv-external" has "status.phase" set to "Released"

  @own-cluster @upstream(TestDeleteSync/8-10-2-external-deleter-when-volume-is-static-provisioning)
  Scenario: Delete leaves a CSI volume Released for its driver
    Given a cluster of its own
    And a PersistentVolume named "kubegc-pv-csi" bound to PersistentVolumeClaim "claim" with reclaim policy Delete from CSI driver "csi.kubegc.example.com"
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolume "kubegc-pv-csi" becomes Released
    When 20 seconds pass
    Then PersistentVolume "kubegc-pv-csi" has "status.phase" set to "Released"

  @own-cluster @upstream(TestDeleteSync/8-12-two-PVs-externally-provisioned-for-a-single-claim)
  Scenario: A provisioned volume whose claim is bound to another volume is Released
    Given a cluster of its own
    And a PersistentVolume named "kubegc-pv-winner" bound to PersistentVolumeClaim "claim" with reclaim policy Delete provisioned by "example.com/provisioner"
    And a PersistentVolume named "kubegc-pv-loser" also claiming PersistentVolumeClaim "claim" with reclaim policy Delete provisioned by "example.com/provisioner"
    Then PersistentVolume "kubegc-pv-loser" becomes Released
    When 20 seconds pass
    Then PersistentVolume "kubegc-pv-loser" has "status.phase" set to "Released"
    And PersistentVolume "kubegc-pv-winner" has "status.phase" set to "Bound"

  Scenario: A volume made for a claim that another volume got loses only the claim's uid, and is Available
    Given a PersistentVolume named "kubegc-pv-taken" bound to PersistentVolumeClaim "claim" with reclaim policy Retain
    And a PersistentVolume named "kubegc-pv-waiting" also claiming PersistentVolumeClaim "claim" with reclaim policy Retain
    Then PersistentVolume "kubegc-pv-waiting" becomes Available
    And PersistentVolume "kubegc-pv-waiting" has "spec.claimRef.uid" set to "unset"
    And PersistentVolume "kubegc-pv-waiting" has "spec.claimRef.name" set to "claim"
    And PersistentVolume "kubegc-pv-taken" has "status.phase" set to "Bound"

  Scenario: Recycle with no recycler plugin makes the volume Failed, with a warning
    Given a PersistentVolume named "kubegc-pv-recycle" bound to PersistentVolumeClaim "claim" with reclaim policy Recycle
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolume "kubegc-pv-recycle" becomes Failed
    And PersistentVolume "kubegc-pv-recycle" gets a message containing "No recycler plugin found for the volume!"
    And an event with reason "VolumeFailedRecycle" was recorded for PersistentVolume "kubegc-pv-recycle"

  Scenario: Admission gives a new claim and a new volume their protection finalizers at create
    When a PersistentVolumeClaim named "claim" is created
    Then the response has "metadata.finalizers.0" set to "kubernetes.io/pvc-protection"
    When a PersistentVolume named "kubegc-pv-admitted" is created
    Then the response has "metadata.finalizers.0" set to "kubernetes.io/pv-protection"

  @upstream(TestPVCProtectionController/PVC-without-finalizer-->-finalizer-is-added)
  Scenario: A live claim that lost its protection finalizer gets it back
    Given a PersistentVolumeClaim named "claim"
    When the finalizer "kubernetes.io/pvc-protection" is removed from PersistentVolumeClaim "claim"
    Then PersistentVolumeClaim "claim" still exists with finalizers "kubernetes.io/pvc-protection"

  @upstream(TestPVCProtectionController/deleted-PVC-with-finalizer-+-pod-with-the-PVC-exists-->-finalizer-is-not-removed)
  @upstream(TestPVCProtectionController/deleted-PVC-with-finalizer-+-pod-with-the-PVC-finished-but-is-not-deleted-->-finalizer-is-not-removed)
  @upstream(TestPVCProtectionController/updated-finished-Pod-->-finalizer-is-not-removed)
  @upstream(TestPVCProtectionController/deleted-running-Pod-->-finalizer-is-removed)
  Scenario Outline: A scheduled pod that names the claim keeps it, whatever its phase, until the pod goes
    Given a PersistentVolumeClaim named "claim"
    And a Pod named "user" on node "kubegc-pv-node" in phase <phase> using PersistentVolumeClaim "claim"
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolumeClaim "claim" is terminating with finalizers "kubernetes.io/pvc-protection"
    When Pod "user" is deleted with options '{"gracePeriodSeconds": 0}'
    Then PersistentVolumeClaim "claim" is gone

    Examples:
      | phase     |
      | Pending   |
      | Running   |
      | Succeeded |
      | Failed    |

  @upstream(TestPVCProtectionController/pod-delete-and-create-with-same-namespaced-name-seen-as-an-update,-old-pod-used-deleted-PVC-->-finalizer-is-removed)
  Scenario: A pod that replaces the claim's user under the same name but without the claim does not keep it
    Given a PersistentVolumeClaim named "claim"
    And a Pod named "user" on node "kubegc-pv-node" using PersistentVolumeClaim "claim"
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolumeClaim "claim" is terminating with finalizers "kubernetes.io/pvc-protection"
    When Pod "user" is deleted with options '{"gracePeriodSeconds": 0}'
    And a Pod named "user" is created
    Then PersistentVolumeClaim "claim" is gone

  @upstream(TestPVCProtectionController/updated-unscheduled-Pod-->-finalizer-is-removed)
  Scenario: A pod no node was named for does not keep the claim it names
    Given a PersistentVolumeClaim named "claim"
    And a Pod named "waiting" using PersistentVolumeClaim "claim"
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolumeClaim "claim" is gone
    And Pod "waiting" still exists

  @upstream(TestPVCProtectionController/deleted-PVC-with-finalizers-across-different-namespaces-->-finalizer-is-removed)
  @upstream(TestPVCProtectionController/multiple-PVCs-with-finalizer-for-the-same-namespace;-no-alive-pods-->-finalizer-is-removed)
  @upstream(TestPVCProtectionController/deleted-PVC-with-finalizer-+-pod-with-unrelated-PVC-and-EmptyDir-exists-->-finalizer-is-removed)
  @upstream(TestPVCProtectionController/deleted-multiple-PVCs-with-finalizer-(same-namespace)-+-pod-with-unrelated-PVC-and-EmptyDir-exists)
  @upstream(TestPVCProtectionController/mix-of-deleted-PVCs-with-some-used-by-a-pod-and-some-unused-->-finalizer-is-removed-only-for-unused-PVCs)
  Scenario: Of several terminating claims, in two namespaces, only those a pod uses are kept
    Given a PersistentVolumeClaim named "one"
    And a PersistentVolumeClaim named "two"
    And a PersistentVolumeClaim named "elsewhere" in another namespace
    And a PersistentVolumeClaim named "used"
    And a PersistentVolumeClaim named "other"
    And a Pod named "user" on node "kubegc-pv-node" using PersistentVolumeClaim "used"
    And a Pod named "bystander" on node "kubegc-pv-node" using PersistentVolumeClaim "other"
    When PersistentVolumeClaim "one" is deleted
    And PersistentVolumeClaim "two" is deleted
    And PersistentVolumeClaim "elsewhere" is deleted
    And PersistentVolumeClaim "used" is deleted
    Then PersistentVolumeClaim "one" is gone
    And PersistentVolumeClaim "two" is gone
    And PersistentVolumeClaim "elsewhere" is gone
    And PersistentVolumeClaim "used" is terminating with finalizers "kubernetes.io/pvc-protection"
    And PersistentVolumeClaim "other" still exists

  @upstream(TestPVProtectionController/PV-without-finalizer-->-finalizer-is-added)
  Scenario: A live volume that lost its protection finalizer gets it back
    Given a PersistentVolume named "kubegc-pv-refinalized"
    And PersistentVolume "kubegc-pv-refinalized" becomes Available
    When the finalizer "kubernetes.io/pv-protection" is removed from PersistentVolume "kubegc-pv-refinalized"
    Then PersistentVolume "kubegc-pv-refinalized" still exists with finalizers "kubernetes.io/pv-protection"

  @upstream(TestPVProtectionController/deleted-PV-with-finalizer-->-finalizer-is-removed)
  @upstream(PV-Protection/Verify-immediate-deletion-of-a-PV-that-is-not-bound-to-a-PVC)
  Scenario: A volume that is not bound goes at once
    Given a PersistentVolume named "kubegc-pv-unbound"
    When PersistentVolume "kubegc-pv-unbound" is deleted
    Then PersistentVolume "kubegc-pv-unbound" is gone

  @upstream(TestPVProtectionController/deleted-PVC-with-finalizer-+-PV-is-bound-->-finalizer-is-not-removed)
  @upstream(PV-Protection/Verify-that-PV-bound-to-a-PVC-is-not-removed-immediately)
  Scenario: A Bound volume keeps its protection finalizer until its claim goes
    Given a PersistentVolume named "kubegc-pv-bound" bound to PersistentVolumeClaim "claim" with reclaim policy Retain
    When PersistentVolume "kubegc-pv-bound" is deleted
    Then PersistentVolume "kubegc-pv-bound" is terminating with finalizers "kubernetes.io/pv-protection"
    When PersistentVolumeClaim "claim" is deleted
    Then PersistentVolume "kubegc-pv-bound" is gone
