//! Events as client-go's event recorders write them: a core/v1 Event about an object, named
//! `<object>.<nanoseconds in hex>`, in the object's namespace (or `default` for a
//! cluster-scoped object). The older recorder (`tools/record/event.go`, kubelets and most
//! controllers) writes it through core/v1 from a component that is both its `source` and its
//! reporting controller; the newer one (`tools/events`, the scheduler) writes it through
//! events.k8s.io/v1 with a reporting controller, instance and action, and no `source` or
//! first and last timestamps.

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
        let (metadata, namespace) = self.metadata();
        let event = json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": metadata,
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

    /// The Event's metadata (its unique name, in the involved object's namespace, `default` for
    /// a cluster-scoped one), and that namespace.
    fn metadata(&self) -> (Value, &str) {
        let name = self.involved["name"].as_str().unwrap_or_default();
        let namespace = self.involved["namespace"].as_str().filter(|n| !n.is_empty()).unwrap_or("default");
        (json!({"name": unique_name(name), "namespace": namespace}), namespace)
    }

    /// Creates the Event through events.k8s.io/v1 at `now`, from `instance` of `controller`,
    /// which took `action`.
    pub async fn report(
        &self,
        client: &kube::Client,
        controller: &str,
        instance: &str,
        action: &str,
        now: DateTime<Utc>,
    ) -> Result<(), kube::Error> {
        let (metadata, namespace) = self.metadata();
        let event = json!({
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": metadata,
            "regarding": self.involved,
            "reason": self.reason,
            "note": self.message,
            "type": self.event_type,
            "action": action,
            "eventTime": now.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            "reportingController": controller,
            "reportingInstance": instance,
        });
        let event: k8s_openapi::api::events::v1::Event = serde_json::from_value(event).map_err(kube::Error::SerdeError)?;
        Api::namespaced(client.clone(), namespace).create(&PostParams::default(), &event).await.map(|_| ())
    }
}

/// `<object>.<nanoseconds in hex>` from the wall clock, not the cluster's (which a virtual clock
/// may hold still), so that two events about one object at one instant do not collide.
fn unique_name(object: &str) -> String {
    format!("{object}.{:x}", Utc::now().timestamp_nanos_opt().unwrap_or_default())
}
