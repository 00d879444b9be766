//! The CSR cleaner (kube-controller-manager's `certificatesigningrequest-cleaner-controller`,
//! upstream `pkg/controller/certificates/cleaner/cleaner.go`). Every [`Settings::period`] (an
//! hour), the first time at start, it looks at every CertificateSigningRequest and deletes
//! (a plain DELETE) each one that `handle` finds stale:
//!
//! - **approved and issued** (an `Approved` condition and a certificate) and that condition's
//!   `lastUpdateTime` older than an hour (`isIssuedPastDeadline`);
//! - **denied**, the `Denied` condition's `lastUpdateTime` older than an hour
//!   (`isDeniedPastDeadline`);
//! - **failed**, the `Failed` condition's `lastUpdateTime` older than an hour
//!   (`isFailedPastDeadline`);
//! - **pending**: no condition at all, created more than 24 hours ago (`isPendingPastDeadline`);
//! - **issued and expired**: approved, and the first certificate of the first PEM block of
//!   `status.certificate` is past its NotAfter, whatever its age (`isIssuedExpired`); a
//!   certificate that does not parse is not expired (but is still issued).
//!
//! "Older than" is strict, and a missing time is never old (`isOlderThan`). An approved
//! request that never gets a certificate matches no rule and stays.
//!
//! Upstream's `Run` does not wait for its informer to sync, so its first pass may see no
//! request at all; this reference lists afresh at every pass, the first included.

use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use k8s_openapi::api::certificates::v1::{CertificateSigningRequest, CertificateSigningRequestCondition};
use kube::api::{Api, DeleteParams};

use crate::cleanup::pass::{Context, Controller, Outcome, Period, instant};

/// How long an approved and issued, a denied or a failed request is kept after that condition
/// was last updated (upstream's `approvedExpiration` and `deniedExpiration`).
pub const DECIDED_EXPIRATION: chrono::Duration = chrono::Duration::hours(1);

/// How long a request with no condition is kept after its creation (upstream's
/// `pendingExpiration`).
pub const PENDING_EXPIRATION: chrono::Duration = chrono::Duration::hours(24);

/// The CSR cleaner's settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How often it looks (upstream's `pollingInterval`, a constant).
    pub period: Duration,
}

impl Default for Settings {
    /// kube-controller-manager's: every hour.
    fn default() -> Self {
        Self { period: Duration::from_secs(3600) }
    }
}

/// The ages and checks by which the cleaner judges a request (upstream `isIssuedPastDeadline`,
/// `isDeniedPastDeadline`, `isFailedPastDeadline`, `isPendingPastDeadline`, `isIssuedExpired`):
/// the decision a mutant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// How long an approved and issued, a denied or a failed request is kept after that
    /// condition was last updated.
    pub decided: chrono::Duration,
    /// How long a request with no condition is kept after its creation.
    pub pending: chrono::Duration,
    /// An approved request goes only once it is strictly older than `decided`, not at exactly
    /// that age (`isOlderThan`).
    pub approved_strictly_older: bool,
    /// An approved request counts as issued only with a certificate.
    pub issued_needs_certificate: bool,
    /// An approved request goes once its certificate is past its NotAfter.
    pub expired_certificates_go: bool,
}

impl Default for Deadlines {
    /// Upstream's.
    fn default() -> Self {
        Self {
            decided: DECIDED_EXPIRATION,
            pending: PENDING_EXPIRATION,
            approved_strictly_older: true,
            issued_needs_certificate: true,
            expired_certificates_go: true,
        }
    }
}

/// Whether the cleaner deletes `csr` at `now` (upstream `handle`), judged by `deadlines`.
pub fn is_stale(csr: &CertificateSigningRequest, now: DateTime<Utc>, deadlines: Deadlines) -> bool {
    let conditions = csr.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or_default();
    let condition = |kind: &str| conditions.iter().find(|c| c.type_ == kind);
    let updated_before = |c: &CertificateSigningRequestCondition, age: chrono::Duration| {
        let updated = c.last_update_time.as_ref().map(|t| instant(&t.0));
        match !deadlines.approved_strictly_older && c.type_ == "Approved" {
            true => updated.is_some_and(|t| t + age <= now),
            false => is_older_than(updated, age, now),
        }
    };
    let certificate = csr.status.as_ref().and_then(|s| s.certificate.as_ref()).map(|c| c.0.as_slice()).unwrap_or_default();
    let issued = !certificate.is_empty() || !deadlines.issued_needs_certificate;
    let approved = condition("Approved");
    approved.is_some_and(|c| issued && updated_before(c, deadlines.decided))
        || condition("Denied").is_some_and(|c| updated_before(c, deadlines.decided))
        || condition("Failed").is_some_and(|c| updated_before(c, deadlines.decided))
        || (conditions.is_empty() && is_older_than(csr.metadata.creation_timestamp.as_ref().map(|t| instant(&t.0)), deadlines.pending, now))
        || (approved.is_some() && deadlines.expired_certificates_go && is_expired(certificate, now))
}

/// Whether `at` is more than `age` before `now`; a missing time never is (upstream `isOlderThan`).
fn is_older_than(at: Option<DateTime<Utc>>, age: chrono::Duration, now: DateTime<Utc>) -> bool {
    at.is_some_and(|t| t + age < now)
}

/// Whether the first certificate of the first PEM block of `pem` is past its NotAfter at
/// `now`; anything that does not parse is not expired (upstream `isExpired`).
pub fn is_expired(pem: &[u8], now: DateTime<Utc>) -> bool {
    let Ok((_, block)) = x509_parser::pem::parse_x509_pem(pem) else {
        return false;
    };
    let Ok(certificate) = block.parse_x509() else {
        return false;
    };
    certificate.validity().not_after.timestamp() < now.timestamp()
}

/// The CSR cleaner.
#[derive(Debug)]
pub struct CsrCleaner {
    period: Period,
}

impl CsrCleaner {
    /// A cleaner that has not looked yet.
    pub fn new(settings: Settings) -> Self {
        Self { period: Period::new(settings.period) }
    }
}

impl Controller for CsrCleaner {
    fn name(&self) -> &'static str {
        "certificatesigningrequest-cleaner-controller"
    }

    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>> {
        Box::pin(async move {
            let now = context.clock.now();
            if !self.period.due(now) {
                return Ok(self.period.outcome(false));
            }
            let requests: Vec<CertificateSigningRequest> = context.list().await?;
            let api: Api<CertificateSigningRequest> = Api::all(context.client.clone());
            let deadlines = context.decided(Deadlines::default());
            let mut wrote = false;
            for csr in requests.iter().filter(|csr| is_stale(csr, now, deadlines)) {
                let name = csr.metadata.name.as_deref().unwrap_or_default();
                match api.delete(name, &DeleteParams::default()).await {
                    Ok(_) => wrote = true,
                    Err(e) => tracing::debug!("csr cleaner: deleting {name}: {e}"),
                }
            }
            Ok(self.period.outcome(wrote))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-01-01T12:00:00Z").expect("a time").with_timezone(&Utc)
    }

    fn ago(minutes: i64) -> String {
        crate::clock::format_time(now() - chrono::Duration::minutes(minutes))
    }

    fn csr(created_minutes_ago: i64, conditions: &[(&str, i64)], certificate: &str) -> CertificateSigningRequest {
        let conditions: Vec<_> = conditions.iter().map(|(t, m)| json!({"type": t, "status": "True", "lastUpdateTime": ago(*m)})).collect();
        let certificate = (!certificate.is_empty()).then(|| base64_of(certificate.as_bytes()));
        serde_json::from_value(json!({
            "metadata": {"name": "r", "creationTimestamp": ago(created_minutes_ago)},
            "spec": {"request": "", "signerName": "example.com/s"},
            "status": {"conditions": conditions, "certificate": certificate},
        }))
        .expect("a request")
    }

    fn base64_of(bytes: &[u8]) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn decided_requests_go_an_hour_after_their_condition_pending_ones_after_a_day() {
        let stale = |c: &CertificateSigningRequest| is_stale(c, now(), Deadlines::default());
        assert!(!stale(&csr(1, &[("Approved", 50)], "issued")), "approved 50 minutes ago");
        assert!(!stale(&csr(1, &[("Approved", 120)], "")), "approved but never issued");
        assert!(stale(&csr(1, &[("Approved", 120)], "garbage")), "an unparseable certificate is issued");
        assert!(!stale(&csr(1, &[("Approved", 60)], "issued")), "exactly an hour is not older");
        assert!(stale(&csr(1, &[("Denied", 120)], "")));
        assert!(!stale(&csr(1, &[("Denied", 50)], "")));
        assert!(stale(&csr(1, &[("Approved", 120), ("Failed", 120)], "")));
        assert!(!stale(&csr(1, &[("Approved", 120), ("Failed", 50)], "")));
        assert!(!stale(&csr(5 * 60, &[], "")), "pending for 5 hours");
        assert!(stale(&csr(25 * 60, &[], "")), "pending for 25 hours");
        let untimed: CertificateSigningRequest =
            serde_json::from_value(json!({"metadata": {"name": "r"}, "spec": {"request": "", "signerName": "example.com/s"},
                "status": {"conditions": [{"type": "Denied", "status": "True"}]}}))
            .expect("a request");
        assert!(!stale(&untimed), "a missing time is never old");
    }

    fn certificate_until(year: i32) -> String {
        let key = rcgen::KeyPair::generate().expect("a key");
        let mut params = rcgen::CertificateParams::new(vec!["kubegc.example".into()]).expect("parameters");
        params.not_before = rcgen::date_time_ymd(year - 1, 1, 1);
        params.not_after = rcgen::date_time_ymd(year, 1, 1);
        params.self_signed(&key).expect("a certificate").pem()
    }

    #[test]
    fn a_certificate_past_its_not_after_is_expired_and_garbage_is_not() {
        assert!(is_expired(certificate_until(2017).as_bytes(), now()));
        assert!(!is_expired(certificate_until(2117).as_bytes(), now()));
        assert!(!is_expired(b"garbage", now()));
        assert!(!is_expired(b"", now()));
        let expired = csr(1, &[("Approved", 1)], &certificate_until(2017));
        assert!(is_stale(&expired, now(), Deadlines::default()), "an expired certificate takes a young request");
    }
}
