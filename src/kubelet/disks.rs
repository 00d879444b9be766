//! The node's filesystems and where things live on them. Images, writable layers and logs are
//! part of a filesystem's used bytes; removing one gives its bytes back to the filesystem that
//! holds it. Which filesystem that is depends on the layout:
//!
//! | Layout | images | container writable layers | logs, volumes |
//! |---|---|---|---|
//! | single filesystem | nodefs | nodefs | nodefs |
//! | dedicated image filesystem | imagefs | imagefs | nodefs |
//! | image filesystem split from the container filesystem (`KubeletSeparateDiskGC`) | imagefs | nodefs | nodefs |

/// How the node's disks are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DiskLayout {
    /// One filesystem for everything.
    #[default]
    Single,
    /// A dedicated image filesystem holding images and container writable layers.
    DedicatedImageFs,
    /// An image filesystem with only the images; writable layers on the node filesystem.
    SplitImageFs,
}

/// One filesystem's capacity and free space, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filesystem {
    /// Capacity; `None` when the stats provider does not report it.
    pub capacity: Option<i64>,
    /// Available bytes (may exceed the capacity: stats are not always consistent).
    pub available: i64,
}

impl Filesystem {
    /// A filesystem of `capacity` bytes with `available` free.
    pub fn new(capacity: i64, available: i64) -> Self {
        Self { capacity: Some(capacity), available }
    }

    /// Gives `bytes` back (a removed image, container or log).
    pub fn release(&mut self, bytes: i64) {
        self.available = self.available.saturating_add(bytes.max(0));
    }
}

impl Default for Filesystem {
    fn default() -> Self {
        Filesystem::new(100 << 30, 100 << 30)
    }
}

/// A filesystem of the node, by role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsRole {
    /// The node filesystem (kubelet root, logs, volumes).
    Node,
    /// The filesystem holding images.
    Image,
    /// The filesystem holding container writable layers.
    Container,
}

/// The node's disks.
#[derive(Clone, Debug, Default)]
pub struct Disks {
    /// The layout.
    pub layout: DiskLayout,
    /// The node filesystem.
    pub nodefs: Filesystem,
    /// The image filesystem when the layout has one (ignored for a single filesystem).
    pub imagefs: Filesystem,
    /// Reading the image filesystem's stats fails with this text.
    pub image_stats_error: Option<String>,
}

impl Disks {
    /// The filesystem playing `role` in this layout.
    pub fn fs(&self, role: FsRole) -> &Filesystem {
        match (role, self.layout) {
            (FsRole::Node, _) | (_, DiskLayout::Single) | (FsRole::Container, DiskLayout::SplitImageFs) => &self.nodefs,
            (FsRole::Image, _) | (FsRole::Container, DiskLayout::DedicatedImageFs) => &self.imagefs,
        }
    }

    /// The filesystem playing `role`, to change it.
    pub fn fs_mut(&mut self, role: FsRole) -> &mut Filesystem {
        match (role, self.layout) {
            (FsRole::Node, _) | (_, DiskLayout::Single) | (FsRole::Container, DiskLayout::SplitImageFs) => &mut self.nodefs,
            (FsRole::Image, _) | (FsRole::Container, DiskLayout::DedicatedImageFs) => &mut self.imagefs,
        }
    }

    /// `ImageFsStats`: the image filesystem's stats, or the injected error.
    pub fn image_fs_stats(&self) -> Result<Filesystem, String> {
        match &self.image_stats_error {
            Some(e) => Err(e.clone()),
            None => Ok(*self.fs(FsRole::Image)),
        }
    }
}
