//! Runs feature files against a backend with cucumber: each scenario gets a fresh world bound
//! to the backend and its own namespace (deleted afterwards); scenarios the backend cannot run
//! are left out and listed.

use std::path::PathBuf;
use std::sync::Arc;

use cucumber::gherkin::tagexpr::TagOperation;
use cucumber::tag::Ext as _;
use cucumber::writer::Stats as _;
use cucumber::{World, WriterExt, writer};
use futures::FutureExt;
use kube::api::{Api, DeleteParams};

use crate::backend::Backend;
use crate::world::KubeWorld;

/// What to run and how.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Feature files or directories.
    pub features: Vec<PathBuf>,
    /// A tag expression (`@upstream and not @slow`) scenarios must match.
    pub tags: Option<TagOperation>,
    /// Scenarios run at once.
    pub concurrency: usize,
    /// Stop at the first failure.
    pub fail_fast: bool,
}

/// The outcome of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Whether any step failed (or a scenario could not run when selected).
    pub failed: bool,
}

fn tags_of(feature: &cucumber::gherkin::Feature, scenario: &cucumber::gherkin::Scenario) -> Vec<String> {
    feature.tags.iter().chain(&scenario.tags).cloned().collect()
}

/// Deletes what a scenario made: its namespaces and custom resource definitions.
async fn cleanup(world: &mut KubeWorld) {
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(world.client());
    for ns in [world.namespace.take(), world.other_namespace.take()].into_iter().flatten() {
        let _ = namespaces.delete(&ns, &DeleteParams::background()).await;
    }
    let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> = Api::all(world.client());
    for (resource, _) in world.custom_kinds.values() {
        let _ = crds.delete(&format!("{}.{}", resource.plural, resource.group), &DeleteParams::background()).await;
    }
}

/// Runs the features on `backend`.
pub async fn run(backend: Arc<dyn Backend>, options: RunOptions) -> Outcome {
    let mut failed = false;
    for path in &options.features {
        let (for_world, for_filter) = (backend.clone(), backend.clone());
        let tags = options.tags.clone();
        let cucumber = KubeWorld::cucumber()
            .max_concurrent_scenarios(options.concurrency.max(1))
            .before(move |_, _, _, world| {
                world.backend = Some(for_world.clone());
                async {}.boxed_local()
            })
            .after(|_, _, _, _, world| {
                async move {
                    if let Some(world) = world {
                        cleanup(world).await;
                    }
                }
                .boxed_local()
            })
            .with_writer(writer::Basic::stdout().summarized())
            .with_cli(cucumber::cli::Opts::<_, _, _, cucumber::cli::Empty>::default());
        let cucumber = if options.fail_fast { cucumber.fail_fast() } else { cucumber };
        let result = cucumber
            .filter_run(path, move |feature, _, scenario| {
                let t = tags_of(feature, scenario);
                if !tags.as_ref().is_none_or(|expr| expr.eval(t.iter())) {
                    return false;
                }
                match for_filter.can_run(&t) {
                    Ok(()) => true,
                    Err(why) => {
                        println!("skipped on {}: {} ({why})", for_filter.name(), scenario.name);
                        false
                    }
                }
            })
            .await;
        failed |= result.execution_has_failed() || result.parsing_errors() > 0;
    }
    Outcome { failed }
}
