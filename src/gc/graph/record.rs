//! How the graph stores a node: 64 bytes, and 40 for each of its ownerReferences. The UID takes
//! 16 bytes ([`Uid`]), apiVersion and kind one interned id, the namespace another, names are
//! boxed, and the three flags share a word with the incarnation.

use std::sync::Arc;

use super::interner::Interner;
use super::{Identity, Node, OwnerRef, Uid};

/// A node as stored.
#[derive(Debug)]
pub(super) struct Record {
    pub uid: Uid,
    pub name: Box<str>,
    pub owners: Box<[Reference]>,
    pub stamp: Stamp,
    /// Interned apiVersion and kind.
    pub kind: u32,
    /// Interned namespace.
    pub namespace: u32,
}

/// An ownerReference as stored.
#[derive(Debug)]
pub(super) struct Reference {
    pub uid: Uid,
    pub name: Box<str>,
    /// Interned apiVersion and kind.
    pub kind: u32,
    /// `controller` and `blockOwnerDeletion`, two bits each (see [`pack`]).
    flags: u8,
}

impl Reference {
    /// Whether this reference blocks its owner's foreground deletion.
    pub fn blocks(&self) -> bool {
        unpack(self.flags >> 2) == Some(true)
    }
}

fn pack(flag: Option<bool>) -> u8 {
    match flag {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    }
}

fn unpack(bits: u8) -> Option<bool> {
    match bits & 3 {
        0 => None,
        b => Some(b == 2),
    }
}

/// A node's incarnation (the low 61 bits) and flags.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stamp(u64);

impl Stamp {
    /// [`Node::virtual_node`].
    pub const VIRTUAL: u64 = 1 << 63;
    /// [`Node::being_deleted`].
    pub const BEING_DELETED: u64 = 1 << 62;
    /// [`Node::deleting_dependents`].
    pub const DELETING_DEPENDENTS: u64 = 1 << 61;
    const FLAGS: u64 = Self::VIRTUAL | Self::BEING_DELETED | Self::DELETING_DEPENDENTS;

    fn new(node: &Node) -> Self {
        assert!(node.incarnation & Self::FLAGS == 0, "fewer than 2^61 incarnations");
        let flag = |on: bool, flag: u64| if on { flag } else { 0 };
        Self(
            node.incarnation
                | flag(node.virtual_node, Self::VIRTUAL)
                | flag(node.being_deleted, Self::BEING_DELETED)
                | flag(node.deleting_dependents, Self::DELETING_DEPENDENTS),
        )
    }

    /// The incarnation.
    pub fn incarnation(self) -> u64 {
        self.0 & !Self::FLAGS
    }

    /// Whether `flag` is set.
    pub fn has(self, flag: u64) -> bool {
        self.0 & flag != 0
    }

    /// Sets or clears `flag`.
    pub fn set(&mut self, flag: u64, on: bool) {
        self.0 = if on { self.0 | flag } else { self.0 & !flag };
    }
}

/// The interned strings of the records.
#[derive(Debug, Default)]
pub(super) struct Tables {
    /// apiVersion and kind.
    kinds: Interner<(Arc<str>, Arc<str>)>,
    namespaces: Interner<Arc<str>>,
}

impl Tables {
    /// Interns apiVersion and kind.
    pub fn kind(&mut self, api_version: &Arc<str>, kind: &Arc<str>) -> u32 {
        self.kinds.intern(&(api_version.clone(), kind.clone()))
    }

    /// Releases apiVersion and kind.
    pub fn release_kind(&mut self, id: u32) {
        self.kinds.release(id);
    }

    /// The apiVersion and kind of `id`.
    pub fn kind_of(&self, id: u32) -> &(Arc<str>, Arc<str>) {
        self.kinds.get(id)
    }

    /// The namespace of `id`.
    pub fn namespace_of(&self, id: u32) -> &Arc<str> {
        self.namespaces.get(id)
    }

    /// `node` as stored (interning its strings).
    pub fn record(&mut self, node: Node) -> Record {
        let stamp = Stamp::new(&node);
        let Identity { api_version, kind, namespace, name, uid } = node.identity;
        Record {
            uid,
            name,
            owners: self.references(node.owners),
            stamp,
            kind: self.kind(&api_version, &kind),
            namespace: self.namespaces.intern(&namespace),
        }
    }

    /// `owners` as stored (interning their strings).
    pub fn references(&mut self, owners: Vec<OwnerRef>) -> Box<[Reference]> {
        owners
            .into_iter()
            .map(|r| Reference {
                kind: self.kind(&r.api_version, &r.kind),
                flags: pack(r.controller) | pack(r.block_owner_deletion) << 2,
                uid: r.uid,
                name: r.name,
            })
            .collect()
    }

    /// Releases the strings of a record that is dropped.
    pub fn release(&mut self, record: &Record) {
        self.kinds.release(record.kind);
        self.namespaces.release(record.namespace);
        self.release_references(&record.owners);
    }

    /// Releases the strings of references that are dropped.
    pub fn release_references(&mut self, owners: &[Reference]) {
        for r in owners {
            self.kinds.release(r.kind);
        }
    }

    /// The coordinates of `record`.
    pub fn identity(&self, record: &Record) -> Identity {
        let (api_version, kind) = self.kind_of(record.kind).clone();
        Identity {
            api_version,
            kind,
            namespace: self.namespace_of(record.namespace).clone(),
            name: record.name.clone(),
            uid: record.uid.clone(),
        }
    }

    /// The ownerReference `r` stands for.
    pub fn owner_ref(&self, r: &Reference) -> OwnerRef {
        let (api_version, kind) = self.kind_of(r.kind).clone();
        OwnerRef {
            api_version,
            kind,
            name: r.name.clone(),
            uid: r.uid.clone(),
            controller: unpack(r.flags),
            block_owner_deletion: unpack(r.flags >> 2),
        }
    }

    /// Whether `r` names the coordinates of `record` (as [`Identity::matches_ref`]).
    pub fn matches(&self, record: &Record, r: &OwnerRef) -> bool {
        let (api_version, kind) = self.kind_of(record.kind);
        super::names(r, &record.uid, &record.name, kind, api_version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_takes_64_bytes_and_a_reference_40() {
        assert_eq!(std::mem::size_of::<Record>(), 64);
        assert_eq!(std::mem::size_of::<Reference>(), 40);
    }

    #[test]
    fn a_stored_node_reads_back_as_it_was() {
        let r = |controller, block_owner_deletion| OwnerRef {
            api_version: "apps/v1".into(),
            kind: "ReplicaSet".into(),
            name: "rs".into(),
            uid: "rsuid".into(),
            controller,
            block_owner_deletion,
        };
        let owners: Vec<OwnerRef> =
            [None, Some(false), Some(true)].into_iter().flat_map(|c| [None, Some(false), Some(true)].map(|b| r(c, b))).collect();
        let identity =
            Identity { api_version: "v1".into(), kind: "Pod".into(), namespace: "ns".into(), name: "p".into(), uid: "puid".into() };
        let node = Node { owners: owners.clone(), being_deleted: true, incarnation: 7, ..Node::virtual_owner(identity.clone()) };
        let mut tables = Tables::default();
        let record = tables.record(node);
        assert_eq!(tables.identity(&record), identity);
        assert_eq!(record.owners.iter().map(|r| tables.owner_ref(r)).collect::<Vec<_>>(), owners);
        assert_eq!(
            record.owners.iter().map(Reference::blocks).collect::<Vec<_>>(),
            owners.iter().map(OwnerRef::blocks).collect::<Vec<_>>()
        );
        assert_eq!((record.stamp.incarnation(), record.stamp.has(Stamp::VIRTUAL), record.stamp.has(Stamp::BEING_DELETED)), (7, true, true));
        assert!(!record.stamp.has(Stamp::DELETING_DEPENDENTS));
    }
}
