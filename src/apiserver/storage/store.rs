//! The versioned object store: the fake apiserver's etcd.
//!
//! One global revision counter numbers every write, as an etcd revision does; each object's
//! `metadata.resourceVersion` is the revision of its last write. Every write is also appended
//! to a bounded history so that a watch can resume from any revision still retained, and is
//! broadcast to live watches. The store itself enforces nothing about Kubernetes semantics:
//! callers hold the apiserver's lock and decide what to write.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::broadcast;

/// Where an object lives: storage group and resource, namespace (empty when cluster-scoped), name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    /// Storage group.
    pub group: String,
    /// Storage resource (plural).
    pub resource: String,
    /// Namespace, empty for cluster-scoped objects.
    pub namespace: String,
    /// Name.
    pub name: String,
}

impl ObjectKey {
    /// A key from its four parts.
    pub fn new(group: &str, resource: &str, namespace: &str, name: &str) -> Self {
        Self { group: group.into(), resource: resource.into(), namespace: namespace.into(), name: name.into() }
    }
}

/// The type of a watch event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    /// An object was created.
    Added,
    /// An object was updated.
    Modified,
    /// An object was removed.
    Deleted,
}

impl EventType {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "ADDED",
            Self::Modified => "MODIFIED",
            Self::Deleted => "DELETED",
        }
    }
}

/// One write, as seen by watches.
#[derive(Clone, Debug)]
pub struct StoreEvent {
    /// The revision of the write.
    pub revision: u64,
    /// What happened.
    pub event_type: EventType,
    /// Which object.
    pub key: ObjectKey,
    /// The object after the write (for deletions, its last state at the deletion's revision).
    pub object: Arc<Value>,
    /// The object before the write (none for creations), so that watches with selectors can
    /// tell an object entering or leaving their selection.
    pub previous: Option<Arc<Value>>,
    /// `object` as JSON, encoded once for every watch that serves it as stored.
    encoded: OnceLock<Bytes>,
}

impl StoreEvent {
    /// `object` as JSON: encoded by the first watch that asks, shared with the rest.
    pub fn encoded(&self) -> &Bytes {
        self.encoded.get_or_init(|| serde_json::to_vec(&*self.object).expect("a JSON value serializes").into())
    }
}

/// A watch asked for history the store no longer has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooOld {
    /// The oldest revision a watch may still start from.
    pub oldest: u64,
}

/// The objects of one storage resource: by namespace, then by name, both in order.
type Namespaces = BTreeMap<String, BTreeMap<String, Arc<Value>>>;

/// One storage resource's objects and the revision of its last write.
#[derive(Debug)]
struct Resource {
    /// Storage `(group, resource)`.
    id: (String, String),
    /// The revision of the last write to it, so that a watcher of one resource can tell it has
    /// seen everything without waiting for a bookmark.
    last_write: u64,
    objects: Namespaces,
}

/// Versioned objects, their write history and the broadcast of new writes.
#[derive(Debug)]
pub struct Store {
    /// Objects by storage `(group, resource)` (sorted, so that a lookup compares the few
    /// resources once and then only namespaces and names), each in key order, so that lists come
    /// out ordered by namespace and name as from etcd.
    objects: Vec<Resource>,
    /// How many objects are stored.
    count: usize,
    /// The revision of the last write.
    revision: u64,
    /// Recent writes in revision order; bounded by `history_limit`.
    history: VecDeque<Arc<StoreEvent>>,
    /// How many writes to retain for watch resumption.
    history_limit: usize,
    /// The highest revision whose event was dropped from `history` (0: none dropped).
    compacted: u64,
    /// Live watches subscribe here; a slow one lags, and is then told to relist.
    tx: broadcast::Sender<Arc<StoreEvent>>,
}

impl Store {
    /// An empty store that keeps the last `history_limit` writes for watches.
    pub fn new(history_limit: usize) -> Self {
        let (tx, _) = broadcast::channel(history_limit.clamp(1024, 1 << 16));
        Self { objects: Vec::new(), count: 0, revision: 1, history: VecDeque::new(), history_limit: history_limit.max(1), compacted: 0, tx }
    }

    /// The revision of the last write (what a list returns as its resourceVersion).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Where resource `(group, resource)` is (or would go) in `objects`.
    fn position(&self, group: &str, resource: &str) -> Result<usize, usize> {
        self.objects.binary_search_by(|r| (r.id.0.as_str(), r.id.1.as_str()).cmp(&(group, resource)))
    }

    /// The objects of one storage resource.
    fn resource(&self, group: &str, resource: &str) -> Option<&Namespaces> {
        self.position(group, resource).ok().map(|i| &self.objects[i].objects)
    }

    /// The object at `key`.
    pub fn get(&self, key: &ObjectKey) -> Option<&Arc<Value>> {
        self.resource(&key.group, &key.resource)?.get(&key.namespace)?.get(&key.name)
    }

    /// Objects of one storage resource, optionally in one namespace, in key order, from the
    /// (namespace, name) `from` on when given (a page's start); each with its namespace and name.
    pub fn list<'a>(
        &'a self,
        group: &'a str,
        resource: &'a str,
        namespace: Option<&'a str>,
        from: Option<(String, String)>,
    ) -> impl Iterator<Item = ((&'a str, &'a str), &'a Arc<Value>)> + 'a {
        use std::ops::Bound::{Included, Unbounded};
        let first_namespace = match &from {
            Some((ns, _)) => Included(ns.clone()),
            None => namespace.map_or(Unbounded, |ns| Included(ns.to_string())),
        };
        let namespaces = self
            .resource(group, resource)
            .into_iter()
            .flat_map(move |by_namespace| by_namespace.range((first_namespace.clone(), Unbounded)));
        namespaces.take_while(move |(ns, _)| namespace.is_none_or(|wanted| wanted == ns.as_str())).flat_map(move |(ns, names)| {
            let first_name = match &from {
                Some((from_ns, name)) if from_ns == ns => Included(name.clone()),
                _ => Unbounded,
            };
            names.range((first_name, Unbounded)).map(move |(name, object)| ((ns.as_str(), name.as_str()), object))
        })
    }

    /// Objects of one storage resource, optionally in one namespace, as they were at `revision`,
    /// in key order from `from` on (as [`Store::list`] lists the latest): the latest with the
    /// writes after `revision` undone, or [`TooOld`] when some of them were dropped from history.
    pub fn list_at(
        &self,
        group: &str,
        resource: &str,
        namespace: Option<&str>,
        from: Option<(String, String)>,
        revision: u64,
    ) -> Result<Vec<((String, String), Arc<Value>)>, TooOld> {
        if revision < self.compacted {
            return Err(TooOld { oldest: self.compacted });
        }
        let mut objects: BTreeMap<(String, String), Arc<Value>> =
            self.list(group, resource, namespace, None).map(|((ns, name), o)| ((ns.to_string(), name.to_string()), o.clone())).collect();
        for event in self.history.iter().rev().take_while(|e| e.revision > revision) {
            let key = &event.key;
            if key.group != group || key.resource != resource || namespace.is_some_and(|ns| ns != key.namespace) {
                continue;
            }
            let at = (key.namespace.clone(), key.name.clone());
            match &event.previous {
                Some(before) => objects.insert(at, before.clone()),
                None => objects.remove(&at),
            };
        }
        let from = from.unwrap_or_default();
        Ok(objects.into_iter().filter(|(key, _)| *key >= from).collect())
    }

    /// Every stored object, in key order: for inspecting the whole state at once (a fuzzer
    /// comparing it before and after a request).
    pub fn objects(&self) -> impl Iterator<Item = (ObjectKey, &Arc<Value>)> {
        self.objects.iter().flat_map(|Resource { id: (g, r), objects, .. }| {
            objects.iter().flat_map(move |(ns, names)| names.iter().map(move |(name, o)| (ObjectKey::new(g, r, ns, name), o)))
        })
    }

    /// Number of stored objects.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Stores `object` at `key`; returns what was there.
    fn insert(&mut self, key: &ObjectKey, object: Arc<Value>) -> Option<Arc<Value>> {
        let i = match self.position(&key.group, &key.resource) {
            Ok(i) => i,
            Err(i) => {
                let id = (key.group.clone(), key.resource.clone());
                self.objects.insert(i, Resource { id, last_write: 0, objects: Namespaces::new() });
                i
            }
        };
        let previous = self.objects[i].objects.entry(key.namespace.clone()).or_default().insert(key.name.clone(), object);
        self.count += usize::from(previous.is_none());
        previous
    }

    /// Takes the object at `key` out.
    fn take(&mut self, key: &ObjectKey) -> Option<Arc<Value>> {
        let i = self.position(&key.group, &key.resource).ok()?;
        let resource = &mut self.objects[i];
        let names = resource.objects.get_mut(&key.namespace)?;
        let object = names.remove(&key.name)?;
        if names.is_empty() {
            resource.objects.remove(&key.namespace);
        }
        self.count -= 1;
        Some(object)
    }

    /// Writes `object` at `key` (creating or replacing it), stamping the next revision into its
    /// `metadata.resourceVersion`. Returns the stored object.
    pub fn put(&mut self, key: ObjectKey, mut object: Value) -> Arc<Value> {
        self.revision += 1;
        set_resource_version(&mut object, self.revision);
        let object = Arc::new(object);
        let previous = self.insert(&key, object.clone());
        let event_type = if previous.is_some() { EventType::Modified } else { EventType::Added };
        self.record(event_type, key, object.clone(), previous);
        object
    }

    /// Removes the object at `key`. Its last state, stamped with the deletion's revision, is
    /// returned and sent to watches.
    pub fn remove(&mut self, key: &ObjectKey) -> Option<Arc<Value>> {
        let old = self.take(key)?;
        self.revision += 1;
        let mut last = (*old).clone();
        set_resource_version(&mut last, self.revision);
        let last = Arc::new(last);
        self.record(EventType::Deleted, key.clone(), last.clone(), Some(old));
        Some(last)
    }

    /// The revision of the last write to a storage resource (0 if never written).
    pub fn resource_revision(&self, group: &str, resource: &str) -> u64 {
        self.position(group, resource).map_or(0, |i| self.objects[i].last_write)
    }

    fn record(&mut self, event_type: EventType, key: ObjectKey, object: Arc<Value>, previous: Option<Arc<Value>>) {
        if let Ok(i) = self.position(&key.group, &key.resource) {
            self.objects[i].last_write = self.revision;
        }
        let event = Arc::new(StoreEvent { revision: self.revision, event_type, key, object, previous, encoded: OnceLock::new() });
        if self.history.len() == self.history_limit
            && let Some(dropped) = self.history.pop_front()
        {
            self.compacted = dropped.revision;
        }
        self.history.push_back(event.clone());
        // No receiver is fine: nobody is watching.
        let _ = self.tx.send(event);
    }

    /// The writes after `revision`, for a watch resuming there, or [`TooOld`] when some of them
    /// were already dropped from history.
    pub fn events_after(&self, revision: u64) -> Result<Vec<Arc<StoreEvent>>, TooOld> {
        if revision < self.compacted {
            return Err(TooOld { oldest: self.compacted });
        }
        let start = self.history.partition_point(|e| e.revision <= revision);
        Ok(self.history.range(start..).cloned().collect())
    }

    /// Subscribes to future writes. Call under the same lock as [`Store::events_after`] so that
    /// nothing falls between the two.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<StoreEvent>> {
        self.tx.subscribe()
    }
}

/// Stamps `metadata.resourceVersion`.
fn set_resource_version(object: &mut Value, revision: u64) {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), Value::String(revision.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(name: &str) -> Value {
        json!({"metadata": {"name": name}})
    }

    #[test]
    fn revisions_increase_and_are_stamped() {
        let mut s = Store::new(10);
        let a = s.put(ObjectKey::new("", "pods", "ns", "a"), obj("a"));
        let b = s.put(ObjectKey::new("", "pods", "ns", "b"), obj("b"));
        assert_eq!(a["metadata"]["resourceVersion"], "2");
        assert_eq!(b["metadata"]["resourceVersion"], "3");
        let gone = s.remove(&ObjectKey::new("", "pods", "ns", "a")).unwrap();
        assert_eq!(gone["metadata"]["resourceVersion"], "4");
        assert_eq!(s.revision(), 4);
    }

    #[test]
    fn list_is_scoped_to_resource_and_namespace() {
        let mut s = Store::new(10);
        s.put(ObjectKey::new("", "pods", "a", "x"), obj("x"));
        s.put(ObjectKey::new("", "pods", "b", "y"), obj("y"));
        s.put(ObjectKey::new("", "podsx", "a", "z"), obj("z"));
        assert_eq!(s.list("", "pods", None, None).count(), 2);
        assert_eq!(s.list("", "pods", Some("a"), None).count(), 1);
        let after_first = Some(("a".to_string(), "x\0".to_string()));
        assert_eq!(s.list("", "pods", None, after_first).count(), 1);
    }

    #[test]
    fn a_list_at_an_older_revision_undoes_the_writes_after_it() {
        let mut s = Store::new(4);
        let key = |name: &str| ObjectKey::new("", "pods", "a", name);
        s.put(key("x"), obj("x"));
        s.put(key("y"), obj("y"));
        s.put(key("x"), json!({"metadata": {"name": "x"}, "changed": true}));
        s.remove(&key("y"));
        s.put(ObjectKey::new("", "podsx", "a", "z"), obj("z"));
        let names = |listed: Vec<((String, String), Arc<Value>)>| -> Vec<(String, Value)> {
            listed.into_iter().map(|((_, name), o)| (name, o["changed"].clone())).collect()
        };
        assert_eq!(names(s.list_at("", "pods", Some("a"), None, 3).unwrap()), [("x".into(), Value::Null), ("y".into(), Value::Null)]);
        assert_eq!(names(s.list_at("", "pods", None, None, 2).unwrap()), [("x".to_string(), Value::Null)]);
        assert_eq!(names(s.list_at("", "pods", None, Some(("a".into(), "x\0".into())), 3).unwrap()), [("y".to_string(), Value::Null)]);
        assert_eq!(names(s.list_at("", "pods", None, None, 6).unwrap()), [("x".to_string(), json!(true))]);
        s.put(key("w"), obj("w"));
        assert_eq!(s.list_at("", "pods", None, None, 1), Err(TooOld { oldest: 3 }));
    }

    #[test]
    fn history_is_bounded_and_reports_too_old() {
        let mut s = Store::new(3);
        for i in 0..5 {
            s.put(ObjectKey::new("", "pods", "ns", &format!("p{i}")), obj("p"));
        }
        // Revisions 2..=6 were written; 2 and 3 were dropped.
        assert_eq!(s.events_after(2).unwrap_err(), TooOld { oldest: 3 });
        let events = s.events_after(3).unwrap();
        assert_eq!(events.iter().map(|e| e.revision).collect::<Vec<_>>(), vec![4, 5, 6]);
        assert!(s.events_after(6).unwrap().is_empty());
    }
}
