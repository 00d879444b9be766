//! Discovery: `/version`, `/api`, `/apis`, and the resource lists of each group version, in
//! the legacy (unaggregated) form. kubectl asks for aggregated discovery first; a plain
//! `application/json` answer makes it fall back to these documents, as with older servers.

use serde_json::{Value, json};

use crate::apiserver::catalogue::{Catalogue, ResourceInfo};

/// The Kubernetes release the fake apiserver answers as: the one `upstream/go.mod` pins.
pub const KUBERNETES_RELEASE: &str = "v1.37.2";

/// The major and minor version of [`KUBERNETES_RELEASE`].
pub const KUBERNETES_VERSION: (&str, &str) = ("1", "37");

/// `/version`, as kube-apiserver of [`KUBERNETES_RELEASE`] built with its release's version
/// answers it: its binary version as major and minor, the same emulation version, the minor
/// before as the lowest it stays compatible with (`k8s.io/component-base/compatibility`
/// `effectiveVersion.Info`), the release as `gitVersion`, and upstream's defaults for what a
/// build stamps (`k8s.io/component-base/version/base.go`: a commit left as `$Format:%H$`); the
/// platform in Go's names of the machine it runs on. The compiler and toolchain named are the
/// fake's own: it is not a Go build, and says so.
pub fn version() -> Value {
    let (major, minor) = KUBERNETES_VERSION;
    let previous = minor.parse::<u32>().map_or_else(|_| minor.to_string(), |m| m.saturating_sub(1).to_string());
    json!({
        "major": major,
        "minor": minor,
        "emulationMajor": major,
        "emulationMinor": minor,
        "minCompatibilityMajor": major,
        "minCompatibilityMinor": previous,
        "gitVersion": KUBERNETES_RELEASE,
        "gitCommit": "$Format:%H$",
        "gitTreeState": "clean",
        "buildDate": "1970-01-01T00:00:00Z",
        "goVersion": concat!("none (kubegc ", env!("CARGO_PKG_VERSION"), ", Rust)"),
        "compiler": "rustc",
        "platform": go_platform(std::env::consts::OS, std::env::consts::ARCH),
    })
}

/// A platform as Go's `runtime.GOOS/runtime.GOARCH` names it, from Rust's names for it.
fn go_platform(os: &str, arch: &str) -> String {
    let os = if os == "macos" { "darwin" } else { os };
    format!("{os}/{}", go_arch(arch))
}

/// An architecture as Go's `runtime.GOARCH` (and so Kubernetes) names it, from Rust's
/// `std::env::consts::ARCH` name for it.
pub fn go_arch(arch: &str) -> &str {
    match arch {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    }
}

/// `/api`.
pub fn core_versions() -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]})
}

fn group_entry(name: &str, versions: &[String]) -> Value {
    let vs: Vec<Value> = versions.iter().map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v})).collect();
    json!({"name": name, "versions": vs.clone(), "preferredVersion": vs[0]})
}

/// `/apis`.
pub fn groups(catalogue: &Catalogue) -> Value {
    let groups: Vec<Value> = catalogue.groups().iter().filter(|(g, _)| !g.is_empty()).map(|(g, vs)| group_entry(g, vs)).collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// The health checks, each answering `ok` whatever the method.
pub const HEALTH_PATHS: [&str; 3] = ["/healthz", "/livez", "/readyz"];

/// `/`: the paths the server serves, sorted, as the generic API server's index lists them
/// (`routes.Index`, k8s.io/apiserver pkg/server/routes/index.go): discovery of every group,
/// health, OpenAPI and the version.
pub fn root_paths(catalogue: &Catalogue) -> Value {
    let mut paths: Vec<String> = ["/api", "/api/v1", "/apis", "/apis/", "/openapi/v3", "/openapi/v3/", "/version"]
        .into_iter()
        .chain(HEALTH_PATHS)
        .map(String::from)
        .collect();
    for (group, versions) in catalogue.groups().iter().filter(|(g, _)| !g.is_empty()) {
        paths.push(format!("/apis/{group}"));
        paths.extend(versions.iter().map(|v| format!("/apis/{group}/{v}")));
    }
    paths.sort();
    json!({"paths": paths})
}

/// `/apis/{group}`, if the group is served.
pub fn group(catalogue: &Catalogue, name: &str) -> Option<Value> {
    let groups = catalogue.groups();
    let (_, versions) = groups.iter().find(|(g, _)| g == name && !g.is_empty())?;
    let mut entry = group_entry(name, versions);
    entry["kind"] = json!("APIGroup");
    entry["apiVersion"] = json!("v1");
    Some(entry)
}

const VERBS: &[&str] = &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/// What names a resource's storage version in discovery: the first 8 bytes of the SHA-256 of
/// `group/version/kind`, in base64 (`StorageVersionHash`, k8s.io/apiserver
/// pkg/endpoints/discovery/storageversionhash.go).
fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{group}/{version}/{kind}").as_bytes());
    base64::engine::general_purpose::STANDARD.encode(&digest[..8])
}

fn resource_entries(r: &ResourceInfo) -> Vec<Value> {
    let verbs: Vec<&str> = VERBS.iter().copied().filter(|v| *v != "deletecollection" || r.collection_delete).collect();
    let mut main = json!({
        "name": r.plural,
        "singularName": r.singular,
        "namespaced": r.namespaced,
        "kind": r.kind,
        "verbs": verbs,
        "storageVersionHash": storage_version_hash(&r.storage.0, &r.storage_version, &r.kind),
    });
    if !r.short_names.is_empty() {
        main["shortNames"] = json!(r.short_names);
    }
    if !r.categories.is_empty() {
        main["categories"] = json!(r.categories);
    }
    let mut out = vec![main];
    if r.scale.is_some() {
        // The Scale of every scalable resource is autoscaling/v1's (upstream's discovery names
        // its group and version apart from the parent's).
        out.push(json!({"name": format!("{}/scale", r.plural), "singularName": "", "namespaced": r.namespaced, "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]}));
    }
    if r.binding_subresource {
        out.push(json!({"name": format!("{}/binding", r.plural), "singularName": "", "namespaced": r.namespaced, "kind": "Binding", "verbs": ["create"]}));
    }
    if r.ephemeral_containers_subresource {
        out.push(json!({"name": format!("{}/ephemeralcontainers", r.plural), "singularName": "", "namespaced": r.namespaced, "kind": r.kind, "verbs": ["get", "patch", "update"]}));
    }
    if r.status_subresource {
        out.push(json!({"name": format!("{}/status", r.plural), "singularName": "", "namespaced": r.namespaced, "kind": r.kind, "verbs": ["get", "patch", "update"]}));
    }
    if r.approval_subresource {
        out.push(json!({"name": format!("{}/approval", r.plural), "singularName": "", "namespaced": r.namespaced, "kind": r.kind, "verbs": ["get", "patch", "update"]}));
    }
    if r.finalize_subresource {
        out.push(json!({"name": format!("{}/finalize", r.plural), "singularName": "", "namespaced": r.namespaced, "kind": r.kind, "verbs": ["update"]}));
    }
    out
}

/// `/api/v1` or `/apis/{group}/{version}`, if served.
pub fn resources(catalogue: &Catalogue, group: &str, version: &str) -> Option<Value> {
    let mut list: Vec<Value> =
        catalogue.all().filter(|r| r.group == group && r.serves(version)).flat_map(|r| resource_entries(r)).collect();
    if list.is_empty() {
        return None;
    }
    // Sorted by name, subresources among them (`APIInstaller.Install` sorts its paths,
    // k8s.io/apiserver pkg/endpoints/installer.go).
    list.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    if group.is_empty() {
        // The legacy group's list is written without an apiVersion (`legacyRootAPIHandler`
        // and the core group's `APIResourceLister`, k8s.io/apiserver pkg/endpoints/discovery).
        return Some(json!({"kind": "APIResourceList", "groupVersion": version, "resources": list}));
    }
    Some(json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": format!("{group}/{version}"), "resources": list}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_storage_version_hash_is_upstream_s() {
        // As kube-apiserver v1.37.2 lists them in /api/v1 and /apis/apps/v1.
        assert_eq!(storage_version_hash("", "v1", "ConfigMap"), "qFsyl6wFWjQ=");
        assert_eq!(storage_version_hash("apps", "v1", "ControllerRevision"), "85nkx63pcBU=");
    }

    #[test]
    fn the_release_is_the_one_upstream_pins() {
        let go_mod = include_str!("../../upstream/go.mod");
        let pinned = go_mod.lines().find_map(|l| l.trim().strip_prefix("k8s.io/kubernetes ")).map(str::trim);
        assert_eq!(pinned, Some(KUBERNETES_RELEASE));
        let (major, minor) = KUBERNETES_VERSION;
        assert!(KUBERNETES_RELEASE.starts_with(&format!("v{major}.{minor}.")));
    }

    #[test]
    fn the_platform_is_named_as_go_names_it() {
        assert_eq!(go_platform("linux", "x86_64"), "linux/amd64");
        assert_eq!(go_platform("macos", "aarch64"), "darwin/arm64");
        assert_eq!(go_platform("windows", "x86"), "windows/386");
        assert_eq!(go_platform("linux", "s390x"), "linux/s390x");
    }
}
