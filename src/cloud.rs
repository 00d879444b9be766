//! A fake cloud that a test controls: which machines back the cluster's Nodes. A Node's
//! instance runs unless the test says otherwise; a machine shut down or gone runs no kubelet
//! (the fake's node agent for it stops), and the cloud node lifecycle controller
//! ([`crate::cleanup::cloud_nodes`]) asks it, as upstream's asks a cloud provider's
//! `InstancesV2` (`InstanceExists`, `InstanceShutdown`), what became of a Node that stopped
//! being Ready.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::sync::Notify;
use tokio::sync::futures::Notified;

/// What the cloud has of a Node's machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Instance {
    /// The machine exists and runs (every Node's, until a test says otherwise).
    #[default]
    Running,
    /// The machine exists but is shut down.
    Shutdown,
    /// The cloud no longer has the machine.
    Gone,
}

/// The fake cloud. Clones share it.
#[derive(Clone, Debug, Default)]
pub struct Cloud(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    instances: Mutex<BTreeMap<String, Instance>>,
    /// How many times the test changed the cloud.
    generation: AtomicU64,
    /// Woken on every change.
    changed: Notify,
}

impl Cloud {
    /// A cloud whose every instance runs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Says what became of the machine of Node `node`.
    pub fn set(&self, node: &str, instance: Instance) {
        self.0.instances.lock().unwrap_or_else(|e| e.into_inner()).insert(node.to_string(), instance);
        self.0.generation.fetch_add(1, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }

    /// The machine of Node `node`.
    pub fn instance(&self, node: &str) -> Instance {
        self.0.instances.lock().unwrap_or_else(|e| e.into_inner()).get(node).copied().unwrap_or_default()
    }

    /// How many changes the cloud has seen: a controller that read it at one generation has
    /// not seen what came after.
    pub fn generation(&self) -> u64 {
        self.0.generation.load(Ordering::SeqCst)
    }

    /// A wait for the next change, armed at once (a change before its first poll still ends it).
    pub fn changed(&self) -> Pin<Box<Notified<'_>>> {
        let mut wait = Box::pin(self.0.changed.notified());
        wait.as_mut().enable();
        wait
    }
}

#[cfg(test)]
mod tests {
    use super::{Cloud, Instance};

    #[test]
    fn instances_run_until_told_otherwise_and_clones_share_the_cloud() {
        let cloud = Cloud::new();
        let shared = cloud.clone();
        assert_eq!(cloud.instance("node-1"), Instance::Running);
        shared.set("node-1", Instance::Gone);
        assert_eq!((cloud.instance("node-1"), cloud.generation()), (Instance::Gone, 1));
        assert_eq!(serde_json::to_value(Instance::Shutdown).unwrap(), "shutdown");
    }
}
