//! Retrying the API: the growing delays between attempts, and which failures are worth waiting
//! out. A controller never gives up on the API server: discovery, every monitor's list and watch,
//! and every work item are retried with these delays (work items through their queue's
//! [`Backoff`]). Only a program's own start may treat a failure that no retry will cure (a
//! `401`, a `403`) as fatal; see [`is_transient`].

use std::time::Duration;

use crate::gc::queue::Backoff;

/// Exponentially growing delays within [`Backoff`] bounds: `base`, `2 * base`, … up to `max`.
#[derive(Clone, Debug)]
pub struct Delays {
    bounds: Backoff,
    next: Duration,
}

impl Delays {
    /// Delays starting at `bounds.base` and capped at `bounds.max`.
    pub fn new(bounds: Backoff) -> Self {
        Self { bounds, next: bounds.base }
    }

    /// The delay before the next attempt; each call doubles the one after it.
    pub fn next_delay(&mut self) -> Duration {
        let delay = self.next.min(self.bounds.max);
        self.next = (delay * 2).min(self.bounds.max);
        delay
    }

    /// Back to the first delay, after a success.
    pub fn reset(&mut self) {
        self.next = self.bounds.base;
    }
}

/// Whether a failure is one that waiting cures: the server answered `5xx` or `429 Too Many
/// Requests`, or could not be reached or read (connection refused, reset, timed out).
pub fn is_transient(error: &kube::Error) -> bool {
    match error {
        kube::Error::Api(status) => status.code >= 500 || status.code == 429,
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => true,
        _ => false,
    }
}

/// A failure in a few words for logs and the settled check: `500 InternalError: <message>` for
/// an answer of the server, the error itself otherwise.
pub fn describe(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) if status.reason.is_empty() => format!("{}: {}", status.code, status.message),
        kube::Error::Api(status) => format!("{} {}: {}", status.code, status.reason, status.message),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_up_to_the_cap_and_start_again_after_a_reset() {
        let mut d = Delays::new(Backoff { base: Duration::from_millis(100), max: Duration::from_millis(350) });
        let taken: Vec<u128> = (0..4).map(|_| d.next_delay().as_millis()).collect();
        assert_eq!(taken, [100, 200, 350, 350]);
        d.reset();
        assert_eq!(d.next_delay(), Duration::from_millis(100));
    }

    #[test]
    fn server_errors_and_throttling_are_transient_other_answers_are_not() {
        let status = |code| kube::Error::Api(Box::new(kube::core::Status { code, ..Default::default() }));
        assert!(is_transient(&status(500)) && is_transient(&status(503)) && is_transient(&status(429)));
        assert!(!is_transient(&status(401)) && !is_transient(&status(403)) && !is_transient(&status(404)));
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(is_transient(&kube::Error::Service(Box::new(refused))));
    }
}
