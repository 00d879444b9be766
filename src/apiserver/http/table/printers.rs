//! The cells upstream's printers write for each built-in kind (k8s.io/kubernetes
//! pkg/printers/internalversion/printers.go, `print<Kind>`), read from objects as served. The
//! server asks the printers for the wide output, so the priority-1 columns are filled too.

use std::borrow::Cow;
use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::{Cell, human_duration};
use crate::apiserver::catalogue::ResourceInfo;
use crate::clock::parse_time;

/// A string field, "" when unset (Go's zero value).
fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// An integer field, 0 when unset.
fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

/// A list field, empty when unset.
fn list(v: &Value) -> &[Value] {
    v.as_array().map_or(&[][..], Vec::as_slice)
}

/// Whether a pointer field is set.
fn set(v: &Value) -> bool {
    !v.is_null()
}

/// A timestamp field, `None` when unset (Go's zero time).
fn time(v: &Value) -> Option<DateTime<Utc>> {
    v.as_str().and_then(parse_time)
}

/// The time since a timestamp as an age, `<unknown>` when unset (`translateTimestampSince`).
fn since(v: &Value, now: DateTime<Utc>) -> String {
    time(v).map_or_else(|| "<unknown>".into(), |t| human_duration(now - t))
}

/// `s`, or `default` when it is empty.
fn or(s: String, default: &str) -> String {
    if s.is_empty() { default.into() } else { s }
}

/// The number of keys of the maps `keys` name (ConfigMap and Secret data).
fn count(o: &Value, keys: &[&str]) -> Value {
    json!(keys.iter().map(|k| o[*k].as_object().map_or(0, Map::len)).sum::<usize>())
}

/// A label map as `key=value` pairs in key order, `<none>` when empty (`labels.FormatLabels`).
fn labels(v: &Value) -> String {
    let mut pairs: Vec<(&String, &str)> = v.as_object().into_iter().flatten().map(|(k, v)| (k, text(v))).collect();
    pairs.sort();
    or(pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","), "<none>")
}

/// A `LabelSelector` as the selector it makes prints (`metav1.LabelSelectorAsSelector`): its
/// requirements in key order, "" when it has none.
fn selector(v: &Value) -> String {
    let labels = v["matchLabels"].as_object().into_iter().flatten().map(|(k, v)| (k.as_str(), format!("{k}={}", text(v))));
    let expressions = list(&v["matchExpressions"]).iter().map(|e| {
        let key = text(&e["key"]);
        let mut values: Vec<&str> = list(&e["values"]).iter().map(text).collect();
        values.sort();
        let requirement = match text(&e["operator"]) {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "DoesNotExist" => format!("!{key}"),
            _ => key.to_string(),
        };
        (key, requirement)
    });
    let mut requirements: Vec<(&str, String)> = labels.chain(expressions).collect();
    requirements.sort_by_key(|(key, _)| *key);
    requirements.into_iter().map(|(_, r)| r).collect::<Vec<_>>().join(",")
}

/// A `LabelSelector` as [`selector`] prints it, `<none>` when empty (`metav1.FormatLabelSelector`).
fn label_selector(v: &Value) -> String {
    or(selector(v), "<none>")
}

/// The pod spec of an object's pod template: a PodTemplate's, a CronJob's job template's, or
/// `spec.template`'s.
fn pod_spec(o: &Value) -> &Value {
    if set(&o["spec"]["jobTemplate"]) {
        &o["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    } else if set(&o["template"]) {
        &o["template"]["spec"]
    } else {
        &o["spec"]["template"]["spec"]
    }
}

/// One field of each container of the pod template, joined with commas (`layoutContainerCells`).
fn containers(o: &Value, field: &str) -> Value {
    json!(list(&pod_spec(o)["containers"]).iter().map(|c| text(&c[field])).collect::<Vec<_>>().join(","))
}

/// Whether the first condition of `kind` in `conditions` is true (`hasJobCondition`).
fn condition(conditions: &Value, kind: &str) -> bool {
    list(conditions).iter().find(|c| c["type"] == kind).is_some_and(|c| c["status"] == "True")
}

/// Whether any condition of `kind` is true (`hasPodReadyCondition`).
fn any_condition(conditions: &Value, kind: &str) -> bool {
    list(conditions).iter().any(|c| c["type"] == kind && c["status"] == "True")
}

/// A terminated container state's reason, else its signal or exit code, as `printPod` names it.
fn terminated_reason(terminated: &Value) -> String {
    match (text(&terminated["reason"]), int(&terminated["signal"])) {
        ("", 0) => format!("ExitCode:{}", int(&terminated["exitCode"])),
        ("", signal) => format!("Signal:{signal}"),
        (reason, _) => reason.to_string(),
    }
}

/// A pod's Ready, Status and Restarts cells, worked out from its init and app container
/// statuses as `printPod` (printers.go) does: the first unfinished init container decides the
/// status while the pod initializes, else the app containers, last first; restartable
/// (sidecar) init containers count as app containers.
fn pod_summary(pod: &Value, now: DateTime<Utc>) -> [String; 3] {
    let (spec, status) = (&pod["spec"], &pod["status"]);
    let inits = list(&spec["initContainers"]);
    let sidecar = |name: &str| inits.iter().any(|c| c["name"] == name && c["restartPolicy"] == "Always");
    let total = list(&spec["containers"]).len() + inits.iter().filter(|c| c["restartPolicy"] == "Always").count();
    let finished = |c: &Value| time(&c["lastState"]["terminated"]["finishedAt"]);
    let phase = text(&status["phase"]);
    let mut reason = or(text(&status["reason"]).into(), phase);
    if list(&status["conditions"]).iter().any(|c| c["type"] == "PodScheduled" && c["reason"] == "SchedulingGated") {
        reason = "SchedulingGated".into();
    }
    let (mut ready, mut restarts, mut sidecar_restarts) = (0, 0, 0);
    let (mut last, mut sidecar_last) = (None, None);
    let mut initializing = false;
    for (i, c) in list(&status["initContainerStatuses"]).iter().enumerate() {
        restarts += int(&c["restartCount"]);
        last = last.max(finished(c));
        let is_sidecar = sidecar(text(&c["name"]));
        if is_sidecar {
            sidecar_restarts += int(&c["restartCount"]);
            sidecar_last = sidecar_last.max(finished(c));
        }
        let (terminated, waiting) = (&c["state"]["terminated"], &c["state"]["waiting"]);
        if set(terminated) && int(&terminated["exitCode"]) == 0 {
            continue;
        }
        if is_sidecar && c["started"] == true {
            ready += usize::from(c["ready"] == true);
            continue;
        }
        reason = if set(terminated) {
            format!("Init:{}", terminated_reason(terminated))
        } else if set(waiting) && !matches!(text(&waiting["reason"]), "" | "PodInitializing") {
            format!("Init:{}", text(&waiting["reason"]))
        } else {
            format!("Init:{i}/{}", inits.len())
        };
        initializing = true;
        break;
    }
    let initialized = list(&status["conditions"]).iter().find(|c| c["type"] == "Initialized").is_some_and(|c| c["status"] == "True");
    if !initializing || initialized {
        (restarts, last) = (sidecar_restarts, sidecar_last);
        let (mut running, mut error) = (false, None);
        for c in list(&status["containerStatuses"]).iter().rev() {
            restarts += int(&c["restartCount"]);
            last = last.max(finished(c));
            let (terminated, waiting) = (&c["state"]["terminated"], &c["state"]["waiting"]);
            if set(waiting) && !text(&waiting["reason"]).is_empty() {
                reason = text(&waiting["reason"]).into();
            } else if set(terminated) {
                reason = terminated_reason(terminated);
                if int(&terminated["exitCode"]) != 0 {
                    error = Some(reason.clone());
                }
            } else if c["ready"] == true && set(&c["state"]["running"]) {
                running = true;
                ready += 1;
            }
        }
        if reason == "Completed" {
            if running && any_condition(&status["conditions"], "Ready") {
                reason = "Running".into();
            } else if let Some(error) = error {
                reason = error;
            } else if running {
                reason = "NotReady".into();
            }
        }
    }
    if set(&pod["metadata"]["deletionTimestamp"]) {
        if status["reason"] == "NodeLost" {
            reason = "Unknown".into();
        } else if !matches!(phase, "Succeeded" | "Failed") {
            reason = "Terminating".into();
        }
    }
    let restarts = match last {
        Some(t) if restarts != 0 => format!("{restarts} ({} ago)", human_duration(now - t)),
        _ => restarts.to_string(),
    };
    [format!("{ready}/{total}"), reason, restarts]
}

/// A pod's Readiness Gates cell: how many of its gates' conditions are true, of how many.
fn readiness_gates(pod: &Value) -> String {
    let gates = list(&pod["spec"]["readinessGates"]);
    let conditions = &pod["status"]["conditions"];
    let passed = gates.iter().filter(|g| condition(conditions, text(&g["conditionType"]))).count();
    if gates.is_empty() { "<none>".into() } else { format!("{passed}/{}", gates.len()) }
}

/// A Job's Status cell: its first true condition in `printJob`'s order, else Terminating or
/// Running.
fn job_status(o: &Value) -> &'static str {
    let conditions = &o["status"]["conditions"];
    let first = |kinds: &[&'static str]| kinds.iter().copied().find(|c| condition(conditions, c));
    match first(&["Complete", "Failed"]) {
        Some(status) => status,
        None if set(&o["metadata"]["deletionTimestamp"]) => "Terminating",
        None => first(&["Suspended", "FailureTarget", "SuccessCriteriaMet"]).unwrap_or("Running"),
    }
}

/// A Job's Completions cell: succeeded of completions, or of one (with its parallelism).
fn job_completions(o: &Value) -> String {
    let (spec, succeeded) = (&o["spec"], int(&o["status"]["succeeded"]));
    match (set(&spec["completions"]), int(&spec["parallelism"])) {
        (true, _) => format!("{succeeded}/{}", int(&spec["completions"])),
        (false, parallelism) if parallelism > 1 => format!("{succeeded}/1 of {parallelism}"),
        _ => format!("{succeeded}/1"),
    }
}

/// A Job's Duration cell: from its start to its completion, or to now; "" before it starts.
fn job_duration(o: &Value, now: DateTime<Utc>) -> String {
    let status = &o["status"];
    match (time(&status["startTime"]), time(&status["completionTime"])) {
        (None, _) => String::new(),
        (Some(start), end) => human_duration(end.unwrap_or(now) - start),
    }
}

/// A Service's External-IP cell (`getServiceExternalIP`, wide: never clipped).
fn service_external_ip(o: &Value) -> String {
    let spec = &o["spec"];
    let external: Vec<&str> = list(&spec["externalIPs"]).iter().map(text).collect();
    match text(&spec["type"]) {
        "ClusterIP" | "NodePort" => or(external.join(","), "<none>"),
        "LoadBalancer" => {
            let ingress = list(&o["status"]["loadBalancer"]["ingress"]).iter();
            let address = |i: &Value| match text(&i["ip"]) {
                "" => text(&i["hostname"]).to_string(),
                ip => ip.to_string(),
            };
            let balancers: BTreeSet<String> = ingress.map(address).filter(|b| !b.is_empty()).collect();
            let all: Vec<&str> = balancers.iter().map(String::as_str).chain(external).collect();
            or(all.join(","), "<pending>")
        }
        "ExternalName" => text(&spec["externalName"]).into(),
        _ => "<unknown>".into(),
    }
}

/// A Service's Port(s) cell: `port[:nodePort]/protocol` of each port (`makePortString`).
fn service_ports(o: &Value) -> String {
    let port = |p: &Value| match int(&p["nodePort"]) {
        0 => format!("{}/{}", int(&p["port"]), text(&p["protocol"])),
        node => format!("{}:{node}/{}", int(&p["port"]), text(&p["protocol"])),
    };
    or(list(&o["spec"]["ports"]).iter().map(port).collect::<Vec<_>>().join(","), "<none>")
}

/// `host:port`, with an IPv6 host in brackets (Go's `net.JoinHostPort`).
fn host_port(host: &str, port: i64) -> String {
    if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") }
}

/// The first three of `items` joined with commas, then how many more (`listWithMoreString`
/// and `formatEndpoints`).
fn first_three(items: Vec<String>) -> String {
    match items.len() {
        n if n > 3 => format!("{} + {} more...", items[..3].join(","), n - 3),
        _ => items.join(","),
    }
}

/// An Endpoints' Endpoints cell: each address with each port of its subset (`formatEndpoints`).
fn endpoints(o: &Value) -> String {
    let subsets = list(&o["subsets"]);
    let items = subsets.iter().flat_map(|s| {
        let addresses = list(&s["addresses"]).iter().map(|a| text(&a["ip"]));
        match list(&s["ports"]) {
            [] => addresses.map(String::from).collect::<Vec<_>>(),
            ports => ports
                .iter()
                .flat_map(|p| {
                    let port = int(&p["port"]);
                    addresses.clone().map(move |ip| host_port(ip, port))
                })
                .collect(),
        }
    });
    if subsets.is_empty() { "<none>".into() } else { first_three(items.collect()) }
}

/// An EndpointSlice's Ports cell: each port's number, else name, else `*`
/// (`formatDiscoveryPorts`).
fn slice_ports(o: &Value) -> String {
    let port = |p: &Value| match (&p["port"], &p["name"]) {
        (Value::Number(n), _) => n.to_string(),
        (_, Value::String(name)) => name.clone(),
        _ => "*".into(),
    };
    or(first_three(list(&o["ports"]).iter().map(port).collect()), "<unset>")
}

/// An EndpointSlice's Endpoints cell: every endpoint's addresses (`formatDiscoveryEndpoints`).
fn slice_endpoints(o: &Value) -> String {
    let addresses = list(&o["endpoints"]).iter().flat_map(|e| list(&e["addresses"]).iter().map(|a| text(a).to_string()));
    or(first_three(addresses.collect()), "<unset>")
}

/// A Node's Status cell: Ready, NotReady or Unknown by its last Ready condition, and whether
/// it is cordoned (`printNode`).
fn node_status(o: &Value) -> String {
    let ready = list(&o["status"]["conditions"]).iter().rev().find(|c| c["type"] == "Ready");
    let mut status = vec![match ready {
        Some(c) if c["status"] == "True" => "Ready",
        Some(_) => "NotReady",
        None => "Unknown",
    }];
    if o["spec"]["unschedulable"] == true {
        status.push("SchedulingDisabled");
    }
    status.join(",")
}

/// A Node's Roles cell, from its `node-role.kubernetes.io/<role>` and `kubernetes.io/role`
/// labels, sorted (`findNodeRoles`).
fn node_roles(o: &Value) -> String {
    let labels = o["metadata"]["labels"].as_object().into_iter().flatten();
    let roles: BTreeSet<&str> = labels
        .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
            Some(role) => Some(role),
            None if k == "kubernetes.io/role" => Some(text(v)),
            None => None,
        })
        .filter(|r| !r.is_empty())
        .collect();
    or(roles.into_iter().collect::<Vec<_>>().join(","), "<none>")
}

/// A Node's first address of `kind`, `<none>` without one.
fn node_address(o: &Value, kind: &str) -> String {
    list(&o["status"]["addresses"]).iter().find(|a| a["type"] == kind).map_or("<none>".into(), |a| text(&a["address"]).into())
}

/// A Node's Kernel-Version cell, with its architecture.
fn node_kernel(o: &Value) -> String {
    let info = &o["status"]["nodeInfo"];
    let kernel = or(text(&info["kernelVersion"]).into(), "<unknown>");
    match text(&info["architecture"]) {
        "" => kernel,
        arch => format!("{kernel} ({arch})"),
    }
}

/// An Event's First Seen cell: since its first timestamp, else its event time (`printEvent`).
fn event_first(e: &Value, now: DateTime<Utc>) -> String {
    time(&e["firstTimestamp"]).map_or_else(|| since(&e["eventTime"], now), |t| human_duration(now - t))
}

/// An Event's Last Seen cell: since its series' last observation, else its last timestamp,
/// else as First Seen.
fn event_last(e: &Value, now: DateTime<Utc>) -> String {
    match (set(&e["series"]), time(&e["lastTimestamp"])) {
        (true, _) => since(&e["series"]["lastObservedTime"], now),
        (false, Some(t)) => human_duration(now - t),
        (false, None) => event_first(e, now),
    }
}

/// An Event's Count cell: its series' count, else its count, and 1 for a singleton.
fn event_count(e: &Value) -> i64 {
    match (set(&e["series"]), int(&e["count"])) {
        (true, _) => int(&e["series"]["count"]),
        (false, 0) => 1,
        (false, count) => count,
    }
}

/// An Event's Object cell: `kind/name` of what it is about, the kind lowercased.
fn event_object(e: &Value) -> String {
    let object = &e["involvedObject"];
    let kind = text(&object["kind"]).to_lowercase();
    match text(&object["name"]) {
        "" => kind,
        name => format!("{kind}/{name}"),
    }
}

/// An Event's Source cell: the component (else reporting controller), then the host (else
/// reporting instance) after a comma when there is one (`formatEventSource`).
fn event_source(e: &Value) -> String {
    let component = or(text(&e["source"]["component"]).into(), text(&e["reportingComponent"]));
    match or(text(&e["source"]["host"]).into(), text(&e["reportingInstance"])).as_str() {
        "" => component,
        instance => format!("{component}, {instance}"),
    }
}

/// Access modes by their short names in a fixed order, each once (`GetAccessModesAsString`).
fn access_modes(v: &Value) -> String {
    let modes = list(v);
    let names = [("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP")];
    names.iter().filter(|(mode, _)| modes.iter().any(|m| m == mode)).map(|(_, short)| *short).collect::<Vec<_>>().join(",")
}

/// A volume's or claim's class: the beta annotation's, else its `storageClassName`
/// (`GetPersistentVolumeClass`, `GetPersistentVolumeClaimClass`).
fn storage_class(o: &Value) -> Value {
    match &o["metadata"]["annotations"]["volume.beta.kubernetes.io/storage-class"] {
        Value::String(class) => json!(class),
        _ => json!(text(&o["spec"]["storageClassName"])),
    }
}

/// Its phase, or Terminating once deleted (PersistentVolume, PersistentVolumeClaim).
fn volume_phase(o: &Value) -> Value {
    if set(&o["metadata"]["deletionTimestamp"]) { json!("Terminating") } else { json!(text(&o["status"]["phase"])) }
}

/// A claim's Capacity (`capacity`) or Access Modes cell: its status's once bound to a volume,
/// else "".
fn claim_bound(o: &Value, capacity: bool) -> Value {
    let status = &o["status"];
    match (text(&o["spec"]["volumeName"]), capacity) {
        ("", _) => json!(""),
        (_, true) => json!(status["capacity"]["storage"].as_str().unwrap_or("0")),
        (_, false) => json!(access_modes(&status["accessModes"])),
    }
}

/// A ResourceQuota's Request (or, `limits`, Limit) cell: `resource: used/hard` of each hard
/// resource in name order, `limits.*` ones in Limit (`printResourceQuota`).
fn quota(o: &Value, limits: bool) -> String {
    let (hard, used) = (&o["status"]["hard"], &o["status"]["used"]);
    let mut resources: Vec<&String> = hard.as_object().into_iter().flatten().map(|(k, _)| k).collect();
    resources.sort();
    let entries = resources.into_iter().filter(|r| r.starts_with("limits.") == limits);
    let entry = |r: &String| format!("{r}: {}/{}", used[r].as_str().unwrap_or("0"), text(&hard[r]));
    entries.map(entry).collect::<Vec<_>>().join(", ")
}

/// A definition's Versions cell: its served versions, the storage version marked, sorted.
fn served_versions(o: &Value) -> String {
    let served = list(&o["spec"]["versions"]).iter().filter(|v| v["served"] == true);
    let mut versions: Vec<String> = served
        .map(|v| if v["storage"] == true { format!("{}(storage)", text(&v["name"])) } else { text(&v["name"]).to_string() })
        .collect();
    versions.sort();
    versions.join(",")
}

/// A ControllerRevision's Controller cell: `kind.group/name` of its controller, lowercased
/// (`printControllerRevision`, `formatResourceName`).
fn revision_controller(o: &Value) -> String {
    let owners = list(&o["metadata"]["ownerReferences"]);
    let Some(owner) = owners.iter().find(|r| r["controller"] == true) else { return "<none>".into() };
    let (kind, name) = (text(&owner["kind"]), text(&owner["name"]));
    let group = text(&owner["apiVersion"]).split_once('/').map_or("", |(group, _)| group);
    match (kind, group) {
        ("", "") => name.into(),
        (kind, "") => format!("{}/{name}", kind.to_lowercase()),
        (kind, group) => format!("{}.{}/{name}", kind.to_lowercase(), group.to_lowercase()),
    }
}

/// A binding's subjects of `kind`, joined with `, `; service accounts as `namespace/name`
/// (`rbac.SubjectsStrings`).
fn subjects(o: &Value, kind: &str) -> String {
    let of_kind = list(&o["subjects"]).iter().filter(|s| s["kind"] == kind);
    let name = |s: &Value| match kind {
        "ServiceAccount" => format!("{}/{}", text(&s["namespace"]), text(&s["name"])),
        _ => text(&s["name"]).into(),
    };
    of_kind.map(name).collect::<Vec<_>>().join(", ")
}

/// A CertificateSigningRequest's Condition cell: Denied, Approved or Pending, then whether it
/// failed and whether it is issued (`extractCSRStatus`).
fn csr_condition(o: &Value) -> String {
    let has = |kind: &str| list(&o["status"]["conditions"]).iter().any(|c| c["type"] == kind);
    let mut status = (if has("Denied") {
        "Denied"
    } else if has("Approved") {
        "Approved"
    } else {
        "Pending"
    })
    .to_string();
    if has("Failed") {
        status += ",Failed";
    }
    if !text(&o["status"]["certificate"]).is_empty() {
        status += ",Issued";
    }
    status
}

/// An int-or-string field as Go prints it, `N/A` when unset (`printPodDisruptionBudget`).
fn int_or_string(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(n.to_string()),
        Value::String(s) => json!(s),
        _ => json!("N/A"),
    }
}

/// A `*bool` as `True`, `False` or `<unset>` (`printBoolPtr`).
fn bool_ptr(v: &Value) -> Value {
    json!(match v.as_bool() {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    })
}

/// How upstream's printer for `kind` (an internal Go type name) fills `column`, for each
/// column other than Name and Age (printers.go, `print<Kind>`).
pub(super) fn cell(kind: &str, column: &str) -> Option<Cell> {
    let cell: Cell = match (kind, column) {
        ("core.ConfigMap", "Data") => |o, _| count(o, &["data", "binaryData"]),
        ("core.Secret", "Type") => |o, _| o["type"].clone(),
        ("core.Secret", "Data") => |o, _| count(o, &["data"]),
        ("core.Namespace", "Status") => |o, _| o["status"]["phase"].clone(),
        ("coordination.Lease", "Holder") => |o, _| json!(text(&o["spec"]["holderIdentity"])),
        ("node.RuntimeClass", "Handler") => |o, _| json!(text(&o["handler"])),
        // Workloads: printReplicationController, printReplicaSet, printDeployment,
        // printStatefulSet, printDaemonSet, printJob, printCronJob, printPodTemplate.
        (_, "Containers") => |o, _| containers(o, "name"),
        (_, "Images") => |o, _| containers(o, "image"),
        ("core.PodTemplate", "Pod Labels") => |o, _| json!(labels(&o["template"]["metadata"]["labels"])),
        ("core.ReplicationController" | "core.Service", "Selector") => |o, _| json!(labels(&o["spec"]["selector"])),
        ("apps.Deployment", "Selector") => |o, _| json!(selector(&o["spec"]["selector"])),
        ("batch.CronJob", "Selector") => |o, _| json!(label_selector(&o["spec"]["jobTemplate"]["spec"]["selector"])),
        (_, "Selector") => |o, _| json!(label_selector(&o["spec"]["selector"])),
        ("core.ReplicationController" | "apps.ReplicaSet", "Desired") => |o, _| json!(int(&o["spec"]["replicas"])),
        ("core.ReplicationController" | "apps.ReplicaSet", "Current") => |o, _| json!(int(&o["status"]["replicas"])),
        ("core.ReplicationController" | "apps.ReplicaSet", "Ready") => |o, _| json!(int(&o["status"]["readyReplicas"])),
        ("apps.Deployment" | "apps.StatefulSet", "Ready") => {
            |o, _| json!(format!("{}/{}", int(&o["status"]["readyReplicas"]), int(&o["spec"]["replicas"])))
        }
        ("apps.Deployment", "Up-to-date") => |o, _| json!(int(&o["status"]["updatedReplicas"])),
        ("apps.Deployment", "Available") => |o, _| json!(int(&o["status"]["availableReplicas"])),
        ("apps.DaemonSet", "Desired") => |o, _| json!(int(&o["status"]["desiredNumberScheduled"])),
        ("apps.DaemonSet", "Current") => |o, _| json!(int(&o["status"]["currentNumberScheduled"])),
        ("apps.DaemonSet", "Ready") => |o, _| json!(int(&o["status"]["numberReady"])),
        ("apps.DaemonSet", "Up-to-date") => |o, _| json!(int(&o["status"]["updatedNumberScheduled"])),
        ("apps.DaemonSet", "Available") => |o, _| json!(int(&o["status"]["numberAvailable"])),
        ("apps.DaemonSet", "Node Selector") => |o, _| json!(labels(&o["spec"]["template"]["spec"]["nodeSelector"])),
        ("apps.ControllerRevision", "Controller") => |o, _| json!(revision_controller(o)),
        ("apps.ControllerRevision", "Revision") => |o, _| json!(int(&o["revision"])),
        ("batch.Job", "Status") => |o, _| json!(job_status(o)),
        ("batch.Job", "Completions") => |o, _| json!(job_completions(o)),
        ("batch.Job", "Duration") => |o, now| json!(job_duration(o, now)),
        ("batch.CronJob", "Schedule") => |o, _| json!(text(&o["spec"]["schedule"])),
        ("batch.CronJob", "Timezone") => |o, _| json!(o["spec"]["timeZone"].as_str().unwrap_or("<none>")),
        ("batch.CronJob", "Suspend") => |o, _| bool_ptr(&o["spec"]["suspend"]),
        ("batch.CronJob", "Active") => |o, _| json!(list(&o["status"]["active"]).len()),
        ("batch.CronJob", "Last Schedule") => |o, now| {
            json!(if set(&o["status"]["lastScheduleTime"]) { since(&o["status"]["lastScheduleTime"], now) } else { "<none>".into() })
        },
        // The definitions' own convertor (k8s.io/apiextensions-apiserver
        // pkg/registry/customresourcedefinition/tableconvertor).
        ("apiextensions.CustomResourceDefinition", "Scope") => |o, _| json!(text(&o["spec"]["scope"])),
        ("apiextensions.CustomResourceDefinition", "Versions") => |o, _| json!(served_versions(o)),
        ("apiextensions.CustomResourceDefinition", "Group") => |o, _| json!(text(&o["spec"]["group"])),
        ("apiextensions.CustomResourceDefinition", "Kind") => |o, _| json!(text(&o["spec"]["names"]["kind"])),
        ("apiextensions.CustomResourceDefinition", "ShortNames") => {
            |o, _| json!(list(&o["spec"]["names"]["shortNames"]).iter().map(text).collect::<Vec<_>>().join(","))
        }
        ("apiextensions.CustomResourceDefinition", "Established") => {
            |o, _| json!(list(&o["status"]["conditions"]).iter().any(|c| c["type"] == "Established" && c["status"] == "True"))
        }
        ("policy.PodDisruptionBudget", "Min Available") => |o, _| int_or_string(&o["spec"]["minAvailable"]),
        ("policy.PodDisruptionBudget", "Max Unavailable") => |o, _| int_or_string(&o["spec"]["maxUnavailable"]),
        ("policy.PodDisruptionBudget", "Allowed Disruptions") => |o, _| json!(int(&o["status"]["disruptionsAllowed"])),
        // printPod.
        ("core.Pod", "Ready") => |o, now| json!(pod_summary(o, now)[0]),
        ("core.Pod", "Status") => |o, now| json!(pod_summary(o, now)[1]),
        ("core.Pod", "Restarts") => |o, now| json!(pod_summary(o, now)[2]),
        ("core.Pod", "IP") => |o, _| json!(or(text(&o["status"]["podIPs"][0]["ip"]).into(), "<none>")),
        ("core.Pod", "Node") => |o, _| json!(or(text(&o["spec"]["nodeName"]).into(), "<none>")),
        ("core.Pod", "Nominated Node") => |o, _| json!(or(text(&o["status"]["nominatedNodeName"]).into(), "<none>")),
        ("core.Pod", "Readiness Gates") => |o, _| json!(readiness_gates(o)),
        // printService, printEndpoints, printEndpointSlice.
        ("core.Service", "Type") => |o, _| json!(text(&o["spec"]["type"])),
        ("core.Service", "Cluster-IP") => |o, _| json!(o["spec"]["clusterIPs"][0].as_str().unwrap_or("<none>")),
        ("core.Service", "External-IP") => |o, _| json!(service_external_ip(o)),
        ("core.Service", "Port(s)") => |o, _| json!(service_ports(o)),
        ("core.Endpoints", "Endpoints") => |o, _| json!(endpoints(o)),
        ("discovery.EndpointSlice", "AddressType") => |o, _| json!(text(&o["addressType"])),
        ("discovery.EndpointSlice", "Ports") => |o, _| json!(slice_ports(o)),
        ("discovery.EndpointSlice", "Endpoints") => |o, _| json!(slice_endpoints(o)),
        // printNode.
        ("core.Node", "Status") => |o, _| json!(node_status(o)),
        ("core.Node", "Roles") => |o, _| json!(node_roles(o)),
        ("core.Node", "Version") => |o, _| json!(text(&o["status"]["nodeInfo"]["kubeletVersion"])),
        ("core.Node", "Internal-IP") => |o, _| json!(node_address(o, "InternalIP")),
        ("core.Node", "External-IP") => |o, _| json!(node_address(o, "ExternalIP")),
        ("core.Node", "OS-Image") => |o, _| json!(or(text(&o["status"]["nodeInfo"]["osImage"]).into(), "<unknown>")),
        ("core.Node", "Kernel-Version") => |o, _| json!(node_kernel(o)),
        ("core.Node", "Container-Runtime") => {
            |o, _| json!(or(text(&o["status"]["nodeInfo"]["containerRuntimeVersion"]).into(), "<unknown>"))
        }
        // printEvent.
        ("core.Event", "Last Seen") => |o, now| json!(event_last(o, now)),
        ("core.Event", "First Seen") => |o, now| json!(event_first(o, now)),
        ("core.Event", "Type") => |o, _| json!(text(&o["type"])),
        ("core.Event", "Reason") => |o, _| json!(text(&o["reason"])),
        ("core.Event", "Object") => |o, _| json!(event_object(o)),
        ("core.Event", "Subobject") => |o, _| json!(text(&o["involvedObject"]["fieldPath"])),
        ("core.Event", "Source") => |o, _| json!(event_source(o)),
        ("core.Event", "Message") => |o, _| json!(text(&o["message"]).trim()),
        ("core.Event", "Count") => |o, _| json!(event_count(o)),
        // printPersistentVolume, printPersistentVolumeClaim.
        ("core.PersistentVolume", "Capacity") => |o, _| json!(o["spec"]["capacity"]["storage"].as_str().unwrap_or("0")),
        ("core.PersistentVolume", "Access Modes") => |o, _| json!(access_modes(&o["spec"]["accessModes"])),
        ("core.PersistentVolume", "Reclaim Policy") => |o, _| json!(text(&o["spec"]["persistentVolumeReclaimPolicy"])),
        ("core.PersistentVolume", "Claim") => |o, _| {
            let claim = &o["spec"]["claimRef"];
            json!(if set(claim) { format!("{}/{}", text(&claim["namespace"]), text(&claim["name"])) } else { String::new() })
        },
        ("core.PersistentVolume", "Reason") => |o, _| json!(text(&o["status"]["reason"])),
        ("core.PersistentVolumeClaim", "Volume") => |o, _| json!(text(&o["spec"]["volumeName"])),
        ("core.PersistentVolumeClaim", "Capacity") => |o, _| claim_bound(o, true),
        ("core.PersistentVolumeClaim", "Access Modes") => |o, _| claim_bound(o, false),
        (_, "Status") => |o, _| volume_phase(o),
        (_, "StorageClass") => |o, _| storage_class(o),
        (_, "VolumeAttributesClass") => |o, _| json!(o["spec"]["volumeAttributesClassName"].as_str().unwrap_or("<unset>")),
        (_, "VolumeMode") => |o, _| json!(o["spec"]["volumeMode"].as_str().unwrap_or("<unset>")),
        // printResourceQuota, printRoleBinding, printClusterRoleBinding,
        // printCertificateSigningRequest.
        ("core.ResourceQuota", "Request") => |o, _| json!(quota(o, false)),
        ("core.ResourceQuota", "Limit") => |o, _| json!(quota(o, true)),
        (_, "Role") => |o, _| json!(format!("{}/{}", text(&o["roleRef"]["kind"]), text(&o["roleRef"]["name"]))),
        (_, "Users") => |o, _| json!(subjects(o, "User")),
        (_, "Groups") => |o, _| json!(subjects(o, "Group")),
        (_, "ServiceAccounts") => |o, _| json!(subjects(o, "ServiceAccount")),
        ("certificates.CertificateSigningRequest", "SignerName") => |o, _| json!(or(text(&o["spec"]["signerName"]).into(), "<none>")),
        ("certificates.CertificateSigningRequest", "Requestor") => |o, _| json!(text(&o["spec"]["username"])),
        ("certificates.CertificateSigningRequest", "RequestedDuration") => |o, _| {
            let seconds = o["spec"]["expirationSeconds"].as_i64();
            json!(seconds.map_or_else(|| "<none>".into(), |s| human_duration(chrono::Duration::seconds(s))))
        },
        ("certificates.CertificateSigningRequest", "Condition") => |o, _| json!(csr_condition(o)),
        _ => return None,
    };
    Some(cell)
}

/// The conditions `printPod` gives the row of a pod that has finished.
pub(super) fn row_conditions(kind: &str, o: &Value) -> Option<Value> {
    let (reason, message) = match (kind, text(&o["status"]["phase"])) {
        ("core.Pod", "Succeeded") => ("Succeeded", "The pod has completed successfully."),
        ("core.Pod", "Failed") => ("Failed", "The pod failed."),
        _ => return None,
    };
    Some(json!([{"type": "Completed", "status": "True", "reason": reason, "message": message}]))
}

/// An object as upstream's printer reads it: an events.k8s.io Event under the field names of
/// the core Event it converts to (`Convert_v1_Event_To_core_Event`, pkg/apis/events/v1/
/// conversion.go); any other object as served.
pub(super) fn as_printed<'a>(resource: &ResourceInfo, o: &'a Value) -> Cow<'a, Value> {
    if resource.group != "events.k8s.io" {
        return Cow::Borrowed(o);
    }
    let renames = [
        ("regarding", "involvedObject"),
        ("note", "message"),
        ("deprecatedSource", "source"),
        ("deprecatedFirstTimestamp", "firstTimestamp"),
        ("deprecatedLastTimestamp", "lastTimestamp"),
        ("deprecatedCount", "count"),
        ("reportingController", "reportingComponent"),
    ];
    let mut core = o.clone();
    if let Some(fields) = core.as_object_mut() {
        for (from, to) in renames {
            if let Some(value) = fields.remove(from) {
                fields.insert(to.into(), value);
            }
        }
    }
    Cow::Owned(core)
}
