//! Interned values: one copy of each apiVersion and kind pair and of each namespace, named by a
//! `u32`, and counted, so that a value no node uses any more is dropped.

use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;

use super::FixedState;
use super::slab::Slab;

/// Values by id, and ids by value.
#[derive(Debug)]
pub(super) struct Interner<T> {
    /// Each value with the number of its uses.
    entries: Slab<(T, u32)>,
    ids: HashTable<u32>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Self { entries: Slab::default(), ids: HashTable::new() }
    }
}

fn hash<T: Hash>(value: &T) -> u64 {
    FixedState::default().hash_one(value)
}

impl<T: Hash + Eq + Clone> Interner<T> {
    /// The id of `value`, counting one more use of it.
    pub(super) fn intern(&mut self, value: &T) -> u32 {
        let entries = &mut self.entries;
        let h = hash(value);
        if let Some(&id) = self.ids.find(h, |&id| entries.get(id).is_some_and(|(v, _)| v == value)) {
            entries.get_mut(id).expect("interned").1 += 1;
            return id;
        }
        let id = entries.insert((value.clone(), 1));
        self.ids.insert_unique(h, id, |&id| hash(&entries.get(id).expect("interned").0));
        id
    }

    /// Counts one use of `id` less, dropping the value after its last.
    pub(super) fn release(&mut self, id: u32) {
        let uses = &mut self.entries.get_mut(id).expect("interned").1;
        *uses -= 1;
        if *uses == 0 {
            let (value, _) = self.entries.remove(id);
            self.ids.find_entry(hash(&value), |&i| i == id).expect("indexed").remove();
        }
    }

    /// The value of `id`.
    pub(super) fn get(&self, id: u32) -> &T {
        &self.entries.get(id).expect("interned").0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_has_one_id_while_used_and_is_dropped_after_its_last_use() {
        let mut interner = Interner::default();
        let a = interner.intern(&"a".to_string());
        assert_eq!(interner.intern(&"a".to_string()), a);
        let b = interner.intern(&"b".to_string());
        assert_ne!(a, b);
        interner.release(a);
        assert_eq!(interner.get(a), "a");
        interner.release(a);
        assert_eq!(interner.entries.len(), 1);
        let c = interner.intern(&"c".to_string());
        assert_eq!((c, interner.get(c).as_str(), interner.get(b).as_str()), (a, "c", "b"));
    }
}
