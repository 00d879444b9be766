//! `meta.k8s.io/v1` Table and PartialObjectMetadata renderings of objects, for `kubectl get`
//! and for metadata-only clients such as garbage collectors.

mod printers;

use chrono::{DateTime, Utc};
use std::borrow::Cow;
use std::sync::LazyLock;

use serde_json::{Map, Value, json};

use crate::apiserver::catalogue::ResourceInfo;
use crate::clock::parse_time;

/// An object's `PartialObjectMetadata`: its metadata, borrowed where it can be, under that
/// kind. Its fields serialize in the order of a JSON object the server builds.
#[derive(serde::Serialize)]
pub struct PartialMetadata<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    metadata: Cow<'a, Value>,
}

/// `object` as `PartialObjectMetadata` of `api_version` (`meta.k8s.io/v1` or `v1beta1`).
pub fn partial_metadata<'a>(object: &'a Value, api_version: &'static str) -> PartialMetadata<'a> {
    PartialMetadata { api_version, kind: "PartialObjectMetadata", metadata: internal_metadata(object) }
}

/// The annotation in which apps/v1 keeps a DaemonSet's template generation.
const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// An object's metadata as its internal Go type holds it, from which upstream makes metadata
/// renderings: there a DaemonSet's template generation is a field of its spec, taken out of
/// the annotations (`Convert_v1_DaemonSet_To_apps_DaemonSet`, pkg/apis/apps/v1/conversion.go),
/// which are left out when that empties them.
fn internal_metadata(object: &Value) -> Cow<'_, Value> {
    let metadata = &object["metadata"];
    let daemon_set = object["kind"] == "DaemonSet" && object["apiVersion"] == "apps/v1";
    if !daemon_set || metadata["annotations"].get(TEMPLATE_GENERATION).is_none() {
        return Cow::Borrowed(metadata);
    }
    let mut metadata = metadata.clone();
    let meta = metadata.as_object_mut().expect("metadata with annotations is an object");
    let annotations = meta.get_mut("annotations").and_then(Value::as_object_mut).expect("annotations hold the generation");
    annotations.remove(TEMPLATE_GENERATION);
    if annotations.is_empty() {
        meta.remove("annotations");
    }
    Cow::Owned(metadata)
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

/// The object's age, `<unknown>` without a creation time (`translateTimestampSince`).
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

/// The object's name.
fn name(o: &Value, _: DateTime<Utc>) -> Value {
    o["metadata"]["name"].clone()
}

/// The default convertor's creation time (RFC 3339).
fn created_at(o: &Value, _: DateTime<Utc>) -> Value {
    o["metadata"]["creationTimestamp"].clone()
}

/// How upstream fills column `column` of `kind` (an internal Go type name, or "" for the
/// default convertor): by its printer (k8s.io/kubernetes pkg/printers/internalversion/
/// printers.go), see [`printers::cell`].
fn cell_of(kind: &str, column: &str) -> Option<Cell> {
    Some(match (kind, column) {
        (_, "Name") => name,
        (_, "Age") => age,
        ("" | "apiextensions.CustomResourceDefinition", "Created At") => created_at,
        _ => return printers::cell(kind, column),
    })
}

/// The internal Go type name of a built-in kind, as the printers are registered for it
/// (`core.Secret`), or "" for a kind no printer handles (the default convertor).
fn printed_kind(resource: &ResourceInfo) -> String {
    let kind = format!("{}.{}", resource.internal_package(), resource.kind);
    if COLUMNS.contains_key(&kind) { kind } else { String::new() }
}

/// Upstream's columns of a built-in kind (the default convertor's for a kind no printer
/// handles); a column the fake has no cell for would be left null.
fn upstream_columns(kind: &str) -> Vec<Column> {
    let definitions = COLUMNS[kind].as_array().map_or(&[][..], Vec::as_slice);
    let cell = |definition: &Value| cell_of(kind, definition["name"].as_str().unwrap_or("")).unwrap_or(|_, _| Value::Null);
    definitions.iter().map(|definition| Column { definition: definition.clone(), cell: cell(definition) }).collect()
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

/// A `Table` of `api_version` (`meta.k8s.io/v1` or `v1beta1`) of `objects` (as served) for
/// `kubectl get`: every column's cell, as the server asks the printers for the wide output;
/// each row's object is `PartialObjectMetadata` of the same version.
pub fn table(resource: &ResourceInfo, objects: &[&Value], list_meta: Value, now: DateTime<Utc>, api_version: &'static str) -> Value {
    let kind = if resource.custom { String::new() } else { printed_kind(resource) };
    let cols = if resource.custom { custom_columns() } else { upstream_columns(&kind) };
    let definitions: Vec<&Value> = cols.iter().map(|c| &c.definition).collect();
    let row = |o: &&Value| {
        let printed = printers::as_printed(resource, o);
        let mut row = Map::new();
        row.insert("cells".into(), cols.iter().map(|c| (c.cell)(&printed, now)).collect());
        if let Some(conditions) = printers::row_conditions(&kind, o) {
            row.insert("conditions".into(), conditions);
        }
        row.insert("object".into(), json!(partial_metadata(o, api_version)));
        Value::Object(row)
    };
    // The definitions' convertor and the default one (of kinds no printer handles) append rows
    // to none, so that their table of no object has null rows; the printers' and custom
    // resources' start from an empty list (k8s.io/apiextensions-apiserver
    // pkg/registry/customresourcedefinition/tableconvertor, k8s.io/apiserver
    // pkg/registry/rest/table.go).
    let appended = !resource.custom && matches!(kind.as_str(), "" | "apiextensions.CustomResourceDefinition");
    let rows = if objects.is_empty() && appended { Value::Null } else { objects.iter().map(row).collect() };
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

    /// As the pinned kube-apiserver renders metadata alone (GET as PartialObjectMetadata).
    #[test]
    fn a_daemon_set_s_metadata_leaves_its_template_generation_out() {
        let object = |kind: &str, annotations: Value| json!({"apiVersion": if kind == "DaemonSet" { "apps/v1" } else { "v1" }, "kind": kind, "metadata": {"name": "d", "annotations": annotations}});
        let rendered = |o: &Value| json!(partial_metadata(o, "meta.k8s.io/v1"))["metadata"].clone();
        let both = json!({TEMPLATE_GENERATION: "1", "x": "y"});
        assert_eq!(rendered(&object("DaemonSet", both.clone()))["annotations"], json!({"x": "y"}));
        assert_eq!(rendered(&object("DaemonSet", json!({TEMPLATE_GENERATION: "1"}))), json!({"name": "d"}));
        assert_eq!(rendered(&object("ConfigMap", both.clone()))["annotations"], both);
    }

    #[test]
    fn columns_are_upstream_printers_or_else_the_default_convertor_s() {
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

    #[test]
    fn every_column_of_every_built_in_kind_has_a_cell() {
        for resource in Catalogue::new().all() {
            let kind = printed_kind(resource);
            for definition in COLUMNS[kind.as_str()].as_array().unwrap() {
                assert!(cell_of(&kind, definition["name"].as_str().unwrap()).is_some(), "{kind}: {}", definition["name"]);
            }
        }
    }
}
