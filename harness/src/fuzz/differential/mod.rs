//! `kubegc fuzz --differential`: the fuzzer's seeded requests sent to the fake API server and
//! to the upstream kube-apiserver of the pinned release side by side, every answer compared.
//!
//! A run has one [`Pair`] of servers: upstream's etcd and kube-apiserver with no controller
//! manager, so that answers depend on the requests alone, and a fake configured alike — no
//! garbage collector, no workload or cleanup controllers, no namespace controller, no node
//! agent (only the CRD finalizer, which upstream runs inside the API server, and after a write
//! to a definition the run waits until upstream's has settled). Both start from the same
//! visible state; what upstream's bootstrap shows that the fake lacks is a difference like any
//! other.
//!
//! Each *attempt* (the run itself, then every replay while shrinking) sends the same setup —
//! the generator's namespaces and definition, and the `default` ServiceAccount of the
//! namespaces requests use, which upstream's controller manager would make — then requests of
//! the seed's sequence, its names salted afresh ([`crate::fuzz::generate::Generator::salted`])
//! so that it meets no object of an earlier attempt.
//!
//! - [`compare`]: what of two answers is compared, and what is masked.
//! - [`deviations`]: the documented differences (`tests/differential/deviations.tsv`).
//! - [`shrink`]: delta debugging of a difference's request sequence.
//! - [`upstream`]: the upstream server and the requests sent to it.

pub mod compare;
pub mod deviations;
pub mod shrink;
pub mod upstream;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use kubegc::apiserver::mutant::Mutant;
use kubegc::apiserver::{ApiServer, Config};

use crate::fuzz::differential::compare::{Difference, Seen, differences, request_shape, see_in};
use crate::fuzz::differential::deviations::Rule;
use crate::fuzz::differential::shrink::shrink;
use crate::fuzz::differential::upstream::UpstreamServer;
use crate::fuzz::generate::{FuzzRequest, Generator, SHARED_NAMESPACES, service_account};
use crate::fuzz::invariants::Answer;
use crate::fuzz::{asks_for_watch, send};

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Requests of the seed's sequence to send (with `only`, the sequence is generated as far
    /// as its largest index).
    pub requests: u64,
    /// The sequence's seed.
    pub seed: u64,
    /// Send only these requests of the sequence (a shrunk case's replay).
    pub only: Option<BTreeSet<u64>>,
    /// Send every request and classify every difference, instead of stopping at the first
    /// undocumented one and shrinking it.
    pub keep_going: bool,
    /// Run the fake with this deliberately broken rule.
    pub mutant: Option<Mutant>,
    /// A list path read from both servers after every request, to find the request after
    /// which the two servers' states part (see [`Pair::probe`]).
    pub probe: Option<String>,
}

/// The most replays spent shrinking a difference.
const SHRINK_BUDGET: usize = 300;

/// The most passes of the fake's CRD finalizer after a write to a definition.
const FINALIZER_PASSES: usize = 5;

/// How many requests of a long run pass between two lines of progress.
const PROGRESS_EVERY: u64 = 1_000;

/// One request whose answers differ.
#[derive(Clone, Debug)]
pub struct Found {
    /// Its index in the seed's sequence (of a random request), or in the run.
    pub index: u64,
    /// Where the request comes from when not from the generator (a manifest's file).
    pub origin: Option<String>,
    /// The request.
    pub request: FuzzRequest,
    /// Its shape (verb and resource), the first half of a difference's class.
    pub shape: String,
    /// The fake's answer, on one line.
    pub fake: String,
    /// Upstream's answer, on one line.
    pub upstream: String,
    /// Each difference, with the rule documenting it if one does.
    pub differences: Vec<(Difference, Option<Rule>)>,
}

impl Found {
    /// The differences no rule documents.
    pub fn undocumented(&self) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(|(_, rule)| rule.is_none()).map(|(d, _)| d)
    }
}

/// A class of differences: requests of one shape whose answers differ in one field.
#[derive(Clone, Debug)]
pub struct Class {
    /// How many answers showed it.
    pub count: u64,
    /// Why it is intended, if documented.
    pub documented: Option<String>,
    /// The first request that showed it, with both answers.
    pub example: (Found, Difference),
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Requests sent to both servers and compared.
    pub compared: u64,
    /// Requests upstream did not answer (a timeout, a broken connection) or that cannot reach
    /// it as sent (CONNECT): not compared.
    pub unanswered: u64,
    /// Requests whose answers differ in an undocumented way.
    pub differing: u64,
    /// Every class by `shape: field`, with `--keep-going`.
    pub classes: BTreeMap<String, Class>,
    /// The first undocumented difference, shrunk to the requests it needs (without
    /// `--keep-going`).
    pub shrunk: Option<Shrunk>,
    /// Wall time.
    pub elapsed: Duration,
}

impl Report {
    /// One line of numbers.
    pub fn summary(&self) -> String {
        let documented = self.classes.values().filter(|c| c.documented.is_some()).count();
        format!(
            "{} requests compared ({} unanswered by upstream) in {:.1}s; {} with undocumented differences; {} classes ({} documented)",
            self.compared,
            self.unanswered,
            self.elapsed.as_secs_f64(),
            self.differing,
            self.classes.len(),
            documented
        )
    }

    /// Whether no undocumented difference was seen.
    pub fn agrees(&self) -> bool {
        self.differing == 0
    }

    /// Counts `found` as compared, and as differing if a difference is undocumented.
    pub fn count(&mut self, found: &Found) {
        self.compared += 1;
        if found.undocumented().next().is_some() {
            self.differing += 1;
        }
    }

    /// The classes, the most frequent first, each with its example on three lines.
    pub fn triage(&self) -> String {
        let mut classes: Vec<(&String, &Class)> = self.classes.iter().collect();
        let order = |(key, class): &(&String, &Class)| (class.documented.is_some(), std::cmp::Reverse(class.count), (*key).clone());
        classes.sort_by_cached_key(order);
        let mut out = String::new();
        for (key, class) in classes {
            let (found, difference) = &class.example;
            let (fake, upstream) = difference.shown();
            let mark = if class.documented.is_some() { "documented" } else { "NEW" };
            out.push_str(&format!(
                "{mark} {}x {key}\n    request #{}{}: {}\n    fake:     {}\n    upstream: {}\n",
                class.count,
                found.index,
                found.origin.as_ref().map(|o| format!(" ({o})")).unwrap_or_default(),
                compare::clip(&found.request.to_string()),
                fake,
                upstream
            ));
            if let Some(why) = &class.documented {
                out.push_str(&format!("    why: {why}\n"));
            }
        }
        out
    }
}

/// A difference shrunk to the requests it needs.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The requests' indices in the seed's sequence (`--only` replays them).
    pub indices: Vec<u64>,
    /// The requests, as the last replay sent them.
    pub requests: Vec<FuzzRequest>,
    /// What the last request shows in that replay.
    pub last: Found,
}

/// The two servers of a run.
pub struct Pair {
    fake: ApiServer,
    upstream: UpstreamServer,
    rules: Vec<Rule>,
    /// Attempts made, which salts the next.
    attempts: u64,
    /// The list path [`Pair::probe`] reads, and how its lists on the two servers last differed.
    probe: Option<(String, String)>,
}

impl Pair {
    /// Starts upstream (see [`upstream`]) and the fake configured alike, with `mutant` if one.
    pub async fn start(mutant: Option<Mutant>) -> anyhow::Result<Self> {
        let rules = deviations::documented().map_err(anyhow::Error::msg)?;
        let upstream = UpstreamServer::start().await?;
        let config = Config {
            // Upstream's CRD finalizer is run after each write to a definition (see
            // `Pair::settle`); nothing else the fake simulates runs without a controller
            // manager or kubelets. The server's own upkeep (Event expiry among it) runs as
            // kube-apiserver's does.
            controller_interval: Duration::from_secs(24 * 3600),
            namespace_controller: false,
            node_agent: false,
            mutant,
            ..Config::default()
        };
        let pair = Self { fake: ApiServer::with_config(config), upstream, rules, attempts: 0, probe: None };
        // The namespaces every server has get their `default` account once per run.
        for ns in SHARED_NAMESPACES {
            pair.setup(&service_account(ns), true).await?;
        }
        Ok(pair)
    }

    /// The fake API server.
    pub fn fake(&self) -> &ApiServer {
        &self.fake
    }

    /// The upstream server.
    pub fn upstream(&self) -> &UpstreamServer {
        &self.upstream
    }

    /// Sends requests of `seed`'s sequence up to `count` (those in `only` if given) to both
    /// servers under a fresh salt, calling `each` with what differs in each answer (and
    /// counting in `report`); stops early when `each` returns false. Returns the attempt's
    /// salt.
    pub async fn attempt(
        &mut self,
        seed: u64,
        count: u64,
        only: Option<&BTreeSet<u64>>,
        report: &mut Report,
        mut each: impl FnMut(&Found) -> bool,
    ) -> anyhow::Result<String> {
        let salt = if self.attempts == 0 { FIRST_SALT.to_string() } else { format!("d{}", self.attempts) };
        self.attempts += 1;
        let mut generator = Generator::salted(seed, &salt);
        for request in generator.setup() {
            self.setup(&request, false).await?;
        }
        self.settle(&generator).await;
        for index in 0..count {
            let request = generator.next_request();
            if only.is_some_and(|o| !o.contains(&index)) {
                continue;
            }
            let found = self.compare(index, &request).await;
            self.probe(index).await;
            if request.uri.contains("customresourcedefinitions") && !matches!(request.method.as_str(), "GET" | "HEAD") {
                self.settle(&generator).await;
            }
            if only.is_none() && (index + 1) % PROGRESS_EVERY == 0 {
                eprintln!("kubegc fuzz: {} of {count} requests sent to both servers", index + 1);
            }
            let Some(found) = found else {
                report.unanswered += 1;
                continue;
            };
            report.count(&found);
            if !found.differences.is_empty() && !each(&found) {
                break;
            }
        }
        Ok(salt)
    }

    /// Reads the probe's list path from both servers and prints each request (`index`) after
    /// which what one lists and the other does not changes, with those names.
    async fn probe(&mut self, index: u64) {
        let Some((path, parted)) = &self.probe else { return };
        let request = FuzzRequest { method: "GET".into(), uri: path.clone(), content_type: None, accept: None, body: vec![] };
        let names = |answer: Option<Answer>| -> BTreeSet<String> {
            let list: serde_json::Value = answer.and_then(|a| serde_json::from_slice(&a.body).ok()).unwrap_or_default();
            let items = list["items"].as_array().cloned().unwrap_or_default();
            items
                .iter()
                .map(|i| format!("{}/{}", i["metadata"]["namespace"].as_str().unwrap_or(""), i["metadata"]["name"].as_str().unwrap_or("")))
                .collect()
        };
        let fake = names(send(&self.fake, &request).await.ok());
        let upstream = names(self.upstream.send(&request, false).await.ok());
        let only = |a: &BTreeSet<String>, b: &BTreeSet<String>| a.difference(b).cloned().collect::<Vec<_>>().join(", ");
        let now = format!("only on the fake [{}], only upstream [{}]", only(&fake, &upstream), only(&upstream, &fake));
        if now != *parted {
            eprintln!("kubegc fuzz: after #{index}, {path} lists {now}");
            self.probe = Some((path.clone(), now));
        }
    }

    /// Sends one request to both servers and compares the answers (`index` is the request's
    /// in its run); `None` when upstream did not answer, or for a CONNECT, which an HTTP client
    /// sends to an authority, not a path.
    pub async fn compare(&self, index: u64, request: &FuzzRequest) -> Option<Found> {
        self.compare_each(index, request, request).await
    }

    /// As [`Pair::compare`], with a request of the same shape built for each server (an update
    /// of the object each one stores); the difference names the upstream one.
    pub async fn compare_each(&self, index: u64, to_fake: &FuzzRequest, request: &FuzzRequest) -> Option<Found> {
        if request.method == "CONNECT" {
            return None;
        }
        let watch = asks_for_watch(request);
        let fake = send(&self.fake, to_fake).await.unwrap_or_else(|panic| Answer {
            code: 0,
            body: panic.into_bytes(),
            streamed: false,
            content_type: None,
            warnings: vec![],
        });
        let upstream = self.upstream.send(request, watch).await.ok()?;
        let context = compare::shared_context(to_fake, request);
        let (mut fake, mut upstream): (Seen, Seen) = (see_in(to_fake, &fake, watch, &context), see_in(request, &upstream, watch, &context));
        compare::align_pages(request, &mut fake, &mut upstream);
        compare::cut_expired_watch(request, &fake, &mut upstream);
        let shape = request_shape(request, watch);
        let differences = differences(&fake, &upstream)
            .into_iter()
            .map(|d| {
                let rule = self.rules.iter().find(|r| r.matches(&shape, &d)).cloned();
                (d, rule)
            })
            .collect();
        Some(Found {
            index,
            origin: None,
            request: request.clone(),
            shape,
            fake: compare::summary(&fake),
            upstream: compare::summary(&upstream),
            differences,
        })
    }

    /// Lets both servers finish what a write to the attempt's definition started.
    async fn settle(&self, generator: &Generator) {
        let served = format!("/apis/{}/v1/widgets", generator.definition_name().trim_start_matches("widgets."));
        self.settle_definition(&generator.definition_name(), &served).await;
    }

    /// Lets both servers finish what a write to the definition `name` started: the fake's CRD
    /// finalizer runs, and upstream is waited for until the definition is gone or serves
    /// `served` (a list path).
    pub async fn settle_definition(&self, name: &str, served: &str) {
        // The finalizer deletes the custom resources in one pass and removes itself in a later.
        for _ in 0..FINALIZER_PASSES {
            let before = self.fake.revision();
            self.fake.run_controllers();
            if self.fake.revision() == before {
                break;
            }
        }
        self.upstream.settle_definition(name, served).await;
    }

    /// Sends a setup request to both servers; each must accept it (or, with `existing`, find
    /// it made already).
    pub async fn setup(&self, request: &FuzzRequest, existing: bool) -> anyhow::Result<()> {
        let fake = send(&self.fake, request).await.map_err(anyhow::Error::msg)?;
        let upstream = self.upstream.send(request, false).await.map_err(anyhow::Error::msg)?;
        for (side, answer) in [("the fake", &fake), ("upstream", &upstream)] {
            if answer.code >= 300 && !(existing && answer.code == 409) {
                bail!("{side} refused a setup request ({}): {request}\n{}", answer.code, String::from_utf8_lossy(&answer.body));
            }
        }
        Ok(())
    }
}

/// Counts each difference of `found` in its class (`shape: field`), the first one seen its
/// example.
pub fn classify(classes: &mut BTreeMap<String, Class>, found: &Found) {
    for (difference, rule) in &found.differences {
        let key = format!("{}: {}", found.shape, difference.field);
        let class = classes.entry(key).or_insert_with(|| Class {
            count: 0,
            documented: rule.as_ref().map(|r| r.why.clone()),
            example: (found.clone(), difference.clone()),
        });
        class.count += 1;
    }
}

/// The salt of a pair's first attempt at a seed (later attempts, while shrinking, count on).
pub const FIRST_SALT: &str = "d0";

/// Runs `options` on a fresh pair of servers: every request with `keep_going` or `only`,
/// else up to the first undocumented difference, which is then shrunk.
pub async fn run(options: &Options) -> anyhow::Result<Report> {
    let started = Instant::now();
    let mut pair = Pair::start(options.mutant).await?;
    pair.probe = options.probe.clone().map(|path| (path, "only on the fake [], only upstream []".to_string()));
    let mut report = Report::default();
    let count = match &options.only {
        Some(only) => only.last().map_or(0, |last| last + 1),
        None => options.requests,
    };
    let stops = !options.keep_going && options.only.is_none();
    let mut first: Option<Found> = None;
    let mut classes = BTreeMap::new();
    pair.attempt(options.seed, count, options.only.as_ref(), &mut report, |found| {
        classify(&mut classes, found);
        if stops && found.undocumented().next().is_some() {
            first = Some(found.clone());
            return false;
        }
        true
    })
    .await?;
    report.classes = classes;
    if let Some(found) = first {
        report.shrunk = Some(shrink_found(&mut pair, options.seed, found).await?);
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Shrinks the requests before `found` to those its first undocumented difference needs: a
/// replay reproduces it when the same request shows an undocumented difference of the same
/// field.
async fn shrink_found(pair: &mut Pair, seed: u64, found: Found) -> anyhow::Result<Shrunk> {
    let target = found.index;
    let field = found.undocumented().next().context("an undocumented difference")?.field.clone();
    let pair = tokio::sync::Mutex::new(pair);
    let failure = std::sync::Mutex::new(None::<anyhow::Error>);
    let replay = |indices: Vec<u64>| {
        let (pair, failure) = (&pair, &failure);
        async move {
            let only: BTreeSet<u64> = indices.into_iter().collect();
            let mut seen = None;
            let outcome = pair
                .lock()
                .await
                .attempt(seed, target + 1, Some(&only), &mut Report::default(), |f| {
                    if f.index == target {
                        seen = Some(f.clone());
                    }
                    true
                })
                .await;
            match outcome {
                Ok(salt) => (seen, Some(salt)),
                Err(e) => {
                    failure.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
                    (None, None)
                }
            }
        }
    };
    let kept = shrink((0..target).collect(), target, SHRINK_BUDGET, |indices| {
        let (field, replayed) = (field.clone(), replay(indices));
        async move { replayed.await.0.is_some_and(|f| f.undocumented().any(|d| d.field == field)) }
    })
    .await;
    // The shrunk case once more, for the answers it shows now.
    let (last, salt) = replay(kept.clone()).await;
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let mut generator = Generator::salted(seed, &salt.unwrap_or_default());
    let requests = (0..=target).map(|_| generator.next_request()).zip(0..).filter(|(_, i)| kept.contains(i)).map(|(r, _)| r).collect();
    Ok(Shrunk { indices: kept, requests, last: last.unwrap_or(found) })
}
