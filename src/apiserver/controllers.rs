//! The simulated cluster components whose work a client of the API server observes during
//! deletion, run inside the fake API server. Each is the controller hook of its kind
//! ([`crate::apiserver::storage::hooks::Kind::reconcile`], implemented in
//! [`crate::apiserver::kinds`]): the namespace controller, the CRD finalizer and a node agent standing in for kubelets.
//! This module runs them over the objects awaiting them. The garbage collector and the cleanup
//! controllers (among them pvc-protection and pv-protection, see [`crate::cleanup`]) are
//! deliberately *not* here: they are ordinary API clients.

use crate::apiserver::storage::Storage;
use crate::apiserver::storage::store::ObjectKey;

impl Storage {
    /// One pass of every simulated controller over the objects awaiting them.
    pub fn run_controllers(&mut self, node_agent: bool) {
        let before = self.store.revision();
        self.controller_pass(node_agent);
        if self.store.revision() == before {
            self.controllers_quiescent_at = before;
        }
    }

    /// Whether the simulated controllers have nothing to do until time passes (and no Event's
    /// time to live is over).
    pub fn controllers_idle(&self) -> bool {
        let quiet = self.awaiting_controllers.is_empty() || self.controllers_quiescent_at == self.store.revision();
        quiet && !self.events_due()
    }

    fn controller_pass(&mut self, node_agent: bool) {
        let keys: Vec<ObjectKey> = self.awaiting_controllers.iter().cloned().collect();
        for key in keys {
            let Some(object) = self.store.get(&key).cloned() else {
                self.awaiting_controllers.remove(&key);
                continue;
            };
            let kind = self.kind_of_key(&key);
            if !kind.awaits_controller(&object) {
                self.awaiting_controllers.remove(&key);
                continue;
            }
            kind.reconcile(self, &key, &object, node_agent);
        }
    }
}
