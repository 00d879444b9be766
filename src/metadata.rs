//! Kubernetes metadata names that both halves of garbage collection share: the API server puts
//! these finalizers on an object being deleted, the collector acts on them and removes them. One
//! module both import, so that neither half depends on the other for a name.

/// The `orphan` finalizer: the object's dependents lose their references to it before it goes.
pub const FINALIZER_ORPHAN: &str = "orphan";
/// The `foregroundDeletion` finalizer: the object waits for its blocking dependents to go first.
pub const FINALIZER_FOREGROUND: &str = "foregroundDeletion";
