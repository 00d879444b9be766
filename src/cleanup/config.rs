//! Which cleanup controllers run, and how: kube-controller-manager's defaults unless changed.

use crate::cleanup::mutant::Mutant;
use crate::cleanup::pass::Controller;

/// The cleanup controllers' configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The pod garbage collector (`pod-garbage-collector-controller`), if it runs.
    pub pod_gc: Option<crate::cleanup::pod_gc::Settings>,
    /// The deliberately broken rule, if any (never outside a check of the specification).
    pub mutant: Option<Mutant>,
}

impl Default for Config {
    /// Every controller, with kube-controller-manager's defaults.
    fn default() -> Self {
        Self { pod_gc: Some(crate::cleanup::pod_gc::Settings::default()), mutant: None }
    }
}

impl Config {
    /// No controller at all.
    pub fn none() -> Self {
        Self { pod_gc: None, mutant: None }
    }

    /// The controllers to run.
    pub(crate) fn controllers(&self) -> Vec<Box<dyn Controller>> {
        let mut controllers: Vec<Box<dyn Controller>> = Vec::new();
        if let Some(settings) = &self.pod_gc {
            controllers.push(Box::new(crate::cleanup::pod_gc::PodGc::new(settings.clone())));
        }
        controllers
    }
}
