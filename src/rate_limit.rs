//! Client-side rate limiting as client-go does it (kube-controller-manager's `--kube-api-qps`
//! and `--kube-api-burst`): a token bucket that refills at `qps` tokens a second, holds at most
//! `burst` and starts full. Every request of a [`kube::Client`] built by [`client`] first waits
//! for a token; none is refused.

use std::future::Future;
use std::num::NonZeroU32;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

/// A client rate limit: `qps` requests a second in bursts of at most `burst`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    quota: Quota,
}

/// A rate limit whose qps or burst is not a positive number.
#[derive(Clone, Copy, Debug, thiserror::Error)]
#[error("invalid client rate limit (qps {qps}, burst {burst}): both must be positive")]
pub struct InvalidRateLimit {
    qps: f32,
    burst: u32,
}

impl RateLimit {
    /// `qps` requests a second (fractions allowed) in bursts of at most `burst`.
    pub fn new(qps: f32, burst: u32) -> Result<Self, InvalidRateLimit> {
        Self::scaled(qps, 1.0, burst)
    }

    /// What kube-controller-manager's `--kube-api-qps` and `--kube-api-burst` give its garbage
    /// collector's client: twice the qps (a deletion takes two requests, says upstream), the
    /// same burst.
    pub fn garbage_collector(qps: f32, burst: u32) -> Result<Self, InvalidRateLimit> {
        Self::scaled(qps, 2.0, burst)
    }

    /// `factor` times `qps` requests a second in bursts of at most `burst`.
    fn scaled(qps: f32, factor: f64, burst: u32) -> Result<Self, InvalidRateLimit> {
        let invalid = InvalidRateLimit { qps, burst };
        let burst = NonZeroU32::new(burst).ok_or(invalid)?;
        let period = Duration::try_from_secs_f64(1.0 / (factor * f64::from(qps))).map_err(|_| invalid)?;
        let quota = Quota::with_period(period).ok_or(invalid)?.allow_burst(burst);
        Ok(Self { quota })
    }
}

/// A client for `config` whose requests each wait for a token of `limit` (one bucket for all
/// of them); with `None`, requests go out at once.
pub fn client(config: kube::Config, limit: Option<&RateLimit>) -> kube::Result<kube::Client> {
    let builder = kube::client::ClientBuilder::try_from(config)?;
    Ok(match limit {
        Some(limit) => builder.with_layer(&RateLimitLayer::new(limit)).build(),
        None => builder.build(),
    })
}

/// A tower layer whose services share one token bucket.
#[derive(Clone, Debug)]
pub struct RateLimitLayer {
    limiter: Arc<DefaultDirectRateLimiter>,
}

impl RateLimitLayer {
    /// A layer with a full bucket of `limit`.
    pub fn new(limit: &RateLimit) -> Self {
        Self { limiter: Arc::new(RateLimiter::direct(limit.quota)) }
    }
}

impl<S> tower::Layer<S> for RateLimitLayer {
    type Service = RateLimited<S>;

    fn layer(&self, inner: S) -> RateLimited<S> {
        RateLimited { inner, limiter: self.limiter.clone(), wait: None, permitted: false }
    }
}

/// A service that takes a token before each call. The token is taken in `poll_ready`, so a
/// caller (such as the client's request buffer) waits there, in turn, as client-go's callers
/// wait in its rate limiter.
pub struct RateLimited<S> {
    inner: S,
    limiter: Arc<DefaultDirectRateLimiter>,
    /// The wait for the next token, while it lasts.
    wait: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    /// Whether a token is held for the next call.
    permitted: bool,
}

impl<S: std::fmt::Debug> std::fmt::Debug for RateLimited<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimited").field("inner", &self.inner).field("permitted", &self.permitted).finish()
    }
}

impl<S: tower::Service<R>, R> tower::Service<R> for RateLimited<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if !self.permitted {
            let limiter = self.limiter.clone();
            let wait = self.wait.get_or_insert_with(|| Box::pin(async move { limiter.until_ready().await }));
            ready!(wait.as_mut().poll(cx));
            self.wait = None;
            self.permitted = true;
        }
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        self.permitted = false;
        self.inner.call(request)
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::time::Instant;

    use futures::FutureExt;
    use tower::{Layer, Service, ServiceExt};

    use super::*;

    fn limited(qps: f32, burst: u32) -> impl Service<(), Response = (), Error = Infallible> {
        let limit = RateLimit::new(qps, burst).expect("valid");
        RateLimitLayer::new(&limit).layer(tower::service_fn(|()| async { Ok::<_, Infallible>(()) }))
    }

    #[test]
    fn rejects_limits_that_are_not_positive() {
        for (qps, burst) in [(0.0, 10), (-1.0, 10), (f32::NAN, 10), (f32::INFINITY, 10), (10.0, 0)] {
            assert!(RateLimit::new(qps, burst).is_err(), "qps {qps}, burst {burst}");
        }
        assert!(RateLimit::new(0.5, 1).is_ok());
        assert_eq!(RateLimit::garbage_collector(20.0, 30).expect("valid"), RateLimit::new(40.0, 30).expect("valid"));
    }

    #[test]
    fn a_full_bucket_lets_a_burst_through_at_once() {
        let mut service = limited(1.0, 5);
        for n in 1..=5 {
            assert!(service.ready().now_or_never().is_some(), "request {n} of the burst waits");
            drop(service.call(()));
        }
        assert!(service.ready().now_or_never().is_none(), "a sixth request goes before its token");
    }

    #[tokio::test]
    async fn past_the_burst_requests_go_at_the_rate() {
        let mut service = limited(50.0, 1);
        let started = Instant::now();
        for _ in 0..11 {
            service.ready().await.expect("ready").call(()).await.expect("called");
        }
        // Ten tokens after the first at 50 a second: 200 ms at least.
        assert!(started.elapsed() >= Duration::from_millis(190), "ten tokens took only {:?}", started.elapsed());
    }
}
