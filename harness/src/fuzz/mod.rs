//! The fake API server fuzzed: seeded requests of every shape sent in-process through its
//! router, each answer and the store around it judged by invariants.
//!
//! Requests are made in *episodes*: a fresh server (virtual clock, simulated controllers run
//! by the fuzzer between requests), a few setup requests, then up to `per_server` generated
//! requests. Episode `i` of a run with seed `s` uses seed `s + i`, so a violation is replayed
//! by `kubegc fuzz --seed <its seed>` alone.
//!
//! - [`generate`]: the seeded requests.
//! - [`invariants`]: the checks on an answer and on what the request changed.
//! - [`differential`]: the same requests sent to the fake and to the upstream API server,
//!   their answers compared (`kubegc fuzz --differential`).

pub mod differential;
pub mod generate;
pub mod invariants;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use axum::body::{Body, HttpBody};
use chrono::{TimeDelta, TimeZone, Utc};
use http_body_util::BodyExt;
use kubegc::apiserver::http::request::{Query, ResourcePath};
use kubegc::apiserver::{ApiServer, Config};
use kubegc::clock::Clock;
use tower::ServiceExt;

use crate::fuzz::generate::{FuzzRequest, Generator, SHARED_NAMESPACES, service_account};
use crate::fuzz::invariants::{Answer, Snapshot, check_answer, check_changes};

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Generated requests in all (setup requests not counted).
    pub requests: u64,
    /// Seed of the first episode; episode `i` uses `seed + i`.
    pub seed: u64,
    /// Requests sent to one server before a fresh one is started.
    pub per_server: u64,
}

/// A broken invariant, with what replays it.
#[derive(Debug)]
pub struct Violation {
    /// The episode's seed (`kubegc fuzz --seed` replays it).
    pub seed: u64,
    /// The request's index in its episode, from 0.
    pub index: u64,
    /// The request.
    pub request: FuzzRequest,
    /// The answer's code.
    pub code: u16,
    /// What is wrong.
    pub what: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "violation at seed {} request {} (replay: kubegc fuzz --seed {} --requests {}):\n{}\n\nanswered {}: {}",
            self.seed,
            self.index,
            self.seed,
            self.index + 1,
            self.request,
            self.code,
            self.what
        )
    }
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Report {
    /// Generated requests sent.
    pub requests: u64,
    /// Servers started.
    pub episodes: u64,
    /// Answers by HTTP code.
    pub codes: BTreeMap<u16, u64>,
    /// Wall time.
    pub elapsed: Duration,
    /// The first broken invariant, which ends the run.
    pub violation: Option<Violation>,
}

impl Report {
    /// One line of numbers.
    pub fn summary(&self) -> String {
        let secs = self.elapsed.as_secs_f64();
        let codes: Vec<String> = self.codes.iter().map(|(c, n)| format!("{c}:{n}")).collect();
        format!(
            "{} requests on {} servers in {:.1}s ({:.0}/s); codes {}; {}",
            self.requests,
            self.episodes,
            secs,
            self.requests as f64 / secs.max(1e-9),
            codes.join(" "),
            if self.violation.is_some() { "1 violation" } else { "no violation" }
        )
    }
}

/// Runs the requests, calling `progress` after each episode; stops at the first violation.
pub async fn run(options: &Options, mut progress: impl FnMut(&Report)) -> Report {
    let started = Instant::now();
    let mut report = Report::default();
    let per_server = options.per_server.max(1);
    while report.requests < options.requests && report.violation.is_none() {
        let count = per_server.min(options.requests - report.requests);
        let seed = options.seed + report.episodes;
        report.violation = episode(seed, count, &mut report).await;
        report.episodes += 1;
        report.elapsed = started.elapsed();
        progress(&report);
    }
    report
}

/// One fresh server and `count` requests from `seed`.
async fn episode(seed: u64, count: u64, report: &mut Report) -> Option<Violation> {
    let clock = Clock::virtual_at(Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).single().expect("a valid date"));
    // The fuzzer runs the simulated controllers itself, between requests, and the server's
    // upkeep never, so that what they write is never taken for a request's doing.
    // Nothing makes a deleted `default` ServiceAccount again while a pod waits for it.
    let config = Config {
        clock: clock.clone(),
        controller_interval: Duration::from_secs(24 * 3600),
        upkeep_interval: Duration::from_secs(24 * 3600),
        default_account_wait: Duration::ZERO,
        ..Config::default()
    };
    let server = ApiServer::with_config(config);
    let mut generator = Generator::new(seed);
    let shared_accounts = SHARED_NAMESPACES.iter().map(|ns| service_account(ns));
    for request in generator.setup().into_iter().chain(shared_accounts) {
        send(&server, &request).await.ok()?;
    }
    let mut snapshot = Snapshot::capture(&server);
    for index in 0..count {
        let request = generator.next_request();
        let violation = |code, what| Some(Violation { seed, index, request: request.clone(), code, what });
        let answer = match send(&server, &request).await {
            Ok(answer) => answer,
            Err(panic) => return violation(0, panic),
        };
        report.requests += 1;
        *report.codes.entry(answer.code).or_default() += 1;
        if let Err(what) = check_answer(&server, &request, &answer) {
            return violation(answer.code, what);
        }
        let changes = snapshot.refresh(&server);
        if let Err(what) = check_changes(&server, &request, &answer, &changes) {
            return violation(answer.code, what);
        }
        clock.advance(TimeDelta::seconds(1));
        server.run_controllers();
        snapshot.refresh(&server);
    }
    None
}

/// Sends one request through the server's router in a task of its own; `Err` with the panic's
/// message when serving it panicked. Of a stream (a watch) what the server has sent so far is
/// read ([`stream_head`]).
pub async fn send(server: &ApiServer, request: &FuzzRequest) -> Result<Answer, String> {
    let mut builder = http::Request::builder()
        .method(http::Method::from_bytes(request.method.as_bytes()).expect("a method token"))
        .uri(request.uri.as_str());
    if let Some(ct) = &request.content_type {
        builder = builder.header(http::header::CONTENT_TYPE, ct.as_str());
    }
    if let Some(accept) = &request.accept {
        builder = builder.header(http::header::ACCEPT, accept.as_str());
    }
    let http_request = builder.body(Body::from(request.body.clone())).expect("a valid request");
    let router = server.router();
    let watch = asks_for_watch(request);
    let task = tokio::spawn(async move {
        let response = router.oneshot(http_request).await.expect("infallible");
        let code = response.status().as_u16();
        let (content_type, warnings) = headers_of(response.headers());
        if response.body().size_hint().exact().is_some() {
            let body = response.into_body().collect().await.map(|b| b.to_bytes().to_vec()).unwrap_or_default();
            return Answer { code, body, streamed: false, content_type, warnings };
        }
        // Lists are streamed too, and end: only a watch, or a stream that does not end, is
        // checked as a stream of events.
        let (body, ended) = stream_head(response.into_body()).await;
        Answer { code, body, streamed: watch || !ended, content_type, warnings }
    });
    task.await.map_err(|e| if e.is_panic() { format!("the server panicked: {e}") } else { format!("the request's task failed: {e}") })
}

/// An answer's `Content-Type` and `Warning` headers.
pub fn headers_of(headers: &http::HeaderMap) -> (Option<String>, Vec<String>) {
    let text = |v: &http::HeaderValue| String::from_utf8_lossy(v.as_bytes()).into_owned();
    let content_type = headers.get(http::header::CONTENT_TYPE).map(text);
    (content_type, headers.get_all(http::header::WARNING).iter().map(text).collect())
}

/// The most frames of a stream read.
const STREAM_FRAMES: usize = 200;

/// What a stream has sent so far, and whether it ended: frames are read while the server has
/// more ready (it sends a watch's initial events, and a list's chunks, at once), up to
/// [`STREAM_FRAMES`]; a stream that stays quiet for a few turns of the scheduler, or ends, ends
/// the read.
async fn stream_head(mut body: Body) -> (Vec<u8>, bool) {
    use futures::FutureExt;
    let (mut head, mut quiet) = (Vec::new(), 0);
    for _ in 0..STREAM_FRAMES {
        match body.frame().now_or_never() {
            Some(Some(Ok(frame))) => head.extend_from_slice(frame.data_ref().map(|d| d.as_ref()).unwrap_or_default()),
            Some(_) => return (head, true),
            None if quiet < 3 => {
                quiet += 1;
                tokio::task::yield_now().await;
            }
            None => break,
        }
    }
    (head, false)
}

/// Whether a server serves `request` as a watch: a GET of a resource path with the `watch/`
/// prefix or whose query says `watch`, as the server's own parsers read them. A path that names
/// no resource (discovery, `/version`) ignores the query.
pub fn asks_for_watch(request: &FuzzRequest) -> bool {
    let Ok(uri) = request.uri.parse::<http::Uri>() else { return false };
    let Some(path) = ResourcePath::parse(uri.path()) else { return false };
    request.method == "GET" && (path.watch_prefix || Query::parse(uri.query()).flag("watch") == Some(true))
}
