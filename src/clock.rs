//! Real and virtual clocks.
//!
//! Everything in kubegc that depends on the time of day (creation timestamps, deletion
//! timestamps, pod grace periods) reads a [`Clock`], so that tests can move time forward
//! instead of sleeping.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, SubsecRound, Utc};

/// A source of the current time: the system clock or a manually advanced one.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// `None` for the system clock; the shared current instant for a virtual clock.
    virtual_now: Option<Arc<Mutex<DateTime<Utc>>>>,
}

impl Clock {
    /// The system clock.
    pub fn real() -> Self {
        Self { virtual_now: None }
    }

    /// A virtual clock that starts at `start` and moves only through [`Clock::advance`].
    pub fn virtual_at(start: DateTime<Utc>) -> Self {
        Self { virtual_now: Some(Arc::new(Mutex::new(start))) }
    }

    /// The current instant, truncated to whole seconds as Kubernetes timestamps are.
    pub fn now(&self) -> DateTime<Utc> {
        match &self.virtual_now {
            None => Utc::now().trunc_subsecs(0),
            Some(now) => *now.lock().expect("clock lock poisoned"),
        }
    }

    /// Moves a virtual clock forward; a no-op on the system clock.
    pub fn advance(&self, by: Duration) {
        if let Some(now) = &self.virtual_now {
            let mut now = now.lock().expect("clock lock poisoned");
            *now += by;
        }
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
