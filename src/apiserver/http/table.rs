//! `meta.k8s.io/v1` Table and PartialObjectMetadata renderings of objects, for `kubectl get`
//! and for metadata-only clients such as garbage collectors.

use chrono::{DateTime, Utc};
use std::sync::LazyLock;

use serde_json::{Map, Value, json};

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

/// How a cell is filled from an object.
type Cell = fn(&Value, DateTime<Utc>) -> Value;

/// A column: its definition and the function that fills its cell.
struct Column {
    definition: Value,
    cell: Cell,
}

/// The columns upstream's printers give each built-in kind, by its internal Go type
/// (`core.Secret`), and under "" the default table convertor's (`upstream/cmd/table-columns`).
static COLUMNS: LazyLock<Map<String, Value>> =
    LazyLock::new(|| serde_json::from_str(include_str!("table_columns.json")).expect("table_columns.json is JSON"));

fn age(object: &Value, now: DateTime<Utc>) -> Value {
    object["metadata"]["creationTimestamp"]
        .as_str()
        .and_then(parse_time)
        .map(|t| json!(human_duration(now - t)))
        .unwrap_or(json!("<unknown>"))
}

/// A duration as the printers write ages (`HumanDuration`, k8s.io/apimachinery
/// pkg/util/duration): whole seconds below two minutes, then ever coarser units, with a
/// second unit while the first is small (`2m48s`, `5h10m`, `3d4h`, `2y30d`).
pub fn human_duration(d: chrono::Duration) -> String {
    let seconds = d.num_seconds();
    if seconds < -1 {
        return "<invalid>".to_string();
    }
    let s = seconds.max(0);
    let (minutes, hours) = (s / 60, s / 3600);
    let (days, years) = (hours / 24, hours / (24 * 365));
    let two = |big: i64, unit: &str, small: i64, small_unit: &str| {
        if small == 0 { format!("{big}{unit}") } else { format!("{big}{unit}{small}{small_unit}") }
    };
    match () {
        _ if s < 120 => format!("{s}s"),
        _ if minutes < 10 => two(minutes, "m", s % 60, "s"),
        _ if minutes < 180 => format!("{minutes}m"),
        _ if hours < 8 => two(hours, "h", minutes % 60, "m"),
        _ if hours < 48 => format!("{hours}h"),
        _ if hours < 24 * 8 => two(days, "d", hours % 24, "h"),
        _ if hours < 24 * 365 * 2 => format!("{days}d"),
        _ if hours < 24 * 365 * 8 => two(years, "y", days % 365, "d"),
        _ => format!("{years}y"),
    }
}

fn name(o: &Value, _: DateTime<Utc>) -> Value {
    o["metadata"]["name"].clone()
}

/// The default convertor's creation time (RFC 3339).
fn created_at(o: &Value, _: DateTime<Utc>) -> Value {
    o["metadata"]["creationTimestamp"].clone()
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

fn field(key: &'static str) -> Cell {
    match key {
        "type" => |o, _| o["type"].clone(),
        "reason" => |o, _| o["reason"].clone(),
        _ => |o, _| o["message"].clone(),
    }
}

/// The number of keys of the maps `keys` name.
fn count(o: &Value, keys: &[&str]) -> Value {
    json!(keys.iter().map(|k| o[*k].as_object().map_or(0, Map::len)).sum::<usize>())
}

/// How upstream's printer fills column `column` of `kind` (an internal Go type name, or "" for
/// the default convertor), where the fake fills it (k8s.io/kubernetes
/// pkg/printers/internalversion/printers.go).
fn cell_of(kind: &str, column: &str) -> Option<Cell> {
    Some(match (kind, column) {
        (_, "Name") => name,
        (_, "Age") => age,
        ("", "Created At") => created_at,
        ("core.ConfigMap", "Data") => |o, _| count(o, &["data", "binaryData"]),
        ("core.Secret", "Type") => |o, _| o["type"].clone(),
        ("core.Secret", "Data") => |o, _| count(o, &["data"]),
        ("core.Namespace", "Status") => phase,
        ("coordination.Lease", "Holder") => |o, _| json!(o["spec"]["holderIdentity"].as_str().unwrap_or("")),
        _ => return None,
    })
}

/// Upstream's columns of a built-in kind (the default convertor's for a kind no printer
/// handles), when the fake fills every one of their cells.
fn upstream_columns(resource: &ResourceInfo) -> Option<Vec<Column>> {
    let kind = format!("{}.{}", resource.internal_package(), resource.kind);
    let (kind, definitions) = match COLUMNS.get(&kind) {
        Some(definitions) => (kind.as_str(), definitions),
        None => ("", &COLUMNS[""]),
    };
    definitions
        .as_array()?
        .iter()
        .map(|definition| Some(Column { definition: definition.clone(), cell: cell_of(kind, definition["name"].as_str()?)? }))
        .collect()
}

/// A custom resource's columns when its definition names none: the name, and its creation
/// time as a date under "Age", whose cell the convertor writes as an age
/// (k8s.io/apiextensions-apiserver pkg/registry/customresource/tableconvertor/tableconvertor.go
/// and the handler's default column).
fn custom_columns() -> Vec<Column> {
    let default = &COLUMNS[""];
    let mut created = default[1].clone();
    created["name"] = json!("Age");
    vec![Column { definition: default[0].clone(), cell: name }, Column { definition: created, cell: age }]
}

fn columns(resource: &ResourceInfo) -> Vec<Column> {
    if resource.custom {
        return custom_columns();
    }
    if let Some(columns) = upstream_columns(resource) {
        return columns;
    }
    let c = |name: &str, cell| Column {
        definition: json!({"name": name, "type": "string", "format": if name == "Name" { "name" } else { "" }, "description": "", "priority": 0}),
        cell,
    };
    let mut cols = vec![c("Name", name as Cell)];
    match (resource.storage.0.as_str(), resource.storage.1.as_str()) {
        ("", "pods") => cols.push(c("Status", pod_status)),
        ("", "events") => {
            cols.extend([c("Type", field("type")), c("Reason", field("reason")), c("Object", event_object)]);
            cols.push(c("Message", field("message")));
        }
        _ => {}
    }
    cols.push(c("Age", age));
    cols
}

/// A `Table` of `api_version` (`meta.k8s.io/v1` or `v1beta1`) of `objects` (as served) for
/// `kubectl get`; each row's object is `PartialObjectMetadata` of the same version.
pub fn table(resource: &ResourceInfo, objects: &[&Value], list_meta: Value, now: DateTime<Utc>, api_version: &'static str) -> Value {
    let cols = columns(resource);
    let definitions: Vec<&Value> = cols.iter().map(|c| &c.definition).collect();
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| json!({"cells": cols.iter().map(|c| (c.cell)(o, now)).collect::<Vec<_>>(), "object": partial_metadata(o, api_version)}))
        .collect();
    json!({"kind": "Table", "apiVersion": api_version, "metadata": list_meta, "columnDefinitions": definitions, "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::catalogue::Catalogue;
    use chrono::Duration;

    #[test]
    fn ages_are_written_as_the_printers_write_them() {
        let cases = [
            (30, "30s"),
            (168, "2m48s"),
            (240, "4m"),
            (600, "10m"),
            (5 * 3600 + 600, "5h10m"),
            (76 * 3600, "3d4h"),
            (800 * 86_400, "2y70d"),
        ];
        for (seconds, text) in cases {
            assert_eq!(human_duration(Duration::seconds(seconds)), text, "{seconds}s");
        }
    }

    #[test]
    fn columns_are_upstream_printers_where_the_fake_fills_every_cell() {
        let catalogue = Catalogue::new();
        let now = Utc::now();
        let secret =
            json!({"metadata": {"name": "s", "creationTimestamp": "2026-01-01T00:00:00Z"}, "type": "Opaque", "data": {"a": "", "b": ""}});
        let secrets = catalogue.lookup("", "v1", "secrets").unwrap();
        let secret_table = table(&secrets, &[&secret], json!({}), now, "meta.k8s.io/v1");
        let names: Vec<&str> = secret_table["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["Name", "Type", "Data", "Age"]);
        assert_eq!(secret_table["rows"][0]["cells"].as_array().unwrap()[..3], [json!("s"), json!("Opaque"), json!(2)]);
        assert!(secret_table["columnDefinitions"][2]["description"].as_str().unwrap().starts_with("Data contains the secret data."));
        let roles = catalogue.lookup("rbac.authorization.k8s.io", "v1", "roles").unwrap();
        let role = json!({"metadata": {"name": "r", "creationTimestamp": "2026-01-01T00:00:00Z"}});
        let role_table = table(&roles, &[&role], json!({}), now, "meta.k8s.io/v1");
        assert_eq!(role_table["columnDefinitions"][1]["name"], "Created At", "no printer: the default convertor's columns");
        assert_eq!(role_table["rows"][0]["cells"], json!(["r", "2026-01-01T00:00:00Z"]));
    }
}
