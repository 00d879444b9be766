//! How Go's `fmt` prints a JSON value decoded into `interface{}`: `%v`, `%#v` and `%T`, which
//! upstream's messages use where they show a value they could not take (structured-merge-diff's
//! typed validation, sigs.k8s.io/structured-merge-diff typed/validate.go; the patch handler's
//! refusal of a strategic merge patch, k8s.io/apiserver pkg/endpoints/handlers/patch.go).

use serde_json::Value;

use crate::apiserver::go_quote::quote;

/// A `float64` as `%v` prints it (`strconv.FormatFloat(f, 'g', -1, 64)` with `%v`'s switch to
/// an exponent from 1e+06 on, and below 1e-04).
pub fn float(f: f64) -> String {
    let scientific = format!("{f:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if f != 0.0 && !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    } else {
        format!("{f}")
    }
}

/// How the decoder that made the value read its numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Numbers {
    /// Every number a `float64`, as `encoding/json` (and sigs.k8s.io/yaml) decode them.
    Float,
    /// An integral number an `int64`, others `float64`, as apimachinery's JSON decoder reads
    /// them.
    IntegerWhenIntegral,
}

/// A number as `%v` prints it, as `numbers` decoded it.
fn number(n: &serde_json::Number, numbers: Numbers) -> String {
    match n.as_i64() {
        Some(i) if numbers == Numbers::IntegerWhenIntegral => i.to_string(),
        _ => float(n.as_f64().unwrap_or_default()),
    }
}

/// The map's entries in the order `fmt` prints them: by key.
fn sorted(map: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

/// `%v` (and `%+v`) of the value.
pub fn plain(value: &Value, numbers: Numbers) -> String {
    match value {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n, numbers),
        Value::String(s) => s.clone(),
        Value::Array(items) => format!("[{}]", items.iter().map(|v| plain(v, numbers)).collect::<Vec<_>>().join(" ")),
        Value::Object(map) => {
            format!("map[{}]", sorted(map).iter().map(|(k, v)| format!("{k}:{}", plain(v, numbers))).collect::<Vec<_>>().join(" "))
        }
    }
}

/// `%#v` of the value (Go syntax).
pub fn syntax(value: &Value, numbers: Numbers) -> String {
    match value {
        Value::Null => "interface {}(nil)".into(),
        Value::String(s) => quote(s),
        Value::Array(items) => format!("[]interface {{}}{{{}}}", items.iter().map(|v| syntax(v, numbers)).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let shown: Vec<String> = sorted(map).iter().map(|(k, v)| format!("{}:{}", quote(k), syntax(v, numbers))).collect();
            format!("map[string]interface {{}}{{{}}}", shown.join(", "))
        }
        scalar => plain(scalar, numbers),
    }
}

/// `%T` of the value.
pub fn type_name(value: &Value, numbers: Numbers) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if numbers == Numbers::IntegerWhenIntegral && n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_print_as_go_prints_them() {
        let cases = [(1.0, "1"), (1.5, "1.5"), (100000.0, "100000"), (1e6, "1e+06"), (123456789.0, "1.23456789e+08"), (0.0001, "0.0001")];
        for (f, want) in cases {
            assert_eq!(float(f), want, "{f}");
        }
        assert_eq!(float(0.00001), "1e-05");
        assert_eq!(float(-2.0), "-2");
    }

    #[test]
    fn values_print_as_fmt_prints_them() {
        let value = json!({"b": [1, "x"], "a": true});
        assert_eq!(plain(&value, Numbers::Float), "map[a:true b:[1 x]]");
        assert_eq!(syntax(&value, Numbers::Float), r#"map[string]interface {}{"a":true, "b":[]interface {}{1, "x"}}"#);
        assert_eq!(type_name(&value, Numbers::Float), "map[string]interface {}");
        assert_eq!(type_name(&json!(1), Numbers::IntegerWhenIntegral), "int64");
        let patch = json!({"b": [1, 2.5, null], "a": {"x": "y", "t": true}, "c": 1234567.5, "d": 0.00001});
        assert_eq!(plain(&patch, Numbers::IntegerWhenIntegral), "map[a:map[t:true x:y] b:[1 2.5 <nil>] c:1.2345675e+06 d:1e-05]");
    }
}
