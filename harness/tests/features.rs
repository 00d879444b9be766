//! `cargo test` entry: every scenario in `features/` on the fake backend (in-process fake
//! apiserver and reference garbage collector).

use std::sync::Arc;

use kubegc_harness::backend::fake::FakeBackend;
use kubegc_harness::runner::{RunOptions, run};

#[tokio::main]
async fn main() {
    let features = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../features");
    let backend = Arc::new(FakeBackend::start());
    let options = RunOptions { features: vec![features], tags: None, concurrency: 8, fail_fast: false, junit: None, color: false };
    let outcome = run(backend, options).await.expect("feature files are readable");
    if outcome.failed {
        std::process::exit(1);
    }
}
