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
use crate::kubelet::mutant::{self, Mutant};

/// A node-level reclaim function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReclaimFn {
    /// Container GC's `DeleteAllUnusedContainers`.
    DeleteAllUnusedContainers,
    /// Image GC's `DeleteUnusedImages`.
    DeleteUnusedImages,
}

/// The reclaim functions `signal` runs on `layout`, in order.
pub fn reclaim_functions(layout: DiskLayout, signal: Signal, active: Option<Mutant>) -> Vec<ReclaimFn> {
    let mut functions = table(layout, signal, active);
    if mutant::is(active, Mutant::ImagesReclaimedFirst) {
        functions.reverse();
    }
    functions
}

fn table(layout: DiskLayout, signal: Signal, active: Option<Mutant>) -> Vec<ReclaimFn> {
    use ReclaimFn::{DeleteAllUnusedContainers as Containers, DeleteUnusedImages as Images};
    enum Fs {
        Node,
        Image,
    }
    let fs = match signal {
        Signal::NodeFsAvailable | Signal::NodeFsInodesFree => Fs::Node,
        Signal::ImageFsAvailable | Signal::ImageFsInodesFree => Fs::Image,
        Signal::ContainerFsAvailable | Signal::ContainerFsInodesFree => match layout {
            DiskLayout::DedicatedImageFs => Fs::Image,
            _ => Fs::Node,
        },
        Signal::MemoryAvailable | Signal::PidAvailable => return Vec::new(),
    };
    match (layout, fs) {
        (DiskLayout::Single, _) | (DiskLayout::DedicatedImageFs, Fs::Image) => vec![Containers, Images],
        (DiskLayout::DedicatedImageFs, Fs::Node) if mutant::is(active, Mutant::DedicatedNodefsReclaims) => vec![Containers, Images],
        (DiskLayout::DedicatedImageFs, Fs::Node) => Vec::new(),
        (DiskLayout::SplitImageFs, _) if mutant::is(active, Mutant::SplitReclaimsBoth) => vec![Containers, Images],
        (DiskLayout::SplitImageFs, Fs::Node) => vec![Containers],
        (DiskLayout::SplitImageFs, Fs::Image) => vec![Images],
    }
}
