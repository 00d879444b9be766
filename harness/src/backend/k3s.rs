//! The k3s backend (cargo feature `k3s`, off by default): a single-node k3s cluster in a
//! container started through testcontainers, for users with a Docker engine but no kind. k3s
//! runs the real kube-controller-manager, so its garbage collector does the work; from then on
//! it is the kubeconfig backend. The container is removed when the run ends.

use std::time::Duration;

use anyhow::Context;
use kube::config::Kubeconfig;
use testcontainers_modules::k3s::{K3s, KUBE_SECURE_PORT};
use testcontainers_modules::testcontainers::ImageExt;
use testcontainers_modules::testcontainers::runners::AsyncRunner;

use crate::backend::kubeconfig::KubeconfigBackend;

/// The k3s release started: the Kubernetes minor version the harness is built for.
const K3S_TAG: &str = "v1.33.1-k3s1";

/// Starts k3s (privileged, as k3s needs) and connects to it once it serves.
pub async fn start(hold: Duration, timeout: Duration) -> anyhow::Result<KubeconfigBackend> {
    let conf = tempfile::tempdir()?;
    println!("starting k3s {K3S_TAG} in a container (the first run pulls the image)");
    let container = K3s::default()
        .with_conf_mount(conf.path())
        .with_tag(K3S_TAG)
        .with_privileged(true)
        .with_userns_mode("host")
        .start()
        .await
        .context("cannot start the k3s container (is a Docker engine running?)")?;
    let port = container.get_host_port_ipv4(KUBE_SECURE_PORT).await.context("k3s exposes no API port")?;
    let yaml = container.image().read_kube_config().context("cannot read the kubeconfig k3s wrote")?;
    let mut kubeconfig = Kubeconfig::from_yaml(&yaml).context("k3s wrote an invalid kubeconfig")?;
    // k3s names its address inside the container; the API is reached through the mapped port.
    for cluster in kubeconfig.clusters.iter_mut().filter_map(|c| c.cluster.as_mut()) {
        cluster.server = Some(format!("https://127.0.0.1:{port}"));
    }
    let backend = KubeconfigBackend::from_kubeconfig(kubeconfig, hold, timeout).await?;
    Ok(backend.keeping((container, conf)))
}
