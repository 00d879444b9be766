//! The fake container runtime (the CRI side of the node): images, containers and pod
//! sandboxes, faults a scenario can inject into any call, and the log of calls the kubelet made
//! (so that "stopped before removal" can be checked).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

/// An image as `ListImages` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// The image ID.
    pub id: String,
    /// Size in bytes as the runtime reports it (shared layers counted in every image).
    pub size: i64,
    /// Pinned by the runtime (the sandbox image, typically): never garbage collected.
    pub pinned: bool,
    /// The runtime handler it was pulled for (`RuntimeClassInImageCriAPI`); empty for the default.
    pub runtime_handler: String,
    /// Bytes the filesystem actually gets back when the image goes, when not its whole size
    /// (layers shared with other images stay).
    pub released_bytes: Option<i64>,
}

impl Image {
    /// An unpinned image of the default runtime handler.
    pub fn new(id: &str, size: i64) -> Self {
        Self { id: id.into(), size, pinned: false, runtime_handler: String::new(), released_bytes: None }
    }
}

/// A container's CRI state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ContainerState {
    /// Created, never started: dead for GC.
    Created,
    /// Running: never collected.
    Running,
    /// Exited: dead.
    Exited,
    /// Unknown: dead, but stopped before removal.
    Unknown,
}

/// A container the kubelet manages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container {
    /// Container ID.
    pub id: String,
    /// UID of its pod (from the container's labels).
    pub pod_uid: String,
    /// Container name within the pod.
    pub name: String,
    /// Restart attempt.
    pub attempt: u32,
    /// Creation time: container MinAge is measured from it, not from the exit.
    pub created: DateTime<Utc>,
    /// When it exited, if known.
    pub finished: Option<DateTime<Utc>>,
    /// CRI state.
    pub state: ContainerState,
    /// ID of the image it runs.
    pub image_id: String,
    /// Runtime handler of that image.
    pub image_runtime_handler: String,
    /// Its pod sandbox, if any.
    pub sandbox_id: Option<String>,
    /// Bytes of its writable layer (and logs), given back to the container filesystem on removal.
    pub size: i64,
    /// Images mounted into it as image volumes (`ImageVolume`).
    pub image_volumes: Vec<String>,
}

/// A pod sandbox's CRI state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SandboxState {
    /// Ready: active, never removed.
    Ready,
    /// Not ready.
    NotReady,
}

/// A pod sandbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sandbox {
    /// Sandbox ID.
    pub id: String,
    /// UID of its pod.
    pub pod_uid: String,
    /// Attempt number.
    pub attempt: u32,
    /// CRI state.
    pub state: SandboxState,
    /// Creation time: the newest sandbox of a live pod is kept.
    pub created: DateTime<Utc>,
}

/// Faults injected into runtime calls, by call and object ID.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    /// `ListImages` fails with this text.
    pub list_images: Option<String>,
    /// Listing containers (`GetPods`) fails with this text.
    pub list_containers: Option<String>,
    /// Listing sandboxes fails with this text.
    pub list_sandboxes: Option<String>,
    /// `RemoveImage` of these image IDs fails.
    pub remove_image: BTreeSet<String>,
    /// `StopContainer` of these container IDs fails.
    pub stop_container: BTreeSet<String>,
    /// `RemoveContainer` of these container IDs fails.
    pub remove_container: BTreeSet<String>,
    /// `StopPodSandbox` of these sandbox IDs fails.
    pub stop_sandbox: BTreeSet<String>,
    /// `ContainerStatus` of these container IDs fails.
    pub container_status: BTreeSet<String>,
}

/// A call the kubelet made to the runtime, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuntimeCall {
    /// `RemoveImage(id, handler)`.
    RemoveImage(String),
    /// `StopContainer(id)`.
    StopContainer(String),
    /// `RemoveContainer(id)`.
    RemoveContainer(String),
    /// `StopPodSandbox(id)`.
    StopPodSandbox(String),
    /// `RemovePodSandbox(id)`.
    RemovePodSandbox(String),
}

/// The fake runtime's state.
#[derive(Clone, Debug, Default)]
pub struct Runtime {
    /// Images in `ListImages` order (duplicates allowed, as a runtime may report them).
    pub images: Vec<Image>,
    /// Containers, running or not.
    pub containers: Vec<Container>,
    /// Pod sandboxes.
    pub sandboxes: Vec<Sandbox>,
    /// Injected faults.
    pub faults: Faults,
    /// Calls made, in order.
    pub calls: Vec<RuntimeCall>,
}

/// `Err` naming the call when `id` is among the injected `faults`.
fn injected(faults: &BTreeSet<String>, call: &str, id: &str) -> Result<(), String> {
    if faults.contains(id) { Err(format!("failed to {call} {id:?}: injected fault")) } else { Ok(()) }
}

impl Runtime {
    /// `ListImages`.
    pub fn list_images(&self) -> Result<Vec<Image>, String> {
        match &self.faults.list_images {
            Some(e) => Err(e.clone()),
            None => Ok(self.images.clone()),
        }
    }

    /// Every container the kubelet manages, running or not (`GetPods(all=true)`).
    pub fn list_containers(&self) -> Result<Vec<Container>, String> {
        match &self.faults.list_containers {
            Some(e) => Err(e.clone()),
            None => Ok(self.containers.clone()),
        }
    }

    /// Every pod sandbox.
    pub fn list_sandboxes(&self) -> Result<Vec<Sandbox>, String> {
        match &self.faults.list_sandboxes {
            Some(e) => Err(e.clone()),
            None => Ok(self.sandboxes.clone()),
        }
    }

    /// `RemoveImage`: removes the first listed entry with that ID and handler.
    pub fn remove_image(&mut self, id: &str, handler: &str) -> Result<Image, String> {
        self.calls.push(RuntimeCall::RemoveImage(id.into()));
        injected(&self.faults.remove_image, "remove image", id)?;
        let at = self.images.iter().position(|i| i.id == id && i.runtime_handler == handler);
        let at = at.or_else(|| self.images.iter().position(|i| i.id == id));
        match at {
            Some(at) => Ok(self.images.remove(at)),
            None => Err(format!("image {id:?} not found")),
        }
    }

    /// `StopContainer`: the container exits.
    pub fn stop_container(&mut self, id: &str) -> Result<(), String> {
        self.calls.push(RuntimeCall::StopContainer(id.into()));
        injected(&self.faults.stop_container, "stop container", id)?;
        match self.containers.iter_mut().find(|c| c.id == id) {
            Some(c) => {
                c.state = ContainerState::Exited;
                Ok(())
            }
            None => Err(format!("container {id:?} not found")),
        }
    }

    /// `RemoveContainer`.
    pub fn remove_container(&mut self, id: &str) -> Result<Container, String> {
        self.calls.push(RuntimeCall::RemoveContainer(id.into()));
        injected(&self.faults.remove_container, "remove container", id)?;
        match self.containers.iter().position(|c| c.id == id) {
            Some(at) => Ok(self.containers.remove(at)),
            None => Err(format!("container {id:?} not found")),
        }
    }

    /// `StopPodSandbox`.
    pub fn stop_sandbox(&mut self, id: &str) -> Result<(), String> {
        self.calls.push(RuntimeCall::StopPodSandbox(id.into()));
        injected(&self.faults.stop_sandbox, "stop sandbox", id)?;
        if let Some(s) = self.sandboxes.iter_mut().find(|s| s.id == id) {
            s.state = SandboxState::NotReady;
        }
        Ok(())
    }

    /// `RemovePodSandbox`.
    pub fn remove_sandbox(&mut self, id: &str) -> Result<(), String> {
        self.calls.push(RuntimeCall::RemovePodSandbox(id.into()));
        self.sandboxes.retain(|s| s.id != id);
        Ok(())
    }

    /// `ContainerStatus`: the state of a container, an error when it does not exist (or a fault).
    pub fn container_status(&self, id: &str) -> Result<ContainerState, String> {
        injected(&self.faults.container_status, "get the status of container", id)?;
        self.containers.iter().find(|c| c.id == id).map(|c| c.state).ok_or_else(|| format!("container {id:?} not found"))
    }
}
