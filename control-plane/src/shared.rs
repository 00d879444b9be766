//! One control plane per set of controllers, shared by every test of a test process.
//!
//! Tests run on threads that come and go, and each `#[tokio::test]` has a runtime of its own,
//! but the upstream programs must outlive them all: they die with the thread that started them
//! (PR_SET_PDEATHSIG). So each plane is started on a thread of its own that never ends, and it
//! is stopped, its files removed, when the process exits. Tests share it through its kubeconfig
//! and keep out of each other's way with namespaces of their own ([`namespace`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use kube::api::{Api, PostParams};

use super::build::Upstream;
use super::control_plane::ControlPlane;

/// The kubeconfig of each started plane by its `--controllers`, or why it did not start.
static KUBECONFIGS: Mutex<Option<HashMap<&'static str, Result<PathBuf, String>>>> = Mutex::new(None);

/// The running planes, stopped at exit.
static PLANES: Mutex<Vec<ControlPlane>> = Mutex::new(Vec::new());

/// The admin kubeconfig of this process's control plane running `controllers` (see
/// [`crate::control_plane`]'s constants), started (and built) on first use.
pub fn kubeconfig(controllers: &'static str) -> anyhow::Result<PathBuf> {
    let mut started = KUBECONFIGS.lock().unwrap_or_else(|e| e.into_inner());
    let started = started.get_or_insert_with(HashMap::new);
    let kubeconfig = started.entry(controllers).or_insert_with(|| start(controllers).map_err(|e| format!("{e:#}")));
    kubeconfig.clone().map_err(|e| anyhow!("the shared control plane ({controllers}) did not start: {e}"))
}

/// Starts a plane on a thread that never ends, and returns its kubeconfig once it is ready.
fn start(controllers: &'static str) -> anyhow::Result<PathBuf> {
    static AT_EXIT: Once = Once::new();
    // SAFETY: `stop_all` is an `extern "C" fn` with no arguments, as `atexit` wants.
    AT_EXIT.call_once(|| unsafe {
        libc::atexit(stop_all);
    });
    let (ready, started) = std::sync::mpsc::channel();
    std::thread::Builder::new().name(format!("control plane ({controllers})")).spawn(move || {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(e) => return drop(ready.send(Err(anyhow::Error::from(e)))),
        };
        match runtime.block_on(ControlPlane::start(&Upstream::locate(), controllers)) {
            Ok(plane) => {
                let _ = ready.send(Ok(plane.kubeconfig().to_path_buf()));
                PLANES.lock().unwrap_or_else(|e| e.into_inner()).push(plane);
                loop {
                    std::thread::park();
                }
            }
            Err(e) => drop(ready.send(Err(e))),
        }
    })?;
    started.recv().context("the control plane's thread ended")?
}

/// Stops every plane and removes its files; runs when the process exits.
extern "C" fn stop_all() {
    let planes = std::mem::take(&mut *PLANES.lock().unwrap_or_else(|e| e.into_inner()));
    drop(planes);
}

/// How long a new namespace may wait for its `default` ServiceAccount (the service-account
/// controller makes it; until then the ServiceAccount admission plugin refuses every Pod).
const SERVICE_ACCOUNT_TIMEOUT: Duration = Duration::from_secs(30);

/// Creates a namespace named `<prefix>-<random>` and returns its name once its `default`
/// ServiceAccount exists.
pub async fn namespace(client: &kube::Client, prefix: &str) -> anyhow::Result<String> {
    let mut ns = Namespace::default();
    ns.metadata.generate_name = Some(format!("{prefix}-"));
    let created = Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &ns).await?;
    let name = created.metadata.name.context("a created namespace has a name")?;
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), &name);
    let since = Instant::now();
    while accounts.get_opt("default").await?.is_none() {
        if since.elapsed() > SERVICE_ACCOUNT_TIMEOUT {
            bail!("namespace {name} has no default ServiceAccount after {} s", SERVICE_ACCOUNT_TIMEOUT.as_secs());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(name)
}
