//! Object UIDs. API servers assign canonical lowercase UUIDs, which take 16 bytes here instead of
//! a 36-byte string; any other string (scenarios name objects `parentuid`, and an ownerReference
//! may name anything) is kept as it is. Either way a UID compares, orders and displays exactly as
//! its string does.

use std::cmp::Ordering;
use std::fmt;
use std::num::NonZeroU64;
use std::ops::Deref;
use std::sync::Arc;

/// An object UID: equal, ordered and displayed as its string; hashed deterministically.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Uid(Repr);

/// A canonical UUID is held as two big-endian halves. Its first half is not zero, so that the
/// other variant can live beside that niche and the whole stays 16 bytes; the few canonical
/// UUIDs that begin with sixteen zeros are kept as strings. Every string has one form only,
/// which makes the derived equality and hash agree with the strings'.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Uuid(NonZeroU64, u64),
    // The inner box makes the pointer thin (8 bytes), which is what lets the enum be 16.
    Other(Arc<Box<str>>),
}

/// The positions of the dashes in a canonical UUID.
const DASHES: [usize; 4] = [8, 13, 18, 23];
const LEN: usize = 36;

/// The halves of a canonical lowercase UUID whose first half is not zero.
fn parse(s: &str) -> Option<(NonZeroU64, u64)> {
    if s.len() != LEN {
        return None;
    }
    let mut value: u128 = 0;
    for (i, c) in s.bytes().enumerate() {
        let digit = match c {
            b'-' if DASHES.contains(&i) => continue,
            b'0'..=b'9' if !DASHES.contains(&i) => c - b'0',
            b'a'..=b'f' if !DASHES.contains(&i) => c - b'a' + 10,
            _ => return None,
        };
        value = value << 4 | u128::from(digit);
    }
    Some((NonZeroU64::new((value >> 64) as u64)?, value as u64))
}

/// A UID's string without allocating.
enum Text<'a> {
    Uuid([u8; LEN]),
    Other(&'a str),
}

impl Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Text::Uuid(bytes) => std::str::from_utf8(bytes).expect("hex digits and dashes"),
            Text::Other(s) => s,
        }
    }
}

impl Uid {
    fn text(&self) -> Text<'_> {
        match &self.0 {
            Repr::Uuid(high, low) => {
                let value = u128::from(high.get()) << 64 | u128::from(*low);
                let mut bytes = [b'-'; LEN];
                let mut shift = 128;
                for (_, byte) in bytes.iter_mut().enumerate().filter(|(i, _)| !DASHES.contains(i)) {
                    shift -= 4;
                    *byte = b"0123456789abcdef"[(value >> shift) as usize & 15];
                }
                Text::Uuid(bytes)
            }
            Repr::Other(s) => Text::Other(s),
        }
    }
}

impl From<&str> for Uid {
    fn from(s: &str) -> Self {
        match parse(s) {
            Some((high, low)) => Uid(Repr::Uuid(high, low)),
            None => Uid(Repr::Other(Arc::new(s.into()))),
        }
    }
}

impl From<String> for Uid {
    fn from(s: String) -> Self {
        Self::from(s.as_str())
    }
}

impl PartialOrd for Uid {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Uid {
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.0, &other.0) {
            // Hex digits sort as their values and the dashes stand in the same places.
            (Repr::Uuid(a, b), Repr::Uuid(c, d)) => (a, b).cmp(&(c, d)),
            _ => (*self.text()).cmp(&*other.text()),
        }
    }
}

impl fmt::Display for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl serde::Serialize for Uid {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text())
    }
}

impl fmt::Debug for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.text(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UUIDS: [&str; 5] = [
        "00000000-0000-0000-0000-000000000000",
        "00000000-0000-0001-0000-000000000000",
        "0f0e0d0c-0b0a-4908-8706-050403020100",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "a1b2c3d4-e5f6-4789-8abc-def012345678",
    ];
    const OTHERS: [&str; 9] = [
        "",
        "parentuid",
        "childuid11",
        "A1B2C3D4-E5F6-4789-8ABC-DEF012345678",
        "a1b2c3d4e5f6-4789-8abc-def012345678-",
        "a1b2c3d4-e5f6-4789-8abc-def01234567",
        "a1b2c3d4-e5f6-4789-8abc-def0123456789",
        "g1b2c3d4-e5f6-4789-8abc-def012345678",
        "a1b2c3d4-e5f6-4789-8abc-def012345678\u{e9}",
    ];

    fn all() -> Vec<&'static str> {
        UUIDS.iter().chain(&OTHERS).copied().collect()
    }

    #[test]
    fn canonical_uuids_take_16_bytes_and_the_rest_are_kept_as_strings() {
        assert_eq!(std::mem::size_of::<Uid>(), 16);
        for s in UUIDS.iter().skip(1) {
            assert!(matches!(Uid::from(*s).0, Repr::Uuid(..)), "{s}");
        }
        for s in OTHERS.iter().chain(&UUIDS[..1]) {
            assert!(matches!(Uid::from(*s).0, Repr::Other(..)), "{s}");
        }
    }

    #[test]
    fn a_uid_displays_and_debugs_as_its_string() {
        for s in all() {
            assert_eq!(Uid::from(s).to_string(), s);
            assert_eq!(Uid::from(s.to_string()).to_string(), s);
            assert_eq!(format!("{:?}", Uid::from(s)), format!("{s:?}"));
        }
    }

    #[test]
    fn uids_compare_as_their_strings() {
        for a in all() {
            for b in all() {
                assert_eq!(Uid::from(a).cmp(&Uid::from(b)), a.cmp(b), "{a} vs {b}");
                assert_eq!(Uid::from(a) == Uid::from(b), a == b, "{a} vs {b}");
            }
        }
    }
}
