//! The syntax tree of a decoded message turned into Kubernetes JSON: field names, the
//! apimachinery types with their own JSON form, bytes, zero values.

use base64::Engine as _;
use serde_json::{Map, Number, Value};

use super::MAGIC;
use super::debug_text::Node;
use super::names::{inlined_message, is_bytes_field, json_name, keeps_zero};
use crate::apiserver::go_time::Layout;

/// Converts a node to JSON; `None` when the value is absent (`None`, a zero `Time`, ...).
pub(super) fn node_to_json(node: &Node) -> Result<Option<Value>, String> {
    Ok(Some(match node {
        Node::Message { name, fields } => return message_to_json(name, fields),
        Node::Some(inner) => return node_to_json(inner),
        Node::None => return Ok(None),
        Node::Str(s) => Value::String(s.clone()),
        Node::Number(literal) => number(literal)?,
        Node::Bool(b) => Value::Bool(*b),
        Node::List(items) => Value::Array(items.iter().map(element_to_json).collect::<Result<_, _>>()?),
        Node::Map(entries) => {
            let entries = entries.iter().map(|(key, value)| Ok((map_key(key)?, element_to_json(value)?)));
            Value::Object(entries.collect::<Result<_, String>>()?)
        }
    }))
}

/// Converts a list element or map value, where an absent value is `null`.
pub(super) fn element_to_json(node: &Node) -> Result<Value, String> {
    Ok(node_to_json(node)?.unwrap_or(Value::Null))
}

/// Converts a message: the apimachinery types with their own JSON form by name, others field
/// by field.
pub(super) fn message_to_json(name: &str, fields: &[(String, Node)]) -> Result<Option<Value>, String> {
    match name {
        "Time" => timestamp(fields, TimePrecision::Seconds),
        "MicroTime" => timestamp(fields, TimePrecision::Micros),
        "IntOrString" => int_or_string(fields).map(Some),
        "Quantity" => Ok(Some(Value::String(string_field(fields, "string").unwrap_or("0").into()))),
        "Duration" => duration(fields).map(Some),
        // Named slices: a message whose `items` hold the elements.
        "Verbs" | "ExtraValue" => Ok(Some(field(fields, "items").map(element_to_json).transpose()?.unwrap_or(Value::Array(Vec::new())))),
        "RawExtension" | "FieldsV1" | "Json" => embedded_json(fields),
        "JsonSchemaPropsOrArray" => schema_or_array(fields),
        "JsonSchemaPropsOrBool" => schema_or_bool(fields),
        "JsonSchemaPropsOrStringArray" => schema_or_string_array(fields),
        _ => object(name, fields).map(|object| Some(Value::Object(object))),
    }
}

/// Converts the fields of message `owner` into a JSON object.
pub(super) fn object(owner: &str, fields: &[(String, Node)]) -> Result<Map<String, Value>, String> {
    let mut object = Map::new();
    for (field, node) in fields {
        let Some(node) = present(node) else { continue };
        if let Some((inner, inner_fields)) = inlined_message(field, node) {
            object.extend(self::object(inner, inner_fields)?);
            continue;
        }
        let name = json_name(owner, field);
        if is_empty(node) || (is_zero(node) && !keeps_zero(owner, &name)) {
            continue;
        }
        let value = if is_bytes_field(owner, &name) { Some(bytes_to_base64(node)?) } else { node_to_json(node)? };
        if let Some(value) = value {
            object.insert(name, value);
        }
    }
    Ok(object)
}

/// The value of a field, without its `Some`; `None` when the field is unset.
pub(super) fn present(node: &Node) -> Option<&Node> {
    match node {
        Node::Some(inner) => present(inner),
        Node::None => None,
        other => Some(other),
    }
}

/// An empty repeated or map field.
pub(super) fn is_empty(node: &Node) -> bool {
    matches!(node, Node::List(items) if items.is_empty()) || matches!(node, Node::Map(m) if m.is_empty())
}

/// A Go zero value: `""`, `0`, `false`, or an `IntOrString` holding one of them.
pub(super) fn is_zero(node: &Node) -> bool {
    match node {
        Node::Str(s) => s.is_empty(),
        Node::Number(literal) => literal.parse::<f64>().is_ok_and(|n| n == 0.0),
        Node::Bool(b) => !b,
        Node::Message { name, fields } if name == "IntOrString" => int_or_string(fields).is_ok_and(|v| v == 0 || v == ""),
        _ => false,
    }
}

/// A JSON map key: map keys are strings in every Kubernetes type.
pub(super) fn map_key(key: &Node) -> Result<String, String> {
    match key {
        Node::Str(s) => Ok(s.clone()),
        Node::Number(literal) => Ok(literal.clone()),
        other => Err(format!("unexpected map key {other:?}")),
    }
}

/// A JSON number from a Rust literal. Integral floats print as integers, as Go prints them;
/// infinities and NaN (which JSON cannot carry) become `null`.
pub(super) fn number(literal: &str) -> Result<Value, String> {
    if let Ok(n) = literal.parse::<i64>() {
        return Ok(Value::from(n));
    }
    if let Ok(n) = literal.parse::<u64>() {
        return Ok(Value::from(n));
    }
    let float: f64 = literal.parse().map_err(|_| format!("invalid number {literal:?}"))?;
    const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53
    if float.fract() == 0.0 && float.abs() < EXACT_INTEGER_LIMIT {
        return Ok(Value::from(float as i64));
    }
    Ok(Number::from_f64(float).map_or(Value::Null, Value::Number))
}

/// The value of field `name` of a message, without its `Some`.
pub(super) fn field<'a>(fields: &'a [(String, Node)], name: &str) -> Option<&'a Node> {
    fields.iter().find(|(field, _)| field == name).and_then(|(_, node)| present(node))
}

/// The string in field `name`, if set.
pub(super) fn string_field<'a>(fields: &'a [(String, Node)], name: &str) -> Option<&'a str> {
    match field(fields, name) {
        Some(Node::Str(s)) => Some(s),
        _ => None,
    }
}

/// The integer in field `name`; 0 when unset, as in Go.
pub(super) fn integer_field(fields: &[(String, Node)], name: &str) -> Result<i64, String> {
    match field(fields, name) {
        None => Ok(0),
        Some(Node::Number(literal)) => literal.parse().map_err(|_| format!("invalid integer {literal:?}")),
        Some(other) => Err(format!("expected an integer in {name}, found {other:?}")),
    }
}

/// The bytes of a `bytes` field, printed as a list of integers.
pub(super) fn bytes(node: &Node) -> Result<Vec<u8>, String> {
    let Node::List(items) = node else { return Err(format!("expected bytes, found {node:?}")) };
    items
        .iter()
        .map(|item| match item {
            Node::Number(literal) => literal.parse::<u8>().map_err(|_| format!("invalid byte {literal:?}")),
            other => Err(format!("expected a byte, found {other:?}")),
        })
        .collect()
}

/// A `bytes` field (or a map of them) as base64, the JSON form of Go `[]byte`.
pub(super) fn bytes_to_base64(node: &Node) -> Result<Value, String> {
    match node {
        Node::Map(entries) => {
            let entries = entries.iter().map(|(key, value)| Ok((map_key(key)?, base64_string(value)?)));
            Ok(Value::Object(entries.collect::<Result<_, String>>()?))
        }
        other => base64_string(other),
    }
}

pub(super) fn base64_string(node: &Node) -> Result<Value, String> {
    Ok(Value::String(base64::engine::general_purpose::STANDARD.encode(bytes(node)?)))
}

/// How many fractional second digits a timestamp keeps.
#[derive(Clone, Copy)]
pub(super) enum TimePrecision {
    /// `metav1.Time`: RFC 3339 in whole seconds (Go even drops the nanos it receives).
    Seconds,
    /// `metav1.MicroTime`: RFC 3339 with six fractional digits.
    Micros,
}

/// `Time` / `MicroTime` `{seconds, nanos}` as an RFC 3339 UTC string. A zero time is an empty
/// message on the wire and has no `seconds`: it is absent.
pub(super) fn timestamp(fields: &[(String, Node)], precision: TimePrecision) -> Result<Option<Value>, String> {
    if field(fields, "seconds").is_none() {
        return Ok(None);
    }
    let seconds = integer_field(fields, "seconds")?;
    let nanos = integer_field(fields, "nanos")?;
    let (seconds, nanos) = match precision {
        TimePrecision::Seconds => (seconds, 0),
        TimePrecision::Micros => {
            let total = i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
            let seconds = i64::try_from(total.div_euclid(1_000_000_000)).map_err(|_| "time out of range")?;
            (seconds, total.rem_euclid(1_000_000_000) as u32)
        }
    };
    let time = chrono::DateTime::from_timestamp(seconds, nanos).ok_or("time out of range")?;
    let layout = match precision {
        TimePrecision::Seconds => Layout::Rfc3339,
        TimePrecision::Micros => Layout::Rfc3339Micro,
    };
    Ok(Some(Value::String(layout.format(time))))
}

/// `IntOrString {type, intVal, strVal}`: type 1 is a string, anything else an integer.
pub(super) fn int_or_string(fields: &[(String, Node)]) -> Result<Value, String> {
    if integer_field(fields, "r#type")? == 1 {
        Ok(Value::String(string_field(fields, "str_val").unwrap_or_default().into()))
    } else {
        Ok(Value::from(integer_field(fields, "int_val")?))
    }
}

/// `metav1.Duration {duration}` (nanoseconds) as a Go duration string.
pub(super) fn duration(fields: &[(String, Node)]) -> Result<Value, String> {
    Ok(Value::String(go_duration(integer_field(fields, "duration")?)))
}

/// Formats nanoseconds like Go's `time.Duration.String`: `1h2m3.5s`, `1.5ms`, `0s`.
pub(super) fn go_duration(nanos: i64) -> String {
    const MICRO: u64 = 1_000;
    const MILLI: u64 = 1_000_000;
    const SECOND: u64 = 1_000_000_000;
    let sign = if nanos < 0 { "-" } else { "" };
    let n = nanos.unsigned_abs();
    let text = if n == 0 {
        "0s".to_string()
    } else if n < MICRO {
        format!("{n}ns")
    } else if n < MILLI {
        format!("{}µs", decimal(n, MICRO))
    } else if n < SECOND {
        format!("{}ms", decimal(n, MILLI))
    } else {
        let (hours, minutes) = (n / (3600 * SECOND), n / (60 * SECOND) % 60);
        let seconds = decimal(n % (60 * SECOND), SECOND);
        match (hours, minutes) {
            (0, 0) => format!("{seconds}s"),
            (0, _) => format!("{minutes}m{seconds}s"),
            _ => format!("{hours}h{minutes}m{seconds}s"),
        }
    };
    format!("{sign}{text}")
}

/// `value / unit` as a decimal without trailing fractional zeros (`1500, 1000` -> `1.5`).
pub(super) fn decimal(value: u64, unit: u64) -> String {
    let (whole, fraction) = (value / unit, value % unit);
    if fraction == 0 {
        return whole.to_string();
    }
    let digits = unit.ilog10() as usize;
    let fraction = format!("{fraction:0digits$}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

/// `RawExtension`, `FieldsV1` and apiextensions `JSON`: their `raw` bytes hold JSON.
pub(super) fn embedded_json(fields: &[(String, Node)]) -> Result<Option<Value>, String> {
    let raw = match field(fields, "raw") {
        Some(node) => bytes(node)?,
        None => return Ok(None),
    };
    if raw.is_empty() {
        return Ok(None);
    }
    if raw.starts_with(MAGIC) {
        return Err("embedded protobuf objects are not supported; embed JSON".into());
    }
    serde_json::from_slice(&raw).map(Some).map_err(|e| format!("embedded JSON is invalid: {e}"))
}

/// `JSONSchemaPropsOrArray`: the list of schemas if there is one, else the single schema.
pub(super) fn schema_or_array(fields: &[(String, Node)]) -> Result<Option<Value>, String> {
    match field(fields, "j_son_schemas") {
        Some(schemas) if !is_empty(schemas) => node_to_json(schemas),
        _ => field(fields, "schema").map_or(Ok(None), node_to_json),
    }
}

/// `JSONSchemaPropsOrBool`: the schema if there is one, else the boolean.
pub(super) fn schema_or_bool(fields: &[(String, Node)]) -> Result<Option<Value>, String> {
    match field(fields, "schema") {
        Some(schema) => node_to_json(schema),
        None => Ok(Some(Value::Bool(matches!(field(fields, "allows"), Some(Node::Bool(true)))))),
    }
}

/// `JSONSchemaPropsOrStringArray`: the string list if there is one, else the schema.
pub(super) fn schema_or_string_array(fields: &[(String, Node)]) -> Result<Option<Value>, String> {
    match field(fields, "property") {
        Some(property) if !is_empty(property) => node_to_json(property),
        _ => field(fields, "schema").map_or(Ok(None), node_to_json),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_durations() {
        let cases = [
            (0, "0s"),
            (999, "999ns"),
            (1_500, "1.5µs"),
            (1_500_000, "1.5ms"),
            (30_000_000_000, "30s"),
            (90_000_000_000, "1m30s"),
            (3_600_000_000_000, "1h0m0s"),
            (3_723_500_000_000, "1h2m3.5s"),
            (-2_000_000_000, "-2s"),
        ];
        for (nanos, expected) in cases {
            assert_eq!(go_duration(nanos), expected);
        }
        let fields = vec![("duration".to_string(), Node::Some(Box::new(Node::Number("30000000000".into()))))];
        assert_eq!(message_to_json("Duration", &fields).unwrap(), Some(json!("30s")));
    }
}
