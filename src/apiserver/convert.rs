//! Conversion between a resource's served form and its stored form.
//!
//! Most resources are stored as served and only `apiVersion`/`kind` are stamped on the way
//! out. `events.k8s.io/v1` Events share storage with core v1 Events, and their fields are
//! renamed in both directions as upstream's conversion functions do. A custom resource whose
//! definition asks for a conversion webhook cannot change version at all (the fake API server
//! calls no webhooks): reads and writes that would convert fail as with an unreachable webhook.

use serde_json::{Map, Value};

use crate::apiserver::catalogue::{Conversion, ResourceInfo};
use crate::apiserver::schema::go_shapes;
use crate::apiserver::status::{ApiError, ApiResult};

/// Core v1 Event field → events.k8s.io/v1 Event field.
const EVENT_FIELDS: &[(&str, &str)] = &[
    ("involvedObject", "regarding"),
    ("message", "note"),
    ("reportingComponent", "reportingController"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
];

fn rename_fields(object: &mut Value, to_storage: bool) {
    let Some(map) = object.as_object_mut() else { return };
    let mut renamed = Map::new();
    for (k, v) in std::mem::take(map) {
        let new_key = EVENT_FIELDS
            .iter()
            .find(|(core, v1)| if to_storage { *v1 == k } else { *core == k })
            .map(|(core, v1)| if to_storage { core.to_string() } else { v1.to_string() })
            .unwrap_or(k);
        renamed.insert(new_key, v);
    }
    *map = renamed;
}

/// Fails when `resource` converts through a webhook and `from` is not `to` (upstream's webhook
/// converter passes an object through unchanged when the versions match).
fn check_webhook(resource: &ResourceInfo, from: &str, to: &str) -> ApiResult<()> {
    match &resource.conversion {
        Conversion::Webhook(why) if from != to => {
            let from = from.rsplit('/').next().unwrap_or(from);
            Err(ApiError::unknown(format!("conversion webhook for {}, Kind={} failed: {why}", resource.api_version(from), resource.kind)))
        }
        _ => Ok(()),
    }
}

/// Whether `stored` is already in the form served at `version` of `resource`, so that serving it
/// needs no copy.
pub fn served_as_stored(resource: &ResourceInfo, version: &str, stored: &Value) -> bool {
    resource.conversion != Conversion::EventsV1
        && stored["kind"].as_str() == Some(resource.kind.as_str())
        && stored["apiVersion"].as_str().is_some_and(|v| resource.is_api_version(version, v))
}

/// Turns a stored object into the form served at `version` of `resource`.
pub fn to_served(resource: &ResourceInfo, version: &str, stored: &Value) -> ApiResult<Value> {
    check_webhook(resource, stored["apiVersion"].as_str().unwrap_or(""), &resource.api_version(version))?;
    let mut out = stored.clone();
    if resource.conversion == Conversion::EventsV1 {
        rename_fields(&mut out, false);
    }
    if let Some(map) = out.as_object_mut() {
        map.insert("apiVersion".into(), Value::String(resource.api_version(version)));
        map.insert("kind".into(), Value::String(resource.kind.clone()));
    }
    // A converted Event is encoded from its own Go type, which leaves out what is empty
    // (`reportingController` and `reportingInstance` are `omitempty` in events.k8s.io/v1).
    if resource.conversion == Conversion::EventsV1 {
        out = go_shapes::round_trip(&resource.api_version(version), &resource.kind, &out);
    }
    Ok(out)
}

/// Turns an object served at `version` into its stored form.
pub fn to_storage(resource: &ResourceInfo, version: &str, served: Value) -> ApiResult<Value> {
    check_webhook(resource, &resource.api_version(version), &resource.api_version(&resource.versions[0]))?;
    let mut out = served;
    if resource.conversion == Conversion::EventsV1 {
        rename_fields(&mut out, true);
        if let Some(map) = out.as_object_mut() {
            map.insert("apiVersion".into(), Value::String("v1".into()));
        }
    } else if let Some(map) = out.as_object_mut() {
        map.insert("apiVersion".into(), Value::String(resource.api_version(&resource.versions[0])));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::catalogue::Catalogue;
    use serde_json::json;

    #[test]
    fn events_v1_round_trip_through_core_storage() {
        let reg = Catalogue::new();
        let v1 = reg.lookup("events.k8s.io", "v1", "events").unwrap();
        let served = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e"},
            "regarding": {"kind": "Pod", "name": "p"}, "note": "hello", "reason": "R", "reportingController": "c"});
        let stored = to_storage(&v1, "v1", served.clone()).unwrap();
        assert_eq!(stored["involvedObject"]["name"], "p");
        assert_eq!(stored["message"], "hello");
        assert_eq!(stored["apiVersion"], "v1");
        let back = to_served(&v1, "v1", &stored).unwrap();
        for field in ["regarding", "note", "reason", "reportingController"] {
            assert_eq!(back[field], served[field], "{field}");
        }
        let mut unreported = stored.clone();
        unreported["reportingComponent"] = json!("");
        unreported["reportingInstance"] = json!("");
        let back = to_served(&v1, "v1", &unreported).unwrap();
        assert!(back.get("reportingController").is_none() && back.get("reportingInstance").is_none(), "{back}");
    }

    fn gadgets(strategy: &str) -> ResourceInfo {
        crate::apiserver::crd::resource_info(&json!({"spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": false}, {"name": "v2", "served": true, "storage": true}],
            "conversion": {"strategy": strategy, "webhook": {"conversionReviewVersions": ["v1"],
                "clientConfig": {"service": {"namespace": "ns", "name": "hook", "path": "/convert"}}}}}}))
        .unwrap()
    }

    #[test]
    fn a_webhook_conversion_fails_between_versions_and_passes_within_one() {
        let hooked = gadgets("Webhook");
        let stored_v1 = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "old"}});
        let err = to_served(&hooked, "v2", &stored_v1).unwrap_err();
        assert_eq!((err.code, err.reason), (500, ""));
        assert_eq!(
            err.message,
            "conversion webhook for example.com/v1, Kind=Gadget failed: Post \"https://hook.ns.svc:443/convert?timeout=30s\": service \"hook\" not found"
        );
        assert_eq!(to_served(&hooked, "v1", &stored_v1).unwrap(), stored_v1);
        assert!(to_storage(&hooked, "v1", stored_v1.clone()).is_err());
        assert_eq!(to_storage(&hooked, "v2", stored_v1.clone()).unwrap()["apiVersion"], "example.com/v2");
        // Without a webhook, only apiVersion changes.
        assert_eq!(to_served(&gadgets("None"), "v2", &stored_v1).unwrap()["apiVersion"], "example.com/v2");
    }
}
