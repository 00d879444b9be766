//! The real Kubernetes pieces, built from the Go module in `upstream/` (one pinned release).
//!
//! - [`build`]: `go build` of etcd, kube-apiserver, kube-controller-manager, kubectl and the
//!   kubelet driver, cached.
//! - [`control_plane`]: the control plane on loopback, or the controller manager alone against
//!   any API server.
//! - [`pki`]: the cluster CA, serving certificate and service-account key it needs.
//! - [`process`]: one upstream program run as a child with its log.
//! - [`shared`]: one control plane shared by every test of a test process.

pub mod build;
pub mod control_plane;
pub mod pki;
pub mod process;
pub mod shared;
