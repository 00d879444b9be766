//! Events as client-go's event recorder writes them (`tools/record/event.go`): a core/v1
//! Event about an object, named `<object>.<nanoseconds in hex>`, in the object's namespace (or
//! `default` for a cluster-scoped object), from a component that is both its `source` and its
//! reporting controller.

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

use crate::clock::format_time;

/// What an Event says: about whom (the `involvedObject` reference, with its `namespace` for a
/// namespaced object), of which type, why and what.
pub struct Record<'a> {
    /// The involved object's reference: `apiVersion`, `kind`, `name`, `namespace`, `uid`, ….
    pub involved: Value,
    /// `Normal` or `Warning`.
    pub event_type: &'a str,
    /// The machine-readable reason.
    pub reason: &'a str,
    /// The human-readable message.
    pub message: String,
}

impl Record<'_> {
    /// Creates the Event, from `component` at `now`.
    pub async fn send(&self, client: &kube::Client, component: &str, now: DateTime<Utc>) -> Result<(), kube::Error> {
        let name = self.involved["name"].as_str().unwrap_or_default();
        let namespace = self.involved["namespace"].as_str().filter(|n| !n.is_empty()).unwrap_or("default");
        let event = json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": unique_name(name), "namespace": namespace},
            "involvedObject": self.involved,
            "reason": self.reason,
            "message": self.message,
            "type": self.event_type,
            "source": {"component": component},
            "firstTimestamp": format_time(now),
            "lastTimestamp": format_time(now),
            "count": 1,
            "reportingComponent": component,
        });
        let event: Event = serde_json::from_value(event).map_err(kube::Error::SerdeError)?;
        Api::namespaced(client.clone(), namespace).create(&PostParams::default(), &event).await.map(|_| ())
    }
}

/// `<object>.<nanoseconds in hex>` from the wall clock, not the cluster's (which a virtual clock
/// may hold still), so that two events about one object at one instant do not collide.
fn unique_name(object: &str) -> String {
    format!("{object}.{:x}", Utc::now().timestamp_nanos_opt().unwrap_or_default())
}
