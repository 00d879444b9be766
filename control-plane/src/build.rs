//! Building the upstream binaries from the Go module in `upstream/`, once.
//!
//! A build runs `go build` on the pinned module with its own Go build cache under
//! `target/upstream/`, so a first build takes minutes and a changed input recompiles only what
//! it touches. Each binary has a stamp: a digest of everything that decides its contents (the
//! Go version, `go.mod`, `go.sum` and the module's own Go files). A binary whose stamp matches
//! is used as it is without starting Go at all. Concurrent builds (several test binaries at
//! once) wait for each other through a lock file.
//!
//! The kubelet driver ([`Component::KubeletDriver`]) drives unexported parts of upstream's
//! kubelet packages, as upstream's own in-package unit tests do. Go only lets files join a
//! package through a build overlay, and refuses overlays beneath the module cache, so its build
//! reaches `k8s.io/kubernetes` through a link under `target/upstream/kubelet/` (a `replace` in
//! a generated copy of `go.mod`) and adds the driver's own files from `upstream/cmd/kubegc-kubelet-driver/_inpackage/`
//! to those packages. Upstream's files are used as the module proxy gave them.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use sha2::{Digest, Sha256};

/// One upstream program that kubegc builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// The etcd server the API server stores into.
    Etcd,
    /// The real API server, with its default admission plugins.
    KubeApiserver,
    /// The real controller manager (garbage collector, namespace and workload controllers...).
    KubeControllerManager,
    /// kubectl of the same release.
    Kubectl,
    /// The real scheduler, which binds pods to the hollow nodes.
    KubeScheduler,
    /// kubegc's hollow node: the release's kubelet as kubemark runs it, on a fake container
    /// runtime (`upstream/cmd/kubegc-hollow-node/`).
    HollowNode,
    /// The cloud node lifecycle controller of `k8s.io/cloud-provider` over a fake cloud that a
    /// file says the state of (`upstream/cmd/kubegc-cloud-controller/`).
    CloudController,
    /// kubegc's driver of the kubelet's image and container garbage collection, eviction and
    /// configuration code (`upstream/cmd/kubegc-kubelet-driver/`).
    KubeletDriver,
    /// Kubernetes' own end-to-end tests, limited to the suites `kubegc e2e` runs
    /// (`upstream/e2e/`): a Go test binary.
    E2e,
}

impl Component {
    /// Every program `kubegc upstream build` builds, in build order (the e2e tests are built
    /// by `kubegc e2e`, which needs them alone).
    pub const ALL: [Component; 8] = [
        Component::Etcd,
        Component::KubeApiserver,
        Component::KubeControllerManager,
        Component::Kubectl,
        Component::KubeScheduler,
        Component::HollowNode,
        Component::CloudController,
        Component::KubeletDriver,
    ];

    /// The binary's file name.
    pub fn binary(self) -> &'static str {
        match self {
            Component::Etcd => "etcd",
            Component::KubeApiserver => "kube-apiserver",
            Component::KubeControllerManager => "kube-controller-manager",
            Component::Kubectl => "kubectl",
            Component::KubeScheduler => "kube-scheduler",
            Component::HollowNode => "kubegc-hollow-node",
            Component::CloudController => "kubegc-cloud-controller",
            Component::KubeletDriver => "kubegc-kubelet-driver",
            Component::E2e => "kubegc-e2e.test",
        }
    }

    /// The Go package whose `main` it is.
    fn package(self) -> &'static str {
        match self {
            Component::Etcd => "./cmd/etcd",
            Component::KubeApiserver => "k8s.io/kubernetes/cmd/kube-apiserver",
            Component::KubeControllerManager => "k8s.io/kubernetes/cmd/kube-controller-manager",
            Component::Kubectl => "k8s.io/kubernetes/cmd/kubectl",
            Component::KubeScheduler => "k8s.io/kubernetes/cmd/kube-scheduler",
            Component::HollowNode => "./cmd/kubegc-hollow-node",
            Component::CloudController => "./cmd/kubegc-cloud-controller",
            Component::KubeletDriver => "./cmd/kubegc-kubelet-driver",
            Component::E2e => "./e2e",
        }
    }

    /// The directory of the module that only this component builds, if any: the other
    /// components' stamps leave it out.
    fn own_dir(self) -> Option<&'static str> {
        match self {
            Component::KubeletDriver => Some("cmd/kubegc-kubelet-driver"),
            Component::HollowNode => Some("cmd/kubegc-hollow-node"),
            Component::CloudController => Some("cmd/kubegc-cloud-controller"),
            Component::E2e => Some("e2e"),
            _ => None,
        }
    }
}

/// Where the driver's files that join upstream packages live, by their path in `k8s.io/kubernetes`.
const IN_PACKAGE_DIR: &str = "cmd/kubegc-kubelet-driver/_inpackage";

/// The Go module in `upstream/` and the directory its binaries are built into.
#[derive(Clone, Debug)]
pub struct Upstream {
    /// The Go module (`upstream/` of the repository).
    source: PathBuf,
    /// Binaries, stamps, the lock and Go's build cache (`target/upstream/`).
    out: PathBuf,
}

impl Upstream {
    /// The module of this checkout and `target/upstream/` beside it; `KUBEGC_UPSTREAM_SRC` and
    /// `KUBEGC_UPSTREAM_CACHE` move either.
    pub fn locate() -> Self {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest.parent().unwrap_or(manifest);
        let source = std::env::var_os("KUBEGC_UPSTREAM_SRC").map(PathBuf::from).unwrap_or_else(|| root.join("upstream"));
        let out = std::env::var_os("KUBEGC_UPSTREAM_CACHE").map(PathBuf::from).unwrap_or_else(|| root.join("target/upstream"));
        Self { source, out }
    }

    /// The Go module (`upstream/` of the repository).
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// The pinned Kubernetes release (`v1.37.2`), read from `go.mod`.
    pub fn release(&self) -> anyhow::Result<String> {
        let go_mod = std::fs::read_to_string(self.source.join("go.mod")).with_context(|| {
            format!(
                "cannot read {}/go.mod (the upstream/ module of a kubegc checkout: set KUBEGC_UPSTREAM_SRC to one)",
                self.source.display()
            )
        })?;
        go_mod
            .lines()
            .find_map(|l| l.trim().strip_prefix("require k8s.io/kubernetes ").or_else(|| l.trim().strip_prefix("k8s.io/kubernetes ")))
            .map(|v| v.split_whitespace().next().unwrap_or_default().to_string())
            .context("go.mod does not require k8s.io/kubernetes")
    }

    /// The directory of `module` (`path` or `path@version`; without a version, the version
    /// `go.mod` selects, replacements applied) in the Go module cache, downloaded first if it
    /// is not there.
    pub fn module_dir(&self, module: &str) -> anyhow::Result<PathBuf> {
        let download = self.go().args(["mod", "download", "-json", module]).output().context("cannot run `go mod download`")?;
        if !download.status.success() {
            bail!("`go mod download {module}` failed: {}", String::from_utf8_lossy(&download.stdout));
        }
        #[derive(serde::Deserialize)]
        struct Downloaded {
            #[serde(rename = "Dir")]
            dir: PathBuf,
        }
        let downloaded: Downloaded = serde_json::from_slice(&download.stdout).context("cannot read `go mod download -json`")?;
        Ok(downloaded.dir)
    }

    /// Where a component's binary is (built or not).
    pub fn binary(&self, component: Component) -> PathBuf {
        self.out.join("bin").join(component.binary())
    }

    /// Builds the components that are missing or stale and returns when all are up to date.
    pub fn ensure(&self, components: &[Component]) -> anyhow::Result<()> {
        std::fs::create_dir_all(self.out.join("bin")).with_context(|| format!("cannot create {}", self.out.display()))?;
        let lock = File::create(self.out.join("build.lock"))?;
        lock.lock().context("cannot lock the upstream build")?;
        let mut stale = Vec::new();
        for &c in components {
            let stamp = self.stamp(c)?;
            if !self.is_current(c, &stamp) {
                stale.push((c, stamp));
            }
        }
        // One `go build` per component: Go keeps every package it compiles in its temporary
        // directory until the build ends, so one build of everything needed twice the cache's
        // size at its peak.
        for (c, stamp) in stale {
            let flags = if c == Component::KubeletDriver { self.driver_build_flags()? } else { Vec::new() };
            self.go_build(c, &flags)?;
            std::fs::write(self.stamp_path(c), stamp)?;
        }
        Ok(())
    }

    /// The `go build` flags that put the driver's in-package files into upstream's packages:
    /// a copy of `go.mod` that replaces `k8s.io/kubernetes` with a link to its module directory
    /// (outside the module cache, where overlays are allowed), and the overlay itself.
    fn driver_build_flags(&self) -> anyhow::Result<Vec<String>> {
        let work = self.out.join("kubelet");
        std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
        let module = self.module_dir(&format!("k8s.io/kubernetes@{}", self.release()?))?;
        let link = work.join("kubernetes");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&module, &link).with_context(|| format!("cannot link {}", link.display()))?;
        let go_mod = std::fs::read_to_string(self.source.join("go.mod"))?;
        std::fs::write(work.join("go.mod"), format!("{go_mod}\nreplace k8s.io/kubernetes => {}\n", link.display()))?;
        std::fs::copy(self.source.join("go.sum"), work.join("go.sum"))?;
        let in_package = self.source.join(IN_PACKAGE_DIR);
        let mut replace = serde_json::Map::new();
        for file in go_files(&in_package)? {
            let within = file.strip_prefix(&in_package).unwrap_or(&file);
            replace
                .insert(link.join(within).to_string_lossy().into_owned(), serde_json::Value::String(file.to_string_lossy().into_owned()));
        }
        let overlay = work.join("overlay.json");
        std::fs::write(&overlay, serde_json::to_vec_pretty(&serde_json::json!({ "Replace": replace }))?)?;
        Ok(vec![format!("-modfile={}", work.join("go.mod").display()), format!("-overlay={}", overlay.display())])
    }

    /// The digest of everything a component's build depends on: Go, the module, the Go files
    /// that can reach it, and how it is built.
    fn stamp(&self, component: Component) -> anyhow::Result<String> {
        let mut hash = Sha256::new();
        let version = self.go().arg("version").output().context("cannot run `go`: Go 1.26 or newer builds the upstream pieces")?;
        hash.update(&version.stdout);
        hash.update(build_flags(&self.release()?)?.join(" ").as_bytes());
        let mut files = vec![self.source.join("go.mod"), self.source.join("go.sum")];
        let others: Vec<PathBuf> = Component::ALL
            .iter()
            .chain([&Component::E2e])
            .filter(|&&c| c != component)
            .filter_map(|c| c.own_dir())
            .map(|d| self.source.join(d))
            .collect();
        files.extend(go_files(&self.source)?.into_iter().filter(|f| !others.iter().any(|o| f.starts_with(o))));
        for file in files {
            hash.update(file.strip_prefix(&self.source).unwrap_or(&file).to_string_lossy().as_bytes());
            hash.update(std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?);
        }
        Ok(format!("{:x}\n", hash.finalize()))
    }

    fn stamp_path(&self, component: Component) -> PathBuf {
        self.out.join("bin").join(format!("{}.stamp", component.binary()))
    }

    fn is_current(&self, component: Component, stamp: &str) -> bool {
        self.binary(component).exists() && std::fs::read_to_string(self.stamp_path(component)).is_ok_and(|s| s == stamp)
    }

    /// `go` in the module, with the build cache and Go's temporary files under `target/` and no
    /// toolchain download.
    fn go(&self) -> Command {
        let mut go = Command::new("go");
        go.current_dir(&self.source)
            .env("GOCACHE", self.out.join("go-build"))
            .env("GOTMPDIR", self.out.join("tmp"))
            .env("GOTOOLCHAIN", "local")
            .env("GOFLAGS", "-mod=readonly");
        go
    }

    /// Builds one component with `go build` (and `flags`), saying what it does while it does it.
    /// The e2e test binary is compiled with `go build -v` first, for the same progress, and then
    /// linked by `go test -c` from the compiled packages (without `go vet`, which would take
    /// minutes over upstream's tests).
    fn go_build(&self, component: Component, flags: &[String]) -> anyhow::Result<()> {
        let name = component.binary();
        let release = self.release()?;
        eprintln!(
            "kubegc: building {name} of Kubernetes {release} from the Go module proxy into {} (a first build takes several minutes on 2 cores; later ones reuse it)",
            self.out.join("bin").display()
        );
        // Only the build that holds the lock uses Go's temporary directory, so anything there was
        // left by a build that was killed, and can take gigabytes.
        let tmp = self.out.join("tmp");
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        let started = Instant::now();
        let mut compiled = 0;
        let mut build = self.go();
        build.args(["build", "-v"]).args(build_flags(&release)?).args(flags);
        if component == Component::E2e {
            build.args(["--", component.package()]);
            compiled += self.run_go(name, build, started)?;
            let mut link = self.go();
            link.args(["test", "-c", "-vet=off"]).args(build_flags(&release)?).arg("-o").arg(self.binary(component));
            link.arg(component.package());
            compiled += self.run_go(name, link, started)?;
        } else {
            build.arg("-o").arg(self.binary(component)).args(["--", component.package()]);
            compiled += self.run_go(name, build, started)?;
        }
        eprintln!("kubegc: built {name} in {} s ({compiled} packages compiled)", started.elapsed().as_secs());
        Ok(())
    }

    /// Runs one `go` command of a build, reporting its progress every [`PROGRESS_EVERY`], and
    /// returns how many packages it compiled.
    fn run_go(&self, name: &str, mut go: Command, started: Instant) -> anyhow::Result<usize> {
        let mut child = go.stderr(Stdio::piped()).stdout(Stdio::null()).spawn().context("cannot run `go`")?;
        let log = Arc::new(Mutex::new(Vec::<String>::new()));
        let reader = {
            let log = log.clone();
            let stderr = child.stderr.take().expect("piped stderr");
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    log.lock().unwrap().push(line);
                }
            })
        };
        let mut next_report = started + PROGRESS_EVERY;
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break status;
            }
            std::thread::sleep(Duration::from_millis(200));
            if Instant::now() >= next_report {
                next_report += PROGRESS_EVERY;
                let lines = log.lock().unwrap();
                let last = lines.last().map_or("-", String::as_str);
                eprintln!("kubegc: still building ({} s, {} packages compiled, last {last})", started.elapsed().as_secs(), lines.len());
            }
        };
        reader.join().expect("stderr reader");
        let lines = log.lock().unwrap();
        if !status.success() {
            let tail = lines[lines.len().saturating_sub(40)..].join("\n");
            let hint = if tail.contains("no space left on device") {
                format!(
                    "\nkubegc: the disk under {} is full; a first build of every component needs about {FIRST_BUILD_GB} GB there",
                    self.out.display()
                )
            } else {
                String::new()
            };
            bail!("building {name} failed ({status}):\n{tail}{hint}");
        }
        Ok(lines.len())
    }
}

/// How every component is built: without paths of this machine, without debugging information
/// (stack traces keep their file and line; the build cache and binaries are smaller), and
/// with the release's version.
fn build_flags(release: &str) -> anyhow::Result<Vec<String>> {
    Ok(vec!["-trimpath".into(), "-gcflags=all=-dwarf=false".into(), "-ldflags".into(), format!("-s -w {}", version_ldflags(release)?)])
}

/// The linker flags that give the binaries their release's version, as upstream's own build
/// does (otherwise they report `v0.0.0-master`).
fn version_ldflags(release: &str) -> anyhow::Result<String> {
    let mut parts = release.trim_start_matches('v').split('.');
    let (Some(major), Some(minor)) = (parts.next(), parts.next()) else { bail!("cannot read a version from {release}") };
    let mut flags = Vec::new();
    for package in ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"] {
        for (name, value) in [("gitVersion", release), ("gitMajor", major), ("gitMinor", minor), ("gitTreeState", "clean")] {
            flags.push(format!("-X {package}.{name}={value}"));
        }
    }
    Ok(flags.join(" "))
}

/// How often a long build says how far it is.
const PROGRESS_EVERY: Duration = Duration::from_secs(30);

/// About how much disk a first build of every component takes under `target/upstream/`.
const FIRST_BUILD_GB: u32 = 5;

/// Every `.go` file under `dir`, sorted.
fn go_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "go") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// kubectl of the pinned release, built if need be.
pub fn kubectl() -> anyhow::Result<PathBuf> {
    let upstream = Upstream::locate();
    upstream.ensure(&[Component::Kubectl])?;
    Ok(upstream.binary(Component::Kubectl))
}

/// Kubernetes' own e2e tests of the pinned release (`upstream/e2e/`), built if need be.
pub fn e2e_tests() -> anyhow::Result<PathBuf> {
    let upstream = Upstream::locate();
    upstream.ensure(&[Component::E2e])?;
    Ok(upstream.binary(Component::E2e))
}

/// The kubelet driver of the pinned release, built if need be.
pub fn kubelet_driver() -> anyhow::Result<PathBuf> {
    let upstream = Upstream::locate();
    upstream.ensure(&[Component::KubeletDriver])?;
    Ok(upstream.binary(Component::KubeletDriver))
}
