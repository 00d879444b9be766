//! A de-duplicating work queue with per-item exponential back-off, in the manner of
//! client-go's rate-limited workqueue: an item added while queued is not added twice; an item
//! added while a worker holds it is processed again after the worker is done; `add_rate_limited`
//! waits `base * 2^failures` (capped) before adding; `forget` resets the failure count.
//!
//! A [`WorkQueue::synchronous`] queue has no timers: `add_rate_limited` counts the failure and
//! adds at once, like the tracking queue upstream's unit tests step the collector with, so that a
//! test sees every re-queue as soon as the worker returns.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use crate::gc::graph::FixedState;

/// Back-off bounds.
#[derive(Clone, Copy, Debug)]
pub struct Backoff {
    /// First delay.
    pub base: Duration,
    /// Largest delay.
    pub max: Duration,
}

impl Default for Backoff {
    /// client-go's per-item default starts at 5 ms; the cap is lower than its 1000 s so that a
    /// retried item is not out of sight for a quarter of an hour.
    fn default() -> Self {
        Self { base: Duration::from_millis(5), max: Duration::from_secs(60) }
    }
}

#[derive(Debug)]
struct State<K> {
    ready: VecDeque<K>,
    /// Queued or to be re-queued after processing (client-go's `dirty`).
    dirty: HashSet<K, FixedState>,
    processing: HashSet<K, FixedState>,
    failures: HashMap<K, u32, FixedState>,
    /// Items waiting out a back-off delay.
    waiting: HashSet<K, FixedState>,
    shut_down: bool,
}

/// Hands the first ready item to a worker.
fn take_ready<K: Clone + Eq + Hash>(s: &mut State<K>) -> Option<K> {
    let item = s.ready.pop_front()?;
    s.dirty.remove(&item);
    s.processing.insert(item.clone());
    Some(item)
}

/// The queue. Cheap to clone; clones share the queue.
#[derive(Debug)]
pub struct WorkQueue<K> {
    state: Arc<Mutex<State<K>>>,
    notify: Arc<Notify>,
    /// `None` for a synchronous queue: rate-limited adds are not delayed.
    backoff: Option<Backoff>,
}

impl<K> Clone for WorkQueue<K> {
    fn clone(&self) -> Self {
        Self { state: self.state.clone(), notify: self.notify.clone(), backoff: self.backoff }
    }
}

/// How busy a queue is, for the "settled" check and diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueDepth {
    /// Items ready to be processed.
    pub ready: usize,
    /// Items a worker holds.
    pub processing: usize,
    /// Items waiting out a back-off delay.
    pub waiting: usize,
}

impl<K: Clone + Eq + Hash + Send + 'static> WorkQueue<K> {
    /// An empty queue whose rate-limited adds wait out `backoff`.
    pub fn new(backoff: Backoff) -> Self {
        Self::with_backoff(Some(backoff))
    }

    /// An empty queue whose rate-limited adds take effect at once (still counting failures).
    pub fn synchronous() -> Self {
        Self::with_backoff(None)
    }

    fn with_backoff(backoff: Option<Backoff>) -> Self {
        let state = State {
            ready: VecDeque::new(),
            dirty: HashSet::default(),
            processing: HashSet::default(),
            failures: HashMap::default(),
            waiting: HashSet::default(),
            shut_down: false,
        };
        Self { state: Arc::new(Mutex::new(state)), notify: Arc::new(Notify::new()), backoff }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<K>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds an item unless it is already waiting to be processed.
    pub fn add(&self, item: K) {
        let mut s = self.lock();
        if s.shut_down || !s.dirty.insert(item.clone()) {
            return;
        }
        if !s.processing.contains(&item) {
            s.ready.push_back(item);
            drop(s);
            self.notify.notify_one();
        }
    }

    /// Adds an item after its back-off delay (at once on a synchronous queue), and counts a
    /// failure for it.
    pub fn add_rate_limited(&self, item: K) {
        let delay = {
            let mut s = self.lock();
            if s.shut_down {
                return;
            }
            let failures = s.failures.entry(item.clone()).or_insert(0);
            let exponent = *failures;
            *failures = failures.saturating_add(1);
            let Some(backoff) = self.backoff else {
                drop(s);
                self.add(item);
                return;
            };
            s.waiting.insert(item.clone());
            backoff.base.saturating_mul(2u32.saturating_pow(exponent)).min(backoff.max)
        };
        let queue = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            queue.lock().waiting.remove(&item);
            queue.add(item);
        });
    }

    /// Resets an item's failure count.
    pub fn forget(&self, item: &K) {
        self.lock().failures.remove(item);
    }

    /// Waits for the next item; `None` once the queue is shut down.
    pub async fn get(&self) -> Option<K> {
        loop {
            let notified = self.notify.notified();
            {
                let mut s = self.lock();
                if s.shut_down {
                    return None;
                }
                if let Some(item) = take_ready(&mut s) {
                    return Some(item);
                }
            }
            notified.await;
        }
    }

    /// The next ready item, without waiting; `None` when nothing is ready.
    pub fn try_get(&self) -> Option<K> {
        take_ready(&mut self.lock())
    }

    /// The items ready to be processed, in the order they will be handed out.
    pub fn ready_items(&self) -> Vec<K> {
        self.lock().ready.iter().cloned().collect()
    }

    /// Marks an item as processed; if it was added meanwhile, it is queued again.
    pub fn done(&self, item: &K) {
        let mut s = self.lock();
        s.processing.remove(item);
        if s.dirty.contains(item) {
            s.ready.push_back(item.clone());
            drop(s);
            self.notify.notify_one();
        }
    }

    /// Stops the queue: `get` returns `None` from now on.
    pub fn shut_down(&self) {
        self.lock().shut_down = true;
        self.notify.notify_waiters();
    }

    /// How many items are ready, in process, and waiting out a delay.
    pub fn depth(&self) -> QueueDepth {
        let s = self.lock();
        QueueDepth { ready: s.ready.len(), processing: s.processing.len(), waiting: s.waiting.len() }
    }

    /// The items waiting out a delay, for diagnostics.
    pub fn waiting_items(&self) -> Vec<K> {
        self.lock().waiting.iter().cloned().collect()
    }

    /// Failures counted for an item.
    pub fn failures(&self, item: &K) -> u32 {
        self.lock().failures.get(item).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn deduplicates_and_requeues_items_added_while_processing() {
        let q: WorkQueue<u32> = WorkQueue::new(Backoff::default());
        q.add(1);
        q.add(1);
        q.add(2);
        assert_eq!(q.depth().ready, 2);
        let one = q.get().await.unwrap();
        q.add(1); // while processing
        assert_eq!(q.depth(), QueueDepth { ready: 1, processing: 1, waiting: 0 });
        q.done(&one);
        assert_eq!(q.depth().ready, 2);
    }

    #[tokio::test]
    async fn rate_limited_items_back_off_exponentially_until_forgotten() {
        tokio::time::pause();
        let q: WorkQueue<u32> = WorkQueue::new(Backoff { base: Duration::from_millis(10), max: Duration::from_millis(25) });
        q.add_rate_limited(7);
        q.add_rate_limited(7);
        q.add_rate_limited(7);
        assert_eq!(q.failures(&7), 3);
        assert_eq!(q.depth().waiting, 1);
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert_eq!(q.get().await, Some(7));
        q.forget(&7);
        assert_eq!(q.failures(&7), 0);
    }

    #[test]
    fn a_synchronous_queue_requeues_at_once_behind_the_items_already_ready() {
        let q: WorkQueue<u32> = WorkQueue::synchronous();
        q.add(1);
        q.add(2);
        let one = q.try_get().unwrap();
        q.add_rate_limited(one);
        assert_eq!(q.ready_items(), [2]);
        q.done(&one);
        assert_eq!(q.ready_items(), [2, 1]);
        assert_eq!(q.failures(&1), 1);
        assert_eq!(q.depth().waiting, 0);
    }
}
