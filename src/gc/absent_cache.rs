//! The absent-owner cache: owners verified not to exist, so that their other dependents are
//! collected without asking the API server again. An LRU of 500 entries keyed by the full
//! identity (coordinates and namespace), as upstream since PR #92743.

use std::num::NonZeroUsize;

use lru::LruCache;

use crate::gc::graph::Identity;

/// Upstream's size.
pub const DEFAULT_CAPACITY: usize = 500;

/// A bounded set of identities verified absent.
#[derive(Debug)]
pub struct AbsentOwnerCache {
    cache: LruCache<Identity, ()>,
}

impl AbsentOwnerCache {
    /// A cache holding at most `capacity` identities (at least one).
    pub fn new(capacity: usize) -> Self {
        Self { cache: LruCache::new(NonZeroUsize::new(capacity.max(1)).expect("at least one")) }
    }

    /// Records an identity as absent.
    pub fn add(&mut self, identity: Identity) {
        self.cache.put(identity, ());
    }

    /// Whether an identity is recorded as absent (and marks it recently used).
    pub fn has(&mut self, identity: &Identity) -> bool {
        self.cache.get(identity).is_some()
    }

    /// The cached identities, most recently used first.
    pub fn entries(&self) -> Vec<Identity> {
        self.cache.iter().map(|(k, _)| k.clone()).collect()
    }
}
