//! The status a node agent writes for a pod, as a kubelet writes it
//! (`generateAPIPodStatus` in kubernetes pkg/kubelet/kubelet_pods.go): the phase by
//! `getPhase`'s rules, the pod's conditions, its node's and its own address, and a status per
//! container (init containers in order, the rest sorted by name as kubelet sorts them).
//! Readiness probes count as passing: a running container is ready.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::clock::format_time;
use crate::kubelet::time::format_duration;
use crate::workloads::nodes::lifecycle::{self, Container, Ended, State};

/// Where a pod runs: its node's address and its own.
pub struct Place<'a> {
    /// The node's InternalIP.
    pub host_ip: &'a str,
    /// The pod's address.
    pub pod_ip: &'a str,
}

/// Why a kubelet ended a pod before its containers did, as the pod's status says: its active
/// deadline (`pkg/kubelet/active_deadline.go`), or an eviction (`pkg/kubelet/eviction/
/// eviction_manager.go`, `evictPod`), which also marks the pod a disruption target
/// (`TerminationByKubelet`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndedBy<'a> {
    /// The status's `reason`.
    pub reason: &'a str,
    /// The status's `message`.
    pub message: &'a str,
    /// Whether the pod gets a `DisruptionTarget` condition.
    pub disruption: bool,
}

/// A pod ended by its active deadline.
pub const DEADLINE: EndedBy<'static> =
    EndedBy { reason: "DeadlineExceeded", message: "Pod was active on the node longer than the specified deadline", disruption: false };

/// The reason of a pod its kubelet evicted.
pub const EVICTED_REASON: &str = "Evicted";

/// What the agent knows of a pod besides its spec: where it runs, when it started, where its
/// containers are, whether the kubelet treats it as terminal (it is being deleted, past its
/// deadline or evicted, and nothing of it runs) and whether the kubelet ended it.
pub struct Seen<'a> {
    /// Where it runs.
    pub place: Place<'a>,
    /// When the agent started it.
    pub started: DateTime<Utc>,
    /// Its containers now.
    pub containers: &'a lifecycle::Pod,
    /// Whether it is terminal.
    pub terminal: bool,
    /// What ended it, when the kubelet did (not a deletion).
    pub ended_by: Option<EndedBy<'a>>,
}

/// The status of a pod its agent has just taken on: pending, its sandbox being made, its
/// containers waiting (`ContainerCreating`, or `PodInitializing` behind init containers).
pub fn accepted(pod: &Value, place: &Place, now: DateTime<Utc>) -> Value {
    let spec = &pod["spec"];
    let has_init = spec["initContainers"].as_array().is_some_and(|a| !a.is_empty());
    let waiting = |c: &Value| {
        let reason = if has_init { "PodInitializing" } else { "ContainerCreating" };
        container_json(c, json!({"waiting": {"reason": reason}}), json!({}), false, 0, None)
    };
    let init: Vec<Value> = list(spec, "initContainers").iter().map(waiting).collect();
    let containers: Vec<Value> = sorted(list(spec, "containers")).into_iter().map(waiting).collect();
    let at = format_time(now);
    let old = &pod["status"]["conditions"];
    let conditions = vec![
        condition(old, "PodReadyToStartContainers", false, None, &at),
        condition(old, "Initialized", !has_init, has_init.then(|| ("ContainersNotInitialized", incomplete(spec))), &at),
        condition(old, "Ready", false, Some(("ContainersNotReady", unready_message(&names(spec, "containers")))), &at),
        condition(old, "ContainersReady", false, Some(("ContainersNotReady", unready_message(&names(spec, "containers")))), &at),
        scheduled(old, &at),
    ];
    let mut status = addresses(place);
    status["phase"] = json!("Pending");
    status["conditions"] = json!(conditions);
    status["startTime"] = json!(at);
    status["containerStatuses"] = json!(containers);
    if has_init {
        status["initContainerStatuses"] = json!(init);
    }
    status
}

/// A pod as the kubelet names it in messages (`format.Pod`): `name_namespace(uid)`.
pub fn pod_name(pod: &Value) -> String {
    let meta = &pod["metadata"];
    let field = |f: &str| meta[f].as_str().unwrap_or_default().to_string();
    format!("{}_{}({})", field("name"), field("namespace"), field("uid"))
}

/// The status of a running (or ended) pod at `now`.
pub fn running(pod: &Value, seen: &Seen, now: DateTime<Utc>) -> Value {
    let spec = &pod["spec"];
    let meta = &pod["metadata"];
    let who = pod_name(pod);
    let render = |spec_c: &Value, c: &Container| render_container(spec_c, c, meta["uid"].as_str().unwrap_or_default(), &who);
    let init_specs = list(spec, "initContainers");
    let init: Vec<Value> = init_specs.iter().zip(&seen.containers.init).map(|(s, c)| render(s, c)).collect();
    let mut regular: Vec<(&Value, &Container)> = list(spec, "containers").iter().zip(&seen.containers.containers).collect();
    regular.sort_by_key(|(s, _)| s["name"].as_str().unwrap_or_default().to_string());
    let containers: Vec<Value> = regular.iter().map(|(s, c)| render(s, c)).collect();

    let phase = phase(spec, seen.containers, seen.terminal);
    let initialized = initialized(&seen.containers.init);
    let unready: Vec<&str> = seen
        .containers
        .containers
        .iter()
        .chain(seen.containers.init.iter().filter(|c| c.sidecar))
        .filter(|c| !c.running())
        .map(|c| c.name.as_str())
        .collect();
    let at = format_time(now);
    let old = &pod["status"]["conditions"];
    let done = matches!(phase, "Succeeded" | "Failed");
    // A finished pod is not ready because it completed or failed (pkg/kubelet/status/generate.go
    // `generatePodReadyConditionForTerminalPhase`).
    let not_ready = match phase {
        "Succeeded" => Some(("PodCompleted", String::new())),
        "Failed" => Some(("PodFailed", String::new())),
        _ => Some(("ContainersNotReady", unready_message(&unready))),
    };
    let ready = !done && unready.is_empty();
    let pending_init: Vec<&str> = seen.containers.init.iter().filter(|c| !init_done(c)).map(|c| c.name.as_str()).collect();
    let mut conditions = vec![
        condition(old, "PodReadyToStartContainers", !(seen.terminal && seen.containers.all_stopped()), None, &at),
        condition(
            old,
            "Initialized",
            initialized,
            (!initialized).then(|| ("ContainersNotInitialized", incomplete_message(&pending_init))),
            &at,
        ),
        condition(old, "Ready", ready, if ready { None } else { not_ready.clone() }, &at),
        condition(old, "ContainersReady", ready, if ready { None } else { not_ready }, &at),
        scheduled(old, &at),
    ];
    let mut status = addresses(&seen.place);
    status["phase"] = json!(phase);
    status["startTime"] = json!(format_time(seen.started));
    status["containerStatuses"] = json!(containers);
    if !init.is_empty() {
        status["initContainerStatuses"] = json!(init);
    }
    if let Some(ended) = seen.ended_by {
        status["reason"] = json!(ended.reason);
        status["message"] = json!(ended.message);
        if ended.disruption {
            conditions.push(condition(old, "DisruptionTarget", true, Some(("TerminationByKubelet", ended.message.to_string())), &at));
        }
    }
    status["conditions"] = json!(conditions);
    status
}

/// The pod's phase by `getPhase` (kubernetes pkg/kubelet/kubelet_pods.go): failed when an init
/// container failed under `Never`; pending while init containers or containers have to start;
/// running while any runs; once all have stopped, succeeded if every one exited 0 and the pod
/// is terminal or not restarted, else failed (or running, while restarts are due).
pub fn phase(spec: &Value, pod: &lifecycle::Pod, terminal: bool) -> &'static str {
    let never = spec["restartPolicy"] == "Never";
    let always = spec["restartPolicy"].as_str().is_none_or(|p| p == "Always");
    let mut pending_init = 0;
    let mut failed_init = 0;
    let mut pending_sidecars = 0;
    let (mut running, mut waiting, mut stopped, mut succeeded) = (0, 0, 0, 0);
    for c in &pod.init {
        match (&c.state, c.sidecar) {
            (State::NotStarted, true) => {
                pending_sidecars += 1;
                waiting += 1;
            }
            (State::Running(_), true) => running += 1,
            (_, true) => {}
            (State::NotStarted | State::Running(_), false) => pending_init += 1,
            (State::Ended(e) | State::BackOff(e, _), false) if e.code != 0 => failed_init += 1,
            _ => {}
        }
    }
    for c in &pod.containers {
        match &c.state {
            State::NotStarted => waiting += 1,
            State::Running(_) => running += 1,
            State::Ended(e) => {
                stopped += 1;
                succeeded += i32::from(e.code == 0);
            }
            State::BackOff(..) => stopped += 1,
        }
    }
    if failed_init > 0 && never {
        return "Failed";
    }
    if pending_init > 0 || (pending_sidecars > 0 && !initialized(&pod.init)) || waiting > 0 {
        return "Pending";
    }
    if running > 0 {
        return "Running";
    }
    if stopped == 0 {
        return "Pending";
    }
    match (terminal, stopped == succeeded) {
        (true, true) => "Succeeded",
        (true, false) => "Failed",
        _ if always => "Running",
        (_, true) => "Succeeded",
        _ if never => "Failed",
        _ => "Running",
    }
}

/// Whether an init container no longer holds the pod back: it exited 0, or it is a sidecar
/// that started.
fn init_done(c: &Container) -> bool {
    match (&c.state, c.sidecar) {
        (State::NotStarted, _) => false,
        (_, true) => true,
        (State::Ended(e), false) => e.code == 0,
        _ => false,
    }
}

/// Whether every init container is done.
fn initialized(init: &[Container]) -> bool {
    init.iter().all(init_done)
}

/// A container's status JSON.
fn render_container(spec: &Value, c: &Container, uid: &str, who: &str) -> Value {
    let id = |restarts: i64| container_id(uid, &c.name, restarts);
    let (state, last) = match &c.state {
        State::NotStarted => (json!({"waiting": {"reason": "PodInitializing"}}), json!({})),
        State::Running(since) => (
            json!({"running": {"startedAt": format_time(*since)}}),
            c.last.as_ref().map_or(json!({}), |l| terminated(l, &id(c.restarts - 1))),
        ),
        State::Ended(e) => (terminated(e, &id(c.restarts)), c.last.as_ref().map_or(json!({}), |l| terminated(l, &id(c.restarts - 1)))),
        State::BackOff(e, until) => {
            let message = format!("back-off {} restarting failed container={} pod={who}", format_duration(*until - e.finished), c.name);
            (json!({"waiting": {"reason": "CrashLoopBackOff", "message": message}}), terminated(e, &id(c.restarts)))
        }
    };
    let running = c.running();
    let created = !matches!(c.state, State::NotStarted);
    container_json(spec, state, last, running, c.restarts, created.then(|| id(c.restarts)))
}

/// One container's status: its name and image, state and last state, readiness, restarts and,
/// once it was created, the runtime's id of it.
fn container_json(spec: &Value, state: Value, last: Value, running: bool, restarts: i64, id: Option<String>) -> Value {
    let image = spec["image"].as_str().unwrap_or_default();
    let (reference, image_id) = image_names(image);
    let mut status = json!({
        "name": spec["name"],
        "state": state,
        "lastState": last,
        "ready": running,
        "restartCount": restarts,
        "image": reference,
        "imageID": if id.is_some() { image_id } else { String::new() },
        "started": running,
    });
    if let Some(id) = id {
        status["containerID"] = json!(id);
    }
    status
}

/// A terminated state.
fn terminated(e: &Ended, id: &str) -> Value {
    json!({"terminated": {
        "exitCode": e.code,
        "reason": if e.code == 0 { "Completed" } else { "Error" },
        "startedAt": format_time(e.started),
        "finishedAt": format_time(e.finished),
        "containerID": id,
    }})
}

/// The runtime's id of a container's run: `containerd://` and a digest of the pod, the
/// container and the run.
fn container_id(uid: &str, name: &str, run: i64) -> String {
    format!("containerd://{}", digest(&format!("{uid}/{name}/{run}")))
}

/// The SHA-256 digest of `text`, in hex.
fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// An image as a kubelet reports it (fully qualified, `docker.io/library/` and `:latest`
/// added as the container runtime resolves them), and its digest reference.
pub fn image_names(image: &str) -> (String, String) {
    let (name, tag) = split_tag(image);
    let first = name.split('/').next().unwrap_or_default();
    let has_registry = name.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let qualified = match (has_registry, name.contains('/')) {
        (true, _) => name.to_string(),
        (false, true) => format!("docker.io/{name}"),
        (false, false) => format!("docker.io/library/{name}"),
    };
    let digest = digest(image);
    let reference = match tag {
        Some(t) if t.starts_with('@') => format!("{qualified}{t}"),
        Some(t) => format!("{qualified}:{t}"),
        None => format!("{qualified}:latest"),
    };
    (reference, format!("{qualified}@sha256:{digest}"))
}

/// An image's name and its tag (or `@digest`), if any.
fn split_tag(image: &str) -> (&str, Option<&str>) {
    if let Some(at) = image.find('@') {
        return (&image[..at], Some(&image[at..]));
    }
    match image.rfind(':') {
        Some(colon) if !image[colon..].contains('/') => (&image[..colon], Some(&image[colon + 1..])),
        _ => (image, None),
    }
}

/// The node's and the pod's addresses.
fn addresses(place: &Place) -> Value {
    json!({
        "hostIP": place.host_ip,
        "hostIPs": [{"ip": place.host_ip}],
        "podIP": place.pod_ip,
        "podIPs": [{"ip": place.pod_ip}],
    })
}

/// A condition of `kind`, keeping its last transition time from `old` when its status is the same.
fn condition(old: &Value, kind: &str, status: bool, reason: Option<(&str, String)>, at: &str) -> Value {
    let status = if status { "True" } else { "False" };
    let previous = old.as_array().into_iter().flatten().find(|c| c["type"] == kind);
    let since = previous.filter(|c| c["status"] == status).map_or(json!(at), |c| c["lastTransitionTime"].clone());
    let mut c = json!({"type": kind, "status": status, "lastProbeTime": null, "lastTransitionTime": since});
    if let Some((reason, message)) = reason {
        c["reason"] = json!(reason);
        if !message.is_empty() {
            c["message"] = json!(message);
        }
    }
    c
}

/// The PodScheduled condition the binding wrote, or a true one.
fn scheduled(old: &Value, at: &str) -> Value {
    old.as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "PodScheduled")
        .cloned()
        .unwrap_or_else(|| condition(&Value::Null, "PodScheduled", true, None, at))
}

/// The containers of `spec`'s `field`.
fn list<'a>(spec: &'a Value, field: &str) -> &'a [Value] {
    spec[field].as_array().map_or(&[], Vec::as_slice)
}

/// Containers sorted by name.
fn sorted(containers: &[Value]) -> Vec<&Value> {
    let mut sorted: Vec<&Value> = containers.iter().collect();
    sorted.sort_by_key(|c| c["name"].as_str().unwrap_or_default());
    sorted
}

/// The names of `spec`'s `field` containers.
fn names<'a>(spec: &'a Value, field: &str) -> Vec<&'a str> {
    list(spec, field).iter().filter_map(|c| c["name"].as_str()).collect()
}

/// Why a pod is not initialized before its init containers start.
fn incomplete(spec: &Value) -> String {
    incomplete_message(&names(spec, "initContainers"))
}

/// `containers with incomplete status: [a b]`.
fn incomplete_message(names: &[&str]) -> String {
    format!("containers with incomplete status: [{}]", names.join(" "))
}

/// `containers with unready status: [a b]`.
fn unready_message(names: &[&str]) -> String {
    format!("containers with unready status: [{}]", names.join(" "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::workloads::nodes::lifecycle::{Stop, at};

    fn t(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_000_000 + seconds, 0).unwrap()
    }

    fn pod(spec: Value) -> Value {
        json!({"metadata": {"name": "p", "namespace": "ns", "uid": "u"}, "spec": spec})
    }

    fn status_at(spec: Value, stop: Option<Stop>, now: i64) -> Value {
        let pod = pod(spec);
        let containers = at(&pod["spec"], t(0), stop, t(now));
        let terminal = stop.is_some_and(|s| t(now) >= s.term) && containers.all_stopped();
        let seen = Seen {
            place: Place { host_ip: "10.0.0.2", pod_ip: "10.244.1.2" },
            started: t(0),
            containers: &containers,
            terminal,
            ended_by: None,
        };
        running(&pod, &seen, t(now))
    }

    #[test]
    fn a_running_pod_is_ready_and_a_finished_one_is_succeeded_or_failed() {
        let spec = json!({"restartPolicy": "Never", "containers": [{"name": "b", "image": "busybox", "command": ["sleep", "5"]}, {"name": "a", "image": "nginx"}]});
        let status = status_at(spec.clone(), None, 1);
        assert_eq!(status["phase"], "Running");
        assert_eq!(status["containerStatuses"][0]["name"], "a", "sorted by name");
        assert_eq!(status["containerStatuses"][0]["image"], "docker.io/library/nginx:latest");
        assert_eq!(
            status["conditions"][2],
            json!({"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": format_time(t(1))})
        );
        let status = status_at(spec, None, 6);
        assert_eq!(status["phase"], "Running", "one container still runs");
        assert_eq!(status["containerStatuses"][1]["state"]["terminated"]["reason"], "Completed");
        assert_eq!(status["conditions"][2]["message"], "containers with unready status: [b]");
        let done =
            status_at(json!({"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox", "command": ["false"]}]}), None, 1);
        assert_eq!(done["phase"], "Failed");
        assert_eq!(done["conditions"][2]["reason"], "PodFailed");
        let done =
            status_at(json!({"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox", "command": ["true"]}]}), None, 1);
        assert_eq!(done["phase"], "Succeeded");
        assert_eq!(done["conditions"][2]["reason"], "PodCompleted");
    }

    #[test]
    fn a_crash_looping_container_waits_with_its_last_termination() {
        let status = status_at(json!({"containers": [{"name": "c", "image": "busybox", "command": ["false"]}]}), None, 5);
        assert_eq!(status["phase"], "Running");
        let c = &status["containerStatuses"][0];
        assert_eq!(c["restartCount"], 1);
        assert_eq!(c["state"]["waiting"]["reason"], "CrashLoopBackOff");
        assert_eq!(c["state"]["waiting"]["message"], "back-off 10s restarting failed container=c pod=p_ns(u)");
        assert_eq!(c["lastState"]["terminated"]["exitCode"], 1);
    }

    #[test]
    fn a_deleted_pod_is_terminal_once_its_containers_stopped() {
        let stop = Some(Stop { term: t(10), kill: t(40) });
        let status = status_at(json!({"containers": [{"name": "web", "image": "nginx"}]}), stop, 11);
        assert_eq!(status["phase"], "Succeeded", "exit 0 on SIGTERM");
        let status = status_at(json!({"containers": [{"name": "s", "image": "busybox", "command": ["sleep", "3600"]}]}), stop, 41);
        assert_eq!(status["phase"], "Failed", "killed with 137");
        assert_eq!(status["containerStatuses"][0]["state"]["terminated"]["exitCode"], 137);
    }

    #[test]
    fn images_are_qualified_as_the_runtime_reports_them() {
        assert_eq!(image_names("nginx").0, "docker.io/library/nginx:latest");
        assert_eq!(image_names("bitnami/redis:7").0, "docker.io/bitnami/redis:7");
        assert_eq!(image_names("registry.k8s.io/pause:3.10").0, "registry.k8s.io/pause:3.10");
        assert_eq!(image_names("localhost:5000/app").0, "localhost:5000/app:latest");
    }
}
