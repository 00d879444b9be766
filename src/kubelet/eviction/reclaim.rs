//! Which node-level reclaim functions a signal runs before any pod is evicted
//! (`buildSignalToNodeReclaimFuncs`), chosen once from the disk layout:
//!
//! | Layout | nodefs.* | imagefs.* | containerfs.* |
//! |---|---|---|---|
//! | single filesystem | containers, then images | containers, then images | as nodefs |
//! | dedicated image filesystem | none (only pod eviction) | containers, then images | as imagefs |
//! | image filesystem split from the container filesystem | containers | images | as nodefs |
//!
//! Memory and PID signals reclaim nothing at node level.

use crate::kubelet::disks::DiskLayout;
use crate::kubelet::eviction::Signal;
use crate::kubelet::mutant::{Mutable, Mutant};

/// A node-level reclaim function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReclaimFn {
    /// Container GC's `DeleteAllUnusedContainers`.
    DeleteAllUnusedContainers,
    /// Image GC's `DeleteUnusedImages`.
    DeleteUnusedImages,
}

/// The filesystem a disk signal is about, as far as reclaim goes (a `containerfs` signal is
/// about the filesystem the writable layers live on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalFs {
    /// The node filesystem.
    Node,
    /// The image filesystem.
    Image,
}

/// The reclaim functions a signal runs, with what they were chosen from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reclaim {
    /// The disk layout.
    pub layout: DiskLayout,
    /// The filesystem of the signal; `None` for memory and PID signals.
    pub fs: Option<SignalFs>,
    /// The functions, in order.
    pub functions: Vec<ReclaimFn>,
}

impl Reclaim {
    /// What `signal` runs on `layout` (the table above).
    pub fn of(layout: DiskLayout, signal: Signal) -> Self {
        use ReclaimFn::{DeleteAllUnusedContainers as Containers, DeleteUnusedImages as Images};
        let fs = match signal {
            Signal::NodeFsAvailable | Signal::NodeFsInodesFree => Some(SignalFs::Node),
            Signal::ImageFsAvailable | Signal::ImageFsInodesFree => Some(SignalFs::Image),
            Signal::ContainerFsAvailable | Signal::ContainerFsInodesFree => match layout {
                DiskLayout::DedicatedImageFs => Some(SignalFs::Image),
                _ => Some(SignalFs::Node),
            },
            Signal::MemoryAvailable | Signal::PidAvailable => None,
        };
        let functions = match (layout, fs) {
            (_, None) | (DiskLayout::DedicatedImageFs, Some(SignalFs::Node)) => Vec::new(),
            (DiskLayout::Single, _) | (DiskLayout::DedicatedImageFs, Some(SignalFs::Image)) => vec![Containers, Images],
            (DiskLayout::SplitImageFs, Some(SignalFs::Node)) => vec![Containers],
            (DiskLayout::SplitImageFs, Some(SignalFs::Image)) => vec![Images],
        };
        Self { layout, fs, functions }
    }
}

/// The reclaim functions `signal` runs on `layout`, in order, on a kubelet running with `active`.
pub fn reclaim_functions(layout: DiskLayout, signal: Signal, active: Option<Mutant>) -> Vec<ReclaimFn> {
    Reclaim::of(layout, signal).mutated(active).functions
}
