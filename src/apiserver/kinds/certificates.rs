//! certificates.k8s.io/v1 CertificateSigningRequests, cluster-scoped, as upstream's registry
//! strategies treat them (`pkg/registry/certificates/certificates/strategy.go`):
//!
//! - a new request records its requester in `spec.username`, `uid` and `groups` (the fake's
//!   one user, [`crate::apiserver::user`]);
//! - an update of the main resource changes neither `spec` nor `status`;
//! - the `status` subresource changes the status but may not add or remove `Approved` or
//!   `Denied` conditions, whose instances it keeps as they were (`preserveConditionInstances`);
//! - the `approval` subresource changes `status.conditions` only;
//! - both fill a condition's missing `lastUpdateTime` with now and its missing
//!   `lastTransitionTime` with that of an earlier condition of the same type and status, else
//!   now (`populateConditionTimestamps`);
//! - `spec.request`, `spec.signerName` and `spec.usages` are required, and
//!   `status.certificate`, when set, must hold PEM `CERTIFICATE` blocks that parse
//!   (`validateCertificate` in `pkg/apis/certificates/validation/validation.go`); the request
//!   itself is not parsed here.

use base64::Engine;
use serde_json::{Value, json};

use crate::apiserver::status::FieldError;
use crate::apiserver::storage::hooks::Kind;
use crate::apiserver::storage::write::Target;
use crate::apiserver::user;

/// certificates.k8s.io/v1 CertificateSigningRequests.
pub struct CertificateSigningRequests;

/// The conditions only the `approval` subresource may add or remove.
const DECISIONS: [&str; 2] = ["Approved", "Denied"];

impl Kind for CertificateSigningRequests {
    /// A new request records who asked (`PrepareForCreate`), whatever it was sent with.
    fn default_on_create(&self, csr: &mut Value, _now: &str) {
        let spec = &mut csr["spec"];
        if spec.is_object() {
            spec["username"] = json!(user::NAME);
            spec["uid"] = json!(user::UID);
            spec["groups"] = json!(user::GROUPS);
            if let Some(fields) = spec.as_object_mut() {
                fields.remove("extra");
            }
        }
    }

    fn prepare_update(&self, target: Target, new: &mut Value, existing: &Value, now: &str) -> Vec<FieldError> {
        new["spec"] = existing["spec"].clone();
        let mut refused = Vec::new();
        match target {
            Target::Main => new["status"] = existing["status"].clone(),
            Target::Status => {
                for decision in DECISIONS {
                    if let Err(change) = keep_instances(new, existing, decision) {
                        refused.push(FieldError::forbidden(
                            "status.conditions",
                            format!("updates may not {change} a condition of type {decision:?}"),
                        ));
                    }
                }
                fill_times(new, existing, now);
            }
            Target::Approval => fill_times(new, existing, now),
            Target::Finalize | Target::Scale | Target::EphemeralContainers => {}
        }
        refused
    }

    fn validate(&self, csr: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        for field in ["request", "signerName"] {
            if csr["spec"][field].as_str().is_none_or(str::is_empty) {
                errs.push(FieldError::required(format!("spec.{field}"), ""));
            }
        }
        if csr["spec"]["usages"].as_array().is_none_or(Vec::is_empty) {
            errs.push(FieldError::required("spec.usages", ""));
        }
        if let Some(encoded) = csr["status"]["certificate"].as_str().filter(|c| !c.is_empty())
            && let Err(why) = check_certificate(encoded)
        {
            errs.push(FieldError::invalid("status.certificate", json!("<certificate data>"), why));
        }
        errs
    }
}

/// Puts the conditions of type `decision` of `existing` in place of those of `new`; when `new`
/// has a different number of them, says whether it would `add` or `remove` one.
fn keep_instances(new: &mut Value, existing: &Value, decision: &str) -> Result<(), &'static str> {
    let of_type = |csr: &Value| -> Vec<usize> {
        let conditions = csr["status"]["conditions"].as_array().map(Vec::as_slice).unwrap_or_default();
        conditions.iter().enumerate().filter(|(_, c)| c["type"] == decision).map(|(i, _)| i).collect()
    };
    let (old, fresh) = (of_type(existing), of_type(new));
    if old.len() != fresh.len() {
        return Err(if fresh.len() > old.len() { "add" } else { "remove" });
    }
    for (o, n) in old.into_iter().zip(fresh) {
        new["status"]["conditions"][n] = existing["status"]["conditions"][o].clone();
    }
    Ok(())
}

/// Fills the missing times of `new`'s conditions at `now`.
fn fill_times(new: &mut Value, existing: &Value, now: &str) {
    let earlier = existing["status"]["conditions"].as_array().cloned().unwrap_or_default();
    let Some(conditions) = new["status"]["conditions"].as_array_mut() else {
        return;
    };
    for condition in conditions.iter_mut().filter(|c| c.is_object()) {
        if is_unset(&condition["lastUpdateTime"]) {
            condition["lastUpdateTime"] = json!(now);
        }
        if is_unset(&condition["lastTransitionTime"]) {
            let same = earlier.iter().find(|old| {
                old["type"] == condition["type"] && old["status"] == condition["status"] && !is_unset(&old["lastTransitionTime"])
            });
            condition["lastTransitionTime"] = same.map_or_else(|| json!(now), |old| old["lastTransitionTime"].clone());
        }
    }
}

fn is_unset(time: &Value) -> bool {
    time.as_str().is_none_or(str::is_empty)
}

/// Checks that base64 `encoded` holds only PEM `CERTIFICATE` blocks, at least one, each of
/// which parses.
fn check_certificate(encoded: &str) -> Result<(), String> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).map_err(|e| format!("not base64: {e}"))?;
    let mut blocks = 0;
    for block in x509_parser::pem::Pem::iter_from_buffer(&bytes) {
        let Ok(block) = block else { break };
        if block.label != "CERTIFICATE" {
            return Err(format!("only CERTIFICATE PEM blocks are allowed, found {:?}", block.label));
        }
        block.parse_x509().map_err(|e| e.to_string())?;
        blocks += 1;
    }
    if blocks == 0 {
        return Err("must contain at least one CERTIFICATE PEM block".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_fills_times_and_status_keeps_decisions() {
        let existing = json!({"spec": {"request": "r"}, "status": {"conditions": [
            {"type": "Approved", "status": "True", "lastUpdateTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
        let mut approved = json!({"spec": {"request": "changed"}, "status": {"conditions": [
            {"type": "Approved", "status": "True"}, {"type": "Failed", "status": "True"}]}});
        assert!(CertificateSigningRequests.prepare_update(Target::Approval, &mut approved, &existing, "2026-01-02T00:00:00Z").is_empty());
        assert_eq!(approved["spec"]["request"], "r");
        assert_eq!(approved["status"]["conditions"][0]["lastUpdateTime"], "2026-01-02T00:00:00Z");
        assert_eq!(approved["status"]["conditions"][0]["lastTransitionTime"], "2026-01-01T00:00:00Z");
        assert_eq!(approved["status"]["conditions"][1]["lastTransitionTime"], "2026-01-02T00:00:00Z");
        let mut denied = json!({"status": {"conditions": [{"type": "Denied", "status": "True"}]}});
        let refused = CertificateSigningRequests.prepare_update(Target::Status, &mut denied, &existing, "2026-01-02T00:00:00Z");
        assert_eq!(refused.len(), 2, "the status subresource may neither remove Approved nor add Denied");
    }

    #[test]
    fn a_certificate_must_be_pem_certificates() {
        let garbage = base64::engine::general_purpose::STANDARD.encode("garbage");
        assert!(check_certificate(&garbage).is_err());
    }
}
