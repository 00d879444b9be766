//! A signal that a part of a [`crate::Cluster`] has finished something: the collector applied a
//! graph change or a work item, a monitor observed a revision, a controller's pass ended. Each
//! part raises its own after every step that may leave it settled, and
//! [`crate::Cluster::try_settle`] waits for one of them instead of looking again and again.
//! Each part is asked the same way whether it has settled ([`Settling`]).

use std::pin::Pin;

use tokio::sync::Notify;
use tokio::sync::futures::Notified;

/// Wakes whoever waits for the next step of one part of a cluster. Raising it with nobody
/// waiting costs an uncontended lock and leaves nothing behind.
#[derive(Debug, Default)]
pub struct Activity {
    notify: Notify,
}

impl Activity {
    /// Says that a step has ended: wakes every wait armed before.
    pub fn raise(&self) {
        self.notify.notify_waiters();
    }

    /// A wait for the next [`Activity::raise`], armed at once: a raise between this call and
    /// the wait's first poll still ends it, so a waiter checks its condition after arming.
    pub fn armed(&self) -> Pin<Box<Notified<'_>>> {
        let mut wait = Box::pin(self.notify.notified());
        wait.as_mut().enable();
        wait
    }
}

/// A part of a [`crate::Cluster`] (the API server's own controllers, the collector, the workload
/// and cleanup controllers) as the cluster asks it whether it has settled.
pub trait Settling {
    /// What the part still has to do before it has seen every change to what it reads and has
    /// nothing left to do; empty when settled. `revision_of(group, resource)` is the revision
    /// of the resource's last write (see [`crate::apiserver::ApiServer::resource_revision`]).
    fn pending(&self, revision_of: &dyn Fn(&str, &str) -> u64) -> Vec<String>;

    /// Raised after every step that may leave the part settled.
    fn activity(&self) -> &Activity;
}
