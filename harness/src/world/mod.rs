//! The worlds scenarios run in, one per kind of scenario (as the cucumber book advises): each
//! kind registers its own steps and keeps only the state those steps need.
//!
//! - [`api`]: [`KubeWorld`], for scenarios on an API server (the fake one or a cluster): the
//!   backend, the scenario's namespaces, the objects it created, the last answers.
//! - [`kubelet`]: [`KubeletWorld`], for `@kubelet` scenarios: a fake node run by the reference
//!   kubelet model or by upstream's kubelet code.
//! - [`explain`]: why a check on an API server failed, for its failure message.
//! - [`cleanup`]: deleting what a scenario made on an API server.
//!
//! [`Scenario`] says which world runs which scenarios, and what the runner asks of each.
//!
//! [`KubeWorld`]: api::KubeWorld
//! [`KubeletWorld`]: kubelet::KubeletWorld

pub mod api;
pub mod cleanup;
pub mod explain;
pub mod kubelet;

use std::sync::Arc;

use api::KubeWorld;
use cucumber::gherkin::Feature;
use kubelet::KubeletWorld;

use crate::backend::Backend;

/// The result type of steps: a failure message explains what went wrong.
pub type StepResult = Result<(), String>;

/// What a run gives every new world besides its backend.
#[derive(Clone, Debug, Default)]
pub struct Binding {
    /// The kubelet driver that runs `@kubelet` scenarios on upstream's kubelet code (the
    /// kubelet model runs them when `None`).
    pub kubelet_driver: Option<std::path::PathBuf>,
}

/// What the runner asks of a kind of scenario's world, besides being a cucumber world with
/// registered steps.
pub trait Scenario: cucumber::World + cucumber::codegen::WorldInventory + std::fmt::Debug {
    /// Whether a scenario with these tags (its feature's and its own, without `@`) is of this
    /// kind.
    fn runs(tags: &[String]) -> bool;

    /// Readies a new world to run a scenario of `feature` on `backend` as `binding` says, before
    /// its first step (by default, nothing).
    fn bind(&mut self, _backend: &Arc<dyn Backend>, _feature: &Feature, _binding: &Binding) {}

    /// Deletes what the scenario made on the backend, after its last step (by default,
    /// nothing).
    fn cleanup(&mut self) -> impl Future<Output = ()> {
        async {}
    }
}

impl Scenario for KubeWorld {
    /// Every scenario that is not a kubelet one.
    fn runs(tags: &[String]) -> bool {
        !KubeletWorld::runs(tags)
    }

    fn bind(&mut self, backend: &Arc<dyn Backend>, feature: &Feature, _binding: &Binding) {
        self.backend = Some(backend.clone());
        self.feature_dir = feature.path.as_deref().and_then(std::path::Path::parent).map(std::path::Path::to_path_buf);
    }

    fn cleanup(&mut self) -> impl Future<Output = ()> {
        cleanup::cleanup(self)
    }
}

impl Scenario for KubeletWorld {
    /// The scenarios tagged `@kubelet`.
    fn runs(tags: &[String]) -> bool {
        tags.iter().any(|t| t == "kubelet")
    }

    /// Runs the scenario on upstream's kubelet code when the binding names a driver.
    fn bind(&mut self, _backend: &Arc<dyn Backend>, _feature: &Feature, binding: &Binding) {
        self.upstream_driver = binding.kubelet_driver.clone();
    }
}
