//! Ready-made faults for [`crate::apiserver::Config::interceptor`]: the answers of an API
//! server that is still starting or overloaded, for checking that a client waits them out.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::apiserver::server::Interceptor;
use crate::apiserver::status::ApiError;

/// While armed, answers the first requests to each path with `answers` in turn, then lets
/// that path's requests through; counts the refusals per path. Starts disarmed, so a test can
/// set up its objects first.
#[derive(Clone, Debug)]
pub struct RefuseFirst {
    answers: Arc<[ApiError]>,
    armed: Arc<AtomicBool>,
    refusals: Arc<Mutex<HashMap<String, usize>>>,
}

impl RefuseFirst {
    /// Refuses each path's first requests with `answers`, one each, in order.
    pub fn new(answers: impl Into<Vec<ApiError>>) -> Self {
        Self { answers: answers.into().into(), armed: Arc::default(), refusals: Arc::default() }
    }

    /// The hook to put in the server's configuration.
    pub fn interceptor(&self) -> Interceptor {
        let this = self.clone();
        Arc::new(move |parts| {
            if !this.armed.load(Ordering::SeqCst) {
                return None;
            }
            let mut refusals = this.refusals.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let refused = refusals.entry(parts.uri.path().to_string()).or_default();
            let answer = this.answers.get(*refused).cloned();
            *refused += answer.is_some() as usize;
            answer
        })
    }

    /// Starts (`true`) or stops refusing.
    pub fn arm(&self, armed: bool) {
        self.armed.store(armed, Ordering::SeqCst);
    }

    /// How many requests to `path` were refused.
    pub fn refused(&self, path: &str) -> usize {
        self.refusals.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(path).copied().unwrap_or(0)
    }

    /// Every path refused at least once, with its count.
    pub fn all_refused(&self) -> HashMap<String, usize> {
        self.refusals.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }
}
