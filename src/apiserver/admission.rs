//! What the default admission plugins do to a new object, as a value: the
//! StorageObjectInUseProtection plugin (on by default) gives every new claim and volume a
//! protection finalizer, which the pvc-protection and pv-protection controllers remove; the
//! ServiceAccount plugin refuses a pod whose service account does not exist (the store looks
//! it up, see [`Admission::service_account`]); the RuntimeClass plugin, after it, refuses a pod
//! naming a RuntimeClass that does not exist ([`Admission::runtime_class`]). Three plugins
//! fill in a new pod ([`Admission::pod_defaults`]): ServiceAccount, DefaultTolerationSeconds
//! and Priority. TaintNodesByCondition taints a new Node not-ready
//! ([`Admission::not_ready_taint`]).

use serde_json::{Value, json};

use crate::apiserver::ids::Ids;

/// The finalizer every new PersistentVolumeClaim gets; the pvc-protection controller removes
/// it once no pod uses the claim.
pub const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";

/// The finalizer every new PersistentVolume gets, removed once the volume is not bound.
pub const PV_PROTECTION: &str = "kubernetes.io/pv-protection";

/// What admission adds to a new object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Admission {
    /// The storage-protection finalizer.
    pub protection_finalizer: Option<&'static str>,
    /// Whether the object is a pod whose `spec.serviceAccountName` must exist: a missing one is
    /// refused with 403 (`error looking up service account`). The `default` account is waited
    /// for a while before that ([`crate::apiserver::Config::default_account_wait`]).
    pub service_account: bool,
    /// Whether the object is a pod whose `spec.runtimeClassName` must exist: a missing one is
    /// refused with 403 (`pod rejected: RuntimeClass "x" not found`, upstream
    /// `plugin/pkg/admission/runtimeclass`). Only create is admitted, as upstream's plugin.
    pub runtime_class: bool,
    /// Whether the object is a pod the plugins fill in: the ServiceAccount plugin gives it the
    /// account `default` and mounts the account's token volume (`kube-api-access-` and a
    /// generated suffix) in every container, unless the pod opts out
    /// (`plugin/pkg/admission/serviceaccount/admission.go`); DefaultTolerationSeconds lets it
    /// tolerate a not-ready or unreachable node for 300 s
    /// (`plugin/pkg/admission/defaulttolerationseconds`); Priority gives a pod naming no
    /// priority class priority 0, preempting lower priorities (`plugin/pkg/admission/priority`).
    pub pod_defaults: bool,
    /// Whether the object is a Node the TaintNodesByCondition plugin taints
    /// `node.kubernetes.io/not-ready:NoSchedule` unless it has that taint already, so that
    /// nothing is scheduled to it before it reports Ready (`plugin/pkg/admission/nodetaint`).
    pub not_ready_taint: bool,
}

/// The account a pod naming none runs as.
pub const DEFAULT_ACCOUNT: &str = "default";

/// How long the ServiceAccount plugin looks for a missing `default` account before it refuses
/// a pod: nine waits of 100–200 ms between ten lookups (`getServiceAccount`, kubernetes
/// plugin/pkg/admission/serviceaccount/admission.go).
pub const DEFAULT_ACCOUNT_WAIT: std::time::Duration = std::time::Duration::from_millis(9 * 150);

/// How far apart the `default` account is looked up while a pod waits for it.
pub const DEFAULT_ACCOUNT_INTERVAL: std::time::Duration = std::time::Duration::from_millis(150);

/// Where the ServiceAccount plugin mounts the token volume.
const TOKEN_MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// The taints DefaultTolerationSeconds tolerates for 300 s.
const DEFAULT_TOLERATED: [&str; 2] = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];

impl Admission {
    /// The service account a new pod names, if admission must find it: `default` when it
    /// names none.
    pub fn service_account_of(self, object: &Value) -> Option<&str> {
        let name = object["spec"]["serviceAccountName"].as_str().filter(|n| !n.is_empty()).unwrap_or(DEFAULT_ACCOUNT);
        self.service_account.then_some(name)
    }

    /// The RuntimeClass a new pod names, if admission must find it.
    pub fn runtime_class_of(self, object: &Value) -> Option<&str> {
        let name = object["spec"]["runtimeClassName"].as_str().filter(|n| !n.is_empty());
        if self.runtime_class { name } else { None }
    }
}

impl Admission {
    /// Adds what admission adds to `object`; `ids` names what it generates.
    pub fn admit(self, object: &mut Value, ids: &Ids) {
        if self.pod_defaults
            && let Some(spec) = object.get_mut("spec").filter(|spec| spec.is_object())
        {
            mount_service_account_token(spec, ids);
            tolerate_unready_nodes(spec);
            if spec["priorityClassName"].as_str().unwrap_or("").is_empty() {
                spec["priority"] = json!(0);
                if spec["preemptionPolicy"].is_null() {
                    spec["preemptionPolicy"] = json!("PreemptLowerPriority");
                }
            }
        }
        if self.not_ready_taint {
            taint_not_ready(object);
        }
        let Some(finalizer) = self.protection_finalizer else { return };
        let meta = &mut object["metadata"];
        match meta["finalizers"].as_array_mut() {
            Some(list) if list.iter().any(|f| f == finalizer) => {}
            Some(list) => list.push(json!(finalizer)),
            None => meta["finalizers"] = json!([finalizer]),
        }
    }
}

/// TaintNodesByCondition: the not-ready taint, unless one of that key and effect is there.
fn taint_not_ready(node: &mut Value) {
    let taint = json!({"key": DEFAULT_TOLERATED[0], "effect": "NoSchedule"});
    let spec = &mut node["spec"];
    if spec.is_null() {
        *spec = json!({});
    }
    match spec["taints"].as_array_mut() {
        Some(taints) if taints.iter().any(|t| t["key"] == taint["key"] && t["effect"] == taint["effect"]) => {}
        Some(taints) => taints.push(taint),
        None => spec["taints"] = json!([taint]),
    }
}

/// The ServiceAccount plugin: the account `default` when the pod names none, and its token
/// volume mounted in each container that has nothing mounted at the token's path.
fn mount_service_account_token(spec: &mut Value, ids: &Ids) {
    if spec["serviceAccountName"].as_str().unwrap_or("").is_empty() {
        spec["serviceAccountName"] = json!(DEFAULT_ACCOUNT);
        spec["serviceAccount"] = json!(DEFAULT_ACCOUNT);
    }
    if spec["automountServiceAccountToken"] == json!(false) {
        return;
    }
    let existing =
        spec["volumes"].as_array().into_iter().flatten().filter_map(|v| v["name"].as_str()).find(|n| n.starts_with("kube-api-access-"));
    let volume = existing.map_or_else(|| format!("kube-api-access-{}", ids.name_suffix()), String::from);
    let has_volume = existing.is_some();
    let mount = json!({"name": volume, "readOnly": true, "mountPath": TOKEN_MOUNT_PATH});
    let mut mounted = false;
    for list in ["initContainers", "containers"] {
        for container in spec.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten().filter(|c| c.is_object()) {
            let mounts = container.as_object_mut().expect("filtered").entry("volumeMounts").or_insert_with(|| json!([]));
            let Some(mounts) = mounts.as_array_mut() else { continue };
            if !mounts.iter().any(|m| m["mountPath"] == TOKEN_MOUNT_PATH) {
                mounts.push(mount.clone());
                mounted = true;
            }
        }
    }
    if mounted && !has_volume {
        let token = json!({"name": volume, "projected": {"defaultMode": 0o644, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        ]}});
        match spec["volumes"].as_array_mut() {
            Some(volumes) => volumes.push(token),
            None => spec["volumes"] = json!([token]),
        }
    }
}

/// DefaultTolerationSeconds: each default taint the pod does not tolerate with `NoExecute`
/// yet is tolerated for 300 s.
fn tolerate_unready_nodes(spec: &mut Value) {
    let tolerates = |tolerations: &[Value], taint: &str| {
        tolerations.iter().any(|t| {
            let key = t["key"].as_str().unwrap_or("");
            let effect = t["effect"].as_str().unwrap_or("");
            (key == taint || (key.is_empty() && t["operator"] == "Exists")) && (effect.is_empty() || effect == "NoExecute")
        })
    };
    let tolerations = spec["tolerations"].as_array().cloned().unwrap_or_default();
    let added: Vec<Value> = DEFAULT_TOLERATED
        .iter()
        .filter(|taint| !tolerates(&tolerations, taint))
        .map(|taint| json!({"key": taint, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}))
        .collect();
    if added.is_empty() {
        return;
    }
    match spec["tolerations"].as_array_mut() {
        Some(list) => list.extend(added),
        None => spec["tolerations"] = json!(added),
    }
}
