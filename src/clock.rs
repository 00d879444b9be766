//! Real and virtual clocks.
//!
//! Everything in kubegc that depends on the time of day (creation timestamps, deletion
//! timestamps, pod grace periods) reads a [`Clock`], so that tests can move time forward
//! instead of sleeping; controllers that wait for a moment wait with [`Clock::sleep_until`], which
//! a virtual clock ends when it is advanced past that moment.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, SubsecRound, Utc};
use tokio::sync::Notify;

/// A source of the current time: the system clock or a manually advanced one.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// `None` for the system clock; the shared current instant for a virtual clock.
    virtual_now: Option<Arc<VirtualNow>>,
}

/// A virtual clock's current instant, and the sleepers to wake when it moves.
#[derive(Debug)]
struct VirtualNow {
    now: Mutex<DateTime<Utc>>,
    moved: Notify,
}

impl Clock {
    /// The system clock.
    pub fn real() -> Self {
        Self { virtual_now: None }
    }

    /// A virtual clock that starts at `start` and moves only through [`Clock::advance`].
    pub fn virtual_at(start: DateTime<Utc>) -> Self {
        Self { virtual_now: Some(Arc::new(VirtualNow { now: Mutex::new(start), moved: Notify::new() })) }
    }

    /// Whether the clock moves only through [`Clock::advance`].
    pub fn is_virtual(&self) -> bool {
        self.virtual_now.is_some()
    }

    /// The current instant, truncated to whole seconds as Kubernetes timestamps are.
    pub fn now(&self) -> DateTime<Utc> {
        match &self.virtual_now {
            None => Utc::now().trunc_subsecs(0),
            Some(v) => *v.now.lock().expect("clock lock poisoned"),
        }
    }

    /// Moves a virtual clock forward; a no-op on the system clock.
    pub fn advance(&self, by: Duration) {
        if let Some(v) = &self.virtual_now {
            *v.now.lock().expect("clock lock poisoned") += by;
            v.moved.notify_waiters();
        }
    }

    /// Returns once the clock has reached `at`: on the system clock after a real sleep, on a
    /// virtual clock when an [`Clock::advance`] has taken it there.
    pub async fn sleep_until(&self, at: DateTime<Utc>) {
        loop {
            match &self.virtual_now {
                None => {
                    let left = (at - Utc::now()).to_std().unwrap_or_default();
                    if left.is_zero() {
                        return;
                    }
                    tokio::time::sleep(left).await;
                }
                Some(v) => {
                    let moved = v.moved.notified();
                    if self.now() >= at {
                        return;
                    }
                    moved.await;
                }
            }
        }
    }
}

/// The earlier of two moments, either of which may be absent.
pub fn earliest(a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Formats an instant as Kubernetes does in `metav1.Time` (RFC 3339, whole seconds, `Z`).
pub fn format_time(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Parses a `metav1.Time` string.
pub fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s).ok().map(|t| t.with_timezone(&Utc))
}
