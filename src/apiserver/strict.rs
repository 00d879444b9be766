//! Strict decoding of request bodies: a JSON or YAML document read as a JSON value (the last
//! of repeated keys wins, as upstream's lenient decoders keep it) together with its keys in
//! document order and which of them repeat, what upstream's strict decoders report.
//!
//! JSON follows `sigs.k8s.io/json`'s `UnmarshalStrict` (`duplicate field "spec.replicas"`,
//! reported as the repeated key is read, in document order with unknown fields); YAML follows
//! `go.yaml.in/yaml/v2`'s `UnmarshalStrict` as `sigs.k8s.io/yaml` wraps it (one error listing
//! `line N: key "k" already set in map`, each reported once the repeated key's value is read).

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::{DuplicateKeyPolicy, Spanned};

/// The beginning of a YAML strict decoding error, as `sigs.k8s.io/yaml` wraps yaml.v2's.
const YAML_ERRORS: &str = "error converting YAML to JSON: yaml: unmarshal errors:\n";

/// The syntax a document was written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Syntax {
    #[default]
    Json,
    Yaml,
}

/// One key of a document, where it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    /// The field path, as strict decoding errors name it (`spec.containers[0].name`).
    path: String,
    /// Whether an earlier key of the same object had the same name.
    repeated: bool,
    /// The key as written, and its line (YAML only).
    name: String,
    line: u64,
}

/// The keys of a decoded document in document order. Empty for a body decoded otherwise
/// (protobuf) or not at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keys {
    syntax: Syntax,
    keys: Vec<Key>,
}

/// A decoded document: its value and its keys.
#[derive(Debug)]
pub struct Document {
    /// The value, the last of repeated keys winning.
    pub value: Value,
    /// The keys in document order.
    pub keys: Keys,
}

/// Decodes a JSON document.
pub fn json(body: &[u8]) -> Result<Document, serde_json::Error> {
    let mut keys = Vec::new();
    let mut de = serde_json::Deserializer::from_slice(body);
    // Go's decoder takes nesting to 10,000 levels (its scanner refuses deeper first), on a
    // stack that grows as deep as the document goes.
    de.disable_recursion_limit();
    let value = Node::<String> { path: String::new(), keys: &mut keys, syntax: Syntax::Json, key: std::marker::PhantomData }
        .deserialize(serde_stacker::Deserializer::new(&mut de))?;
    de.end()?;
    Ok(Document { value, keys: Keys { syntax: Syntax::Json, keys } })
}

/// Decodes a YAML (or JSON) document.
pub fn yaml(body: &[u8]) -> Result<Document, serde_saphyr::Error> {
    let mut options = serde_saphyr::Options::default();
    options.duplicate_keys = DuplicateKeyPolicy::PassThrough;
    // go-yaml nests collections to 10,000 levels (`max_flow_level` and `max_indents`,
    // go.yaml.in/yaml/v2 scannerc.go), where the parser's own budget stops at 64.
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = 10_000;
    budget.flow_nesting_limit = 10_000;
    options.budget = Some(budget);
    let mut keys = Vec::new();
    let value = serde_saphyr::with_deserializer_from_slice_with_options(body, options, |de| {
        Node::<Spanned<String>> { path: String::new(), keys: &mut keys, syntax: Syntax::Yaml, key: std::marker::PhantomData }
            .deserialize(de)
    })?;
    Ok(Document { value, keys: Keys { syntax: Syntax::Yaml, keys } })
}

impl Keys {
    /// The strict decoding errors of repeated keys: for JSON one `duplicate field "path"` each,
    /// for YAML one error listing them all.
    pub fn duplicates(&self) -> Vec<String> {
        let repeated = self.keys.iter().filter(|k| k.repeated);
        match self.syntax {
            Syntax::Json => dedup(repeated.map(|k| format!("duplicate field {:?}", k.path))),
            Syntax::Yaml => {
                let lines: Vec<String> = repeated.map(|k| format!("  line {}: key {:?} already set in map", k.line, k.name)).collect();
                if lines.is_empty() { vec![] } else { vec![format!("{YAML_ERRORS}{}", lines.join("\n"))] }
            }
        }
    }

    /// The strict decoding errors of a built-in kind's document, given the fields its type does
    /// not know (`unknown`, sorted): for JSON, unknown and repeated fields in document order
    /// (nothing below an unknown field, whose value the decoder skips); for YAML, the repeated
    /// keys first, then the unknown fields in the order of the JSON the YAML became.
    pub fn with_unknown(&self, unknown: &[String]) -> Vec<String> {
        let unknown_error = |path: &str| format!("unknown field {path:?}");
        if self.syntax == Syntax::Yaml || self.keys.is_empty() {
            return self.duplicates().into_iter().chain(unknown.iter().map(|p| unknown_error(p))).collect();
        }
        let below_unknown =
            |path: &str| unknown.iter().any(|u| path.strip_prefix(u.as_str()).is_some_and(|rest| rest.starts_with(['.', '['])));
        dedup(self.keys.iter().filter(|k| !below_unknown(&k.path)).filter_map(|k| {
            if unknown.binary_search(&k.path).is_ok() {
                Some(unknown_error(&k.path))
            } else {
                k.repeated.then(|| format!("duplicate field {:?}", k.path))
            }
        }))
    }
}

/// Each error once, in order (as upstream's decoders report a repeated error once).
fn dedup(errors: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in errors {
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// How a key is read: a plain string (JSON), or with its line (YAML).
trait KeyName: for<'de> serde::Deserialize<'de> {
    fn into_parts(self) -> (String, u64);
}

impl KeyName for String {
    fn into_parts(self) -> (String, u64) {
        (self, 0)
    }
}

impl KeyName for Spanned<String> {
    fn into_parts(self) -> (String, u64) {
        let line = self.referenced.line();
        (self.value, line)
    }
}

/// The value at `path`, recording the keys below it.
struct Node<'k, K> {
    path: String,
    keys: &'k mut Vec<Key>,
    syntax: Syntax,
    key: std::marker::PhantomData<K>,
}

impl<K> Node<'_, K> {
    fn child(&mut self, path: String) -> Node<'_, K> {
        Node { path, keys: self.keys, syntax: self.syntax, key: std::marker::PhantomData }
    }
}

impl<'de, K: KeyName> DeserializeSeed<'de> for Node<'_, K> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, K: KeyName> Visitor<'de> for Node<'_, K> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let path = format!("{}[{}]", self.path, out.len());
            match seq.next_element_seed(self.child(path))? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<K>()? {
            let (name, line) = key.into_parts();
            let path = if self.path.is_empty() { name.clone() } else { format!("{}.{name}", self.path) };
            let key = Key { path: path.clone(), repeated: out.contains_key(&name), name: name.clone(), line };
            // JSON reports a repeated key as it reads it, YAML once it has read its value.
            if self.syntax == Syntax::Json {
                self.keys.push(key.clone());
            }
            let value = map.next_value_seed(self.child(path))?;
            if self.syntax == Syntax::Yaml {
                self.keys.push(key);
            }
            out.insert(name, value);
        }
        Ok(Value::Object(out))
    }
}

/// The error of a YAML strict decoding error's lines as warnings, one a line (upstream's
/// `parseYAMLWarnings`); any other error is one warning.
pub fn warnings_of(error: &str) -> Vec<String> {
    match error.strip_prefix(YAML_ERRORS) {
        Some(lines) => lines.split('\n').map(|l| l.trim().to_string()).collect(),
        None => vec![error.to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_reports_unknown_and_repeated_fields_in_document_order() {
        let doc = json(br#"{"spec": {"unknownField": "foo", "replicas": 2, "replicas": 3, "a": {"x": 1, "x": 2}}}"#).unwrap();
        assert_eq!(doc.value["spec"]["replicas"], 3, "the last repeated key wins");
        let unknown = vec!["spec.a".to_string(), "spec.unknownField".to_string()];
        assert_eq!(
            doc.keys.with_unknown(&unknown),
            [r#"unknown field "spec.unknownField""#, r#"duplicate field "spec.replicas""#, r#"unknown field "spec.a""#]
        );
        assert_eq!(doc.keys.duplicates(), [r#"duplicate field "spec.replicas""#, r#"duplicate field "spec.a.x""#]);
        let list = json(br#"{"items": [{"n": 1, "n": 2}]}"#).unwrap();
        assert_eq!(list.keys.duplicates(), [r#"duplicate field "items[0].n""#]);
    }

    #[test]
    fn yaml_reports_repeated_keys_by_line() {
        let doc = yaml(b"\napiVersion: v1\nspec:\n  foo: foo1\n  foo: foo2\n  bar: 1\n").unwrap();
        assert_eq!(doc.value["spec"]["foo"], "foo2");
        let errors = doc.keys.duplicates();
        assert_eq!(errors, ["error converting YAML to JSON: yaml: unmarshal errors:\n  line 5: key \"foo\" already set in map"]);
        assert_eq!(warnings_of(&errors[0]), ["line 5: key \"foo\" already set in map"]);
        assert!(yaml(b"a: 1\nb: 2\n").unwrap().keys.duplicates().is_empty());
    }
}
