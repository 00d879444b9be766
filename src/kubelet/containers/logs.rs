//! Pod logs (`evictPodLogsDirectories`): once all config sources are ready, the log directory of
//! every pod whose content may be removed goes (the pod UID is the directory name's last `_`
//! field); always — ready or not — dangling legacy container log symlinks go, unless their
//! container still exists and has not exited (its log may be mid-rotation).

use crate::kubelet::disks::FsRole;
use crate::kubelet::logs::{LEGACY_CONTAINER_LOGS_DIR, container_id_of_symlink, pod_uid_of_log_dir};
use crate::kubelet::mutant::Mutant;
use crate::kubelet::node::Node;
use crate::kubelet::runtime::ContainerState;

/// `evictPodLogsDirectories`.
pub fn evict_pod_logs_directories(node: &mut Node, all_sources_ready: bool) -> Result<(), String> {
    if all_sources_ready || node.is(Mutant::LogDirsIgnoreSourcesReady) {
        if let Some(e) = &node.logs.read_error {
            return Err(format!("failed to read podLogsDirectory {:?}: {e}", node.logs.dir));
        }
        for dir in node.logs.pod_dirs.clone() {
            let uid = if node.is(Mutant::LogDirUidFirstField) {
                dir.name.split('_').next().unwrap_or_default()
            } else {
                pod_uid_of_log_dir(&dir.name)
            };
            if !node.should_pod_content_be_removed(uid) {
                continue;
            }
            let path = format!("{}/{}", node.logs.dir, dir.name);
            node.logs.pod_dirs.retain(|d| d.name != dir.name);
            node.logs.removed.push(path);
            node.disks.fs_mut(FsRole::Node).release(dir.size);
        }
    }
    if !all_sources_ready && node.is(Mutant::SymlinksNeedSourcesReady) {
        return Ok(());
    }
    for link in node.logs.symlinks.clone() {
        if link.target_exists {
            continue;
        }
        if let Some(id) = container_id_of_symlink(&link.name)
            && let Ok(state) = node.runtime.container_status(id)
            && state != ContainerState::Exited
        {
            continue;
        }
        node.logs.symlinks.retain(|l| l.name != link.name);
        node.logs.removed.push(format!("{LEGACY_CONTAINER_LOGS_DIR}/{}", link.name));
    }
    Ok(())
}
