//! A slab: values at stable `u32` slots, a vacated slot reused first, storage in chunks of a
//! fixed size, so that growing never moves what is stored nor reserves room for twice as much.

/// Slots per chunk.
const CHUNK: usize = 1024;

/// The end of the list of vacant slots.
const NONE: u32 = u32::MAX;

#[derive(Debug)]
enum Entry<T> {
    Occupied(T),
    /// A vacant slot, and the next vacant one (or [`NONE`]).
    Vacant(u32),
}

/// Values at `u32` slots.
#[derive(Debug)]
pub(super) struct Slab<T> {
    chunks: Vec<Vec<Entry<T>>>,
    /// The most recently vacated slot, or [`NONE`].
    vacant: u32,
    len: usize,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Self { chunks: Vec::new(), vacant: NONE, len: 0 }
    }
}

fn position(slot: u32) -> (usize, usize) {
    (slot as usize / CHUNK, slot as usize % CHUNK)
}

impl<T> Slab<T> {
    /// Stores `value`; returns its slot.
    pub(super) fn insert(&mut self, value: T) -> u32 {
        self.len += 1;
        if self.vacant != NONE {
            let slot = self.vacant;
            let (chunk, i) = position(slot);
            match std::mem::replace(&mut self.chunks[chunk][i], Entry::Occupied(value)) {
                Entry::Vacant(next) => self.vacant = next,
                Entry::Occupied(_) => unreachable!("the list of vacant slots holds vacant slots"),
            }
            return slot;
        }
        if self.chunks.last().is_none_or(|c| c.len() == CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        let slot = (self.chunks.len() - 1) * CHUNK + self.chunks.last().map_or(0, Vec::len);
        let slot = u32::try_from(slot).ok().filter(|s| *s != NONE).expect("fewer than 2^32 - 1 values");
        self.chunks.last_mut().expect("pushed").push(Entry::Occupied(value));
        slot
    }

    /// Takes the value at `slot`, which must be occupied.
    pub(super) fn remove(&mut self, slot: u32) -> T {
        let (chunk, i) = position(slot);
        match std::mem::replace(&mut self.chunks[chunk][i], Entry::Vacant(self.vacant)) {
            Entry::Occupied(value) => {
                self.vacant = slot;
                self.len -= 1;
                value
            }
            Entry::Vacant(_) => panic!("slot {slot} is vacant"),
        }
    }

    /// The value at `slot`, if occupied.
    pub(super) fn get(&self, slot: u32) -> Option<&T> {
        let (chunk, i) = position(slot);
        match self.chunks.get(chunk)?.get(i)? {
            Entry::Occupied(value) => Some(value),
            Entry::Vacant(_) => None,
        }
    }

    /// The value at `slot`, if occupied, mutably.
    pub(super) fn get_mut(&mut self, slot: u32) -> Option<&mut T> {
        let (chunk, i) = position(slot);
        match self.chunks.get_mut(chunk)?.get_mut(i)? {
            Entry::Occupied(value) => Some(value),
            Entry::Vacant(_) => None,
        }
    }

    /// How many values are stored.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Every value with its slot, in slot order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.chunks.iter().flatten().enumerate().filter_map(|(slot, e)| match e {
            Entry::Occupied(value) => Some((slot as u32, value)),
            Entry::Vacant(_) => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_stable_and_vacated_ones_are_reused_last_vacated_first() {
        let mut slab = Slab::default();
        let slots: Vec<u32> = (0..2 * CHUNK + 3).map(|i| slab.insert(i)).collect();
        assert_eq!(slots, (0..slots.len() as u32).collect::<Vec<_>>());
        assert_eq!(slab.remove(5), 5);
        assert_eq!(slab.remove(CHUNK as u32 + 1), CHUNK + 1);
        assert_eq!((slab.get(5), slab.len()), (None, 2 * CHUNK + 1));
        assert_eq!(slab.insert(100), CHUNK as u32 + 1);
        assert_eq!(slab.insert(200), 5);
        assert_eq!(slab.insert(300), slots.len() as u32);
        *slab.get_mut(5).unwrap() += 1;
        assert_eq!(slab.iter().find(|(s, _)| *s == 5), Some((5, &201)));
        assert_eq!(slab.iter().count(), slab.len());
    }
}
