//! Tables (`kubectl get`) of built-in kinds: the columns and cells of upstream's printers
//! (k8s.io/kubernetes pkg/printers/internalversion/printers.go), wide columns included.

mod support;

use axum::body::Body;
use chrono::{Duration, SubsecRound, Utc};
use http::Method;
use serde_json::{Value, json};
use support::*;

on_both_servers!(
    pods_print_readiness_status_restarts_and_placement,
    events_of_both_groups_print_as_core_events,
    workloads_print_replicas_containers_and_selectors,
    jobs_and_cron_jobs_print_progress_and_schedules,
    services_and_endpoints_print_addresses_and_ports,
    nodes_volumes_and_claims_print_their_state,
    accounts_quotas_bindings_and_policies_print_their_spec,
);

const TABLE: &str = "application/json;as=Table;g=meta.k8s.io;v=v1";

/// A PEM certificate request for `CN=table-test`, base64-encoded.
const CSR: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIUE1IY0NBUUF3RlRFVE1CRUdBMVVFQXd3S2RHRmliR1V0ZEdWemREQlpNQk1HQnlxR1NNNDlBZ0VHQ0NxRwpTTTQ5QXdFSEEwSUFCTWx5MGx4R0ZBbFV5dmk5YmJXQmtUdHpBbmE2M2hrS1BaUHdoWkRxTk5nTE5xdVNrNE1SCmVEMVJDaVIwZVo3OExHam1jUEo4MHZTQ0wyRmdXbHNtNlhtZ0FEQUtCZ2dxaGtqT1BRUURBZ05JQURCRkFpRUEKM0luMlNpY2pVelhoSUpVb3pyV0N1YWpMYTkxUjZTTWZPMHducmg1NHNqZ0NJQkxWd3JoSzA0V1h2b3VnQWhjTAora3NmL29SeGpKRDdEWHNNdkYwTlM5VnQKLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==";

/// A self-signed PEM certificate for the key of [`CSR`], base64-encoded.
const CERTIFICATE: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJmekNDQVNXZ0F3SUJBZ0lVWVRadnhHQ08zSG9Zb2owbU1MREl0V2JEWnZzd0NnWUlLb1pJemowRUF3SXcKRlRFVE1CRUdBMVVFQXd3S2RHRmliR1V0ZEdWemREQWVGdzB5TmpFeU1ESXhNRE0wTXpaYUZ3MHpOakV4TWpreApNRE0wTXpaYU1CVXhFekFSQmdOVkJBTU1DblJoWW14bExYUmxjM1F3V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPClBRTUJCd05DQUFUSmN0SmNSaFFKVk1yNHZXMjFnWkU3Y3dKMnV0NFpDajJUOElXUTZqVFlDemFya3BPREVYZzkKVVFva2RIbWUvQ3hvNW5EeWZOTDBnaTloWUZwYkp1bDVvMU13VVRBZEJnTlZIUTRFRmdRVTBSZUluQVZta1NVcgpHbXNoWmQvK1gyczVmUmt3SHdZRFZSMGpCQmd3Rm9BVTBSZUluQVZta1NVckdtc2haZC8rWDJzNWZSa3dEd1lEClZSMFRBUUgvQkFVd0F3RUIvekFLQmdncWhrak9QUVFEQWdOSUFEQkZBaUVBajMvaXg4TEw2SnV6SmhHSVdtVTMKVVRUb2E0S0VvTUJhZSs1YSs5NkYrVkVDSUdDV0NiZDhNeHNVU1FuekJxbWhic1R4Ti9rRW56T245YXd2S1ZTZApJbC9KCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";

/// The time `d` ago, as metadata writes times (or with microseconds, as event times), in whole
/// seconds: the fake dates ages from the second it answers in.
fn ago(d: Duration, micro: bool) -> String {
    (Utc::now().trunc_subsecs(0) - d).format(if micro { "%Y-%m-%dT%H:%M:%S%.6fZ" } else { "%Y-%m-%dT%H:%M:%SZ" }).to_string()
}

/// The Table `path` answers for one object: its column names, and its row with each Age cell
/// (of an object seconds old) written `age`.
async fn table_row(server: &Server, path: &str) -> (Vec<String>, Value) {
    let request = http::Request::builder().method(Method::GET).uri(path).header("accept", TABLE);
    let r = server.send(request.body(Body::empty()).unwrap()).await;
    assert_eq!((r.code, r.body["kind"].as_str()), (200, Some("Table")), "{path}: {}", r.body);
    let names: Vec<String> = r.body["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().into()).collect();
    let mut row = r.body["rows"][0].clone();
    for (name, cell) in names.iter().zip(row["cells"].as_array_mut().unwrap()) {
        let seconds = cell.as_str().and_then(|c| c.strip_suffix('s')).is_some_and(|n| n.parse::<u32>().is_ok());
        if name == "Age" && seconds {
            *cell = json!("age");
        }
    }
    (names, row)
}

/// Asserts the columns and cells of the Table `path` answers.
async fn assert_table(server: &Server, path: &str, columns: &[&str], cells: Value) -> Value {
    let (names, row) = table_row(server, path).await;
    assert_eq!(names, columns, "{path}");
    assert_eq!(row["cells"], cells, "{path}");
    row
}

/// Creates `body` at `collection`, asserting success; returns the created object.
async fn create(server: &Server, collection: &str, body: Value) -> Value {
    let r = post(server, collection, body).await;
    assert_eq!(r.code, 201, "{collection}: {}", r.body);
    r.body
}

/// Writes `object`'s status (whatever its resourceVersion) to `path`/status, asserting success.
async fn put_status(server: &Server, path: &str, mut object: Value) {
    object["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    let r = put(server, &format!("{path}/status"), object).await;
    assert_eq!(r.code, 200, "{path}/status: {}", r.body);
}

/// A container named `name` running `image`.
fn container(name: &str, image: &str) -> Value {
    json!({"name": name, "image": image})
}

const POD_COLUMNS: [&str; 9] = ["Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"];

async fn pods_print_readiness_status_restarts_and_placement(server: Server) {
    let pods = "/api/v1/namespaces/default/pods";
    let sidecar = json!({"name": "sidecar", "image": "busybox", "restartPolicy": "Always"});
    let spec = json!({"nodeName": "table-node", "initContainers": [sidecar], "containers": [container("app", "nginx"), container("log", "busybox")],
        "readinessGates": [{"conditionType": "example.com/gate"}, {"conditionType": "example.com/other"}]});
    let mut pod = create(&server, pods, json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "busy"}, "spec": spec})).await;
    let since = |d| json!({"startedAt": ago(d, false)});
    let terminated =
        |d| json!({"terminated": {"exitCode": 1, "startedAt": ago(d + Duration::hours(1), false), "finishedAt": ago(d, false)}});
    pod["status"] = json!({
        "phase": "Running", "podIP": "10.1.2.3", "podIPs": [{"ip": "10.1.2.3"}],
        "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "False"}, {"type": "example.com/gate", "status": "True"}],
        "initContainerStatuses": [{"name": "sidecar", "image": "busybox", "imageID": "", "started": true, "ready": true, "restartCount": 1,
            "state": {"running": since(Duration::hours(1))}, "lastState": terminated(Duration::hours(3))}],
        "containerStatuses": [
            {"name": "app", "image": "nginx", "imageID": "", "ready": true, "restartCount": 2, "started": true,
                "state": {"running": since(Duration::hours(1))}, "lastState": terminated(Duration::hours(5))},
            {"name": "log", "image": "busybox", "imageID": "", "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": "CrashLoopBackOff"}}, "lastState": {}}],
    });
    put_status(&server, &format!("{pods}/busy"), pod).await;
    let cells = json!(["busy", "2/3", "CrashLoopBackOff", "3 (3h ago)", "age", "10.1.2.3", "table-node", "<none>", "1/2"]);
    let row = assert_table(&server, &format!("{pods}/busy"), &POD_COLUMNS, cells).await;
    assert!(row.get("conditions").is_none(), "{row}");

    let spec = json!({"containers": [container("app", "nginx")]});
    let mut pod = create(&server, pods, json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "done"}, "spec": spec})).await;
    let done = json!({"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": ago(Duration::hours(2), false), "finishedAt": ago(Duration::hours(1), false)}});
    pod["status"] = json!({"phase": "Succeeded",
        "containerStatuses": [{"name": "app", "image": "nginx", "imageID": "", "ready": false, "restartCount": 0, "state": done}]});
    put_status(&server, &format!("{pods}/done"), pod).await;
    let cells = json!(["done", "0/1", "Completed", "0", "age", "<none>", "<none>", "<none>", "<none>"]);
    let row = assert_table(&server, &format!("{pods}/done"), &POD_COLUMNS, cells).await;
    let completed =
        json!([{"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}]);
    assert_eq!(row["conditions"], completed);

    let spec = json!({"initContainers": [container("first", "busybox"), container("second", "busybox")], "containers": [container("app", "nginx")]});
    let mut pod = create(&server, pods, json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "starting"}, "spec": spec})).await;
    pod["status"] = json!({"phase": "Pending", "initContainerStatuses": [
        {"name": "first", "image": "busybox", "imageID": "", "ready": false, "restartCount": 0, "state": {"terminated": {"exitCode": 0}}},
        {"name": "second", "image": "busybox", "imageID": "", "ready": false, "restartCount": 4, "state": {"waiting": {"reason": "PodInitializing"}}}]});
    put_status(&server, &format!("{pods}/starting"), pod).await;
    let cells = json!(["starting", "0/1", "Init:1/2", "4", "age", "<none>", "<none>", "<none>", "<none>"]);
    assert_table(&server, &format!("{pods}/starting"), &POD_COLUMNS, cells).await;

    let held = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "held", "finalizers": ["example.com/hold"]},
        "spec": {"containers": [container("app", "nginx")]}});
    create(&server, pods, held).await;
    assert_eq!(delete(&server, &format!("{pods}/held"), Value::Null).await.code, 200);
    let cells = json!(["held", "0/1", "Terminating", "0", "age", "<none>", "<none>", "<none>", "<none>"]);
    assert_table(&server, &format!("{pods}/held"), &POD_COLUMNS, cells).await;
    let release = json!({"metadata": {"finalizers": null}});
    assert_eq!(patch(&server, &format!("{pods}/held"), "application/merge-patch+json", release).await.code, 200);
}

const EVENT_COLUMNS: [&str; 10] =
    ["Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name"];

async fn events_of_both_groups_print_as_core_events(server: Server) {
    let (core, events) = ("/api/v1/namespaces/default/events", "/apis/events.k8s.io/v1/namespaces/default/events");
    let ns = server.namespace().to_string();
    let counted = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "counted"}, "type": "Normal", "reason": "Started",
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": ns, "fieldPath": "spec.containers{app}"},
        "message": "  started  ", "source": {"component": "kubelet", "host": "node-1"}, "count": 3,
        "firstTimestamp": ago(Duration::hours(2), false), "lastTimestamp": ago(Duration::minutes(20), false)});
    create(&server, core, counted).await;
    let cells = json!(["20m", "Normal", "Started", "pod/web", "spec.containers{app}", "kubelet, node-1", "started", "120m", 3, "counted"]);
    assert_table(&server, &format!("{core}/counted"), &EVENT_COLUMNS, cells.clone()).await;
    assert_table(&server, &format!("{events}/counted"), &EVENT_COLUMNS, cells).await;

    let series = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "series"}, "type": "Warning", "reason": "Failed",
        "regarding": {"kind": "Node", "namespace": ns}, "note": "failing", "eventTime": ago(Duration::hours(3), true), "action": "Check",
        "reportingController": "example.com/checker", "reportingInstance": "checker-1",
        "series": {"count": 5, "lastObservedTime": ago(Duration::minutes(4), true)}});
    create(&server, events, series).await;
    let cells = json!(["4m", "Warning", "Failed", "node", "", "example.com/checker, checker-1", "failing", "3h", 5, "series"]);
    assert_table(&server, &format!("{events}/series"), &EVENT_COLUMNS, cells.clone()).await;
    assert_table(&server, &format!("{core}/series"), &EVENT_COLUMNS, cells).await;

    let single = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "single"}, "type": "Normal", "reason": "Done",
        "regarding": {"kind": "Job", "name": "j", "namespace": ns}, "note": "done", "eventTime": ago(Duration::minutes(30), true),
        "action": "Finish", "reportingController": "example.com/jobs", "reportingInstance": "jobs-0"});
    create(&server, events, single).await;
    let cells = json!(["30m", "Normal", "Done", "job/j", "", "example.com/jobs, jobs-0", "done", "30m", 1, "single"]);
    assert_table(&server, &format!("{events}/single"), &EVENT_COLUMNS, cells).await;
}

async fn workloads_print_replicas_containers_and_selectors(server: Server) {
    let template = |labels: Value| json!({"metadata": {"labels": labels}, "spec": {"containers": [container("app", "nginx:1"), container("log", "busybox")]}});
    let apps = "/apis/apps/v1/namespaces/default";
    let selector = json!({"matchLabels": {"app": "d"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]},
        {"key": "canary", "operator": "DoesNotExist"}]});
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"replicas": 0, "selector": selector, "template": template(json!({"app": "d", "tier": "a"}))}});
    create(&server, &format!("{apps}/deployments"), deployment).await;
    let columns = ["Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"];
    let cells = json!(["d", "0/0", 0, 0, "age", "app,log", "nginx:1,busybox", "app=d,!canary,tier in (a,b)"]);
    assert_table(&server, &format!("{apps}/deployments/d"), &columns, cells).await;

    let replica_set = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "rs"}}, "template": template(json!({"app": "rs"}))}});
    create(&server, &format!("{apps}/replicasets"), replica_set).await;
    let columns = ["Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"];
    let cells = json!(["rs", 0, 0, 0, "age", "app,log", "nginx:1,busybox", "app=rs"]);
    assert_table(&server, &format!("{apps}/replicasets/rs"), &columns, cells).await;

    let controller = json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
        "spec": {"replicas": 0, "selector": {"app": "rc", "tier": "x"}, "template": template(json!({"app": "rc", "tier": "x"}))}});
    create(&server, "/api/v1/namespaces/default/replicationcontrollers", controller).await;
    let cells = json!(["rc", 0, 0, 0, "age", "app,log", "nginx:1,busybox", "app=rc,tier=x"]);
    assert_table(&server, "/api/v1/namespaces/default/replicationcontrollers/rc", &columns, cells).await;

    let stateful_set = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "ss"},
        "spec": {"replicas": 0, "serviceName": "ss", "selector": {"matchLabels": {"app": "ss"}}, "template": template(json!({"app": "ss"}))}});
    create(&server, &format!("{apps}/statefulsets"), stateful_set).await;
    let cells = json!(["ss", "0/0", "age", "app,log", "nginx:1,busybox"]);
    assert_table(&server, &format!("{apps}/statefulsets/ss"), &["Name", "Ready", "Age", "Containers", "Images"], cells).await;

    let mut ds_template = template(json!({"app": "ds"}));
    ds_template["spec"]["nodeSelector"] = json!({"example.com/zone": "none", "example.com/disk": "ssd"});
    let daemon_set = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"},
        "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": ds_template}});
    create(&server, &format!("{apps}/daemonsets"), daemon_set).await;
    let columns =
        ["Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", "Containers", "Images", "Selector"];
    let cells = json!(["ds", 0, 0, 0, 0, 0, "example.com/disk=ssd,example.com/zone=none", "age", "app,log", "nginx:1,busybox", "app=ds"]);
    assert_table(&server, &format!("{apps}/daemonsets/ds"), &columns, cells).await;

    let owner = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds", "uid": "0b5e4c4e-0000-4000-8000-000000000001", "controller": true});
    let revision = json!({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "ds-1", "ownerReferences": [owner]},
        "revision": 3, "data": {}});
    create(&server, &format!("{apps}/controllerrevisions"), revision).await;
    let cells = json!(["ds-1", "daemonset.apps/ds", 3, "age"]);
    assert_table(&server, &format!("{apps}/controllerrevisions/ds-1"), &["Name", "Controller", "Revision", "Age"], cells).await;

    let pod_template =
        json!({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pt"}, "template": template(json!({"b": "2", "a": "1"}))});
    create(&server, "/api/v1/namespaces/default/podtemplates", pod_template).await;
    let cells = json!(["pt", "app,log", "nginx:1,busybox", "a=1,b=2"]);
    assert_table(&server, "/api/v1/namespaces/default/podtemplates/pt", &["Name", "Containers", "Images", "Pod Labels"], cells).await;
}

async fn jobs_and_cron_jobs_print_progress_and_schedules(server: Server) {
    let batch = "/apis/batch/v1/namespaces/default";
    let template = json!({"spec": {"restartPolicy": "Never", "containers": [container("work", "busybox")]}});
    let columns = ["Name", "Status", "Completions", "Duration", "Age", "Containers", "Images", "Selector"];
    for (name, spec, completions) in [
        ("fixed", json!({"suspend": true, "completions": 3, "parallelism": 2, "template": template}), "0/3"),
        ("parallel", json!({"suspend": true, "parallelism": 2, "template": template}), "0/1 of 2"),
    ] {
        let mut job = create(
            &server,
            &format!("{batch}/jobs"),
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec}),
        )
        .await;
        let uid = job["metadata"]["uid"].as_str().unwrap().to_string();
        let suspended = json!({"type": "Suspended", "status": "True", "reason": "JobSuspended", "message": "Job suspended",
            "lastProbeTime": ago(Duration::zero(), false), "lastTransitionTime": ago(Duration::zero(), false)});
        job["status"] = json!({"conditions": [suspended]});
        put_status(&server, &format!("{batch}/jobs/{name}"), job).await;
        let selector = format!("batch.kubernetes.io/controller-uid={uid}");
        let cells = json!([name, "Suspended", completions, "", "age", "work", "busybox", selector]);
        assert_table(&server, &format!("{batch}/jobs/{name}"), &columns, cells).await;
    }

    let job_template = json!({"spec": {"template": template}});
    let columns = ["Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age", "Containers", "Images", "Selector"];
    let spec = json!({"schedule": "0 0 1 1 *", "timeZone": "Etc/UTC", "suspend": true, "jobTemplate": job_template});
    let mut cron_job = create(
        &server,
        &format!("{batch}/cronjobs"),
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "yearly"}, "spec": spec}),
    )
    .await;
    cron_job["status"] = json!({"lastScheduleTime": ago(Duration::hours(2), false)});
    put_status(&server, &format!("{batch}/cronjobs/yearly"), cron_job).await;
    let cells = json!(["yearly", "0 0 1 1 *", "Etc/UTC", "True", 0, "120m", "age", "work", "busybox", "<none>"]);
    assert_table(&server, &format!("{batch}/cronjobs/yearly"), &columns, cells).await;

    let spec = json!({"schedule": "0 0 1 1 *", "jobTemplate": job_template});
    create(
        &server,
        &format!("{batch}/cronjobs"),
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "plain"}, "spec": spec}),
    )
    .await;
    let cells = json!(["plain", "0 0 1 1 *", "<none>", "False", 0, "<none>", "age", "work", "busybox", "<none>"]);
    assert_table(&server, &format!("{batch}/cronjobs/plain"), &columns, cells).await;
}

async fn services_and_endpoints_print_addresses_and_ports(server: Server) {
    let services = "/api/v1/namespaces/default/services";
    let columns = ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"];
    let service = |name: &str, spec: Value| json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec});
    let ports = json!([{"name": "http", "port": 80, "targetPort": 8080}, {"name": "dns", "port": 53, "protocol": "UDP"}]);
    let web = create(&server, services, service("web", json!({"selector": {"app": "web"}, "ports": ports}))).await;
    let ip = web["spec"]["clusterIPs"][0].clone();
    let cells = json!(["web", "ClusterIP", ip, "<none>", "80/TCP,53/UDP", "age", "app=web"]);
    assert_table(&server, &format!("{services}/web"), &columns, cells).await;

    let spec = json!({"type": "NodePort", "externalIPs": ["192.0.2.1", "192.0.2.2"], "ports": [{"port": 80}]});
    let node_port = create(&server, services, service("np", spec)).await;
    let (ip, port) = (node_port["spec"]["clusterIPs"][0].clone(), &node_port["spec"]["ports"][0]["nodePort"]);
    let cells = json!(["np", "NodePort", ip, "192.0.2.1,192.0.2.2", format!("80:{port}/TCP"), "age", "<none>"]);
    assert_table(&server, &format!("{services}/np"), &columns, cells).await;

    let spec = json!({"type": "LoadBalancer", "externalIPs": ["192.0.2.9"], "selector": {"app": "lb"}, "ports": [{"port": 443}]});
    let mut balancer = create(&server, services, service("lb", spec)).await;
    let (ip, port) = (balancer["spec"]["clusterIPs"][0].clone(), balancer["spec"]["ports"][0]["nodePort"].clone());
    balancer["status"] = json!({"loadBalancer": {"ingress": [{"hostname": "lb.example.com"}, {"ip": "198.51.100.7", "ipMode": "VIP"}]}});
    put_status(&server, &format!("{services}/lb"), balancer).await;
    let cells = json!(["lb", "LoadBalancer", ip, "198.51.100.7,lb.example.com,192.0.2.9", format!("443:{port}/TCP"), "age", "app=lb"]);
    assert_table(&server, &format!("{services}/lb"), &columns, cells).await;

    create(&server, services, service("headless", json!({"clusterIP": "None", "selector": {"app": "h"}, "ports": [{"port": 80}]}))).await;
    let cells = json!(["headless", "ClusterIP", "None", "<none>", "80/TCP", "age", "app=h"]);
    assert_table(&server, &format!("{services}/headless"), &columns, cells).await;

    create(&server, services, service("ext", json!({"type": "ExternalName", "externalName": "example.com"}))).await;
    let cells = json!(["ext", "ExternalName", "<none>", "example.com", "<none>", "age", "<none>"]);
    assert_table(&server, &format!("{services}/ext"), &columns, cells).await;

    let endpoints = "/api/v1/namespaces/default/endpoints";
    let subsets = json!([{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"name": "a", "port": 80}, {"name": "b", "port": 443}]},
        {"addresses": [{"ip": "fd00::1"}]}]);
    create(&server, endpoints, json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "many"}, "subsets": subsets})).await;
    let cells = json!(["many", "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 2 more...", "age"]);
    assert_table(&server, &format!("{endpoints}/many"), &["Name", "Endpoints", "Age"], cells).await;
    let subsets = json!([{"addresses": [{"ip": "fd00::1"}], "ports": [{"port": 8080}]}]);
    create(&server, endpoints, json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "v6"}, "subsets": subsets})).await;
    assert_table(&server, &format!("{endpoints}/v6"), &["Name", "Endpoints", "Age"], json!(["v6", "[fd00::1]:8080", "age"])).await;
    create(&server, endpoints, json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "none"}})).await;
    assert_table(&server, &format!("{endpoints}/none"), &["Name", "Endpoints", "Age"], json!(["none", "<none>", "age"])).await;

    let slices = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices";
    let columns = ["Name", "AddressType", "Ports", "Endpoints", "Age"];
    let slice = json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "slice"}, "addressType": "IPv4",
        "ports": [{"name": "http", "port": 80}, {"name": "named"}],
        "endpoints": [{"addresses": ["10.0.0.5"]}, {"addresses": ["10.0.0.6"]}, {"addresses": ["10.0.0.7"]}, {"addresses": ["10.0.0.8"]}]});
    create(&server, slices, slice).await;
    let cells = json!(["slice", "IPv4", "80,named", "10.0.0.5,10.0.0.6,10.0.0.7 + 1 more...", "age"]);
    assert_table(&server, &format!("{slices}/slice"), &columns, cells).await;
    let empty = json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "empty"}, "addressType": "IPv6", "endpoints": []});
    create(&server, slices, empty).await;
    assert_table(&server, &format!("{slices}/empty"), &columns, json!(["empty", "IPv6", "<unset>", "<unset>", "age"])).await;
}

async fn nodes_volumes_and_claims_print_their_state(server: Server) {
    let ns = server.namespace().to_string();
    let (node_name, volume_name) = (format!("{ns}-node"), format!("{ns}-volume"));
    let labels = json!({"node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "edge"});
    let node =
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node_name, "labels": labels}, "spec": {"unschedulable": true}});
    let mut node = create(&server, "/api/v1/nodes", node).await;
    let info = json!({"machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "6.1.0", "osImage": "Debian GNU/Linux 12",
        "containerRuntimeVersion": "containerd://2.0.0", "kubeletVersion": "v1.37.2", "kubeProxyVersion": "", "operatingSystem": "linux",
        "architecture": "arm64"});
    let ready = json!({"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready",
        "lastHeartbeatTime": ago(Duration::zero(), false), "lastTransitionTime": ago(Duration::zero(), false)});
    node["status"] = json!({"conditions": [ready], "nodeInfo": info,
        "addresses": [{"type": "Hostname", "address": "h"}, {"type": "InternalIP", "address": "10.0.0.9"}, {"type": "InternalIP", "address": "10.0.0.10"}]});
    put_status(&server, &format!("/api/v1/nodes/{node_name}"), node).await;
    let columns =
        ["Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"];
    let cells = json!([
        node_name,
        "Ready,SchedulingDisabled",
        "control-plane,edge",
        "age",
        "v1.37.2",
        "10.0.0.9",
        "<none>",
        "Debian GNU/Linux 12",
        "6.1.0 (arm64)",
        "containerd://2.0.0"
    ]);
    assert_table(&server, &format!("/api/v1/nodes/{node_name}"), &columns, cells).await;
    assert_eq!(delete(&server, &format!("/api/v1/nodes/{node_name}"), Value::Null).await.code, 200);

    let spec = json!({"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"],
        "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "slow", "hostPath": {"path": "/tmp/table"},
        "claimRef": {"namespace": ns, "name": "ghost"}});
    let volume = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": volume_name}, "spec": spec});
    let mut volume = create(&server, "/api/v1/persistentvolumes", volume).await;
    volume["status"] = json!({"phase": "Available"});
    put_status(&server, &format!("/api/v1/persistentvolumes/{volume_name}"), volume).await;
    let columns = [
        "Name",
        "Capacity",
        "Access Modes",
        "Reclaim Policy",
        "Status",
        "Claim",
        "StorageClass",
        "VolumeAttributesClass",
        "Reason",
        "Age",
        "VolumeMode",
    ];
    let cells =
        json!([volume_name, "5Gi", "RWO,RWX", "Delete", "Available", format!("{ns}/ghost"), "slow", "<unset>", "", "age", "Filesystem"]);
    assert_table(&server, &format!("/api/v1/persistentvolumes/{volume_name}"), &columns, cells).await;
    assert_eq!(delete(&server, &format!("/api/v1/persistentvolumes/{volume_name}"), Value::Null).await.code, 200);

    let claims = "/api/v1/namespaces/default/persistentvolumeclaims";
    let claim = |name: &str, annotations: Value, spec: Value| {
        let mut spec = spec;
        spec["accessModes"] = json!(["ReadWriteOnce"]);
        spec["resources"] = json!({"requests": {"storage": "1Gi"}});
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "annotations": annotations}, "spec": spec})
    };
    let columns = ["Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "VolumeMode"];
    let beta = json!({"volume.beta.kubernetes.io/storage-class": "fast"});
    create(&server, claims, claim("bound", beta, json!({"volumeName": format!("{ns}-missing")}))).await;
    let cells = json!(["bound", "Pending", format!("{ns}-missing"), "0", "", "fast", "<unset>", "age", "Filesystem"]);
    assert_table(&server, &format!("{claims}/bound"), &columns, cells).await;
    create(&server, claims, claim("open", json!({}), json!({"storageClassName": "gold", "volumeMode": "Block"}))).await;
    let cells = json!(["open", "Pending", "", "", "", "gold", "<unset>", "age", "Block"]);
    assert_table(&server, &format!("{claims}/open"), &columns, cells).await;
}

async fn accounts_quotas_bindings_and_policies_print_their_spec(server: Server) {
    let ns = server.namespace().to_string();
    let core = "/api/v1/namespaces/default";
    create(
        &server,
        &format!("{core}/serviceaccounts"),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}),
    )
    .await;
    assert_table(&server, &format!("{core}/serviceaccounts/robot"), &["Name", "Age"], json!(["robot", "age"])).await;

    let hard = json!({"requests.cpu": "2", "limits.memory": "1Gi", "pods": "10"});
    let quota = json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "quota"}, "spec": {"hard": hard}});
    let mut quota = create(&server, &format!("{core}/resourcequotas"), quota).await;
    quota["status"] = json!({"hard": hard, "used": {"requests.cpu": "0", "limits.memory": "0", "pods": "0"}});
    put_status(&server, &format!("{core}/resourcequotas/quota"), quota).await;
    let cells = json!(["quota", "pods: 0/10, requests.cpu: 0/2", "limits.memory: 0/1Gi", "age"]);
    assert_table(&server, &format!("{core}/resourcequotas/quota"), &["Name", "Request", "Limit", "Age"], cells).await;

    let rbac = "/apis/rbac.authorization.k8s.io/v1";
    let columns = ["Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"];
    let subjects = json!([{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"},
        {"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"},
        {"kind": "ServiceAccount", "name": "robot", "namespace": ns}, {"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"}]);
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "rb"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}, "subjects": subjects});
    create(&server, &format!("{rbac}/namespaces/default/rolebindings"), binding).await;
    let cells = json!(["rb", "ClusterRole/view", "age", "alice, bob", "devs", format!("{ns}/robot")]);
    assert_table(&server, &format!("{rbac}/namespaces/default/rolebindings/rb"), &columns, cells).await;
    let name = format!("{ns}-crb");
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}});
    create(&server, &format!("{rbac}/clusterrolebindings"), binding).await;
    let cells = json!([name, "ClusterRole/view", "age", "", "", ""]);
    assert_table(&server, &format!("{rbac}/clusterrolebindings/{name}"), &columns, cells).await;
    assert_eq!(delete(&server, &format!("{rbac}/clusterrolebindings/{name}"), Value::Null).await.code, 200);

    let csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let name = format!("{ns}-csr");
    let request = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
        "spec": {"request": CSR, "signerName": "example.com/signer", "usages": ["digital signature"], "expirationSeconds": 7200}});
    let mut request = create(&server, csrs, request).await;
    let requestor = request["spec"]["username"].clone();
    let columns = ["Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"];
    assert_table(&server, &format!("{csrs}/{name}"), &columns, json!([name, "age", "example.com/signer", requestor, "120m", "Pending"]))
        .await;
    request["status"] = json!({"conditions": [{"type": "Approved", "status": "True", "reason": "Test", "message": "approved"}]});
    request["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    let r = put(&server, &format!("{csrs}/{name}/approval"), request.clone()).await;
    assert_eq!(r.code, 200, "{}", r.body);
    let mut request = r.body;
    request["status"]["certificate"] = json!(CERTIFICATE);
    put_status(&server, &format!("{csrs}/{name}"), request).await;
    let cells = json!([name, "age", "example.com/signer", requestor, "120m", "Approved,Issued"]);
    assert_table(&server, &format!("{csrs}/{name}"), &columns, cells).await;
    assert_eq!(delete(&server, &format!("{csrs}/{name}"), Value::Null).await.code, 200);

    let budgets = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
    let columns = ["Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"];
    for (name, spec, cells) in [
        ("half", json!({"minAvailable": "50%", "selector": {"matchLabels": {"app": "x"}}}), json!(["half", "50%", "N/A", 0, "age"])),
        ("one", json!({"maxUnavailable": 1, "selector": {"matchLabels": {"app": "y"}}}), json!(["one", "N/A", "1", 0, "age"])),
    ] {
        create(
            &server,
            budgets,
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name}, "spec": spec}),
        )
        .await;
        assert_table(&server, &format!("{budgets}/{name}"), &columns, cells).await;
    }

    let classes = "/apis/node.k8s.io/v1/runtimeclasses";
    let name = format!("{ns}-runtime");
    create(
        &server,
        classes,
        json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": name}, "handler": "runc"}),
    )
    .await;
    assert_table(&server, &format!("{classes}/{name}"), &["Name", "Handler", "Age"], json!([name, "runc", "age"])).await;
    assert_eq!(delete(&server, &format!("{classes}/{name}"), Value::Null).await.code, 200);
}
