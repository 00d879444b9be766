//! Kubernetes protobuf request bodies, turned into the Kubernetes JSON the store keeps.
//!
//! kubectl and client-go typed clients send bodies for built-in kinds (create, update, DELETE
//! options, evictions) as `application/vnd.kubernetes.protobuf`: the magic bytes `k8s\0`
//! followed by a `runtime.Unknown` envelope whose `typeMeta` names the kind and whose `raw`
//! holds the protobuf encoding of the typed object. The fake apiserver stores every object as a
//! [`serde_json::Value`] in its normal Kubernetes JSON form, so [`decode`] converts such a body
//! into exactly that JSON.
//!
//! # Approach
//!
//! 1. Strip the magic and decode the [`Unknown`] envelope.
//! 2. Look the `(apiVersion, kind)` up in a table of [`k8s_pb`] message types and decode `raw`
//!    into that type. k8s-pb has no serde support and no descriptors, but every prost-derived
//!    message implements `Debug`, which prints all fields in declaration order:
//!    `Namespace { metadata: Some(ObjectMeta { name: Some("t1"), .. }), .. }`.
//! 3. Parse that `Debug` text into a small syntax tree (`Node`) and build the JSON from the
//!    tree. This is one generic conversion instead of hand-written code for hundreds of types:
//!    - field names go from Rust `snake_case` to the Kubernetes `lowerCamelCase` JSON names,
//!      keeping the acronyms Kubernetes spells in capitals (`podIP`, `hostIPs`, `volumeID`);
//!    - the apimachinery types with their own JSON form are recognised by their message name:
//!      `Time`, `MicroTime`, `IntOrString`, `Quantity`, `RawExtension`, `FieldsV1`, `Duration`
//!      and the apiextensions `JSON` / `JSONSchemaProps*Or*` wrappers;
//!    - `bytes` fields (Secret `data`, ConfigMap `binaryData`, `caBundle`) become base64;
//!    - the Go structs Kubernetes embeds without a JSON name (`VolumeSource` in `Volume`,
//!      `LocalObjectReference` in key selectors, ...) are flattened into their parent.
//!
//! # Omitted fields
//!
//! Go's protobuf marshaller writes every non-pointer field, so a body from a Go client carries
//! `generateName: ""`, `generation: 0`, `hostNetwork: false` and the like, where Go's JSON
//! encoder (`omitempty`) would leave them out. The output follows Go's JSON encoder: a zero
//! scalar (`""`, `0`, `false`, a zero `IntOrString`) is dropped unless `KEPT_ZEROS` lists the
//! field, that is unless the Go field is a pointer (only written when set, and its zero means
//! something: `gracePeriodSeconds: 0`, `replicas: 0`, `blockOwnerDeletion: false`) or has no
//! `omitempty` (`served: false`, `containerPort`). Unset (`None`) fields and empty lists and
//! maps are always omitted; so is a zero `Time` (an empty message on the wire), which Go prints
//! as `null`.

use base64::Engine as _;
use k8s_pb::api::{apps, autoscaling, batch, coordination, core, events, networking, policy};
use k8s_pb::api::{rbac, scheduling};
use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime::Unknown;
use serde_json::{Map, Number, Value};

/// The media type of Kubernetes protobuf bodies.
const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The four bytes every Kubernetes protobuf body starts with.
const MAGIC: &[u8] = b"k8s\0";

/// Whether a `Content-Type` header value names the Kubernetes protobuf encoding.
///
/// Parameters (`;charset=...`) are ignored and the media type is compared case-insensitively.
pub fn is_protobuf(content_type: &str) -> bool {
    let media_type = content_type.split(';').next().unwrap_or_default().trim();
    media_type.eq_ignore_ascii_case(MEDIA_TYPE)
}

/// Decodes a Kubernetes protobuf body (`k8s\0` + `runtime.Unknown`) into Kubernetes JSON.
///
/// The result carries `apiVersion` and `kind` from the envelope. The error text is meant for a
/// `400 BadRequest` status message: a missing magic prefix, an undecodable envelope or object,
/// an unsupported kind or content encoding. Never panics, whatever the input.
pub fn decode(body: &[u8]) -> Result<Value, String> {
    let envelope = decode_envelope(body)?;
    let type_meta = envelope.type_meta.unwrap_or_default();
    let api_version = type_meta.api_version.unwrap_or_default();
    let kind = type_meta.kind.unwrap_or_default();
    let raw = envelope.raw.unwrap_or_default();
    let text = debug_text_of(&api_version, &kind, &raw)?;
    let tree = Parser::parse(&text).map_err(|e| format!("protobuf body: cannot read decoded {api_version} {kind}: {e}"))?;
    let fields = match node_to_json(&tree) {
        Ok(Some(Value::Object(fields))) => fields,
        Ok(_) => return Err(format!("protobuf body: decoded {api_version} {kind} is not an object")),
        Err(e) => return Err(format!("protobuf body: cannot convert {api_version} {kind}: {e}")),
    };
    let mut object = Map::new();
    object.insert("apiVersion".into(), Value::String(api_version));
    object.insert("kind".into(), Value::String(kind));
    object.extend(fields);
    Ok(Value::Object(object))
}

/// Checks the magic prefix and decodes the `runtime.Unknown` envelope after it.
fn decode_envelope(body: &[u8]) -> Result<Unknown, String> {
    let message = body.strip_prefix(MAGIC).ok_or("protobuf body: missing the Kubernetes protobuf prefix \"k8s\\x00\"")?;
    let envelope = <Unknown as prost::Message>::decode(message)
        .map_err(|e| format!("protobuf body: cannot decode the runtime.Unknown envelope: {e}"))?;
    match envelope.content_encoding.as_deref() {
        None | Some("") => Ok(envelope),
        Some(encoding) => Err(format!("protobuf body: content encoding {encoding:?} is not supported")),
    }
}

/// Decodes `raw` as message type `M` and returns its `Debug` text.
fn debug_text<M: prost::Message + Default + std::fmt::Debug>(raw: &[u8]) -> Result<String, prost::DecodeError> {
    M::decode(raw).map(|message| format!("{message:?}"))
}

/// Declares the supported kinds: `"apiVersion", "Kind" => k8s_pb::Type;`.
macro_rules! supported_kinds {
    ($($api_version:literal, $kind:literal => $message:ty;)*) => {
        /// Decodes `raw` as the k8s-pb message of `(api_version, kind)` and returns its `Debug`
        /// text. `DeleteOptions` is accepted under any group version: every group version registers
        /// it, so client-go may label it `meta.k8s.io/v1`, `v1` or the group of the resource it
        /// deletes (`apps/v1`, ...).
        fn debug_text_of(api_version: &str, kind: &str, raw: &[u8]) -> Result<String, String> {
            let decoded = match (api_version, kind) {
                $(($api_version, $kind) => debug_text::<$message>(raw),)*
                (_, "DeleteOptions") => debug_text::<meta::DeleteOptions>(raw),
                _ => {
                    return Err(format!(
                        "protobuf body: kind {kind:?} in {api_version:?} is not supported; send JSON"
                    ))
                }
            };
            decoded.map_err(|e| format!("protobuf body: cannot decode {api_version} {kind}: {e}"))
        }

        /// Every supported `(apiVersion, kind)` with the encoding of an empty message.
        #[cfg(test)]
        fn supported_kinds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
            vec![$(($api_version, $kind, prost::Message::encode_to_vec(&<$message>::default())),)*]
        }
    };
}

supported_kinds! {
    "v1", "Binding" => core::v1::Binding;
    "v1", "ConfigMap" => core::v1::ConfigMap;
    "v1", "Endpoints" => core::v1::Endpoints;
    "v1", "Event" => core::v1::Event;
    "v1", "LimitRange" => core::v1::LimitRange;
    "v1", "Namespace" => core::v1::Namespace;
    "v1", "Node" => core::v1::Node;
    "v1", "PersistentVolume" => core::v1::PersistentVolume;
    "v1", "PersistentVolumeClaim" => core::v1::PersistentVolumeClaim;
    "v1", "Pod" => core::v1::Pod;
    "v1", "PodTemplate" => core::v1::PodTemplate;
    "v1", "ReplicationController" => core::v1::ReplicationController;
    "v1", "ResourceQuota" => core::v1::ResourceQuota;
    "v1", "Secret" => core::v1::Secret;
    "v1", "Service" => core::v1::Service;
    "v1", "ServiceAccount" => core::v1::ServiceAccount;
    "apps/v1", "ControllerRevision" => apps::v1::ControllerRevision;
    "apps/v1", "DaemonSet" => apps::v1::DaemonSet;
    "apps/v1", "Deployment" => apps::v1::Deployment;
    "apps/v1", "ReplicaSet" => apps::v1::ReplicaSet;
    "apps/v1", "StatefulSet" => apps::v1::StatefulSet;
    "autoscaling/v1", "Scale" => autoscaling::v1::Scale;
    "batch/v1", "CronJob" => batch::v1::CronJob;
    "batch/v1", "Job" => batch::v1::Job;
    "coordination.k8s.io/v1", "Lease" => coordination::v1::Lease;
    "events.k8s.io/v1", "Event" => events::v1::Event;
    "rbac.authorization.k8s.io/v1", "ClusterRole" => rbac::v1::ClusterRole;
    "rbac.authorization.k8s.io/v1", "ClusterRoleBinding" => rbac::v1::ClusterRoleBinding;
    "rbac.authorization.k8s.io/v1", "Role" => rbac::v1::Role;
    "rbac.authorization.k8s.io/v1", "RoleBinding" => rbac::v1::RoleBinding;
    "apiextensions.k8s.io/v1", "CustomResourceDefinition" => apiextensions::CustomResourceDefinition;
    "policy/v1", "Eviction" => policy::v1::Eviction;
    "policy/v1", "PodDisruptionBudget" => policy::v1::PodDisruptionBudget;
    "scheduling.k8s.io/v1", "PriorityClass" => scheduling::v1::PriorityClass;
    "networking.k8s.io/v1", "Ingress" => networking::v1::Ingress;
    "networking.k8s.io/v1", "IngressClass" => networking::v1::IngressClass;
    "networking.k8s.io/v1", "NetworkPolicy" => networking::v1::NetworkPolicy;
}

// ---------------------------------------------------------------------------------------------
// The `Debug` syntax of prost messages
// ---------------------------------------------------------------------------------------------

/// A value in the `Debug` syntax prost-derived messages print.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// `Name { field: value, ... }`, or a bare `Name` for a message without fields.
    Message { name: String, fields: Vec<(String, Node)> },
    /// `Some(value)`.
    Some(Box<Node>),
    /// `None`.
    None,
    /// A quoted string, unescaped.
    Str(String),
    /// An integer or float literal as printed (`-3`, `1.5`, `1e-7`, `inf`, `NaN`).
    Number(String),
    /// `true` or `false`.
    Bool(bool),
    /// `[a, b]`: a repeated field, or the bytes of a `bytes` field.
    List(Vec<Node>),
    /// `{"key": value}`: a map field.
    Map(Vec<(Node, Node)>),
}

/// Nesting deeper than this is rejected (prost itself stops decoding at depth 100).
const MAX_DEPTH: usize = 512;

/// A recursive-descent parser for [`Node`] text.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// Parses one complete value.
    fn parse(text: &'a str) -> Result<Node, String> {
        let mut parser = Parser { text, pos: 0, depth: 0 };
        let node = parser.value()?;
        parser.skip_whitespace();
        match parser.peek() {
            None => Ok(node),
            Some(c) => Err(parser.error(&format!("unexpected {c:?} after the value"))),
        }
    }

    /// An error message pointing at the current offset.
    fn error(&self, message: &str) -> String {
        format!("{message} at offset {}", self.pos)
    }

    /// The next character, without consuming it.
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    /// Consumes and returns the next character.
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Skips spaces (`Debug` output only has ASCII whitespace outside strings).
    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// Consumes `expected` (after whitespace) or fails.
    fn expect(&mut self, expected: char) -> Result<(), String> {
        self.skip_whitespace();
        match self.bump() {
            Some(c) if c == expected => Ok(()),
            Some(c) => Err(self.error(&format!("expected {expected:?}, found {c:?}"))),
            None => Err(self.error(&format!("expected {expected:?}, found the end"))),
        }
    }

    /// Consumes `c` if it is next (after whitespace).
    fn eat(&mut self, c: char) -> bool {
        self.skip_whitespace();
        let found = self.peek() == Some(c);
        if found {
            self.pos += c.len_utf8();
        }
        found
    }

    /// Takes the longest run of characters satisfying `accept`.
    fn take_while(&mut self, accept: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(&accept) {
            self.pos += self.peek().map_or(0, char::len_utf8);
        }
        &self.text[start..self.pos]
    }

    /// Any value, dispatching on its first character.
    fn value(&mut self) -> Result<Node, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        self.skip_whitespace();
        let node = match self.peek() {
            Some('"') => self.string().map(Node::Str),
            Some('[') => self.list(),
            Some('{') => self.map(),
            Some(c) if c == '-' || c.is_ascii_digit() => Ok(self.number()),
            Some(c) if c.is_alphabetic() || c == '_' => self.identifier_value(),
            Some(c) => Err(self.error(&format!("unexpected {c:?}"))),
            None => Err(self.error("unexpected end")),
        };
        self.depth -= 1;
        node
    }

    /// A number literal, kept as text.
    fn number(&mut self) -> Node {
        let literal = self.take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.'));
        Node::Number(literal.to_string())
    }

    /// `None`, `Some(..)`, `true`, `false`, `inf`, `NaN`, or a message.
    fn identifier_value(&mut self) -> Result<Node, String> {
        let name = self.identifier();
        match name {
            "None" => Ok(Node::None),
            "true" => Ok(Node::Bool(true)),
            "false" => Ok(Node::Bool(false)),
            "inf" | "NaN" => Ok(Node::Number(name.to_string())),
            "Some" => {
                self.expect('(')?;
                let inner = self.value()?;
                self.expect(')')?;
                Ok(Node::Some(Box::new(inner)))
            }
            _ => self.message(name),
        }
    }

    /// An identifier, including raw identifiers such as `r#type`.
    fn identifier(&mut self) -> &'a str {
        self.take_while(|c| c.is_alphanumeric() || c == '_' || c == '#')
    }

    /// The rest of a message after its name: `{ field: value, ... }` or nothing.
    fn message(&mut self, name: &str) -> Result<Node, String> {
        let mut fields = Vec::new();
        if self.eat('{') {
            while !self.eat('}') {
                self.skip_whitespace();
                let field = self.identifier().to_string();
                if field.is_empty() {
                    return Err(self.error("expected a field name"));
                }
                self.expect(':')?;
                fields.push((field, self.value()?));
                self.separator('}')?;
            }
        }
        Ok(Node::Message { name: name.to_string(), fields })
    }

    /// After an element: a comma, or the closing delimiter (left for the caller to eat).
    fn separator(&mut self, close: char) -> Result<(), String> {
        self.skip_whitespace();
        match self.peek() {
            Some(',') => {
                self.pos += 1;
                Ok(())
            }
            Some(c) if c == close => Ok(()),
            _ => Err(self.error(&format!("expected ',' or {close:?}"))),
        }
    }

    /// `[value, ...]`.
    fn list(&mut self) -> Result<Node, String> {
        self.expect('[')?;
        let mut items = Vec::new();
        while !self.eat(']') {
            items.push(self.value()?);
            self.separator(']')?;
        }
        Ok(Node::List(items))
    }

    /// `{key: value, ...}`.
    fn map(&mut self) -> Result<Node, String> {
        self.expect('{')?;
        let mut entries = Vec::new();
        while !self.eat('}') {
            let key = self.value()?;
            self.expect(':')?;
            entries.push((key, self.value()?));
            self.separator('}')?;
        }
        Ok(Node::Map(entries))
    }

    /// A quoted string with Rust `Debug` escapes.
    fn string(&mut self) -> Result<String, String> {
        self.expect('"')?;
        let mut out = String::new();
        loop {
            match self.bump() {
                Some('"') => return Ok(out),
                Some('\\') => out.push(self.escape()?),
                Some(c) => out.push(c),
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    /// The character of an escape sequence, after its backslash.
    fn escape(&mut self) -> Result<char, String> {
        match self.bump() {
            Some('n') => Ok('\n'),
            Some('r') => Ok('\r'),
            Some('t') => Ok('\t'),
            Some('0') => Ok('\0'),
            Some(c @ ('\\' | '"' | '\'')) => Ok(c),
            Some('u') => {
                self.expect('{')?;
                let hex = self.take_while(|c| c.is_ascii_hexdigit());
                let code = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
                self.expect('}')?;
                code.ok_or_else(|| self.error("invalid unicode escape"))
            }
            _ => Err(self.error("invalid escape")),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// From the syntax tree to Kubernetes JSON
// ---------------------------------------------------------------------------------------------

/// Converts a node to JSON; `None` when the value is absent (`None`, a zero `Time`, ...).
fn node_to_json(node: &Node) -> Result<Option<Value>, String> {
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
fn element_to_json(node: &Node) -> Result<Value, String> {
    Ok(node_to_json(node)?.unwrap_or(Value::Null))
}

/// Converts a message: the apimachinery types with their own JSON form by name, others field
/// by field.
fn message_to_json(name: &str, fields: &[(String, Node)]) -> Result<Option<Value>, String> {
    match name {
        "Time" => timestamp(fields, TimePrecision::Seconds),
        "MicroTime" => timestamp(fields, TimePrecision::Micros),
        "IntOrString" => int_or_string(fields).map(Some),
        "Quantity" => Ok(Some(Value::String(string_field(fields, "string").unwrap_or("0").into()))),
        "Duration" => duration(fields).map(Some),
        "RawExtension" | "FieldsV1" | "Json" => embedded_json(fields),
        "JsonSchemaPropsOrArray" => schema_or_array(fields),
        "JsonSchemaPropsOrBool" => schema_or_bool(fields),
        "JsonSchemaPropsOrStringArray" => schema_or_string_array(fields),
        _ => object(name, fields).map(|object| Some(Value::Object(object))),
    }
}

/// Converts the fields of message `owner` into a JSON object.
fn object(owner: &str, fields: &[(String, Node)]) -> Result<Map<String, Value>, String> {
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
fn present(node: &Node) -> Option<&Node> {
    match node {
        Node::Some(inner) => present(inner),
        Node::None => None,
        other => Some(other),
    }
}

/// An empty repeated or map field.
fn is_empty(node: &Node) -> bool {
    matches!(node, Node::List(items) if items.is_empty()) || matches!(node, Node::Map(m) if m.is_empty())
}

/// A Go zero value: `""`, `0`, `false`, or an `IntOrString` holding one of them.
fn is_zero(node: &Node) -> bool {
    match node {
        Node::Str(s) => s.is_empty(),
        Node::Number(literal) => literal.parse::<f64>().is_ok_and(|n| n == 0.0),
        Node::Bool(b) => !b,
        Node::Message { name, fields } if name == "IntOrString" => int_or_string(fields).is_ok_and(|v| v == 0 || v == ""),
        _ => false,
    }
}

/// A JSON map key: map keys are strings in every Kubernetes type.
fn map_key(key: &Node) -> Result<String, String> {
    match key {
        Node::Str(s) => Ok(s.clone()),
        Node::Number(literal) => Ok(literal.clone()),
        other => Err(format!("unexpected map key {other:?}")),
    }
}

/// A JSON number from a Rust literal. Integral floats print as integers, as Go prints them;
/// infinities and NaN (which JSON cannot carry) become `null`.
fn number(literal: &str) -> Result<Value, String> {
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
fn field<'a>(fields: &'a [(String, Node)], name: &str) -> Option<&'a Node> {
    fields.iter().find(|(field, _)| field == name).and_then(|(_, node)| present(node))
}

/// The string in field `name`, if set.
fn string_field<'a>(fields: &'a [(String, Node)], name: &str) -> Option<&'a str> {
    match field(fields, name) {
        Some(Node::Str(s)) => Some(s),
        _ => None,
    }
}

/// The integer in field `name`; 0 when unset, as in Go.
fn integer_field(fields: &[(String, Node)], name: &str) -> Result<i64, String> {
    match field(fields, name) {
        None => Ok(0),
        Some(Node::Number(literal)) => literal.parse().map_err(|_| format!("invalid integer {literal:?}")),
        Some(other) => Err(format!("expected an integer in {name}, found {other:?}")),
    }
}

/// The bytes of a `bytes` field, printed as a list of integers.
fn bytes(node: &Node) -> Result<Vec<u8>, String> {
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
fn bytes_to_base64(node: &Node) -> Result<Value, String> {
    match node {
        Node::Map(entries) => {
            let entries = entries.iter().map(|(key, value)| Ok((map_key(key)?, base64_string(value)?)));
            Ok(Value::Object(entries.collect::<Result<_, String>>()?))
        }
        other => base64_string(other),
    }
}

fn base64_string(node: &Node) -> Result<Value, String> {
    Ok(Value::String(base64::engine::general_purpose::STANDARD.encode(bytes(node)?)))
}

/// How many fractional second digits a timestamp keeps.
#[derive(Clone, Copy)]
enum TimePrecision {
    /// `metav1.Time`: RFC 3339 in whole seconds (Go even drops the nanos it receives).
    Seconds,
    /// `metav1.MicroTime`: RFC 3339 with six fractional digits.
    Micros,
}

/// `Time` / `MicroTime` `{seconds, nanos}` as an RFC 3339 UTC string. A zero time is an empty
/// message on the wire and has no `seconds`: it is absent.
fn timestamp(fields: &[(String, Node)], precision: TimePrecision) -> Result<Option<Value>, String> {
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
    let format = match precision {
        TimePrecision::Seconds => "%Y-%m-%dT%H:%M:%SZ",
        TimePrecision::Micros => "%Y-%m-%dT%H:%M:%S%.6fZ",
    };
    Ok(Some(Value::String(time.format(format).to_string())))
}

/// `IntOrString {type, intVal, strVal}`: type 1 is a string, anything else an integer.
fn int_or_string(fields: &[(String, Node)]) -> Result<Value, String> {
    if integer_field(fields, "r#type")? == 1 {
        Ok(Value::String(string_field(fields, "str_val").unwrap_or_default().into()))
    } else {
        Ok(Value::from(integer_field(fields, "int_val")?))
    }
}

/// `metav1.Duration {duration}` (nanoseconds) as a Go duration string.
fn duration(fields: &[(String, Node)]) -> Result<Value, String> {
    Ok(Value::String(go_duration(integer_field(fields, "duration")?)))
}

/// Formats nanoseconds like Go's `time.Duration.String`: `1h2m3.5s`, `1.5ms`, `0s`.
fn go_duration(nanos: i64) -> String {
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
fn decimal(value: u64, unit: u64) -> String {
    let (whole, fraction) = (value / unit, value % unit);
    if fraction == 0 {
        return whole.to_string();
    }
    let digits = unit.ilog10() as usize;
    let fraction = format!("{fraction:0digits$}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

/// `RawExtension`, `FieldsV1` and apiextensions `JSON`: their `raw` bytes hold JSON.
fn embedded_json(fields: &[(String, Node)]) -> Result<Option<Value>, String> {
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
fn schema_or_array(fields: &[(String, Node)]) -> Result<Option<Value>, String> {
    match field(fields, "j_son_schemas") {
        Some(schemas) if !is_empty(schemas) => node_to_json(schemas),
        _ => field(fields, "schema").map_or(Ok(None), node_to_json),
    }
}

/// `JSONSchemaPropsOrBool`: the schema if there is one, else the boolean.
fn schema_or_bool(fields: &[(String, Node)]) -> Result<Option<Value>, String> {
    match field(fields, "schema") {
        Some(schema) => node_to_json(schema),
        None => Ok(Some(Value::Bool(matches!(field(fields, "allows"), Some(Node::Bool(true)))))),
    }
}

/// `JSONSchemaPropsOrStringArray`: the string list if there is one, else the schema.
fn schema_or_string_array(fields: &[(String, Node)]) -> Result<Option<Value>, String> {
    match field(fields, "property") {
        Some(property) if !is_empty(property) => node_to_json(property),
        _ => field(fields, "schema").map_or(Ok(None), node_to_json),
    }
}

// ---------------------------------------------------------------------------------------------
// What the Go types say: JSON names, embedded structs, bytes fields, pointer fields
// ---------------------------------------------------------------------------------------------

/// Word segments Kubernetes writes in capitals when they are not the first word of a name.
const ACRONYMS: &[(&str, &str)] = &[
    ("api", "API"),
    ("cidr", "CIDR"),
    ("cidrs", "CIDRs"),
    ("fqdn", "FQDN"),
    ("id", "ID"),
    ("io", "IO"),
    ("ip", "IP"),
    ("ipc", "IPC"),
    ("ips", "IPs"),
    ("pid", "PID"),
    ("tls", "TLS"),
    ("uri", "URI"),
    ("url", "URL"),
    ("uuid", "UUID"),
    ("wwns", "WWNs"),
];

/// Fields whose Rust name prost split oddly (`PodCIDRs` became `pod_cid_rs`).
const RENAMED_FIELDS: &[(&str, &str)] = &[
    ("a_pi_group", "apiGroup"),
    ("non_resource_ur_ls", "nonResourceURLs"),
    ("open_apiv3_schema", "openAPIV3Schema"),
    ("pod_cid_rs", "podCIDRs"),
    ("server_address_by_client_cid_rs", "serverAddressByClientCIDRs"),
    ("target_ww_ns", "targetWWNs"),
];

/// The Kubernetes JSON name of field `field` (a Rust name) of message `owner`.
fn json_name(owner: &str, field: &str) -> String {
    let field = field.strip_prefix("r#").unwrap_or(field);
    match (owner, field) {
        ("JsonSchemaProps", "ref") => return "$ref".into(),
        ("JsonSchemaProps", "schema") => return "$schema".into(),
        ("JsonSchemaProps", _) if field.starts_with("x_kubernetes_") => return field.replace('_', "-"),
        ("DaemonEndpoint", "port") => return "Port".into(),
        _ => {}
    }
    if let Some((_, name)) = RENAMED_FIELDS.iter().find(|(rust, _)| *rust == field) {
        return (*name).into();
    }
    lower_camel_case(field)
}

/// `host_ips` -> `hostIPs`: words after the first are capitalised, acronyms upper-cased.
fn lower_camel_case(snake: &str) -> String {
    let mut words = snake.split('_');
    let mut out = words.next().unwrap_or_default().to_string();
    for word in words {
        match ACRONYMS.iter().find(|(lower, _)| *lower == word) {
            Some((_, upper)) => out.push_str(upper),
            None => {
                let mut chars = word.chars();
                out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
                out.push_str(chars.as_str());
            }
        }
    }
    out
}

/// Go structs embedded without a JSON name, whose fields JSON shows in the parent: the Rust
/// field name and the message it holds.
const INLINED: &[(&str, &str)] = &[
    ("ephemeral_container_common", "EphemeralContainerCommon"),
    ("handler", "ProbeHandler"),
    ("ingress_rule_value", "IngressRuleValue"),
    ("local_object_reference", "LocalObjectReference"),
    ("persistent_volume_source", "PersistentVolumeSource"),
    ("volume_source", "VolumeSource"),
];

/// The message name and fields of `node` when field `field` holds an embedded struct.
fn inlined_message<'a>(field: &str, node: &'a Node) -> Option<(&'a str, &'a [(String, Node)])> {
    let Node::Message { name, fields } = node else { return None };
    let inlined = INLINED.iter().any(|(f, message)| *f == field && message == name);
    inlined.then_some((name.as_str(), fields.as_slice()))
}

/// `bytes` fields (or maps of them), by message and JSON name, printed as base64. `raw`
/// fields of `RawExtension`, `FieldsV1` and `JSON` hold JSON and are handled by message.
const BYTES_FIELDS: &[(&str, &str)] =
    &[("ConfigMap", "binaryData"), ("RangeAllocation", "data"), ("Secret", "data"), ("WebhookClientConfig", "caBundle")];

/// Whether field `name` of message `owner` is listed in [`BYTES_FIELDS`].
fn is_bytes_field(owner: &str, name: &str) -> bool {
    BYTES_FIELDS.contains(&(owner, name))
}

/// Whether field `name` of message `owner` keeps a zero value (see [`KEPT_ZEROS`]).
fn keeps_zero(owner: &str, name: &str) -> bool {
    KEPT_ZEROS.iter().any(|(message, fields)| *message == owner && fields.contains(&name))
}

/// The scalar (and `IntOrString`) fields Go's JSON encoder prints even when zero, by k8s-pb
/// message name and JSON field name: pointers (`*int64`, `*bool`, ...) and fields without
/// `omitempty`. Every other zero scalar is dropped, as Go decodes it and an absent field alike.
///
/// Generated from the Go types (`k8s.io/api` core, apps, batch, coordination, events, rbac,
/// policy, scheduling, networking and autoscaling v1; `k8s.io/apimachinery` meta v1;
/// `k8s.io/apiextensions-apiserver` v1), keeping the fields k8s-pb 0.9 has. Message names are
/// k8s-pb's, which spell acronyms their own way (`GrpcAction`, `IpBlock`); a name shared by
/// messages of different groups (`Event`, `ServiceReference`) applies to all of them.
const KEPT_ZEROS: &[(&str, &[&str])] = &[
    ("AppArmorProfile", &["type", "localhostProfile"]),
    ("AttachedVolume", &["name", "devicePath"]),
    ("AwsElasticBlockStoreVolumeSource", &["volumeID"]),
    ("AzureDiskVolumeSource", &["diskName", "diskURI", "cachingMode", "fsType", "readOnly", "kind"]),
    ("AzureFilePersistentVolumeSource", &["secretName", "shareName", "secretNamespace"]),
    ("AzureFileVolumeSource", &["secretName", "shareName"]),
    ("CSIPersistentVolumeSource", &["driver", "volumeHandle"]),
    ("CSIVolumeSource", &["driver", "readOnly", "fsType"]),
    ("CinderPersistentVolumeSource", &["volumeID"]),
    ("CinderVolumeSource", &["volumeID"]),
    ("ClientIpConfig", &["timeoutSeconds"]),
    ("ClusterTrustBundleProjection", &["name", "signerName", "optional", "path"]),
    ("Condition", &["type", "status", "reason", "message"]),
    ("ConfigMap", &["immutable"]),
    ("ConfigMapEnvSource", &["optional"]),
    ("ConfigMapKeySelector", &["key", "optional"]),
    ("ConfigMapNodeConfigSource", &["namespace", "name", "kubeletConfigKey"]),
    ("ConfigMapProjection", &["optional"]),
    ("ConfigMapVolumeSource", &["defaultMode", "optional"]),
    ("Container", &["name", "restartPolicy"]),
    ("ContainerExtendedResourceRequest", &["containerName", "resourceName", "requestName"]),
    ("ContainerPort", &["containerPort"]),
    ("ContainerResizePolicy", &["resourceName", "restartPolicy"]),
    ("ContainerStateTerminated", &["exitCode"]),
    ("ContainerStatus", &["name", "ready", "restartCount", "image", "imageID", "started", "stopSignal"]),
    ("ControllerRevision", &["revision"]),
    (
        "CronJobSpec",
        &["schedule", "timeZone", "startingDeadlineSeconds", "suspend", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"],
    ),
    ("CustomResourceColumnDefinition", &["name", "type", "jsonPath"]),
    ("CustomResourceConversion", &["strategy"]),
    ("CustomResourceDefinitionCondition", &["type", "status"]),
    ("CustomResourceDefinitionNames", &["plural", "kind"]),
    ("CustomResourceDefinitionSpec", &["group", "scope"]),
    ("CustomResourceDefinitionVersion", &["name", "served", "storage", "deprecationWarning"]),
    ("CustomResourceSubresourceScale", &["specReplicasPath", "statusReplicasPath", "labelSelectorPath"]),
    ("DaemonEndpoint", &["Port"]),
    ("DaemonSetCondition", &["type", "status"]),
    ("DaemonSetSpec", &["revisionHistoryLimit"]),
    ("DaemonSetStatus", &["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady", "collisionCount"]),
    ("DeleteOptions", &["gracePeriodSeconds", "orphanDependents", "propagationPolicy", "ignoreStoreReadErrorWithClusterBreakingPotential"]),
    ("DeploymentCondition", &["type", "status"]),
    ("DeploymentSpec", &["replicas", "revisionHistoryLimit", "progressDeadlineSeconds"]),
    ("DeploymentStatus", &["terminatingReplicas", "collisionCount"]),
    ("DownwardAPIVolumeFile", &["path", "mode"]),
    ("DownwardAPIVolumeSource", &["defaultMode"]),
    ("EndpointAddress", &["ip", "nodeName"]),
    ("EndpointPort", &["port", "appProtocol"]),
    ("EnvVar", &["name"]),
    ("EphemeralContainerCommon", &["name", "restartPolicy"]),
    ("Event", &["reportingComponent", "reportingInstance"]),
    ("EventSeries", &["count"]),
    ("FcVolumeSource", &["lun"]),
    ("FileKeySelector", &["volumeName", "path", "key", "optional"]),
    ("FlexPersistentVolumeSource", &["driver"]),
    ("FlexVolumeSource", &["driver"]),
    ("GcePersistentDiskVolumeSource", &["pdName"]),
    ("GitRepoVolumeSource", &["repository"]),
    ("GlusterfsPersistentVolumeSource", &["endpoints", "path", "endpointsNamespace"]),
    ("GlusterfsVolumeSource", &["endpoints", "path"]),
    ("GrpcAction", &["port", "service"]),
    ("HostAlias", &["ip"]),
    ("HostIp", &["ip"]),
    ("HostPathVolumeSource", &["path", "type"]),
    ("HttpGetAction", &["port"]),
    ("HttpHeader", &["name", "value"]),
    ("HttpIngressPath", &["pathType"]),
    ("IngressClassParametersReference", &["apiGroup", "kind", "name", "scope", "namespace"]),
    ("IngressPortStatus", &["port", "protocol", "error"]),
    ("IngressServiceBackend", &["name"]),
    ("IngressSpec", &["ingressClassName"]),
    ("IpBlock", &["cidr"]),
    ("IscsiPersistentVolumeSource", &["targetPortal", "iqn", "lun", "initiatorName"]),
    ("IscsiVolumeSource", &["targetPortal", "iqn", "lun", "initiatorName"]),
    ("JobCondition", &["type", "status"]),
    (
        "JobSpec",
        &[
            "parallelism",
            "completions",
            "activeDeadlineSeconds",
            "backoffLimit",
            "backoffLimitPerIndex",
            "maxFailedIndexes",
            "manualSelector",
            "ttlSecondsAfterFinished",
            "completionMode",
            "suspend",
            "podReplacementPolicy",
            "managedBy",
        ],
    ),
    ("JobStatus", &["terminating", "failedIndexes", "ready"]),
    (
        "JsonSchemaProps",
        &[
            "$ref",
            "maximum",
            "minimum",
            "maxLength",
            "minLength",
            "maxItems",
            "minItems",
            "multipleOf",
            "maxProperties",
            "minProperties",
            "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-list-type",
            "x-kubernetes-map-type",
        ],
    ),
    ("KeyToPath", &["key", "path", "mode"]),
    ("LabelSelectorRequirement", &["key", "operator"]),
    ("LeaseSpec", &["holderIdentity", "leaseDurationSeconds", "leaseTransitions", "strategy", "preferredHolder"]),
    ("Lifecycle", &["stopSignal"]),
    ("LimitRangeItem", &["type"]),
    ("LinuxContainerUser", &["uid", "gid"]),
    ("LoadBalancerIngress", &["ipMode"]),
    ("LocalVolumeSource", &["path", "fsType"]),
    ("ModifyVolumeStatus", &["status"]),
    ("NamespaceCondition", &["type", "status"]),
    ("NetworkPolicyPort", &["protocol", "port", "endPort"]),
    ("NfsVolumeSource", &["server", "path"]),
    ("NodeAddress", &["type", "address"]),
    ("NodeCondition", &["type", "status"]),
    ("NodeFeatures", &["supplementalGroupsPolicy"]),
    ("NodeRuntimeHandler", &["name"]),
    ("NodeRuntimeHandlerFeatures", &["recursiveReadOnlyMounts", "userNamespaces"]),
    ("NodeSelectorRequirement", &["key", "operator"]),
    ("NodeSwapStatus", &["capacity"]),
    (
        "NodeSystemInfo",
        &[
            "machineID",
            "systemUUID",
            "bootID",
            "kernelVersion",
            "osImage",
            "containerRuntimeVersion",
            "kubeletVersion",
            "kubeProxyVersion",
            "operatingSystem",
            "architecture",
        ],
    ),
    ("ObjectFieldSelector", &["fieldPath"]),
    ("ObjectMeta", &["deletionGracePeriodSeconds"]),
    ("OwnerReference", &["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"]),
    ("PersistentVolumeClaimCondition", &["type", "status"]),
    ("PersistentVolumeClaimSpec", &["storageClassName", "volumeMode", "volumeAttributesClassName"]),
    ("PersistentVolumeClaimStatus", &["currentVolumeAttributesClassName"]),
    ("PersistentVolumeClaimVolumeSource", &["claimName"]),
    ("PersistentVolumeSpec", &["volumeMode", "volumeAttributesClassName"]),
    ("PhotonPersistentDiskVolumeSource", &["pdID"]),
    ("PodAffinityTerm", &["topologyKey"]),
    ("PodCertificateProjection", &["maxExpirationSeconds"]),
    ("PodCondition", &["type", "status"]),
    ("PodDisruptionBudgetSpec", &["minAvailable", "maxUnavailable", "unhealthyPodEvictionPolicy"]),
    ("PodDisruptionBudgetStatus", &["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"]),
    ("PodDnsConfigOption", &["value"]),
    ("PodExtendedResourceClaimStatus", &["resourceClaimName"]),
    ("PodFailurePolicyOnExitCodesRequirement", &["containerName", "operator"]),
    ("PodFailurePolicyOnPodConditionsPattern", &["type", "status"]),
    ("PodFailurePolicyRule", &["action"]),
    ("PodIp", &["ip"]),
    ("PodOs", &["name"]),
    ("PodReadinessGate", &["conditionType"]),
    ("PodResourceClaim", &["name", "resourceClaimName", "resourceClaimTemplateName"]),
    ("PodResourceClaimStatus", &["name", "resourceClaimName"]),
    ("PodSchedulingGate", &["name"]),
    (
        "PodSecurityContext",
        &["runAsUser", "runAsGroup", "runAsNonRoot", "supplementalGroupsPolicy", "fsGroup", "fsGroupChangePolicy", "seLinuxChangePolicy"],
    ),
    (
        "PodSpec",
        &[
            "terminationGracePeriodSeconds",
            "activeDeadlineSeconds",
            "automountServiceAccountToken",
            "shareProcessNamespace",
            "priority",
            "runtimeClassName",
            "enableServiceLinks",
            "preemptionPolicy",
            "setHostnameAsFQDN",
            "hostUsers",
            "hostnameOverride",
        ],
    ),
    ("PortStatus", &["port", "protocol", "error"]),
    ("PortworxVolumeSource", &["volumeID"]),
    ("Preconditions", &["uid", "resourceVersion"]),
    ("PreferredSchedulingTerm", &["weight"]),
    ("PriorityClass", &["value", "preemptionPolicy"]),
    ("Probe", &["terminationGracePeriodSeconds"]),
    ("ProjectedVolumeSource", &["defaultMode"]),
    ("QuobyteVolumeSource", &["registry", "volume"]),
    ("RangeAllocation", &["range"]),
    ("RbdPersistentVolumeSource", &["image"]),
    ("RbdVolumeSource", &["image"]),
    ("ReplicaSetCondition", &["type", "status"]),
    ("ReplicaSetSpec", &["replicas"]),
    ("ReplicaSetStatus", &["replicas", "terminatingReplicas"]),
    ("ReplicationControllerCondition", &["type", "status"]),
    ("ReplicationControllerSpec", &["replicas"]),
    ("ReplicationControllerStatus", &["replicas"]),
    ("ResourceClaim", &["name"]),
    ("ResourceFieldSelector", &["resource"]),
    ("ResourceHealth", &["resourceID"]),
    ("ResourceStatus", &["name"]),
    ("RoleRef", &["apiGroup", "kind", "name"]),
    ("RollingUpdateDaemonSet", &["maxUnavailable", "maxSurge"]),
    ("RollingUpdateDeployment", &["maxUnavailable", "maxSurge"]),
    ("RollingUpdateStatefulSetStrategy", &["partition", "maxUnavailable"]),
    ("ScaleIoPersistentVolumeSource", &["gateway", "system"]),
    ("ScaleIoVolumeSource", &["gateway", "system"]),
    ("ScaleStatus", &["replicas"]),
    ("ScopedResourceSelectorRequirement", &["scopeName", "operator"]),
    ("SeccompProfile", &["type", "localhostProfile"]),
    ("Secret", &["immutable"]),
    ("SecretEnvSource", &["optional"]),
    ("SecretKeySelector", &["key", "optional"]),
    ("SecretProjection", &["optional"]),
    ("SecretVolumeSource", &["defaultMode", "optional"]),
    (
        "SecurityContext",
        &["privileged", "runAsUser", "runAsGroup", "runAsNonRoot", "readOnlyRootFilesystem", "allowPrivilegeEscalation", "procMount"],
    ),
    ("SelectableField", &["jsonPath"]),
    ("ServiceAccount", &["automountServiceAccountToken"]),
    ("ServiceAccountTokenProjection", &["expirationSeconds", "path"]),
    ("ServicePort", &["appProtocol", "port"]),
    ("ServiceReference", &["namespace", "name", "path", "port"]),
    (
        "ServiceSpec",
        &["ipFamilyPolicy", "allocateLoadBalancerNodePorts", "loadBalancerClass", "internalTrafficPolicy", "trafficDistribution"],
    ),
    ("SleepAction", &["seconds"]),
    ("StatefulSetCondition", &["type", "status"]),
    ("StatefulSetOrdinals", &["start"]),
    ("StatefulSetSpec", &["replicas", "serviceName", "revisionHistoryLimit"]),
    ("StatefulSetStatus", &["replicas", "collisionCount", "availableReplicas"]),
    ("Subject", &["kind", "name"]),
    ("SuccessPolicyRule", &["succeededIndexes", "succeededCount"]),
    ("Sysctl", &["name", "value"]),
    ("Taint", &["key", "effect"]),
    ("TcpSocketAction", &["port"]),
    ("Toleration", &["tolerationSeconds"]),
    ("TopologySelectorLabelRequirement", &["key"]),
    ("TopologySpreadConstraint", &["maxSkew", "topologyKey", "whenUnsatisfiable", "minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy"]),
    ("TypedLocalObjectReference", &["apiGroup", "kind", "name"]),
    ("TypedObjectReference", &["apiGroup", "kind", "name", "namespace"]),
    ("ValidationRule", &["rule", "reason", "optionalOldSelf"]),
    ("Volume", &["name"]),
    ("VolumeDevice", &["name", "devicePath"]),
    ("VolumeMount", &["name", "recursiveReadOnly", "mountPath", "mountPropagation"]),
    ("VolumeMountStatus", &["name", "mountPath", "recursiveReadOnly"]),
    ("VsphereVirtualDiskVolumeSource", &["volumePath"]),
    ("WebhookClientConfig", &["url"]),
    ("WeightedPodAffinityTerm", &["weight"]),
    ("WindowsSecurityContextOptions", &["gmsaCredentialSpecName", "gmsaCredentialSpec", "runAsUserName", "hostProcess"]),
];

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_pb::api::core::v1 as corev1;
    use k8s_pb::apimachinery::pkg::api::resource::Quantity;
    use k8s_pb::apimachinery::pkg::runtime::{RawExtension, TypeMeta};
    use k8s_pb::apimachinery::pkg::util::intstr::IntOrString;
    use prost::Message as _;
    use serde_json::json;
    use std::collections::BTreeMap;

    /// A body as client-go sends it: magic + `runtime.Unknown` around the encoded message.
    fn body<M: prost::Message>(api_version: &str, kind: &str, message: &M) -> Vec<u8> {
        let envelope = Unknown {
            type_meta: Some(TypeMeta { api_version: s(api_version), kind: s(kind) }),
            raw: Some(message.encode_to_vec()),
            content_encoding: s(""),
            content_type: s(""),
        };
        [MAGIC, &envelope.encode_to_vec()].concat()
    }

    fn s(text: &str) -> Option<String> {
        Some(text.to_string())
    }

    fn map<V: Clone>(entries: &[(&str, V)]) -> BTreeMap<String, V> {
        entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    fn quantity(text: &str) -> Quantity {
        Quantity { string: s(text) }
    }

    fn int_value(n: i32) -> Option<IntOrString> {
        Some(IntOrString { r#type: Some(0), int_val: Some(n), str_val: s("") })
    }

    fn str_value(text: &str) -> Option<IntOrString> {
        Some(IntOrString { r#type: Some(1), int_val: Some(0), str_val: s(text) })
    }

    /// `2024-01-02T03:04:05Z`.
    const T0: i64 = 1_704_164_645;

    fn time(seconds: i64) -> Option<meta::Time> {
        Some(meta::Time { seconds: Some(seconds), nanos: Some(0) })
    }

    /// Object metadata as Go writes it: every non-pointer field present, zero when unset, and
    /// a zero `creationTimestamp` as an empty message.
    fn go_meta(name: &str, namespace: &str) -> meta::ObjectMeta {
        meta::ObjectMeta {
            name: s(name),
            generate_name: s(""),
            namespace: s(namespace),
            self_link: s(""),
            uid: s(""),
            resource_version: s(""),
            generation: Some(0),
            creation_timestamp: Some(meta::Time::default()),
            ..Default::default()
        }
    }

    #[test]
    fn content_type_detection() {
        assert!(is_protobuf("application/vnd.kubernetes.protobuf"));
        assert!(is_protobuf("Application/Vnd.Kubernetes.Protobuf ; charset=utf-8"));
        assert!(!is_protobuf("application/json"));
        assert!(!is_protobuf("application/vnd.kubernetes.protobuf.other"));
        assert!(!is_protobuf(""));
    }

    #[test]
    fn namespace_drops_go_zero_values() {
        let namespace = corev1::Namespace {
            metadata: Some(meta::ObjectMeta { labels: map(&[("team", "a".to_string())]), ..go_meta("t1", "") }),
            spec: Some(corev1::NamespaceSpec { finalizers: vec![] }),
            status: Some(corev1::NamespaceStatus { phase: s(""), conditions: vec![] }),
        };
        let json = decode(&body("v1", "Namespace", &namespace)).unwrap();
        assert_eq!(
            json,
            json!({"apiVersion": "v1", "kind": "Namespace",
                   "metadata": {"name": "t1", "labels": {"team": "a"}}, "spec": {}, "status": {}})
        );
    }

    #[test]
    fn config_map_with_data_and_binary_data() {
        let config_map = corev1::ConfigMap {
            metadata: Some(go_meta("settings", "default")),
            immutable: Some(false),
            data: map(&[("mode", "fast".to_string()), ("empty", String::new())]),
            binary_data: map(&[("blob", vec![0u8, 1, 2, 255])]),
        };
        let json = decode(&body("v1", "ConfigMap", &config_map)).unwrap();
        assert_eq!(
            json,
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "settings", "namespace": "default"},
                   "immutable": false,
                   "data": {"mode": "fast", "empty": ""},
                   "binaryData": {"blob": "AAEC/w=="}})
        );
    }

    #[test]
    fn secret_bytes_become_base64() {
        let secret = corev1::Secret {
            metadata: Some(go_meta("db", "default")),
            immutable: None,
            data: map(&[("password", b"s3cr3t".to_vec()), ("none", vec![])]),
            string_data: BTreeMap::new(),
            r#type: s("Opaque"),
        };
        let json = decode(&body("v1", "Secret", &secret)).unwrap();
        assert_eq!(
            json,
            json!({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "db", "namespace": "default"},
                   "data": {"password": "czNjcjN0", "none": ""}, "type": "Opaque"})
        );
    }

    #[test]
    fn service_ports_target_port_and_cluster_ip() {
        let port = |name: &str, port: i32, target_port| corev1::ServicePort {
            name: s(name),
            protocol: s("TCP"),
            app_protocol: None,
            port: Some(port),
            target_port,
            node_port: Some(0),
        };
        let service = corev1::Service {
            metadata: Some(go_meta("web", "default")),
            spec: Some(corev1::ServiceSpec {
                ports: vec![
                    port("http", 80, int_value(8080)),
                    port("metrics", 9090, str_value("metrics")),
                    port("plain", 7000, int_value(0)),
                ],
                selector: map(&[("app", "web".to_string())]),
                cluster_ip: s("10.0.0.10"),
                cluster_ips: vec!["10.0.0.10".into()],
                r#type: s("ClusterIP"),
                session_affinity: s("None"),
                external_traffic_policy: s(""),
                health_check_node_port: Some(0),
                publish_not_ready_addresses: Some(false),
                ip_family_policy: s("SingleStack"),
                ..Default::default()
            }),
            status: Some(corev1::ServiceStatus { load_balancer: Some(corev1::LoadBalancerStatus { ingress: vec![] }), conditions: vec![] }),
        };
        let json = decode(&body("v1", "Service", &service)).unwrap();
        assert_eq!(
            json,
            json!({"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": "web", "namespace": "default"},
                   "spec": {
                       "ports": [
                           {"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080},
                           {"name": "metrics", "protocol": "TCP", "port": 9090, "targetPort": "metrics"},
                           {"name": "plain", "protocol": "TCP", "port": 7000}
                       ],
                       "selector": {"app": "web"},
                       "clusterIP": "10.0.0.10",
                       "clusterIPs": ["10.0.0.10"],
                       "type": "ClusterIP",
                       "sessionAffinity": "None",
                       "ipFamilyPolicy": "SingleStack"
                   },
                   "status": {"loadBalancer": {}}})
        );
    }

    fn web_container() -> corev1::Container {
        let password = corev1::EnvVarSource {
            secret_key_ref: Some(corev1::SecretKeySelector {
                local_object_reference: Some(corev1::LocalObjectReference { name: s("db") }),
                key: s("password"),
                optional: Some(false),
            }),
            ..Default::default()
        };
        corev1::Container {
            name: s("web"),
            image: s("nginx:1.27"),
            ports: vec![corev1::ContainerPort {
                name: s(""),
                host_port: Some(0),
                container_port: Some(80),
                protocol: s("TCP"),
                host_ip: s(""),
            }],
            env: vec![
                corev1::EnvVar { name: s("MODE"), value: s("prod"), value_from: None },
                corev1::EnvVar { name: s("PASSWORD"), value: s(""), value_from: Some(password) },
            ],
            resources: Some(corev1::ResourceRequirements {
                limits: map(&[("cpu", quantity("500m")), ("memory", quantity("128Mi"))]),
                requests: map(&[("cpu", quantity("250m"))]),
                claims: vec![],
            }),
            termination_message_path: s("/dev/termination-log"),
            image_pull_policy: s("IfNotPresent"),
            stdin: Some(false),
            tty: Some(false),
            ..Default::default()
        }
    }

    fn deployment() -> apps::v1::Deployment {
        let cache = corev1::Volume {
            name: s("cache"),
            volume_source: Some(corev1::VolumeSource {
                empty_dir: Some(corev1::EmptyDirVolumeSource { medium: s(""), size_limit: None }),
                ..Default::default()
            }),
        };
        let template = corev1::PodTemplateSpec {
            metadata: Some(meta::ObjectMeta { labels: map(&[("app", "web".to_string())]), ..go_meta("", "") }),
            spec: Some(corev1::PodSpec {
                volumes: vec![cache],
                containers: vec![web_container()],
                restart_policy: s("Always"),
                termination_grace_period_seconds: Some(30),
                dns_policy: s("ClusterFirst"),
                automount_service_account_token: Some(false),
                host_network: Some(false),
                ..Default::default()
            }),
        };
        apps::v1::Deployment {
            metadata: Some(go_meta("web", "default")),
            spec: Some(apps::v1::DeploymentSpec {
                replicas: Some(0),
                selector: Some(meta::LabelSelector { match_labels: map(&[("app", "web".to_string())]), match_expressions: vec![] }),
                template: Some(template),
                strategy: Some(apps::v1::DeploymentStrategy {
                    r#type: s("RollingUpdate"),
                    rolling_update: Some(apps::v1::RollingUpdateDeployment { max_unavailable: str_value("25%"), max_surge: int_value(0) }),
                }),
                min_ready_seconds: Some(0),
                revision_history_limit: Some(10),
                paused: Some(false),
                progress_deadline_seconds: Some(600),
            }),
            status: Some(apps::v1::DeploymentStatus { observed_generation: Some(0), replicas: Some(0), ..Default::default() }),
        }
    }

    #[test]
    fn deployment_with_pod_template() {
        let json = decode(&body("apps/v1", "Deployment", &deployment())).unwrap();
        assert_eq!(
            json,
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web", "namespace": "default"},
                   "spec": {
                       "replicas": 0,
                       "selector": {"matchLabels": {"app": "web"}},
                       "template": {
                           "metadata": {"labels": {"app": "web"}},
                           "spec": {
                               "volumes": [{"name": "cache", "emptyDir": {}}],
                               "containers": [{
                                   "name": "web",
                                   "image": "nginx:1.27",
                                   "ports": [{"containerPort": 80, "protocol": "TCP"}],
                                   "env": [
                                       {"name": "MODE", "value": "prod"},
                                       {"name": "PASSWORD", "valueFrom": {"secretKeyRef":
                                           {"name": "db", "key": "password", "optional": false}}}
                                   ],
                                   "resources": {"limits": {"cpu": "500m", "memory": "128Mi"},
                                                 "requests": {"cpu": "250m"}},
                                   "terminationMessagePath": "/dev/termination-log",
                                   "imagePullPolicy": "IfNotPresent"
                               }],
                               "restartPolicy": "Always",
                               "terminationGracePeriodSeconds": 30,
                               "dnsPolicy": "ClusterFirst",
                               "automountServiceAccountToken": false
                           }
                       },
                       "strategy": {"type": "RollingUpdate",
                                    "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 0}},
                       "revisionHistoryLimit": 10,
                       "progressDeadlineSeconds": 600
                   },
                   "status": {}})
        );
    }

    fn pod() -> corev1::Pod {
        let owner = |api_version: &str, kind: &str, name: &str, uid: &str, flag: bool| meta::OwnerReference {
            api_version: s(api_version),
            kind: s(kind),
            name: s(name),
            uid: s(uid),
            controller: Some(flag),
            block_owner_deletion: Some(flag),
        };
        let probe = corev1::Probe {
            handler: Some(corev1::ProbeHandler {
                http_get: Some(corev1::HttpGetAction {
                    path: s("/healthz"),
                    port: int_value(8080),
                    host: s(""),
                    scheme: s("HTTP"),
                    http_headers: vec![],
                }),
                ..Default::default()
            }),
            initial_delay_seconds: Some(0),
            period_seconds: Some(10),
            ..Default::default()
        };
        corev1::Pod {
            metadata: Some(meta::ObjectMeta {
                uid: s("pod-uid"),
                creation_timestamp: time(T0),
                deletion_timestamp: time(T0 + 60),
                deletion_grace_period_seconds: Some(0),
                owner_references: vec![
                    owner("apps/v1", "ReplicaSet", "web-abc", "rs-uid", true),
                    owner("v1", "ConfigMap", "cfg", "cm-uid", false),
                ],
                finalizers: vec!["example.com/keep".into(), "foregroundDeletion".into()],
                managed_fields: vec![meta::ManagedFieldsEntry {
                    manager: s("kubectl"),
                    operation: s("Update"),
                    api_version: s("v1"),
                    time: time(T0),
                    fields_type: s("FieldsV1"),
                    fields_v1: Some(meta::FieldsV1 { raw: Some(br#"{"f:metadata":{}}"#.to_vec()) }),
                    subresource: s(""),
                }],
                ..go_meta("web-1", "default")
            }),
            spec: Some(corev1::PodSpec {
                containers: vec![corev1::Container {
                    name: s("app"),
                    image: s("busybox"),
                    liveness_probe: Some(probe),
                    ..Default::default()
                }],
                node_name: s("node-1"),
                host_ipc: Some(false),
                ..Default::default()
            }),
            status: Some(corev1::PodStatus {
                phase: s("Running"),
                host_ip: s("192.168.0.2"),
                host_ips: vec![corev1::HostIp { ip: s("192.168.0.2") }],
                pod_ip: s("10.1.0.5"),
                pod_ips: vec![corev1::PodIp { ip: s("10.1.0.5") }],
                start_time: time(T0),
                qos_class: s("BestEffort"),
                ..Default::default()
            }),
        }
    }

    #[test]
    fn pod_with_owner_references_finalizers_and_timestamps() {
        let json = decode(&body("v1", "Pod", &pod())).unwrap();
        assert_eq!(
            json,
            json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {
                "name": "web-1",
                "namespace": "default",
                "uid": "pod-uid",
                "creationTimestamp": "2024-01-02T03:04:05Z",
                "deletionTimestamp": "2024-01-02T03:05:05Z",
                "deletionGracePeriodSeconds": 0,
                "ownerReferences": [
                    {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc",
                     "uid": "rs-uid", "controller": true, "blockOwnerDeletion": true},
                    {"apiVersion": "v1", "kind": "ConfigMap", "name": "cfg",
                     "uid": "cm-uid", "controller": false, "blockOwnerDeletion": false}
                ],
                "finalizers": ["example.com/keep", "foregroundDeletion"],
                "managedFields": [{
                    "manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                    "time": "2024-01-02T03:04:05Z", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {}}
                }]
            },
            "spec": {
                "containers": [{
                    "name": "app",
                    "image": "busybox",
                    "livenessProbe": {
                        "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                        "periodSeconds": 10
                    }
                }],
                "nodeName": "node-1"
            },
            "status": {
                "phase": "Running",
                "hostIP": "192.168.0.2",
                "hostIPs": [{"ip": "192.168.0.2"}],
                "podIP": "10.1.0.5",
                "podIPs": [{"ip": "10.1.0.5"}],
                "startTime": "2024-01-02T03:04:05Z",
                "qosClass": "BestEffort"
            }})
        );
    }

    fn delete_options() -> meta::DeleteOptions {
        meta::DeleteOptions {
            grace_period_seconds: Some(0),
            preconditions: Some(meta::Preconditions { uid: s("pod-uid"), resource_version: None }),
            orphan_dependents: None,
            propagation_policy: s("Foreground"),
            dry_run: vec![],
            ignore_store_read_error_with_cluster_breaking_potential: None,
        }
    }

    #[test]
    fn delete_options_under_any_group_version() {
        for api_version in ["meta.k8s.io/v1", "v1", "apps/v1"] {
            let json = decode(&body(api_version, "DeleteOptions", &delete_options())).unwrap();
            assert_eq!(
                json,
                json!({"apiVersion": api_version, "kind": "DeleteOptions",
                       "gracePeriodSeconds": 0,
                       "preconditions": {"uid": "pod-uid"},
                       "propagationPolicy": "Foreground"})
            );
        }
        let orphan = meta::DeleteOptions { orphan_dependents: Some(false), ..Default::default() };
        let json = decode(&body("meta.k8s.io/v1", "DeleteOptions", &orphan)).unwrap();
        assert_eq!(json, json!({"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions", "orphanDependents": false}));
    }

    #[test]
    fn eviction_carries_delete_options() {
        let eviction = policy::v1::Eviction { metadata: Some(go_meta("web-1", "default")), delete_options: Some(delete_options()) };
        let json = decode(&body("policy/v1", "Eviction", &eviction)).unwrap();
        assert_eq!(json["deleteOptions"]["gracePeriodSeconds"], json!(0));
        assert_eq!(json["metadata"], json!({"name": "web-1", "namespace": "default"}));
    }

    #[test]
    fn lease_micro_times() {
        let micro = |nanos| Some(meta::MicroTime { seconds: Some(T0), nanos: Some(nanos) });
        let lease = coordination::v1::Lease {
            metadata: Some(go_meta("leader", "kube-system")),
            spec: Some(coordination::v1::LeaseSpec {
                holder_identity: s(""),
                lease_duration_seconds: Some(15),
                acquire_time: micro(123_456_789),
                renew_time: micro(0),
                lease_transitions: Some(0),
                ..Default::default()
            }),
        };
        let json = decode(&body("coordination.k8s.io/v1", "Lease", &lease)).unwrap();
        assert_eq!(
            json["spec"],
            json!({"holderIdentity": "", "leaseDurationSeconds": 15,
                   "acquireTime": "2024-01-02T03:04:05.123456Z",
                   "renewTime": "2024-01-02T03:04:05.000000Z", "leaseTransitions": 0})
        );
    }

    #[test]
    fn controller_revision_raw_extension_holds_json() {
        let revision = apps::v1::ControllerRevision {
            metadata: Some(go_meta("web-1", "default")),
            data: Some(RawExtension { raw: Some(br#"{"spec":{"template":{"x":[1,2]}}}"#.to_vec()) }),
            revision: Some(3),
        };
        let json = decode(&body("apps/v1", "ControllerRevision", &revision)).unwrap();
        assert_eq!(json["data"], json!({"spec": {"template": {"x": [1, 2]}}}));
        assert_eq!(json["revision"], json!(3));

        let not_json = apps::v1::ControllerRevision { data: Some(RawExtension { raw: Some(b"\x00\x01".to_vec()) }), ..revision };
        let error = decode(&body("apps/v1", "ControllerRevision", &not_json)).unwrap_err();
        assert!(error.contains("embedded JSON is invalid"), "{error}");
    }

    fn crd() -> apiextensions::CustomResourceDefinition {
        use apiextensions::{Json, JsonSchemaProps, JsonSchemaPropsOrArray, JsonSchemaPropsOrBool};
        let string_schema = JsonSchemaProps { r#type: s("string"), ..Default::default() };
        let spec_schema = JsonSchemaProps {
            r#type: s("object"),
            x_kubernetes_preserve_unknown_fields: Some(false),
            properties: [
                (
                    "replicas".to_string(),
                    JsonSchemaProps {
                        r#type: s("integer"),
                        minimum: Some(0.0),
                        maximum: Some(10.5),
                        default: Some(Json { raw: Some(b"1".to_vec()) }),
                        ..Default::default()
                    },
                ),
                (
                    "tags".to_string(),
                    JsonSchemaProps {
                        r#type: s("array"),
                        items: Some(Box::new(JsonSchemaPropsOrArray {
                            schema: Some(Box::new(string_schema.clone())),
                            j_son_schemas: vec![],
                        })),
                        ..Default::default()
                    },
                ),
                (
                    "labels".to_string(),
                    JsonSchemaProps {
                        r#type: s("object"),
                        additional_properties: Some(Box::new(JsonSchemaPropsOrBool {
                            allows: Some(true),
                            schema: Some(Box::new(string_schema)),
                        })),
                        ..Default::default()
                    },
                ),
                (
                    "closed".to_string(),
                    JsonSchemaProps {
                        r#type: s("object"),
                        additional_properties: Some(Box::new(JsonSchemaPropsOrBool { allows: Some(false), schema: None })),
                        ..Default::default()
                    },
                ),
            ]
            .into_iter()
            .collect(),
            ..Default::default()
        };
        apiextensions::CustomResourceDefinition {
            metadata: Some(go_meta("widgets.example.com", "")),
            spec: Some(apiextensions::CustomResourceDefinitionSpec {
                group: s("example.com"),
                names: Some(apiextensions::CustomResourceDefinitionNames {
                    plural: s("widgets"),
                    singular: s("widget"),
                    kind: s("Widget"),
                    list_kind: s("WidgetList"),
                    ..Default::default()
                }),
                scope: s("Namespaced"),
                versions: vec![
                    apiextensions::CustomResourceDefinitionVersion {
                        name: s("v1"),
                        served: Some(true),
                        storage: Some(true),
                        deprecated: Some(false),
                        schema: Some(apiextensions::CustomResourceValidation {
                            open_apiv3_schema: Some(JsonSchemaProps {
                                r#type: s("object"),
                                r#ref: s("#/x"),
                                properties: [("spec".to_string(), spec_schema)].into_iter().collect(),
                                ..Default::default()
                            }),
                        }),
                        subresources: Some(apiextensions::CustomResourceSubresources {
                            status: Some(apiextensions::CustomResourceSubresourceStatus {}),
                            scale: None,
                        }),
                        ..Default::default()
                    },
                    apiextensions::CustomResourceDefinitionVersion {
                        name: s("v0"),
                        served: Some(false),
                        storage: Some(false),
                        ..Default::default()
                    },
                ],
                conversion: Some(apiextensions::CustomResourceConversion {
                    strategy: s("Webhook"),
                    webhook: Some(apiextensions::WebhookConversion {
                        client_config: Some(apiextensions::WebhookClientConfig {
                            url: None,
                            service: Some(apiextensions::ServiceReference {
                                namespace: s("system"),
                                name: s("conv"),
                                path: None,
                                port: Some(443),
                            }),
                            ca_bundle: Some(b"CA".to_vec()),
                        }),
                        conversion_review_versions: vec!["v1".into()],
                    }),
                }),
                preserve_unknown_fields: Some(false),
            }),
            status: None,
        }
    }

    #[test]
    fn custom_resource_definition_schema() {
        let json = decode(&body("apiextensions.k8s.io/v1", "CustomResourceDefinition", &crd())).unwrap();
        assert_eq!(
            json["spec"],
            json!({
                "group": "example.com",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                "scope": "Namespaced",
                "versions": [
                    {"name": "v1", "served": true, "storage": true,
                     "schema": {"openAPIV3Schema": {"type": "object", "$ref": "#/x", "properties": {"spec": {
                         "type": "object",
                         "x-kubernetes-preserve-unknown-fields": false,
                         "properties": {
                             "replicas": {"type": "integer", "minimum": 0, "maximum": 10.5, "default": 1},
                             "tags": {"type": "array", "items": {"type": "string"}},
                             "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                             "closed": {"type": "object", "additionalProperties": false}
                         }
                     }}}},
                     "subresources": {"status": {}}},
                    {"name": "v0", "served": false, "storage": false}
                ],
                "conversion": {"strategy": "Webhook", "webhook": {
                    "clientConfig": {"service": {"namespace": "system", "name": "conv", "port": 443},
                                     "caBundle": "Q0E="},
                    "conversionReviewVersions": ["v1"]
                }}
            })
        );
    }

    #[test]
    fn output_deserializes_into_k8s_openapi_types() {
        use k8s_openapi::api::apps::v1::Deployment;
        use k8s_openapi::api::core::v1::{Pod, Service};
        use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString as OpenApiIntOrString;

        let pod: Pod = serde_json::from_value(decode(&body("v1", "Pod", &pod())).unwrap()).unwrap();
        let metadata = &pod.metadata;
        assert_eq!(metadata.name.as_deref(), Some("web-1"));
        assert_eq!(metadata.deletion_grace_period_seconds, Some(0));
        assert_eq!(metadata.finalizers.as_deref(), Some(&["example.com/keep".to_string(), "foregroundDeletion".into()][..]));
        let owners = metadata.owner_references.as_ref().unwrap();
        assert_eq!((owners[0].kind.as_str(), owners[0].controller, owners[0].block_owner_deletion), ("ReplicaSet", Some(true), Some(true)));
        assert_eq!((owners[1].uid.as_str(), owners[1].controller, owners[1].block_owner_deletion), ("cm-uid", Some(false), Some(false)));
        let created = metadata.creation_timestamp.as_ref().unwrap().0;
        assert_eq!(created.as_second(), T0);
        let status = pod.status.unwrap();
        assert_eq!(status.pod_ip.as_deref(), Some("10.1.0.5"));
        assert_eq!(status.host_ips.unwrap()[0].ip, "192.168.0.2");
        let probe = pod.spec.unwrap().containers[0].liveness_probe.clone().unwrap();
        assert_eq!(probe.http_get.unwrap().port, OpenApiIntOrString::Int(8080));

        let deployment: Deployment = serde_json::from_value(decode(&body("apps/v1", "Deployment", &deployment())).unwrap()).unwrap();
        let spec = deployment.spec.unwrap();
        assert_eq!(spec.replicas, Some(0));
        let pod_spec = spec.template.spec.unwrap();
        assert_eq!(pod_spec.volumes.unwrap()[0].empty_dir, Some(Default::default()));
        let container = &pod_spec.containers[0];
        let limits = container.resources.as_ref().unwrap().limits.as_ref().unwrap();
        assert_eq!(limits["memory"].0, "128Mi");
        let secret_ref = container.env.as_ref().unwrap()[1].value_from.clone().unwrap().secret_key_ref.unwrap();
        assert_eq!((secret_ref.name.as_str(), secret_ref.key.as_str()), ("db", "password"));
        let rolling = spec.strategy.unwrap().rolling_update.unwrap();
        assert_eq!(rolling.max_unavailable, Some(OpenApiIntOrString::String("25%".into())));

        let service = corev1::Service {
            spec: Some(corev1::ServiceSpec {
                ports: vec![corev1::ServicePort { port: Some(80), target_port: str_value("http"), ..Default::default() }],
                cluster_ip: s("10.0.0.1"),
                ..Default::default()
            }),
            ..Default::default()
        };
        let service: Service = serde_json::from_value(decode(&body("v1", "Service", &service)).unwrap()).unwrap();
        let spec = service.spec.unwrap();
        assert_eq!(spec.cluster_ip.as_deref(), Some("10.0.0.1"));
        assert_eq!(spec.ports.unwrap()[0].target_port, Some(OpenApiIntOrString::String("http".into())));
    }

    /// Decoding into the k8s-openapi type and encoding back gives the same JSON: every field
    /// name is one k8s-openapi knows (it ignores unknown ones) and every value has its form.
    /// Numbers compare by value, as k8s-openapi prints a float `0` as `0.0`.
    fn assert_round_trips<T: serde::de::DeserializeOwned + serde::Serialize>(json: Value) {
        let typed: T = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(integral_floats_as_integers(serde_json::to_value(&typed).unwrap()), json);
    }

    fn integral_floats_as_integers(value: Value) -> Value {
        match value {
            Value::Number(n) => number(&n.to_string()).unwrap(),
            Value::Array(items) => items.into_iter().map(integral_floats_as_integers).collect(),
            Value::Object(entries) => entries.into_iter().map(|(k, v)| (k, integral_floats_as_integers(v))).collect(),
            other => other,
        }
    }

    #[test]
    fn output_round_trips_through_k8s_openapi_types() {
        use k8s_openapi::api::{apps::v1 as openapi_apps, coordination::v1 as openapi_coordination, core::v1 as openapi_core};
        use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as openapi_apiextensions;

        assert_round_trips::<openapi_core::Pod>(decode(&body("v1", "Pod", &pod())).unwrap());
        assert_round_trips::<openapi_apps::Deployment>(decode(&body("apps/v1", "Deployment", &deployment())).unwrap());
        let crd = body("apiextensions.k8s.io/v1", "CustomResourceDefinition", &crd());
        assert_round_trips::<openapi_apiextensions::CustomResourceDefinition>(decode(&crd).unwrap());

        let secret =
            corev1::Secret { metadata: Some(go_meta("db", "default")), data: map(&[("k", b"\xffv".to_vec())]), ..Default::default() };
        assert_round_trips::<openapi_core::Secret>(decode(&body("v1", "Secret", &secret)).unwrap());

        let lease = coordination::v1::Lease {
            metadata: Some(go_meta("leader", "kube-system")),
            spec: Some(coordination::v1::LeaseSpec {
                holder_identity: s("me"),
                renew_time: Some(meta::MicroTime { seconds: Some(T0), nanos: Some(5_000) }),
                ..Default::default()
            }),
        };
        assert_round_trips::<openapi_coordination::Lease>(decode(&body("coordination.k8s.io/v1", "Lease", &lease)).unwrap());
    }

    fn from_hex(lines: &[&str]) -> Vec<u8> {
        let hex = lines.concat();
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
    }

    /// Bodies kubectl 1.32 sent, and the JSON `kubectl create --dry-run=client -o json` prints
    /// for the same object (without its `null`s): the conversion matches Go's JSON encoder.
    #[test]
    fn bodies_captured_from_kubectl() {
        // kubectl create deployment web --image=nginx --replicas=0 --port=80
        let deployment = from_hex(&[
            "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b8010a1f0a0377656212001a0022002a00320038",
            "0042005a0a0a0361707012037765621286010800120c0a0a0a0361707012037765621a6c0a1c0a0012001a0022002a00",
            "3200380042005a0a0a036170701203776562124c122e0a056e67696e7812056e67696e782a00320a0a00100018502200",
            "2a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c20100",
            "22020a00280038001a0c0800100018002000280038001a002200",
        ]);
        assert_eq!(
            decode(&deployment).unwrap(),
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web", "labels": {"app": "web"}},
                   "spec": {
                       "replicas": 0,
                       "selector": {"matchLabels": {"app": "web"}},
                       "strategy": {},
                       "template": {
                           "metadata": {"labels": {"app": "web"}},
                           "spec": {"containers": [{"name": "nginx", "image": "nginx", "ports": [{"containerPort": 80}], "resources": {}}]}
                       }
                   },
                   "status": {}})
        );
        // kubectl create pdb pdb1 --selector=app=a --min-available=0
        let pdb = from_hex(&[
            "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e42756467657412380a140a0470646231",
            "12001a0022002a0032003800420012140a06080010001a00120a0a080a036170701201611a0a08001800200028003000",
            "1a002200",
        ]);
        assert_eq!(
            decode(&pdb).unwrap(),
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb1"},
                   "spec": {"minAvailable": 0, "selector": {"matchLabels": {"app": "a"}}},
                   "status": {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}})
        );
        // kubectl create priorityclass p0 --value=0
        let priority_class = from_hex(&[
            "6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c61737312300a120a",
            "02703012001a0022002a003200380042001000180022002a14507265656d70744c6f7765725072696f726974791a0022",
            "00",
        ]);
        assert_eq!(
            decode(&priority_class).unwrap(),
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "p0"},
                   "value": 0, "preemptionPolicy": "PreemptLowerPriority"})
        );
    }

    #[test]
    fn every_supported_kind_decodes_an_empty_message() {
        for (api_version, kind, raw) in supported_kinds() {
            let envelope =
                Unknown { type_meta: Some(TypeMeta { api_version: s(api_version), kind: s(kind) }), raw: Some(raw), ..Default::default() };
            let json = decode(&[MAGIC, &envelope.encode_to_vec()].concat()).unwrap();
            assert_eq!(json, json!({"apiVersion": api_version, "kind": kind}), "{api_version} {kind}");
        }
    }

    #[test]
    fn bad_bodies_are_errors() {
        let namespace = corev1::Namespace { metadata: Some(go_meta("t1", "")), ..Default::default() };
        let good = body("v1", "Namespace", &namespace);

        assert!(decode(b"").unwrap_err().contains("prefix"));
        assert!(decode(b"{\"kind\":\"Namespace\"}").unwrap_err().contains("prefix"));
        assert!(decode(&good[1..]).unwrap_err().contains("prefix"));
        assert!(decode(&[MAGIC, &[0xff, 0xff]].concat()).unwrap_err().contains("envelope"));

        let unknown_kind = decode(&body("example.com/v1", "Widget", &namespace)).unwrap_err();
        assert!(unknown_kind.contains("\"Widget\"") && unknown_kind.contains("not supported"), "{unknown_kind}");

        let gzip = Unknown { content_encoding: s("gzip"), ..Unknown::decode(&good[4..]).unwrap() };
        let error = decode(&[MAGIC, &gzip.encode_to_vec()].concat()).unwrap_err();
        assert!(error.contains("gzip"), "{error}");

        let garbage_raw = Unknown { raw: Some(vec![0x0a, 0x05, 0x01]), ..Unknown::decode(&good[4..]).unwrap() };
        let error = decode(&[MAGIC, &garbage_raw.encode_to_vec()].concat()).unwrap_err();
        assert!(error.contains("cannot decode v1 Namespace"), "{error}");
    }

    /// Truncations and random corruptions of real bodies: decoding returns, never panics.
    #[test]
    fn corrupted_bodies_never_panic() {
        let bodies =
            [body("v1", "Pod", &pod()), body("apps/v1", "Deployment", &deployment()), body("v1", "DeleteOptions", &delete_options())];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for good in &bodies {
            for len in 0..good.len() {
                let _ = decode(&good[..len]);
            }
            for _ in 0..2000 {
                let mut bad = good.clone();
                for _ in 0..=next() % 4 {
                    let at = (next() % bad.len() as u64) as usize;
                    bad[at] = next() as u8;
                }
                let _ = decode(&bad);
            }
        }
        for len in 0..512 {
            let garbage: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let _ = decode(&garbage);
            let _ = decode(&[MAGIC, &garbage].concat());
        }
    }

    #[test]
    fn json_names_follow_kubernetes() {
        let cases = [
            ("PodStatus", "pod_ip", "podIP"),
            ("PodStatus", "host_ips", "hostIPs"),
            ("PodSpec", "host_ipc", "hostIPC"),
            ("PodSpec", "host_pid", "hostPID"),
            ("ServiceSpec", "cluster_ip", "clusterIP"),
            ("ServiceSpec", "r#type", "type"),
            ("AwsElasticBlockStoreVolumeSource", "volume_id", "volumeID"),
            ("NodeSpec", "provider_id", "providerID"),
            ("NodeSpec", "pod_cid_rs", "podCIDRs"),
            ("NodeSystemInfo", "system_uuid", "systemUUID"),
            ("FcVolumeSource", "target_ww_ns", "targetWWNs"),
            ("PolicyRule", "non_resource_ur_ls", "nonResourceURLs"),
            ("VolumeSource", "scale_io", "scaleIO"),
            ("VolumeSource", "downward_api", "downwardAPI"),
            ("PodSpec", "set_hostname_as_fqdn", "setHostnameAsFQDN"),
            ("AzureDiskVolumeSource", "disk_uri", "diskURI"),
            ("IngressClassParametersReference", "a_pi_group", "apiGroup"),
            ("CustomResourceValidation", "open_apiv3_schema", "openAPIV3Schema"),
            ("CustomResourceDefinitionVersion", "schema", "schema"),
            ("JsonSchemaProps", "schema", "$schema"),
            ("JsonSchemaProps", "r#ref", "$ref"),
            ("JsonSchemaProps", "x_kubernetes_int_or_string", "x-kubernetes-int-or-string"),
            ("DaemonEndpoint", "port", "Port"),
            ("ObjectMeta", "api_version", "apiVersion"),
            ("ManagedFieldsEntry", "fields_v1", "fieldsV1"),
            ("PodStatus", "qos_class", "qosClass"),
        ];
        for (owner, field, expected) in cases {
            assert_eq!(json_name(owner, field), expected, "{owner}.{field}");
        }
    }

    #[test]
    fn debug_syntax_parser() {
        let text = concat!(
            r#"Outer { r#type: Some("a \"q\" \\ \n\t\0 \u{7f} é"), n: Some(-12), f: Some(1e-7), i: inf, "#,
            r#"e: Empty, list: [1, 2], map: {"k": Inner { b: true }, "z": None}, none: None }"#
        );
        let node = Parser::parse(text).unwrap();
        let Node::Message { name, fields } = &node else { panic!("{node:?}") };
        assert_eq!(name, "Outer");
        assert_eq!(fields[0], ("r#type".into(), Node::Some(Box::new(Node::Str("a \"q\" \\ \n\t\0 \u{7f} é".into())))));
        assert_eq!(fields[2].1, Node::Some(Box::new(Node::Number("1e-7".into()))));
        assert_eq!(fields[4].1, Node::Message { name: "Empty".into(), fields: vec![] });
        assert!(Parser::parse("Outer { a: 1 } trailing").is_err());
        assert!(Parser::parse("Outer { a: \"open").is_err());
        assert!(Parser::parse(&"[".repeat(5000)).is_err());
        assert_eq!(number("1e-7").unwrap(), json!(1e-7));
        assert_eq!(number("5.0").unwrap(), json!(5));
        assert_eq!(number("NaN").unwrap(), Value::Null);
        // A string with every kind of character round-trips through Debug and the parser.
        let tricky = "tab\t nl\n quote\" backslash\\ nul\0 bell\u{7} zwj\u{200d} emoji😀 combining\u{301}";
        assert_eq!(Parser::parse(&format!("{tricky:?}")).unwrap(), Node::Str(tricky.into()));
    }

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
