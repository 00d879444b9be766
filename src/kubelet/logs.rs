//! The node's log files that container GC cleans: pod log directories under `podLogsDir`
//! (`/var/log/pods/<namespace>_<name>_<uid>`, or the legacy `<uid>`) and the legacy container
//! log symlinks under `/var/log/containers` (`<pod>_<namespace>_<container>-<id>.log`).

/// A pod log directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogDir {
    /// Its name in the pod logs directory.
    pub name: String,
    /// Bytes given back to the node filesystem when it is removed.
    pub size: i64,
}

/// A legacy container log symlink.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogSymlink {
    /// Its file name in `/var/log/containers`.
    pub name: String,
    /// Whether the log file it points to still exists.
    pub target_exists: bool,
}

/// The node's logs.
#[derive(Clone, Debug)]
pub struct PodLogs {
    /// `podLogsDir` (default `/var/log/pods`).
    pub dir: String,
    /// Its entries, in directory listing order.
    pub pod_dirs: Vec<LogDir>,
    /// Reading the directory fails with this text.
    pub read_error: Option<String>,
    /// The legacy symlinks.
    pub symlinks: Vec<LogSymlink>,
    /// Paths removed so far, in order (`RemoveAll` and `Remove` calls).
    pub removed: Vec<String>,
}

impl Default for PodLogs {
    fn default() -> Self {
        Self { dir: "/var/log/pods".into(), pod_dirs: Vec::new(), read_error: None, symlinks: Vec::new(), removed: Vec::new() }
    }
}

/// The directory holding the legacy container log symlinks.
pub const LEGACY_CONTAINER_LOGS_DIR: &str = "/var/log/containers";

/// The namespace of every pod in the model (whose pods have a UID that is also their name).
pub const POD_NAMESPACE: &str = "default";

/// The legacy symlink name of container `id` named `container` in pod `pod`
/// (`legacyLogSymlink`: `<pod>_<namespace>_<container>-<id>`, cut to ext4's 255 characters with
/// its `.log`).
pub fn legacy_symlink_name(pod: &str, container: &str, id: &str) -> String {
    let mut stem = format!("{pod}_{POD_NAMESPACE}_{container}-{id}");
    let mut end = stem.len().min(255 - ".log".len());
    while !stem.is_char_boundary(end) {
        end -= 1;
    }
    stem.truncate(end);
    stem + ".log"
}

/// Whether removing a container removes its legacy log symlink first (`removeContainerLog`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymlinkGoesWithContainer(pub bool);

impl PodLogs {
    /// Removes the legacy symlink named `name`, if there is one (a missing one is no error).
    pub fn remove_symlink(&mut self, name: &str) {
        if let Some(at) = self.symlinks.iter().position(|l| l.name == name) {
            self.symlinks.remove(at);
            self.removed.push(format!("{LEGACY_CONTAINER_LOGS_DIR}/{name}"));
        }
    }
}

/// The pod UID a log directory belongs to: the last `_`-separated field of its name.
pub fn pod_uid_of_log_dir(name: &str) -> &str {
    name.rsplit('_').next().unwrap_or(name)
}

/// The shortest container ID the kubelet reads from a legacy symlink name
/// (`getContainerIDFromLegacyLogSymlink`: at least 6 characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymlinkIdLength(pub usize);

impl Default for SymlinkIdLength {
    fn default() -> Self {
        Self(6)
    }
}

/// The container ID in a legacy symlink name: what follows the last `-`, without `.log`;
/// `None` when the name does not end so, or the ID is shorter than `shortest`.
pub fn container_id_of_symlink(name: &str, shortest: SymlinkIdLength) -> Option<&str> {
    let last = name.rsplit('-').next().unwrap_or(name);
    last.strip_suffix(".log").filter(|id| !id.is_empty() && id.len() >= shortest.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_as_upstream_parses_them() {
        assert_eq!(pod_uid_of_log_dir("ns_name_321"), "321");
        assert_eq!(pod_uid_of_log_dir("123"), "123");
        assert_eq!(pod_uid_of_log_dir(""), "");
        let six = SymlinkIdLength::default();
        assert_eq!(container_id_of_symlink("web_default_nginx-abc123.log", six), Some("abc123"));
        assert_eq!(container_id_of_symlink("plain1.log", six), Some("plain1"));
        assert_eq!(container_id_of_symlink("web_default_nginx-abc.log", six), None);
        assert_eq!(container_id_of_symlink("web_default_nginx-.log", six), None);
        assert_eq!(container_id_of_symlink("web_default_nginx-abc", six), None);
    }
}
