//! Pod logs (`evictPodLogsDirectories`): once all config sources are ready, the log directory of
//! every pod whose content may be removed goes (the pod UID is the directory name's last `_`
//! field); always — ready or not — dangling legacy container log symlinks go, unless their
//! container still exists and has not exited (its log may be mid-rotation) — which the kubelet
//! can only ask when the name carries a container ID of at least 6 characters.

use crate::kubelet::containers::{GatedStep, gate_open};
use crate::kubelet::disks::FsRole;
use crate::kubelet::logs::{SymlinkIdLength, container_id_of_symlink, pod_uid_of_log_dir};
use crate::kubelet::mutant::Mutable;
use crate::kubelet::node::Node;
use crate::kubelet::runtime::ContainerState;

/// The pod a log directory belongs to, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogDirPod<'a> {
    /// The directory's name.
    pub dir: &'a str,
    /// The pod's UID: the name's last `_` field.
    pub uid: &'a str,
}

impl<'a> LogDirPod<'a> {
    /// The pod of the directory named `dir`.
    pub fn of(dir: &'a str) -> Self {
        Self { dir, uid: pod_uid_of_log_dir(dir) }
    }
}

/// `evictPodLogsDirectories`.
pub fn evict_pod_logs_directories(node: &mut Node, all_sources_ready: bool) -> Result<(), String> {
    if gate_open(node, GatedStep::PodLogDirs, all_sources_ready) {
        if let Some(e) = &node.logs.read_error {
            return Err(format!("failed to read podLogsDirectory {:?}: {e}", node.logs.dir));
        }
        for dir in node.logs.pod_dirs.clone() {
            let pod = LogDirPod::of(&dir.name).mutated(node.mutant);
            if !node.should_pod_content_be_removed(pod.uid) {
                continue;
            }
            let path = format!("{}/{}", node.logs.dir, dir.name);
            node.logs.pod_dirs.retain(|d| d.name != dir.name);
            node.logs.removed.push(path);
            node.disks.fs_mut(FsRole::Node).release(dir.size);
        }
    }
    if !gate_open(node, GatedStep::LogSymlinks, all_sources_ready) {
        return Ok(());
    }
    for link in node.logs.symlinks.clone() {
        if link.target_exists {
            continue;
        }
        if let Some(id) = container_id_of_symlink(&link.name, SymlinkIdLength::default().mutated(node.mutant))
            && let Ok(state) = node.runtime.container_status(id)
            && state != ContainerState::Exited
        {
            continue;
        }
        node.logs.remove_symlink(&link.name);
    }
    Ok(())
}
