//! The kube-apiserver identity-lease garbage collector (run inside kube-apiserver, upstream
//! `pkg/controlplane/controller/apiserverleasegc/gc_controller.go`). Every
//! kube-apiserver keeps a Lease in `kube-system` labelled
//! `apiserver.kubernetes.io/identity=kube-apiserver`, renewed every 10 s with a duration of an
//! hour; every [`Settings::period`] (an hour, `IdentityLeaseGCPeriod`) the collector (`gc`)
//! deletes, with a plain DELETE, each such lease that has expired (`isLeaseExpired`): no
//! renewTime, no leaseDurationSeconds, or renewTime + leaseDurationSeconds in the past. A lease
//! the list shows expired is read again first and kept if the fresh copy is not (or is gone).
//! Leases of other namespaces and other label values are never looked at.

use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, DeleteParams, ListParams};

use crate::cleanup::pass::{Context, Controller, Outcome, Period};

/// The namespace of kube-apiservers' identity leases.
pub const NAMESPACE: &str = "kube-system";
/// The label selector of kube-apiservers' identity leases.
pub const SELECTOR: &str = "apiserver.kubernetes.io/identity=kube-apiserver";

/// The identity-lease collector's settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How often it looks.
    pub period: Duration,
}

impl Default for Settings {
    /// kube-apiserver's: every hour.
    fn default() -> Self {
        Self { period: Duration::from_secs(3600) }
    }
}

/// The identity-lease collector.
#[derive(Debug)]
pub struct IdentityLeases {
    period: Period,
}

impl IdentityLeases {
    /// A collector that has not looked yet.
    pub fn new(settings: Settings) -> Self {
        Self { period: Period::new(settings.period) }
    }
}

impl Controller for IdentityLeases {
    fn name(&self) -> &'static str {
        "apiserver-identity-lease-gc"
    }

    fn pass<'a>(&'a mut self, context: &'a Context) -> BoxFuture<'a, kube::Result<Outcome>> {
        Box::pin(async move {
            let now = context.clock.now();
            if !self.period.due(now) {
                return Ok(self.period.outcome(false));
            }
            let api: Api<Lease> = Api::namespaced(context.client.clone(), NAMESPACE);
            let leases = api.list(&ListParams::default().labels(SELECTOR)).await?;
            let mut wrote = false;
            for lease in leases.items.iter().filter(|l| is_expired(context, l)) {
                let name = lease.metadata.name.as_deref().unwrap_or("");
                match api.get_opt(name).await {
                    Ok(Some(fresh)) if is_expired(context, &fresh) => match api.delete(name, &DeleteParams::default()).await {
                        Ok(_) => wrote = true,
                        Err(e) => tracing::debug!("identity lease collector: deleting {name}: {e}"),
                    },
                    Ok(_) => {}
                    Err(e) => tracing::debug!("identity lease collector: reading {name}: {e}"),
                }
            }
            Ok(self.period.outcome(wrote))
        })
    }
}

/// Whether the lease has expired (upstream `isLeaseExpired`).
fn is_expired(context: &Context, lease: &Lease) -> bool {
    let spec = lease.spec.as_ref();
    let (Some(renewed), Some(duration)) = (spec.and_then(|s| s.renew_time.as_ref()), spec.and_then(|s| s.lease_duration_seconds)) else {
        return true;
    };
    let renewed = DateTime::<Utc>::from_timestamp_micros(renewed.0.as_microsecond());
    context.decided(Renewal { renewed, seconds: i64::from(duration) }).expired(context.clock.now())
}

/// When a lease was last renewed and for how long (upstream `isLeaseExpired`): the decision a
/// mutant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Renewal {
    /// The renew time; none if it cannot be read.
    pub renewed: Option<DateTime<Utc>>,
    /// The lease's duration, in seconds.
    pub seconds: i64,
}

impl Renewal {
    /// Whether the lease has expired at `now`: its duration has gone by since it was renewed.
    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        self.renewed.is_none_or(|renewed| renewed + chrono::Duration::seconds(self.seconds) < now)
    }
}
