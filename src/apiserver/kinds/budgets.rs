//! ResourceQuotas and PodDisruptionBudgets: budgets whose status only a controller writes (the
//! resource quota controller, the disruption controller), through the `status` subresource. A
//! new one starts with the zero status upstream's `PrepareForCreate` leaves, whatever the
//! request carried (`pkg/registry/core/resourcequota/strategy.go`,
//! `pkg/registry/policy/poddisruptionbudget/strategy.go`); an update of the main resource keeps
//! the stored status, as for every kind with a `status` subresource.

use serde_json::{Value, json};

use crate::apiserver::storage::hooks::Kind;

/// A kind whose new objects start with the status `zero` gives.
pub struct Budget {
    /// The zero status as Go's JSON encoder writes it (fields without `omitempty` stay).
    pub zero: fn() -> Value,
}

/// core/v1 ResourceQuotas: every field of the status is `omitempty`.
pub const RESOURCE_QUOTAS: Budget = Budget { zero: || json!({}) };

/// policy/v1 PodDisruptionBudgets: the four counts are written even when zero.
pub const DISRUPTION_BUDGETS: Budget =
    Budget { zero: || json!({"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}) };

impl Kind for Budget {
    fn default_on_create(&self, budget: &mut Value, _now: &str) {
        budget["status"] = (self.zero)();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_budget_starts_with_a_zero_status() {
        let mut pdb = json!({"metadata": {"name": "p"}, "status": {"disruptionsAllowed": 5, "observedGeneration": 3}});
        DISRUPTION_BUDGETS.default_on_create(&mut pdb, "");
        assert_eq!(pdb["status"], json!({"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}));
        let mut quota = json!({"metadata": {"name": "q"}, "status": {"used": {"cpu": "1"}}});
        RESOURCE_QUOTAS.default_on_create(&mut quota, "");
        assert_eq!(quota["status"], json!({}));
    }
}
