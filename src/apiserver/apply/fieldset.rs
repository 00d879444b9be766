//! Sets of field paths, as structured-merge-diff keeps them (`fieldpath.Set`): the fields a
//! manager owns, what a change added, modified or removed, and their wire form, `FieldsV1`
//! (`f:` a field, `k:` a keyed list item, `v:` a set item, `i:` an index, `.` the node itself
//! where it has children too).

use crate::apiserver::go_quote::quote;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// A JSON value with structured-merge-diff's total order: numbers, then strings, booleans,
/// lists, maps and null.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom(pub Value);

impl Atom {
    fn rank(&self) -> u8 {
        match &self.0 {
            Value::Number(_) => 0,
            Value::String(_) => 1,
            Value::Bool(_) => 2,
            Value::Array(_) => 3,
            Value::Object(_) => 4,
            Value::Null => 5,
        }
    }

    /// The value as a path string shows it (Go's `%q` for strings).
    fn display(&self) -> String {
        match &self.0 {
            Value::String(s) => quote(s),
            other => other.to_string(),
        }
    }
}

impl Eq for Atom {}

impl Ord for Atom {
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.0, &other.0) {
            (Value::Number(a), Value::Number(b)) => a.as_f64().unwrap_or(0.0).total_cmp(&b.as_f64().unwrap_or(0.0)),
            (Value::String(a), Value::String(b)) => a.cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (a, b) if self.rank() == other.rank() => a.to_string().cmp(&b.to_string()),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Atom {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One step of a path, in structured-merge-diff's order: field names, then list keys, set
/// values and indexes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Element {
    /// A field of an object (`f:name`).
    Field(String),
    /// An item of a list keyed by fields, the keys sorted by name (`k:{"name":"c"}`).
    Key(Vec<(String, Atom)>),
    /// An item of a set (`v:"x"`).
    Value(Atom),
    /// An item of an atomic list by position (`i:0`), only ever read.
    Index(usize),
}

impl Element {
    /// The element as a conflict path shows it (`.name`, `[uid="x"]`, `[="x"]`).
    fn display(&self) -> String {
        match self {
            Self::Field(name) => format!(".{name}"),
            Self::Key(keys) => format!("[{}]", keys.iter().map(|(k, v)| format!("{k}={}", v.display())).collect::<Vec<_>>().join(",")),
            Self::Value(v) => format!("[={}]", v.display()),
            Self::Index(i) => format!("[{i}]"),
        }
    }

    /// The element as a `FieldsV1` key.
    fn encode(&self) -> String {
        match self {
            Self::Field(name) => format!("f:{name}"),
            Self::Key(keys) => {
                let inner: Vec<String> = keys.iter().map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), v.0)).collect();
                format!("k:{{{}}}", inner.join(","))
            }
            Self::Value(v) => format!("v:{}", v.0),
            Self::Index(i) => format!("i:{i}"),
        }
    }

    /// Reads a `FieldsV1` key.
    fn decode(key: &str) -> Result<Self, String> {
        let (tag, rest) = key.split_once(':').ok_or_else(|| format!("invalid path element {key:?}"))?;
        let json = || serde_json::from_str::<Value>(rest).map_err(|e| format!("invalid path element {key:?}: {e}"));
        match tag {
            "f" => Ok(Self::Field(rest.to_string())),
            "v" => Ok(Self::Value(Atom(json()?))),
            "i" => rest.parse().map(Self::Index).map_err(|e| format!("invalid path element {key:?}: {e}")),
            "k" => match json()? {
                Value::Object(map) => {
                    let mut keys: Vec<(String, Atom)> = map.into_iter().map(|(k, v)| (k, Atom(v))).collect();
                    keys.sort_by(|a, b| a.0.cmp(&b.0));
                    Ok(Self::Key(keys))
                }
                _ => Err(format!("invalid path element {key:?}: a key must be an object")),
            },
            _ => Err(format!("invalid path element {key:?}: unknown prefix")),
        }
    }
}

/// A path from the object's root.
pub type Path = Vec<Element>;

/// A path as conflict messages show it: `.data.key`, `.metadata.ownerReferences[uid="x"]`.
pub fn path_string(path: &[Element]) -> String {
    path.iter().map(Element::display).collect()
}

/// A set of paths, as a tree: the members at this level and the sets below each element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSet {
    members: BTreeSet<Element>,
    children: BTreeMap<Element, FieldSet>,
}

impl FieldSet {
    /// Whether the set holds no path.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.is_empty()
    }

    /// Adds `path` (the empty path is not a member of anything).
    pub fn insert(&mut self, path: &[Element]) {
        match path {
            [] => {}
            [last] => {
                self.members.insert(last.clone());
            }
            [first, rest @ ..] => self.children.entry(first.clone()).or_default().insert(rest),
        }
    }

    /// The set below `element` (empty when none).
    pub fn child(&self, element: &Element) -> Option<&FieldSet> {
        self.children.get(element)
    }

    /// Whether `element` itself is a member at this level.
    pub fn has_member(&self, element: &Element) -> bool {
        self.members.contains(element)
    }

    /// Paths in either set.
    pub fn union(&self, other: &FieldSet) -> FieldSet {
        let mut out = self.clone();
        out.members.extend(other.members.iter().cloned());
        for (element, set) in &other.children {
            let merged = match out.children.get(element) {
                Some(mine) => mine.union(set),
                None => set.clone(),
            };
            out.children.insert(element.clone(), merged);
        }
        out
    }

    /// Paths of this set that are not in `other`.
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        let members = self.members.difference(&other.members).cloned().collect();
        let children = self
            .children
            .iter()
            .filter_map(|(element, set)| {
                let rest = match other.children.get(element) {
                    Some(theirs) => set.difference(theirs),
                    None => set.clone(),
                };
                (!rest.is_empty()).then(|| (element.clone(), rest))
            })
            .collect();
        FieldSet { members, children }
    }

    /// Paths in both sets.
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let members = self.members.intersection(&other.members).cloned().collect();
        let children = self
            .children
            .iter()
            .filter_map(|(element, set)| {
                let both = set.intersection(other.children.get(element)?);
                (!both.is_empty()).then(|| (element.clone(), both))
            })
            .collect();
        FieldSet { members, children }
    }

    /// The set without the subtree under the top-level field `name` (fields a subresource
    /// resets, such as `status`).
    pub fn without_field(&self, name: &str) -> FieldSet {
        let mut out = self.clone();
        let element = Element::Field(name.to_string());
        out.members.remove(&element);
        out.children.remove(&element);
        out
    }

    /// The subtree under the top-level field `name` alone.
    pub fn only_field(&self, name: &str) -> FieldSet {
        let element = Element::Field(name.to_string());
        let mut out = FieldSet::default();
        if self.members.contains(&element) {
            out.members.insert(element.clone());
        }
        if let Some(below) = self.children.get(&element) {
            out.children.insert(element, below.clone());
        }
        out
    }

    /// The set where every field that has paths below it is a member too (structured-merge-diff's
    /// `EnsureNamedFieldsAreMembers`, for pruning: owning `spec.replicas` owns `spec`).
    pub fn with_parent_fields(&self) -> FieldSet {
        let mut out = FieldSet { members: self.members.clone(), children: BTreeMap::new() };
        for (element, set) in &self.children {
            if matches!(element, Element::Field(_)) {
                out.members.insert(element.clone());
            }
            out.children.insert(element.clone(), set.with_parent_fields());
        }
        out
    }

    /// Every member path, members of a level before the levels below it, each in order.
    pub fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Path, out: &mut Vec<Path>) {
        for member in &self.members {
            let mut path = prefix.clone();
            path.push(member.clone());
            out.push(path);
        }
        for (element, set) in &self.children {
            prefix.push(element.clone());
            set.collect(prefix, out);
            prefix.pop();
        }
    }

    /// The set in the `FieldsV1` wire form.
    pub fn to_fields_v1(&self) -> Value {
        self.encode(false)
    }

    fn encode(&self, include_self: bool) -> Value {
        let mut out = Map::new();
        if include_self {
            out.insert(".".into(), Value::Object(Map::new()));
        }
        for member in &self.members {
            if !self.children.contains_key(member) {
                out.insert(member.encode(), Value::Object(Map::new()));
            }
        }
        for (element, set) in &self.children {
            out.insert(element.encode(), set.encode(self.members.contains(element)));
        }
        Value::Object(out)
    }

    /// Reads a set from its `FieldsV1` wire form.
    pub fn from_fields_v1(fields: &Value) -> Result<FieldSet, String> {
        let map = fields.as_object().ok_or("FieldsV1 must be a JSON object")?;
        let mut set = FieldSet::default();
        for (key, below) in map {
            if key == "." {
                continue;
            }
            let element = Element::decode(key)?;
            let child = FieldSet::from_fields_v1(below)?;
            let is_self = below.as_object().is_some_and(|m| m.is_empty() || m.contains_key("."));
            if is_self {
                set.members.insert(element.clone());
            }
            if !child.is_empty() {
                set.children.insert(element, child);
            }
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(name: &str) -> Element {
        Element::Field(name.into())
    }

    #[test]
    fn fields_v1_round_trips_with_self_markers_keys_and_values() {
        let wire = json!({
            "f:data": {".": {}, "f:key": {}},
            "f:metadata": {
                "f:finalizers": {"v:\"a\"": {}},
                "f:ownerReferences": {".": {}, "k:{\"uid\":\"u1\"}": {}},
            },
            "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:image": {}}}},
        });
        let set = FieldSet::from_fields_v1(&wire).unwrap();
        assert!(set.child(&field("data")).unwrap().has_member(&field("key")));
        assert!(set.has_member(&field("data")));
        assert!(!set.has_member(&field("metadata")));
        assert_eq!(set.to_fields_v1(), wire);
    }

    #[test]
    fn set_algebra_and_paths() {
        let mut a = FieldSet::default();
        a.insert(&[field("data"), field("x")]);
        a.insert(&[field("data"), field("y")]);
        let mut b = FieldSet::default();
        b.insert(&[field("data"), field("y")]);
        assert_eq!(a.difference(&b).paths(), vec![vec![field("data"), field("x")]]);
        assert_eq!(a.intersection(&b), b);
        assert_eq!(a.union(&b), a);
        assert!(a.difference(&a).is_empty());
        let key = Element::Key(vec![("uid".into(), Atom(json!("u")))]);
        assert_eq!(path_string(&[field("metadata"), field("ownerReferences"), key]), ".metadata.ownerReferences[uid=\"u\"]");
        assert_eq!(path_string(&[field("f"), Element::Value(Atom(json!("a")))]), ".f[=\"a\"]");
    }

    #[test]
    fn keys_encode_as_compact_json_in_name_order() {
        let key = Element::Key(vec![("containerPort".into(), Atom(json!(80))), ("protocol".into(), Atom(json!("TCP")))]);
        assert_eq!(key.encode(), r#"k:{"containerPort":80,"protocol":"TCP"}"#);
        assert_eq!(Element::decode(&key.encode()).unwrap(), key);
    }
}
