//! Event expiry: kube-apiserver stores Events with a time to live
//! (`--event-ttl`, 1 h by default; upstream `pkg/registry/core/event/storage/storage.go`,
//! `NewREST`, whose TTL function answers the same TTL for every create and every update), so
//! an Event goes a TTL after its last write, and every write restarts the count. Upstream etcd
//! deletes the key when its lease runs out; here the server's upkeep removes the Event once the
//! server's clock has reached its moment, and watches see it DELETED. Writes close together
//! share a lease, granted for the TTL and a little more, so an Event may outlive its TTL by up
//! to that little more (a minute for an hour; see [`Lease`]).
//! `events.k8s.io/v1` Events are the same stored objects, so the same TTL holds for them.
//! No controller and no finalizer is involved: an Event's finalizers do not keep it.

use chrono::{DateTime, Duration, Utc};

use crate::apiserver::mutant::Mutant;
use crate::apiserver::storage::Storage;
use crate::apiserver::storage::store::ObjectKey;

/// The etcd lease of the last write with a TTL, which the storage's lease manager gives the
/// next such write while it still outlives that write's TTL by less than the reuse duration,
/// for at most 1,000 writes (k8s.io/apiserver pkg/storage/etcd3/lease_manager.go, `GetLease`).
#[derive(Clone, Copy, Debug)]
pub struct Lease {
    /// When it runs out.
    expires: DateTime<Utc>,
    /// How many writes were given it.
    attached: u32,
}

impl Lease {
    /// The most writes one lease is given (`defaultLeaseMaxObjectCount`).
    const MAX_ATTACHED: u32 = 1000;

    /// How much longer than `ttl` a lease is granted for: 5% of it, at most a minute
    /// (`getReuseDurationSecondsLocked`, whole seconds).
    fn reuse(ttl: Duration) -> Duration {
        Duration::seconds((ttl.num_seconds() / 20).min(60))
    }
}

impl Storage {
    /// Bookkeeping of a write to `key`: an Event's time to live starts again, on the lease
    /// written before if it still fits, else on a new one.
    pub(super) fn written(&mut self, key: &ObjectKey) {
        if !is_event(key) || self.mutant == Some(Mutant::EventTtlNeverExpires) {
            return;
        }
        let (now, ttl) = (self.clock.now(), self.event_ttl);
        let Some(due) = now.checked_add_signed(ttl) else { return };
        let reuse = Lease::reuse(ttl);
        let expires = match self.event_lease {
            Some(lease) if due < lease.expires && due + reuse > lease.expires && lease.attached < Lease::MAX_ATTACHED => {
                self.event_lease = Some(Lease { attached: lease.attached + 1, ..lease });
                lease.expires
            }
            _ => {
                let lease = Lease { expires: due + reuse, attached: 1 };
                self.event_lease = Some(lease);
                lease.expires
            }
        };
        if self.mutant == Some(Mutant::EventTtlNotRestarted) {
            self.event_expiry.entry(key.clone()).or_insert(expires);
        } else {
            self.event_expiry.insert(key.clone(), expires);
        }
    }

    /// Removes every Event whose time to live is over.
    pub fn expire_events(&mut self) {
        let now = self.clock.now();
        let due: Vec<ObjectKey> = self.event_expiry.iter().filter(|(_, at)| **at <= now).map(|(key, _)| key.clone()).collect();
        for key in due {
            self.remove(&key);
            self.event_expiry.remove(&key);
        }
    }

    /// Whether an Event's time to live is over and it is still stored.
    pub fn events_due(&self) -> bool {
        let now = self.clock.now();
        self.event_expiry.values().any(|at| *at <= now)
    }
}

/// Whether `key` is where Events of both groups are stored.
fn is_event(key: &ObjectKey) -> bool {
    key.group.is_empty() && key.resource == "events"
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::apiserver::ids::Ids;
    use crate::apiserver::kinds;
    use crate::apiserver::storage::Storage;
    use crate::apiserver::storage::store::ObjectKey;
    use crate::clock::Clock;

    fn storage() -> Storage {
        let clock = Clock::virtual_at(chrono::DateTime::UNIX_EPOCH);
        Storage::new(clock, Ids::seeded(1), 100, kinds::of)
    }

    fn event() -> (ObjectKey, serde_json::Value) {
        (ObjectKey::new("", "events", "default", "e"), json!({"metadata": {"name": "e", "namespace": "default"}}))
    }

    #[test]
    fn an_event_goes_a_ttl_after_its_write() {
        let mut s = storage();
        let (key, object) = event();
        s.commit(key.clone(), object);
        s.clock.advance(chrono::Duration::minutes(60));
        s.expire_events();
        assert!(s.store.get(&key).is_some(), "its lease has a minute more");
        s.clock.advance(chrono::Duration::minutes(1));
        assert!(s.events_due());
        s.expire_events();
        assert!(s.store.get(&key).is_none());
        assert!(!s.events_due());
    }

    #[test]
    fn an_update_starts_the_ttl_again() {
        let mut s = storage();
        let (key, object) = event();
        s.commit(key.clone(), object.clone());
        s.clock.advance(chrono::Duration::minutes(40));
        s.commit(key.clone(), object);
        s.clock.advance(chrono::Duration::minutes(40));
        s.expire_events();
        assert!(s.store.get(&key).is_some());
    }

    #[test]
    fn writes_within_a_minute_of_a_lease_share_it() {
        let mut s = storage();
        let first = ObjectKey::new("", "events", "default", "first");
        let (second, third) = (ObjectKey::new("", "events", "default", "second"), ObjectKey::new("", "events", "default", "third"));
        s.commit(first.clone(), json!({"metadata": {"name": "first", "namespace": "default"}}));
        s.clock.advance(chrono::Duration::seconds(30));
        s.commit(second.clone(), json!({"metadata": {"name": "second", "namespace": "default"}}));
        s.clock.advance(chrono::Duration::seconds(30));
        s.commit(third.clone(), json!({"metadata": {"name": "third", "namespace": "default"}}));
        s.clock.advance(chrono::Duration::minutes(60));
        s.expire_events();
        assert!(s.store.get(&first).is_none() && s.store.get(&second).is_none(), "both on the first lease");
        assert!(s.store.get(&third).is_some(), "a new lease, the first too short for it");
    }

    #[test]
    fn other_kinds_never_expire() {
        let mut s = storage();
        let key = ObjectKey::new("", "configmaps", "default", "c");
        s.commit(key.clone(), json!({"metadata": {"name": "c", "namespace": "default"}}));
        s.clock.advance(chrono::Duration::days(2));
        s.expire_events();
        assert!(s.store.get(&key).is_some());
    }
}
