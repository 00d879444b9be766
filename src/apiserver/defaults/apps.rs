//! Defaults of apps/v1 (`pkg/apis/apps/v1/defaults.go` and
//! `pkg/apis/apps/v1/zz_generated.defaults.go`): each workload's strategy, history and replicas,
//! its pod template's defaults, and the status Go always writes (its counters that are not
//! `omitempty`).

use serde_json::{Value, json};

use super::core::pod_template;
use super::{object_at, or_nil, or_zero, present};

/// Defaults of the apps kind `kind`.
pub fn apply(kind: &str, object: &mut Value) {
    let status_zeros: &[&str] = match kind {
        "Deployment" => &[],
        "ReplicaSet" => &["replicas"],
        "StatefulSet" => &["replicas", "availableReplicas"],
        "DaemonSet" => &["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"],
        _ => return,
    };
    if kind == "DaemonSet" {
        template_generation(object);
    }
    if let Some(spec) = object_at(object, "spec") {
        match kind {
            "Deployment" => deployment(spec),
            "ReplicaSet" => or_nil(spec, "replicas", json!(1)),
            "StatefulSet" => stateful_set(spec),
            _ => daemon_set(spec),
        }
        if let Some(template) = object_at(spec, "template") {
            pod_template(template);
        }
    }
    if let Some(status) = object_at(object, "status") {
        for counter in status_zeros {
            or_nil(status, counter, json!(0));
        }
    }
}

/// `SetDefaults_Deployment`: one replica, a rolling update of 25% each way, ten old replica
/// sets kept, ten minutes to progress.
fn deployment(spec: &mut Value) {
    or_nil(spec, "replicas", json!(1));
    if let Some(strategy) = object_at(spec, "strategy") {
        or_zero(strategy, "type", json!("RollingUpdate"));
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = object_at(strategy, "rollingUpdate")
        {
            or_nil(rolling, "maxUnavailable", json!("25%"));
            or_nil(rolling, "maxSurge", json!("25%"));
        }
    }
    or_nil(spec, "revisionHistoryLimit", json!(10));
    or_nil(spec, "progressDeadlineSeconds", json!(600));
}

/// `SetDefaults_StatefulSet`: ordered pods, a rolling update from partition 0, claims retained,
/// one replica, ten revisions kept, one pod unavailable at a time (`MaxUnavailableStatefulSet`,
/// on in the upstream control plane).
fn stateful_set(spec: &mut Value) {
    or_zero(spec, "podManagementPolicy", json!("OrderedReady"));
    if let Some(strategy) = object_at(spec, "updateStrategy") {
        if strategy["type"].as_str().unwrap_or("").is_empty() {
            strategy["type"] = json!("RollingUpdate");
            object_at(strategy, "rollingUpdate");
        }
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = present(strategy, "rollingUpdate")
        {
            or_nil(rolling, "partition", json!(0));
            or_nil(rolling, "maxUnavailable", json!(1));
        }
    }
    if let Some(retention) = object_at(spec, "persistentVolumeClaimRetentionPolicy") {
        or_zero(retention, "whenDeleted", json!("Retain"));
        or_zero(retention, "whenScaled", json!("Retain"));
    }
    or_nil(spec, "replicas", json!(1));
    or_nil(spec, "revisionHistoryLimit", json!(10));
    or_nil(spec, "serviceName", json!(""));
    for claim in super::items(spec, "volumeClaimTemplates") {
        super::core::apply("PersistentVolumeClaim", claim);
        // The conversion to apps/v1 names each template's type (`pkg/apis/apps/v1/conversion.go`,
        // `Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec`).
        claim["apiVersion"] = json!("v1");
        claim["kind"] = json!("PersistentVolumeClaim");
    }
}

/// The annotation apps/v1 carries a DaemonSet's template generation in.
pub const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// A DaemonSet's template generation as apps/v1 writes it (`pkg/apis/apps/v1/conversion.go`,
/// `Convert_apps_DaemonSet_To_v1_DaemonSet`): always an annotation, `0` until the strategy
/// sets it. Annotations of the wrong type are left for validation to refuse.
fn template_generation(daemon_set: &mut Value) {
    if let Some(annotations) = object_at(daemon_set, "metadata").and_then(|m| object_at(m, "annotations")) {
        or_nil(annotations, TEMPLATE_GENERATION, json!("0"));
    }
}

/// `SetDefaults_DaemonSet`: a rolling update of one unavailable pod and no surge, ten
/// revisions kept.
fn daemon_set(spec: &mut Value) {
    if let Some(strategy) = object_at(spec, "updateStrategy") {
        or_zero(strategy, "type", json!("RollingUpdate"));
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = object_at(strategy, "rollingUpdate")
        {
            or_nil(rolling, "maxUnavailable", json!(1));
            or_nil(rolling, "maxSurge", json!(0));
        }
    }
    or_nil(spec, "revisionHistoryLimit", json!(10));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deployment_rolls_25_percent_and_keeps_ten_replica_sets() {
        let mut d = json!({"spec": {"template": {"spec": {"containers": []}}}});
        apply("Deployment", &mut d);
        assert_eq!(d["spec"]["strategy"], json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}));
        assert_eq!((d["spec"]["revisionHistoryLimit"].clone(), d["spec"]["progressDeadlineSeconds"].clone()), (json!(10), json!(600)));
        assert_eq!(d["status"], json!({}));
        let mut recreate = json!({"spec": {"strategy": {"type": "Recreate"}}});
        apply("Deployment", &mut recreate);
        assert_eq!(recreate["spec"]["strategy"], json!({"type": "Recreate"}));
    }
}
