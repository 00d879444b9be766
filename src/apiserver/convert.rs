//! Conversion between a resource's served form and its stored form.
//!
//! Most resources are stored as served and only `apiVersion`/`kind` are stamped on the way
//! out. `events.k8s.io/v1` Events share storage with core v1 Events, and their fields are
//! renamed in both directions as upstream's conversion functions do.

use serde_json::{Map, Value};

use crate::apiserver::registry::{Conversion, ResourceInfo};

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

/// Turns a stored object into the form served at `version` of `resource`.
pub fn to_served(resource: &ResourceInfo, version: &str, stored: &Value) -> Value {
    let mut out = stored.clone();
    if resource.conversion == Conversion::EventsV1 {
        rename_fields(&mut out, false);
    }
    if let Some(map) = out.as_object_mut() {
        map.insert("apiVersion".into(), Value::String(resource.api_version(version)));
        map.insert("kind".into(), Value::String(resource.kind.clone()));
    }
    out
}

/// Turns a served object into its stored form.
pub fn to_storage(resource: &ResourceInfo, served: Value) -> Value {
    let mut out = served;
    if resource.conversion == Conversion::EventsV1 {
        rename_fields(&mut out, true);
        if let Some(map) = out.as_object_mut() {
            map.insert("apiVersion".into(), Value::String("v1".into()));
        }
    } else if let Some(map) = out.as_object_mut() {
        map.insert("apiVersion".into(), Value::String(resource.api_version(&resource.versions[0])));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::registry::Registry;
    use serde_json::json;

    #[test]
    fn events_v1_round_trip_through_core_storage() {
        let reg = Registry::new();
        let v1 = reg.lookup("events.k8s.io", "v1", "events").unwrap();
        let served = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e"},
            "regarding": {"kind": "Pod", "name": "p"}, "note": "hello", "reason": "R", "reportingController": "c"});
        let stored = to_storage(&v1, served.clone());
        assert_eq!(stored["involvedObject"]["name"], "p");
        assert_eq!(stored["message"], "hello");
        assert_eq!(stored["apiVersion"], "v1");
        assert_eq!(to_served(&v1, "v1", &stored), served);
    }
}
