//! A pod's containers over time on a node of the fake, as a pure function of the pod's spec,
//! the moment its node agent started it, when it is asked to stop, and now: init containers one
//! after another, then the rest; exits by each container's [`programs`] rule; restarts as the
//! restart policy says, after the kubelet's crash-loop back-off (none before the first restart,
//! then 10 s doubling to 300 s: `pkg/kubelet/kuberuntime/kuberuntime_manager.go`,
//! `doBackOff`, with kubelet's default `--crash-loop-back-off` bounds); and a stop (a graceful
//! deletion, an active deadline) that ends each process at once or kills it when the grace
//! period is over.

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use crate::workloads::nodes::programs::{self, Exit, Program};

/// The exit code of a process killed with SIGKILL.
pub const KILLED: i32 = 137;

/// The longest crash-loop back-off.
const MAX_BACK_OFF: i64 = 300;

/// A run of a container that has ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ended {
    /// When it started.
    pub started: DateTime<Utc>,
    /// When it ended.
    pub finished: DateTime<Utc>,
    /// Its exit code.
    pub code: i32,
}

/// Where a container is at a moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// Not started: the containers before it have not finished.
    NotStarted,
    /// Running since then.
    Running(DateTime<Utc>),
    /// Ended, not to be started again.
    Ended(Ended),
    /// Ended, waiting out its back-off until the moment given to start again.
    BackOff(Ended, DateTime<Utc>),
}

/// A container at a moment: its state, how often it was restarted and its run before this one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container {
    /// Its name.
    pub name: String,
    /// Whether it is a sidecar (an init container that restarts always).
    pub sidecar: bool,
    /// Where it is.
    pub state: State,
    /// How many times it was restarted.
    pub restarts: i64,
    /// Its run before the current one, if any.
    pub last: Option<Ended>,
}

impl Container {
    /// Whether it has started and has not ended.
    pub fn running(&self) -> bool {
        matches!(self.state, State::Running(_))
    }
}

/// How a pod is being stopped: at `term` its processes are asked to stop, at `kill` they are
/// killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop {
    /// When SIGTERM is sent.
    pub term: DateTime<Utc>,
    /// When SIGKILL is sent.
    pub kill: DateTime<Utc>,
}

/// A pod's containers at a moment, and the next moment any of them changes by itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pod {
    /// Its init containers, in order.
    pub init: Vec<Container>,
    /// Its other containers, in order.
    pub containers: Vec<Container>,
    /// The next moment a container starts or ends, if any.
    pub next: Option<DateTime<Utc>>,
}

impl Pod {
    /// Whether no process of the pod runs or will run again: each container has ended or
    /// waits out a back-off (which a stopped pod never ends), or never started.
    pub fn all_stopped(&self) -> bool {
        self.init.iter().chain(&self.containers).all(|c| !c.running())
    }
}

/// Which exits a container is restarted after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Restart {
    Always,
    OnFailure,
    Never,
}

impl Restart {
    fn after(self, code: i32) -> bool {
        match self {
            Restart::Always => true,
            Restart::OnFailure => code != 0,
            Restart::Never => false,
        }
    }
}

/// The pod `spec` (a core/v1 PodSpec) at `now`, started at `began` and, if `stop` says so,
/// being stopped.
pub fn at(spec: &Value, began: DateTime<Utc>, stop: Option<Stop>, now: DateTime<Utc>) -> Pod {
    let policy = match spec["restartPolicy"].as_str() {
        Some("Never") => Restart::Never,
        Some("OnFailure") => Restart::OnFailure,
        _ => Restart::Always,
    };
    // Until the stop, containers run by themselves; after it none starts again.
    let until = stop.map_or(now, |s| now.min(s.term));
    let mut next: Option<DateTime<Utc>> = None;
    let mut note = |at: Option<DateTime<Utc>>| {
        if let Some(at) = at {
            next = Some(next.map_or(at, |n| n.min(at)));
        }
    };
    let list = |field: &str| -> Vec<Value> { spec[field].as_array().cloned().unwrap_or_default() };
    let mut start = Some(began);
    let mut init = Vec::new();
    for c in list("initContainers") {
        let sidecar = c["restartPolicy"] == "Always";
        let restart = if sidecar { Restart::Always } else { policy.min_on_failure() };
        let (container, changes) = run(&c, sidecar, restart, start, until);
        note(changes);
        start = match (&container.state, sidecar) {
            (State::NotStarted, _) => None,
            (_, true) => start,
            (State::Ended(e), false) if e.code == 0 => Some(e.finished),
            _ => None,
        };
        init.push(container);
    }
    let mut containers = Vec::new();
    for c in list("containers") {
        let (container, changes) = run(&c, false, policy, start, until);
        note(changes);
        containers.push(container);
    }
    let mut pod = Pod { init, containers, next };
    if let Some(stop) = stop {
        stopped(&mut pod, spec, stop, now);
    }
    pod
}

impl Restart {
    /// The policy of a regular init container: it is restarted only after a failure, and only
    /// if the pod's policy restarts at all.
    fn min_on_failure(self) -> Restart {
        if self == Restart::Never { Restart::Never } else { Restart::OnFailure }
    }
}

/// The container `spec` from `start` (none: it has not started) to `until`, and when it next
/// changes by itself.
fn run(
    spec: &Value,
    sidecar: bool,
    restart: Restart,
    start: Option<DateTime<Utc>>,
    until: DateTime<Utc>,
) -> (Container, Option<DateTime<Utc>>) {
    let name = spec["name"].as_str().unwrap_or_default().to_string();
    let mut container = Container { name, sidecar, state: State::NotStarted, restarts: 0, last: None };
    let Some(mut began) = start.filter(|s| *s <= until) else { return (container, start.filter(|s| *s > until)) };
    let program: Program = programs::program(spec);
    loop {
        let Exit::After { after, code } = program.exit else {
            container.state = State::Running(began);
            return (container, None);
        };
        let finished = began + after;
        if finished > until {
            container.state = State::Running(began);
            return (container, Some(finished));
        }
        let ended = Ended { started: began, finished, code };
        if !restart.after(code) {
            container.state = State::Ended(ended);
            return (container, None);
        }
        let again = finished + back_off(container.restarts);
        if again > until {
            container.state = State::BackOff(ended, again);
            return (container, Some(again));
        }
        container.last = Some(ended);
        container.restarts += 1;
        began = again;
    }
}

/// How long a container that was restarted `restarts` times waits before the next restart.
fn back_off(restarts: i64) -> Duration {
    if restarts == 0 {
        return Duration::zero();
    }
    Duration::seconds((10i64 << (restarts - 1).min(10)).min(MAX_BACK_OFF))
}

/// Ends each container that ran when the pod was asked to stop: a program that stops on
/// SIGTERM at once, any other when it is killed (if that moment has come).
fn stopped(pod: &mut Pod, spec: &Value, stop: Stop, now: DateTime<Utc>) {
    if now < stop.term {
        pod.next = Some(pod.next.map_or(stop.term, |n| n.min(stop.term)));
        return;
    }
    let programs: Vec<Program> =
        ["initContainers", "containers"].iter().flat_map(|f| spec[*f].as_array().into_iter().flatten()).map(programs::program).collect();
    let mut killed_later = false;
    for (container, program) in pod.init.iter_mut().chain(pod.containers.iter_mut()).zip(programs) {
        let State::Running(started) = container.state else { continue };
        if program.stops_on_term {
            container.state = State::Ended(Ended { started, finished: stop.term, code: 0 });
        } else if now >= stop.kill {
            container.state = State::Ended(Ended { started, finished: stop.kill, code: KILLED });
        } else {
            killed_later = true;
        }
    }
    pod.next = killed_later.then_some(stop.kill);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn t(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_000_000 + seconds, 0).unwrap()
    }

    fn ended(started: i64, finished: i64, code: i32) -> Ended {
        Ended { started: t(started), finished: t(finished), code }
    }

    #[test]
    fn a_container_that_exits_is_ended_under_never_and_restarted_with_back_off_under_always() {
        let spec =
            |policy: &str| json!({"restartPolicy": policy, "containers": [{"name": "c", "command": ["sh", "-c", "sleep 5; exit 2"]}]});
        let never = at(&spec("Never"), t(0), None, t(100));
        assert_eq!(never.containers[0].state, State::Ended(ended(0, 5, 2)));
        assert_eq!(never.next, None);
        let running = at(&spec("Always"), t(0), None, t(3));
        assert_eq!((running.containers[0].state.clone(), running.next), (State::Running(t(0)), Some(t(5))));
        // First restart at once (5), second after 10 s (10 + 10 = 20), third after 20 s.
        let later = at(&spec("Always"), t(0), None, t(26));
        assert_eq!(later.containers[0].restarts, 2);
        assert_eq!(later.containers[0].state, State::BackOff(ended(20, 25, 2), t(45)));
        assert_eq!(later.containers[0].last, Some(ended(5, 10, 2)));
        assert_eq!(later.next, Some(t(45)));
    }

    #[test]
    fn on_failure_restarts_only_failures() {
        let spec = json!({"restartPolicy": "OnFailure", "containers": [{"name": "ok", "command": ["true"]}, {"name": "bad", "command": ["false"]}]});
        let pod = at(&spec, t(0), None, t(1));
        assert_eq!(pod.containers[0].state, State::Ended(ended(0, 0, 0)));
        assert_eq!(pod.containers[1].restarts, 1);
        assert!(matches!(pod.containers[1].state, State::BackOff(_, _)));
    }

    #[test]
    fn init_containers_run_one_after_another_before_the_rest() {
        let spec = json!({"restartPolicy": "Never",
            "initContainers": [{"name": "a", "command": ["sleep", "2"]}, {"name": "b", "command": ["sleep", "3"]}],
            "containers": [{"name": "main"}]});
        let early = at(&spec, t(0), None, t(4));
        assert_eq!(early.init[1].state, State::Running(t(2)));
        assert_eq!(early.containers[0].state, State::NotStarted);
        assert_eq!(early.next, Some(t(5)));
        let done = at(&spec, t(0), None, t(6));
        assert_eq!(done.containers[0].state, State::Running(t(5)));
        let failing =
            json!({"restartPolicy": "Never", "initContainers": [{"name": "a", "command": ["false"]}], "containers": [{"name": "main"}]});
        assert_eq!(at(&failing, t(0), None, t(1)).containers[0].state, State::NotStarted);
    }

    #[test]
    fn a_stop_ends_servers_at_once_and_kills_sleepers_when_the_grace_period_ends() {
        let spec = json!({"containers": [{"name": "web", "image": "nginx"}, {"name": "sleeper", "command": ["sleep", "3600"]}]});
        let stop = Stop { term: t(10), kill: t(40) };
        let during = at(&spec, t(0), Some(stop), t(20));
        assert_eq!(during.containers[0].state, State::Ended(ended(0, 10, 0)));
        assert_eq!(during.containers[1].state, State::Running(t(0)));
        assert!(!during.all_stopped());
        assert_eq!(during.next, Some(t(40)));
        let after = at(&spec, t(0), Some(stop), t(41));
        assert_eq!(after.containers[1].state, State::Ended(ended(0, 40, KILLED)));
        assert!(after.all_stopped());
    }
}
