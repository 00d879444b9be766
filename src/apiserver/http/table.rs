//! `meta.k8s.io/v1` Table and PartialObjectMetadata renderings of objects, for `kubectl get`
//! and for metadata-only clients such as garbage collectors.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::apiserver::catalogue::ResourceInfo;
use crate::clock::parse_time;

/// An object's `PartialObjectMetadata`: its metadata, borrowed, under that kind. Its fields
/// serialize in the order of a JSON object the server builds.
#[derive(serde::Serialize)]
pub struct PartialMetadata<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    metadata: &'a Value,
}

/// `object` as `PartialObjectMetadata` of `api_version` (`meta.k8s.io/v1` or `v1beta1`).
pub fn partial_metadata<'a>(object: &'a Value, api_version: &'static str) -> PartialMetadata<'a> {
    PartialMetadata { api_version, kind: "PartialObjectMetadata", metadata: &object["metadata"] }
}

/// A column: name, type and the function that fills its cell.
struct Column {
    name: &'static str,
    kind: &'static str,
    cell: fn(&Value, DateTime<Utc>) -> Value,
}

fn age(object: &Value, now: DateTime<Utc>) -> Value {
    object["metadata"]["creationTimestamp"]
        .as_str()
        .and_then(parse_time)
        .map(|t| json!(human_duration(now - t)))
        .unwrap_or(json!("<unknown>"))
}

/// kubectl's short duration format (`5s`, `3m`, `2h`, `4d`).
pub fn human_duration(d: chrono::Duration) -> String {
    let s = d.num_seconds().max(0);
    match s {
        0..120 => format!("{s}s"),
        120..7200 => format!("{}m", s / 60),
        7200..172_800 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

fn name(o: &Value, _: DateTime<Utc>) -> Value {
    o["metadata"]["name"].clone()
}

fn pod_status(o: &Value, _: DateTime<Utc>) -> Value {
    if !o["metadata"]["deletionTimestamp"].is_null() { json!("Terminating") } else { o["status"]["phase"].clone() }
}

fn phase(o: &Value, _: DateTime<Utc>) -> Value {
    o["status"]["phase"].clone()
}

fn event_object(o: &Value, _: DateTime<Utc>) -> Value {
    let io = &o["involvedObject"];
    json!(format!("{}/{}", io["kind"].as_str().unwrap_or("").to_lowercase(), io["name"].as_str().unwrap_or("")))
}

fn field(key: &'static str) -> fn(&Value, DateTime<Utc>) -> Value {
    match key {
        "type" => |o, _| o["type"].clone(),
        "reason" => |o, _| o["reason"].clone(),
        _ => |o, _| o["message"].clone(),
    }
}

fn columns(resource: &ResourceInfo) -> Vec<Column> {
    let c = |name, kind, cell| Column { name, kind, cell };
    let mut cols = vec![c("Name", "string", name as fn(&Value, DateTime<Utc>) -> Value)];
    match (resource.storage.0.as_str(), resource.storage.1.as_str()) {
        ("", "pods") => cols.push(c("Status", "string", pod_status)),
        ("", "namespaces") => cols.push(c("Status", "string", phase)),
        ("", "events") => {
            cols.extend([c("Type", "string", field("type")), c("Reason", "string", field("reason")), c("Object", "string", event_object)]);
            cols.push(c("Message", "string", field("message")));
        }
        _ => {}
    }
    cols.push(c("Age", "string", age));
    cols
}

/// A `Table` of `api_version` (`meta.k8s.io/v1` or `v1beta1`) of `objects` (as served) for
/// `kubectl get`; each row's object is `PartialObjectMetadata` of the same version.
pub fn table(resource: &ResourceInfo, objects: &[&Value], list_meta: Value, now: DateTime<Utc>, api_version: &'static str) -> Value {
    let cols = columns(resource);
    let definitions: Vec<Value> = cols
        .iter()
        .map(|c| {
            let format = if c.name == "Name" { "name" } else { "" };
            json!({"name": c.name, "type": c.kind, "format": format, "description": "", "priority": 0})
        })
        .collect();
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| json!({"cells": cols.iter().map(|c| (c.cell)(o, now)).collect::<Vec<_>>(), "object": partial_metadata(o, api_version)}))
        .collect();
    json!({"kind": "Table", "apiVersion": api_version, "metadata": list_meta, "columnDefinitions": definitions, "rows": rows})
}
