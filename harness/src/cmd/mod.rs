//! One module per subcommand.

pub mod chaos;
pub mod corpus;
pub mod coverage;
pub mod e2e;
pub mod fuzz;
pub mod gc;
pub mod kubelet_diff;
pub mod list;
pub mod mutants;
pub mod program;
pub mod run;
pub mod serve;
pub mod settle;
pub mod steps;
pub mod upstream;

/// The client configuration of `path`'s current context.
pub async fn kube_config(path: &std::path::Path) -> anyhow::Result<kube::Config> {
    use anyhow::Context;
    let kubeconfig = kube::config::Kubeconfig::read_from(path).with_context(|| format!("cannot read kubeconfig {}", path.display()))?;
    kube::Config::from_custom_kubeconfig(kubeconfig, &kube::config::KubeConfigOptions::default()).await.context("invalid kubeconfig")
}
