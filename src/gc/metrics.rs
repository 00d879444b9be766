//! Counters of what the collector did, rendered in the Prometheus text format.

use std::sync::atomic::{AtomicU64, Ordering};

/// A monotonically increasing counter.
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one.
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// The current value.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// The collector's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Objects deleted by the collector.
    pub deletions: Counter,
    /// Owners whose dependents were orphaned.
    pub orphanings: Counter,
    /// Work items retried after an error.
    pub retries: Counter,
    /// `OwnerRefInvalidNamespace` events recorded.
    pub events: Counter,
    /// Discovery rounds skipped because nothing was discovered (upstream
    /// `garbagecollector_controller_resources_sync_error_total`).
    pub resource_sync_errors: Counter,
}

impl Metrics {
    /// Prometheus text exposition of the counters.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (name, help, c) in [
            ("kubegc_gc_deletions_total", "Objects deleted by the garbage collector.", &self.deletions),
            ("kubegc_gc_orphanings_total", "Owners whose dependents were orphaned.", &self.orphanings),
            ("kubegc_gc_retries_total", "Work items retried after an error.", &self.retries),
            ("kubegc_gc_events_total", "OwnerRefInvalidNamespace events recorded.", &self.events),
            (
                "kubegc_gc_resources_sync_errors_total",
                "Discovery rounds skipped because nothing was discovered.",
                &self.resource_sync_errors,
            ),
        ] {
            out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} counter\n{name} {}\n", c.get()));
        }
        out
    }
}
