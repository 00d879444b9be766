//! `kubegc e2e`: Kubernetes' own end-to-end tests of the pinned release (built from
//! `upstream/e2e/`) run against a cluster, one test per process of the e2e binary.
//!
//! - [`selection`]: the named lists of tests (`upstream/e2e/selections/*.yaml`), each with why
//!   it is in, and the tests left out with why.
//! - [`nodes`]: Node objects for a cluster without kubelets, kept Ready by a heartbeat.
//! - [`runner`]: runs the tests, several at a time, and reads their reports.
//! - [`report`]: what the e2e binary reports of a test, and the JUnit file.

pub mod nodes;
pub mod report;
pub mod runner;
pub mod selection;
