//! Who depends on whom: for each node with dependents, their slots. Most owners have a few,
//! kept in a boxed slice of just their number; past [`FEW`] a set keeps adding and removing one
//! constant-time for owners of many thousands. Nodes without dependents (most of them) take no
//! room at all.

use std::collections::HashSet;
use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::FixedState;

/// The most dependents kept in a slice.
const FEW: usize = 16;

/// One owner's dependents, never empty.
#[derive(Debug)]
enum Set {
    /// In the order they were added.
    Few(Box<[u32]>),
    // Boxed, so that a slice fits beside it in 16 bytes.
    #[allow(clippy::box_collection)]
    Many(Box<HashSet<u32, FixedState>>),
}

impl Set {
    fn contains(&self, dependent: u32) -> bool {
        match self {
            Set::Few(few) => few.contains(&dependent),
            Set::Many(many) => many.contains(&dependent),
        }
    }

    fn insert(&mut self, dependent: u32) {
        match self {
            Set::Few(few) if few.contains(&dependent) => {}
            Set::Few(few) if few.len() < FEW => *few = few.iter().copied().chain([dependent]).collect(),
            Set::Few(few) => *self = Set::Many(Box::new(few.iter().copied().chain([dependent]).collect())),
            Set::Many(many) => {
                many.insert(dependent);
            }
        }
    }

    fn remove(&mut self, dependent: u32) {
        match self {
            Set::Few(few) if few.contains(&dependent) => *few = few.iter().copied().filter(|d| *d != dependent).collect(),
            Set::Few(_) => {}
            Set::Many(many) => {
                many.remove(&dependent);
            }
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Set::Few(few) => few.is_empty(),
            Set::Many(many) => many.is_empty(),
        }
    }
}

/// Dependents by owner, both named by their slots.
#[derive(Debug, Default)]
pub(super) struct Links {
    sets: HashTable<(u32, Set)>,
}

fn hash(owner: u32) -> u64 {
    FixedState::default().hash_one(owner)
}

impl Links {
    fn set(&self, owner: u32) -> Option<&Set> {
        self.sets.find(hash(owner), |(o, _)| *o == owner).map(|(_, set)| set)
    }

    /// Adds `dependent` to `owner`'s dependents.
    pub(super) fn insert(&mut self, owner: u32, dependent: u32) {
        match self.sets.find_mut(hash(owner), |(o, _)| *o == owner) {
            Some((_, set)) => set.insert(dependent),
            None => {
                self.sets.insert_unique(hash(owner), (owner, Set::Few(Box::new([dependent]))), |(o, _)| hash(*o));
            }
        }
    }

    /// Removes `dependent` from `owner`'s dependents.
    pub(super) fn remove(&mut self, owner: u32, dependent: u32) {
        let Ok(mut entry) = self.sets.find_entry(hash(owner), |(o, _)| *o == owner) else { return };
        entry.get_mut().1.remove(dependent);
        if entry.get().1.is_empty() {
            entry.remove();
        }
    }

    /// Forgets all of `owner`'s dependents.
    pub(super) fn clear(&mut self, owner: u32) {
        if let Ok(entry) = self.sets.find_entry(hash(owner), |(o, _)| *o == owner) {
            entry.remove();
        }
    }

    /// Whether `dependent` is one of `owner`'s dependents.
    pub(super) fn contains(&self, owner: u32, dependent: u32) -> bool {
        self.set(owner).is_some_and(|s| s.contains(dependent))
    }

    /// `owner`'s dependents, in no particular order.
    pub(super) fn of(&self, owner: u32) -> impl Iterator<Item = u32> + '_ {
        let set = self.set(owner);
        let few: &[u32] = match set {
            Some(Set::Few(few)) => few,
            _ => &[],
        };
        let many = match set {
            Some(Set::Many(many)) => Some(many.iter()),
            _ => None,
        };
        few.iter().chain(many.into_iter().flatten()).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(links: &Links, owner: u32) -> Vec<u32> {
        let mut v: Vec<u32> = links.of(owner).collect();
        v.sort();
        v
    }

    #[test]
    fn a_set_of_dependents_grows_past_a_slice_and_goes_when_empty() {
        assert_eq!(std::mem::size_of::<Set>(), 16);
        let mut links = Links::default();
        for d in 0..40 {
            links.insert(7, d);
            links.insert(7, d);
            assert_eq!(matches!(links.set(7), Some(Set::Few(_))), d < FEW as u32, "{d}");
        }
        links.insert(8, 1);
        assert!(links.contains(8, 1) && !links.contains(8, 2) && !links.contains(9, 1));
        assert_eq!(sorted(&links, 7), (0..40).collect::<Vec<_>>());
        for d in 0..40 {
            links.remove(7, d);
            links.remove(7, d);
            assert_eq!(links.of(7).count(), 39 - d as usize);
        }
        assert!(links.set(7).is_none());
        links.clear(8);
        assert!(links.sets.is_empty());
    }

    #[test]
    fn a_few_dependents_keep_the_order_they_were_added_in() {
        let mut links = Links::default();
        for d in [5, 3, 9, 1] {
            links.insert(0, d);
        }
        links.remove(0, 3);
        links.remove(0, 3);
        assert_eq!(links.of(0).collect::<Vec<_>>(), [5, 9, 1]);
    }
}
