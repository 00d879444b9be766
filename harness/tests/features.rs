//! `cargo test` and `cargo nextest run` entry for the specification: one libtest trial per
//! scenario of `features/`, each run on the fake backend (in-process fake apiserver and
//! reference garbage collector). nextest lists the trials and runs each on its own; a failing
//! trial's message is the scenario's report, with the explanation of its state.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use cucumber::gherkin::{Feature, GherkinEnv};
use kubegc_harness::backend::fake::FakeBackend;
use kubegc_harness::runner::{RunOptions, run_to};
use libtest_mimic::{Arguments, Failed, Trial};

/// One runtime and one fake backend for every trial of this process.
fn shared() -> &'static (tokio::runtime::Runtime, Arc<FakeBackend>) {
    static SHARED: OnceLock<(tokio::runtime::Runtime, Arc<FakeBackend>)> = OnceLock::new();
    SHARED.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
        let backend = runtime.block_on(async { Arc::new(FakeBackend::start(kubegc::apiserver::ApiServer::new())) });
        (runtime, backend)
    })
}

/// A `Write` into a shared buffer, so a trial can return its report.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn run_scenario(file: PathBuf, scenario: String) -> Result<(), Failed> {
    let (runtime, backend) = shared();
    let buffer = Buffer::default();
    let options = RunOptions {
        features: vec![file],
        tags: None,
        concurrency: 1,
        fail_fast: false,
        junit: None,
        color: false,
        names: Some(vec![scenario]),
        kubelet_driver: None,
    };
    let outcome = runtime.block_on(run_to(backend.clone(), options, Box::new(buffer.clone()))).map_err(|e| Failed::from(e.to_string()))?;
    let report = String::from_utf8_lossy(&buffer.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned();
    if outcome.failed || outcome.scenarios == 0 {
        return Err(Failed::from(report));
    }
    Ok(())
}

fn trials(dir: &Path) -> Vec<Trial> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("features/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "feature"))
        .collect();
    files.sort();
    let mut trials = Vec::new();
    for file in files {
        let feature = Feature::parse_path(&file, GherkinEnv::default()).expect("feature files parse");
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("feature").to_string();
        for scenario in feature.scenarios.iter().chain(feature.rules.iter().flat_map(|r| r.scenarios.iter())) {
            let (file, name) = (file.clone(), scenario.name.clone());
            trials.push(Trial::test(format!("{stem}::{name}"), move || run_scenario(file, name)));
        }
    }
    trials
}

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../features");
    libtest_mimic::run(&args, trials(&dir)).exit();
}
