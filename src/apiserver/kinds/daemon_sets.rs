//! DaemonSets: the template generation their strategy keeps (apps/v1 shows it as the
//! `deprecated.daemonset.template.generation` annotation).

use serde_json::{Value, json};

use crate::apiserver::defaults::apps::TEMPLATE_GENERATION;
use crate::apiserver::kinds::workloads::DAEMON_SET_SELECTOR;
use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::{Kind, objects_along};
use crate::apiserver::storage::write::Target;

/// apps/v1 DaemonSets.
pub struct DaemonSets;

/// The template generation an object carries (0 when it carries none that parses).
fn generation(daemon_set: &Value) -> i64 {
    daemon_set["metadata"]["annotations"][TEMPLATE_GENERATION].as_str().and_then(|g| g.parse().ok()).unwrap_or(0)
}

fn set_generation(daemon_set: &mut Value, generation: i64) {
    if objects_along(daemon_set, &["metadata", "annotations"]) {
        daemon_set["metadata"]["annotations"][TEMPLATE_GENERATION] = json!(generation.to_string());
    }
}

impl Kind for DaemonSets {
    fn validate(&self, daemon_set: &Value) -> Vec<FieldError> {
        DAEMON_SET_SELECTOR.errors(daemon_set)
    }

    /// A new DaemonSet's template generation is at least 1 (pkg/registry/apps/daemonset/strategy.go,
    /// `PrepareForCreate`).
    fn default_on_create(&self, daemon_set: &mut Value, _now: &str) {
        if generation(daemon_set) < 1 {
            set_generation(daemon_set, 1);
        }
    }

    /// An update keeps the stored template generation, one more when the main resource changes
    /// the pod template (`PrepareForUpdate` of the strategy and the status strategy).
    fn prepare_update(&self, target: Target, new: &mut Value, existing: &Value, _now: &str) -> Vec<FieldError> {
        let stored = generation(existing);
        let changed = matches!(target, Target::Main) && new["spec"]["template"] != existing["spec"]["template"];
        set_generation(new, if changed { stored + 1 } else { stored });
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_generation_starts_at_one_and_counts_template_changes() {
        let mut created = json!({"metadata": {"annotations": {TEMPLATE_GENERATION: "0"}}, "spec": {"template": {"spec": {"a": 1}}}});
        DaemonSets.default_on_create(&mut created, "");
        assert_eq!(generation(&created), 1);
        let mut relabelled = created.clone();
        relabelled["metadata"]["annotations"][TEMPLATE_GENERATION] = json!("0");
        DaemonSets.prepare_update(Target::Main, &mut relabelled, &created, "");
        assert_eq!(generation(&relabelled), 1, "the client's annotation is not the generation");
        let mut changed = relabelled.clone();
        changed["spec"]["template"]["spec"]["a"] = json!(2);
        DaemonSets.prepare_update(Target::Main, &mut changed, &relabelled, "");
        assert_eq!(generation(&changed), 2);
        let mut status = changed.clone();
        status["spec"]["template"]["spec"]["a"] = json!(3);
        DaemonSets.prepare_update(Target::Status, &mut status, &changed, "");
        assert_eq!(generation(&status), 2);
    }
}
