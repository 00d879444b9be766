//! The reference kubelet model: node-level garbage collection of images, dead containers,
//! sandboxes and pod logs, and the eviction manager's reclaim under disk pressure, over a fake
//! container runtime and fake filesystems on a virtual clock.
//!
//! It mirrors the kubelet of Kubernetes v1.37, the release `upstream/` pins
//! (`pkg/kubelet/images/image_gc_manager.go`, `pkg/kubelet/kuberuntime/kuberuntime_gc.go`,
//! `pkg/kubelet/eviction`, and the `KubeletConfiguration` validation), down to integer
//! truncation, tie-breaks and message texts; `kubegc kubelet-diff` compares it with that code.
//! Nothing here talks to an API server: the kubelet decides alone, on its node.
//!
//! # Layout
//!
//! - [`node`]: the fake node everything acts on — [`runtime`] (images, containers, sandboxes,
//!   injected faults, the calls made), [`disks`] (node, image and container filesystems),
//!   [`pods`] (what the pod workers know of each pod), [`logs`] (pod log directories), events.
//! - [`images`]: image garbage collection — policy validation, detection records, eviction
//!   order, threshold arithmetic, and the manager (`GarbageCollect`, `DeleteUnusedImages`).
//! - [`containers`]: container, sandbox and pod-log garbage collection.
//! - [`config`]: `KubeletConfiguration` image-GC fields (defaults, validation) and the container
//!   GC flags.
//! - [`loops`]: the kubelet's periodic GC loops and their failure events.
//! - [`eviction`]: eviction signals and thresholds, which reclaim functions each signal runs, and
//!   the eviction manager's synchronize pass.
//! - [`time`] and [`quantity`]: Go's time and duration semantics, and byte quantities.
//! - [`mutant`]: deliberately wrong variants of the model, for showing that the specification
//!   notices each of them, and the seam they pass through. The rules compute decisions as
//!   values and know nothing of mutants; the model passes each decision through
//!   [`mutant::Mutable`] where it leaves its rule.
//! - [`mutations`]: what each mutant makes of the decision of the rule it breaks.

pub mod config;
pub mod containers;
pub mod disks;
pub mod errors;
pub mod events;
pub mod eviction;
pub mod images;
pub mod logs;
pub mod loops;
pub mod mutant;
pub mod mutations;
pub mod node;
pub mod pods;
pub mod quantity;
pub mod runtime;
pub mod time;

pub use node::Node;
