//! Where a new object's uid and a `generateName` suffix come from: fresh randomness by default,
//! or a seeded sequence, so that a run which must replay exactly (`kubegc chaos` on the fake)
//! gets the same uids every time.

use std::sync::{Arc, Mutex};

/// A source of the random bytes behind uids and generated names.
#[derive(Clone, Debug, Default)]
pub struct Ids {
    /// `None`: the operating system's randomness; otherwise the shared seeded generator.
    seeded: Option<Arc<Mutex<u64>>>,
}

impl Ids {
    /// Fresh randomness for every id, as a real API server has.
    pub fn random() -> Self {
        Self { seeded: None }
    }

    /// The same sequence of ids for the same `seed`.
    pub fn seeded(seed: u64) -> Self {
        Self { seeded: Some(Arc::new(Mutex::new(seed))) }
    }

    /// Sixteen random bytes.
    pub fn bytes(&self) -> [u8; 16] {
        let Some(state) = &self.seeded else { return uuid::Uuid::new_v4().into_bytes() };
        let mut state = state.lock().unwrap_or_else(|p| p.into_inner());
        let mut bytes = [0; 16];
        for half in bytes.chunks_mut(8) {
            half.copy_from_slice(&split_mix(&mut state).to_le_bytes());
        }
        bytes
    }

    /// A suffix of five characters for a generated name, in the alphabet upstream's name
    /// generator uses (no vowels, no confusable digits).
    pub fn name_suffix(&self) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        self.bytes()[..5].iter().map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char).collect()
    }

    /// A new uid: a version-4 UUID, as the API server gives.
    pub fn uid(&self) -> String {
        uuid::Builder::from_random_bytes(self.bytes()).into_uuid().to_string()
    }
}

/// The SplitMix64 step: a well-mixed 64-bit value from a counter.
fn split_mix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_uids_and_random_ones_differ() {
        let (a, b) = (Ids::seeded(7), Ids::seeded(7));
        assert_eq!([a.uid(), a.uid()], [b.uid(), b.uid()]);
        assert_ne!(Ids::seeded(8).uid(), Ids::seeded(7).uid());
        assert_ne!(Ids::random().uid(), Ids::random().uid());
        assert_eq!(uuid::Uuid::parse_str(&a.uid()).map(|u| u.get_version_num()).ok(), Some(4));
    }
}
