//! Seeded requests for the fuzzer: a pure function of the random generator, never of the
//! server's answers, so that a seed replays the same requests.
//!
//! Names come from small pools (a few namespaces, a few object names) so that creates, updates,
//! patches and deletions meet the same objects and the state evolves; about half of the
//! requests are valid ones, the others break one thing or many (path, verb, query, content type,
//! body).
//!
//! A *salt* ([`Generator::salted`]) gives the fuzzer's namespaces, every object name and the
//! custom resource's group a suffix of its own, so that requests replayed on a server that
//! already served other attempts (the differential's shrinking) meet none of their objects; it
//! changes no random choice, so a seed makes the same requests whatever the salt.

use fastrand::Rng;
use serde_json::{Value, json};

/// One generated request, as sent and as printed when it breaks an invariant.
#[derive(Clone, Debug)]
pub struct FuzzRequest {
    /// HTTP method (any token, not only the standard ones).
    pub method: String,
    /// Path and query, as sent.
    pub uri: String,
    /// `Content-Type`, if any.
    pub content_type: Option<String>,
    /// `Accept`, if any.
    pub accept: Option<String>,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl std::fmt::Display for FuzzRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.uri)?;
        if let Some(ct) = &self.content_type {
            write!(f, "\nContent-Type: {ct}")?;
        }
        if let Some(accept) = &self.accept {
            write!(f, "\nAccept: {accept}")?;
        }
        if !self.body.is_empty() {
            let body = String::from_utf8_lossy(&self.body);
            let shown: String = body.chars().take(2000).collect();
            write!(f, "\n\n{shown}")?;
            if shown.len() < body.len() {
                write!(f, "... ({} bytes)", self.body.len())?;
            }
        }
        Ok(())
    }
}

/// A resource the generator knows how to name and fill.
struct Kind {
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    kind: &'static str,
    namespaced: bool,
}

impl Kind {
    /// The group, salted when it is the custom resource's.
    fn group(&self, salt: &str) -> String {
        if self.group == CUSTOM.group { custom_group(salt) } else { self.group.to_string() }
    }

    fn api_version(&self, salt: &str) -> String {
        if self.group.is_empty() { self.version.to_string() } else { format!("{}/{}", self.group(salt), self.version) }
    }

    fn prefix(&self, salt: &str) -> String {
        if self.group.is_empty() { format!("/api/{}", self.version) } else { format!("/apis/{}/{}", self.group(salt), self.version) }
    }
}

const fn kind(group: &'static str, version: &'static str, plural: &'static str, kind: &'static str, namespaced: bool) -> Kind {
    Kind { group, version, plural, kind, namespaced }
}

/// The custom resource's group, kind and plural (its definition is one of the bodies).
const CUSTOM: Kind = kind("fuzz.example.com", "v1", "widgets", "Widget", true);

/// The custom resource's group under `salt`.
fn custom_group(salt: &str) -> String {
    if salt.is_empty() { CUSTOM.group.to_string() } else { format!("{salt}.{}", CUSTOM.group) }
}

/// The name of the custom resource's definition under `salt`.
fn custom_definition(salt: &str) -> String {
    format!("{}.{}", CUSTOM.plural, custom_group(salt))
}

/// Every resource the generator targets: core and group, namespaced and cluster-scoped, a
/// custom resource, and resources nobody serves.
const KINDS: &[Kind] = &[
    kind("", "v1", "configmaps", "ConfigMap", true),
    kind("", "v1", "secrets", "Secret", true),
    kind("", "v1", "pods", "Pod", true),
    kind("", "v1", "services", "Service", true),
    kind("", "v1", "serviceaccounts", "ServiceAccount", true),
    kind("", "v1", "events", "Event", true),
    kind("", "v1", "replicationcontrollers", "ReplicationController", true),
    kind("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true),
    kind("", "v1", "namespaces", "Namespace", false),
    kind("", "v1", "nodes", "Node", false),
    kind("", "v1", "persistentvolumes", "PersistentVolume", false),
    kind("apps", "v1", "deployments", "Deployment", true),
    kind("apps", "v1", "replicasets", "ReplicaSet", true),
    kind("apps", "v1", "statefulsets", "StatefulSet", true),
    kind("apps", "v1", "daemonsets", "DaemonSet", true),
    kind("apps", "v1", "controllerrevisions", "ControllerRevision", true),
    kind("batch", "v1", "jobs", "Job", true),
    kind("batch", "v1", "cronjobs", "CronJob", true),
    kind("coordination.k8s.io", "v1", "leases", "Lease", true),
    kind("rbac.authorization.k8s.io", "v1", "roles", "Role", true),
    kind("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false),
    kind("events.k8s.io", "v1", "events", "Event", true),
    kind("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false),
    CUSTOM,
    kind("", "v1", "frobnicators", "Frobnicator", true),
    kind("nope.example.com", "v1", "things", "Thing", false),
    kind("apps", "v2", "deployments", "Deployment", true),
];

/// Namespaces requests name: two the fuzzer creates, two that always exist, one never made.
const NAMESPACES: &[&str] = &["fz-a", "fz-b", "default", "kube-system", "missing"];

/// The namespaces of [`NAMESPACES`] that exist on every server, never salted.
pub const SHARED_NAMESPACES: &[&str] = &["default", "kube-system"];

/// Object names: a small pool so that requests meet the same objects.
const NAMES: &[&str] = &["a", "b", "c", "fz-a", "fz-b"];

/// Finalizers objects are given: custom ones keep an object until a later write removes them.
const FINALIZERS: &[&str] = &["example.com/hold", "foregroundDeletion", "orphan", "kubernetes", "not a finalizer", "example.com/", "a/b/c"];

/// Query parameters and values, valid and not.
const QUERY: &[(&str, &[&str])] = &[
    ("labelSelector", &["app=x", "app in (x,y)", "!app", "app!=", "=", "app==x,,", "a b", "app notin ()"]),
    ("fieldSelector", &["metadata.name=a", "metadata.namespace!=default", "spec.nodeName=n", "nope=1", "metadata.name", "=="]),
    ("limit", &["1", "2", "0", "-1", "abc", "99999999999999999999"]),
    ("continue", &["", "abc", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0", "%%%"]),
    ("resourceVersion", &["0", "1", "abc", "-5", "999999999", ""]),
    ("resourceVersionMatch", &["NotOlderThan", "Exact", "Bogus"]),
    ("propagationPolicy", &["Orphan", "Background", "Foreground", "orphan", "None"]),
    ("orphanDependents", &["true", "false", "maybe"]),
    ("dryRun", &["All", "all", "Nope", ""]),
    (
        "fieldManager",
        &[
            "fuzz",
            "",
            "kubectl\u{1}",
            "a-manager-name-much-longer-than-one-hundred-and-twenty-eight-characters-which-upstream-refuses-as-too-long-for-a-field-manager-x",
        ],
    ),
    ("fieldValidation", &["Strict", "Warn", "Ignore", "Bogus"]),
    ("force", &["true", "false", "yes"]),
    ("gracePeriodSeconds", &["0", "1", "30", "-1", "abc", "9223372036854775807"]),
    ("watch", &["true", "1", "false", "perhaps"]),
    ("allowWatchBookmarks", &["true", "x"]),
    ("timeoutSeconds", &["1", "-1", "abc"]),
    ("sendInitialEvents", &["true", "false"]),
    ("pretty", &["true"]),
    ("bogus", &["1"]),
];

const CONTENT_TYPES: &[&str] = &[
    "application/json",
    "application/json; charset=utf-8",
    "application/yaml",
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
    "application/apply-patch+cbor",
    "application/vnd.kubernetes.protobuf",
    "application/cbor",
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/json;;;",
    "garbage",
];

const ACCEPTS: &[&str] = &[
    "application/json",
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
    "application/json;as=Table;g=meta.k8s.io;v=v1",
    "application/json;as=Table;g=meta.k8s.io;v=v1beta1",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "application/cbor",
    "text/html",
    "*/*",
    ";;;",
];

const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "FROB"];

/// The generator: a seeded random source and the requests it makes.
pub struct Generator {
    rng: Rng,
    /// Suffix of the fuzzer's names ("" for none).
    salt: String,
}

impl Generator {
    /// A generator whose requests are a function of `seed` only.
    pub fn new(seed: u64) -> Self {
        Self::salted(seed, "")
    }

    /// As [`Generator::new`], every name the fuzzer owns suffixed with `salt` (a DNS label, or
    /// "" for none): the namespaces it creates and the one it never makes become `fz-a-<salt>`,
    /// ..., object names `a-<salt>`, ..., and the custom resource's group
    /// `<salt>.fuzz.example.com`.
    pub fn salted(seed: u64, salt: &str) -> Self {
        Self { rng: Rng::with_seed(seed), salt: salt.to_string() }
    }

    /// Requests that set the scene: the fuzzer's namespaces, their `default` ServiceAccounts and
    /// the custom resource's definition, so that valid requests into them can succeed from the
    /// start.
    pub fn setup(&self) -> Vec<FuzzRequest> {
        let mut out: Vec<FuzzRequest> = self
            .fuzz_namespaces()
            .into_iter()
            .map(|ns| {
                json_request(
                    "POST",
                    "/api/v1/namespaces".into(),
                    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
                )
            })
            .collect();
        out.extend(self.fuzz_namespaces().iter().map(|ns| service_account(ns)));
        out.push(json_request(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions".into(),
            custom_resource_definition(&self.salt),
        ));
        out
    }

    /// The namespaces [`Generator::setup`] creates.
    pub fn fuzz_namespaces(&self) -> Vec<String> {
        ["fz-a", "fz-b"].iter().map(|ns| self.salt_name(ns)).collect()
    }

    /// The name of the custom resource's definition [`Generator::setup`] creates.
    pub fn definition_name(&self) -> String {
        custom_definition(&self.salt)
    }

    /// `base` with the salt.
    fn salt_name(&self, base: &str) -> String {
        if self.salt.is_empty() { base.to_string() } else { format!("{base}-{}", self.salt) }
    }

    /// The next request.
    pub fn next_request(&mut self) -> FuzzRequest {
        let kind = self.pick_kind();
        let valid = self.rng.u8(..100) < 55;
        let mut request = if valid { self.valid(kind) } else { self.mutated(kind) };
        if self.rng.u8(..10) == 0 {
            request.accept = Some(self.pick(ACCEPTS).to_string());
        }
        request
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.usize(..items.len())]
    }

    fn pick_kind(&mut self) -> &'static Kind {
        // Mostly the kinds the garbage collector cares about most.
        if self.rng.bool() { &KINDS[self.rng.usize(..3)] } else { &KINDS[self.rng.usize(..KINDS.len())] }
    }

    fn namespace(&mut self) -> String {
        let weights = self.rng.u8(..10);
        let base = match weights {
            0..=5 => "fz-a",
            6..=7 => "fz-b",
            _ => self.pick::<&str>(NAMESPACES),
        };
        if SHARED_NAMESPACES.contains(&base) { base.to_string() } else { self.salt_name(base) }
    }

    fn name(&mut self) -> String {
        let base = self.pick::<&str>(NAMES);
        self.salt_name(base)
    }

    /// A well-formed request of a common verb.
    fn valid(&mut self, kind: &'static Kind) -> FuzzRequest {
        let ns = self.namespace();
        let name = if kind.plural == "customresourcedefinitions" && self.rng.bool() { custom_definition(&self.salt) } else { self.name() };
        let collection = collection_path(kind, &ns, &self.salt);
        let object_path = format!("{collection}/{name}");
        match self.rng.u8(..14) {
            0..=3 => json_request("POST", collection, self.object(kind, &ns, &name)),
            4 => json_request("PUT", object_path, self.object(kind, &ns, &name)),
            5 => json_request("PATCH", object_path, self.finalizer_patch()).with_type("application/merge-patch+json"),
            6 => {
                let patch = json!([{"op": "add", "path": "/metadata/labels", "value": {"app": "x"}}]);
                json_request("PATCH", object_path, patch).with_type("application/json-patch+json")
            }
            7 => json_request("PATCH", object_path, self.finalizer_patch()).with_type("application/strategic-merge-patch+json"),
            8 => {
                let body = serde_json::to_string(&self.object(kind, &ns, &name)).unwrap_or_default();
                let query = if self.rng.bool() { "?fieldManager=fuzz&force=true" } else { "?fieldManager=fuzz" };
                FuzzRequest::new("PATCH", format!("{object_path}{query}"), Some("application/apply-patch+yaml"), body.into_bytes())
            }
            9..=10 => {
                let policy = self.pick(&["Orphan", "Background", "Foreground"]);
                json_request("DELETE", object_path, json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": policy}))
            }
            11 => FuzzRequest::new("GET", object_path, None, vec![]),
            12 => FuzzRequest::new("GET", format!("{collection}?limit=2"), None, vec![]),
            _ => FuzzRequest::new("DELETE", format!("{collection}?labelSelector=app%3Dx"), None, vec![]),
        }
    }

    /// A request with one or more things wrong or unusual.
    fn mutated(&mut self, kind: &'static Kind) -> FuzzRequest {
        let mut request = self.valid(kind);
        let breaks = 1 + self.rng.usize(..3);
        for _ in 0..breaks {
            match self.rng.u8(..6) {
                0 => request.uri = self.odd_path(kind),
                1 => request.method = self.pick(METHODS).to_string(),
                2 => request.uri = self.add_query(&request.uri),
                3 => request.content_type = self.odd_content_type(),
                4 => request.body = self.odd_body(kind),
                _ => request.uri = self.subresource(&request.uri),
            }
        }
        request
    }

    fn odd_path(&mut self, kind: &'static Kind) -> String {
        let ns = self.namespace();
        let name = self.name();
        let prefix = kind.prefix(&self.salt);
        match self.rng.u8(..16) {
            0 => format!("{prefix}/{}", kind.plural),
            1 => format!("{prefix}/namespaces/{ns}/{}", kind.plural),
            2 => format!("{prefix}/namespaces/{ns}/{}/{name}", kind.plural),
            3 => format!("{prefix}/watch/namespaces/{ns}/{}", kind.plural),
            4 => format!("{prefix}/watch/{}/{name}", kind.plural),
            5 => format!("{prefix}/namespaces/{ns}/{}/{name}/{}", kind.plural, self.pick(&["status", "finalize", "scale", "log", "x"])),
            6 => format!("{prefix}/namespaces/{ns}/{}/{name}/status/extra", kind.plural),
            7 => format!("/api/v1/namespaces/{ns}/{}", self.pick(&["status", "finalize"])),
            8 => format!("{prefix}/namespaces/{}/{}", self.odd_name(), kind.plural),
            9 => format!("{prefix}/namespaces/{ns}/{}/{}", kind.plural, self.odd_name()),
            10 => self
                .pick(&["/", "//", "/api", "/api/", "/apis", "/apis/", "/api/v2", "/apis/apps", "/apis/apps/v1", "/version"])
                .to_string(),
            11 => {
                self.pick(&["/healthz", "/openapi/v3", "/openapi/v3/api/v1", "/nothing", "/apis/nope.io/v1/things", "/api/v1/"]).to_string()
            }
            12 => format!("{prefix}//{}", kind.plural),
            13 => format!("{prefix}/namespaces//{}", kind.plural),
            14 => format!("{prefix}/namespaces/{ns}/{}/{name}/{}", kind.plural, self.odd_name()),
            _ => format!("/api/v1/namespaces/{}", self.odd_name()),
        }
    }

    fn odd_name(&mut self) -> String {
        let valid = self.salt_name("a.b-c");
        match self.rng.u8(..10) {
            0 => "%20".into(),
            1 => "a%2Fb".into(),
            2 => "..".into(),
            3 => ".".into(),
            4 => "%00".into(),
            5 => "x".repeat(300),
            6 => "UPPER".into(),
            7 => "%C3%A9t%C3%A9".into(),
            8 => "%FF%FE".into(),
            _ => valid,
        }
    }

    fn add_query(&mut self, uri: &str) -> String {
        let mut uri = uri.to_string();
        for _ in 0..1 + self.rng.usize(..3) {
            let (key, values) = self.pick(QUERY);
            let value = self.pick(values);
            let encoded: String = form_urlencoded::byte_serialize(value.as_bytes()).collect();
            uri.push(if uri.contains('?') { '&' } else { '?' });
            uri.push_str(&format!("{key}={encoded}"));
        }
        uri
    }

    fn subresource(&mut self, uri: &str) -> String {
        let (path, query) = uri.split_once('?').map_or((uri, None), |(p, q)| (p, Some(q)));
        let sub = self.pick(&["status", "finalize", "scale", "binding", "ephemeralcontainers"]);
        match query {
            Some(q) => format!("{path}/{sub}?{q}"),
            None => format!("{path}/{sub}"),
        }
    }

    fn odd_content_type(&mut self) -> Option<String> {
        if self.rng.u8(..8) == 0 { None } else { Some(self.pick(CONTENT_TYPES).to_string()) }
    }

    fn odd_body(&mut self, kind: &'static Kind) -> Vec<u8> {
        let ns = self.namespace();
        let name = self.name();
        let value = match self.rng.u8(..16) {
            0 => return (0..self.rng.usize(..64)).map(|_| self.rng.u8(..)).collect(),
            1 => return Vec::new(),
            2 => return b"{\"metadata\": ".to_vec(),
            3 => return format!("kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: {}\n", self.salt_name("a")).into_bytes(),
            // Around serde_json's recursion limit (128), within a test thread's stack.
            4 => deep(100 + self.rng.usize(..60), &self.salt_name("a")),
            5 => json!([1, 2, 3]),
            6 => json!("a string"),
            7 => json!(null),
            8 => {
                let mut patch = json!([{"op": self.pick(&["add", "remove", "replace", "move", "copy", "test", "frob"]), "path": self.pick(&["/metadata/finalizers/-", "/metadata/name", "/metadata/uid", "/metadata", "", "/x/y/z", "/metadata/finalizers/99"])}]);
                patch[0]["value"] = self.odd_value();
                patch[0]["from"] = json!(self.pick(&["/metadata/labels", "/nowhere"]));
                patch
            }
            _ => {
                let mut object = self.object(kind, &ns, &name);
                self.break_object(&mut object);
                object
            }
        };
        serde_json::to_vec(&value).unwrap_or_default()
    }

    fn odd_value(&mut self) -> Value {
        match self.rng.u8(..10) {
            0 => json!(1e308),
            1 => json!(-9223372036854775808i64),
            2 => json!(u64::MAX),
            3 => json!("x".repeat(70_000)),
            4 => json!({"a": {"b": {"c": []}}}),
            5 => json!([null, true, 1.5]),
            6 => json!(null),
            7 => json!(true),
            8 => json!(""),
            _ => json!(self.pick(FINALIZERS)),
        }
    }

    /// Breaks a valid object: wrong types, missing or extra fields, bad metadata.
    fn break_object(&mut self, object: &mut Value) {
        let field = self.pick(&[
            "/apiVersion",
            "/kind",
            "/metadata",
            "/metadata/name",
            "/metadata/namespace",
            "/metadata/uid",
            "/metadata/resourceVersion",
            "/metadata/generateName",
            "/metadata/labels",
            "/metadata/annotations",
            "/metadata/finalizers",
            "/metadata/ownerReferences",
            "/metadata/deletionTimestamp",
            "/metadata/deletionGracePeriodSeconds",
            "/metadata/creationTimestamp",
            "/metadata/managedFields",
            "/metadata/generation",
            "/spec",
            "/status",
            "/data",
            "/unknownField",
        ]);
        let value = match self.rng.u8(..8) {
            0 => None,
            1 => Some(self.odd_value()),
            2 => Some(json!(self.rng.i64(..))),
            3 => Some(json!([self.owner_reference(), self.owner_reference()])),
            4 => Some(json!(["example.com/hold", "example.com/hold"])),
            5 => Some(json!({"app": self.odd_value()})),
            6 => Some(json!("2020-13-45T99:99:99Z")),
            _ => Some(json!({"x": 1})),
        };
        set_pointer(object, field, value);
    }

    fn owner_reference(&mut self) -> Value {
        let mut owner = json!({
            "apiVersion": self.pick(&["v1", "apps/v1", "", "fuzz.example.com/v1", "bad/api/version"]),
            "kind": self.pick(&["ConfigMap", "Deployment", "Namespace", "Widget", ""]),
            "name": self.pick(&["a", "b", "", "UPPER"]),
            "uid": self.pick(&["00000000-0000-0000-0000-000000000001", "", "not-a-uid"]),
        });
        if self.rng.bool() {
            owner["controller"] = json!(self.rng.bool());
        }
        if self.rng.bool() {
            owner["blockOwnerDeletion"] = if self.rng.bool() { json!(true) } else { json!("yes") };
        }
        owner
    }

    fn finalizer_patch(&mut self) -> Value {
        match self.rng.u8(..4) {
            0 => json!({"metadata": {"finalizers": null}}),
            1 => json!({"metadata": {"finalizers": [self.pick(FINALIZERS)]}}),
            2 => json!({"metadata": {"labels": {"app": "x"}}}),
            _ => json!({"metadata": {"ownerReferences": [self.owner_reference()]}}),
        }
    }

    /// A valid object of `kind` named `name` in `ns`, sometimes with finalizers, labels and
    /// owner references.
    fn object(&mut self, kind: &'static Kind, ns: &str, name: &str) -> Value {
        let mut metadata = json!({"name": name});
        if kind.namespaced && self.rng.bool() {
            metadata["namespace"] = json!(ns);
        }
        if self.rng.u8(..4) == 0 {
            metadata["finalizers"] = json!(["example.com/hold"]);
        }
        if self.rng.bool() {
            metadata["labels"] = json!({"app": self.pick(&["x", "y"])});
        }
        if self.rng.u8(..4) == 0 {
            metadata["ownerReferences"] = json!([{
                "apiVersion": "v1", "kind": "ConfigMap", "name": self.name(),
                "uid": "00000000-0000-0000-0000-000000000001", "blockOwnerDeletion": self.rng.bool()
            }]);
        }
        let mut object = json!({"apiVersion": kind.api_version(&self.salt), "kind": kind.kind, "metadata": metadata});
        if let Some(body) = spec_of(kind.kind, kind.group, &self.salt) {
            for (k, v) in body.as_object().into_iter().flatten() {
                object[k] = v.clone();
            }
        }
        object
    }
}

impl FuzzRequest {
    fn new(method: &str, uri: String, content_type: Option<&str>, body: Vec<u8>) -> Self {
        Self { method: method.into(), uri, content_type: content_type.map(String::from), accept: None, body }
    }

    fn with_type(mut self, content_type: &str) -> Self {
        self.content_type = Some(content_type.into());
        self
    }
}

/// The request that makes namespace `ns`'s `default` ServiceAccount, which the service account
/// controller makes on a cluster and which a pod names unless it names another.
pub fn service_account(ns: &str) -> FuzzRequest {
    let account = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}});
    json_request("POST", format!("/api/v1/namespaces/{ns}/serviceaccounts"), account)
}

fn json_request(method: &str, uri: String, body: Value) -> FuzzRequest {
    FuzzRequest::new(method, uri, Some("application/json"), serde_json::to_vec(&body).unwrap_or_default())
}

fn collection_path(kind: &Kind, ns: &str, salt: &str) -> String {
    if kind.namespaced {
        format!("{}/namespaces/{ns}/{}", kind.prefix(salt), kind.plural)
    } else {
        format!("{}/{}", kind.prefix(salt), kind.plural)
    }
}

/// JSON nested `depth` levels deep inside the labels of a ConfigMap named `name`.
fn deep(depth: usize, name: &str) -> Value {
    let mut v = json!(1);
    for _ in 0..depth {
        v = json!({ "a": v });
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": v}})
}

/// Sets (or with `None` removes) the field at a JSON pointer, creating objects on the way.
fn set_pointer(object: &mut Value, pointer: &str, value: Option<Value>) {
    let (parent, last) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    let mut target = object;
    for part in parent.split('/').filter(|p| !p.is_empty()) {
        if !target.get(part).is_some_and(Value::is_object) {
            target[part] = json!({});
        }
        target = &mut target[part];
    }
    if let Some(map) = target.as_object_mut() {
        match value {
            Some(v) => {
                map.insert(last.to_string(), v);
            }
            None => {
                map.remove(last);
            }
        }
    }
}

/// What a kind needs besides metadata to be valid (a definition's group salted with `salt`).
fn spec_of(kind: &str, group: &str, salt: &str) -> Option<Value> {
    let template = json!({"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let selector = json!({"matchLabels": {"app": "x"}});
    Some(match (group, kind) {
        ("", "ConfigMap") => json!({"data": {"k": "v"}}),
        ("", "Secret") => json!({"stringData": {"k": "v"}}),
        ("", "Pod") => json!({"spec": {"containers": [{"name": "c", "image": "busybox"}]}}),
        ("", "Service") => json!({"spec": {"ports": [{"port": 80}]}}),
        ("", "Event") => json!({"involvedObject": {"kind": "Pod", "name": "a"}, "reason": "Fuzz"}),
        ("", "ReplicationController") => json!({"spec": {"replicas": 0, "selector": {"app": "x"}, "template": template}}),
        ("", "PersistentVolumeClaim") => {
            json!({"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
        }
        ("", "PersistentVolume") => {
            json!({"spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp"}}})
        }
        ("apps", "Deployment" | "ReplicaSet" | "DaemonSet") => json!({"spec": {"replicas": 0, "selector": selector, "template": template}}),
        ("apps", "StatefulSet") => json!({"spec": {"replicas": 0, "serviceName": "s", "selector": selector, "template": template}}),
        ("apps", "ControllerRevision") => json!({"revision": 1}),
        ("batch", "Job") => {
            json!({"spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}})
        }
        ("batch", "CronJob") => {
            json!({"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}})
        }
        ("rbac.authorization.k8s.io", _) => json!({"rules": []}),
        ("events.k8s.io", _) => {
            json!({"eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "fuzz", "reportingInstance": "fuzz", "action": "Fuzz", "reason": "Fuzz", "type": "Normal"})
        }
        ("apiextensions.k8s.io", _) => json!({"spec": custom_resource_definition(salt)["spec"].clone()}),
        ("fuzz.example.com", _) => json!({"spec": {"size": 1}}),
        _ => return None,
    })
}

/// The definition of the custom resource `widgets.fuzz.example.com` (its group salted with
/// `salt`).
fn custom_resource_definition(salt: &str) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": custom_definition(salt)},
        "spec": {
            "group": custom_group(salt),
            "names": {"plural": CUSTOM.plural, "singular": "widget", "kind": CUSTOM.kind, "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{
                "name": CUSTOM.version, "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
            }]
        }
    })
}
