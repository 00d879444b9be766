//! The external-GC backend: the fake apiserver on a TCP port with the reference collector off,
//! and another garbage collector against it: a third party's, started from a command line with
//! `{kubeconfig}` replaced by a kubeconfig for that port, or the upstream one (the real
//! kube-controller-manager running only its garbage collector). Its inner state is unknown, so
//! "settled" is a hold time, then the workload controllers and the apiserver's own controllers are
//! waited for.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use futures::future::BoxFuture;
use kubegc::Cluster;
use kubegc::apiserver::ApiServer;
use kubegc::apiserver::kubeconfig::kubeconfig_yaml;

use crate::backend::Backend;
use kubegc_control_plane::build::Upstream;
use kubegc_control_plane::control_plane::{ControllerManager, GARBAGE_COLLECTOR_ONLY};

/// A garbage collector running outside this process.
pub trait Collector: Send + Sync {
    /// Why it is no longer running, if it is not.
    fn exited(&self) -> Option<String>;
}

/// Resolves, with why, once `collector` is no longer running.
pub async fn exit_of(collector: &dyn Collector) -> String {
    loop {
        if let Some(why) = collector.exited() {
            return why;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// How many of its last stderr lines a collector command that exited is reported with.
const STDERR_TAIL: usize = 20;

/// A collector started from a shell command line, in its own process group; the whole group
/// is stopped when this is dropped. Its stderr is passed on to this process's, and its last
/// lines are kept to say why it exited.
pub struct CommandCollector {
    child: Mutex<Child>,
    /// The last [`STDERR_TAIL`] lines of its stderr.
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// The thread passing its stderr on; it ends when the collector's stderr closes.
    stderr_reader: std::thread::JoinHandle<()>,
}

impl CommandCollector {
    /// Runs `command` with `sh -c`, `{kubeconfig}` replaced by the path of `kubeconfig`.
    pub fn start(command: &str, kubeconfig: &Path) -> anyhow::Result<Self> {
        let command = command.replace("{kubeconfig}", &kubeconfig.to_string_lossy());
        // Its own process group, so that stopping it also stops whatever the shell started.
        let mut child = Command::new("sh")
            .args(["-c", &command])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start the garbage collector command {command:?}"))?;
        let stderr = child.stderr.take().expect("stderr is piped");
        let stderr_tail: Arc<Mutex<VecDeque<String>>> = Arc::default();
        let tail = stderr_tail.clone();
        let stderr_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("{line}");
                let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
                if tail.len() == STDERR_TAIL {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        Ok(Self { child: Mutex::new(child), stderr_tail, stderr_reader })
    }
}

impl Collector for CommandCollector {
    /// Its exit status and the last lines of its stderr.
    fn exited(&self) -> Option<String> {
        let status = match self.child.lock().unwrap_or_else(|p| p.into_inner()).try_wait() {
            Ok(Some(status)) => status,
            _ => return None,
        };
        // Its last lines may still be on their way; whatever it left running may hold stderr
        // open, so they are not waited for long.
        for _ in 0..50 {
            if self.stderr_reader.is_finished() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let tail = self.stderr_tail.lock().unwrap_or_else(|p| p.into_inner());
        let lines: Vec<String> = tail.iter().map(|l| format!("  {l}")).collect();
        let said =
            if lines.is_empty() { "nothing on stderr".to_string() } else { format!("the last lines of its stderr:\n{}", lines.join("\n")) };
        Some(format!("the garbage collector command exited ({status}); {said}"))
    }
}

impl Drop for CommandCollector {
    /// Stops the collector's whole process group: SIGTERM, then SIGKILL if it lingers.
    fn drop(&mut self) {
        let child = self.child.get_mut().unwrap_or_else(|p| p.into_inner());
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

impl Collector for Mutex<ControllerManager> {
    fn exited(&self) -> Option<String> {
        self.lock().unwrap_or_else(|p| p.into_inner()).check_running().err().map(|e| format!("{e:#}"))
    }
}

/// The fake apiserver served over TCP, with its workload controllers, plus a collector outside
/// this process.
pub struct ExternalGcBackend {
    cluster: Cluster,
    collector: Box<dyn Collector>,
    name: &'static str,
    kubeconfig: PathBuf,
    hold: Duration,
    timeout: Duration,
    _served: Served,
}

impl std::fmt::Debug for ExternalGcBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalGcBackend").field("name", &self.name).field("hold", &self.hold).finish()
    }
}

/// The fake apiserver on a free loopback port, and a kubeconfig for it; both go when this is
/// dropped.
pub struct Served {
    /// The kubeconfig file.
    pub kubeconfig: PathBuf,
    _dir: tempfile::TempDir,
    serving: tokio::task::JoinHandle<()>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

/// Serves `server` on a free loopback port and writes a kubeconfig for it.
pub async fn serve(server: &ApiServer) -> anyhow::Result<Served> {
    let (addr, serving) = server.serve("127.0.0.1:0".parse().expect("valid")).await.context("cannot listen on loopback")?;
    let dir = tempfile::tempdir()?;
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, kubeconfig_yaml(&format!("http://{addr}")))?;
    Ok(Served { kubeconfig, _dir: dir, serving })
}

impl ExternalGcBackend {
    /// Serves `server` on a free loopback port, writes its kubeconfig, and starts `command`
    /// (run by `sh -c`) with `{kubeconfig}` replaced by that file's path.
    pub async fn start(server: ApiServer, command: &str, hold: Duration, timeout: Duration) -> anyhow::Result<Self> {
        let served = serve(&server).await?;
        let collector = Box::new(CommandCollector::start(command, &served.kubeconfig)?);
        let cluster = Cluster::builder().server(server).without_collector().start();
        Ok(Self { cluster, collector, name: "external", kubeconfig: served.kubeconfig.clone(), hold, timeout, _served: served })
    }

    /// Serves `server` on a free loopback port and runs the upstream garbage collector (built
    /// from `upstream/` if need be) against it; returns once its monitors have synced.
    pub async fn start_upstream(server: ApiServer, hold: Duration, timeout: Duration) -> anyhow::Result<Self> {
        let served = serve(&server).await?;
        let kcm = ControllerManager::start(&Upstream::locate(), &served.kubeconfig, GARBAGE_COLLECTOR_ONLY).await?;
        Ok(Self {
            cluster: Cluster::builder().server(server).without_collector().start(),
            collector: Box::new(Mutex::new(kcm)),
            name: "fake+upstream-gc",
            kubeconfig: served.kubeconfig.clone(),
            hold,
            timeout,
            _served: served,
        })
    }
}

impl Backend for ExternalGcBackend {
    fn name(&self) -> &str {
        self.name
    }

    fn client(&self) -> kube::Client {
        self.cluster.client()
    }

    fn kubeconfig(&self) -> Option<&Path> {
        Some(&self.kubeconfig)
    }

    fn settle(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            if let Some(why) = self.collector.exited() {
                return Err(why);
            }
            tokio::time::sleep(self.hold).await;
            // The collector's own state is unknown; the workload controllers and the apiserver's
            // controllers are waited for.
            self.cluster.try_settle(self.timeout).await
        })
    }

    fn eventually_timeout(&self) -> Duration {
        self.timeout
    }

    fn stopped(&self) -> BoxFuture<'_, String> {
        Box::pin(exit_of(&*self.collector))
    }

    fn can_run(&self, tags: &[String]) -> Result<(), String> {
        match tags.iter().find(|t| *t == "kubelet") {
            Some(_) => Err("@kubelet scenarios run on the reference kubelet model only".into()),
            None => Ok(()),
        }
    }
}
