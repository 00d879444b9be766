//! Just enough OpenAPI v3 for kubectl: an index of group versions and, per group version, the
//! PATCH operation of each kind with its `x-kubernetes-group-version-kind` and its
//! `fieldValidation` parameter. kubectl reads that parameter to learn that the server validates
//! fields itself, so `kubectl create -f` and `apply -f` work without `--validate=false`.
//!
//! No schemas are published; strategic merge patch is not listed as a PATCH body, so
//! `kubectl apply` computes patches from its compiled-in types, as it does for servers without
//! OpenAPI.

use serde_json::{Map, Value, json};

use crate::apiserver::catalogue::Catalogue;

fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() { format!("api/{version}") } else { format!("apis/{group}/{version}") }
}

/// `/openapi/v3`: the index of group-version documents.
pub fn v3_index(catalogue: &Catalogue) -> Value {
    let mut paths = Map::new();
    for (group, versions) in catalogue.groups() {
        for v in versions {
            let p = gv_path(&group, &v);
            paths.insert(p.clone(), json!({"serverRelativeURL": format!("/openapi/v3/{p}")}));
        }
    }
    json!({"paths": paths})
}

/// `/openapi/v3/api/v1` or `/openapi/v3/apis/{group}/{version}`, if served.
pub fn v3_group_version(catalogue: &Catalogue, path: &str) -> Option<Value> {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version) = match parts.as_slice() {
        ["api", v] => ("", *v),
        ["apis", g, v] => (*g, *v),
        _ => return None,
    };
    let mut paths = Map::new();
    for r in catalogue.all().filter(|r| r.group == group && r.serves(version)) {
        let prefix = format!("/{}", gv_path(group, version));
        let item = if r.namespaced {
            format!("{prefix}/namespaces/{{namespace}}/{}/{{name}}", r.plural)
        } else {
            format!("{prefix}/{}/{{name}}", r.plural)
        };
        let gvk = json!({"group": group, "version": version, "kind": r.kind});
        let content: Map<String, Value> = ["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"]
            .iter()
            .map(|t| (t.to_string(), json!({"schema": {"type": "object"}})))
            .collect();
        paths.insert(
            item,
            json!({"patch": {
                "operationId": format!("patch{}", r.kind),
                "x-kubernetes-action": "patch",
                "x-kubernetes-group-version-kind": gvk,
                "parameters": [
                    {"name": "dryRun", "in": "query", "schema": {"type": "string"}},
                    {"name": "fieldManager", "in": "query", "schema": {"type": "string"}},
                    {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}},
                ],
                "requestBody": {"content": content},
                "responses": {"200": {"description": "OK"}},
            }}),
        );
    }
    if paths.is_empty() {
        return None;
    }
    let (major, minor) = crate::apiserver::discovery::KUBERNETES_VERSION;
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": format!("v{major}.{minor}.0")},
        "paths": paths,
        "components": {"schemas": {}},
    }))
}
