//! The external-GC backend: the fake apiserver on a TCP port with the reference collector off,
//! and a third party's garbage collector started from a command line with `{kubeconfig}`
//! replaced by a kubeconfig for that port. Its inner state is unknown, so "settled" is a hold
//! time (after the apiserver's own simulated controllers are idle).

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context;
use futures::future::BoxFuture;
use kubegc::apiserver::ApiServer;
use kubegc::apiserver::kubeconfig::kubeconfig_yaml;

use crate::backend::Backend;

/// The fake apiserver served over TCP plus an external collector process.
pub struct ExternalGcBackend {
    server: ApiServer,
    child: Mutex<Child>,
    hold: Duration,
    timeout: Duration,
    _dir: tempfile::TempDir,
    _serving: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for ExternalGcBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalGcBackend").field("hold", &self.hold).finish()
    }
}

impl ExternalGcBackend {
    /// Serves `server` on a free loopback port, writes its kubeconfig, and starts `command`
    /// (run by `sh -c`) with `{kubeconfig}` replaced by that file's path.
    pub async fn start(server: ApiServer, command: &str, hold: Duration, timeout: Duration) -> anyhow::Result<Self> {
        let (addr, serving) = server.serve("127.0.0.1:0".parse().expect("valid")).await.context("cannot listen on loopback")?;
        let dir = tempfile::tempdir()?;
        let kubeconfig: PathBuf = dir.path().join("kubeconfig");
        std::fs::write(&kubeconfig, kubeconfig_yaml(&format!("http://{addr}")))?;
        let command = command.replace("{kubeconfig}", &kubeconfig.to_string_lossy());
        // Its own process group, so that stopping it also stops whatever the shell started.
        let child = Command::new("sh")
            .args(["-c", &command])
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start the garbage collector command {command:?}"))?;
        Ok(Self { server, child: Mutex::new(child), hold, timeout, _dir: dir, _serving: serving })
    }
}

impl Drop for ExternalGcBackend {
    /// Stops the collector's whole process group: SIGTERM, then SIGKILL if it lingers.
    fn drop(&mut self) {
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        let group = -(child.id() as i32);
        // SAFETY: kill(2) with a negative pid signals the process group the child leads.
        unsafe { libc::kill(group, libc::SIGTERM) };
        for _ in 0..50 {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: as above.
        unsafe { libc::kill(group, libc::SIGKILL) };
        let _ = child.wait();
    }
}

impl Backend for ExternalGcBackend {
    fn name(&self) -> &str {
        "external"
    }

    fn client(&self) -> kube::Client {
        self.server.client()
    }

    fn settle(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            if let Ok(Some(status)) = self.child.lock().unwrap_or_else(|p| p.into_inner()).try_wait() {
                return Err(format!("the garbage collector command exited ({status})"));
            }
            tokio::time::sleep(self.hold).await;
            while !self.server.controllers_idle() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            Ok(())
        })
    }

    fn eventually_timeout(&self) -> Duration {
        self.timeout
    }

    fn can_run(&self, tags: &[String]) -> Result<(), String> {
        match tags.iter().find(|t| *t == "kubelet") {
            Some(_) => Err("@kubelet scenarios run on the reference kubelet model only".into()),
            None => Ok(()),
        }
    }
}
